//! The history against real SQLite files in temp directories.

use dbdyno_engine::sysbench_text::parse_sysbench_output;
use dbdyno_engine::{EngineEvent, Scenario, StepResult};
use serde_json::json;

use crate::{BlockingHistory, History, HistoryWriter, NewRun, RunState, SampleRow};

fn step(fixture: &str, scenario: Scenario) -> StepResult {
    let text = match fixture {
        "histogram" => {
            include_str!("../../../tests/fixtures/sysbench/oltp_point_select_histogram.txt")
        }
        _ => include_str!("../../../tests/fixtures/sysbench/oltp_read_write_intervals.txt"),
    };
    parse_sysbench_output(text).unwrap()[0].to_step_result(scenario)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

#[test]
fn a_step_comes_back_exactly_as_stored() {
    let dir = tempfile::tempdir().unwrap();
    let rt = rt();
    rt.block_on(async {
        let h = History::open(dir.path()).await.unwrap();
        let id = h.create_run(&NewRun::new("env-a", "ladder")).await.unwrap();
        let (a, b) = (
            step("intervals", Scenario::OltpReadWrite),
            step("histogram", Scenario::OltpPointSelect),
        );
        assert!(!a.intervals.is_empty() && !b.histogram.is_empty());
        h.record_step(id, 0, &a).await.unwrap();
        h.record_step(id, 1, &b).await.unwrap();
        h.finish_run(id, RunState::Complete, None).await.unwrap();
        let run = h.load_run(id).await.unwrap();
        assert_eq!(run.state, RunState::Complete);
        assert_eq!(run.steps.len(), 2);
        assert_eq!(run.steps[0].result, a, "intervals and every figure");
        assert_eq!(run.steps[1].result, b, "histogram included");
        // Storing a step index again replaces it (no duplicate rows).
        h.record_step(id, 1, &a).await.unwrap();
        assert_eq!(h.load_run(id).await.unwrap().steps[1].result, a);
        assert!(
            h.record_step(id + 100, 0, &a).await.is_err(),
            "no step without its run"
        );
    });
}

#[test]
fn writer_records_events_step_by_step() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dbdyno_engine::Plan {
        connect: Default::default(),
        workload: Default::default(),
        phases: dbdyno_engine::LadderSpec::default().phases(),
        force: false,
    };
    let new = NewRun::new("env-w", "ladder").with_plan(&plan).unwrap();
    let w = HistoryWriter::start(dir.path(), new).unwrap();
    let id = w.run_id();
    let s = step("intervals", Scenario::OltpReadWrite);
    w.record(&EngineEvent::StepStarted {
        step: 0,
        scenario: s.scenario,
        threads: 2,
        warmup_s: 0,
        planned_s: 5,
    });
    w.record(&EngineEvent::Warning {
        text: "errors ignored".into(),
    });
    w.record(&EngineEvent::Interval {
        step: 0,
        record: s.intervals[0].clone(),
    });
    w.record(&EngineEvent::StepFinished {
        step: 0,
        result: Box::new(s.clone()),
    });
    w.record(&EngineEvent::StepFinished {
        step: 1,
        result: Box::new(s.clone()),
    });
    w.add_server_samples(vec![SampleRow {
        step_index: Some(0),
        unix_ms: 5,
        sample: json!({"cpu": {"busy": 12.5}}),
    }]);
    w.add_mysql_samples(vec![SampleRow {
        step_index: None,
        unix_ms: 6,
        sample: json!({"Questions": 10}),
    }]);
    w.set_environment(json!({"server": {"version": "10.11"}}));
    w.set_monitoring(json!({"steps": [{"step": 0, "os": {"cpu_util_avg": 42.0}}]}));
    let report = w.finish(RunState::Complete, None);
    assert_eq!(
        (report.run_id, report.steps_written, report.errors.len()),
        (id, 2, 0)
    );

    let h = BlockingHistory::open(dir.path()).unwrap();
    let run = h.load_run(id).unwrap();
    assert_eq!(run.state, RunState::Complete);
    assert!(run.ended_at_ms.is_some());
    assert_eq!(run.steps.len(), 2);
    assert_eq!(run.warnings.len(), 1);
    assert_eq!(
        run.warnings[0].step_index,
        Some(0),
        "a warning knows its step"
    );
    assert_eq!(run.server_samples[0].sample["cpu"]["busy"], 12.5);
    assert_eq!(run.mysql_samples[0].step_index, None);
    assert_eq!(
        run.environment.as_ref().unwrap()["server"]["version"],
        "10.11"
    );
    assert_eq!(
        run.monitoring.as_ref().unwrap()["steps"][0]["os"]["cpu_util_avg"],
        42.0,
        "the monitoring record is stored"
    );
    assert_eq!(run.plan(), Some(plan), "the typed plan reads back");
}

#[test]
fn a_writer_dropped_without_finish_leaves_an_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let w = HistoryWriter::start(dir.path(), NewRun::new("e", "ladder")).unwrap();
    let id = w.run_id();
    w.record(&EngineEvent::StepFinished {
        step: 0,
        result: Box::new(step("intervals", Scenario::OltpReadWrite)),
    });
    drop(w);
    let run = BlockingHistory::open(dir.path())
        .unwrap()
        .load_run(id)
        .unwrap();
    assert_eq!((run.state, run.steps.len()), (RunState::Interrupted, 1));
}

#[test]
fn a_run_whose_writer_died_is_interrupted_on_the_next_open_and_a_live_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let rt = rt();
    rt.block_on(async {
        let h = History::open(dir.path()).await.unwrap();
        let live = h.create_run(&NewRun::new("e", "live")).await.unwrap();
        let dead = h.create_run(&NewRun::new("e", "dead")).await.unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        sqlx::query("UPDATE runs SET writer_pid = ? WHERE id = ?")
            .bind(pid)
            .bind(dead)
            .execute(&h.pool)
            .await
            .unwrap();
        h.close().await;

        let h = History::open(dir.path()).await.unwrap();
        let d = h.load_run(dead).await.unwrap();
        assert_eq!(d.state, RunState::Interrupted);
        assert!(d.failure.unwrap().contains("finished steps are kept"));
        assert_eq!(
            h.load_run(live).await.unwrap().state,
            RunState::Running,
            "this process still writes it"
        );
        assert!(h.mark_interrupted().await.unwrap().is_empty(), "only once");
    });
}

#[test]
fn list_filters_and_orders_and_delete_removes_everything() {
    let dir = tempfile::tempdir().unwrap();
    let h = BlockingHistory::open(dir.path()).unwrap();
    let s = step("intervals", Scenario::OltpReadWrite);
    let mut ids = Vec::new();
    for (env, at) in [("a", 1000), ("b", 3000), ("a", 2000)] {
        let mut new = NewRun::new(env, "import");
        new.started_at_ms = Some(at);
        ids.push(
            h.insert_finished_run(
                &new,
                &[s.clone(), s.clone()],
                RunState::Complete,
                Some(at + 10),
            )
            .unwrap(),
        );
    }
    let all: Vec<i64> = h.list_runs(None).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(all, [ids[1], ids[2], ids[0]], "newest first");
    let a = h.list_runs(Some("a")).unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(a[0].steps, 2);
    assert_eq!(a[0].scenarios, ["oltp_read_write"]);
    assert_eq!(a[0].max_tps, Some(s.tps()));
    assert_eq!(a[0].started_at, "1970-01-01T00:00:02Z");

    h.delete_run(ids[0]).unwrap();
    assert!(matches!(
        h.load_run(ids[0]),
        Err(crate::HistoryError::NoSuchRun(_))
    ));
    assert!(matches!(
        h.delete_run(ids[0]),
        Err(crate::HistoryError::NoSuchRun(_))
    ));
    let rt = rt();
    let left: i64 = rt
        .block_on(
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM intervals")
                .fetch_one(&h.history().pool),
        )
        .unwrap();
    assert_eq!(
        left as usize,
        2 * 2 * s.intervals.len(),
        "the deleted run's intervals went with it"
    );
}

#[test]
fn the_database_is_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let h = BlockingHistory::open(dir.path()).unwrap();
    let rt = rt();
    let mode: String = rt
        .block_on(sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&h.history().pool))
        .unwrap();
    assert_eq!(mode, "wal");
}
