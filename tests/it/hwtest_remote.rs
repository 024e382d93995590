//! `dbdyno hwtest` against the sandbox sshd and MariaDB: the host's hardware measured
//! by DB Dyno copied there, and no file left behind whatever ends it (success, Ctrl-C,
//! a connection that drops); no room is refused before anything is written; a run on
//! the host never overlaps a benchmark of it.
//!
//! Every test keeps its history (and so its host lock) in a directory of its own, so
//! the ladders other tests run meanwhile against the same sandbox do not refuse it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use dbdyno_history::host_lock::{lock_host, HostLockError, HostUse};
use dbdyno_remote::RemoteHost;
use dbdyno_ssh::{KnownHostsConfig, SshAuth, SshTarget};
use dbdyno_tests::*;
use serde_json::Value;

use crate::sshd::{self, Sshd};

/// One test's directories: the history (with the lock) and the one the files go in.
struct Setup {
    sshd: Sshd,
    home: tempfile::TempDir,
    /// The confirmed directory on the host (tmpfs: fast, and the same disk for the
    /// local run that the remote one is compared with).
    dir: tempfile::TempDir,
    schema: TestSchema,
}

impl Setup {
    fn new(tag: &str) -> Setup {
        Setup {
            sshd: Sshd::from_env(),
            home: tempfile::tempdir().unwrap(),
            dir: tempfile::Builder::new()
                .prefix("dbdyno-hw-")
                .tempdir_in("/dev/shm")
                .unwrap(),
            schema: TestSchema::new(tag),
        }
    }

    fn dir(&self) -> String {
        self.dir.path().display().to_string()
    }

    fn data_dir(&self) -> String {
        format!("--data-dir={}", self.home.path().display())
    }

    /// `dbdyno hwtest` with short, small tests and `extra` last (the last value wins).
    fn command(&self, extra: &[&str]) -> Command {
        let mut c = dbdyno_cmd();
        c.arg("hwtest")
            .args(self.schema.mysql_args())
            .args(
                self.sshd
                    .args(&self.sshd.trusted_known_hosts(self.home.path())),
            )
            .arg(self.data_dir())
            .arg(format!("--dir={}", self.dir()))
            .args([
                "--file-total-size=32M",
                "--file-extra-flags=none",
                "--threads=1",
                "--fileio-time=1",
                "--cpu-time=1",
                "--memory-time=1",
            ])
            .args(extra)
            .env("MYSQL_PWD", &self.schema.sandbox.password);
        c
    }

    fn run(&self, extra: &[&str]) -> Output {
        self.command(extra).output().expect("run dbdyno hwtest")
    }

    /// Started in the background, stderr read until `line` shows (the progress).
    fn spawn_until(&self, extra: &[&str], line: &str) -> (Child, Vec<String>) {
        let mut child = self
            .command(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start dbdyno hwtest");
        let mut seen = Vec::new();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        for l in lines.by_ref() {
            let l = l.unwrap();
            seen.push(l.clone());
            if l.contains(line) {
                // The rest of stderr is drained meanwhile, so the child never blocks on it.
                std::thread::spawn(move || lines.for_each(drop));
                return (child, seen);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("no {line:?} on stderr:\n{}", seen.join("\n"));
    }

    /// The directory's entries, listed over SSH.
    fn remote_listing(&self) -> Vec<String> {
        let known = self.sshd.trusted_known_hosts(self.home.path());
        let target = SshTarget::new(
            &self.sshd.host,
            self.sshd.port,
            &self.sshd.user,
            SshAuth::Key {
                path: self.sshd.key.clone(),
                passphrase: None,
            },
            KnownHostsConfig::new(known),
        );
        let host = RemoteHost::connect(&target).expect("connect to the sandbox sshd");
        let out = host.run(&format!("ls -A '{}'", self.dir())).unwrap();
        assert_eq!(out.status, 0, "{}", out.stderr);
        out.stdout.lines().map(str::to_string).collect()
    }

    /// Waits up to `limit` for the directory to be empty; its last listing.
    fn wait_empty(&self, limit: Duration) -> Vec<String> {
        let start = Instant::now();
        loop {
            let listing = self.remote_listing();
            if listing.is_empty() || start.elapsed() > limit {
                return listing;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn wait_exit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("dbdyno hwtest still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn results(out: &Output) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(out), stderr(out)));
    doc["results"].as_array().unwrap().clone()
}

#[test]
fn a_measurement_reports_every_test_and_leaves_no_file() {
    let _g = sshd::shared();
    let _server = shared_server_long();
    let s = Setup::new("hw_ok");
    let out = s.run(&["--json"]);
    let r = results(&out);
    let kinds: Vec<&str> = r
        .iter()
        .map(|t| t["test"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["file_io", "file_io", "cpu", "memory"],
        "{}",
        stderr(&out)
    );
    assert!(r[0]["test"]["reads_per_s"].as_f64().unwrap() > 0.0);
    assert!(r[0]["test"]["writes_per_s"].as_f64().unwrap() > 0.0);
    assert!(r[1]["test"]["read_mib_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(r[0]["options"]["file-test-mode"], "rndrw");
    assert!(
        r[0]["options"].get("file-dir").is_none(),
        "the temporary directory is not recorded"
    );
    assert_eq!(s.remote_listing(), Vec::<String>::new(), "left behind");
    // Filed as the environment's hardware record.
    let listed = ok(&dbdyno_cmd()
        .args(["runs", "hardware", "--json", &s.data_dir()])
        .output()
        .unwrap());
    let records: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(records[0]["source"], "measured");
    assert_eq!(records[0]["host"], s.sshd.host.as_str());
    assert_eq!(records[0]["results"].as_array().unwrap().len(), 4);
    assert!(records[0]["headline"]["rnd_read_iops"].as_f64().unwrap() > 0.0);
    // A run of the same environment: its report shows the record.
    ok(&s.schema.dbdyno(&[
        "ladder",
        &s.data_dir(),
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--tables=1",
        "--table-size=100",
        "--prepare",
        "--cleanup",
    ]));
    let runs: Value = serde_json::from_str(&ok(&dbdyno_cmd()
        .args(["runs", "list", "--json", &s.data_dir()])
        .output()
        .unwrap()))
    .unwrap();
    let run_id = runs[0]["id"].as_i64().unwrap();
    let md = s.home.path().join("report.md");
    ok(&dbdyno_cmd()
        .args([
            "report".to_string(),
            s.data_dir(),
            format!("--runs={run_id}"),
            format!("--md={}", md.display()),
        ])
        .output()
        .unwrap());
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("## Server hardware"), "{md}");
    assert!(md.contains("| Random read IOPS |"), "{md}");
}

#[test]
fn ctrl_c_removes_the_files_and_a_ladder_is_refused_meanwhile() {
    let _g = sshd::shared();
    let _server = shared_server();
    let s = Setup::new("hw_cancel");
    let (mut child, seen) = s.spawn_until(&["--fileio-time=60"], "[ 1s ] fileio");
    let working = seen
        .iter()
        .find_map(|l| l.strip_prefix("Working in "))
        .unwrap()
        .to_string();
    assert!(
        s.remote_listing()
            .iter()
            .any(|f| working.ends_with(f.as_str())),
        "the files are there while it runs"
    );
    // Meanwhile a benchmark of the host is refused before it loads the server, even
    // with the checks skipped (they only read it; the lock is what refuses).
    let ladder = s.schema.dbdyno(&[
        "ladder",
        &s.data_dir(),
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--skip-checks",
    ]);
    assert!(!ladder.status.success());
    assert!(
        stderr(&ladder).contains("a hardware test is running on 127.0.0.1")
            && stderr(&ladder).contains("Run again when the hardware test has ended")
            && !stderr(&ladder).contains("add --skip-checks"),
        "{}",
        stderr(&ladder)
    );
    signal(&child, "-INT");
    let status = wait_exit(&mut child, Duration::from_secs(30));
    assert_eq!(status.code(), Some(130));
    assert_eq!(
        s.remote_listing(),
        Vec::<String>::new(),
        "left behind after Ctrl-C"
    );
}

#[test]
fn a_dropped_connection_makes_the_host_remove_the_files() {
    let _g = sshd::shared();
    let _server = shared_server();
    let s = Setup::new("hw_drop");
    let (mut child, _) = s.spawn_until(&["--fileio-time=60"], "[ 1s ] fileio");
    assert!(!s.remote_listing().is_empty());
    // SIGKILL: no cleanup on this side; the kernel closes the SSH connection, and the
    // agent on the host sees its input end.
    signal(&child, "-KILL");
    wait_exit(&mut child, Duration::from_secs(10));
    assert_eq!(
        s.wait_empty(Duration::from_secs(20)),
        Vec::<String>::new(),
        "left behind after the connection dropped"
    );
}

#[test]
fn no_room_is_refused_before_anything_is_written() {
    let _g = sshd::shared();
    let _server = shared_server();
    let s = Setup::new("hw_room");
    let out = s.run(&["--file-total-size=1000T"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("not enough room in {}", s.dir())),
        "{err}"
    );
    assert!(
        !err.contains("Working in") && !err.contains("DB Dyno copied"),
        "{err}"
    );
    assert_eq!(s.remote_listing(), Vec::<String>::new());
}

#[test]
fn a_benchmark_of_the_host_refuses_the_test() {
    let _g = sshd::shared();
    let _server = shared_server();
    let s = Setup::new("hw_lock");
    // Another process's run holds the host (as `dbdyno ladder` does for its length).
    let held = lock_host(s.home.path(), &["127.0.0.1"], HostUse::Benchmark).unwrap();
    let out = s.run(&[]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("a benchmark is running against 127.0.0.1"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("Working in"), "{}", stderr(&out));
    drop(held);
    // And the test's own lock is exclusive while it runs, released when it ends.
    ok(&s.run(&[]));
    let again = lock_host(s.home.path(), &["127.0.0.1"], HostUse::HardwareTest);
    assert!(!matches!(
        again,
        Err(HostLockError::BenchmarkRunning { .. })
    ));
}

/// cpu events/s and prime limit of a local `dbdyno cpu run`, read from its sysbench text.
///
/// Run in a session of its own (`setsid`), as the agent sshd starts is: with the kernel's
/// autogroup scheduling (on by default), each session shares the CPU fairly with the
/// others as one group. Started from this test's session, the local run shared one
/// group with everything else this session runs and, beside a load generator, did a
/// third of the remote run's events per second (88.8 and 144.2 against 327.5): a
/// difference of scheduling, not of the two tests.
fn local_cpu() -> (f64, Option<u64>) {
    let plain = dbdyno_cmd();
    let mut cmd = Command::new("setsid");
    cmd.arg("--wait").arg(plain.get_program());
    for (key, value) in plain.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    let out = cmd
        .args(["cpu", "--threads=1", "--time=2", "run"])
        .output()
        .unwrap();
    let result = dbdyno_hwtest::parse_sysbench_hwtest(&ok(&out)).expect("sysbench's cpu report");
    match result.test {
        dbdyno_hwtest::TestFigures::Cpu(c) => (c.events_per_s, c.max_prime),
        other => panic!("not a cpu result: {other:?}"),
    }
}

/// The cpu test through the host is the same test as here: the same prime limit, and a
/// speed of the same order, the remote run taken between two local ones so that both see
/// the same load, each in a session of its own ([`local_cpu`]). What the product promises
/// is the same test, not a quiet machine: the bound is wide enough for a shared, busy
/// machine (both cores kept busy by a load generator) and narrow enough for another test: the
/// next prime limit sysbench users pick, 10,000 against the default 20,000, runs about
/// 2.8 times as many events per second.
#[test]
fn remote_and_local_figures_agree() {
    // CPU rates here and there: a test beside one run and not the other would be a
    // difference between them. Alone, it needs no sshd lock: the test that stops sshd
    // cannot run meanwhile.
    let _server = exclusive_server();
    let s = Setup::new("hw_agree");
    let (before, local_prime) = local_cpu();
    let out = s.run(&["--json", "--cpu-time=2"]);
    let (after, _) = local_cpu();
    let remote = &results(&out)[2]["test"];
    let remote_rate = remote["events_per_s"].as_f64().unwrap();
    let ratio = remote_rate / ((before + after) / 2.0);
    let seen = format!(
        "remote {remote_rate:.1} events/s, local {before:.1} then {after:.1}: ratio {ratio:.3}"
    );
    eprintln!("{seen}");
    assert_eq!(
        remote["max_prime"].as_u64(),
        local_prime,
        "the same prime limit: {remote}"
    );
    assert!((0.6..=1.67).contains(&ratio), "{seen}");
}

fn seed_log(name: &str) -> String {
    format!(
        "{}/../crates/hwtest/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// sysbench logs of the seeds filed as hardware records: the figures they print, exactly.
#[test]
fn import_of_the_seed_logs_gives_their_printed_figures() {
    let _g = shared_server();
    let home = tempfile::tempdir().unwrap();
    let data_dir = format!("--data-dir={}", home.path().display());
    let import = |env: &str, files: &[&str]| {
        let mut c = dbdyno_cmd();
        c.args(["import", "hardware", &format!("--env={env}"), &data_dir]);
        c.args(files.iter().map(|f| seed_log(f)));
        ok(&c.output().unwrap())
    };
    let out = import("seed002", &["seed_002_fileio_rndrw_one_line.txt"]);
    for figure in ["16121.01", "10747.29", "34390.58"] {
        assert!(out.contains(figure), "{figure} missing:\n{out}");
    }
    let out = import(
        "seed004",
        &["seed_004_fileio_rndrw.txt", "seed_004_cpu_commented.txt"],
    );
    for figure in ["3372.32", "2248.21", "7195.38", "342.47"] {
        assert!(out.contains(figure), "{figure} missing:\n{out}");
    }
    let listed = ok(&dbdyno_cmd()
        .args(["runs", "hardware", &data_dir])
        .output()
        .unwrap());
    assert!(
        listed.contains("seed002") && listed.contains("seed004"),
        "{listed}"
    );
    let doc: Value = serde_json::from_str(&ok(&dbdyno_cmd()
        .args(["runs", "hardware", "--env=seed004", "--json", &data_dir])
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(doc[0]["headline"]["rnd_write_iops"], 2248.21);
    assert_eq!(doc[0]["headline"]["cpu_events_per_s"], 342.47);
    assert_eq!(doc[0]["source"], "imported");
}
