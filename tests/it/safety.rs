//! prepare and cleanup touch only benchmark tables.

use dbdyno_tests::*;
use mysql::prelude::Queryable;

#[test]
fn foreign_table_blocks_prepare_without_force_and_survives_cleanup() {
    let _g = shared_server();
    let s = TestSchema::new("foreign");
    s.conn()
        .query_drop("CREATE TABLE orders (id INT PRIMARY KEY, total INT)")
        .unwrap();
    s.conn()
        .query_drop("INSERT INTO orders VALUES (1, 10), (2, 20)")
        .unwrap();

    let o = s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=500",
        "prepare",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not benchmark tables: orders"),
        "{}",
        stderr(&o)
    );
    assert_eq!(s.tables(), ["orders"]);

    ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=500",
        "--threads=2",
        "--force",
        "prepare",
    ]));
    assert_eq!(s.tables(), ["orders", "sbtest1", "sbtest2"]);
    assert_eq!(s.count("sbtest1"), 500);
    assert_eq!(s.count("sbtest2"), 500);

    // DB Dyno's own tables in the plan's shape: prepare reuses them rather than
    // loading twice (tests/it/reuse.rs covers the refusals).
    let out = ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=500",
        "--force",
        "prepare",
    ]));
    assert!(out.contains("Reusing sbtest1..2: 2 × 500 rows"), "{out}");
    assert_eq!(s.count("sbtest1"), 500);

    let out = ok(&s.dbdyno(&["oltp_read_write", "--tables=2", "cleanup"]));
    assert!(out.contains("Dropping table 'sbtest1'..."), "{out}");
    assert_eq!(s.tables(), ["orders"]);
    assert_eq!(s.count("orders"), 2);
    // The schema itself is never dropped.
    let schemas: Vec<String> = s
        .conn()
        .query(format!("SHOW DATABASES LIKE '{}'", s.name))
        .unwrap();
    assert_eq!(schemas.len(), 1);
}

#[test]
fn prepare_loads_sysbench_shape_with_secondary_index() {
    let _g = shared_server();
    let s = TestSchema::new("shapeok");
    ok(&s.dbdyno(&[
        "oltp_read_write",
        "--tables=1",
        "--table-size=3000",
        "--threads=3",
        "prepare",
    ]));
    let mut c = s.conn();
    let (min, max, n): (i64, i64, i64) = c
        .query_first("SELECT MIN(id), MAX(id), COUNT(*) FROM sbtest1")
        .unwrap()
        .unwrap();
    assert_eq!(
        (min, max, n),
        (1, 3000, 3000),
        "ids 1..N loaded once each across threads"
    );
    let bad: i64 = c
        .query_first("SELECT COUNT(*) FROM sbtest1 WHERE LENGTH(c) <> 119 OR LENGTH(pad) <> 59 OR k < 1 OR k > 3000")
        .unwrap()
        .unwrap();
    assert_eq!(bad, 0, "c/pad/k in sysbench's format and range");
    let idx: Vec<String> = c.query("SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA=DATABASE() AND TABLE_NAME='sbtest1' ORDER BY INDEX_NAME = 'PRIMARY' DESC").unwrap();
    assert_eq!(idx, ["PRIMARY", "k_1"]);
}

#[test]
fn prepare_needs_neither_local_infile_nor_prepared_statements() {
    let _g = shared_server();
    // local_infile off (MySQL 8's default) and no prepared statement allowed: the rows
    // go in as text INSERTs, said once, and they are the same rows.
    let server = server_without_local_infile("noinfile");
    server.sql("SET GLOBAL max_prepared_stmt_count = 0");
    let s = TestSchema::on(server.sandbox(), "noinfile");
    let o = s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=45000",
        "--threads=2",
        "prepare",
    ]);
    let out = ok(&o);
    assert_eq!(
        out.matches("The server refused a prepared INSERT").count(),
        1,
        "the fall back to text INSERTs is said once\nstdout:\n{out}\nstderr:\n{}",
        stderr(&o)
    );
    let mut c = s.conn();
    for t in ["sbtest1", "sbtest2"] {
        let (min, max, n): (i64, i64, i64) = c
            .query_first(format!("SELECT MIN(id), MAX(id), COUNT(*) FROM {t}"))
            .unwrap()
            .unwrap();
        assert_eq!((min, max, n), (1, 45000, 45000), "{t}: every row, once");
    }
}
