//! A server restart mid-run: the run finishes, and the reconnects are counted.
//!
//! Each test restarts a server of its own (a [`PrivateSandbox`]), so it shares the
//! machine with the other tests instead of stopping the shared sandbox under them.

use std::time::Duration;

use dbdyno_tests::*;

#[test]
fn server_restart_mid_run_reconnects_and_finishes() {
    let _g = shared_server();
    let server = PrivateSandbox::start("restart", "");
    let s = TestSchema::on(server.sandbox(), "restart");
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
            // Long enough for the restart on a machine busy with other tests: the
            // transactions counted from the 7th second on come after it.
            "--time=15",
            "--report-interval=1",
            "run",
        ],
        file.path(),
    );
    std::thread::sleep(Duration::from_secs(3));
    server.control("restart");
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

/// Waits for a line containing `needle`, keeping every line seen.
fn wait_for(rx: &std::sync::mpsc::Receiver<String>, seen: &mut Vec<String>, needle: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            let hit = line.contains(needle);
            seen.push(line);
            if hit {
                return;
            }
        }
    }
    panic!("no line with {needle:?} within 60 s:\n{}", seen.join("\n"));
}

#[test]
fn a_step_that_starts_while_the_server_is_down_waits_for_it() {
    let _g = shared_server();
    let server = PrivateSandbox::start("restart-between", "");
    let s = TestSchema::on(server.sandbox(), "restart_between");
    s.prepare_one_table("oltp_read_only", 1000);
    let file = tempfile::NamedTempFile::new().unwrap();
    let mut child = s.spawn_dbdyno(
        &[
            "ladder",
            "--scenarios=oltp_read_only",
            "--ladder=1,2",
            "--time=3",
            "--cooldown=0",
            "--tables=1",
            "--table-size=1000",
        ],
        file.path(),
    );
    let rx = lines_of(&mut child);
    let mut seen = Vec::new();
    // Down during the first step, still down when the second starts, back 3 s later.
    wait_for(&rx, &mut seen, "oltp_read_only @ 1 thread");
    std::thread::sleep(Duration::from_secs(1));
    server.control("stop");
    wait_for(&rx, &mut seen, "oltp_read_only @ 2 threads");
    std::thread::sleep(Duration::from_secs(3));
    server.control("start");
    let out = child.wait_with_output().unwrap();
    seen.extend(stdout(&out).lines().map(str::to_string));
    let text = format!("{}\n{}", seen.join("\n"), stderr(&out));
    assert!(out.status.success(), "the ladder finished: {text}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{text}");
    let second = &steps[1];
    assert!(second["transactions"].as_u64().unwrap() > 0, "{text}");
    let opened = &second["connections"];
    assert!(
        opened["retries"].as_u64().unwrap() > 0 && opened["seconds"].as_f64().unwrap() >= 2.0,
        "the second step waited for the server: {opened}"
    );
    assert!(
        text.contains("connections took") && text.contains("to open"),
        "the wait is noted: {text}"
    );
}
