//! Capacity under a latency target against the real server: a ladder with `--sla` whose
//! first step meets the target and whose last does not, `--sla-search=2` running its two
//! extra steps inside the bracket, and the report leading with the capacity.
//!
//! The target is not a constant (the sandbox's latencies depend on the machine and on
//! what else runs on it): a short first ladder measures the p95 at the two thread
//! counts, and the target is set at their geometric mean. The workload updates one row
//! (a table of one row), so transactions queue on its lock and the p95 at 32 threads is
//! about 32 times the one at 1 thread however loaded the machine is: the target lies
//! several times above the one and below the other. (Point selects on a 2-core machine
//! busy with builds were seen at 1.2 ms at 1 thread and 2.1 ms at 32.)

use std::path::Path;

use dbdyno_tests::*;
use serde_json::Value;

const LOW: u64 = 1;
const HIGH: u64 = 32;

fn steps(json: &Path) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    doc["outcome"]["steps"].as_array().unwrap().clone()
}

fn p95_at(steps: &[Value], threads: u64) -> f64 {
    steps
        .iter()
        .find(|s| s["threads"] == threads)
        .and_then(|s| s["latency"]["p95_ms"].as_f64())
        .unwrap_or_else(|| panic!("no p95 at {threads} threads: {steps:?}"))
}

#[test]
fn the_search_runs_inside_the_bracket_and_the_report_leads_with_the_capacity() {
    // Alone on the server: another test's load during one step and not the next would
    // move the crossing the target was chosen for.
    let _g = exclusive_server();
    let s = TestSchema::new("sla");
    s.prepare_one_table("oltp_update_non_index", 1);
    let dir = tempfile::tempdir().unwrap();
    let ladder = format!("--ladder={LOW},{HIGH}");
    let base = [
        "ladder",
        "--scenarios=oltp_update_non_index",
        ladder.as_str(),
        "--tables=1",
        "--table-size=1",
        "--no-history",
    ];

    let probe = dir.path().join("probe.json");
    let probe_arg = format!("--json={}", probe.display());
    let mut args = base.to_vec();
    args.extend(["--time=4", probe_arg.as_str()]);
    ok(&s.dbdyno(&args));
    let measured = steps(&probe);
    let (low, high) = (p95_at(&measured, LOW), p95_at(&measured, HIGH));
    assert!(
        high > 4.0 * low,
        "{HIGH} threads queue on one row: p95 {low} ms at {LOW}, {high} ms at {HIGH}"
    );
    let limit_ms = (low * high).sqrt();
    let sla = format!("--sla=p95<={limit_ms:.3}ms");

    let json = dir.path().join("sla.json");
    let json_arg = format!("--json={}", json.display());
    let mut args = base.to_vec();
    // 12 s: an interval needs 10 per-second values.
    args.extend([
        "--time=12",
        sla.as_str(),
        "--sla-search=2",
        json_arg.as_str(),
    ]);
    let out = ok(&s.dbdyno(&args));
    eprintln!("{out}");

    let ran = steps(&json);
    let threads: Vec<u64> = ran.iter().map(|s| s["threads"].as_u64().unwrap()).collect();
    let searched: Vec<bool> = ran.iter().map(|s| s["sla_search"] == true).collect();
    assert_eq!(
        threads.len(),
        4,
        "two ladder steps and two search steps: {threads:?}"
    );
    assert_eq!(searched, [false, false, true, true], "{threads:?}");
    // The first extra step halves the bracket; the second halves the half it left.
    let middle = (LOW + HIGH) / 2;
    assert_eq!(threads[2], middle, "{threads:?}");
    assert!(
        [(LOW + middle) / 2, (middle + HIGH) / 2].contains(&threads[3]),
        "{threads:?}"
    );
    assert!(out.contains(" within p95≤"), "{out}");
    assert!(out.contains(" beyond p95≤"), "{out}");
    assert!(out.contains("(capacity search)"), "{out}");
    assert!(
        out.contains("capacity search at p95≤"),
        "the search says which step it runs: {out}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with("capacity at p95 ≤ "))
        .unwrap_or_else(|| panic!("no capacity line: {out}"));
    assert!(
        line.contains("oltp_update_non_index") && line.contains(" thread"),
        "{line}"
    );

    // The report reads the target from the run's plan and leads with the capacity.
    let model_path = dir.path().join("report.json");
    let md_path = dir.path().join("report.md");
    let report = dbdyno_cmd()
        .arg("report")
        .arg(format!("--input={}", json.display()))
        .arg(format!("--json={}", model_path.display()))
        .arg(format!("--md={}", md_path.display()))
        .output()
        .expect("run dbdyno report");
    let printed = ok(&report);
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(&model_path).unwrap()).unwrap();
    let capacity = &model["capacity"]["scenarios"][0]["envs"][0];
    let judged = capacity["steps"].as_array().unwrap();
    let within: Vec<(u64, f64)> = judged
        .iter()
        .filter(|j| j["sla"]["standing"] == "within")
        .map(|j| (j["threads"].as_u64().unwrap(), j["tps"].as_f64().unwrap()))
        .collect();
    assert!(!within.is_empty(), "{judged:?}");
    assert!(
        judged.iter().any(|j| j["sla"]["standing"] == "beyond"),
        "{judged:?}"
    );
    let best = within.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(
        capacity["capacity"]["threads"].as_u64(),
        Some(best.0),
        "{capacity}"
    );
    let first = model["executive_summary"][0].as_str().unwrap();
    assert!(
        first.starts_with("At p95 ≤ ") && first.contains(" sustains ") && first.contains(" TPS ("),
        "{first}"
    );
    assert!(printed.contains("At p95 ≤ "), "{printed}");
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(md.contains("## Capacity at p95 ≤ "), "{md}");
}
