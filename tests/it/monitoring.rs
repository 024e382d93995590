//! Monitoring against the real sshd and MariaDB: one sample per second, host keys and
//! credentials refused with clear errors, a ladder that outlives a dead sshd and
//! records the gap, local /proc sampling, a "managed" run without OS metrics, and the
//! MySQL status sampler through a server restart and what it costs the server.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dbdyno_checks::{MysqlEvent, MysqlSampler, MysqlSamplerConfig};
use dbdyno_tests::*;
use mysql::prelude::Queryable;
use serde_json::Value;

use crate::sshd::{self, Restart, Sshd};

fn json_file(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn monitor_json_gives_one_sample_per_second() {
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    const N: usize = 5;
    let t = Instant::now();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args([format!("--duration={N}"), "--json".into()])
        .output()
        .unwrap();
    let took = t.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    let samples: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .filter(|v| v["type"] == "sample")
        .collect();
    println!(
        "{} samples in {N} s of monitoring ({took:?} with connecting)",
        samples.len()
    );
    assert!(
        (N - 1..=N + 1).contains(&samples.len()),
        "{N} s gave {} samples:\n{}",
        samples.len(),
        stdout(&o)
    );
    for pair in samples.windows(2) {
        let dt = pair[1]["server_unix_ms"].as_i64().unwrap()
            - pair[0]["server_unix_ms"].as_i64().unwrap();
        assert!((800..=1200).contains(&dt), "samples {dt} ms apart");
    }
    for s in &samples {
        assert!((0.8..=1.2).contains(&s["interval_s"].as_f64().unwrap()));
        assert!(s["cpu"]["util"].is_number());
    }
    let cost: Vec<String> = samples
        .iter()
        .map(|s| {
            format!(
                "{}/{}",
                s["sampler"]["loop_cpu_pct"], s["sampler"]["transport_cpu_pct"]
            )
        })
        .collect();
    println!(
        "sampler cost on the server, loop/sshd % of a core per sample: {}",
        cost.join(" ")
    );
    assert!(
        stderr(&o).contains("disk: "),
        "the disk choice is shown: {}",
        stderr(&o)
    );
}

#[test]
fn unknown_and_changed_host_keys_and_bad_credentials_stop_before_anything_runs() {
    let _g = shared_server();
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let fp = sb.fingerprint(dir.path());
    let empty = dir.path().join("empty_known_hosts");

    // Unknown key, nobody at a terminal: refused with the fingerprint and the way to accept.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&empty))
        .arg("--duration=1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&fp) && err.contains("--accept-new-host-key") && err.contains("is not known"),
        "{err}"
    );

    // The same for a ladder: nothing runs.
    let s = TestSchema::new("mon_keys");
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-history",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sb.args(&empty));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = s.dbdyno(&refs);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains(&fp), "{}", stderr(&o));
    assert!(
        !stdout(&o).contains("=== [1/"),
        "no step ran: {}",
        stdout(&o)
    );

    // Changed key: refused even with --accept-new-host-key.
    let changed = dir.path().join("changed_known_hosts");
    let key = dir.path().join("otherkey");
    assert!(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&key)
        .status()
        .unwrap()
        .success());
    let other = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let other: Vec<&str> = other.split_whitespace().take(2).collect();
    std::fs::write(
        &changed,
        format!("[{}]:{} {}\n", sb.host, sb.port, other.join(" ")),
    )
    .unwrap();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&changed))
        .args(["--duration=1", "--accept-new-host-key"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("REFUSED: the host key of") && stderr(&o).contains("has CHANGED"),
        "{}",
        stderr(&o)
    );

    // Wrong key, and (where the sandbox has a password user) a wrong password.
    let trusted = sb.trusted_known_hosts(dir.path());
    let mut wrong_key = sb.args(&trusted);
    wrong_key.retain(|a| !a.starts_with("--ssh-key="));
    wrong_key.push(format!("--ssh-key={}", key.display()));
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(&wrong_key)
        .arg("--duration=1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("authentication failed") && stderr(&o).contains("refused the key"),
        "{}",
        stderr(&o)
    );
    if let Ok(pw_user) = std::env::var("DBDYNO_TEST_SSH_PW_USER") {
        let mut pw = sb.args(&trusted);
        pw.retain(|a| !a.starts_with("--ssh-key=") && !a.starts_with("--ssh-user="));
        pw.extend([
            format!("--ssh-user={pw_user}"),
            "--ssh-password=not-the-password".into(),
        ]);
        let o = dbdyno_cmd()
            .arg("monitor")
            .args(&pw)
            .arg("--duration=1")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("wrong user name or password"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn ladder_outlives_a_dead_sshd_records_the_gap_and_resumes() {
    let _g = shared_server();
    let _ssh = sshd::exclusive();
    let sb = Sshd::from_env();
    let _restart = Restart(&sb);
    let s = TestSchema::new("mon_gap");
    ok(&s.dbdyno(&[
        "oltp_read_only",
        "--tables=1",
        "--table-size=2000",
        "prepare",
    ]));
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let file = dir.path().join("ladder.json");
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_read_only",
        "--ladder=1,2,1,2",
        "--time=5",
        "--tables=1",
        "--table-size=2000",
        "--no-history",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sb.args(&kh));
    args.extend(s.mysql_args());
    args.push(format!("--json={}", file.display()));
    let mut child = dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", &s.sandbox.password)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Two seconds into the first step, sshd goes away with every session it served.
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let Ok(l) = rx.recv_timeout(Duration::from_secs(1)) else {
            continue;
        };
        let go = l.starts_with("[ 2s ]");
        lines.push(l);
        if go {
            break;
        }
    }
    let down_at = Instant::now();
    sb.control(&["stop"]);
    std::thread::sleep(Duration::from_secs(5));
    sb.control(&["start"]);
    let down_for = down_at.elapsed();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    let text = lines.join("\n");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        status.success(),
        "the benchmark went on without SSH:\n{text}\n{err}"
    );

    let doc = json_file(&file);
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "every step ran:\n{text}");
    assert!(steps
        .iter()
        .all(|s| s["transactions"].as_u64().unwrap() > 0));
    let m = &doc["monitoring"];
    let gaps: Vec<&Value> = m["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["source"] == "os")
        .collect();
    assert_eq!(gaps.len(), 1, "one OS gap: {:?}", m["gaps"]);
    let gap_s =
        (gaps[0]["to_ms"].as_i64().unwrap() - gaps[0]["from_ms"].as_i64().unwrap()) as f64 / 1000.0;
    println!(
        "sshd down for {down_for:?}; gap recorded: {gap_s:.1} s ({})",
        gaps[0]["reason"]
    );
    assert!(gap_s >= 4.0, "the gap covers sshd's downtime: {gap_s}");
    let figures = m["steps"].as_array().unwrap();
    assert!(
        figures[0]["flags"][0]
            .as_str()
            .unwrap()
            .contains("without samples"),
        "{:?}",
        figures[0]["flags"]
    );
    // Sampling resumed: the last step is covered again, and MySQL-side sampling never stopped.
    let last = &figures[3];
    assert!(last["os"]["covered_s"].as_f64().unwrap() >= 4.5, "{last}");
    assert!(last["flags"].as_array().unwrap().is_empty(), "{last}");
    for f in figures {
        assert!(f["mysql"]["covered_s"].as_f64().unwrap() >= 4.5, "{f}");
    }
    assert!(text.contains("WARNING: server monitor lost ssh"), "{text}");
    assert!(text.contains("sampling resumes"), "{text}");
    assert!(text.contains("SAMPLE COUNT: server OS:"), "{text}");
    assert!(
        text.contains("Sample count: ") && text.contains("step(s) flagged"),
        "{text}"
    );
}

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
    assert!(
        err.contains("  server: cpu ") && err.contains("of 3.0 s)"),
        "{err}"
    );
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

/// CPU seconds (user + system) one thread of the sandbox's mariadbd has used.
fn server_thread_cpu_s(tid: u64) -> f64 {
    let dir = std::env::var("DBDYNO_SANDBOX_DIR").expect("DBDYNO_SANDBOX_DIR (sandbox.sh env)");
    let pid = std::fs::read_to_string(format!("{dir}/mysqld.pid")).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/task/{tid}/stat", pid.trim())).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
}

fn sampler_config(s: &Sandbox) -> MysqlSamplerConfig {
    MysqlSamplerConfig::new(dbdyno_engine::ConnectOptions {
        host: s.host.clone(),
        port: s.port,
        user: s.user.clone(),
        password: Some(s.password.clone()),
        ..Default::default()
    })
}

#[test]
fn mysql_sampler_gives_a_sample_per_second_and_survives_a_restart() {
    let _g = exclusive_server();
    let sampler = MysqlSampler::start(sampler_config(&Sandbox::from_env())).unwrap();
    let clock = sampler.clock().expect("clock offset measured at connect");
    assert!(
        clock.offset_ms.abs() < 1000.0 && clock.rtt_ms < 100.0,
        "{clock:?}"
    );
    let mut samples = Vec::new();
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(5_300) {
        if let Ok(MysqlEvent::Sample(s)) = sampler.events().recv_timeout(Duration::from_millis(200))
        {
            samples.push(s);
        }
    }
    assert_eq!(samples.len(), 5, "5.3 s of sampling: {samples:?}");
    assert!(
        samples.iter().all(|s| (0.9..=1.1).contains(&s.interval_s)),
        "{samples:?}"
    );

    let r = Command::new("bash")
        .arg(sandbox_script())
        .arg("restart")
        .output()
        .unwrap();
    assert!(r.status.success(), "sandbox restart failed: {}", stderr(&r));
    let (mut lost, mut gap, mut after) = (false, None, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    while after < 2 && Instant::now() < deadline {
        match sampler.events().recv_timeout(Duration::from_secs(1)) {
            Ok(MysqlEvent::Disconnected { .. } | MysqlEvent::Restarted { .. }) => lost = true,
            Ok(MysqlEvent::Gap {
                from_ms,
                to_ms,
                reason,
            }) => gap = Some((to_ms - from_ms, reason)),
            Ok(MysqlEvent::Sample(_)) if gap.is_some() => after += 1,
            _ => {}
        }
    }
    let (gap_ms, reason) = gap.expect("the restart left a gap");
    println!("MySQL restart: {gap_ms} ms without samples ({reason})");
    assert!(lost, "the sampler noticed");
    assert!(gap_ms >= 1000, "{gap_ms}");
    assert_eq!(after, 2, "sampling resumed");
    sampler.stop();
}

#[test]
fn mysql_sampler_costs_the_server_little() {
    // Alone on the server: SHOW GLOBAL STATUS sums every connection's counters, so its
    // cost grows with the connections open. Measured in CI beside the other tests'
    // connections it reached 1.7% of a core (0.17 s in 10 s); alone, well under 1%.
    let _g = exclusive_server();
    // The server thread that serves the sampler's connection (MariaDB shows its OS thread
    // id in PROCESSLIST.TID): its CPU time is the sampler's cost, whatever else runs.
    let sampler = MysqlSampler::start(sampler_config(&Sandbox::from_env())).unwrap();
    let tid: u64 = Sandbox::from_env()
        .admin()
        .query_first(format!(
            "SELECT TID FROM information_schema.PROCESSLIST WHERE ID = {}",
            sampler.connection_id()
        ))
        .unwrap()
        .expect("the sampler's connection is in the processlist");
    const SECS: u64 = 10;
    let before = server_thread_cpu_s(tid);
    let mut polls = 0;
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(SECS) {
        if let Ok(MysqlEvent::Sample(_)) = sampler.events().recv_timeout(Duration::from_millis(200))
        {
            polls += 1;
        }
    }
    let used = server_thread_cpu_s(tid) - before;
    sampler.stop();
    let pct = used / SECS as f64 * 100.0;
    println!("the sampler's server thread used {used:.2} s of CPU in {SECS} s ({polls} polls): {pct:.2}% of one core");
    assert!(polls >= SECS - 2, "{polls} polls");
    assert!(
        pct < 1.0,
        "one SHOW GLOBAL STATUS per second costs the server well under 1% of a core"
    );
}

/// The whole disks of this machine, which also runs the sandbox sshd.
fn local_disks() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/sys/block")
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| !n.starts_with("loop") && !n.starts_with("ram"))
        .collect();
    v.sort();
    v
}

fn ladder_args(sb: &Sshd, kh: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-history",
        "--prepare",
        "--tables=1",
        "--table-size=100",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sb.args(kh));
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

#[test]
fn device_names_are_checked_against_the_servers_block_devices() {
    let _g = shared_server();
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let disk = local_disks()
        .into_iter()
        .next()
        .expect("this machine has a block device");

    // An unknown name: an error naming the host and the devices it has, nothing shown.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args(["--device=sdz9", "--duration=1"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "sdz9 is not a block device on {}:{} (block devices: ",
            sb.host, sb.port
        )) && err.contains(&disk),
        "{err}"
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));

    // /dev/NAME is the kernel name NAME, and its columns are filled in.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args([format!("--device=/dev/{disk}"), "--duration=2".into()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("disk: {disk} (--device)")),
        "{}",
        stderr(&o)
    );
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert!(!rows.is_empty(), "{out}");
    for r in rows {
        // Time, 6 CPU columns and the disk's columns.
        assert!(
            r.split_whitespace().count() >= 12,
            "disk columns missing: {r}\n{out}"
        );
    }

    // `check` fails host.data_disk, and a ladder stops before its first step.
    let s = TestSchema::new("mon_dev");
    let mut args: Vec<String> = vec![
        "check".into(),
        "--scenarios=oltp_point_select".into(),
        "--ladder=1".into(),
        "--prepare".into(),
        "--device=sdz9".into(),
    ];
    args.extend(sb.args(&kh));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = s.dbdyno(&refs);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let line = stdout(&o)
        .lines()
        .find(|l| l.contains("[host.data_disk]"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(line.starts_with("FAIL"), "{}", stdout(&o));
    for extra in [
        &["--device=sdz9"][..],
        &["--device=sdz9", "--skip-checks"][..],
    ] {
        let args = ladder_args(&sb, &kh, extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = s.dbdyno(&refs);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("sdz9 is not a block device"),
            "{extra:?}: {}",
            stderr(&o)
        );
        assert!(
            !stdout(&o).contains("=== [1/"),
            "no step ran: {}",
            stdout(&o)
        );
    }
}

#[test]
fn login_options_on_the_command_line_win_and_conflicting_ones_are_refused() {
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    // A stale exported password does not beat an explicit key.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .arg("--duration=1")
        .env("DBDYNO_SSH_PASSWORD", "stale")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // Two ways of logging in on one command line: clap refuses the pair.
    for other in ["--ssh-password=x", "--ssh-agent"] {
        let o = dbdyno_cmd()
            .arg("monitor")
            .args(sb.args(&kh))
            .args([other, "--duration=1"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{other}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot be used with"),
            "{other}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_pinned_host_key_is_compared_even_when_known_hosts_trusts_the_server() {
    let _g = shared_server();
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let fp = sb.fingerprint(dir.path());
    let s = TestSchema::new("mon_pin");
    let wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let args = ladder_args(&sb, &kh, &[&format!("--ssh-host-key-fingerprint={wrong}")]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = s.dbdyno(&refs);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("REFUSED") && err.contains(&fp) && err.contains(wrong),
        "{err}"
    );
    assert!(
        !stdout(&o).contains("=== [1/"),
        "no step ran: {}",
        stdout(&o)
    );
    let args = ladder_args(&sb, &kh, &[&format!("--ssh-host-key-fingerprint={fp}")]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&s.dbdyno(&refs));
}

/// First contact with a pinned target: a key that matches the pin is stored without a
/// question; one that does not is refused and nothing is stored.
#[test]
fn a_pinned_fingerprint_stores_a_matching_key_on_first_contact_and_refuses_another() {
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    std::fs::write(&kh, "").unwrap();
    let fp = sb.fingerprint(dir.path());
    let monitor = |pin: &str| {
        let mut args = vec!["monitor".to_string(), "--duration=1".into()];
        args.extend(sb.args(&kh));
        args.push(format!("--ssh-host-key-fingerprint={pin}"));
        dbdyno_cmd().args(&args).output().unwrap()
    };
    let wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let o = monitor(wrong);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("REFUSED"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&kh).unwrap(), "", "nothing stored");

    let o = monitor(&fp);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the profile's fingerprint"),
        "{}",
        stderr(&o)
    );
    let stored = std::fs::read_to_string(&kh).unwrap();
    assert!(
        stored.contains(sb.host_pubkey.split_whitespace().nth(1).unwrap()),
        "{stored}"
    );
}

#[test]
fn accept_new_host_key_refuses_a_key_of_another_type_than_the_known_ones() {
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    // known_hosts lists an RSA key for the host; the server presents its ed25519 key.
    let key = dir.path().join("rsakey");
    assert!(Command::new("ssh-keygen")
        .args(["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f"])
        .arg(&key)
        .status()
        .unwrap()
        .success());
    let rsa = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let rsa: Vec<&str> = rsa.split_whitespace().take(2).collect();
    let kh = dir.path().join("known_hosts");
    let before = format!("[{}]:{} {}\n", sb.host, sb.port, rsa.join(" "));
    std::fs::write(&kh, &before).unwrap();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args(["--duration=1", "--accept-new-host-key"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("REFUSED: --accept-new-host-key does not store")
            && err.contains("already lists keys of type ssh-rsa"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&kh).unwrap(),
        before,
        "nothing was added"
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

#[test]
fn monitor_says_when_the_datadir_has_no_disk_and_keeps_its_columns() {
    for (datadir, why) in [
        (
            "/dev/shm",
            "no block device: /dev/shm is on /dev/shm (tmpfs)",
        ),
        (
            "/no/such/dir",
            "no block device: /no/such/dir does not exist",
        ),
    ] {
        let o = dbdyno_cmd()
            .args(["monitor", &format!("--datadir={datadir}"), "--duration=2"])
            .output()
            .unwrap();
        let (out, err) = (ok(&o), stderr(&o));
        assert!(err.contains(why), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].contains("no disk") && lines[1].contains("aqu-sz"),
            "{out}"
        );
        for disk in local_disks() {
            assert!(!lines[0].contains(&disk), "no fallback to /'s disk: {out}");
        }
        for l in &lines[2..] {
            assert_eq!(l.len(), lines[1].len(), "aligned: {out}");
            assert!(l.ends_with(" -"), "{out}");
        }
    }
    // `--datadir=/` asks for the root filesystem's disk, with its aqu-sz column.
    let o = dbdyno_cmd()
        .args(["monitor", "--datadir=/", "--duration=2"])
        .output()
        .unwrap();
    let out = ok(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(!lines[0].contains("no disk"), "{out}");
    for l in &lines[2..] {
        assert_eq!(l.split_whitespace().count(), 1 + 6 + 7, "{l}");
    }
}

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    // `dbdyno monitor | head -1`: the reader goes away while lines are still coming.
    let mut child = dbdyno_cmd()
        .args(["monitor", "--datadir=/", "--duration=4"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("Time (UTC)"), "{first}");
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(o.status.code(), Some(101), "{err}");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        o.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?}",
        o.status
    );
}

#[test]
fn monitor_and_check_take_no_monitoring_switches() {
    for (cmd, flag) in [
        ("monitor", "--monitor"),
        ("monitor", "--no-monitor"),
        ("check", "--monitor"),
    ] {
        let o = dbdyno_cmd().args([cmd, flag]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd} {flag}");
        assert!(
            stderr(&o).contains(&format!("unexpected argument '{flag}'")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_refused_ssh_connection_names_its_cause_once() {
    let o = dbdyno_cmd()
        .args([
            "monitor",
            "--ssh-host=127.0.0.1",
            "--ssh-port=1",
            "--ssh-key=/dev/null",
            "--duration=1",
        ])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("Connection refused").count(), 1, "{err}");
}

#[test]
fn keys_trusted_in_the_users_known_hosts_are_trusted_and_never_written() {
    let _ssh = sshd::shared();
    let sb = Sshd::from_env();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    let user_file = home.path().join(".ssh/known_hosts");
    let line = format!("[{}]:{} {}\n", sb.host, sb.port, sb.host_pubkey);
    std::fs::write(&user_file, &line).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut args = sb.args(std::path::Path::new("unused"));
    args.retain(|a| !a.starts_with("--known-hosts="));
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(&args)
        .arg("--duration=1")
        .env("HOME", home.path())
        .env("DBDYNO_DATA_DIR", data.path())
        .env_remove("DBDYNO_KNOWN_HOSTS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&user_file).unwrap(), line);
    // Without that line the key is unknown again: the user's file was what trusted it.
    std::fs::write(&user_file, "").unwrap();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(&args)
        .arg("--duration=1")
        .env("HOME", home.path())
        .env("DBDYNO_DATA_DIR", data.path())
        .env_remove("DBDYNO_KNOWN_HOSTS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not known"), "{}", stderr(&o));
}

#[test]
fn monitor_logs_in_once() {
    let _ssh = sshd::exclusive();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let log = sb.script.parent().unwrap().join("../.work/sshd/sshd.log");
    let logins = || {
        std::fs::read_to_string(&log)
            .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
            .matches("Accepted publickey")
            .count()
    };
    let before = logins();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .arg("--duration=1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // The host key check, the disk and the sampler share one session.
    assert_eq!(logins() - before, 1);

    // A ladder: the host key check's session carries the sampler; the facts for the
    // checks and the snapshot take one more.
    let _g = shared_server();
    let s = TestSchema::new("mon_logins");
    let args = ladder_args(&sb, &kh, &[]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let before = logins();
    let out = ok(&s.dbdyno(&refs));
    assert!(out.contains("Machine: "), "{out}");
    assert_eq!(logins() - before, 2, "{out}");
}
