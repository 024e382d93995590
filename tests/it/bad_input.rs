//! Bad input gets a clear message and a non-zero exit code, and changes nothing.

use dbdyno_tests::*;

fn prepare_args() -> Vec<&'static str> {
    vec!["oltp_read_write", "--tables=1", "--table-size=100"]
}

#[test]
fn wrong_password_is_access_denied() {
    let _g = shared_server();
    let s = TestSchema::new("badpw");
    let mut args = s.mysql_args();
    args.extend([
        "oltp_point_select".into(),
        "--mysql-password=not-the-password".into(),
        "run".into(),
    ]);
    let o = dbdyno_cmd().args(&args).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("Access denied"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("check --mysql-user and the password"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn closed_port_says_so() {
    let _g = shared_server();
    let o = dbdyno_cmd()
        .args([
            "oltp_point_select",
            "--mysql-host=127.0.0.1",
            "--mysql-port=1",
            "--time=1",
            "run",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("cannot connect to MySQL at 127.0.0.1:1"),
        "{err}"
    );
}

#[test]
fn unknown_option_is_refused() {
    let _g = shared_server();
    let o = dbdyno_cmd()
        .args(["oltp_read_write", "--tabels=4", "run"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--tabels"), "{}", stderr(&o));
}

#[test]
fn verbosity_outside_0_to_5_is_refused() {
    let _g = shared_server();
    for (bad, why) in [("6", "0..=5"), ("high", "invalid digit")] {
        let o = dbdyno_cmd()
            .args(["oltp_read_write", &format!("--verbosity={bad}"), "run"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!("invalid value '{bad}' for '--verbosity")) && err.contains(why),
            "{err}"
        );
    }
}

/// `--version` alone names no workload; it prints the version, not the help.
#[test]
fn version_is_printed_without_a_workload() {
    let _g = shared_server();
    for flag in ["--version", "-V"] {
        let o = dbdyno_cmd().arg(flag).output().unwrap();
        assert_eq!(
            ok(&o),
            format!("dbdyno {}\n", env!("CARGO_PKG_VERSION")),
            "{flag}"
        );
    }
}

#[test]
fn unknown_workload_is_refused() {
    let _g = shared_server();
    let o = dbdyno_cmd()
        .args(["oltp_read_wrote", "run"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown scenario 'oltp_read_wrote'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn zero_threads_and_zero_table_size_are_refused_before_connecting() {
    let _g = shared_server();
    let s = TestSchema::new("zeros");
    let o = s.dbdyno(&["oltp_read_write", "--threads=0", "--time=1", "run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("threads must be at least 1"),
        "{}",
        stderr(&o)
    );
    let o = s.dbdyno(&["oltp_read_write", "--table-size=0", "prepare"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--table-size must be at least 1"),
        "{}",
        stderr(&o)
    );
    assert!(
        s.tables().is_empty(),
        "nothing may be created: {:?}",
        s.tables()
    );
}

#[test]
fn missing_schema_is_named() {
    let _g = shared_server();
    let sb = Sandbox::from_env();
    let o = dbdyno_cmd()
        .args(prepare_args())
        .arg(format!("--mysql-host={}", sb.host))
        .arg(format!("--mysql-port={}", sb.port))
        // The admin may see every schema, so the server says "unknown database".
        .arg(format!("--mysql-user={}", sb.admin_user))
        .arg("--mysql-db=dbdyno_no_such_schema")
        .arg("prepare")
        .env("MYSQL_PWD", &sb.admin_password)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("dbdyno_no_such_schema"), "{err}");
    assert!(err.contains("create the schema first"), "{err}");
}

#[test]
fn table_of_another_shape_is_refused_and_untouched() {
    let _g = shared_server();
    let s = TestSchema::new("shape");
    use mysql::prelude::Queryable;
    s.conn()
        .query_drop("CREATE TABLE sbtest1 (id INT PRIMARY KEY, name VARCHAR(20))")
        .unwrap();
    s.conn()
        .query_drop("INSERT INTO sbtest1 VALUES (1, 'keep me')")
        .unwrap();
    let o = s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=100",
        "--force",
        "prepare",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("sbtest1 exists with another shape"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        s.tables(),
        ["sbtest1"],
        "prepare must not create sbtest2 either"
    );
    // The run against it names the statement class and the server's error.
    // --skip-checks: the checks would stop it first (dataset.tables).
    let o = s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--time=1",
        "--skip-checks",
        "run",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("point select statement failed"),
        "{}",
        stderr(&o)
    );
    let o = s.dbdyno(&["oltp_read_write", "--tables=1", "cleanup"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        s.count("sbtest1"),
        1,
        "cleanup must leave a foreign-shaped sbtest1 alone"
    );
}

/// A run that never reached the server leaves nothing in the history (not a failed run
/// with no step per attempt); a missing password points at the keyring and MYSQL_PWD.
#[test]
fn a_run_that_never_connected_is_not_kept_and_no_password_points_at_the_keyring() {
    let _g = shared_server();
    let s = TestSchema::new("nopw");
    let data = tempfile::tempdir().unwrap();
    let d = format!("--data-dir={}", data.path().display());
    for _ in 0..2 {
        let o = dbdyno_cmd()
            .args([
                "ladder",
                "--mysql-host=127.0.0.1",
                "--mysql-port=1",
                "--scenarios=oltp_point_select",
                "--threads=1",
                "--time=1",
                "--skip-checks",
                "--no-monitor",
                &d,
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("not kept in the history (the connection failed, nothing ran)"),
            "{}",
            stdout(&o)
        );
    }
    let list = ok(&dbdyno_cmd()
        .args(["runs", "list", "--json", &d])
        .output()
        .unwrap());
    assert_eq!(list.trim(), "[]", "no failed run with no step");

    let conn = [
        format!("--mysql-host={}", s.sandbox.host),
        format!("--mysql-port={}", s.sandbox.port),
        format!("--mysql-user={}", s.sandbox.user),
        format!("--mysql-db={}", s.name),
    ];
    // The checks before the ladder, and the engine itself (checks skipped), say it.
    for skip in [false, true] {
        let mut c = dbdyno_cmd();
        c.arg("ladder").args(&conn).args([
            "--scenarios=oltp_point_select",
            "--threads=1",
            "--time=1",
            "--no-monitor",
            &d,
        ]);
        if skip {
            c.arg("--skip-checks");
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert!(all.contains("using password: NO"), "{all}");
        assert!(
            all.contains("`dbdyno profile secret set NAME mysql`") && all.contains("MYSQL_PWD"),
            "skip checks {skip}: {all}"
        );
    }
    let list = ok(&dbdyno_cmd()
        .args(["runs", "list", "--json", &d])
        .output()
        .unwrap());
    assert_eq!(list.trim(), "[]");
}

/// Error texts say each thing once, in plain words.
#[test]
fn errors_say_each_thing_once_in_plain_words() {
    let _g = shared_server();
    let o = dbdyno_cmd()
        .args(["ladder", "--profile=/nonexistent/idc.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("profile file /nonexistent/idc.toml not found"),
        "{}",
        stderr(&o)
    );

    let o = dbdyno_cmd()
        .args(["ladder", "--profile=local-sandbox", "--ssh-auth=kerberos"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.matches("--ssh-auth").count(), 1, "{e}");
    assert!(
        e.contains("unknown value `kerberos` (expected one of `agent`, `key`, `password`)"),
        "{e}"
    );

    let data = tempfile::tempdir().unwrap();
    std::fs::write(
        data.path().join("history.sqlite3"),
        "not a database, only text ".repeat(40),
    )
    .unwrap();
    let o = dbdyno_cmd()
        .args([
            "runs",
            "list",
            &format!("--data-dir={}", data.path().display()),
        ])
        .output()
        .unwrap();
    assert_ne!(o.status.code(), Some(0));
    let e = stderr(&o);
    assert_eq!(e.matches("file is not a database").count(), 1, "{e}");
    assert!(e.contains("cannot open the history database"), "{e}");
}
