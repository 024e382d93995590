//! Runs monitored without SSH: sampled from this machine's /proc when it is the server,
//! a plain sysbench-form run left unmonitored, and what a run with OS sampling turned off
//! still records (the missing metrics, the server's environment). Sampling over SSH is
//! `ssh_sampling.rs`.

use dbdyno_tests::*;
use serde_json::Value;

use super::json_file;

#[test]
fn local_run_is_sampled_from_proc_and_plain_run_is_not_monitored() {
    let _g = shared_server();
    let s = TestSchema::new("mon_local");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    let json = format!("--json={}", file.display());
    let base = [
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "--time=3",
        "--no-history",
    ];
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--monitor", &json, "run"]);
    let o = s.dbdyno(&args);
    let out = ok(&o);
    let err = stderr(&o);
    assert!(
        out.contains("SQL statistics:") && !out.contains("server:"),
        "stdout stays sysbench's: {out}"
    );
    // "samples 3 (3.0 of 3.0 s)": the samples cover the whole step. The step's window is
    // its measured wall time, which on a busy machine ends past the 3 s (the workers stop
    // after their last statement; "3.1 of 3.1 s" was seen in CI), so the window is read
    // from the line rather than assumed to print as 3.0.
    let server = err
        .lines()
        .find(|l| l.starts_with("  server: cpu "))
        .unwrap_or_else(|| panic!("no server line: {err}"));
    let (covered, window) = covered_of(server).unwrap_or_else(|| panic!("{server}"));
    assert!((3.0..3.6).contains(&window), "a 3 s step: {server}");
    assert!(covered >= window - 0.1, "samples cover the step: {server}");
    assert!(
        err.contains("WARNING: client and server are one machine"),
        "{err}"
    );
    let m = json_file(&file)["monitoring"].clone();
    assert_eq!(m["os_access"], "this machine (/proc)");
    assert_eq!(m["environment"]["client"]["same_host"], true);
    assert!(m["environment"]["os"]["cpus"].as_u64().unwrap() >= 1);
    assert!(
        !m["devices"].as_array().unwrap().is_empty(),
        "the data disk was resolved: {m}"
    );
    let step = &m["steps"][0];
    assert_eq!(step["expected_samples"], 3);
    // Three seconds covered by both samplers: the sample count rule holds.
    assert!(step["flags"].as_array().unwrap().is_empty(), "{step}");
    assert!(
        (2..=4).contains(&step["os"]["samples"].as_u64().unwrap()),
        "{step}"
    );
    assert!(step["os"]["covered_s"].as_f64().unwrap() >= 2.5, "{step}");
    assert!(
        step["mysql"]["covered_s"].as_f64().unwrap() >= 2.5,
        "{step}"
    );
    assert!(step["os"]["cpu_util_avg"].as_f64().unwrap() > 0.0);
    assert!(
        step["mysql"]["questions_per_s_avg"].as_f64().unwrap() > 100.0,
        "{step}"
    );

    // Without --ssh-host or --monitor, the sysbench form adds nothing to the server.
    let mut args: Vec<&str> = base.to_vec();
    args.extend([json.as_str(), "run"]);
    let o = s.dbdyno(&args);
    ok(&o);
    assert!(json_file(&file)["monitoring"].is_null());
    assert!(!stderr(&o).contains("server:"));
}

#[test]
fn managed_run_with_no_monitor_says_which_metrics_are_missing() {
    let _g = shared_server();
    let s = TestSchema::new("mon_managed");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ladder.json");
    let json = format!("--json={}", file.display());
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=3",
        "--tables=1",
        "--table-size=1000",
        "--no-history",
        "--no-monitor",
        &json,
    ]));
    assert!(
        out.contains("Missing metrics: server CPU, disk, memory and network: OS sampling turned off (--no-monitor)"),
        "{out}"
    );
    assert!(
        out.contains("OS metrics missing (OS sampling turned off (--no-monitor)"),
        "{out}"
    );
    let m = json_file(&file)["monitoring"].clone();
    assert_eq!(m["os_access"], "none");
    let step = &m["steps"][0];
    assert!(step["os"].is_null());
    assert!(step["os_missing"]
        .as_str()
        .unwrap()
        .contains("--no-monitor"));
    assert!(
        step["mysql"]["covered_s"].as_f64().unwrap() >= 2.5,
        "MySQL-side metrics are still there: {step}"
    );
    assert_eq!(step["flags"].as_array().unwrap().len(), 0);
    let missing: Vec<String> = m["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["what"].to_string())
        .collect();
    assert!(
        missing
            .iter()
            .any(|w| w.contains("CPU model, memory, kernel, data disk")),
        "{missing:?}"
    );
}

#[test]
fn an_unmonitored_run_records_the_servers_environment() {
    let _g = shared_server();
    let s = TestSchema::new("mon_env");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "prepare",
    ]));
    let data = tempfile::tempdir().unwrap();
    let dd = format!("--data-dir={}", data.path().display());
    let o = s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "--time=1",
        "--no-monitor",
        &dd,
        "run",
    ]);
    let err = ok(&o);
    let err = format!("{err}{}", stderr(&o));
    let id: String = err
        .split("Run id: ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .expect("the run id is printed")
        .to_string();
    let o = dbdyno_cmd()
        .args(["runs", "show", &id, "--json", &dd])
        .output()
        .unwrap();
    let run: Value = serde_json::from_str(&ok(&o)).unwrap();
    let env = &run["environment"];
    assert!(
        env["server"]["version"]
            .as_str()
            .is_some_and(|v| !v.is_empty()),
        "{env:#}"
    );
    assert!(env["variables"]["max_connections"].is_string(), "{env:#}");
    assert!(env["client"]["cores"].is_number(), "{env:#}");
}

/// The two figures of a sampler's "(covered of window s)": seconds covered by samples and
/// the step's window, from a line such as "samples 3 (3.1 of 3.1 s)".
fn covered_of(line: &str) -> Option<(f64, f64)> {
    let after = line.split("samples ").nth(1)?;
    let inner = after.split('(').nth(1)?.split(" s)").next()?;
    let (covered, window) = inner.split_once(" of ")?;
    Some((covered.trim().parse().ok()?, window.trim().parse().ok()?))
}
