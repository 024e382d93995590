//! The prerequisite checks against the real MariaDB and sshd: the max_prepared_stmt_count
//! story end to end, schema and foreign-table checks with `--json` and `--fix`, and the
//! SSH checks (unknown, accepted and changed host keys, wrong credentials).

use dbdyno_checks::{apply_action, run_suite, CheckAction, CheckStatus, SuiteOptions};
use dbdyno_engine::{LadderSpec, Plan, Scenario, WorkloadOptions};
use dbdyno_monitor::HostAccess;
use dbdyno_tests::*;
use mysql::prelude::Queryable;
use serde_json::Value;

use crate::sshd::{self, Sshd};

/// A server of the test's own whose `max_prepared_stmt_count` is too low for 16 threads
/// of oltp_read_write on 8 tables, set through its config: the test changes it back and
/// forth, which on the shared sandbox would need every other test to stand aside.
fn server_with_few_prepared_statements(tag: &str) -> PrivateSandbox {
    PrivateSandbox::start(tag, "max_prepared_stmt_count = 500")
}

/// Sets a global variable of the schema's server, as its administrator.
fn set_global(s: &TestSchema, name: &str, value: u64) {
    s.sandbox
        .admin()
        .query_drop(format!("SET GLOBAL {name} = {value}"))
        .unwrap();
}

fn ladder_plan(s: &TestSchema, threads: u32, tables: u32, table_size: u64) -> Plan {
    let spec = LadderSpec {
        scenarios: vec![Scenario::OltpReadWrite],
        threads: vec![threads],
        ..Default::default()
    };
    Plan {
        connect: s.connect_options(),
        workload: WorkloadOptions {
            tables,
            table_size,
            ..Default::default()
        },
        phases: spec.phases(),
        force: false,
        on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
    }
}

/// `--skip-checks`: this run is meant to meet the server's refusal.
const RUN_16: [&str; 8] = [
    "oltp_read_write",
    "--tables=8",
    "--table-size=200",
    "--threads=16",
    "--time=2",
    "--no-history",
    "--skip-checks",
    "run",
];
const CHECK_16: [&str; 5] = [
    "check",
    "--tables=8",
    "--table-size=200",
    "--ladder=16",
    "--scenarios=oltp_read_write",
];

#[test]
fn too_low_max_prepared_stmt_count_fails_runs_is_caught_and_fixed() {
    let _g = shared_server();
    let server = server_with_few_prepared_statements("psc");
    let s = TestSchema::on(server.sandbox(), "psc");
    ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=8",
        "--table-size=200",
        "--threads=4",
        "prepare",
    ]));
    // oltp_read_write at 16 threads on 8 tables holds 16 × (9 × 8 + 2) = 1184 statements,
    // and the server allows 500.

    // Ignoring the check: the server refuses, and the error names the statement class.
    let o = s.dbdyno(&RUN_16);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("statement failed: Can't create more than max_prepared_stmt_count statements")
            && err.contains("(error 1461)"),
        "{err}"
    );

    // The check sees it coming, with the computed requirement, and fails the command.
    let o = s.dbdyno(&CHECK_16);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .skip_while(|l| !l.contains("[mysql.max_prepared_stmt_count]"))
        .take(6)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(line.starts_with("FAIL"), "{out}");
    assert!(
        line.contains("max_prepared_stmt_count = 500") && line.contains("1184 prepared statements"),
        "{line}"
    );
    assert!(
        line.contains("SET GLOBAL max_prepared_stmt_count = 2048"),
        "{line}"
    );

    // Through the API: the suite finds the action, the admin applies it, the check passes.
    let opts = SuiteOptions {
        plan: ladder_plan(&s, 16, 8, 200),
        host: HostAccess::Local,
        devices: vec![],
    };
    let report = run_suite(&opts);
    let check = report.get("mysql.max_prepared_stmt_count").unwrap();
    assert_eq!(check.status, CheckStatus::Fail);
    let action = check.action.clone().expect("the check offers an action");
    assert_eq!(
        action,
        CheckAction::SetGlobal {
            variable: "max_prepared_stmt_count".into(),
            value: 2048
        }
    );
    // The benchmark account may not: a clear error naming the privilege.
    let denied = apply_action(&action, &s.connect_options())
        .unwrap_err()
        .to_string();
    assert!(
        denied.contains("SUPER or SYSTEM_VARIABLES_ADMIN"),
        "{denied}"
    );
    let admin = dbdyno_engine::ConnectOptions {
        user: s.sandbox.admin_user.clone(),
        password: Some(s.sandbox.admin_password.clone()),
        ..s.connect_options()
    };
    let done = apply_action(&action, &admin).unwrap();
    assert_eq!(
        done.applied_sql,
        "SET GLOBAL max_prepared_stmt_count = 2048"
    );
    assert!(done.note.unwrap().contains("does not survive a restart"));
    assert_eq!(
        run_suite(&opts)
            .get("mysql.max_prepared_stmt_count")
            .unwrap()
            .status,
        CheckStatus::Pass
    );
    let out = ok(&s.dbdyno(&RUN_16));
    assert!(out.contains("transactions:"), "{out}");

    // Through the command line: `check --fix` as the administrator.
    set_global(&s, "max_prepared_stmt_count", 500);
    let mut args: Vec<String> = CHECK_16.iter().map(|a| a.to_string()).collect();
    args.extend(s.mysql_args());
    args.extend([
        "--fix".into(),
        format!("--admin-user={}", s.sandbox.admin_user),
    ]);
    let o = dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", &s.sandbox.password)
        .env("DBDYNO_ADMIN_PWD", &s.sandbox.admin_password)
        .output()
        .unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        err.contains("Applied as dbdyno_admin: SET GLOBAL max_prepared_stmt_count = 2048"),
        "{err}"
    );
    assert!(
        err.contains("`max_prepared_stmt_count = 2048` under [mysqld] in my.cnf"),
        "{err}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("PASS") && l.contains("[mysql.max_prepared_stmt_count]")),
        "{out}"
    );
    ok(&s.dbdyno(&RUN_16));
}

#[test]
fn a_ladder_or_run_whose_checks_fail_is_stopped_before_anything_runs() {
    let _g = shared_server();
    let server = server_with_few_prepared_statements("psc-stop");
    let s = TestSchema::on(server.sandbox(), "psc_stop");
    ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=8",
        "--table-size=200",
        "--threads=4",
        "prepare",
    ]));
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let dd = format!("--data-dir={}", data.display());
    let report = root.path().join("report");
    let rd = format!("--report={}", report.display());
    for args in [
        &[
            "ladder",
            "--scenarios=oltp_read_write",
            "--tables=8",
            "--table-size=200",
            "--ladder=16",
            "--time=1",
            &dd,
            &rd,
        ][..],
        &[
            "oltp_read_write",
            "--tables=8",
            "--table-size=200",
            "--threads=16",
            "--time=1",
            &dd,
            "run",
        ][..],
    ] {
        let o = s.dbdyno(args);
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{args:?}\n{out}\n{err}");
        assert!(
            err.lines().any(|l| l.starts_with("FAIL")
                && l.contains("[mysql.max_prepared_stmt_count]")
                && l.contains("1184 prepared statements")),
            "{err}"
        );
        assert!(
            err.contains("nothing was run") && err.contains("--skip-checks"),
            "{err}"
        );
        assert!(
            !err.contains("Can't create more"),
            "the checks stop it before the server does: {err}"
        );
        assert!(!out.contains("=== [1/") && !out.contains("Run id"), "{out}");
        assert!(
            !data.exists() && !report.exists(),
            "nothing is recorded or written"
        );
    }
    // The desktop app's start_run refuses through the same engine-side call.
    let pre =
        dbdyno_session::Preflight::gather(&ladder_plan(&s, 16, 8, 200), &HostAccess::Local, &[]);
    assert!(pre.failed());
    let why = pre.refusal().expect("a refusal");
    assert!(
        why.contains("nothing was run")
            && why.contains("[mysql.max_prepared_stmt_count]")
            && why.contains("SET GLOBAL max_prepared_stmt_count = 2048"),
        "{why}"
    );
}

#[test]
fn fix_texts_carry_the_connection_and_fix_offers_create_database_to_an_admin() {
    let _g = shared_server();
    let s = TestSchema::new("chk_paste");
    // Tables missing: the fix is a prepare command that reaches this server and schema.
    let o = s.dbdyno(&[
        "check",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--tables=1",
        "--table-size=100",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let cmd = out
        .lines()
        .skip_while(|l| !l.contains("[dataset.tables]"))
        .find(|l| l.trim().starts_with("dbdyno "))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| panic!("a command in the fix: {out}"));
    for part in [
        format!("--mysql-host={}", s.sandbox.host),
        format!("--mysql-port={}", s.sandbox.port),
        format!("--mysql-user={}", s.sandbox.user),
        format!("--mysql-db={}", s.name),
    ] {
        assert!(cmd.contains(&part), "{part} in {cmd}");
    }
    // Pasted as printed (the password from MYSQL_PWD), it prepares this schema.
    let words: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let o = dbdyno_cmd()
        .args(&words)
        .env("MYSQL_PWD", &s.sandbox.password)
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(s.tables(), ["sbtest1"]);

    // A schema the benchmark account may not create: --fix --admin-user creates it.
    let schema = format!("dbdyno_nocreate_{}", std::process::id());
    let drop = || {
        let _ = s
            .sandbox
            .admin()
            .query_drop(format!("DROP DATABASE IF EXISTS `{schema}`"));
    };
    drop();
    let o = dbdyno_cmd()
        .args([
            "check",
            "--scenarios=oltp_point_select",
            "--ladder=1",
            "--prepare",
            &format!("--mysql-host={}", s.sandbox.host),
            &format!("--mysql-port={}", s.sandbox.port),
            &format!("--mysql-user={}", s.sandbox.user),
            &format!("--mysql-db={schema}"),
            "--fix",
            &format!("--admin-user={}", s.sandbox.admin_user),
        ])
        .env("MYSQL_PWD", &s.sandbox.password)
        .env("DBDYNO_ADMIN_PWD", &s.sandbox.admin_password)
        .output()
        .unwrap();
    let exists: Option<String> = s
        .sandbox
        .admin()
        .exec_first(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
            (schema.as_str(),),
        )
        .unwrap();
    drop();
    assert!(
        stderr(&o).contains(&format!(
            "Applied as {}: CREATE DATABASE `{schema}`",
            s.sandbox.admin_user
        )),
        "{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    assert!(exists.is_some(), "the schema was created");
}

#[test]
fn check_json_flags_foreign_tables_and_fix_creates_a_missing_schema() {
    let _g = shared_server();
    let s = TestSchema::new("chk_foreign");
    s.conn()
        .query_drop("CREATE TABLE orders (id INT PRIMARY KEY)")
        .unwrap();
    let o = s.dbdyno(&[
        "check",
        "--tables=1",
        "--ladder=2",
        "--scenarios=oltp_point_select",
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "sbtest1 is missing: {}",
        stdout(&o)
    );
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let by_id = |id: &str| {
        doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"))
            .clone()
    };
    let foreign = by_id("mysql.foreign_tables");
    assert_eq!(foreign["status"], "warn");
    assert!(
        foreign["seen"].as_str().unwrap().starts_with("DANGER")
            && foreign["seen"].as_str().unwrap().contains("orders")
    );
    assert_eq!(by_id("dataset.tables")["status"], "fail");
    assert_eq!(
        by_id("host.same_host")["status"],
        "warn",
        "the sandbox is this machine"
    );
    assert!(by_id("mysql.round_trip")["seen"]
        .as_str()
        .unwrap()
        .contains("median"));
    assert_eq!(doc["environment"]["server"]["flavour"], "mariadb");
    assert!(doc["environment"]["variables"]["innodb_buffer_pool_size"].is_string());

    // A schema that does not exist: the admin may create it, so `--fix` does.
    let name = "dbdyno_t_chk_created";
    let mut admin = s.sandbox.admin();
    admin
        .query_drop(format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    let args = |extra: &[&str]| {
        let mut v = vec![
            "check".to_string(),
            "--scenarios=oltp_insert".into(),
            "--ladder=1".into(),
            format!("--mysql-host={}", s.sandbox.host),
            format!("--mysql-port={}", s.sandbox.port),
            format!("--mysql-user={}", s.sandbox.admin_user),
            format!("--mysql-db={name}"),
        ];
        v.extend(extra.iter().map(|e| e.to_string()));
        v
    };
    let o = dbdyno_cmd()
        .args(args(&[]))
        .env("MYSQL_PWD", &s.sandbox.admin_password)
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("WARN") && l.contains("[mysql.schema]")),
        "{out}"
    );
    assert!(out.contains(&format!("CREATE DATABASE `{name}`")), "{out}");
    let o = dbdyno_cmd()
        .args(args(&["--fix"]))
        .env("MYSQL_PWD", &s.sandbox.admin_password)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    let exists: Option<String> = admin
        .query_first(format!(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME='{name}'"
        ))
        .unwrap();
    admin
        .query_drop(format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    assert_eq!(exists.as_deref(), Some(name));
    assert!(stdout(&o)
        .lines()
        .any(|l| l.starts_with("PASS") && l.contains("[mysql.schema]")));
}

/// A fresh ed25519 key pair without a passphrase.
fn new_key(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    let made = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "dbdyno-test", "-f"])
        .arg(&path)
        .status()
        .expect("ssh-keygen");
    assert!(made.success());
    path
}

/// The SSH part of `dbdyno check` for one known_hosts file and credentials.
fn ssh_check(s: &TestSchema, extra: &[String]) -> (Option<i32>, String) {
    let mut args: Vec<String> = [
        "check",
        "--tables=1",
        "--ladder=1",
        "--scenarios=oltp_insert",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(extra.iter().cloned());
    let mut all = args;
    all.extend(s.mysql_args());
    let o = dbdyno_cmd()
        .args(&all)
        .env("MYSQL_PWD", &s.sandbox.password)
        .output()
        .unwrap();
    (o.status.code(), stdout(&o))
}

fn status_of(out: &str, id: &str) -> String {
    out.lines()
        .find(|l| l.contains(&format!("[{id}]")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no {id} in\n{out}"))
        .to_string()
}

#[test]
fn ssh_checks_for_unknown_accepted_changed_keys_and_wrong_credentials() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let s = TestSchema::new("chk_ssh");
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    let fp = sb.fingerprint(dir.path());

    // Unknown key: the check fails and shows the fingerprint; nothing is stored.
    let (code, out) = ssh_check(&s, &sb.args(&kh));
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(status_of(&out, "ssh.reachable"), "PASS", "{out}");
    assert_eq!(status_of(&out, "ssh.host_key"), "FAIL", "{out}");
    assert!(out.contains(&fp), "the fingerprint {fp} is shown: {out}");
    assert!(!kh.exists() || std::fs::read_to_string(&kh).unwrap().is_empty());

    // Accepted: stored, and every SSH-side check runs.
    let mut accept = sb.args(&kh);
    accept.push("--accept-new-host-key".into());
    let (code, out) = ssh_check(&s, &accept);
    assert_eq!(code, Some(0), "{out}");
    for id in [
        "ssh.reachable",
        "ssh.host_key",
        "ssh.auth",
        "host.data_disk",
        "host.clock_offset",
    ] {
        assert_eq!(status_of(&out, id), "PASS", "{id}: {out}");
    }
    assert!(
        out.contains("SSH: server"),
        "the SSH clock offset is reported: {out}"
    );
    assert!(std::fs::read_to_string(&kh)
        .unwrap()
        .contains(sb.host_pubkey.split_whitespace().nth(1).unwrap()));

    // Changed: another key listed for the host is refused, even with --accept-new-host-key.
    let stranger = new_key(dir.path(), "stranger");
    let other = dir.path().join("other_known_hosts");
    let other_pub = std::fs::read_to_string(stranger.with_extension("pub")).unwrap();
    let other_pub: Vec<&str> = other_pub.split_whitespace().take(2).collect();
    std::fs::write(
        &other,
        format!("[{}]:{} {}\n", sb.host, sb.port, other_pub.join(" ")),
    )
    .unwrap();
    let mut changed = sb.args(&other);
    changed.push("--accept-new-host-key".into());
    let (code, out) = ssh_check(&s, &changed);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(status_of(&out, "ssh.host_key"), "FAIL");
    assert!(out.contains("has CHANGED"), "{out}");

    // A key the server does not know: the login fails, saying so.
    let mut wrong = sb.args(&kh);
    wrong.retain(|a| !a.starts_with("--ssh-key="));
    wrong.push(format!("--ssh-key={}", stranger.display()));
    let (code, out) = ssh_check(&s, &wrong);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(status_of(&out, "ssh.auth"), "FAIL");
    assert!(out.contains("the server refused the key"), "{out}");
}

/// A TPC-C dataset (scale 1) is the benchmark's own: the foreign-tables check passes on
/// it and names only a table that is not one of its nine; the buffer-pool figure counts
/// warehouses; tpcc prepares no statements and the check says why.
#[test]
fn check_knows_a_tpcc_dataset_and_its_needs() {
    let _g = shared_server();
    let s = TestSchema::new("chk_tpcc");
    let prepared = s.dbdyno(&["tpcc", "--scale=1", "--threads=2", "prepare"]);
    assert!(prepared.status.success(), "{}", stderr(&prepared));
    let check = || {
        let o = s.dbdyno(&[
            "check",
            "--scenarios=tpcc",
            "--ladder=2",
            "--scale=1",
            "--json",
        ]);
        let doc: Value = serde_json::from_str(&stdout(&o))
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&o), stderr(&o)));
        move |id: &str| {
            doc["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id)
                .unwrap_or_else(|| panic!("no {id}"))
                .clone()
        }
    };
    let by_id = check();
    let foreign = by_id("mysql.foreign_tables");
    assert_eq!(foreign["status"], "pass", "{foreign}");
    assert!(
        foreign["seen"]
            .as_str()
            .unwrap()
            .contains("9 benchmark tables"),
        "{foreign}"
    );
    let bp = by_id("dataset.buffer_pool");
    assert!(
        bp["seen"]
            .as_str()
            .unwrap()
            .contains("tpcc 1 warehouse × 1 set of tables"),
        "{bp}"
    );
    let ps = by_id("mysql.max_prepared_stmt_count");
    assert!(
        ps["seen"]
            .as_str()
            .unwrap()
            .contains("tpcc sends plain text queries"),
        "{ps}"
    );
    assert_eq!(by_id("dataset.tables")["status"], "pass");

    s.conn()
        .query_drop("CREATE TABLE invoices (id INT PRIMARY KEY)")
        .unwrap();
    let foreign = check()("mysql.foreign_tables");
    assert_eq!(foreign["status"], "warn", "{foreign}");
    let seen = foreign["seen"].as_str().unwrap();
    assert!(
        seen.contains("1 table that is not") && seen.contains("invoices"),
        "{foreign}"
    );
}
