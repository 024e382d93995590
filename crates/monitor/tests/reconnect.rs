//! Connection drops: the sandbox sshd is stopped (listener and sessions) mid-run and
//! started again; the monitor must record the gap and resume. Alone in its own test
//! binary because it takes the shared sandbox down.

mod common;

use common::sandbox;
use dbdyno_monitor::{Monitor, MonitorConfig, SamplerEvent, Target};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The tests take the one sandbox sshd down in turn.
static SSHD: Mutex<()> = Mutex::new(());

fn next(monitor: &Monitor, within: Duration) -> SamplerEvent {
    monitor
        .events()
        .recv_timeout(within)
        .unwrap_or_else(|_| panic!("no event within {within:?}"))
}

#[test]
fn drop_records_gap_and_sampling_resumes() {
    let _sshd = SSHD.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox("drop_records_gap_and_sampling_resumes");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cfg = MonitorConfig::new(Target::Ssh(sb.key_target(dir.path())));
    cfg.retry_every = Duration::from_millis(500);
    let monitor = Monitor::start(cfg).expect("monitor starts");

    // A few samples first.
    let mut before = Vec::new();
    while before.len() < 2 {
        if let SamplerEvent::Sample(s) = next(&monitor, Duration::from_secs(5)) {
            before.push(s);
        }
    }
    let last_before = before.last().map(|s| s.local_unix_ms).unwrap_or_default();

    let down_at = Instant::now();
    sb.control(&["stop"]);
    let reason = loop {
        match next(&monitor, Duration::from_secs(10)) {
            SamplerEvent::Disconnected { reason, .. } => break reason,
            SamplerEvent::Sample(_) | SamplerEvent::Warning(_) => {}
            other => panic!("expected Disconnected, got {other:?}"),
        }
    };
    println!("noticed the drop after {:?}: {reason}", down_at.elapsed());
    assert!(
        down_at.elapsed() < Duration::from_secs(6),
        "drop noticed late"
    );

    // While the server is down, retries fail and say why.
    std::thread::sleep(Duration::from_secs(2));
    let mut failures = 0;
    while let Ok(ev) = monitor.events().try_recv() {
        match ev {
            SamplerEvent::ReconnectFailed { reason, .. } => {
                assert!(reason.contains("cannot connect"), "{reason}");
                failures += 1;
            }
            other => panic!("unexpected while down: {other:?}"),
        }
    }
    assert!(failures >= 1, "reconnection was attempted");
    sb.control(&["start"]);
    let up_at = Instant::now();

    let mut reconnected = false;
    let gap = loop {
        match next(&monitor, Duration::from_secs(10)) {
            SamplerEvent::Connected {
                reconnect: true,
                clock,
                ..
            } => {
                assert!(clock.is_some());
                reconnected = true;
            }
            SamplerEvent::ReconnectFailed { .. } | SamplerEvent::Warning(_) => {}
            SamplerEvent::Gap {
                from_ms,
                to_ms,
                reason,
            } => break (from_ms, to_ms, reason),
            other => panic!("expected Connected then Gap, got {other:?}"),
        }
    };
    assert!(reconnected, "Connected comes before the gap closes");
    let SamplerEvent::Sample(first_after) = next(&monitor, Duration::from_secs(3)) else {
        panic!("a sample follows the gap")
    };
    println!(
        "gap of {} ms ({}), closed {:?} after sshd came back",
        gap.1 - gap.0,
        gap.2,
        up_at.elapsed()
    );
    assert_eq!(
        gap.0, last_before,
        "the gap starts at the last sample before the drop"
    );
    assert_eq!(
        gap.1, first_after.local_unix_ms,
        "and ends at the first one after"
    );
    assert!(gap.1 - gap.0 >= 2000, "the server was down for over 2 s");
    let more = (0..2)
        .filter(|_| {
            matches!(
                next(&monitor, Duration::from_secs(3)),
                SamplerEvent::Sample(_)
            )
        })
        .count();
    assert_eq!(more, 2, "sampling goes on");
    monitor.stop();
}

/// A reconnection refused for a reason only the user can fix (here the login: the
/// monitor was handed a session opened with a good key, but its target carries a key
/// the server does not accept) stops the monitor with that reason instead of
/// retrying forever.
#[test]
fn a_login_refused_on_reconnect_stops_with_the_reason() {
    let _sshd = SSHD.lock().unwrap_or_else(|e| e.into_inner());
    let sb = sandbox("a_login_refused_on_reconnect_stops_with_the_reason");
    let dir = tempfile::tempdir().expect("tempdir");
    let good = sb.key_target(dir.path());
    let conn = dbdyno_ssh::connect(&good).expect("connect");
    let mut bad = good.clone();
    bad.auth = dbdyno_ssh::SshAuth::Key {
        path: common::new_key(dir.path(), "not_authorized", ""),
        passphrase: None,
    };
    let mut cfg = MonitorConfig::new(Target::Ssh(bad));
    cfg.retry_every = Duration::from_millis(300);
    let monitor = Monitor::start_connected(cfg, conn).expect("monitor starts");
    while !matches!(
        next(&monitor, Duration::from_secs(5)),
        SamplerEvent::Sample(_)
    ) {}
    sb.control(&["stop"]);
    std::thread::sleep(Duration::from_millis(500));
    sb.control(&["start"]);
    let t = Instant::now();
    let mut failures = 0;
    let reason = loop {
        match next(&monitor, Duration::from_secs(15)) {
            SamplerEvent::Stopped { reason } => break reason,
            SamplerEvent::ReconnectFailed { reason, .. } => {
                assert!(
                    reason.contains("cannot connect"),
                    "only the down time is retried: {reason}"
                );
                failures += 1;
            }
            _ => {}
        }
    };
    let reason = reason.expect("stopped for a reason");
    println!(
        "stopped after {:?} and {failures} failed attempt(s): {reason}",
        t.elapsed()
    );
    assert!(reason.contains("authentication failed"), "{reason}");
}
