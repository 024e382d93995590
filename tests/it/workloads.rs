//! Every workload runs against the real server and reports sane figures.

use dbdyno_tests::*;
use serde_json::Value;

/// Runs one `run` command with --json and returns the step object.
fn run_json(s: &TestSchema, args: &[&str]) -> Value {
    let file = tempfile::NamedTempFile::new().unwrap();
    let json = format!("--json={}", file.path().display());
    let mut all = args.to_vec();
    all.push(&json);
    all.push("run");
    let out = ok(&s.dbdyno(&all));
    assert!(out.contains("SQL statistics:"), "{out}");
    assert!(out.contains("Threads fairness:"), "{out}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    assert_eq!(doc["schema_version"], 2);
    doc["outcome"]["steps"][0].clone()
}

#[test]
fn every_oltp_workload_runs() {
    let _g = shared_server();
    let s = TestSchema::new("all_oltp");
    ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=2000",
        "--threads=2",
        "prepare",
    ]));
    for w in [
        "oltp_point_select",
        "oltp_read_only",
        "oltp_read_write",
        "oltp_write_only",
        "oltp_update_index",
        "oltp_update_non_index",
        "oltp_delete",
        "oltp_insert",
    ] {
        let step = run_json(
            &s,
            &[
                w,
                "--tables=2",
                "--table-size=2000",
                "--threads=2",
                "--time=2",
                "--report-interval=1",
            ],
        );
        assert_eq!(step["scenario"], w);
        let txns = step["transactions"].as_u64().unwrap();
        assert!(txns > 20, "{w}: only {txns} transactions");
        // Deadlocks (1213) are sysbench's ignorable errors: write workloads may hit a few.
        let errors = step["ignored_errors"].as_u64().unwrap();
        assert!(
            errors * 20 < txns,
            "{w}: {errors} ignored errors in {txns} transactions"
        );
        assert_eq!(
            step["intervals"].as_array().unwrap().len(),
            2,
            "{w}: one record per second"
        );
        let p95 = step["latency"]["p95_ms"].as_f64().unwrap();
        assert!(p95 > 0.0 && p95 < 1000.0, "{w}: p95 {p95}");
        assert!(!step["per_class"].as_array().unwrap().is_empty(), "{w}");
    }
}

#[test]
fn single_table_workloads_run() {
    let _g = shared_server();
    let s = TestSchema::new("single");
    ok(&s.dbdyno(&[
        "select_random_points",
        "--tables=1",
        "--table-size=2000",
        "prepare",
    ]));
    for w in ["select_random_points", "select_random_ranges"] {
        let step = run_json(
            &s,
            &[
                w,
                "--tables=1",
                "--table-size=2000",
                "--threads=2",
                "--time=2",
            ],
        );
        assert!(step["transactions"].as_u64().unwrap() > 20, "{w}");
    }
    // sysbench asserts --tables=1 only in prepare and cleanup: its run uses sbtest1.
    for w in ["select_random_points", "select_random_ranges"] {
        let step = run_json(&s, &[w, "--tables=4", "--table-size=2000", "--time=1"]);
        assert!(step["transactions"].as_u64().unwrap() > 10, "{w}");
        for command in ["prepare", "cleanup"] {
            let o = s.dbdyno(&[w, "--tables=2", command]);
            assert_eq!(o.status.code(), Some(2), "{w} {command}");
            assert!(
                stderr(&o).contains(&format!(
                    "{w} works on a single table (sysbench asserts --tables=1); got --tables=2"
                )),
                "{}",
                stderr(&o)
            );
        }
    }
    assert_eq!(
        s.tables(),
        ["sbtest1"],
        "the refused cleanup dropped nothing"
    );
}

/// sysbench command lines as scripts write them: an option given twice keeps its last
/// value, and --verbosity=0 leaves out the header and interval lines (not the summary).
#[test]
fn repeated_options_and_verbosity() {
    let _g = shared_server();
    let s = TestSchema::new("verbosity");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=500",
        "prepare",
    ]));
    let common = [
        "oltp_point_select",
        "--threads=4",
        "--table-size=500",
        "--time=2",
        "--report-interval=1",
        "--threads=1",
    ];
    let file = tempfile::NamedTempFile::new().unwrap();
    let json = format!("--json={}", file.path().display());
    let mut quiet = common.to_vec();
    quiet.extend(["--verbosity=0", &json, "run"]);
    let out = ok(&s.dbdyno(&quiet));
    assert!(
        !out.contains("Running the test with following options"),
        "{out}"
    );
    assert!(!out.contains("[ 1s ]"), "{out}");
    assert!(out.contains("SQL statistics:"), "{out}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    assert_eq!(
        doc["outcome"]["steps"][0]["threads"], 1,
        "the last --threads"
    );
    let mut loud = common.to_vec();
    loud.extend(["--verbosity=3", "run"]);
    let out = ok(&s.dbdyno(&loud));
    assert!(
        out.contains("Running the test with following options"),
        "{out}"
    );
    assert!(out.contains("Number of threads: 1\n"), "{out}");
    assert!(out.contains("[ 1s ]"), "{out}");
}

#[test]
fn bulk_insert_loads_rows_per_thread_table() {
    let _g = shared_server();
    let s = TestSchema::new("bulk");
    ok(&s.dbdyno(&["bulk_insert", "--threads=2", "prepare"]));
    let step = run_json(&s, &["bulk_insert", "--threads=2", "--time=2"]);
    let events = step["transactions"].as_u64().unwrap();
    let rows = s.count("sbtest1") + s.count("sbtest2");
    assert_eq!(rows, events, "every bulk_insert event is one row");
    // A second run continues after the existing ids instead of colliding.
    run_json(&s, &["bulk_insert", "--threads=2", "--time=1"]);
    ok(&s.dbdyno(&["bulk_insert", "--threads=2", "cleanup"]));
    assert!(s.tables().is_empty());
}

#[test]
fn events_rate_and_warmup() {
    let _g = shared_server();
    let s = TestSchema::new("limits");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let step = run_json(
        &s,
        &[
            "oltp_point_select",
            "--table-size=1000",
            "--threads=4",
            "--events=777",
            "--time=0",
        ],
    );
    assert_eq!(step["transactions"], 777, "--events stops at exactly N");

    let step = run_json(
        &s,
        &[
            "oltp_point_select",
            "--table-size=1000",
            "--threads=2",
            "--rate=200",
            "--time=3",
        ],
    );
    let tps = step["transactions"].as_f64().unwrap() / step["total_time_s"].as_f64().unwrap();
    assert!(
        (170.0..=230.0).contains(&tps),
        "--rate=200 gave {tps:.1} tps"
    );

    let step = run_json(
        &s,
        &[
            "oltp_point_select",
            "--table-size=1000",
            "--threads=2",
            "--warmup=1",
            "--time=2",
            "--report-interval=1",
        ],
    );
    let t = step["total_time_s"].as_f64().unwrap();
    assert!((1.9..3.0).contains(&t), "warmup is not measured: total {t}");
    assert_eq!(step["warmup_s"], 1.0);
}

#[test]
fn sysbench_grep_habits_keep_working() {
    let _g = shared_server();
    let s = TestSchema::new("grep");
    ok(&s.dbdyno(&["oltp_point_select", "--table-size=1000", "prepare"]));
    let out = ok(&s.dbdyno(&[
        "oltp_point_select",
        "--table-size=1000",
        "--threads=2",
        "--time=2",
        "--report-interval=1",
        "run",
    ]));
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("transactions:"))
        .expect("transactions line");
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert!(fields[1].parse::<u64>().unwrap() > 0, "{line}");
    assert!(
        fields[2].starts_with('(') && line.ends_with("per sec.)"),
        "{line}"
    );
    let intervals: Vec<&str> = out.lines().filter(|l| l.starts_with("[ ")).collect();
    assert_eq!(intervals.len(), 2, "{out}");
    assert!(
        intervals[0].contains(" thds: 2 tps: ") && intervals[0].contains("lat (ms,95%): "),
        "{}",
        intervals[0]
    );
}

#[test]
fn unix_socket_connects() {
    let _g = shared_server();
    let s = TestSchema::new("socket");
    let socket = std::env::var("DBDYNO_TEST_MYSQL_SOCKET")
        .expect("DBDYNO_TEST_MYSQL_SOCKET from scripts/sandbox.sh env");
    let o = dbdyno_cmd()
        .args([
            "oltp_point_select",
            "--tables=1",
            "--table-size=100",
            "prepare",
        ])
        .arg(format!("--mysql-socket={socket}"))
        .arg(format!("--mysql-user={}", s.sandbox.user))
        .arg(format!("--mysql-db={}", s.name))
        .env("MYSQL_PWD", &s.sandbox.password)
        .output()
        .unwrap();
    ok(&o);
    assert_eq!(s.count("sbtest1"), 100);
}

#[test]
fn tls_required_against_a_server_without_tls_fails_clearly() {
    let _g = shared_server();
    let s = TestSchema::new("tls");
    let o = s.dbdyno(&["oltp_point_select", "--mysql-ssl=on", "--time=1", "run"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // Said as what it is, with the two ways out, not as a network problem.
    assert!(
        stderr(&o).contains("cannot connect to MySQL")
            && stderr(&o)
                .contains("the server offers no TLS, and this connection's TLS mode (required)")
            && stderr(&o).contains("ssl_mode = \"disabled\""),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("DriverError"), "{}", stderr(&o));
    // The checks name the same cause and fix.
    let o = s.dbdyno(&["check", "--scenarios=oltp_point_select", "--mysql-ssl=on"]);
    let text = stdout(&o);
    // The check's block: its status line and the indented lines under it.
    let mut lines = text
        .lines()
        .skip_while(|l| !l.ends_with("[mysql.reachable]"));
    let head = lines.next().unwrap_or_default();
    let block: Vec<&str> = lines.take_while(|l| l.starts_with(' ')).collect();
    let block = block.join("\n");
    assert!(head.starts_with("FAIL"), "{text}");
    assert!(
        block.contains("fix:  give the server TLS") && !block.contains("bind_address"),
        "{text}"
    );
    let o = s.dbdyno(&[
        "oltp_point_select",
        "--mysql-ssl-mode=sometimes",
        "--time=1",
        "run",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown TLS mode 'sometimes'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn ctrl_c_cancels_cleanly_and_keeps_finished_steps() {
    let _g = shared_server();
    let s = TestSchema::new("cancel");
    ok(&s.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let file = tempfile::NamedTempFile::new().unwrap();
    let mut child = s.spawn_dbdyno(
        &[
            "ladder",
            "--scenarios=oltp_point_select",
            "--ladder=1,2,4",
            "--time=3",
            "--tables=1",
            "--table-size=1000",
        ],
        file.path(),
    );
    // Past the first 3 s step, inside the second: a second after its header (a fixed
    // wait from the start would land in the first step when a busy machine is slow to
    // start the run).
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    while !seen.lines().any(|l| l.starts_with("=== [2/3]")) {
        let read = std::io::BufRead::read_line(&mut stdout, &mut seen).unwrap();
        assert!(read > 0, "the ladder ended before its second step:\n{seen}");
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    std::io::Read::read_to_string(&mut stdout, &mut seen).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{seen}\n{}", stderr(&out));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    assert!(!steps.is_empty() && steps.len() <= 2, "{steps:?}");
    assert_eq!(steps[0]["cancelled"], false);
    assert_eq!(doc["outcome"]["cancelled"], true);
}
