//! Environment profiles: every validation error names file, line and field; nothing
//! runs on an invalid profile; the command line overrides a profile; listing; migration.

use std::path::Path;

use dbdyno_tests::*;
use serde_json::Value;

const GOOD: &str = r#"schema_version = 1
name = "good"

[plan]
threads = [1, 2]
time = 5
"#;

fn check(dir: &Path, name: &str, text: &str) -> (Option<i32>, String) {
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    let o = dbdyno_cmd()
        .args(["profile", "check", f.to_str().unwrap()])
        .output()
        .unwrap();
    (o.status.code(), stderr(&o))
}

#[test]
fn every_validation_error_names_file_line_and_field() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let (code, _) = check(dir.path(), "good.toml", GOOD);
    assert_eq!(code, Some(0));
    // (file, text, what stderr must say)
    let cases: [(&str, String, &str); 9] = [
        (
            "unknown_key.toml",
            GOOD.replace("time = 5", "time = 5\nthread = 4"),
            "unknown_key.toml:7: plan.thread: unknown key `thread`",
        ),
        (
            "zero_threads.toml",
            GOOD.replace("[1, 2]", "[1, 0]"),
            "zero_threads.toml:5: plan.threads[1]: threads must be at least 1 (got 0)",
        ),
        (
            "negative_time.toml",
            GOOD.replace("time = 5", "time = -5"),
            "negative_time.toml:6: plan.time: must not be negative (got -5)",
        ),
        (
            "table_size.toml",
            format!("{GOOD}\n[workload]\ntable_size = 0\n"),
            "table_size.toml:9: workload.table_size: must be at least 1",
        ),
        (
            "scenario.toml",
            GOOD.replace(
                "time = 5",
                "time = 5\nscenarios = [\"oltp_read_only\", \"oltp_raed_write\"]",
            ),
            "scenario.toml:7: plan.scenarios[1]:",
        ),
        (
            "version.toml",
            GOOD.replace("schema_version = 1", "schema_version = 7"),
            "version.toml:1: schema_version: 7 is not a layout",
        ),
        (
            "no_version.toml",
            GOOD.replace("schema_version = 1\n", ""),
            "no_version.toml:1: schema_version: missing",
        ),
        (
            "syntax.toml",
            GOOD.replace("time = 5", "time = = 5"),
            "syntax.toml:6: (syntax): not valid TOML",
        ),
        (
            "wrong_type.toml",
            GOOD.replace("time = 5", "time = \"five\""),
            "wrong_type.toml:6: plan.time: expected a whole number, found text",
        ),
    ];
    for (file, text, want) in &cases {
        let (code, err) = check(dir.path(), file, text);
        assert_eq!(code, Some(2), "{file}: {err}");
        assert!(err.contains(want), "{file}: expected «{want}» in:\n{err}");
    }
}

/// Every problem of a file at once, each as file:line: field: message, in plain words.
#[test]
fn every_problem_of_a_file_is_reported_at_once() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "unknown.toml",
            "schema_version = 1\nname = \"u\"\n\n[mysql]\nhots = \"db1\"\n\n[plan]\nthread = 4\n",
            &[
                "unknown.toml:5: mysql.hots: unknown key `hots` (did you mean `host`?)",
                "unknown.toml:8: plan.thread: unknown key `thread` (did you mean `threads`?)",
            ],
        ),
        (
            "negatives.toml",
            "schema_version = 1\nname = \"n\"\n\n[plan]\nwarmup = -1\ncooldown = -3\ntime = 1.5\n\n[mysql]\nport = 70000\n",
            &[
                "negatives.toml:5: plan.warmup: must not be negative (got -1)",
                "negatives.toml:6: plan.cooldown: must not be negative (got -3)",
                "negatives.toml:7: plan.time: expected a whole number, found a decimal number",
                "negatives.toml:10: mysql.port: expected a port number (1-65535), got 70000",
            ],
        ),
        (
            "scenarios.toml",
            "schema_version = 1\nname = \"s\"\n\n[plan]\nthreads = [1, 0]\nscenarios = [\"oltp_read_only\", \"oltp_nope\"]\n\n[workload]\nrand_pareto_h = 2.0\nmysql_storage_engine = \"x;y\"\n",
            &[
                "scenarios.toml:5: plan.threads[1]: threads must be at least 1 (got 0)",
                "scenarios.toml:6: plan.scenarios[1]:",
                "scenarios.toml:9: workload.rand_pareto_h:",
                "scenarios.toml:10: workload.mysql_storage_engine:",
            ],
        ),
        (
            "v0.toml",
            "MYSQL_HOST = \"h\"\nBOGUS = 1\nTHREADS = \"1 0\"\n",
            &[
                "v0.toml:2: BOGUS: unknown key in a version 0 profile",
                "v0.toml:3: THREADS: threads must be at least 1 (got 0) (plan.threads[1])",
            ],
        ),
    ];
    for (file, text, wants) in cases {
        let (code, err) = check(dir.path(), file, text);
        assert_eq!(code, Some(2), "{file}: {err}");
        for want in wants {
            assert!(err.contains(want), "{file}: expected «{want}» in:\n{err}");
        }
        for rust_word in ["u64", "u32", "u16", "floating", "integer"] {
            assert!(
                !err.contains(rust_word),
                "{file}: Rust type word in:\n{err}"
            );
        }
    }
    // A port in words a user acts on, whatever the wrong kind.
    let (_, err) = check(
        dir.path(),
        "port.toml",
        "schema_version = 1\nname = \"p\"\n\n[ssh]\nhost = \"h\"\nport = \"22a\"\n",
    );
    assert!(
        err.contains("port.toml:6: ssh.port: expected a port number (1-65535), found text"),
        "{err}"
    );
    // A passphrase in a profile gets the passphrase's own keyring hint.
    let (_, err) = check(
        dir.path(),
        "pp.toml",
        "schema_version = 1\nname = \"pp\"\n\n[ssh]\nhost = \"h\"\npassphrase = \"x\"\n",
    );
    assert!(
        err.contains("pp.toml:6: ssh.passphrase: secrets never go in profiles")
            && err.contains("`dbdyno profile secret set NAME ssh-passphrase`"),
        "{err}"
    );
}

#[test]
fn a_password_in_a_profile_is_refused_without_echoing_it() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let text = GOOD.replace("[plan]", "[mysql]\npassword = \"Do-Not-Echo-77\"\n\n[plan]");
    let (code, err) = check(dir.path(), "pw.toml", &text);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("pw.toml:5: mysql.password: secrets never go in profiles"),
        "{err}"
    );
    assert!(!err.contains("Do-Not-Echo-77"), "{err}");
}

#[test]
fn ladder_refuses_an_invalid_profile_and_runs_nothing() {
    let _g = shared_server();
    let s = TestSchema::new("badprofile");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.toml");
    std::fs::write(
        &f,
        GOOD.replace("[1, 2]", "[0]") + "\n[workload]\ntables = 0\n",
    )
    .unwrap();
    let data = format!("--data-dir={}", dir.path().join("data").display());
    let o = s.dbdyno(&[
        "ladder",
        &format!("--profile={}", f.display()),
        "--prepare",
        &data,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("plan.threads[0]") && err.contains("workload.tables"),
        "both problems at once: {err}"
    );
    assert!(s.tables().is_empty(), "nothing was prepared");
    assert!(
        !dir.path().join("data").exists(),
        "no history was even opened"
    );
}

#[test]
fn command_line_overrides_the_profile_and_the_run_is_filed_under_its_name() {
    let _g = shared_server();
    let s = TestSchema::new("profilerun");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("sandbox-it.toml");
    std::fs::write(
        &f,
        format!(
            "schema_version = 1\nname = \"sandbox-it\"\nlabels = [\"local\"]\n\n[mysql]\nhost = \"{}\"\nport = {}\nuser = \"{}\"\ndb = \"{}\"\n\n\
             [plan]\nscenarios = [\"oltp_point_select\"]\nthreads = [1, 2, 4]\ntime = 60\nprepare = true\ncleanup = true\n\n\
             [workload]\ntables = 1\ntable_size = 500\n",
            s.sandbox.host, s.sandbox.port, s.sandbox.user, s.name
        ),
    )
    .unwrap();
    let data = dir.path().join("data");
    // The profile says 60 s and three thread counts; the command line says 1 s and two.
    let o = dbdyno_cmd()
        .args([
            "ladder",
            &format!("--profile={}", f.display()),
            "--time=1",
            "--threads=1,2",
            &format!("--data-dir={}", data.display()),
        ])
        .env("MYSQL_PWD", &s.sandbox.password)
        .output()
        .unwrap();
    let out = ok(&o);
    assert!(out.contains("Run id: "), "{out}");
    let list: Value = serde_json::from_str(&ok(&dbdyno_cmd()
        .args([
            "runs",
            "list",
            "--json",
            &format!("--data-dir={}", data.display()),
        ])
        .output()
        .unwrap()))
    .unwrap();
    let run = &list[0];
    assert_eq!(run["env"], "sandbox-it");
    assert_eq!(run["state"], "complete");
    assert_eq!(run["steps"], 2);
    assert_eq!(run["labels"], serde_json::json!(["local"]));
    let id = run["id"].to_string();
    let full: Value = serde_json::from_str(&ok(&dbdyno_cmd()
        .args([
            "runs",
            "show",
            &id,
            "--json",
            &format!("--data-dir={}", data.display()),
        ])
        .output()
        .unwrap()))
    .unwrap();
    assert_eq!(
        full["profile"]["plan"]["time"], 1,
        "the stored profile holds the override"
    );
    assert_eq!(
        full["profile"]["plan"]["threads"],
        serde_json::json!([1, 2])
    );
    for st in full["steps"].as_array().unwrap() {
        assert_eq!(st["result"]["intervals"].as_array().unwrap().len(), 1);
    }
    assert_eq!(full["prepare"]["rows"], 500);
    assert!(s.tables().is_empty(), "the profile's cleanup ran");
}

#[test]
fn examples_and_user_profiles_are_listed() {
    let _g = shared_server();
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("profiles")).unwrap();
    std::fs::write(
        config.path().join("profiles/mine.toml"),
        GOOD.replace("\"good\"", "\"mine\""),
    )
    .unwrap();
    std::fs::write(
        config.path().join("profiles/broken.toml"),
        "schema_version = 1\nname = \"broken\"\nbogus = 1\n",
    )
    .unwrap();
    let o = dbdyno_cmd()
        .args(["profile", "list", "--json"])
        .env("DBDYNO_CONFIG_DIR", config.path())
        .output()
        .unwrap();
    let list: Value = serde_json::from_str(&ok(&o)).unwrap();
    let names: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["origin"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("local-sandbox", "example"),
            ("remote-ssh", "example"),
            ("managed-no-ssh", "example"),
            ("broken", "user"),
            ("mine", "user")
        ]
    );
    assert!(list[3]["error"]
        .as_str()
        .unwrap()
        .contains("unknown key `bogus`"));
    // A user profile is found by name.
    let o = dbdyno_cmd()
        .args(["profile", "show", "mine"])
        .env("DBDYNO_CONFIG_DIR", config.path())
        .output()
        .unwrap();
    assert!(ok(&o).contains("name = \"mine\""));
}

#[test]
fn a_version_0_profile_is_migrated_and_its_password_dropped() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("old-idc.toml");
    std::fs::write(
        &f,
        "MYSQL_HOST = \"10.1.2.3\"\nMYSQL_PASSWORD = \"Old-Secret-42\"\nTABLES = 16\nTHREADS = \"1 8 16\"\nTEST_TIME = 30\n",
    )
    .unwrap();
    let o = dbdyno_cmd()
        .args(["profile", "show", f.to_str().unwrap()])
        .output()
        .unwrap();
    let out = ok(&o);
    assert!(
        out.starts_with("schema_version = 1\nname = \"old-idc\"\n"),
        "{out}"
    );
    assert!(out.contains("threads = [1, 8, 16]"), "{out}");
    assert!(!out.contains("Old-Secret-42") && !stderr(&o).contains("Old-Secret-42"));
    assert!(
        stderr(&o).contains("migrated from schema version 0"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("MYSQL_PASSWORD is not carried"),
        "{}",
        stderr(&o)
    );
}

/// `check --profile=F` checks the profile's server: its port, account and schema (not
/// the defaults, 127.0.0.1:3306/sbtest), with the profile's plan.
#[test]
fn check_takes_the_profiles_endpoint_schema_and_plan() {
    let _g = shared_server();
    let s = TestSchema::new("chkprofile");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("chk.toml");
    std::fs::write(
        &f,
        format!(
            "schema_version = 1\nname = \"chk\"\n\n[mysql]\nhost = \"{}\"\nport = {}\nuser = \"{}\"\ndb = \"{}\"\n\n[plan]\nscenarios = [\"oltp_point_select\"]\nthreads = [1]\n\n[workload]\ntables = 3\n",
            s.sandbox.host, s.sandbox.port, s.sandbox.user, s.name
        ),
    )
    .unwrap();
    let o = dbdyno_cmd()
        .env("MYSQL_PWD", &s.sandbox.password)
        .args([
            "check",
            &format!("--profile={}", f.display()),
            "--no-monitor",
            "--json",
        ])
        .output()
        .unwrap();
    // The schema is empty: the tables check fails, which is the point (exit 1, not 2).
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let seen = |id: &str| {
        doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))["seen"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let reachable = seen("mysql.reachable");
    assert!(
        reachable.contains(&format!(":{}", s.sandbox.port)),
        "{reachable}"
    );
    assert!(
        seen("mysql.schema").contains(&s.name),
        "{}",
        seen("mysql.schema")
    );
    let tables = seen("dataset.tables");
    assert!(tables.contains("sbtest1"), "the profile's plan: {tables}");

    // The command line still wins over the profile.
    let o = dbdyno_cmd()
        .env("MYSQL_PWD", &s.sandbox.password)
        .args([
            "check",
            &format!("--profile={}", f.display()),
            "--mysql-port=1",
            "--no-monitor",
            "--json",
        ])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let reach = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "mysql.reachable")
        .unwrap()
        .clone();
    assert_eq!(reach["status"], "fail", "{reach}");
}

/// `monitor` takes `--profile` too, and the SSH options have the same names as ladder's.
#[test]
fn monitor_and_check_accept_the_profile_and_ladders_ssh_options() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("m.toml");
    std::fs::write(&f, "schema_version = 1\nname = \"m\"\n").unwrap();
    let o = dbdyno_cmd()
        .args([
            "monitor",
            &format!("--profile={}", f.display()),
            "--duration=1",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for cmd in ["check", "monitor", "ladder"] {
        let help = ok(&dbdyno_cmd().args([cmd, "--help"]).output().unwrap());
        for opt in [
            "--profile",
            "--env",
            "--ssh-host",
            "--ssh-auth",
            "--ssh-key-path",
            "--ssh-key ",
            "--ssh-host-key-fingerprint",
            "--data-disk",
            "--device",
        ] {
            assert!(help.contains(opt), "{cmd} --help lacks {opt}");
        }
    }
}
