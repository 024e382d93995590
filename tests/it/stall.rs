//! A server that stops answering (no reset, no error) and a cut network: the per-second
//! lines go on at 0 tps, a silence shorter than the stall timeout is a recorded gap and
//! the ladder goes on, a longer one ends the step (and, by the default policy, the run)
//! within the stall timeout with a clear message, and the history still opens.
//!
//! The silent server is a private sandbox's mariadbd under SIGSTOP (never the shared
//! one). The cut network puts the server and the client each in a network namespace of
//! the test's own, a veth pair between them, and takes the link down.

use std::process::{Child, Command, Output};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use dbdyno_tests::*;
use serde_json::Value;

/// Exit code of a run whose step failed under `--on-step-error=stop` (docs/cli.md).
const EXIT_RUN_FAILED: i32 = 1;

/// Waits for a line starting with `prefix`, keeping every line seen.
fn wait_for(rx: &Receiver<String>, seen: &mut Vec<String>, prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            let hit = line.starts_with(prefix);
            seen.push(line);
            if hit {
                return;
            }
        }
    }
    panic!("no line {prefix:?} within 60 s:\n{}", seen.join("\n"));
}

/// The run's whole output once it ended: the lines read so far, the rest, stderr.
fn finish(child: Child, rx: Receiver<String>, mut seen: Vec<String>) -> (Output, String) {
    let out = child.wait_with_output().unwrap();
    seen.extend(rx.iter());
    let text = format!(
        "{}\n--- stderr ---\n{}",
        seen.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

/// The tps of every interval line ("[ 3s ] thds: 2 tps: 0.00 ...") in `text`.
fn interval_tps(text: &str) -> Vec<f64> {
    text.lines()
        .filter(|l| l.starts_with("[ ") && l.contains(" tps: "))
        .map(|l| {
            l.split(" tps: ")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect()
}

/// SIGCONT for a SIGSTOPped server whatever ends the test, so that its sandbox stops.
struct Continue(u32);

impl Continue {
    fn stop(pid: u32) -> Continue {
        signal("-STOP", pid);
        Continue(pid)
    }
}

impl Drop for Continue {
    fn drop(&mut self) {
        signal("-CONT", self.0);
    }
}

fn signal(sig: &str, pid: u32) {
    let status = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill {sig} {pid}");
}

/// The run recorded in `data` opens, with its state and its warnings.
fn recorded(data: &std::path::Path, text: &str) -> Value {
    let id = run_id(text);
    runs_show(data, id)
}

fn warnings_of(run: &Value) -> String {
    run.to_string()
}

fn one_step_run(stall_s: u64, time_s: u64, data: &std::path::Path) -> Vec<String> {
    vec![
        "ladder".into(),
        "--scenarios=oltp_point_select".into(),
        "--threads=2".into(),
        "--tables=1".into(),
        "--table-size=1000".into(),
        format!("--time={time_s}"),
        "--report-interval=1".into(),
        format!("--stall-timeout={stall_s}"),
        "--skip-checks".into(),
        data_dir_arg(data),
    ]
}

#[test]
fn a_silent_server_is_a_gap_below_the_stall_timeout_and_ends_the_run_at_it() {
    let _g = shared_server();
    let server = PrivateSandbox::start("stall", "");
    let s = TestSchema::on(server.sandbox(), "stall");
    s.prepare_one_table("oltp_point_select", 1000);
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("r.json");

    // Silent for 3 s, the stall timeout 8 s: the step goes on.
    let args = one_step_run(8, 9, data.path());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = s.spawn_dbdyno(&args, &json);
    let rx = lines_of(&mut child);
    let mut seen = Vec::new();
    wait_for(&rx, &mut seen, "[ 2s ]");
    let stopped = Continue::stop(server.pid());
    std::thread::sleep(Duration::from_secs(3));
    drop(stopped);
    let (out, text) = finish(child, rx, seen);
    assert_eq!(out.status.code(), Some(0), "the run finished: {text}");
    let tps = interval_tps(&text);
    assert!(tps.len() >= 8, "the per-second lines went on: {text}");
    assert!(
        tps.iter().filter(|&&t| t == 0.0).count() >= 2,
        "seconds of silence print 0 tps: {text}"
    );
    assert!(
        tps.last().is_some_and(|&t| t > 0.0),
        "the server answers again: {text}"
    );
    assert!(
        text.contains("WARNING: server silent since "),
        "the silence is said as it starts: {text}"
    );
    assert!(
        text.contains("then it answered again"),
        "and when it ends: {text}"
    );
    let run = recorded(data.path(), &text);
    let kept = warnings_of(&run);
    assert!(
        kept.contains("server silent for ") && kept.contains(" UTC, then it answered again"),
        "the history keeps the gap with its start: {kept}"
    );

    // Silent for good, the stall timeout 3 s: the run ends within it (and a little for
    // the process to end) with the reason, not when someone kills it.
    let args = one_step_run(3, 30, data.path());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = s.spawn_dbdyno(&args, &json);
    let rx = lines_of(&mut child);
    let mut seen = Vec::new();
    wait_for(&rx, &mut seen, "[ 2s ]");
    let stopped = Continue::stop(server.pid());
    let since = Instant::now();
    let (out, text) = finish(child, rx, seen);
    let took = since.elapsed();
    drop(stopped);
    ended_at_the_stall_timeout(&out, took, &text, "the server fell silent");
    assert!(
        interval_tps(&text).iter().filter(|&&t| t == 0.0).count() >= 2,
        "0 tps lines while it waited: {text}"
    );
    let run = recorded(data.path(), &text);
    assert_eq!(run["state"], "failed", "{run}");
    assert!(
        warnings_of(&run).contains("the stall timeout (--stall-timeout=3) ends the step"),
        "{run}"
    );
}

/// A run under `--stall-timeout=3` whose server stopped answering `took` before it ended:
/// it failed, within the timeout and the few seconds its end takes, saying why.
fn ended_at_the_stall_timeout(out: &Output, took: Duration, text: &str, what: &str) {
    assert_eq!(out.status.code(), Some(EXIT_RUN_FAILED), "{text}");
    assert!(
        took < Duration::from_secs(3 + 5),
        "ended {took:?} after {what}: {text}"
    );
    assert!(
        text.contains("the server was silent for 3 s (since "),
        "the message says why: {text}"
    );
}

#[test]
fn a_cut_network_is_a_recorded_gap_and_a_link_left_down_ends_the_run_at_the_stall_timeout() {
    let _g = shared_server();
    let Some(ns) = netns::Pair::create("cut") else {
        return;
    };
    let server = ns.start_server("cut", "");
    ok(&ns
        .dbdyno(
            &server,
            &[
                "oltp_point_select",
                "--tables=1",
                "--table-size=1000",
                "prepare",
            ],
        )
        .output()
        .unwrap());
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("r.json");
    let spawn = |stall_s: u64, time_s: u64| {
        let mut args = one_step_run(stall_s, time_s, data.path());
        args.push(format!("--json={}", json.display()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ns.dbdyno(&server, &args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };

    // Down for 2 s, the stall timeout 8 s (TCP's retransmission after a 2 s cut comes
    // within about 3 s): the step goes on.
    let mut child = spawn(8, 9);
    let rx = lines_of(&mut child);
    let mut seen = Vec::new();
    wait_for(&rx, &mut seen, "[ 2s ]");
    ns.server_link("down");
    std::thread::sleep(Duration::from_secs(2));
    ns.server_link("up");
    let (out, text) = finish(child, rx, seen);
    assert_eq!(out.status.code(), Some(0), "the run finished: {text}");
    let tps = interval_tps(&text);
    assert!(tps.len() >= 8, "the per-second lines went on: {text}");
    assert!(tps.contains(&0.0), "the cut shows as 0 tps: {text}");
    assert!(
        tps.last().is_some_and(|&t| t > 0.0),
        "load came back: {text}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let step = &doc["outcome"]["steps"][0];
    assert!(
        step["reconnects"].is_u64(),
        "reconnects are counted: {step}"
    );
    let run = recorded(data.path(), &text);
    assert!(
        warnings_of(&run).contains("then it answered again"),
        "the gap is recorded with its start: {run}"
    );

    // Down for good, the stall timeout 3 s: the run ends within it, with the reason.
    let mut child = spawn(3, 30);
    let rx = lines_of(&mut child);
    let mut seen = Vec::new();
    wait_for(&rx, &mut seen, "[ 2s ]");
    ns.server_link("down");
    let since = Instant::now();
    let (out, text) = finish(child, rx, seen);
    let took = since.elapsed();
    ns.server_link("up");
    ended_at_the_stall_timeout(&out, took, &text, "the link went down");
    let run = recorded(data.path(), &text);
    assert_eq!(run["state"], "failed", "{run}");
}
