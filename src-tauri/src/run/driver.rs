//! Drives one run: the engine runs on a thread of its own; this thread receives its
//! events and what the samplers report, records the run in the history (through the
//! same `dbdyno_session` functions as the CLI), and sends throttled snapshots to the
//! window. Long work never touches the UI thread.

use std::time::{Duration, Instant};

use crossbeam_channel::unbounded;
use dbdyno_checks::timeline::Source;
use dbdyno_engine::{run_plan, CancelToken, EventSink, Plan};
use dbdyno_history::HistoryWriter;
use dbdyno_session::{checkpoint, finish_recording, RunMonitor, Update};
use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

use super::live::LiveRun;
use super::snapshot::{data_disk_util, LogLevel, RunSnapshot};

/// At most this many snapshots a second reach the window.
pub const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

pub struct RunJob {
    pub plan: Plan,
    pub env: String,
    pub recorder: Option<HistoryWriter>,
    pub history_error: Option<String>,
    /// The samplers started for this plan (None: the plan has no measured step).
    pub monitor: Option<RunMonitor>,
    pub cancel: CancelToken,
}

/// Runs the job to the end, calling `send` with each snapshot (the last one final).
pub fn drive(job: RunJob, send: impl Fn(RunSnapshot)) {
    let RunJob {
        plan,
        env,
        recorder,
        history_error,
        mut monitor,
        cancel,
    } = job;
    let start_unix_ms = dbdyno_history::time::now_ms();
    let mut live = LiveRun::new(
        &plan,
        &env,
        recorder.as_ref().map(|r| r.run_id()),
        start_unix_ms,
    );
    if let Some(e) = history_error {
        live.note_history(format!("not recorded in the history: {e}"));
    }
    let devices: Vec<String> = monitor.as_ref().map_or_else(Vec::new, |m| {
        live.monitor_note(LogLevel::Info, format!("Server sampled via {}", m.access()));
        for miss in m.missing() {
            live.monitor_note(
                LogLevel::Warning,
                format!("Missing: {}: {}", miss.what, miss.why),
            );
        }
        m.devices().to_vec()
    });
    let (tx, rx) = unbounded();
    let sink = EventSink::new(tx);
    let mut client = ClientCpu::new();
    let (outcome, error) = std::thread::scope(|scope| {
        let engine = {
            let cancel = cancel.clone();
            let plan = &plan;
            scope.spawn(move || run_plan(plan, &sink, &cancel))
        };
        let mut last_send = Instant::now() - SNAPSHOT_EVERY;
        let mut last_client = Instant::now();
        let mut cancel_seen = false;
        loop {
            if let Ok(e) = rx.recv_timeout(Duration::from_millis(50)) {
                live.apply(&e);
                if let Some(r) = &recorder {
                    r.record(&e);
                }
                if let Some(m) = monitor.as_mut() {
                    // No settling: the app shows step figures from the history, and
                    // waiting here would stall the snapshots.
                    let polled = m.on_event(&e, Duration::ZERO);
                    on_updates(&mut live, &devices, polled.updates);
                    // A finished step's monitoring goes to the history at once: a run
                    // killed later keeps it.
                    if let (Some(r), Some(cp)) = (&recorder, &polled.checkpoint) {
                        if let Some(why) = checkpoint(r, cp) {
                            live.note_history(format!("history: {why}"));
                        }
                    }
                }
            }
            if let Some(m) = monitor.as_mut() {
                on_updates(&mut live, &devices, m.poll());
            }
            if cancel.is_cancelled() && !cancel_seen {
                cancel_seen = true;
                live.cancel_requested();
            }
            if last_client.elapsed() >= Duration::from_secs(1) {
                last_client = Instant::now();
                if let Some(pct) = client.percent_of_machine() {
                    live.client_cpu(dbdyno_history::time::now_ms(), pct);
                }
            }
            if engine.is_finished() && rx.is_empty() {
                break;
            }
            if last_send.elapsed() >= SNAPSHOT_EVERY {
                last_send = Instant::now();
                send(live.snapshot());
            }
        }
        engine.join().unwrap_or_else(|_| {
            (
                Default::default(),
                Some(dbdyno_engine::EngineError::Internal(
                    "the engine thread panicked".into(),
                )),
            )
        })
    });
    let monitoring = monitor.map(|m| {
        let (report, updates) = m.finish();
        on_updates(&mut live, &devices, updates);
        report
    });
    live.finish(&outcome, error.as_ref());
    if let Some(r) = recorder {
        let report = finish_recording(r, &outcome, error.as_ref(), monitoring.as_ref());
        if !report.errors.is_empty() {
            live.note_history(format!("history: {}", report.errors.join("; ")));
        }
    }
    send(live.snapshot());
}

/// What the samplers said, into the live charts and the log.
fn on_updates(live: &mut LiveRun, devices: &[String], updates: Vec<Update>) {
    for u in updates {
        match u {
            Update::Os {
                end_unix_ms,
                sample,
            } => live.server_sample(
                end_unix_ms,
                sample.cpu.map(|c| c.util),
                data_disk_util(&sample, devices),
            ),
            Update::Mysql(s) => {
                live.mysql_sample(s.local_unix_ms, s.questions_per_s, s.transactions_per_s)
            }
            Update::Gap(g) => match g.source {
                Source::Os => live.server_gap(g.from_ms, g.to_ms),
                Source::Mysql => live.mysql_gap(g.from_ms, g.to_ms),
            },
            Update::Note { warning, text } => live.monitor_note(
                if warning {
                    LogLevel::Warning
                } else {
                    LogLevel::Info
                },
                text,
            ),
        }
    }
}

/// This process's CPU, as a share of all client cores, between two calls.
struct ClientCpu {
    sys: System,
    pid: Pid,
    last: Option<(Instant, u64)>,
    cores: f64,
}

impl ClientCpu {
    fn new() -> ClientCpu {
        ClientCpu {
            sys: System::new(),
            pid: sysinfo::get_current_pid().unwrap_or(Pid::from(0)),
            last: None,
            cores: dbdyno_engine::exec::client_cores() as f64,
        }
    }

    fn percent_of_machine(&mut self) -> Option<f64> {
        self.sys.refresh_processes_specifics(
            ProcessesToUpdate::Some(&[self.pid]),
            false,
            ProcessRefreshKind::nothing().with_cpu(),
        );
        let cpu_ms = self.sys.process(self.pid)?.accumulated_cpu_time();
        let now = Instant::now();
        let out = self.last.map(|(at, ms)| {
            let wall = now.duration_since(at).as_secs_f64() * 1000.0;
            ((cpu_ms.saturating_sub(ms)) as f64 / (wall * self.cores) * 100.0).clamp(0.0, 100.0)
        });
        self.last = Some((now, cpu_ms));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_checks::HostAccess;
    use dbdyno_engine::{LadderSpec, RunSettings, Scenario, WorkloadOptions};
    use dbdyno_history::{BlockingHistory, NewRun, RunState};
    use std::sync::Mutex;

    /// A one-step point_select ladder of `time_s` seconds on a 1000-row table, driven as
    /// the app drives it, monitored with `access` and recorded in `data`.
    fn run_recorded(
        schema: &dbdyno_tests::TestSchema,
        data: &std::path::Path,
        access: HostAccess,
        time_s: u64,
    ) -> (i64, Vec<crate::run::snapshot::RunSnapshot>) {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            threads: vec![1],
            settings: RunSettings {
                time_s,
                report_interval_s: 1,
                ..Default::default()
            },
            prepare: true,
            cleanup: true,
            ..Default::default()
        };
        let plan = Plan {
            connect: schema.connect_options(),
            workload: WorkloadOptions {
                tables: 1,
                table_size: 1000,
                ..Default::default()
            },
            phases: spec.phases(),
            force: false,
        };
        let new = NewRun::new("app-it", "ladder (app)")
            .with_plan(&plan)
            .unwrap();
        let recorder = HistoryWriter::start(data, new).unwrap();
        let run_id = recorder.run_id();
        let monitor = RunMonitor::start(&plan, access, &[])
            .expect("monitoring starts")
            .expect("the plan has a step");
        let snapshots = Mutex::new(Vec::new());
        drive(
            RunJob {
                plan,
                env: "app-it".into(),
                recorder: Some(recorder),
                history_error: None,
                monitor: Some(monitor),
                cancel: CancelToken::new(),
            },
            |s| snapshots.lock().unwrap().push(s),
        );
        (run_id, snapshots.into_inner().unwrap())
    }

    /// The app's whole run path against the sandbox MariaDB (on this machine, so the OS
    /// side comes from /proc): the samplers the CLI starts, their samples in the live
    /// snapshots and in the history. Needs the sandbox MariaDB (`scripts/test.sh` starts
    /// it and sets its variables).
    #[test]
    fn a_run_is_monitored_and_recorded_as_the_cli_does() {
        // Without the sandbox's variables this fails, saying how to start it
        // (`dbdyno_tests::Sandbox::from_env`): a skipped test would pass for nothing.
        let _g = dbdyno_tests::shared_server();
        let schema = dbdyno_tests::TestSchema::new("app_run");
        let data = tempfile::tempdir().unwrap();
        let (run_id, snapshots) = run_recorded(&schema, data.path(), HostAccess::Local, 3);
        let last = snapshots.last().unwrap();
        assert_eq!(
            last.status,
            crate::run::snapshot::RunStatus::Complete,
            "{:?}",
            last.failure
        );
        let server: Vec<_> = snapshots.iter().flat_map(|s| &s.server).collect();
        let mysql: Vec<_> = snapshots.iter().flat_map(|s| &s.mysql).collect();
        assert!(server.len() >= 2, "server points: {server:?}");
        assert!(
            server.iter().all(|p| p.cpu_pct.is_some()),
            "every server point has a CPU value: {server:?}"
        );
        assert!(
            server.windows(2).all(|w| w[0].t_s < w[1].t_s),
            "in time order: {server:?}"
        );
        assert!(
            mysql
                .iter()
                .filter(|p| p.qps.is_some_and(|q| q > 100.0))
                .count()
                >= 2,
            "the server counted the load: {mysql:?}"
        );

        let run = BlockingHistory::open(data.path())
            .unwrap()
            .load_run(run_id)
            .unwrap();
        assert_eq!(run.state, RunState::Complete);
        let in_step = |rows: &[dbdyno_history::StoredSample]| {
            rows.iter().filter(|r| r.step_index == Some(0)).count()
        };
        assert!(in_step(&run.mysql_samples) >= 2, "{:?}", run.mysql_samples);
        assert!(
            in_step(&run.server_samples) >= 2,
            "{:?}",
            run.server_samples
        );
        // The History screen reads the same series back from the stored samples.
        let shown = crate::commands::history::detail(&run);
        assert!(
            shown.server.iter().filter(|p| p.cpu_pct.is_some()).count() >= 2,
            "history server points: {:?}",
            shown.server
        );
        assert!(
            shown
                .mysql
                .iter()
                .filter(|p| p.qps.is_some_and(|q| q > 100.0))
                .count()
                >= 2,
            "history MySQL points: {:?}",
            shown.mysql
        );
        let m = run.monitoring.expect("the monitoring record is stored");
        assert_eq!(m["os_access"], "this machine (/proc)");
        let step = &m["steps"][0];
        assert!(step["mysql"]["samples"].as_u64().unwrap() >= 2, "{step}");
        assert!(
            step["mysql"]["questions_per_s_avg"].as_f64().unwrap() > 100.0,
            "{step}"
        );
        assert!(step["os"]["cpu_util_avg"].as_f64().is_some(), "{step}");
    }

    /// Without OS access the run says which metrics it lacks, and the app files that
    /// among the run's warnings, as the CLI does.
    #[test]
    fn what_monitoring_misses_is_among_the_runs_warnings() {
        let _g = dbdyno_tests::shared_server();
        let schema = dbdyno_tests::TestSchema::new("app_missing");
        let data = tempfile::tempdir().unwrap();
        let access = HostAccess::None {
            why: "no SSH for this test".into(),
        };
        let (run_id, _) = run_recorded(&schema, data.path(), access, 1);
        let run = BlockingHistory::open(data.path())
            .unwrap()
            .load_run(run_id)
            .unwrap();
        let m = run.monitoring.expect("the monitoring record is stored");
        let missing = m["missing"].as_array().unwrap();
        assert!(!missing.is_empty(), "{m}");
        for x in missing {
            let line = format!(
                "not measured: {} ({})",
                x["what"].as_str().unwrap(),
                x["why"].as_str().unwrap()
            );
            assert!(
                run.warnings.iter().any(|w| w.text == line),
                "{line} not among {:?}",
                run.warnings
            );
        }
    }
}
