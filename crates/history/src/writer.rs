//! A blocking facade for synchronous callers (the CLI): a thread with its own
//! current-thread runtime owns the history connection and stores what the engine
//! reports, step by step, while the caller keeps printing.
//!
//! A failed write never stops a benchmark: it is counted in the [`WriterReport`] and the
//! caller tells the user at the end.

use std::path::Path;
use std::thread::JoinHandle;

use dbdyno_engine::EngineEvent;
use tokio::sync::mpsc;

use crate::model::{to_value, NewRun, RunState, SampleRow};
use crate::write::PhaseReport;
use crate::{History, HistoryError};

enum Msg {
    Event(Box<EngineEvent>),
    ServerSamples(Vec<SampleRow>),
    MysqlSamples(Vec<SampleRow>),
    Environment(serde_json::Value),
    Monitoring(serde_json::Value),
    Finish {
        state: RunState,
        failure: Option<String>,
    },
}

/// What the writer did, for the caller to report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriterReport {
    pub run_id: i64,
    pub steps_written: u32,
    /// Writes that failed, as messages (the run goes on without them).
    pub errors: Vec<String>,
}

/// Records one run from the engine's events. Create it before the engine starts (the
/// run row exists, state `running`, once [`HistoryWriter::start`] returns), feed it every
/// event with [`HistoryWriter::record`], and end with [`HistoryWriter::finish`].
pub struct HistoryWriter {
    tx: Option<mpsc::UnboundedSender<Msg>>,
    thread: Option<JoinHandle<WriterReport>>,
    run_id: i64,
}

impl HistoryWriter {
    /// Opens the history in `data_dir` and creates the run.
    pub fn start(data_dir: &Path, new: NewRun) -> Result<HistoryWriter, HistoryError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<i64, HistoryError>>();
        let dir = data_dir.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("history-writer".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(HistoryError::Runtime(e)));
                        return WriterReport::default();
                    }
                };
                rt.block_on(async move {
                    let opened = async {
                        let h = History::open(&dir).await?;
                        let id = h.create_run(&new).await?;
                        Ok::<_, HistoryError>((h, id))
                    };
                    match opened.await {
                        Ok((h, id)) => {
                            let _ = ready_tx.send(Ok(id));
                            let report = write_loop(&h, id, rx).await;
                            h.close().await;
                            report
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                            WriterReport::default()
                        }
                    }
                })
            })
            .map_err(HistoryError::Runtime)?;
        match ready_rx.recv() {
            Ok(Ok(run_id)) => Ok(HistoryWriter {
                tx: Some(tx),
                thread: Some(thread),
                run_id,
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let why = match thread.join() {
                    Err(_) => "it panicked".to_string(),
                    Ok(_) => "it ended before creating the run".to_string(),
                };
                Err(HistoryError::WriterGone(why))
            }
        }
    }

    pub fn run_id(&self) -> i64 {
        self.run_id
    }

    /// Passes on the events the history keeps (steps, warnings, phase reports);
    /// ignores the rest (interval lines arrive again inside each finished step).
    pub fn record(&self, e: &EngineEvent) {
        let keep = matches!(
            e,
            EngineEvent::StepStarted { .. }
                | EngineEvent::StepFinished { .. }
                | EngineEvent::Warning { .. }
                | EngineEvent::PrepareFinished(_)
                | EngineEvent::PrewarmFinished(_)
        );
        if keep {
            self.send(Msg::Event(Box::new(e.clone())));
        }
    }

    /// Per-second server samples (the monitor's `ServerSample`, serialized).
    pub fn add_server_samples(&self, rows: Vec<SampleRow>) {
        self.send(Msg::ServerSamples(rows));
    }

    /// Per-second MySQL status samples.
    pub fn add_mysql_samples(&self, rows: Vec<SampleRow>) {
        self.send(Msg::MysqlSamples(rows));
    }

    /// Replaces the run's environment snapshot.
    pub fn set_environment(&self, environment: serde_json::Value) {
        self.send(Msg::Environment(environment));
    }

    /// Stores what monitoring recorded (the `monitoring` object of `--json`).
    pub fn set_monitoring(&self, monitoring: serde_json::Value) {
        self.send(Msg::Monitoring(monitoring));
    }

    fn send(&self, m: Msg) {
        if let Some(tx) = &self.tx {
            // A writer thread that is gone has already counted its own failure.
            let _ = tx.send(m);
        }
    }

    /// Sets the final state, waits until everything is written, and says how it went.
    pub fn finish(mut self, state: RunState, failure: Option<String>) -> WriterReport {
        self.send(Msg::Finish { state, failure });
        self.join()
    }

    fn join(&mut self) -> WriterReport {
        self.tx = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(report)) => report,
            Some(Err(_)) => WriterReport {
                run_id: self.run_id,
                steps_written: 0,
                errors: vec!["the history writer thread panicked".into()],
            },
            None => WriterReport {
                run_id: self.run_id,
                ..WriterReport::default()
            },
        }
    }
}

impl Drop for HistoryWriter {
    /// Dropped without `finish` (an early return, a panic in the caller): the run did not
    /// end normally, so it is stored as interrupted rather than left running.
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.send(Msg::Finish {
                state: RunState::Interrupted,
                failure: Some("the recording stopped before the run ended".into()),
            });
            let _ = self.join();
        }
    }
}

async fn write_loop(
    h: &History,
    run_id: i64,
    mut rx: mpsc::UnboundedReceiver<Msg>,
) -> WriterReport {
    let mut report = WriterReport {
        run_id,
        ..WriterReport::default()
    };
    let mut current_step: Option<u32> = None;
    let mut finished = false;
    while let Some(msg) = rx.recv().await {
        let r = match msg {
            Msg::Event(e) => match *e {
                EngineEvent::StepStarted { step, .. } => {
                    current_step = Some(step as u32);
                    Ok(())
                }
                EngineEvent::StepFinished { step, result } => {
                    current_step = None;
                    let r = h.record_step(run_id, step as u32, &result).await;
                    if r.is_ok() {
                        report.steps_written += 1;
                    }
                    r
                }
                EngineEvent::Warning { text } => h.add_warning(run_id, current_step, &text).await,
                EngineEvent::PrepareFinished(p) => match to_value(&p, "the prepare report") {
                    Ok(v) => h.set_phase_report(run_id, PhaseReport::Prepare, &v).await,
                    Err(e) => Err(e),
                },
                EngineEvent::PrewarmFinished(p) => match to_value(&p, "the prewarm report") {
                    Ok(v) => h.set_phase_report(run_id, PhaseReport::Prewarm, &v).await,
                    Err(e) => Err(e),
                },
                _ => Ok(()),
            },
            Msg::ServerSamples(rows) => h.add_server_samples(run_id, &rows).await,
            Msg::MysqlSamples(rows) => h.add_mysql_samples(run_id, &rows).await,
            Msg::Environment(v) => h.set_environment(run_id, &v).await,
            Msg::Monitoring(v) => h.set_monitoring(run_id, &v).await,
            Msg::Finish { state, failure } => {
                finished = true;
                let r = h.finish_run(run_id, state, failure.as_deref()).await;
                rx.close();
                r
            }
        };
        if let Err(e) = r {
            report.errors.push(e.to_string());
        }
    }
    if !finished {
        if let Err(e) = h
            .finish_run(
                run_id,
                RunState::Interrupted,
                Some("the recording stopped before the run ended"),
            )
            .await
        {
            report.errors.push(e.to_string());
        }
    }
    report
}
