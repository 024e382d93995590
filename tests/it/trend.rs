//! Change points on real runs: short oltp_write_only runs on a private sandbox, its
//! `innodb_flush_log_at_trx_commit` changed from 2 (write the log at commit, flush once
//! a second) to 1 (flush at every commit) partway. Two environments of the same plan,
//! their runs interleaved so that both see the same machine:
//! - `nightly`: 6 runs at 2, then 4 at 1: one TPS change point, at the 7th run;
//! - `steady`: 10 runs at 2: none; then one at 1: `gate` calls it a regression (exit 4,
//!   a JUnit failure).
//!
//! The detector's significance level is its default (Welch's t-test, p × positions
//! searched < 0.002,
//! `dbdyno_stats::ChangePointOptions`). Runs under the machine lock: their TPS is what
//! is measured.

use std::path::Path;

use dbdyno_tests::*;
use serde_json::Value;

fn one_run(server: &PrivateSandbox, data: &Path, env: &str) {
    ok(&server.dbdyno(&[
        "ladder",
        "--scenarios=oltp_write_only",
        "--threads=1",
        "--time=3",
        "--tables=1",
        "--table-size=2000",
        "--prepare=if-missing",
        "--no-monitor",
        &format!("--env={env}"),
        &data_dir_arg(data),
    ]));
}

fn tps_change_points(data: &Path, env: &str) -> (Vec<u64>, Value) {
    let out = ok(&dbdyno_cmd()
        .args([
            "trend",
            &format!("--env={env}"),
            "--json",
            &data_dir_arg(data),
        ])
        .output()
        .unwrap());
    let doc: Value = serde_json::from_str(&out).unwrap();
    let cells = doc.as_array().unwrap();
    assert_eq!(cells.len(), 1, "one cell: {doc}");
    let tps: Vec<String> = cells[0]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{:.0}", r["tps"].as_f64().unwrap()))
        .collect();
    eprintln!("{env}: TPS {}", tps.join(" "));
    let at = cells[0]["tps_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["index"].as_u64().unwrap())
        .collect();
    (at, doc)
}

#[test]
#[ignore = "flaky on a shared 2-core box: the fsync-bound effect of the change drowns in I/O noise (unchanged runs read 530-1,000 TPS); run with --ignored, see docs/reports.md"]
fn a_durability_change_is_one_change_point_and_the_gate_catches_it() {
    let _g = exclusive_server();
    let server = PrivateSandbox::start("trend", "innodb_flush_log_at_trx_commit = 2");
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    for i in 0..10 {
        if i < 6 {
            one_run(&server, data, "nightly");
        }
        one_run(&server, data, "steady");
    }
    let (steady, doc) = tps_change_points(data, "steady");
    assert!(steady.is_empty(), "nothing changed, no change point: {doc}");

    server.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 1");
    for _ in 0..4 {
        one_run(&server, data, "nightly");
    }
    one_run(&server, data, "steady");
    let (nightly, doc) = tps_change_points(data, "nightly");
    assert_eq!(nightly, [6], "one change point, at the 7th run: {doc}");
    let drop = doc[0]["tps_changes"][0]["delta"]["pct"].as_f64().unwrap();
    assert!(drop < 0.0, "flushing at every commit is slower: {drop}%");

    let junit = data.join("gate.xml");
    let gate = |env: &str| {
        dbdyno_cmd()
            .args(["gate", &format!("--env={env}"), &data_dir_arg(data)])
            .arg(format!("--junit={}", junit.display()))
            .output()
            .unwrap()
    };
    let o = gate("steady");
    assert_eq!(o.status.code(), Some(4), "{}\n{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("REGRESSED steady oltp_write_only @ 1 threads"),
        "{}",
        stdout(&o)
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<failure message=") && xml.contains("oltp_write_only@1 TPS"),
        "{xml}"
    );
}
