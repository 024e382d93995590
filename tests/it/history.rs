//! The run history: a ladder records every step, `runs` reads it back, a kill -9 keeps
//! finished steps, and concurrent writers lose nothing. That no secret reaches any file
//! is `secret_leaks.rs`.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use dbdyno_history::{BlockingHistory, NewRun, RunState};
use dbdyno_tests::*;
use serde_json::Value;

fn json_of(o: &std::process::Output) -> Value {
    let text = ok(o);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn runs(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["runs"];
    all.extend_from_slice(args);
    let d = data_dir_arg(dir);
    all.push(&d);
    json_of(&dbdyno_cmd().args(&all).output().unwrap())
}

#[test]
fn ladder_records_every_step_and_runs_commands_read_it_back() {
    let _g = shared_server();
    let s = TestSchema::new("history");
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("out.json");
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select,oltp_read_only",
        "--ladder=1,2",
        "--time=2",
        "--tables=1",
        "--table-size=1000",
        "--prepare",
        "--cleanup",
        "--env=it-history",
        &format!("--json={}", json.display()),
        &data_dir_arg(data.path()),
    ]));
    let id = run_id(&out);
    assert!(
        out.contains(&format!("Run id: {id}: 4 steps recorded, state complete")),
        "{out}"
    );

    let list = runs(data.path(), &["list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    let r = &list[0];
    assert_eq!(
        (
            r["id"].as_i64(),
            r["env"].as_str(),
            r["state"].as_str(),
            r["steps"].as_u64()
        ),
        (Some(id), Some("it-history"), Some("complete"), Some(4))
    );
    assert!(r["started_at"].as_str().unwrap().ends_with('Z'));
    // The text list names the subcommand; the full (redacted) command line is in --json
    // and `runs show`.
    assert!(
        r["command"]
            .as_str()
            .unwrap()
            .starts_with("dbdyno ladder --"),
        "{r}"
    );
    let text = dbdyno_cmd()
        .args(["runs", "list", &data_dir_arg(data.path())])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let line = text.lines().find(|l| l.contains("it-history")).unwrap();
    assert!(line.contains(" ladder "), "{line}");
    assert!(!line.contains("--mysql-host"), "{line}");

    // Every figure of every step is what the run's own JSON output says.
    let shown = runs(data.path(), &["show", &id.to_string(), "--json"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_fits_results_schema(&doc);
    let from_json = doc["outcome"]["steps"].as_array().unwrap();
    let stored: Vec<&Value> = shown["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["result"])
        .collect();
    assert_eq!(stored.len(), 4);
    for (a, b) in stored.iter().zip(from_json) {
        assert_eq!(
            *a, b,
            "stored step equals the --json step, intervals and histogram included"
        );
        assert_eq!(a["intervals"].as_array().unwrap().len(), 2);
        assert!(!a["histogram"].as_str().unwrap().is_empty());
    }
    assert_eq!(shown["plan"], doc["plan"], "the plan snapshot is stored");
    // --json carries the per-second samples in the monitoring object; the history keeps
    // them in their own tables, and the record without them.
    let without_samples = |m: &Value| {
        let mut m = m.clone();
        for k in ["mysql_samples", "server_samples"] {
            if let Some(o) = m.as_object_mut() {
                o.remove(k);
            }
        }
        m
    };
    assert_eq!(
        without_samples(&shown["monitoring"]),
        without_samples(&doc["monitoring"]),
        "what monitoring found is stored"
    );
    for k in ["mysql_samples", "server_samples"] {
        let n = doc["monitoring"][k].as_array().map_or(0, Vec::len);
        assert!(n > 0, "{k}");
        assert_eq!(shown[k], doc["monitoring"][k], "{k} rows stored");
    }
    assert_eq!(
        shown["monitoring"]["os_samples"].as_u64(),
        Some(shown["server_samples"].as_array().unwrap().len() as u64)
    );
    assert_eq!(shown["prepare"]["rows"], 1000);
    assert!(shown["environment"]["client"]["cores"].as_u64().unwrap() >= 1);

    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &data_dir_arg(data.path())])
        .output()
        .unwrap());
    assert!(
        text.contains("=== step 4: oltp_read_only @ 2 threads ==="),
        "{text}"
    );
    assert!(
        text.contains("Latency (ms):") && text.contains("Threads fairness:"),
        "{text}"
    );
    // The stored server and MySQL figures of each step, as --json has them.
    assert_eq!(text.matches("Server during the step:").count(), 4, "{text}");
    let cpu = shown["monitoring"]["steps"][0]["os"]["cpu_util_avg"]
        .as_f64()
        .unwrap();
    assert!(text.contains(&format!("{cpu:.1}% avg")), "{text}");
    assert!(
        text.contains("questions/s") && text.contains(" of 2 expected"),
        "{text}"
    );

    let export = data.path().join("export.json");
    ok(&dbdyno_cmd()
        .args([
            "runs",
            "export",
            &id.to_string(),
            "--json",
            "-o",
            export.to_str().unwrap(),
            &data_dir_arg(data.path()),
        ])
        .output()
        .unwrap());
    let exported: Value = serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    assert_eq!(exported["schema_version"], 2);
    assert_eq!(exported["run"], shown);

    ok(&dbdyno_cmd()
        .args([
            "runs",
            "delete",
            &id.to_string(),
            &data_dir_arg(data.path()),
        ])
        .output()
        .unwrap());
    assert_eq!(runs(data.path(), &["list", "--json"]), Value::Array(vec![]));
    let o = dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &data_dir_arg(data.path())])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("no run with id {id}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn no_history_records_nothing() {
    let _g = shared_server();
    let s = TestSchema::new("nohistory");
    let data = tempfile::tempdir().unwrap();
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "prepare",
    ]));
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-history",
        &data_dir_arg(data.path()),
    ]));
    assert!(!out.contains("Run id"), "{out}");
    assert!(!data.path().join(dbdyno_history::DB_FILE_NAME).exists());
    // The sysbench form records `run` too, with the run id on stderr only.
    let o = s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "--time=1",
        &data_dir_arg(data.path()),
        "run",
    ]);
    assert!(!stdout(&o).contains("Run id"), "stdout stays sysbench's");
    assert!(stderr(&o).contains("Run id: "), "{}", stderr(&o));
    // The command line as typed (secrets redacted).
    let command = runs(data.path(), &["list", "--json"])[0]["command"].clone();
    let command = command.as_str().unwrap();
    assert!(
        command.starts_with("dbdyno oltp_point_select ") && command.contains(" run"),
        "{command}"
    );
}

/// Whether the run holds server and MySQL samples inside its first `steps` steps.
fn samples_inside_steps(run: &dbdyno_history::StoredRun, steps: u32) -> bool {
    let inside = |i: Option<u32>| i.is_some_and(|i| i < steps);
    run.server_samples.iter().any(|x| inside(x.step_index))
        && run.mysql_samples.iter().any(|x| inside(x.step_index))
}

#[test]
fn kill_9_during_a_ladder_keeps_finished_steps_and_marks_the_run_interrupted() {
    let _g = shared_server();
    let s = TestSchema::new("kill9");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let data = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1,2,1,2,1,2,1,2,1,2,1,2",
        "--time=1",
        "--tables=1",
        "--table-size=1000",
        "--env=kill9",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(s.mysql_args());
    args.push(data_dir_arg(data.path()));
    let mut child = dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", &s.sandbox.password)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until at least two steps are committed with server and MySQL samples inside
    // them, then kill -9 in the middle of a step. (Waiting for two steps alone was not
    // enough: on a busy machine the MySQL sampler's first sample came after them.)
    let t0 = Instant::now();
    let kept_before_kill = loop {
        std::thread::sleep(Duration::from_millis(200));
        if data.path().join(dbdyno_history::DB_FILE_NAME).exists() {
            let h = BlockingHistory::open(data.path()).unwrap();
            let list = h.list_runs(None).unwrap();
            if let Some(r) = list.first() {
                assert_eq!(
                    r.state,
                    RunState::Running,
                    "the live writer is not mistaken for a dead one"
                );
                if r.steps >= 2 && samples_inside_steps(&h.load_run(r.id).unwrap(), r.steps) {
                    break r.steps;
                }
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no two steps with their server and MySQL samples recorded in 60 s"
        );
    };
    std::thread::sleep(Duration::from_millis(400));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let list = runs(data.path(), &["list", "--json"]);
    let r = &list[0];
    assert_eq!(r["state"], "interrupted", "{r}");
    let kept = r["steps"].as_u64().unwrap();
    assert!(
        kept >= kept_before_kill as u64 && kept < 12,
        "kept {kept} of 12 steps"
    );
    let shown = runs(data.path(), &["show", &r["id"].to_string(), "--json"]);
    for (i, st) in shown["steps"].as_array().unwrap().iter().enumerate() {
        assert_eq!(st["index"], i, "steps kept in order, none half-written");
        assert_eq!(st["result"]["intervals"].as_array().unwrap().len(), 1);
        assert!(st["result"]["transactions"].as_u64().unwrap() > 0);
    }
    assert!(shown["failure"]
        .as_str()
        .unwrap()
        .contains("stopped before the run ended"));
    // The monitoring of the finished steps was stored as each step ended, not at the
    // end the run never reached: the record and the samples inside the kept steps.
    let id = r["id"].as_i64().unwrap();
    let stored = BlockingHistory::open(data.path())
        .unwrap()
        .load_run(id)
        .unwrap();
    let record = stored
        .monitoring
        .as_ref()
        .expect("the monitoring record of the finished steps");
    assert!(
        !record.steps.is_empty(),
        "per-step server figures: {record:?}"
    );
    assert!(
        samples_inside_steps(&stored, kept as u32),
        "server and MySQL samples inside the kept steps: {} and {} stored",
        stored.server_samples.len(),
        stored.mysql_samples.len()
    );
    eprintln!(
        "kill -9: {kept} finished steps kept of 12 planned, with {} server and {} MySQL samples; run marked interrupted",
        stored.server_samples.len(),
        stored.mysql_samples.len()
    );
}

#[test]
fn concurrent_writers_lose_no_write() {
    let _g = shared_server();
    let s = TestSchema::new("concurrent");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let data = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    // Two CLI ladders (4 steps each) start together on a fresh history ...
    let ladder = |env: &str| {
        let mut args: Vec<String> = [
            "ladder",
            "--scenarios=oltp_point_select",
            "--ladder=1,1,1,1",
            "--time=1",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        args.push(format!("--env={env}"));
        args.extend(s.mysql_args());
        args.push(data_dir_arg(data.path()));
        dbdyno_cmd()
            .args(&args)
            .env("MYSQL_PWD", &s.sandbox.password)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = ladder("writer-a");
    let b = ladder("writer-b");
    // ... while an imports process and this test write runs as fast as they can.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sysbench");
    let importer = std::thread::spawn({
        let d = data_dir_arg(data.path());
        let f = fixtures.join("shell_loop_read_only_1_4.log");
        move || {
            for _ in 0..10 {
                ok(&dbdyno_cmd()
                    .args([
                        "import",
                        "sysbench",
                        f.to_str().unwrap(),
                        "--env=importer",
                        // The same file on purpose: every import is a write.
                        "--force",
                        &d,
                    ])
                    .output()
                    .unwrap());
            }
        }
    });
    let text = std::fs::read_to_string(fixtures.join("read_only_p99.txt")).unwrap();
    let step = dbdyno_sysbench_text::parse_sysbench_output(&text).unwrap()[0]
        .to_step_result(dbdyno_engine::Scenario::OltpReadOnly);
    let in_test = 150;
    {
        let h = BlockingHistory::open(data.path()).unwrap();
        for i in 0..in_test {
            let new = NewRun::new("in-test", format!("write {i}"));
            h.insert_finished_run(&new, std::slice::from_ref(&step), RunState::Complete, None)
                .unwrap();
        }
    }
    importer.join().unwrap();
    let (oa, ob) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    ok(&oa);
    ok(&ob);
    let elapsed = t0.elapsed();

    let list = runs(data.path(), &["list", "--json"]);
    let count = |env: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["env"] == env)
            .count()
    };
    assert_eq!(count("in-test"), in_test);
    assert_eq!(count("importer"), 10);
    for env in ["writer-a", "writer-b"] {
        let r = list
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["env"] == env)
            .unwrap();
        assert_eq!(
            (r["state"].as_str(), r["steps"].as_u64()),
            (Some("complete"), Some(4)),
            "{env}"
        );
    }
    let total_steps: u64 = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["steps"].as_u64().unwrap())
        .sum();
    assert_eq!(total_steps, in_test as u64 + 10 * 2 + 2 * 4);
    eprintln!(
        "concurrent writers: {} runs / {total_steps} steps from 2 ladders, 10 imports and {in_test} in-test writes in {:.1}s, none lost",
        list.as_array().unwrap().len(),
        elapsed.as_secs_f64()
    );
}

/// What monitoring noticed (here: an unmonitored server's missing OS metrics) is in the
/// run's warnings, not only inside the monitoring record.
#[test]
fn monitoring_findings_are_run_warnings() {
    let _g = shared_server();
    let s = TestSchema::new("monwarn");
    let data = tempfile::tempdir().unwrap();
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "prepare",
    ]));
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-monitor",
        &data_dir_arg(data.path()),
    ]));
    let id = run_id(&out);
    let shown = runs(data.path(), &["show", &id.to_string(), "--json"]);
    let missing = shown["monitoring"]["missing"].as_array().unwrap();
    assert!(!missing.is_empty(), "{}", shown["monitoring"]);
    let warnings: Vec<&str> = shown["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap())
        .collect();
    for m in missing {
        let what = m["what"].as_str().unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("not measured: ") && w.contains(what)),
            "{what} in {warnings:?}"
        );
    }
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &data_dir_arg(data.path())])
        .output()
        .unwrap());
    assert!(
        text.contains("Warnings:") && text.contains("not measured: "),
        "{text}"
    );
}

/// `--data-dir` before the command is the command's own (`dbdyno --data-dir=X runs list`),
/// in both spellings; the private data directory of the test's DBDYNO_DATA_DIR is not used.
#[test]
fn data_dir_before_the_command_chooses_the_history() {
    let _g = shared_server();
    for spaced in [false, true] {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().display().to_string();
        let before: Vec<String> = if spaced {
            vec!["--data-dir".into(), dir.clone()]
        } else {
            vec![data_dir_arg(data.path())]
        };
        let o = dbdyno_cmd()
            .args(&before)
            .args(["runs", "list"])
            .output()
            .unwrap();
        let out = ok(&o);
        assert!(
            out.contains(&format!("No runs in the history ({dir}")),
            "{out}"
        );
        assert!(data.path().join(dbdyno_history::DB_FILE_NAME).exists());
        let o = dbdyno_cmd()
            .args(&before)
            .args(["runs", "list", "--json"])
            .output()
            .unwrap();
        assert_eq!(json_of(&o), Value::Array(vec![]));
    }
}

/// The lower and upper bound of one of a step's intervals in the JSON documents.
fn bounds(confidence: &Value, figure: &str) -> (f64, f64) {
    let e = &confidence[figure];
    assert_eq!(e["kind"], "estimated", "{figure}: {e}");
    let i = &e["interval"];
    (
        i["lower"]
            .as_f64()
            .unwrap_or_else(|| panic!("{figure}: {e}")),
        i["upper"].as_f64().unwrap(),
    )
}

/// Per step of run `id`, as SQL reads the history: `p99_lo`, `p99_hi`, and how many of
/// its `intervals` rows have no `p95_ms` and no `p99_ms`.
fn p99_columns(data: &Path, id: i64) -> Vec<(Option<f64>, Option<f64>, i64, i64)> {
    let opts = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(data.join(dbdyno_history::DB_FILE_NAME))
        .read_only(true);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        let pool = sqlx::SqlitePool::connect_with(opts).await.unwrap();
        let rows = sqlx::query_as(
            "SELECT s.p99_lo, s.p99_hi,
                    (SELECT COUNT(*) - COUNT(i.p95_ms) FROM intervals i
                      WHERE i.run_id = s.run_id AND i.step_index = s.step_index),
                    (SELECT COUNT(*) - COUNT(i.p99_ms) FROM intervals i
                      WHERE i.run_id = s.run_id AND i.step_index = s.step_index)
             FROM steps s WHERE s.run_id = ? ORDER BY s.step_index",
        )
        .bind(id)
        .fetch_all(&pool)
        .await
        .unwrap();
        pool.close().await;
        rows
    })
}

#[test]
fn every_step_of_a_ladder_carries_its_confidence_into_json_the_text_and_the_history() {
    // Beside other tests: what is checked is where the intervals go, not how narrow they
    // are (tests starting and ending beside it can swing its per-second throughput so
    // far that a lower bound is raised to 0: seen, a CV of 89%).
    let _g = shared_server_long();
    let s = TestSchema::new("confidence");
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("out.json");
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1,2",
        "--time=15",
        "--tables=1",
        "--table-size=1000",
        "--prepare",
        "--cleanup",
        "--env=it-confidence",
        &format!("--json={}", json.display()),
        &data_dir_arg(data.path()),
    ]));
    let id = run_id(&out);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema_version"], 2);
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    for step in steps {
        let c = &step["confidence"];
        let tps = step["transactions"].as_f64().unwrap() / step["total_time_s"].as_f64().unwrap();
        let (lo, hi) = bounds(c, "tps");
        assert!(lo <= tps && tps <= hi, "tps {tps} outside {lo} … {hi}: {c}");
        assert!(hi - lo > 0.0, "a real step has some noise: {c}");
        assert!((c["tps"]["mean"].as_f64().unwrap() / tps - 1.0).abs() < 1e-9);
        let p95 = step["latency"]["p95_ms"].as_f64().unwrap();
        let (lo, hi) = bounds(c, "p95");
        assert!(lo <= p95 && p95 <= hi, "p95 {p95} outside {lo} … {hi}: {c}");
        let (lo, hi) = bounds(c, "qps");
        assert!(lo >= 0.0 && lo < hi, "{c}");
        // The per-second records carry p99 beside the --percentile (95) figure.
        let p99 = step["latency"]["p99_ms"].as_f64().unwrap();
        let (lo, hi) = bounds(c, "p99");
        assert!(lo <= p99 && p99 <= hi, "p99 {p99} outside {lo} … {hi}: {c}");
        for r in step["intervals"].as_array().unwrap() {
            assert!(r["p95_ms"].is_f64() && r["p99_ms"].is_f64(), "{r}");
        }
        assert!(c["cv_pct"].as_f64().unwrap() >= 0.0, "{c}");
        assert!(c["settled"].is_boolean(), "{c}");
        assert!(c["window"]["len"].as_u64().unwrap() >= 10, "{c}");
        assert!(
            c["tps"]["method"]["kind"] == "batch_means",
            "how the interval was made is said: {c}"
        );
    }
    // The ladder's text: an interval line under each step, and the table's columns.
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("  tps ") && l.contains("(95% CI "))
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("±tps %"), "{out}");

    // The history keeps the same confidence and `runs show` prints it.
    let shown = runs(data.path(), &["show", &id.to_string(), "--json"]);
    for (stored, step) in shown["steps"].as_array().unwrap().iter().zip(steps) {
        assert_eq!(stored["result"]["confidence"], step["confidence"]);
    }
    // … and its SQL columns: the p99 interval, and every interval's p95 and p99.
    let columns = p99_columns(data.path(), id);
    assert_eq!(columns.len(), 2);
    for ((lo, hi, without_p95, without_p99), step) in columns.into_iter().zip(steps) {
        let json = bounds(&step["confidence"], "p99");
        // The same figures; SQLite's REAL and the JSON text may differ in the last bit.
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs());
        assert!(
            close(lo, json.0) && close(hi, json.1),
            "columns {lo:?} … {hi:?}, JSON {json:?}"
        );
        assert_eq!(
            (without_p95, without_p99),
            (0, 0),
            "every interval row has both"
        );
    }
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &data_dir_arg(data.path())])
        .output()
        .unwrap());
    assert_eq!(text.matches("Confidence (95%, ").count(), 2, "{text}");
    let (lo, hi) = bounds(&steps[0]["confidence"], "tps");
    assert!(
        text.contains(&format!("(95% CI {lo:.2} … {hi:.2}, batch means of ")),
        "{text}"
    );
    let cv = steps[1]["confidence"]["cv_pct"].as_f64().unwrap();
    assert!(
        text.contains(&format!("cv of interval tps:                  {cv:.2}%")),
        "{text}"
    );
}

/// `doc` (a real `--json` file) against the committed schema, closed: every field it
/// has is declared and every field the schema requires is there.
fn assert_fits_results_schema(doc: &Value) {
    let schema: Value = serde_json::from_str(dbdyno_results::schema::COMMITTED).unwrap();
    let closed = dbdyno_results::schema::closed(&schema);
    let validator = jsonschema::validator_for(&closed).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the --json file does not fit docs/results.schema.json:\n{}",
        errors.join("\n")
    );
}
