//! A blocking facade for synchronous callers (the CLI, the app's run thread): a thread
//! with its own current-thread runtime owns the history connection and stores what the
//! engine reports, step by step, while the caller keeps measuring.
//!
//! A failed write never stops a benchmark and nothing here waits without a bound: each
//! write has [`WRITE_DEADLINE`], and the first write that fails or outlasts it ends the
//! recording of this run (later writes are dropped, so the history holds a prefix of the
//! run, never a run with a hole). The caller learns it from [`HistoryWriter::failure`]
//! as soon as it happens and keeps the run's results elsewhere (the session's spill
//! file); [`HistoryWriter::sync`] and [`HistoryWriter::finish`] wait a bounded time.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use dbdyno_engine::EngineEvent;
use tokio::sync::mpsc;

use crate::model::{to_value, NewRun, RunState};
use crate::write::PhaseReport;
use crate::{History, HistoryError};
use dbdyno_results::{Monitoring, MysqlSample, Sampled, ServerSample};

/// The longest one write to the history may take (a lock another process holds, a disk
/// that stopped answering) before the run stops recording to it. Below the database's
/// busy timeout, so that this, not SQLite, decides; far above what a step's transaction
/// takes on a loaded machine (milliseconds), so that two writers never trip it.
pub const WRITE_DEADLINE: Duration = Duration::from_secs(30);

/// The longest the end of a run waits for the writer to store what is queued, and then
/// for it to set the final state and close the database.
pub const FINISH_DEADLINE: Duration = Duration::from_secs(45);

/// How long closing the database (a WAL checkpoint) may take.
const CLOSE_DEADLINE: Duration = Duration::from_secs(10);

enum Msg {
    Event(Box<EngineEvent>),
    ServerSamples(Vec<Sampled<ServerSample>>),
    MysqlSamples(Vec<Sampled<MysqlSample>>),
    Environment(serde_json::Value),
    Monitoring(Box<Monitoring>),
    /// Answered once everything sent before it is written (or dropped).
    Sync(std::sync::mpsc::Sender<()>),
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

/// The first write that failed, shared between the writer thread and the caller.
type Failure = Arc<Mutex<Option<String>>>;

/// Records one run from the engine's events. Create it before the engine starts (the
/// run row exists, state `running`, once [`HistoryWriter::start`] returns), feed it every
/// event with [`HistoryWriter::record`], and end with [`HistoryWriter::finish`].
pub struct HistoryWriter {
    tx: Option<mpsc::UnboundedSender<Msg>>,
    thread: Option<JoinHandle<()>>,
    done: std::sync::mpsc::Receiver<WriterReport>,
    failure: Failure,
    run_id: i64,
}

impl HistoryWriter {
    /// Opens the history in `data_dir` and creates the run. Gives up after
    /// [`WRITE_DEADLINE`] (a database another process keeps locked).
    pub fn start(data_dir: &Path, new: NewRun) -> Result<HistoryWriter, HistoryError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<i64, HistoryError>>();
        let (done_tx, done) = std::sync::mpsc::channel::<WriterReport>();
        let failure: Failure = Arc::default();
        let dir = data_dir.to_path_buf();
        let failed = failure.clone();
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
                        return;
                    }
                };
                rt.block_on(async move {
                    let opened = async {
                        let h = History::open(&dir).await?;
                        match h.create_run(&new).await {
                            Ok(id) => Ok((h, id)),
                            Err(e) => {
                                close(&h).await;
                                Err(e)
                            }
                        }
                    };
                    let opened = match tokio::time::timeout(WRITE_DEADLINE, opened).await {
                        Ok(r) => r,
                        Err(_) => Err(HistoryError::TooSlow {
                            what: "opening the history and creating the run",
                            seconds: WRITE_DEADLINE.as_secs(),
                        }),
                    };
                    match opened {
                        Ok((h, id)) => {
                            let _ = ready_tx.send(Ok(id));
                            let report = write_loop(h, &dir, id, rx, &failed).await;
                            let _ = done_tx.send(report);
                        }
                        Err(e) => {
                            let _ = ready_tx.send(Err(e));
                        }
                    }
                })
            })
            .map_err(HistoryError::Runtime)?;
        // The thread answers within the deadline it sets itself; the margin covers a
        // runtime that is slow to start on a loaded machine.
        match ready_rx.recv_timeout(WRITE_DEADLINE + Duration::from_secs(5)) {
            Ok(Ok(run_id)) => Ok(HistoryWriter {
                tx: Some(tx),
                thread: Some(thread),
                done,
                failure,
                run_id,
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(HistoryError::TooSlow {
                what: "opening the history and creating the run",
                seconds: WRITE_DEADLINE.as_secs(),
            }),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
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

    /// The first write that failed or outlasted [`WRITE_DEADLINE`], if any: from then
    /// on nothing more of this run is written to the history.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .map(|f| f.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
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
    pub fn add_server_samples(&self, rows: Vec<Sampled<ServerSample>>) {
        self.send(Msg::ServerSamples(rows));
    }

    /// Per-second MySQL status samples.
    pub fn add_mysql_samples(&self, rows: Vec<Sampled<MysqlSample>>) {
        self.send(Msg::MysqlSamples(rows));
    }

    /// Replaces the run's environment snapshot.
    pub fn set_environment(&self, environment: serde_json::Value) {
        self.send(Msg::Environment(environment));
    }

    /// Stores what monitoring recorded (the `monitoring` object of `--json`).
    pub fn set_monitoring(&self, monitoring: Monitoring) {
        self.send(Msg::Monitoring(Box::new(monitoring)));
    }

    /// Waits (at most `deadline`) until everything sent so far is written or dropped.
    /// Err: the writer is still busy (a write waiting on a lock or a stalled disk).
    pub fn sync(&self, deadline: Duration) -> Result<(), String> {
        let (ack, answered) = std::sync::mpsc::channel();
        self.send(Msg::Sync(ack));
        match answered.recv_timeout(deadline) {
            Ok(()) => Ok(()),
            // Gone: it has counted its own failure.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Ok(()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let why = format!(
                    "the history still had writes pending {} s after the run's end",
                    deadline.as_secs()
                );
                self.fail(&why);
                Err(why)
            }
        }
    }

    fn fail(&self, why: &str) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        f.get_or_insert_with(|| why.to_string());
    }

    fn send(&self, m: Msg) {
        if let Some(tx) = &self.tx {
            // A writer thread that is gone has already counted its own failure.
            let _ = tx.send(m);
        }
    }

    /// Sets the final state, waits (at most [`FINISH_DEADLINE`]) until everything is
    /// written, and says how it went.
    pub fn finish(mut self, state: RunState, failure: Option<String>) -> WriterReport {
        self.send(Msg::Finish { state, failure });
        self.join()
    }

    fn join(&mut self) -> WriterReport {
        self.tx = None;
        let Some(thread) = self.thread.take() else {
            return WriterReport {
                run_id: self.run_id,
                ..WriterReport::default()
            };
        };
        match self.done.recv_timeout(FINISH_DEADLINE) {
            Ok(report) => {
                let _ = thread.join();
                report
            }
            // The thread is left behind (it holds nothing the process needs; the OS
            // closes its file when the process exits): a run never waits longer.
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => WriterReport {
                run_id: self.run_id,
                steps_written: 0,
                errors: vec![format!(
                    "the history writer did not finish within {} s (left behind)",
                    FINISH_DEADLINE.as_secs()
                )],
            },
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => WriterReport {
                run_id: self.run_id,
                steps_written: 0,
                errors: vec!["the history writer thread panicked".into()],
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

async fn close(h: &History) {
    let _ = tokio::time::timeout(CLOSE_DEADLINE, h.close()).await;
}

/// One write, bounded by [`WRITE_DEADLINE`].
async fn bounded(
    what: &'static str,
    write: impl std::future::Future<Output = Result<(), HistoryError>>,
) -> Result<(), HistoryError> {
    match tokio::time::timeout(WRITE_DEADLINE, write).await {
        Ok(r) => r,
        Err(_) => Err(HistoryError::TooSlow {
            what,
            seconds: WRITE_DEADLINE.as_secs(),
        }),
    }
}

/// The history again after a failed write, for the final state alone (see
/// [`write_loop`]), or None when it cannot even be opened in time.
async fn reopen(dir: &Path, report: &mut WriterReport) -> Option<History> {
    match tokio::time::timeout(WRITE_DEADLINE, History::open(dir)).await {
        Ok(Ok(h)) => Some(h),
        Ok(Err(e)) => {
            report.errors.push(e.to_string());
            None
        }
        Err(_) => None,
    }
}

/// Writes what arrives until the run's final state. The first write that fails ends the
/// recording: the rest of the run is not written (the history holds a prefix, never a
/// hole), and the connections are closed at once. That close is what keeps the end of
/// the run from hanging: a transaction that failed on a full disk (SQLITE_FULL, most
/// often at its COMMIT) can leave its pooled connection holding the database's write
/// lock, and every later write on another connection of the pool then waited out the
/// 60 s busy timeout, one after the other (seen: a run that never ended after its last
/// step, its history holding 1 step of 6). Closing rolls that transaction back; the
/// final state is then tried once on a fresh connection, so the record says why it is
/// short.
async fn write_loop(
    h: History,
    dir: &Path,
    run_id: i64,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    failure: &Failure,
) -> WriterReport {
    let mut report = WriterReport {
        run_id,
        ..WriterReport::default()
    };
    let mut current_step: Option<u32> = None;
    let mut finished = false;
    // None once a write failed.
    let mut live = Some(h);
    while let Some(msg) = rx.recv().await {
        let r = match msg {
            Msg::Sync(ack) => {
                let _ = ack.send(());
                Ok(())
            }
            Msg::Finish { state, failure } => {
                finished = true;
                rx.close();
                if live.is_none() {
                    live = reopen(dir, &mut report).await;
                }
                match &live {
                    Some(h) => {
                        bounded(
                            "setting the run's final state",
                            h.finish_run(run_id, state, failure.as_deref()),
                        )
                        .await
                    }
                    None => Ok(()),
                }
            }
            _ if live.is_none() => Ok(()),
            Msg::Event(e) => {
                let Some(h) = &live else { continue };
                match *e {
                    EngineEvent::StepStarted { step, .. } => {
                        current_step = Some(step as u32);
                        Ok(())
                    }
                    EngineEvent::StepFinished { step, result } => {
                        current_step = None;
                        let r = bounded(
                            "storing a step",
                            h.record_step(run_id, step as u32, &result),
                        )
                        .await;
                        if r.is_ok() {
                            report.steps_written += 1;
                        }
                        r
                    }
                    EngineEvent::Warning { text } => {
                        bounded(
                            "storing a warning",
                            h.add_warning(run_id, current_step, &text),
                        )
                        .await
                    }
                    EngineEvent::PrepareFinished(p) => match to_value(&p, "the prepare report") {
                        Ok(v) => {
                            bounded(
                                "storing the prepare report",
                                h.set_phase_report(run_id, PhaseReport::Prepare, &v),
                            )
                            .await
                        }
                        Err(e) => Err(e),
                    },
                    EngineEvent::PrewarmFinished(p) => match to_value(&p, "the prewarm report") {
                        Ok(v) => {
                            bounded(
                                "storing the prewarm report",
                                h.set_phase_report(run_id, PhaseReport::Prewarm, &v),
                            )
                            .await
                        }
                        Err(e) => Err(e),
                    },
                    _ => Ok(()),
                }
            }
            Msg::ServerSamples(rows) => {
                let Some(h) = &live else { continue };
                bounded(
                    "storing server samples",
                    h.add_server_samples(run_id, &rows),
                )
                .await
            }
            Msg::MysqlSamples(rows) => {
                let Some(h) = &live else { continue };
                bounded("storing MySQL samples", h.add_mysql_samples(run_id, &rows)).await
            }
            Msg::Environment(v) => {
                let Some(h) = &live else { continue };
                bounded(
                    "storing the environment snapshot",
                    h.set_environment(run_id, &v),
                )
                .await
            }
            Msg::Monitoring(v) => {
                let Some(h) = &live else { continue };
                bounded(
                    "storing the monitoring record",
                    h.set_monitoring(run_id, &v),
                )
                .await
            }
        };
        if let Err(e) = r {
            let text = e.to_string();
            if let Some(h) = live.take() {
                failure
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert_with(|| text.clone());
                close(&h).await;
            }
            report.errors.push(text);
        }
    }
    if !finished {
        if live.is_none() {
            live = reopen(dir, &mut report).await;
        }
        if let Some(h) = &live {
            if let Err(e) = bounded(
                "setting the run's final state",
                h.finish_run(
                    run_id,
                    RunState::Interrupted,
                    Some("the recording stopped before the run ended"),
                ),
            )
            .await
            {
                report.errors.push(e.to_string());
            }
        }
    }
    if let Some(h) = &live {
        close(h).await;
    }
    report
}
