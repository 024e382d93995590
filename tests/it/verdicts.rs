//! Verdicts that know the noise, against the real server. A/A: two ladders of one plan on
//! one quiet server differ only by noise, so `dbdyno report --threshold=5` calls every
//! cell within noise, each with its Δ interval, and exits 0. A/B: the same plan on a
//! server really slowed (every commit synced to disk, a buffer pool the data does not
//! fit) REGRESSES, with the intervals printed, and exits 4.
//!
//! Both tests fail without the intervals: a point Δ alone gives the A/A pair no interval
//! to be within (and between two runs of one plan it crosses ±5% as often as not), and
//! the A/B pair's regressed cells must carry a whole interval beyond −5%.

use std::path::{Path, PathBuf};
use std::process::Output;

use dbdyno_tests::*;
use serde_json::Value;

/// Seconds per step: an interval needs 10 per-second values, and a step's last second
/// may be cut short and left out.
const STEP: &str = "--time=12";
const THRESHOLD_PCT: f64 = 5.0;

/// `dbdyno ladder` with these settings, its results written to `json`.
fn ladder(run: impl Fn(&[&str]) -> Output, settings: &[&str], json: &Path) {
    let json = format!("--json={}", json.display());
    let mut args = vec!["ladder", STEP, "--no-history", json.as_str()];
    args.extend_from_slice(settings);
    ok(&run(&args));
}

/// `dbdyno report` of the baseline `a` against `b`: its output and the report model.
fn report(dir: &Path, a: &Path, b: &Path) -> (Output, Value) {
    let json = dir.join("report.json");
    let out = dbdyno_cmd()
        .arg("report")
        .arg(format!("--input={},{}", a.display(), b.display()))
        .args(["--env-names=A,B", "--baseline=A"])
        .arg(format!("--threshold={THRESHOLD_PCT}"))
        .arg(format!("--json={}", json.display()))
        .arg(format!("--md={}", dir.join("report.md").display()))
        .output()
        .expect("run dbdyno report");
    let text = std::fs::read_to_string(&json)
        .unwrap_or_else(|e| panic!("{e}\nstdout:\n{}\nstderr:\n{}", stdout(&out), stderr(&out)));
    (out, serde_json::from_str(&text).unwrap())
}

/// One compared row of the report model.
struct Row {
    /// "scenario@threads".
    cell: String,
    verdict: String,
    tps_pct: f64,
    /// The 95% interval of Δ TPS, when there is one.
    bounds: Option<(f64, f64)>,
}

/// Every compared row of the report model.
fn rows(model: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    for s in model["scenarios"].as_array().unwrap() {
        for c in s["comparisons"].as_array().unwrap() {
            for r in c["rows"].as_array().unwrap() {
                let range = &r["judged"]["tps"]["delta"]["range"];
                let bounds = (range["kind"] == "interval").then(|| {
                    (
                        range["lower_pct"].as_f64().unwrap(),
                        range["upper_pct"].as_f64().unwrap(),
                    )
                });
                out.push(Row {
                    cell: format!("{}@{}", s["scenario"].as_str().unwrap(), r["threads"]),
                    verdict: r["verdict"].as_str().unwrap().to_string(),
                    tps_pct: r["tps_pct"].as_f64().unwrap_or(f64::NAN),
                    bounds,
                });
            }
        }
    }
    // Printed so that a run's log shows the intervals it saw.
    for r in &out {
        eprintln!(
            "{}: {}, Δ TPS {:+.1}%, 95% interval {:?}",
            r.cell, r.verdict, r.tps_pct, r.bounds
        );
    }
    out
}

fn files(dir: &Path) -> (PathBuf, PathBuf) {
    (dir.join("a.json"), dir.join("b.json"))
}

/// The A/A comparison of issue 10. Not run by scripts/test.sh yet: one run's interval
/// (batch means over its seconds) does not hold the variation between two runs, and on
/// the project's 2-core machine two ladders of one plan differ by more than that. Run
/// alone three times on 2026-11-30 (`cargo test -p dbdyno-tests --test it -- --ignored
/// --test-threads=1`), one of three called a cell IMPROVED; in CI, beside other tests,
/// oltp_point_select at 4 threads came out −20.1% (interval −26.5% to −13.2%). The
/// interval across repeats (`--repeat`, dbdyno_stats::repeats_interval) is what holds
/// run-to-run effects; this test joins the suite with it.
#[test]
#[ignore = "needs --repeat: one run's interval misses run-to-run variation (see above)"]
fn two_ladders_of_one_plan_on_one_server_are_within_noise() {
    // Alone on the server: a test running beside one ladder and not the other would be a
    // real difference between the two, not noise.
    let _g = exclusive_server();
    let s = TestSchema::new("verdict_aa");
    let size = "--table-size=10000";
    ok(&s.dbdyno(&["oltp_read_only", "--tables=1", size, "prepare"]));
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = files(dir.path());
    // Read-only scenarios, each ladder prewarmed: both see the same data in the same
    // state. A write workload changes what the second ladder reads (seen in CI:
    // oltp_read_write at 1 thread, p95 +19.3%, interval +9.4% to +29.5%, a real
    // difference the intervals rightly call), so it is no A/A.
    let plan = [
        "--scenarios=oltp_point_select,oltp_read_only",
        "--ladder=1,4",
        "--tables=1",
        "--prewarm",
        size,
    ];
    for json in [&a, &b] {
        ladder(|args| s.dbdyno(args), &plan, json);
    }
    let (out, model) = report(dir.path(), &a, &b);
    let printed = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{printed}\nstderr:\n{}",
        stderr(&out)
    );
    assert!(
        printed.contains("4 compared cells 0 regressed, 0 improved and 4 are within noise"),
        "{printed}"
    );
    assert!(
        printed.contains("Noise floor: TPS differences under"),
        "{printed}"
    );
    let v = &model["verdict"];
    assert_eq!(
        (
            v["compared"].as_u64(),
            v["failed"].as_u64(),
            v["improved"].as_u64()
        ),
        (Some(4), Some(0), Some(0)),
        "{v}"
    );
    for Row {
        cell,
        verdict,
        tps_pct,
        bounds,
    } in rows(&model)
    {
        assert_eq!(verdict, "within_noise", "{cell}");
        // Within noise means with an interval: around the Δ, and reaching inside ±5%.
        let (lo, hi) = bounds.unwrap_or_else(|| panic!("{cell}: no Δ TPS interval"));
        assert!(
            lo < tps_pct && tps_pct < hi,
            "{cell}: {lo} < {tps_pct} < {hi}"
        );
        assert!(
            lo < THRESHOLD_PCT && hi > -THRESHOLD_PCT,
            "{cell}: {lo}…{hi}"
        );
    }
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.contains("within noise (±"), "{md}");
}

#[test]
fn a_really_slowed_server_regresses_beyond_its_noise() {
    // The two servers are private, but a test loading the shared one beside one ladder
    // and not the other would blur the comparison: run alone.
    let _g = exclusive_server();
    let fast = PrivateSandbox::start(
        "verdict-fast",
        "innodb_flush_log_at_trx_commit = 0\nsync_binlog = 0\nlog_bin = binlog",
    );
    // Two syncs per commit (redo log and binlog), and a buffer pool (6 MiB, the least
    // MariaDB takes) that 50,000 rows (about 12 MiB) do not fit.
    let slow = PrivateSandbox::start(
        "verdict-slow",
        "innodb_flush_log_at_trx_commit = 1\nsync_binlog = 1\nlog_bin = binlog\ninnodb_buffer_pool_size = 6M",
    );
    let size = "--table-size=50000";
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = files(dir.path());
    let plan = [
        "--scenarios=oltp_write_only",
        "--ladder=1,4",
        "--tables=1",
        size,
    ];
    for (server, json) in [(&fast, &a), (&slow, &b)] {
        ok(&server.dbdyno(&["oltp_write_only", "--tables=1", size, "prepare"]));
        ladder(|args| server.dbdyno(args), &plan, json);
    }
    let (out, model) = report(dir.path(), &a, &b);
    let (printed, errors) = (stdout(&out), stderr(&out));
    assert_eq!(
        out.status.code(),
        Some(4),
        "stdout:\n{printed}\nstderr:\n{errors}"
    );
    assert!(
        errors.contains("REGRESSION: 2 cell(s) regressed beyond 5%"),
        "{errors}"
    );
    // The regressed cells are printed with their intervals.
    for threads in ["1 thread:", "4 threads:"] {
        let line = errors
            .lines()
            .find(|l| l.contains(&format!("B oltp_write_only at {threads}")))
            .unwrap_or_else(|| panic!("no line for {threads}\n{errors}"));
        assert!(
            line.contains("TPS −") && line.contains("(95% interval −"),
            "{line}"
        );
    }
    assert_eq!(
        model["verdict"]["failed"].as_u64(),
        Some(2),
        "{}",
        model["verdict"]
    );
    for Row {
        cell,
        verdict,
        tps_pct,
        bounds,
    } in rows(&model)
    {
        assert_eq!(verdict, "regressed", "{cell}");
        let (lo, hi) = bounds.unwrap_or_else(|| panic!("{cell}: no Δ TPS interval"));
        assert!(
            lo < tps_pct && tps_pct < hi && hi < -THRESHOLD_PCT,
            "{cell}: {lo} < {tps_pct} < {hi} < −5"
        );
    }
}
