//! The run history: a ladder records every step, `runs` reads it back, a kill -9 keeps
//! finished steps, concurrent writers lose nothing, and no secret reaches any file.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use dbdyno_history::{BlockingHistory, NewRun, RunState};
use dbdyno_tests::*;
use serde_json::Value;

fn dd(dir: &Path) -> String {
    format!("--data-dir={}", dir.display())
}

fn json_of(o: &std::process::Output) -> Value {
    let text = ok(o);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn runs(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["runs"];
    all.extend_from_slice(args);
    let d = dd(dir);
    all.push(&d);
    json_of(&dbdyno_cmd().args(&all).output().unwrap())
}

fn run_id(stdout: &str) -> i64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Run id: "))
        .unwrap_or_else(|| panic!("no run id: {stdout}"));
    line["Run id: ".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn ladder_records_every_step_and_runs_commands_read_it_back() {
    let _g = shared_server();
    let s = TestSchema::new("history");
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("out.json");
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select,oltp_read_only",
        "--ladder=1,2",
        "--time=2",
        "--tables=1",
        "--table-size=1000",
        "--prepare",
        "--cleanup",
        "--env=it-history",
        &format!("--json={}", json.display()),
        &dd(data.path()),
    ]));
    let id = run_id(&out);
    assert!(
        out.contains(&format!("Run id: {id}: 4 step(s) recorded, state complete")),
        "{out}"
    );

    let list = runs(data.path(), &["list", "--json"]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    let r = &list[0];
    assert_eq!(
        (
            r["id"].as_i64(),
            r["env"].as_str(),
            r["state"].as_str(),
            r["steps"].as_u64()
        ),
        (Some(id), Some("it-history"), Some("complete"), Some(4))
    );
    assert!(r["started_at"].as_str().unwrap().ends_with('Z'));
    // The text list names the subcommand; the full (redacted) command line is in --json
    // and `runs show`.
    assert!(
        r["command"]
            .as_str()
            .unwrap()
            .starts_with("dbdyno ladder --"),
        "{r}"
    );
    let text = dbdyno_cmd()
        .args(["runs", "list", &dd(data.path())])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let line = text.lines().find(|l| l.contains("it-history")).unwrap();
    assert!(line.contains(" ladder "), "{line}");
    assert!(!line.contains("--mysql-host"), "{line}");

    // Every figure of every step is what the run's own JSON output says.
    let shown = runs(data.path(), &["show", &id.to_string(), "--json"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let from_json = doc["outcome"]["steps"].as_array().unwrap();
    let stored: Vec<&Value> = shown["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["result"])
        .collect();
    assert_eq!(stored.len(), 4);
    for (a, b) in stored.iter().zip(from_json) {
        assert_eq!(
            *a, b,
            "stored step equals the --json step, intervals and histogram included"
        );
        assert_eq!(a["intervals"].as_array().unwrap().len(), 2);
        assert!(!a["histogram"].as_str().unwrap().is_empty());
    }
    assert_eq!(shown["plan"], doc["plan"], "the plan snapshot is stored");
    // --json carries the per-second samples in the monitoring object; the history keeps
    // them in their own tables and their count in the record.
    let without_samples = |m: &Value| {
        let mut m = m.clone();
        for k in ["mysql_samples", "os_samples", "server_samples"] {
            if let Some(o) = m.as_object_mut() {
                o.remove(k);
            }
        }
        m
    };
    assert_eq!(
        without_samples(&shown["monitoring"]),
        without_samples(&doc["monitoring"]),
        "what monitoring found is stored"
    );
    for (k, rows) in [
        ("mysql_samples", "mysql_samples"),
        ("os_samples", "server_samples"),
    ] {
        let n = shown["monitoring"][k].as_u64().unwrap_or(0) as usize;
        assert!(n > 0, "{k}");
        assert_eq!(
            shown[rows].as_array().map_or(0, Vec::len),
            n,
            "{k} rows stored"
        );
    }
    assert_eq!(shown["prepare"]["rows"], 1000);
    assert!(shown["environment"]["client"]["cores"].as_u64().unwrap() >= 1);

    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &dd(data.path())])
        .output()
        .unwrap());
    assert!(
        text.contains("=== step 4: oltp_read_only @ 2 threads ==="),
        "{text}"
    );
    assert!(
        text.contains("Latency (ms):") && text.contains("Threads fairness:"),
        "{text}"
    );
    // The stored server and MySQL figures of each step, as --json has them.
    assert_eq!(text.matches("Server during the step:").count(), 4, "{text}");
    let cpu = shown["monitoring"]["steps"][0]["os"]["cpu_util_avg"]
        .as_f64()
        .unwrap();
    assert!(text.contains(&format!("{cpu:.1}% avg")), "{text}");
    assert!(
        text.contains("questions/s") && text.contains(" of 2 expected"),
        "{text}"
    );

    let export = data.path().join("export.json");
    ok(&dbdyno_cmd()
        .args([
            "runs",
            "export",
            &id.to_string(),
            "--json",
            "-o",
            export.to_str().unwrap(),
            &dd(data.path()),
        ])
        .output()
        .unwrap());
    let exported: Value = serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    assert_eq!(exported["schema_version"], 1);
    assert_eq!(exported["run"], shown);

    ok(&dbdyno_cmd()
        .args(["runs", "delete", &id.to_string(), &dd(data.path())])
        .output()
        .unwrap());
    assert_eq!(runs(data.path(), &["list", "--json"]), Value::Array(vec![]));
    let o = dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &dd(data.path())])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("no run with id {id}")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn no_history_records_nothing() {
    let _g = shared_server();
    let s = TestSchema::new("nohistory");
    let data = tempfile::tempdir().unwrap();
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "prepare",
    ]));
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-history",
        &dd(data.path()),
    ]));
    assert!(!out.contains("Run id"), "{out}");
    assert!(!data.path().join(dbdyno_history::DB_FILE_NAME).exists());
    // The sysbench form records `run` too, with the run id on stderr only.
    let o = s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "--time=1",
        &dd(data.path()),
        "run",
    ]);
    assert!(!stdout(&o).contains("Run id"), "stdout stays sysbench's");
    assert!(stderr(&o).contains("Run id: "), "{}", stderr(&o));
    // The command line as typed (secrets redacted).
    let command = runs(data.path(), &["list", "--json"])[0]["command"].clone();
    let command = command.as_str().unwrap();
    assert!(
        command.starts_with("dbdyno oltp_point_select ") && command.contains(" run"),
        "{command}"
    );
}

#[test]
fn kill_9_during_a_ladder_keeps_finished_steps_and_marks_the_run_interrupted() {
    let _g = shared_server();
    let s = TestSchema::new("kill9");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let data = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1,2,1,2,1,2,1,2",
        "--time=1",
        "--tables=1",
        "--table-size=1000",
        "--env=kill9",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(s.mysql_args());
    args.push(dd(data.path()));
    let mut child = dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", &s.sandbox.password)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until at least two steps are committed, then kill -9 in the middle of a step.
    let t0 = Instant::now();
    let kept_before_kill = loop {
        std::thread::sleep(Duration::from_millis(200));
        if data.path().join(dbdyno_history::DB_FILE_NAME).exists() {
            let h = BlockingHistory::open(data.path()).unwrap();
            let list = h.list_runs(None).unwrap();
            if let Some(r) = list.first() {
                assert_eq!(
                    r.state,
                    RunState::Running,
                    "the live writer is not mistaken for a dead one"
                );
                if r.steps >= 2 {
                    break r.steps;
                }
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no step recorded in 60 s"
        );
    };
    std::thread::sleep(Duration::from_millis(400));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let list = runs(data.path(), &["list", "--json"]);
    let r = &list[0];
    assert_eq!(r["state"], "interrupted", "{r}");
    let kept = r["steps"].as_u64().unwrap();
    assert!(
        kept >= kept_before_kill as u64 && kept < 8,
        "kept {kept} of 8 steps"
    );
    let shown = runs(data.path(), &["show", &r["id"].to_string(), "--json"]);
    for (i, st) in shown["steps"].as_array().unwrap().iter().enumerate() {
        assert_eq!(st["index"], i, "steps kept in order, none half-written");
        assert_eq!(st["result"]["intervals"].as_array().unwrap().len(), 1);
        assert!(st["result"]["transactions"].as_u64().unwrap() > 0);
    }
    assert!(shown["failure"]
        .as_str()
        .unwrap()
        .contains("stopped before the run ended"));
    // The monitoring of the finished steps was stored as each step ended, not at the
    // end the run never reached: the record and the samples inside the kept steps.
    let id = r["id"].as_i64().unwrap();
    let stored = BlockingHistory::open(data.path())
        .unwrap()
        .load_run(id)
        .unwrap();
    let record = stored
        .monitoring
        .as_ref()
        .expect("the monitoring record of the finished steps");
    assert!(
        !record["steps"].as_array().unwrap().is_empty(),
        "per-step server figures: {record}"
    );
    for (what, samples) in [
        ("server", &stored.server_samples),
        ("MySQL", &stored.mysql_samples),
    ] {
        let in_kept_steps = samples
            .iter()
            .filter(|x| x.step_index.is_some_and(|i| (i as u64) < kept))
            .count();
        assert!(
            in_kept_steps >= 1,
            "{what} samples inside the kept steps: {} stored",
            samples.len()
        );
    }
    eprintln!(
        "kill -9: {kept} finished steps kept of 8 planned, with {} server and {} MySQL samples; run marked interrupted",
        stored.server_samples.len(),
        stored.mysql_samples.len()
    );
}

#[test]
fn concurrent_writers_lose_no_write() {
    let _g = shared_server();
    let s = TestSchema::new("concurrent");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let data = tempfile::tempdir().unwrap();
    let t0 = Instant::now();
    // Two CLI ladders (4 steps each) start together on a fresh history ...
    let ladder = |env: &str| {
        let mut args: Vec<String> = [
            "ladder",
            "--scenarios=oltp_point_select",
            "--ladder=1,1,1,1",
            "--time=1",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        args.push(format!("--env={env}"));
        args.extend(s.mysql_args());
        args.push(dd(data.path()));
        dbdyno_cmd()
            .args(&args)
            .env("MYSQL_PWD", &s.sandbox.password)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = ladder("writer-a");
    let b = ladder("writer-b");
    // ... while an imports process and this test write runs as fast as they can.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sysbench");
    let importer = std::thread::spawn({
        let d = dd(data.path());
        let f = fixtures.join("shell_loop_read_only_1_4.log");
        move || {
            for _ in 0..10 {
                ok(&dbdyno_cmd()
                    .args([
                        "import",
                        "sysbench",
                        f.to_str().unwrap(),
                        "--env=importer",
                        // The same file on purpose: every import is a write.
                        "--force",
                        &d,
                    ])
                    .output()
                    .unwrap());
            }
        }
    });
    let text = std::fs::read_to_string(fixtures.join("read_only_p99.txt")).unwrap();
    let step = dbdyno_engine::sysbench_text::parse_sysbench_output(&text).unwrap()[0]
        .to_step_result(dbdyno_engine::Scenario::OltpReadOnly);
    let in_test = 150;
    {
        let h = BlockingHistory::open(data.path()).unwrap();
        for i in 0..in_test {
            let new = NewRun::new("in-test", format!("write {i}"));
            h.insert_finished_run(&new, std::slice::from_ref(&step), RunState::Complete, None)
                .unwrap();
        }
    }
    importer.join().unwrap();
    let (oa, ob) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    ok(&oa);
    ok(&ob);
    let elapsed = t0.elapsed();

    let list = runs(data.path(), &["list", "--json"]);
    let count = |env: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .filter(|r| r["env"] == env)
            .count()
    };
    assert_eq!(count("in-test"), in_test);
    assert_eq!(count("importer"), 10);
    for env in ["writer-a", "writer-b"] {
        let r = list
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["env"] == env)
            .unwrap();
        assert_eq!(
            (r["state"].as_str(), r["steps"].as_u64()),
            (Some("complete"), Some(4)),
            "{env}"
        );
    }
    let total_steps: u64 = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["steps"].as_u64().unwrap())
        .sum();
    assert_eq!(total_steps, in_test as u64 + 10 * 2 + 2 * 4);
    eprintln!(
        "concurrent writers: {} runs / {total_steps} steps from 2 ladders, 10 imports and {in_test} in-test writes in {:.1}s, none lost",
        list.as_array().unwrap().len(),
        elapsed.as_secs_f64()
    );
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn no_byte_of_a_secret_reaches_any_file_the_application_writes() {
    let _g = shared_server();
    let _ssh = crate::sshd::shared();
    let sb = crate::sshd::Sshd::from_env();
    let s = TestSchema::new("leak");
    // The sshd sandbox's secrets: a password account, and a key protected by a passphrase.
    let env =
        |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k}: see scripts/sshd-sandbox.sh"));
    let (ssh_pw_user, ssh_password) = (
        env("DBDYNO_TEST_SSH_PW_USER"),
        env("DBDYNO_TEST_SSH_PASSWORD"),
    );
    let passphrase = env("DBDYNO_TEST_SSH_PASSPHRASE");
    let protected_key = format!("{}_passphrase", sb.key.display());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let secret = format!("Sekr1t-{}-{nanos}-unique", std::process::id());
    // A user of this process's own: parallel runs of the suite never share it.
    let user = format!("leaktest_{}", std::process::id());
    let mut admin = s.sandbox.admin();
    use mysql::prelude::Queryable;
    admin
        .query_drop(format!("DROP USER IF EXISTS '{user}'@'127.0.0.1'"))
        .unwrap();
    admin
        .query_drop(format!(
            "CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{secret}'"
        ))
        .unwrap();
    admin
        .query_drop(format!(
            "GRANT ALL ON `{}`.* TO '{user}'@'127.0.0.1'",
            s.name
        ))
        .unwrap();

    let root = tempfile::tempdir().unwrap();
    let (data, config) = (root.path().join("data"), root.path().join("config"));
    std::fs::create_dir_all(config.join("profiles")).unwrap();
    let known_hosts = sb.trusted_known_hosts(root.path());
    let profile = format!("leak-{}", std::process::id());
    let conf_name = format!("leakconf-{}", std::process::id());
    // Keyring entries and the MySQL user go away even when an assertion fails.
    let _cleanup = LeakCleanup {
        accounts: vec![profile.clone(), conf_name.clone()],
        user: user.clone(),
        sandbox: Sandbox::from_env(),
    };
    std::fs::write(
        config.join(format!("profiles/{profile}.toml")),
        format!(
            "schema_version = 1\nname = \"{profile}\"\n\n[mysql]\nhost = \"{}\"\nport = {}\nuser = \"{user}\"\ndb = \"{}\"\n\n\
             [ssh]\nhost = \"{}\"\nport = {}\nuser = \"{ssh_pw_user}\"\nauth = \"password\"\n\n\
             [plan]\nscenarios = [\"oltp_read_write\"]\nthreads = [1, 2]\ntime = 1\nprepare = true\ncleanup = true\n\n\
             [workload]\ntables = 1\ntable_size = 500\n",
            s.sandbox.host, s.sandbox.port, s.name, sb.host, sb.port
        ),
    )
    .unwrap();
    let cmd = || {
        let mut c = dbdyno_cmd();
        c.env("DBDYNO_DATA_DIR", &data)
            .env("DBDYNO_CONFIG_DIR", &config)
            .env("DBDYNO_KNOWN_HOSTS", &known_hosts)
            .env_remove("DBDYNO_SSH_PASSWORD")
            .env_remove("DBDYNO_SSH_PASSPHRASE")
            .env_remove("SSH_AUTH_SOCK");
        c
    };
    let mut outputs: Vec<Vec<u8>> = Vec::new();
    let mut keep = |o: std::process::Output| {
        outputs.push(o.stdout.clone());
        outputs.push(o.stderr.clone());
        o
    };

    // The passwords go into the keyring through stdin, never through a file.
    use std::io::Write;
    for (kind, value) in [("mysql", &secret), ("ssh-password", &ssh_password)] {
        let mut set = cmd()
            .args(["profile", "secret", "set", &profile, kind])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        writeln!(set.stdin.take().unwrap(), "{value}").unwrap();
        ok(&keep(set.wait_with_output().unwrap()));
    }

    // 1. A full ladder with prepare and cleanup, monitored over SSH with the keyring's
    // SSH password, writing its report; the MySQL password comes from the keyring. The
    // history's write-ahead log is copied while the ladder writes (it is folded into the
    // database when the last connection closes), so it is scanned too.
    let json1 = root.path().join("ladder.json");
    let wal = data.join(format!("{}-wal", dbdyno_history::DB_FILE_NAME));
    let child = cmd()
        .args([
            "ladder",
            &format!("--profile={profile}"),
            &format!("--json={}", json1.display()),
            &format!("--report={}", root.path().join("ladder-report").display()),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let child_id = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let o = child.wait_with_output().unwrap();
        let _ = done_tx.send(());
        o
    });
    let mut wal_copies = 0;
    while done_rx.recv_timeout(Duration::from_millis(100)).is_err() {
        if let Ok(bytes) = std::fs::read(&wal) {
            if !bytes.is_empty() {
                std::fs::write(root.path().join(format!("wal-copy-{wal_copies}")), bytes).unwrap();
                wal_copies += 1;
            }
        }
    }
    let o = waiter.join().unwrap();
    let out = ok(&keep(o));
    assert!(wal_copies > 0, "the WAL of ladder {child_id} was seen");
    assert!(out.contains("Machine: "), "monitored over SSH: {out}");

    // 1b. The same over SSH with a passphrase-protected key (passphrase in the
    // environment, as DBDYNO_SSH_PASSPHRASE documents).
    ok(&keep(
        cmd()
            .args([
                "ladder",
                &format!("--profile={profile}"),
                "--threads=1",
                "--ssh-user=root",
                "--ssh-auth=key",
                &format!("--ssh-key-path={protected_key}"),
            ])
            .env("DBDYNO_SSH_PASSPHRASE", &passphrase)
            .output()
            .unwrap(),
    ));
    // 2. The password on the command line, and 3. in MYSQL_PWD with the sysbench form.
    let json2 = root.path().join("ladder2.json");
    ok(&keep(
        cmd()
            .args([
                "ladder",
                &format!("--profile={profile}"),
                &format!("--mysql-password={secret}"),
                "--mysql-password-from=env",
                "--threads=1",
                &format!("--json={}", json2.display()),
            ])
            .output()
            .unwrap(),
    ));
    let conn: Vec<String> = vec![
        format!("--mysql-host={}", s.sandbox.host),
        format!("--mysql-port={}", s.sandbox.port),
        format!("--mysql-user={user}"),
        format!("--mysql-db={}", s.name),
    ];
    let mut a: Vec<String> = ["oltp_point_select", "--tables=1", "--table-size=200"]
        .iter()
        .map(|x| x.to_string())
        .collect();
    a.extend(conn.iter().cloned());
    ok(&keep(
        cmd()
            .args(&a)
            .arg("prepare")
            .env("MYSQL_PWD", &secret)
            .output()
            .unwrap(),
    ));
    let json3 = root.path().join("run.json");
    ok(&keep(
        cmd()
            .args(&a)
            .args([
                "--time=1",
                "--report-interval=1",
                "--histogram",
                &format!("--json={}", json3.display()),
                "run",
            ])
            .env("MYSQL_PWD", &secret)
            .output()
            .unwrap(),
    ));
    // 4. A run that fails at its first connection (wrong schema): its error is printed,
    // the run is not kept.
    keep(
        cmd()
            .args([
                "ladder",
                &format!("--profile={profile}"),
                "--mysql-db=no_such_db_leak",
                "--prepare=off",
                "--cleanup=off",
                "--skip-checks",
            ])
            .output()
            .unwrap(),
    );
    // 5. A seed config with the password, imported.
    let conf = root.path().join("benchmark_config.conf");
    std::fs::write(
        &conf,
        format!("MYSQL_HOST=127.0.0.1\nMYSQL_PASSWORD={secret}\nTABLES=1\n"),
    )
    .unwrap();
    ok(&keep(
        cmd()
            .args([
                "import",
                "config",
                conf.to_str().unwrap(),
                "-o",
                root.path()
                    .join(format!("{conf_name}.toml"))
                    .to_str()
                    .unwrap(),
            ])
            .output()
            .unwrap(),
    ));
    std::fs::remove_file(&conf).unwrap(); // the user's own file, not one we wrote
                                          // 6. A report of the runs' JSON files (every format).
    let inputs = format!(
        "--input={},{},{}",
        json1.display(),
        json2.display(),
        json3.display()
    );
    ok(&keep(
        cmd()
            .args([
                "report",
                &inputs,
                &format!("--out-dir={}", root.path().join("report").display()),
            ])
            .output()
            .unwrap(),
    ));
    // 7. Everything read back out.
    let list = keep(cmd().args(["runs", "list", "--json"]).output().unwrap());
    let listed: Value = serde_json::from_str(&ok(&list)).unwrap();
    assert!(listed.as_array().unwrap().len() >= 4, "{listed}");
    let states: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    // The wrong schema stopped the run at its first connection: nothing is kept.
    assert!(!states.contains(&"failed"), "{states:?}");
    // 6b. A report of the runs straight from the history (every format).
    let with_steps: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["steps"].as_u64().unwrap_or(0) > 0)
        .map(|r| r["id"].to_string())
        .collect();
    assert!(with_steps.len() >= 3, "{listed}");
    ok(&keep(
        cmd()
            .args([
                "report",
                &format!("--runs={}", with_steps.join(",")),
                &format!("--out-dir={}", root.path().join("report-runs").display()),
            ])
            .output()
            .unwrap(),
    ));
    for r in listed.as_array().unwrap() {
        let id = r["id"].to_string();
        ok(&keep(cmd().args(["runs", "show", &id]).output().unwrap()));
        ok(&keep(
            cmd()
                .args(["runs", "show", &id, "--json"])
                .output()
                .unwrap(),
        ));
        let export = root.path().join(format!("export-{id}.json"));
        ok(&keep(
            cmd()
                .args([
                    "runs",
                    "export",
                    &id,
                    "--json",
                    "-o",
                    export.to_str().unwrap(),
                ])
                .output()
                .unwrap(),
        ));
    }
    ok(&keep(
        cmd().args(["profile", "list", "--json"]).output().unwrap(),
    ));
    ok(&keep(
        cmd()
            .args(["profile", "secret", "status", &profile])
            .output()
            .unwrap(),
    ));

    // Scan: every file under the temp root (history database, WAL copies, profiles,
    // known_hosts, JSON, reports, exports) and every stdout/stderr, for each secret (the
    // MySQL password, the SSH password, the key passphrase) and its common encodings.
    let needles: Vec<Vec<u8>> = [&secret, &ssh_password, &passphrase]
        .into_iter()
        .flat_map(|s| {
            [
                s.as_bytes().to_vec(),
                s.chars().rev().collect::<String>().into_bytes(),
                s.bytes()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
                    .into_bytes(),
            ]
        })
        .collect();
    let mut files = Vec::new();
    files_under(root.path(), &mut files);
    assert!(
        files
            .iter()
            .any(|f| f.ends_with(dbdyno_history::DB_FILE_NAME)),
        "{files:?}"
    );
    // Positive control: the scan does read the files that hold the connection settings
    // (the user name sits right where a password would).
    assert!(
        files
            .iter()
            .any(|f| contains(&std::fs::read(f).unwrap(), user.as_bytes())),
        "the user name is found, so a password would be too"
    );
    let mut scanned = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        scanned += bytes.len();
        for n in &needles {
            assert!(!contains(&bytes, n), "the secret is in {}", f.display());
        }
    }
    for (i, o) in outputs.iter().enumerate() {
        for n in &needles {
            assert!(
                !contains(o, n),
                "the secret is in captured output #{i}: {}",
                String::from_utf8_lossy(o)
            );
        }
    }
    eprintln!(
        "secret-leak scan: {} files, {scanned} bytes, {} outputs: clean",
        files.len(),
        outputs.len()
    );

    let stored = dbdyno_profile::SecretStore::new()
        .get(&profile, dbdyno_profile::SecretKind::MysqlPassword)
        .unwrap();
    assert!(
        stored.is_some(),
        "the ladder's password came from the keyring"
    );
    for dir in ["ladder-report", "report-runs"] {
        let n = std::fs::read_dir(root.path().join(dir)).unwrap().count();
        assert!(n >= 3, "{dir} holds the report formats ({n} files)");
    }
}

struct LeakCleanup {
    accounts: Vec<String>,
    user: String,
    sandbox: Sandbox,
}

impl Drop for LeakCleanup {
    fn drop(&mut self) {
        use mysql::prelude::Queryable;
        let store = dbdyno_profile::SecretStore::new();
        for a in &self.accounts {
            let _ = store.delete(a, dbdyno_profile::SecretKind::MysqlPassword);
            let _ = store.delete(a, dbdyno_profile::SecretKind::SshPassword);
        }
        let user = &self.user;
        let _ = self
            .sandbox
            .admin()
            .query_drop(format!("DROP USER IF EXISTS '{user}'@'127.0.0.1'"));
    }
}

/// What monitoring noticed (here: an unmonitored server's missing OS metrics) is in the
/// run's warnings, not only inside the monitoring record.
#[test]
fn monitoring_findings_are_run_warnings() {
    let _g = shared_server();
    let s = TestSchema::new("monwarn");
    let data = tempfile::tempdir().unwrap();
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "prepare",
    ]));
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-monitor",
        &dd(data.path()),
    ]));
    let id = run_id(&out);
    let shown = runs(data.path(), &["show", &id.to_string(), "--json"]);
    let missing = shown["monitoring"]["missing"].as_array().unwrap();
    assert!(!missing.is_empty(), "{}", shown["monitoring"]);
    let warnings: Vec<&str> = shown["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap())
        .collect();
    for m in missing {
        let what = m["what"].as_str().unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("not measured: ") && w.contains(what)),
            "{what} in {warnings:?}"
        );
    }
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &dd(data.path())])
        .output()
        .unwrap());
    assert!(
        text.contains("Warnings:") && text.contains("not measured: "),
        "{text}"
    );
}

/// `--data-dir` before the command is the command's own (`dbdyno --data-dir=X runs list`),
/// in both spellings; the private data directory of the test's DBDYNO_DATA_DIR is not used.
#[test]
fn data_dir_before_the_command_chooses_the_history() {
    for spaced in [false, true] {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().display().to_string();
        let before: Vec<String> = if spaced {
            vec!["--data-dir".into(), dir.clone()]
        } else {
            vec![dd(data.path())]
        };
        let o = dbdyno_cmd()
            .args(&before)
            .args(["runs", "list"])
            .output()
            .unwrap();
        let out = ok(&o);
        assert!(
            out.contains(&format!("No runs in the history ({dir}")),
            "{out}"
        );
        assert!(data.path().join(dbdyno_history::DB_FILE_NAME).exists());
        let o = dbdyno_cmd()
            .args(&before)
            .args(["runs", "list", "--json"])
            .output()
            .unwrap();
        assert_eq!(json_of(&o), Value::Array(vec![]));
    }
}
