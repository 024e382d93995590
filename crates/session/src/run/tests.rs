//! The run against the sandbox MariaDB (`scripts/test.sh` starts it and exports its
//! variables; without them these fail, saying how to start it): cancel and an engine
//! that panics each end the run one way, recorded as such.

use super::*;

use dbdyno_history::{BlockingHistory, RunState};

/// Point-select steps of `time_s` seconds at these thread counts, on a 1000-row table
/// prepared first.
fn plan(schema: &dbdyno_tests::TestSchema, threads: Vec<u32>, time_s: u64) -> Plan {
    schema.point_select_ladder(threads, time_s)
}

fn recorded_in(data: &std::path::Path) -> HistoryTarget {
    HistoryTarget {
        data_dir: Some(data.to_path_buf()),
        environment: "session-it".into(),
        command_line: "session test".into(),
        labels: Vec::new(),
        profile: None,
        forget_unreached: true,
    }
}

#[test]
fn a_cancel_mid_step_keeps_the_finished_steps_and_ends_cancelled() {
    let _g = dbdyno_tests::shared_server();
    let schema = dbdyno_tests::TestSchema::new("session_cancel");
    let data = tempfile::tempdir().unwrap();
    let run = Run::start(RunRequest {
        access: HostAccess::Local,
        checks: Checks::Enforce,
        monitor: true,
        history: Some(recorded_in(data.path())),
        ..RunRequest::new(plan(&schema, vec![1, 2], 2))
    })
    .expect("the checks pass and the samplers start");
    let cancel = CancelToken::new();
    let (mut cancelling, mut step_figures, mut after_stop) = (0, 0, Vec::new());
    let mut stopped = false;
    let end = run.drive(&cancel, |e| match e {
        // The second step has begun: the first one is finished and must be kept.
        RunEvent::Engine(EngineEvent::StepStarted { step: 1, .. }) => cancel.cancel(),
        RunEvent::Engine(e) if stopped => after_stop.push(format!("{e:?}")),
        RunEvent::StepServer { .. } => step_figures += 1,
        RunEvent::Cancelling => cancelling += 1,
        RunEvent::EngineStopped => stopped = true,
        _ => {}
    });
    assert!(end.error.is_none(), "{:?}", end.error);
    assert!(end.outcome.cancelled);
    assert_eq!(cancelling, 1, "said once");
    assert!(
        after_stop.is_empty(),
        "engine events after the stop: {after_stop:?}"
    );
    let steps = &end.outcome.steps;
    assert!(!steps.is_empty() && !steps[0].cancelled, "{steps:?}");
    assert!(steps.iter().skip(1).all(|s| s.cancelled), "{steps:?}");
    assert!(step_figures >= 1, "the finished step's server figures");
    let Some(Recorded::Stored { report, state }) = &end.history else {
        panic!("recorded: {:?}", end.history);
    };
    assert_eq!(*state, RunState::Cancelled);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let stored = BlockingHistory::open(data.path())
        .unwrap()
        .load_run(report.run_id)
        .unwrap();
    assert_eq!(stored.state, RunState::Cancelled);
    assert!(
        !stored.steps.is_empty(),
        "the finished step is in the history"
    );
    let m = stored.monitoring.expect("the monitoring record is stored");
    assert!(!m.steps.is_empty(), "{m:?}");
}

#[test]
fn an_engine_thread_that_panics_ends_the_run_failed_not_the_process() {
    let _g = dbdyno_tests::shared_server();
    let schema = dbdyno_tests::TestSchema::new("session_panic");
    let data = tempfile::tempdir().unwrap();
    let mut run = Run::start(RunRequest {
        history: Some(recorded_in(data.path())),
        ..RunRequest::new(plan(&schema, vec![1], 1))
    })
    .expect("nothing to refuse");
    run.engine = |_, events, _| {
        events.message("about to fail");
        panic!("a bug in the engine");
    };
    let mut said = Vec::new();
    let end = run.drive(&CancelToken::new(), |e| match e {
        RunEvent::Engine(EngineEvent::Message { text }) => said.push(text.clone()),
        RunEvent::EngineStopped => said.push("stopped".into()),
        _ => {}
    });
    assert_eq!(
        said,
        ["about to fail", "stopped"],
        "events before the panic arrive"
    );
    let error = end.error.as_ref().expect("the panic is the run's error");
    assert!(matches!(error, EngineError::Internal(_)), "{error:?}");
    let Some(Recorded::Stored { report, state }) = &end.history else {
        panic!("recorded: {:?}", end.history);
    };
    assert_eq!(*state, RunState::Failed);
    let stored = BlockingHistory::open(data.path())
        .unwrap()
        .load_run(report.run_id)
        .unwrap();
    assert_eq!(stored.state, RunState::Failed);
    assert_eq!(stored.failure.as_deref(), Some(error.to_string().as_str()));
}

#[test]
fn a_run_that_never_reached_the_server_is_forgotten_when_asked() {
    let _g = dbdyno_tests::shared_server();
    let schema = dbdyno_tests::TestSchema::new("session_unreached");
    let data = tempfile::tempdir().unwrap();
    let mut plan = plan(&schema, vec![1], 1);
    plan.connect.password = Some("not the password".into());
    let run = Run::start(RunRequest {
        history: Some(recorded_in(data.path())),
        ..RunRequest::new(plan)
    })
    .expect("nothing judged");
    let run_id = run.run_id().expect("recorded while it runs");
    let end = run.drive(&CancelToken::new(), |_| {});
    assert!(
        matches!(
            end.error,
            Some(EngineError::Mysql(
                dbdyno_engine::MysqlError::Connect { .. }
            ))
        ),
        "{:?}",
        end.error
    );
    assert!(
        matches!(end.history, Some(Recorded::Forgotten { run_id: id }) if id == run_id),
        "{:?}",
        end.history
    );
    let left = BlockingHistory::open(data.path()).unwrap().load_run(run_id);
    assert!(left.is_err(), "deleted: {left:?}");
}
