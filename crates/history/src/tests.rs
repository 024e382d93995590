//! The history against real SQLite files in temp directories.

use dbdyno_engine::{EngineEvent, Scenario, StepResult};
use dbdyno_sysbench_text::parse_sysbench_output;
use serde_json::json;

use crate::{BlockingHistory, History, HistoryWriter, NewRun, RunState};

fn step(fixture: &str, scenario: Scenario) -> StepResult {
    let text = match fixture {
        "histogram" => {
            include_str!("../../../tests/fixtures/sysbench/oltp_point_select_histogram.txt")
        }
        _ => include_str!("../../../tests/fixtures/sysbench/oltp_read_write_intervals.txt"),
    };
    parse_sysbench_output(text).unwrap()[0].to_step_result(scenario)
}

/// A measured step with intervals, for tests elsewhere in the crate.
pub(crate) fn step_for_tests() -> StepResult {
    step("intervals", Scenario::OltpReadWrite)
}

/// A step run from two clients is stored with one `step_clients` row per client,
/// queryable in SQL, and comes back with its clients; `runs show` prints them.
#[test]
fn a_step_from_several_clients_keeps_a_row_per_client() {
    let dir = tempfile::tempdir().unwrap();
    rt().block_on(async {
        let h = History::open(dir.path()).await.unwrap();
        let id = h.create_run(&NewRun::new("env-a", "ladder")).await.unwrap();
        let shared = crate::clients::tests::with_two_clients(step_for_tests());
        h.record_step(id, 0, &step_for_tests()).await.unwrap();
        h.record_step(id, 1, &shared).await.unwrap();
        let run = h.load_run(id).await.unwrap();
        assert!(run.steps[0].result.clients.is_empty());
        assert_eq!(run.steps[1].result, shared, "clients come back whole");
        let rows = h.client_rows(id).await.unwrap();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows.iter().all(|r| r.step_index == 1));
        let lost = rows
            .iter()
            .find(|r| r.client == "ssh://bench@c2:22")
            .unwrap();
        assert_eq!(
            (
                lost.threads,
                lost.tps,
                lost.client_cpu_pct,
                lost.client_bound
            ),
            (3, 400.0, 92.0, true)
        );
        assert_eq!(lost.lost_after_s, Some(12.5));
        assert_eq!(
            lost.lost_reason.as_deref(),
            Some("the SSH connection closed")
        );
        let local = rows.iter().find(|r| r.client == "local").unwrap();
        assert_eq!(
            (local.transactions, local.errors, local.lost_after_s),
            (6000, 1, None)
        );
        // Storing the step again replaces its rows; deleting the run removes them.
        h.record_step(id, 1, &shared).await.unwrap();
        assert_eq!(h.client_rows(id).await.unwrap().len(), 2);
        let text = crate::show::run_text(&run);
        assert!(text.contains("Load clients (2, merged above):"), "{text}");
        assert!(text.contains("Partial step: ssh://bench@c2:22"), "{text}");
        assert!(
            text.contains("@ 2 threads (partial: a load client was lost) ==="),
            "{text}"
        );
        h.delete_run(id).await.unwrap();
        assert!(h.client_rows(id).await.unwrap().is_empty());
    });
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
        let (mut a, b) = (
            step("intervals", Scenario::OltpReadWrite),
            step("histogram", Scenario::OltpPointSelect),
        );
        assert!(!a.intervals.is_empty() && !b.histogram.is_empty());
        // A measured record carries p95 and p99 (the log's lines print p95 only).
        a.intervals[0].p99_ms = Some(12.5);
        assert!(a.intervals[0].p95_ms.is_some());
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

/// A repeated step keeps which repeat it was; one stored before repeats existed reads
/// as repeat 1 of 1. No column: `result_json` carries it.
#[test]
fn a_repeated_step_comes_back_with_its_repeat() {
    let dir = tempfile::tempdir().unwrap();
    rt().block_on(async {
        let h = History::open(dir.path()).await.unwrap();
        let id = h.create_run(&NewRun::new("env-a", "ladder")).await.unwrap();
        let mut s = step("intervals", Scenario::OltpReadWrite);
        s.repeat = dbdyno_engine::Repeat { number: 2, of: 3 };
        h.record_step(id, 0, &s).await.unwrap();
        h.record_step(id, 1, &step("histogram", Scenario::OltpPointSelect))
            .await
            .unwrap();
        let run = h.load_run(id).await.unwrap();
        assert_eq!(run.steps[0].result.repeat, s.repeat);
        assert_eq!(run.steps[1].result.repeat, dbdyno_engine::Repeat::SINGLE);
        let text = crate::show::run_text(&run);
        assert!(
            text.contains("=== step 1: oltp_read_write @ 2 threads, repeat 2/3 ==="),
            "{text}"
        );
        assert!(!text.contains("=== step 2: oltp_point_select @ 1 thread, repeat"));
    });
}

/// An open-loop step keeps its queue per interval and its verdict on the rate.
#[test]
fn an_open_loop_step_comes_back_with_its_queue() {
    use dbdyno_engine::open_loop::{IntervalQueue, OpenLoopResult, RateDist};
    let dir = tempfile::tempdir().unwrap();
    rt().block_on(async {
        let h = History::open(dir.path()).await.unwrap();
        let id = h.create_run(&NewRun::new("env-a", "ladder")).await.unwrap();
        let mut s = step("intervals", Scenario::OltpReadWrite);
        for (i, r) in s.intervals.iter_mut().enumerate() {
            r.open_loop = Some(IntervalQueue {
                queue: i as u64 * 10,
                concurrency: 3,
                late_starts: i as u64,
                max_lag_ms: i as f64 * 1.5,
            });
        }
        s.intervals[0].open_loop = None;
        s.open_loop = Some(OpenLoopResult {
            target_rate: 500.0,
            dist: RateDist::Poisson,
            connections: 25,
            achieved_rate: 480.0,
            late_starts: 7,
            max_lag_ms: 12.5,
            max_queue: 40,
            queue_at_end: 0,
            sustained: true,
            reason: None,
        });
        h.record_step(id, 0, &s).await.unwrap();
        let run = h.load_run(id).await.unwrap();
        let text = crate::show::run_text(&run);
        assert!(
            text.contains("  open loop at 500/s (poisson) on 25 connections: achieved 480.00/s"),
            "{text}"
        );
        assert!(
            text.contains("] queue length: 10, concurrency: 3\n"),
            "{text}"
        );
        let back = run.steps[0].result.clone();
        assert_eq!(back.open_loop, s.open_loop);
        assert_eq!(
            back.intervals, s.intervals,
            "NULL columns read as a closed loop"
        );
    });
}

/// A run that went on past a failed step (`--on-step-error=continue`) ends `partial`:
/// its failure names the failed step, `runs show` lists it, the list says `partial`.
#[test]
fn a_partial_run_keeps_its_state_and_failed_steps() {
    let dir = tempfile::tempdir().unwrap();
    rt().block_on(async {
        let h = History::open(dir.path()).await.unwrap();
        let id = h.create_run(&NewRun::new("env-a", "ladder")).await.unwrap();
        h.record_step(id, 0, &step("intervals", Scenario::OltpReadWrite))
            .await
            .unwrap();
        let failure =
            "oltp_read_write @ 16 threads: 8 of 16 connections opened: Too many connections";
        h.finish_run(id, RunState::Partial, Some(failure))
            .await
            .unwrap();
        let run = h.load_run(id).await.unwrap();
        assert_eq!(run.state, RunState::Partial);
        assert_eq!(run.failure.as_deref(), Some(failure));
        assert_eq!(run.steps.len(), 1, "the measured step is kept");
        let text = crate::show::run_text(&run);
        assert!(
            text.contains(
                "  failed steps (not measured; the others ran):\n    oltp_read_write @ 16 threads: 8 of 16 connections opened"
            ),
            "{text}"
        );
        let listed = h.list_runs(None).await.unwrap();
        assert_eq!(listed[0].state.as_str(), "partial");
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
        on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
    };
    let new = NewRun::new("env-w", "ladder").with_plan(&plan);
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
    let mut m = fixture_monitoring();
    let (server, mysql) = (m.server_samples.remove(0), m.mysql_samples.remove(0));
    w.add_server_samples(vec![dbdyno_results::Sampled {
        step_index: Some(0),
        unix_ms: 5,
        ..server.clone()
    }]);
    w.add_mysql_samples(vec![dbdyno_results::Sampled {
        step_index: None,
        unix_ms: 6,
        ..mysql
    }]);
    w.set_environment(json!({"server": {"version": "10.11"}}));
    w.set_monitoring(m.clone());
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
    assert_eq!(run.server_samples[0].sample, server.sample);
    assert_eq!(run.mysql_samples[0].step_index, None);
    assert_eq!(
        run.environment.as_ref().unwrap()["server"]["version"],
        "10.11"
    );
    assert_eq!(
        run.monitoring,
        Some(m.without_samples()),
        "the monitoring record is stored, its samples in their tables"
    );
    assert_eq!(run.plan, Some(plan), "the typed plan reads back");
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
    // On the history's own runtime: see BlockingHistory::block_on.
    let left: i64 = h
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
    let mode: String = h
        .block_on(sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&h.history().pool))
        .unwrap();
    assert_eq!(mode, "wal");
}

/// A history database in `dir` as a build before migration `version` left it: every
/// earlier migration applied, none from `version` on.
async fn database_before(dir: &std::path::Path, version: i64) -> sqlx::SqlitePool {
    let opts = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.join(crate::DB_FILE_NAME))
        .create_if_missing(true)
        .foreign_keys(true);
    let pool = sqlx::SqlitePool::connect_with(opts).await.unwrap();
    let mut old = sqlx::migrate::Migrator::new(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/migrations"
    )))
    .await
    .unwrap();
    old.migrations = std::borrow::Cow::Owned(
        old.migrations
            .iter()
            .filter(|m| m.version < version)
            .cloned()
            .collect(),
    );
    old.run(&pool).await.unwrap();
    pool
}

/// The `partial` state's migration rebuilds `runs`: every run, its steps and warnings
/// survive it (migrations run without foreign keys, so nothing cascades), the old
/// schema refused `partial` and the new one takes it, and deleting a run still removes
/// its steps (the references point at the new table).
#[test]
fn the_partial_state_migration_keeps_every_run_and_its_steps() {
    let dir = tempfile::tempdir().unwrap();
    rt().block_on(async {
        let pool = database_before(dir.path(), 20261211000000).await;
        sqlx::query(
            "INSERT INTO runs (env, source, command, state, started_at_ms, tool_version) VALUES ('old', 'dbdyno', 'ladder', 'complete', 5, '0.1.0')",
        )
        .execute(&pool)
        .await
        .unwrap();
        let json = serde_json::to_string(&step("intervals", Scenario::OltpReadWrite)).unwrap();
        sqlx::query(
            "INSERT INTO steps (run_id, step_index, scenario, threads, started_unix_ms, ended_unix_ms, result_json, histogram) VALUES (1, 0, 'oltp_read_write', 2, 0, 0, ?, '')",
        )
        .bind(json)
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO warnings (run_id, step_index, at_ms, text) VALUES (1, 0, 5, 'w')")
            .execute(&pool)
            .await
            .unwrap();
        assert!(
            sqlx::query("UPDATE runs SET state = 'partial'")
                .execute(&pool)
                .await
                .is_err(),
            "the old schema has no 'partial'"
        );
        pool.close().await;

        let h = History::open(dir.path()).await.unwrap();
        let run = h.load_run(1).await.unwrap();
        assert_eq!(run.steps.len(), 1, "the step survived the rebuild");
        assert_eq!(run.warnings.len(), 1);
        sqlx::query("UPDATE runs SET state = 'partial'")
            .execute(&h.pool)
            .await
            .unwrap();
        assert_eq!(h.load_run(1).await.unwrap().state, RunState::Partial);
        sqlx::query("DELETE FROM runs WHERE id = 1")
            .execute(&h.pool)
            .await
            .unwrap();
        let steps: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM steps")
            .fetch_one(&h.pool)
            .await
            .unwrap();
        assert_eq!(steps, 0, "the steps went with their run");
    });
}

/// A history written by the previous schema (figures NOT NULL, 0 for "not printed")
/// migrates without losing a step or an interval: rebuilding `steps` must not cascade
/// into `intervals`.
#[test]
fn version_2_database_migrates_keeping_every_step_and_interval() {
    let dir = tempfile::tempdir().unwrap();
    let rt = rt();
    let s = step("intervals", Scenario::OltpReadWrite);
    rt.block_on(async {
        let pool = database_before(dir.path(), 20261201000000).await;
        sqlx::query("INSERT INTO runs (env, source, command, state, started_at_ms, tool_version) VALUES ('old', 'import', 'import sysbench', 'complete', 5, '0.1.0')")
            .execute(&pool).await.unwrap();
        let mut stored = s.clone();
        stored.intervals.clear();
        sqlx::query("INSERT INTO steps VALUES (1, 0, 'oltp_read_write', 2, 0, 0, 1.5, 30.0, 9.0, 9.0, 0.0, ?, '')")
            .bind(serde_json::to_string(&stored).unwrap())
            .execute(&pool).await.unwrap();
        for (seq, i) in s.intervals.iter().enumerate() {
            sqlx::query("INSERT INTO intervals VALUES (1, 0, ?, ?, ?, 0, 2, ?, ?, 0, 0, 0, ?, 95, 0, 0)")
                .bind(seq as i64).bind(i.elapsed_s).bind(i.duration_s).bind(i.tps).bind(i.qps).bind(i.latency_ms)
                .execute(&pool).await.unwrap();
        }
        pool.close().await;

        let h = History::open(dir.path()).await.unwrap();
        let run = h.load_run(1).await.unwrap();
        assert_eq!(run.steps.len(), 1);
        assert_eq!(run.steps[0].result.intervals.len(), s.intervals.len());
        assert_eq!(h.list_runs(None).await.unwrap()[0].max_tps, Some(1.5));
        // The rebuilt table takes NULL figures and still cascades deletes.
        let mut cut = s.clone();
        cut.printed = None;
        cut.total_time_s = 0.0;
        let id = h.create_run(&NewRun::new("new", "import")).await.unwrap();
        h.record_step(id, 0, &cut).await.unwrap();
        let row: (Option<f64>, Option<f64>) =
            sqlx::query_as("SELECT tps, p99_ms FROM steps WHERE run_id = ?")
                .bind(id)
                .fetch_one(&h.pool)
                .await
                .unwrap();
        assert_eq!(row, (None, None), "unknown figures are NULL");
        h.delete_run(1).await.unwrap();
        let left: (i64,) = sqlx::query_as("SELECT count(*) FROM intervals WHERE run_id = 1")
            .fetch_one(&h.pool)
            .await
            .unwrap();
        assert_eq!(left.0, 0);
    });
}

#[test]
fn imported_files_are_found_by_content_and_forgotten_with_their_run() {
    let dir = tempfile::tempdir().unwrap();
    let h = BlockingHistory::open(dir.path()).unwrap();
    let mut new = NewRun::new("a", "import sysbench x.log");
    new.import_file = Some(crate::ImportedFile {
        sha256: "ab".repeat(32),
        name: "x.log".into(),
    });
    let s = step("intervals", Scenario::OltpReadWrite);
    let id = h
        .insert_finished_run(&new, &[s], RunState::Complete, None)
        .unwrap();
    assert_eq!(
        h.find_imports(&"ab".repeat(32)).unwrap(),
        [(id, "x.log".to_string())]
    );
    assert!(h.find_imports(&"cd".repeat(32)).unwrap().is_empty());
    h.delete_run(id).unwrap();
    assert!(h.find_imports(&"ab".repeat(32)).unwrap().is_empty());
}

/// A history written before steps carried their confidence: opening it gives each step
/// with per-second records its intervals (columns and result JSON), leaves a step
/// without records without, and a second open changes nothing.
#[test]
fn steps_stored_before_confidence_get_it_from_their_intervals_once() {
    use dbdyno_engine::stats::StepConfidence;
    let dir = tempfile::tempdir().unwrap();
    let rt = rt();
    // 30 seconds around 600 TPS: enough for batch means.
    let mut s = step("intervals", Scenario::OltpReadWrite);
    let template = s.intervals[0].clone();
    s.intervals = (0..30)
        .map(|i| {
            let wobble = [0.0, 0.03, -0.02, 0.01, -0.03][i % 5];
            dbdyno_engine::IntervalRecord {
                elapsed_s: (i + 1) as f64,
                tps: 600.0 * (1.0 + wobble),
                qps: 12_000.0 * (1.0 + wobble),
                latency_ms: 7.0 * (1.0 - wobble),
                percentile: 95.0,
                p95_ms: None,
                p99_ms: None,
                ..template.clone()
            }
        })
        .collect();
    let bare = step("histogram", Scenario::OltpPointSelect);
    assert!(bare.intervals.is_empty());
    rt.block_on(async {
        let pool = database_before(dir.path(), 20261202000000).await;
        sqlx::query("INSERT INTO runs (env, source, command, state, started_at_ms, tool_version) VALUES ('old', 'dbdyno', 'ladder', 'complete', 5, '0.1.0')")
            .execute(&pool).await.unwrap();
        for (index, r) in [(0, &s), (1, &bare)] {
            // The result JSON as the previous build wrote it: no `confidence`.
            let mut stored = serde_json::to_value(r).unwrap();
            stored.as_object_mut().unwrap().remove("confidence");
            stored["intervals"] = json!([]);
            sqlx::query("INSERT INTO steps VALUES (1, ?, ?, 2, 0, 0, ?, ?, ?, ?, ?, ?, '')")
                .bind(index)
                .bind(r.scenario.name())
                .bind(r.tps())
                .bind(r.qps())
                .bind(r.latency_pct_ms)
                .bind(r.latency.p95_ms)
                .bind(r.latency.p99_ms)
                .bind(stored.to_string())
                .execute(&pool)
                .await
                .unwrap();
        }
        for (seq, i) in s.intervals.iter().enumerate() {
            sqlx::query("INSERT INTO intervals VALUES (1, 0, ?, ?, ?, 0, 2, ?, ?, 0, 0, 0, ?, 95, 0, 0)")
                .bind(seq as i64).bind(i.elapsed_s).bind(i.duration_s).bind(i.tps).bind(i.qps).bind(i.latency_ms)
                .execute(&pool).await.unwrap();
        }
        // A run whose step cannot be read: the history still opens.
        sqlx::query("INSERT INTO runs (env, source, command, state, started_at_ms, tool_version) VALUES ('bad', 'dbdyno', 'ladder', 'complete', 6, '0.1.0')")
            .execute(&pool).await.unwrap();
        sqlx::query("INSERT INTO steps VALUES (2, 0, 'oltp_read_write', 2, 0, 0, 1, 1, 1, 1, 1, 'not json', '')")
            .execute(&pool).await.unwrap();
        sqlx::query("INSERT INTO intervals VALUES (2, 0, 0, 1, 1, 0, 2, 1, 1, 0, 0, 0, 1, 95, 0, 0)")
            .execute(&pool).await.unwrap();
        pool.close().await;

        let h = History::open(dir.path()).await.unwrap();
        let bad: (Option<i64>,) = sqlx::query_as("SELECT settled FROM steps WHERE run_id = 2")
            .fetch_one(&h.pool)
            .await
            .unwrap();
        assert_eq!(bad.0, None, "left as it is");
        let run = h.load_run(1).await.unwrap();
        let got = run.steps[0].result.confidence.clone().expect("backfilled");
        let mut without = run.steps[0].result.clone();
        without.confidence = None;
        assert_eq!(got, StepConfidence::of_step(&without), "made from the stored records");
        let (lo, hi) = got.spreads.tps.bounds().expect("30 seconds give an interval");
        assert!(lo < s.tps() && s.tps() < hi, "{lo} {hi}");
        type Columns = (
            Option<f64>,
            Option<f64>,
            Option<f64>,
            Option<f64>,
            Option<f64>,
            Option<i64>,
        );
        let row: Columns =
            sqlx::query_as(
                "SELECT tps_lo, tps_hi, p95_lo, p99_lo, cv_pct, settled FROM steps WHERE run_id = 1 AND step_index = 0",
            )
            .fetch_one(&h.pool)
            .await
            .unwrap();
        assert_eq!((row.0, row.1), (Some(lo), Some(hi)));
        assert_eq!(row.2, got.spreads.p95.bounds().map(|b| b.0));
        assert!(row.2.is_some(), "the records carry p95");
        assert_eq!(row.3, None, "and not p99");
        let stored = &run.steps[0].result.intervals[0];
        assert_eq!(
            (stored.p95_ms, stored.p99_ms),
            (None, None),
            "rows stored before p95_ms/p99_ms existed stay without"
        );
        assert_eq!(row.4, got.cv_pct);
        assert_eq!(row.5, Some(1));
        // The step without per-second records gets nothing made up.
        assert_eq!(run.steps[1].result.confidence, None);
        let bare_row: (Option<f64>, Option<i64>) =
            sqlx::query_as("SELECT tps_lo, settled FROM steps WHERE run_id = 1 AND step_index = 1")
                .fetch_one(&h.pool)
                .await
                .unwrap();
        assert_eq!(bare_row, (None, None));
        // Once only: nothing is left to do, and the stored JSON stays as it is.
        let json_of = |pool: sqlx::SqlitePool| async move {
            let j: (String,) = sqlx::query_as("SELECT result_json FROM steps WHERE run_id = 1 AND step_index = 0")
                .fetch_one(&pool)
                .await
                .unwrap();
            j.0
        };
        let first = json_of(h.pool.clone()).await;
        assert_eq!(
            crate::confidence::backfill(&h.pool).await.unwrap(),
            0,
            "only the unreadable step is left, and it stays so"
        );
        h.close().await;
        let h = History::open(dir.path()).await.unwrap();
        assert_eq!(json_of(h.pool.clone()).await, first);
        // A step recorded now carries its columns at once.
        let id = h.create_run(&NewRun::new("new", "ladder")).await.unwrap();
        h.record_step(id, 0, &s.clone().with_confidence()).await.unwrap();
        let settled: (Option<i64>, Option<f64>) =
            sqlx::query_as("SELECT settled, tps_lo FROM steps WHERE run_id = ?")
                .bind(id)
                .fetch_one(&h.pool)
                .await
                .unwrap();
        assert_eq!(settled, (Some(1), Some(lo)));
    });
}

/// The monitoring record of a real monitored ladder (tests/fixtures/results).
pub(crate) fn fixture_monitoring() -> dbdyno_results::Monitoring {
    let doc: dbdyno_results::ResultsDocument = serde_json::from_str(include_str!(
        "../../../tests/fixtures/results/v1_ladder.json"
    ))
    .unwrap();
    doc.monitoring.expect("the fixture is monitored")
}

#[test]
fn an_older_recording_keeps_monitoring_in_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let w = HistoryWriter::start(dir.path(), NewRun::new("e", "ladder")).unwrap();
    let id = w.run_id();
    let m = fixture_monitoring().without_samples();
    w.set_environment(json!({"client": {"cores": 2}, "monitoring": m}));
    w.finish(RunState::Complete, None);
    let run = BlockingHistory::open(dir.path())
        .unwrap()
        .load_run(id)
        .unwrap();
    assert_eq!(run.monitoring, Some(m));
    assert_eq!(run.environment, Some(json!({"client": {"cores": 2}})));
}

#[test]
fn a_plan_or_sample_this_version_cannot_read_leaves_the_run_readable_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let w = HistoryWriter::start(dir.path(), NewRun::new("e", "ladder")).unwrap();
    let id = w.run_id();
    w.finish(RunState::Complete, None);
    let h = BlockingHistory::open(dir.path()).unwrap();
    h.exec_for_test(
        "UPDATE runs SET plan_json = ? WHERE id = ?",
        r#"{"phases": "not a list"}"#,
        id,
    );
    let sample = serde_json::to_string(&fixture_monitoring().server_samples[0].sample).unwrap();
    for text in [sample.as_str(), r#"{"cpu": "busy"}"#] {
        h.exec_for_test(
            "INSERT INTO server_samples (sample_json, run_id, step_index, unix_ms) VALUES (?, ?, 0, 1)",
            text,
            id,
        );
    }
    let run = h.load_run(id).unwrap();
    assert_eq!(run.plan, None);
    assert_eq!(
        run.server_samples.len(),
        1,
        "the sample it can read is kept"
    );
    let said = |start: &str| run.warnings.iter().any(|w| w.text.starts_with(start));
    assert!(said("the run's plan is left out"), "{:?}", run.warnings);
    assert!(
        said("1 of the run's 2 server samples are left out"),
        "{:?}",
        run.warnings
    );
}
