//! The tpcc scenario's run side against the real server: for the same options on the
//! same data, sysbench-tpcc and DB Dyno cause the same server counters per transaction;
//! a run and a ladder with tpcc record to the history and render in every report format.

use std::collections::HashMap;
use std::path::Path;

use dbdyno_tests::*;
use mysql::prelude::Queryable;

/// Counters compared per transaction. Innodb_rows_* may be missing on a server build;
/// a counter the server does not have is skipped.
const COUNTERS: [&str; 12] = [
    "Com_select",
    "Com_insert",
    "Com_update",
    "Com_delete",
    "Com_commit",
    "Com_rollback",
    "Handler_read_key",
    "Handler_read_next",
    "Innodb_rows_read",
    "Innodb_rows_inserted",
    "Innodb_rows_updated",
    "Innodb_rows_deleted",
];

/// Enough transactions for the rare types (Delivery and Stock-Level, 1 in 23 each, which
/// read the most rows) to settle; a few seconds per tool at scale 1.
const EVENTS: u64 = 6000;
/// One thread and a fixed seed per tool make each tool's draw of the mix the same at
/// every run. The tools' generators differ, so the seeds are a pair whose draws agree:
/// over 6,000 events sysbench 1.0.20 with seed 3 runs 2571 New-Order, 2640 Payment, 261
/// Order-Status, 272 Delivery, 256 Stock-Level; DB Dyno with seed 5 runs 2604, 2609, 263,
/// 270, 254 (within 1.3% per type). Any pair converges with enough events, but 1 in 23
/// is few: with seed 1 for both, Stock-Level ran 262 and 281 times (7% apart) and
/// Handler_read_next, which Delivery and Stock-Level make, differed by as much.
const SYSBENCH_SEED: &str = "--rand-seed=3";
const DBDYNO_SEED: &str = "--rand-seed=5";

const TPCC_TABLES: [&str; 9] = [
    "warehouse1",
    "district1",
    "customer1",
    "history1",
    "new_orders1",
    "orders1",
    "order_line1",
    "item1",
    "stock1",
];

/// One database on the test's private server, reached with the admin account (the
/// private server's sbtest account sees only `sbtest`).
struct Db {
    server: Sandbox,
    name: String,
}

impl Db {
    fn create(port: u16, name: &str) -> Db {
        let mut server = Sandbox::from_env();
        server.port = port;
        server
            .admin()
            .query_drop(format!("CREATE DATABASE `{name}`"))
            .unwrap();
        Db {
            server,
            name: name.to_string(),
        }
    }

    fn mysql_args(&self) -> Vec<String> {
        vec![
            format!("--mysql-host={}", self.server.host),
            format!("--mysql-port={}", self.server.port),
            format!("--mysql-user={}", self.server.admin_user),
            format!("--mysql-db={}", self.name),
        ]
    }

    fn sysbench_tpcc(&self, dir: &Path, args: &[&str]) -> String {
        let mut all: Vec<String> = vec!["./tpcc.lua".into()];
        all.extend(self.mysql_args());
        all.push(format!("--mysql-password={}", self.server.admin_password));
        all.extend(args.iter().map(|a| a.to_string()));
        ok(&sysbench_tpcc_command(dir)
            .args(&all)
            .output()
            .expect("sysbench is installed (scripts/deps.sh)"))
    }

    fn dbdyno(&self, args: &[&str]) -> String {
        ok(&dbdyno_cmd()
            .args(args)
            .args(self.mysql_args())
            .env("MYSQL_PWD", &self.server.admin_password)
            .output()
            .expect("run dbdyno"))
    }

    /// A scale-1 dataset made by the reference's prepare (without foreign keys, so that
    /// a copy of it is the same data), on one thread: without its 30 s wait.
    fn prepare_reference(&self, dir: &Path) {
        self.sysbench_tpcc(
            dir,
            &[
                "--scale=1",
                "--tables=1",
                "--use_fk=0",
                "--threads=1",
                "prepare",
            ],
        );
    }

    /// Copies every tpcc table of `from` here: both tools start from the same rows.
    fn copy_from(&self, from: &Db) {
        let mut c = self.server.admin();
        for t in TPCC_TABLES {
            c.query_drop(format!(
                "CREATE TABLE `{0}`.{t} LIKE `{1}`.{t}",
                self.name, from.name
            ))
            .unwrap();
            c.query_drop(format!(
                "INSERT INTO `{0}`.{t} SELECT * FROM `{1}`.{t}",
                self.name, from.name
            ))
            .unwrap();
        }
    }

    /// Per-transaction counter deltas of one tool's run.
    fn run_and_count(&self, tool: &str, reference_dir: &Path) -> HashMap<String, f64> {
        let events = format!("--events={EVENTS}");
        let seed = if tool == "sysbench" {
            SYSBENCH_SEED
        } else {
            DBDYNO_SEED
        };
        let opts = [
            "--scale=1",
            "--tables=1",
            "--threads=1",
            "--time=0",
            seed,
            &events,
        ];
        let mut admin = self.server.admin();
        let before = global_status(&mut admin);
        let text = if tool == "sysbench" {
            let mut args = opts.to_vec();
            args.push("run");
            self.sysbench_tpcc(reference_dir, &args)
        } else {
            let mut args = vec!["tpcc"];
            args.extend(opts);
            args.extend(["--skip-checks", "--no-history", "run"]);
            self.dbdyno(&args)
        };
        let after = global_status(&mut admin);
        let events = events_of(&text);
        assert_eq!(events, EVENTS as f64, "{tool} ran {events} events");
        COUNTERS
            .iter()
            .filter(|c| after.contains_key(**c))
            .map(|c| (c.to_string(), (after[*c] - before[*c]) / events))
            .collect()
    }
}

fn events_of(text: &str) -> f64 {
    text.lines()
        .find(|l| l.contains("total number of events:"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no event count in\n{text}"))
}

#[test]
fn tpcc_counters_per_transaction_match_sysbench_tpcc() {
    let _g = shared_server_long();
    let Some(dir) = sysbench_tpcc_dir() else {
        return;
    };
    // Global counters, so a server of the test's own: other tests share the sandbox.
    let server = PrivateSandbox::start("tpcc-cnt", "");
    let reference = Db::create(server.port, "dbdyno_tpcc_run_ref");
    let ours = Db::create(server.port, "dbdyno_tpcc_run_own");
    reference.prepare_reference(&dir);
    ours.copy_from(&reference);
    let sb = reference.run_and_count("sysbench", &dir);
    let us = ours.run_and_count("dbdyno", &dir);
    let mut problems = Vec::new();
    for c in COUNTERS.iter().filter(|c| sb.contains_key(**c)) {
        let (a, b) = (sb[*c], us[*c]);
        // 5% of the larger value, plus a small absolute slack for counters near zero
        // (Com_rollback: New-Order's 1% and the connections' set-up).
        let tolerance = 0.05 * a.abs().max(b.abs()) + 0.02;
        eprintln!("tpcc {c:<22} sysbench-tpcc {a:>9.3} dbdyno {b:>9.3}");
        if (a - b).abs() > tolerance {
            problems.push(format!("{c}: sysbench-tpcc {a:.3}/txn, dbdyno {b:.3}/txn"));
        }
    }
    // The mix must have run: New-Order's inserts and Delivery's deletes are there.
    assert!(us["Com_insert"] > 4.0 && us["Com_delete"] > 0.2, "{us:?}");
    assert!(
        problems.is_empty(),
        "counter mismatches:\n{}",
        problems.join("\n")
    );
}

#[test]
fn tpcc_run_and_ladder_record_and_report() {
    let _g = shared_server();
    let s = TestSchema::new("tpcc_run_hist");
    // The OLTP step of the ladder needs its own table beside the TPC-C ones.
    ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    // DB Dyno's own prepare (the counter test above compares with the reference's data);
    // sbtest1 beside it is a benchmark table, no reason for --force.
    ok(&s.dbdyno(&["tpcc", "--scale=1", "--tables=1", "prepare"]));
    let data = tempfile::tempdir().unwrap();
    let dd = data_dir_arg(data.path());

    // A short run: sysbench's summary, then the TPC-C figures; --json carries them.
    let json = data.path().join("run.json");
    let json_arg = format!("--json={}", json.display());
    let output = s.dbdyno(&[
        "tpcc",
        "--scale=1",
        "--tables=1",
        "--threads=2",
        "--time=2",
        &json_arg,
        &dd,
        "run",
    ]);
    let out = ok(&output);
    let summary = out.find("SQL statistics:").expect("sysbench's summary");
    let tpcc = out
        .find("tpmC (New-Order/min):")
        .expect("the TPC-C figures");
    assert!(summary < tpcc, "{out}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let text = doc.to_string();
    assert!(
        text.contains("\"tpmc\"") && text.contains("\"new_order\""),
        "{text}"
    );
    // The sysbench form keeps stdout sysbench's: the run id goes to stderr.
    let run = runs_show(data.path(), run_id(&stderr(&output)));
    let step = &run["steps"][0]["result"];
    assert_eq!(step["scenario"], "tpcc", "{run}");
    assert!(step["tpcc"]["tpmc"].as_f64().unwrap() > 0.0, "{step}");

    // A 2-step ladder: tpcc and an OLTP scenario, one thread count.
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=tpcc,oltp_read_write",
        "--ladder=2",
        "--time=2",
        "--scale=1",
        "--tables=1",
        "--table-size=1000",
        "--env=it-tpcc",
        &dd,
    ]));
    assert!(out.contains("tpmC "), "{out}");
    let id = run_id(&out);
    let run = runs_show(data.path(), id);
    let steps = run["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{run}");
    assert!(steps[0]["result"]["tpcc"]["nopm"].as_f64().unwrap() > 0.0);
    assert!(
        steps[1]["result"].get("tpcc").is_none(),
        "an OLTP step has no TPC-C figures"
    );

    // Every report format renders the recorded ladder.
    let out_dir = report_every_format(id, data.path());
    let f = |name: &str| out_dir.path().join(name);
    for name in ["r.html", "r.md", "r.csv", "r.json"] {
        let text = std::fs::read_to_string(f(name)).unwrap();
        assert!(text.contains("tpcc"), "{name} names the tpcc step:\n{text}");
    }
    assert!(std::fs::metadata(f("r.pdf")).unwrap().len() > 1000);
}

/// A ladder of an OLTP scenario and tpcc with --prepare and --cleanup loads both
/// datasets (sbtest1 and TPC-C's tables), runs both steps on them, and drops both.
#[test]
fn a_ladder_of_oltp_and_tpcc_prepares_and_cleans_up_both_datasets() {
    let _g = shared_server();
    let s = TestSchema::new("tpcc_oltp_both");
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("out.json");
    ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=tpcc,oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--scale=1",
        "--tables=1",
        "--table-size=1000",
        "--prepare",
        "--cleanup",
        &format!("--json={}", json.display()),
        &data_dir_arg(data.path()),
    ]));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let phases_of = |kind: &str| -> Vec<String> {
        doc["plan"]["phases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["phase"] == kind)
            .map(|p| p["scenario"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(phases_of("prepare"), ["tpcc", "oltp_point_select"]);
    assert_eq!(phases_of("cleanup"), ["tpcc", "oltp_point_select"]);
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{}", doc["outcome"]);
    assert!(
        steps[0]["tpcc"]["tpmc"].as_f64().unwrap() > 0.0,
        "{}",
        steps[0]
    );
    assert!(
        steps[1]["transactions"].as_u64().unwrap() > 0,
        "{}",
        steps[1]
    );
    // One prepare report for both: sbtest1 and the nine TPC-C tables.
    assert_eq!(
        doc["outcome"]["prepare"]["tables"], 10,
        "{}",
        doc["outcome"]
    );
    assert_eq!(
        s.tables(),
        Vec::<String>::new(),
        "cleanup dropped both datasets"
    );
}
