//! The acceptance test of the engine: for the same options on the same data, the
//! server's own counters per transaction match real sysbench's within 3%.

use std::collections::HashMap;
use std::process::Command;

use dbdyno_tests::*;

/// MySQL names row counters Innodb_rows_*; MariaDB 10.11 has Rows_read and Handler_*
/// instead. A counter the server does not have is skipped.
const COUNTERS: [&str; 18] = [
    "Handler_write",
    "Handler_update",
    "Handler_delete",
    "Rows_read",
    "Rows_sent",
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_begin",
    "Com_commit",
    "Handler_read_key",
    "Handler_read_next",
    "Innodb_rows_read",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Innodb_rows_deleted",
    "Questions",
];

const EVENTS: u64 = 1500;
/// select_random_ranges draws ten ranges per query, merged where they overlap, so its
/// rows per transaction vary from one run to the next of the same tool on the same data:
/// under `--rand-type=special`, six runs of 1,500 events each read 36.5–38.8
/// Handler_read_next per transaction (sysbench and DB Dyno alike, about 2.4% for one
/// run), so the two tools' difference crossed the 3% tolerance by chance (43.4 against
/// 45.5 in one CI run). Twelve thousand events: 37.5–37.8 over eight runs of both tools.
const RANGES_EVENTS: u64 = 12_000;

/// Per-transaction counter deltas of one tool's run, on freshly prepared data.
fn measure(s: &TestSchema, tool: &str, workload: &str, opts: &[String]) -> HashMap<String, f64> {
    // The same data for both tools: read-only workloads share one prepared dataset,
    // write workloads get a fresh one per tool (they change what the next run finds).
    let reads_only = matches!(
        workload,
        "oltp_point_select" | "oltp_read_only" | "select_random_points" | "select_random_ranges"
    );
    if reads_only && tool == "dbdyno" && !s.tables().is_empty() {
        return run_and_count(s, tool, workload, opts);
    }
    let single = workload.starts_with("select_random");
    let prep_workload = if single { workload } else { "oltp_read_write" };
    let prep_tables = if single { "--tables=1" } else { "--tables=2" };
    ok(
        &s.dbdyno(&[prep_workload, "--tables=2", "cleanup"].map(|a| {
            if a == "--tables=2" {
                prep_tables
            } else {
                a
            }
        })),
    );
    // Uniform k values: sysbench's default "special" piles 75% of rows onto 1% of the k
    // values, which makes select_random_ranges' row counts swing by several percent
    // from one prepared dataset to the next, whichever tool runs.
    ok(&s.dbdyno(&[
        prep_workload,
        prep_tables,
        "--table-size=10000",
        "--threads=2",
        "--rand-type=uniform",
        "prepare",
    ]));
    run_and_count(s, tool, workload, opts)
}

fn run_and_count(
    s: &TestSchema,
    tool: &str,
    workload: &str,
    opts: &[String],
) -> HashMap<String, f64> {
    let size = ["--tables=2".to_string(), "--table-size=10000".to_string()];

    let mut args: Vec<String> = vec![workload.to_string()];
    args.extend(s.mysql_args());
    args.extend(size.iter().cloned());
    if workload.starts_with("select_random") {
        args.retain(|a| a != "--tables=2");
        args.push("--tables=1".into());
    }
    args.extend(opts.iter().cloned());
    // Uniform keys unless the comparison is of a distribution.
    if !opts.iter().any(|o| o.starts_with("--rand-type=")) {
        args.push("--rand-type=uniform".to_string());
    }
    if !opts.iter().any(|o| o.starts_with("--events=")) {
        let events = if workload == "select_random_ranges" {
            RANGES_EVENTS
        } else {
            EVENTS
        };
        args.push(format!("--events={events}"));
    }
    // One thread for the single-table scripts: they give each thread its own slice of
    // the table (`rlen = table_size / threads`), and the slices hold different numbers
    // of rows near their hot keys, so with two threads a run's rows per transaction is a
    // mix weighted by how the scheduler split the events between them. sysbench alone,
    // --rand-type=special, 12,000 events on one dataset: two threads split 7084/4916 in
    // one run and 6390/5610 in the next, reading 45.2 and 44.7 Handler_read_next per
    // transaction (46.8 against DB Dyno's 44.5 failed a CI run); one thread read
    // 50.72-50.98 over three runs. The same mix made MariaDB's Rows_read look bimodal
    // (64.3-65.4 or 69.5-69.7 a transaction): with one thread, sysbench's and DB Dyno's
    // agree within 0.1% under every --rand-type, so it is compared again.
    let threads = if workload.starts_with("select_random") {
        1
    } else {
        2
    };
    args.extend([
        format!("--threads={threads}"),
        "--time=0".to_string(),
        "run".to_string(),
    ]);
    let mut admin = s.sandbox.admin();
    let before = global_status(&mut admin);
    let out = if tool == "sysbench" {
        args.insert(1, format!("--mysql-password={}", s.sandbox.password));
        Command::new("sysbench")
            .args(&args)
            .output()
            .expect("sysbench is installed (scripts/deps.sh)")
    } else {
        // No checks and no history: nothing but the benchmark's statements on the server.
        dbdyno_cmd()
            .args(&args)
            .args(["--skip-checks", "--no-history"])
            .env("MYSQL_PWD", &s.sandbox.password)
            .output()
            .unwrap()
    };
    let after = global_status(&mut admin);
    let text = ok(&out);
    let events: f64 = text
        .lines()
        .find(|l| l.contains("total number of events:"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{tool}: no event count in\n{text}"));
    COUNTERS
        .iter()
        .filter(|c| after.contains_key(**c))
        .map(|c| (c.to_string(), (after[*c] - before[*c]) / events))
        .collect()
}

fn compare(server: &PrivateSandbox, workload: &str, opts: &[&str]) -> Vec<String> {
    let s = TestSchema::on(server.sandbox(), &format!("cnt_{workload}"));
    let opts: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
    let sb = measure(&s, "sysbench", workload, &opts);
    let us = measure(&s, "dbdyno", workload, &opts);
    judge(workload, &opts, &sb, &us)
}

/// The counters of the two tools' runs that differ by more than the tolerance.
fn judge(
    workload: &str,
    opts: &[String],
    sb: &HashMap<String, f64>,
    us: &HashMap<String, f64>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for c in COUNTERS.iter().filter(|c| sb.contains_key(**c)) {
        let (a, b) = (sb[*c], us[*c]);
        // 3% of the larger value, plus a small absolute slack for counters near zero
        // (connection set-up queries are amortised over the run, not per transaction).
        let tolerance = 0.03 * a.abs().max(b.abs()) + 0.02;
        if (a - b).abs() > tolerance {
            problems.push(format!(
                "{workload} {opts:?} {c}: sysbench {a:.3}/txn, dbdyno {b:.3}/txn"
            ));
        }
        eprintln!("{workload:<24} {c:<22} sysbench {a:>9.3} dbdyno {b:>9.3} {opts:?}");
    }
    problems
}

#[test]
fn counters_per_transaction_match_sysbench() {
    // Global counters, so a server of the test's own: nothing else runs on it. It counts
    // statements and rows, not time, so it shares the machine.
    let _g = shared_server_long();
    let server = PrivateSandbox::start("counters", "");
    let mut problems = Vec::new();
    for w in [
        "oltp_point_select",
        "oltp_read_only",
        "oltp_read_write",
        "oltp_write_only",
        "oltp_update_index",
        "oltp_update_non_index",
        "oltp_delete",
        "oltp_insert",
        "select_random_points",
        "select_random_ranges",
    ] {
        problems.extend(compare(&server, w, &[]));
    }
    // Options change the statement mix the same way in both tools.
    problems.extend(compare(
        &server,
        "oltp_read_write",
        &["--skip-trx=on", "--point-selects=3", "--range-size=20"],
    ));
    problems.extend(compare(
        &server,
        "oltp_read_only",
        &["--db-ps-mode=disable", "--range-selects=off"],
    ));
    assert!(
        problems.is_empty(),
        "counter mismatches:\n{}",
        problems.join("\n")
    );
}

/// The keys each distribution draws: select_random_ranges' Handler_read_key counts the
/// BETWEEN ranges left once the server has merged the overlapping ones, so it measures
/// how concentrated the drawn keys are (sysbench 1.0.20's special gives 7.1 of 10 at
/// 20,000 rows where its pre-1.0 formula gives 7.6). oltp_read_only draws its keys
/// with the same distribution for every statement. Every --rand-type sysbench 1.0.20
/// has, on one uniform dataset per workload that both tools read.
#[test]
fn counters_per_transaction_match_sysbench_under_every_rand_type() {
    // Global counters, so a server of the test's own, as above.
    let _g = shared_server();
    let server = PrivateSandbox::start("cnt-rand", "");
    let mut problems = Vec::new();
    // oltp_read_only's counters per transaction hardly vary (14 statements, 4 ranges
    // of 100 rows): fewer of its slower transactions settle them.
    for (w, events) in [
        ("select_random_ranges", RANGES_EVENTS),
        ("oltp_read_only", 500),
    ] {
        let s = TestSchema::on(server.sandbox(), &format!("cnt_rand_{w}"));
        for (i, rand_type) in ["uniform", "gaussian", "special", "pareto"]
            .iter()
            .enumerate()
        {
            let opts = vec![
                format!("--rand-type={rand_type}"),
                format!("--events={events}"),
            ];
            // The first prepares the dataset; the workloads only read it.
            let sb = if i == 0 {
                measure(&s, "sysbench", w, &opts)
            } else {
                run_and_count(&s, "sysbench", w, &opts)
            };
            let us = run_and_count(&s, "dbdyno", w, &opts);
            problems.extend(judge(w, &opts, &sb, &us));
        }
    }
    assert!(
        problems.is_empty(),
        "counter mismatches:\n{}",
        problems.join("\n")
    );
}

#[test]
fn read_write_statement_mix_is_sysbench_s() {
    // Global counters on a server of the test's own, as above.
    let _g = shared_server();
    let server = PrivateSandbox::start("cnt-mix", "");
    let s = TestSchema::on(server.sandbox(), "cnt_mix");
    let d = measure(&s, "dbdyno", "oltp_read_write", &[]);
    let near = |c: &str, v: f64| (d[c] - v).abs() <= 0.03 * v + 0.02;
    assert!(near("Com_select", 14.0), "{d:?}");
    assert!(near("Com_update", 2.0), "{d:?}");
    assert!(near("Com_delete", 1.0), "{d:?}");
    assert!(near("Com_insert", 1.0), "{d:?}");
    assert!(near("Com_begin", 1.0), "{d:?}");
    assert!(near("Com_commit", 1.0), "{d:?}");
    assert!(near("Handler_read_next", 400.0), "{d:?}");
}
