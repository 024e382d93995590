//! The run path of the app: the shared run (`dbdyno_session::run`, the one the CLI
//! drives too) runs the engine on its own thread; this thread folds its events into
//! the Run screen's view (`dbdyno_session::live`) and sends a snapshot to the window at
//! most four times a second through a `tauri::ipc::Channel`. Long work never touches
//! the UI thread.

use std::time::{Duration, Instant};

use dbdyno_engine::CancelToken;
use dbdyno_session::live::{LiveRun, RunSnapshot};
use dbdyno_session::{Run, RunEvent};

/// At most this many snapshots a second reach the window.
pub const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

/// Drives `run` (of environment `env`) to its end, calling `send` with each snapshot
/// (the last one final).
pub fn drive(run: Run, env: &str, cancel: &CancelToken, send: impl Fn(RunSnapshot)) {
    let mut live = LiveRun::for_run(&run, env, dbdyno_history::time::now_ms());
    let mut last_send = Instant::now() - SNAPSHOT_EVERY;
    let end = run.drive(cancel, |e| {
        live.on(&e);
        if matches!(e, RunEvent::Tick) && last_send.elapsed() >= SNAPSHOT_EVERY {
            last_send = Instant::now();
            send(live.snapshot());
        }
    });
    live.ended(&end);
    send(live.snapshot());
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_history::{BlockingHistory, RunState};
    use dbdyno_monitor::HostAccess;
    use dbdyno_session::live::RunStatus;
    use dbdyno_session::{HistoryTarget, RunRequest};
    use std::sync::Mutex;

    /// A one-step point_select ladder of `time_s` seconds on a 1000-row table, driven as
    /// the app drives it, monitored with `access` and recorded in `data`.
    fn run_recorded(
        schema: &dbdyno_tests::TestSchema,
        data: &std::path::Path,
        access: HostAccess,
        time_s: u64,
    ) -> (i64, Vec<RunSnapshot>) {
        let plan = schema.point_select_ladder(vec![1], time_s);
        let history = HistoryTarget {
            data_dir: Some(data.to_path_buf()),
            environment: "app-it".into(),
            command_line: "ladder (app)".into(),
            labels: Vec::new(),
            profile: None,
            forget_unreached: false,
        };
        let run = Run::start(RunRequest {
            access,
            monitor: true,
            history: Some(history),
            ..RunRequest::new(plan)
        })
        .expect("monitoring starts");
        assert!(run.monitor().is_some(), "the plan has a step");
        let run_id = run.run_id().expect("recorded");
        let snapshots = Mutex::new(Vec::new());
        drive(run, "app-it", &CancelToken::new(), |s| {
            snapshots.lock().unwrap().push(s)
        });
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
        assert_eq!(last.status, RunStatus::Complete, "{:?}", last.failure);
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
        fn in_step<T>(rows: &[dbdyno_results::Sampled<T>]) -> usize {
            rows.iter().filter(|r| r.step_index == Some(0)).count()
        }
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
        assert_eq!(m.os_access, "this machine (/proc)");
        let step = &m.steps[0];
        let mysql = step.mysql.as_ref().expect("MySQL figures");
        assert!(mysql.samples >= 2, "{step:?}");
        assert!(mysql.questions_per_s_avg > 100.0, "{step:?}");
        assert!(
            step.os.as_ref().and_then(|o| o.cpu_util_avg).is_some(),
            "{step:?}"
        );
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
        let missing = &m.missing;
        assert!(!missing.is_empty(), "{m:?}");
        for x in missing {
            let line = format!("not measured: {} ({})", x.what, x.why);
            assert!(
                run.warnings.iter().any(|w| w.text == line),
                "{line} not among {:?}",
                run.warnings
            );
        }
    }
}
