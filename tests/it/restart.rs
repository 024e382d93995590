//! A server restart mid-run: the run finishes, and the reconnects are counted.

use std::process::Command;
use std::time::Duration;

use dbdyno_tests::*;

#[test]
fn server_restart_mid_run_reconnects_and_finishes() {
    let _g = exclusive_server();
    let s = TestSchema::new("restart");
    ok(&s.dbdyno(&[
        "oltp_read_only",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let file = tempfile::NamedTempFile::new().unwrap();
    let child = s.spawn_dbdyno(
        &[
            "oltp_read_only",
            "--tables=1",
            "--table-size=1000",
            "--threads=2",
            "--time=12",
            "--report-interval=1",
            "run",
        ],
        file.path(),
    );
    std::thread::sleep(Duration::from_secs(3));
    let r = Command::new("bash")
        .arg(sandbox_script())
        .arg("restart")
        .output()
        .unwrap();
    assert!(r.status.success(), "sandbox restart failed: {}", stderr(&r));
    let out = child.wait_with_output().unwrap();
    let text = ok(&out);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let step = &doc["outcome"]["steps"][0];
    assert!(
        step["reconnects"].as_u64().unwrap() >= 1,
        "reconnects counted: {text}"
    );
    let intervals = step["intervals"].as_array().unwrap();
    let after = intervals
        .iter()
        .skip(6)
        .map(|i| i["tps"].as_f64().unwrap())
        .sum::<f64>();
    assert!(after > 0.0, "transactions after the restart: {text}");
    assert!(text.contains("reconnects:"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("[ ") && !l.ends_with("reconn/s: 0.00")),
        "an interval shows reconn/s: {text}"
    );
}
