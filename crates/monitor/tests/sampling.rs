//! The streaming sampler over SSH and the local sampler, on the real machine.

mod common;

use common::sandbox;
use dbdyno_monitor::{Monitor, MonitorConfig, SamplerEvent, ServerSample, Target};
use std::time::{Duration, Instant};

/// Collects samples for `secs` seconds after start; panics on an unexpected event.
fn collect(monitor: &Monitor, secs: u64) -> Vec<ServerSample> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut samples = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return samples;
        }
        match monitor.events().recv_timeout(left) {
            Ok(SamplerEvent::Sample(s)) => samples.push(s),
            Ok(SamplerEvent::Connected { .. }) | Ok(SamplerEvent::Warning(_)) => {}
            Ok(other) => panic!("unexpected event while sampling: {other:?}"),
            Err(_) => return samples,
        }
    }
}

/// Waits up to 10 s for the first sample: on a busy machine the remote loop took two
/// seconds to give it (seen in CI), which is its start, not its cadence.
fn first_sample(monitor: &Monitor) -> ServerSample {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match monitor.events().recv_timeout(left) {
            Ok(SamplerEvent::Sample(s)) => return s,
            Ok(SamplerEvent::Connected { .. }) | Ok(SamplerEvent::Warning(_)) => {}
            Ok(other) => panic!("unexpected event before the first sample: {other:?}"),
            Err(_) => panic!("no sample within 10 s of the start"),
        }
    }
}

#[test]
fn ssh_monitor_gives_one_sample_per_second_cheaply() {
    let sb = sandbox("ssh_monitor_gives_one_sample_per_second_cheaply");
    let dir = tempfile::tempdir().expect("tempdir");
    let monitor = Monitor::start(MonitorConfig::new(Target::Ssh(sb.key_target(dir.path()))))
        .expect("monitor starts");
    let clock = monitor.clock().expect("clock measured at connect");
    const N: u64 = 6;
    // N seconds from the first sample: N more, give or take the one at either edge.
    let mut samples = vec![first_sample(&monitor)];
    samples.extend(collect(&monitor, N));
    monitor.stop();

    let n = samples.len() as u64 - 1;
    println!(
        "{n} samples in {N} s; clock offset {:.2} ms (rtt {:.2} ms); intervals {:?}",
        clock.offset_ms,
        clock.rtt_ms,
        samples.iter().map(|s| s.interval_s).collect::<Vec<_>>()
    );
    // What the sampler promises, whatever else the machine is doing: samples on a fixed
    // 1-second schedule of the server's clock (a sample that comes late under load does
    // not shift the ones after it, so the next one comes early), and each sample's
    // interval, which every rate is divided by, is the real time since the one before.
    // A late sample is a fact the alignment records (its interval, the sample-count
    // rule), not a failure: so no bound on a single interval here. Seen in CI beside
    // the integration tests: one interval of 1.42 s, then 0.58 s.
    assert!((N - 1..=N + 1).contains(&n), "{n} samples in {N} s");
    for pair in samples.windows(2) {
        let spacing_s = (pair[1].server_unix_ms - pair[0].server_unix_ms) as f64 / 1000.0;
        // Both come from the server's /proc/uptime (10 ms ticks); the timestamp is
        // rounded to the millisecond.
        assert!(
            (pair[1].interval_s - spacing_s).abs() < 0.011,
            "a sample's interval {} s is not its spacing {spacing_s} s",
            pair[1].interval_s
        );
    }
    // The schedule: the median spacing is the period (one late sample makes one long
    // and one short spacing and leaves the median alone), and the samples have not
    // drifted from it (a loop that slept a whole interval after its own work would
    // be 10-50 ms later at every sample).
    let mut spacings: Vec<i64> = samples
        .windows(2)
        .map(|p| p[1].server_unix_ms - p[0].server_unix_ms)
        .collect();
    spacings.sort_unstable();
    let median = spacings[spacings.len() / 2];
    assert!(
        (990..=1010).contains(&median),
        "median spacing {median} ms: {spacings:?}"
    );
    let first = samples[0].server_unix_ms;
    let on_schedule = samples
        .iter()
        .enumerate()
        .filter(|(k, s)| (s.server_unix_ms - first - 1000 * *k as i64).abs() <= 20)
        .count();
    assert!(
        on_schedule * 2 > samples.len(),
        "{on_schedule} of {} samples within 20 ms of the schedule",
        samples.len()
    );
    for s in &samples {
        // Server and local clocks are the same clock here: only transit and the
        // client's own scheduling separate them.
        assert!(
            (s.local_unix_ms - s.server_unix_ms).abs() < 2_000,
            "{} vs {}",
            s.local_unix_ms,
            s.server_unix_ms
        );
        let cpu = s.cpu.expect("cpu");
        assert!((0.0..=100.0).contains(&cpu.util));
        assert!(s.mem.is_some() && s.load.is_some() && s.swap.is_some());
        assert!(s.net.iter().all(|n| n.iface != "lo"));
    }

    // The observer's own cost on the server: the loop shell with its head/sleep children.
    let ticks: f64 = samples
        .iter()
        .map(|s| s.sampler.expect("sampler cost").loop_cpu_pct * s.interval_s)
        .sum();
    let secs: f64 = samples.iter().map(|s| s.interval_s).sum();
    let loop_pct = ticks / secs;
    let transport: Vec<f64> = samples
        .iter()
        .filter_map(|s| s.sampler.and_then(|c| c.transport_cpu_pct))
        .collect();
    let transport_pct = transport.iter().sum::<f64>() / transport.len().max(1) as f64;
    println!("sampler loop CPU: {loop_pct:.3} % of one core over {secs:.1} s; sshd session: {transport_pct:.3} %");
    // The target (issue 3): under 1 % of one core. Measured here at 0.2 % (5 s).
    assert!(
        loop_pct < 1.0,
        "sampler loop costs {loop_pct:.2} % of a core"
    );
}

#[test]
fn ssh_monitor_reports_only_the_chosen_disks() {
    let sb = sandbox("ssh_monitor_reports_only_the_chosen_disks");
    let dir = tempfile::tempdir().expect("tempdir");
    // The CLI's path: one session resolves the data disk, then carries the sampler.
    let target = sb.key_target(dir.path());
    let conn = dbdyno_ssh::connect(&target).expect("connect");
    let disk = dbdyno_monitor::disk::resolve_remote(&conn, "/").expect("resolve /");
    let mut cfg = MonitorConfig::new(Target::Local);
    assert!(matches!(
        Monitor::start_connected(cfg.clone(), conn),
        Err(dbdyno_monitor::MonitorError::NotSsh)
    ));
    let conn = dbdyno_ssh::connect(&target).expect("connect");
    cfg.target = Target::Ssh(target);
    cfg.rates.disks = dbdyno_monitor::DiskSelection::Only(disk.devices.clone());
    cfg.rates.include_loopback = true;
    let monitor = Monitor::start_connected(cfg, conn).expect("monitor starts");
    let samples = collect(&monitor, 3);
    drop(monitor); // Drop stops it too.
    assert!(!samples.is_empty());
    for s in &samples {
        let names: Vec<&str> = s.disks.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            disk.devices.iter().map(String::as_str).collect::<Vec<_>>()
        );
        assert!(s.net.iter().any(|n| n.iface == "lo"));
    }
}

#[test]
fn local_monitor_samples_without_ssh() {
    let monitor = Monitor::start(MonitorConfig::new(Target::Local)).expect("local monitor");
    let first = monitor
        .events()
        .recv_timeout(Duration::from_secs(1))
        .expect("event");
    assert!(
        matches!(first, SamplerEvent::Connected { ref addr, .. } if addr == "local"),
        "{first:?}"
    );
    let samples = collect(&monitor, 3);
    let stop_at = Instant::now();
    monitor.stop();
    assert!(
        stop_at.elapsed() < Duration::from_millis(500),
        "stop is prompt"
    );
    assert!(
        (2..=4).contains(&samples.len()),
        "{} samples in 3 s",
        samples.len()
    );
    let cost = samples
        .last()
        .and_then(|s| s.sampler)
        .expect("local cost")
        .loop_cpu_pct;
    println!("local sampler thread CPU: {cost:.3} %");
    assert!(samples
        .iter()
        .all(|s| s.cpu.is_some() && !s.disks.is_empty()));
}
