//! TPC-C's data side against the reference, Percona's sysbench-tpcc run by the
//! installed sysbench: a dataset prepared by either tool passes the other's
//! consistency checks, both tools create the same tables, a corrupted row fails
//! `dbdyno tpcc check` by name, and cleanup drops only TPC-C tables.
//!
//! The reference is found in `DBDYNO_SYSBENCH_TPCC_DIR`, or else in
//! `shared/reference/sysbench-tpcc` beside the project's directory, where the project
//! keeps its reference implementations; a test fails, saying so, when it is in neither.

use std::path::Path;
use std::process::Output;

use dbdyno_tests::*;
use mysql::prelude::Queryable;

const TABLES: [&str; 9] = [
    "warehouse1",
    "district1",
    "customer1",
    "history1",
    "orders1",
    "new_orders1",
    "order_line1",
    "stock1",
    "item1",
];

/// `sysbench ./tpcc.lua <options> <command>` on the schema, on one thread, so that its
/// prepare skips the reference's 30 s wait (see `sysbench_tpcc_command`).
fn reference(dir: &Path, s: &TestSchema, options: &[&str], command: &str) -> Output {
    sysbench_tpcc_command(dir)
        .arg("./tpcc.lua")
        .arg("--db-driver=mysql")
        .arg(format!("--mysql-password={}", s.sandbox.password))
        .args(s.mysql_args())
        .args(options)
        .arg("--threads=1")
        .arg(command)
        .output()
        .expect("sysbench is installed (scripts/deps.sh)")
}

fn check_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("Check ")).collect()
}

/// Every check of the reference, PASSED, for warehouse 1.
fn assert_all_passed(tool: &str, text: &str) {
    let lines = check_lines(text);
    assert_eq!(lines.len(), 10, "{tool}:\n{text}");
    assert!(
        lines.iter().all(|l| l.ends_with("warehouse: 1 PASSED")),
        "{tool}:\n{text}"
    );
}

/// `SHOW CREATE TABLE` of each table, without the AUTO_INCREMENT counter (it says how
/// many rows went in, not what the table is) and without DB Dyno's mark on warehouseN
/// (a COMMENT the reference does not write; `without_mark`).
fn create_statements(s: &TestSchema) -> Vec<String> {
    let mut c = s.conn();
    TABLES
        .iter()
        .map(|t| {
            let (_, sql): (String, String) = c
                .query_first(format!("SHOW CREATE TABLE `{t}`"))
                .unwrap()
                .unwrap();
            without_mark(&sql)
                .split_whitespace()
                .filter(|w| !w.starts_with("AUTO_INCREMENT="))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The statement without `COMMENT='made by DB Dyno: …'` (the mark holds no quote).
fn without_mark(sql: &str) -> String {
    match sql.find("COMMENT='made by DB Dyno: ") {
        Some(at) => {
            let end = sql[at + "COMMENT='".len()..]
                .find('\'')
                .map_or(sql.len(), |e| at + "COMMENT='".len() + e + 1);
            format!("{}{}", &sql[..at], &sql[end..])
        }
        None => sql.to_string(),
    }
}

#[test]
fn tpcc_dataset_of_dbdyno_passes_both_checks_and_cleanup_keeps_other_tables() {
    let _g = shared_server();
    let s = TestSchema::new("tpcc_data");
    let prepared = s.dbdyno(&["tpcc", "--scale=1", "--tables=1", "--threads=4", "prepare"]);
    let out = ok(&prepared);
    assert!(out.contains("Creating tables: 1"), "{out}");

    let mut c = s.conn();
    for (table, rows) in [
        ("warehouse1", 1),
        ("district1", 10),
        ("customer1", 30_000),
        ("history1", 30_000),
        ("orders1", 30_000),
        ("new_orders1", 9_000),
        ("stock1", 100_000),
        ("item1", 100_000),
    ] {
        assert_eq!(s.count(table), rows, "{table}");
    }
    let lines: u64 = c
        .query_first("SELECT SUM(o_ol_cnt) FROM orders1")
        .unwrap()
        .unwrap();
    assert_eq!(s.count("order_line1"), lines);
    let bad_credit: u64 = c
        .query_first("SELECT COUNT(*) FROM customer1 WHERE c_credit = 'BC'")
        .unwrap()
        .unwrap();
    assert!((2_500..3_500).contains(&bad_credit), "{bad_credit} BC");

    assert_all_passed("dbdyno", &ok(&s.dbdyno(&["tpcc", "--scale=1", "check"])));
    let reference_dir = sysbench_tpcc_dir();
    if let Some(dir) = &reference_dir {
        let theirs = reference(dir, &s, &["--scale=1", "--tables=1"], "check");
        assert_all_passed("sysbench-tpcc", &ok(&theirs));
    }

    // One district's next order id off by one: check 2 fails, and says so.
    c.query_drop(
        "UPDATE district1 SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 3",
    )
    .unwrap();
    let o = s.dbdyno(&["tpcc", "--scale=1", "check"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Check 2, warehouse: 1 FAILED!!!"), "{text}");
    assert!(text.contains("1 districts break the rule"), "{text}");
    assert!(text.contains("Check 1, warehouse: 1 PASSED"), "{text}");
    if let Some(dir) = &reference_dir {
        let theirs = stdout(&reference(dir, &s, &["--scale=1", "--tables=1"], "check"));
        assert!(
            theirs.contains("Check 2, warehouse: 1 FAILED!!!"),
            "{theirs}"
        );
    }

    c.query_drop("CREATE TABLE invoices (id INT PRIMARY KEY)")
        .unwrap();
    let out = ok(&s.dbdyno(&["tpcc", "--scale=1", "cleanup"]));
    assert!(out.contains("Dropping tables '1'..."), "{out}");
    assert_eq!(s.tables(), ["invoices"]);
}

#[test]
fn tpcc_dataset_of_the_reference_passes_dbdyno_check_and_has_the_same_tables() {
    let Some(dir) = sysbench_tpcc_dir() else {
        return;
    };
    let _g = shared_server_long();
    let theirs = TestSchema::new("tpcc_ref");
    let options = ["--scale=1", "--tables=1", "--force_pk=1"];
    ok(&reference(&dir, &theirs, &options, "prepare"));
    assert_all_passed(
        "dbdyno on sysbench-tpcc's data",
        &ok(&theirs.dbdyno(&["tpcc", "--scale=1", "check"])),
    );

    let ours = TestSchema::new("tpcc_ours");
    let mut args = vec!["tpcc", "--threads=2"];
    args.extend(options);
    args.push("prepare");
    ok(&ours.dbdyno(&args));
    let (_, marked): (String, String) = ours
        .conn()
        .query_first("SHOW CREATE TABLE warehouse1")
        .unwrap()
        .unwrap();
    assert!(
        marked.contains("COMMENT='made by DB Dyno: tpcc sets=1 scale=1 "),
        "{marked}"
    );
    let (a, b) = (create_statements(&theirs), create_statements(&ours));
    for ((t, a), b) in TABLES.iter().zip(&a).zip(&b) {
        assert_eq!(a, b, "{t}: SHOW CREATE TABLE differs");
    }
    assert!(a[3].contains("PRIMARY KEY (`id`)"), "{}", a[3]);
    assert!(
        a[6].contains("CONSTRAINT `fkey_order_line_2_1`"),
        "{}",
        a[6]
    );

    // Each tool's cleanup drops the other's tables.
    ok(&theirs.dbdyno(&["tpcc", "cleanup"]));
    assert!(theirs.tables().is_empty(), "{:?}", theirs.tables());
    ok(&reference(&dir, &ours, &options, "cleanup"));
    assert!(ours.tables().is_empty(), "{:?}", ours.tables());
}

#[test]
fn tpcc_prepare_refuses_tables_that_exist() {
    let _g = shared_server();
    let s = TestSchema::new("tpcc_twice");
    s.conn()
        .query_drop("CREATE TABLE stock1 (s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL)")
        .unwrap();
    let o = s.dbdyno(&["tpcc", "--scale=1", "prepare"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("stock1 exists with other columns"),
        "{}",
        stderr(&o)
    );
    // Nothing was created, and cleanup leaves the impostor alone.
    assert_eq!(s.tables(), ["stock1"]);
    ok(&s.dbdyno(&["tpcc", "cleanup"]));
    assert_eq!(s.tables(), ["stock1"]);
    // Only tpcc has consistency checks.
    let o = s.dbdyno(&["oltp_read_write", "check"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("only tpcc has consistency checks"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn tpcc_prepare_without_local_infile_loads_the_same_data_with_inserts() {
    let _g = shared_server();
    let server = server_without_local_infile("tpcc-noinfile");
    let s = TestSchema::on(server.sandbox(), "tpcc_noinfile");
    let o = s.dbdyno(&["tpcc", "--scale=1", "--threads=2", "prepare"]);
    let out = ok(&o);
    assert!(
        format!("{out}{}", stderr(&o)).contains("does not allow LOAD DATA LOCAL INFILE"),
        "the fallback is announced\nstdout:\n{out}\nstderr:\n{}",
        stderr(&o)
    );
    assert_eq!(s.count("stock1"), 100_000);
    assert_eq!(s.count("new_orders1"), 9_000);
    let nulls: u64 = s
        .conn()
        .query_first(
            "SELECT COUNT(*) FROM order_line1 WHERE ol_delivery_d IS NULL AND ol_o_id > 2100",
        )
        .unwrap()
        .unwrap();
    assert!(nulls > 0, "undelivered lines have no delivery date");
    assert_all_passed("dbdyno", &ok(&s.dbdyno(&["tpcc", "--scale=1", "check"])));
}
