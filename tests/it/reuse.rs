//! Tables that DB Dyno made are reused by the next run's prepare; anyone else's, or
//! DB Dyno's of another shape, are refused; `--prepare=always` loads DB Dyno's own again.

use dbdyno_tests::*;
use mysql::prelude::Queryable;

/// sysbench's CREATE TABLE for sbtestN (oltp_common.lua, InnoDB, no comment): the
/// columns DB Dyno's tables have too, so only DB Dyno's mark tells them apart.
fn sysbench_table(n: u32) -> String {
    format!(
        "CREATE TABLE sbtest{n}(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, \
         c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) \
         ENGINE = innodb"
    )
}

/// A one-second ladder of `scenario` at one thread over 2 tables, with these flags.
fn ladder(
    s: &TestSchema,
    data: &std::path::Path,
    scenario: &str,
    flags: &[&str],
) -> std::process::Output {
    let scenarios = format!("--scenarios={scenario}");
    let dir = data_dir_arg(data);
    let mut args = vec![
        "ladder",
        scenarios.as_str(),
        "--ladder=1",
        "--time=1",
        "--tables=2",
        "--no-monitor",
        dir.as_str(),
    ];
    args.extend_from_slice(flags);
    s.dbdyno(&args)
}

fn comment(s: &TestSchema, table: &str) -> String {
    s.conn()
        .exec_first(
            "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
            (table,),
        )
        .unwrap()
        .unwrap()
}

fn both(o: &std::process::Output) -> String {
    format!("{}\n{}", stdout(o), stderr(o))
}

#[test]
fn dbdyno_reuses_its_own_tables_and_refuses_them_in_another_shape() {
    let _g = shared_server();
    let s = TestSchema::new("reuse");
    let data = tempfile::tempdir().unwrap();

    let first = ok(&ladder(
        &s,
        data.path(),
        "oltp_point_select",
        &["--table-size=2000", "--prepare"],
    ));
    assert!(first.contains("Prepared 2 tables, 4000 rows"), "{first}");
    let mark = comment(&s, "sbtest2");
    assert!(
        mark.starts_with("made by DB Dyno: tables=2 table_size=2000 "),
        "{mark}"
    );

    // oltp_insert adds rows (its ids above 2000): the ids 1..2000 are still all there, so
    // the dataset is still the one DB Dyno loaded, whatever the row count says.
    ok(&ladder(
        &s,
        data.path(),
        "oltp_insert",
        &["--table-size=2000"],
    ));
    let grown = s.count("sbtest1") + s.count("sbtest2");
    assert!(grown > 4000, "oltp_insert added rows: {grown}");

    let second = ok(&ladder(
        &s,
        data.path(),
        "oltp_point_select",
        &["--table-size=2000", "--prepare"],
    ));
    assert!(
        second.contains("Reusing sbtest1..2: 2 × 2,000 rows, made by DB Dyno on 20"),
        "{second}"
    );
    assert!(!second.contains("Creating table"), "{second}");
    assert_eq!(
        s.count("sbtest1") + s.count("sbtest2"),
        grown,
        "nothing loaded"
    );
    assert_eq!(
        comment(&s, "sbtest2"),
        mark,
        "the tables are the first run's"
    );
    let reused = runs_show(data.path(), run_id(&second));
    assert_eq!(
        reused["prepare"]["reused"]["tables"], 2,
        "{}",
        reused["prepare"]
    );
    assert_eq!(reused["prepare"]["reused"]["table_size"], 2000);

    // Another size: DB Dyno's tables, but not this plan's. Refused before the run, and
    // untouched.
    let o = ladder(
        &s,
        data.path(),
        "oltp_point_select",
        &["--table-size=3000", "--prepare"],
    );
    assert!(!o.status.success(), "{}", both(&o));
    assert!(
        both(&o).contains("table_size 2000 (the plan's: 3000)") && both(&o).contains("always"),
        "{}",
        both(&o)
    );
    assert_eq!(s.count("sbtest1") + s.count("sbtest2"), grown);

    // An id gone: the dataset is no longer the one loaded.
    s.conn()
        .query_drop("DELETE FROM sbtest2 WHERE id = 7")
        .unwrap();
    let o = ladder(
        &s,
        data.path(),
        "oltp_point_select",
        &["--table-size=2000", "--prepare"],
    );
    assert!(!o.status.success(), "{}", both(&o));
    assert!(
        both(&o).contains("sbtest2 holds 1,999 of the ids 1..2,000"),
        "{}",
        both(&o)
    );

    // prepare = "always": DB Dyno's own tables are dropped and loaded again.
    let again = ok(&ladder(
        &s,
        data.path(),
        "oltp_point_select",
        &["--table-size=3000", "--prepare=always"],
    ));
    assert!(
        again.contains("Dropping table 'sbtest1' (made by DB Dyno"),
        "{again}"
    );
    assert!(again.contains("Prepared 2 tables, 6000 rows"), "{again}");
    assert_eq!((s.count("sbtest1"), s.count("sbtest2")), (3000, 3000));
    assert!(comment(&s, "sbtest1").starts_with("made by DB Dyno: tables=2 table_size=3000 "));
}

#[test]
fn tables_dbdyno_did_not_make_are_refused_in_every_mode() {
    let _g = shared_server();
    let s = TestSchema::new("foreign_sb");
    let data = tempfile::tempdir().unwrap();
    let mut c = s.conn();
    for n in 1..=2 {
        c.query_drop(sysbench_table(n)).unwrap();
        let rows: Vec<String> = (1..=100)
            .map(|id| format!("({id}, {id}, '', '')"))
            .collect();
        c.query_drop(format!(
            "INSERT INTO sbtest{n} (id, k, c, pad) VALUES {}",
            rows.join(",")
        ))
        .unwrap();
    }
    for mode in ["--prepare", "--prepare=always"] {
        let o = ladder(
            &s,
            data.path(),
            "oltp_point_select",
            &["--table-size=100", mode],
        );
        assert!(!o.status.success(), "{mode}: {}", both(&o));
        assert!(
            both(&o).contains("sbtest1 exists and DB Dyno did not make it"),
            "{mode}: {}",
            both(&o)
        );
        assert_eq!(
            (s.count("sbtest1"), s.count("sbtest2")),
            (100, 100),
            "{mode}"
        );
    }
    // The explicit prepare command refuses them too, and says how to read them as they are.
    let o = s.dbdyno(&[
        "oltp_read_write",
        "--tables=2",
        "--table-size=100",
        "prepare",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", both(&o));
    assert!(both(&o).contains("prepare = \"never\""), "{}", both(&o));
    // Without prepare the run reads them as they are.
    ok(&ladder(
        &s,
        data.path(),
        "oltp_point_select",
        &["--table-size=100"],
    ));
    assert_eq!((s.count("sbtest1"), s.count("sbtest2")), (100, 100));
}

/// A one-second tpcc ladder at one thread over one set of `scale` warehouses.
fn tpcc_ladder(
    s: &TestSchema,
    data: &std::path::Path,
    scale: &str,
    prepare: &str,
) -> std::process::Output {
    let dir = data_dir_arg(data);
    s.dbdyno(&[
        "ladder",
        "--scenarios=tpcc",
        "--ladder=1",
        "--time=1",
        scale,
        "--tables=1",
        "--threads=2",
        "--no-monitor",
        dir.as_str(),
        prepare,
    ])
}

#[test]
fn dbdyno_reuses_its_own_tpcc_sets_and_never_drops_unmarked_ones() {
    let _g = shared_server();
    let s = TestSchema::new("reuse_tpcc");
    let data = tempfile::tempdir().unwrap();

    let first = ok(&tpcc_ladder(&s, data.path(), "--scale=1", "--prepare"));
    assert!(!first.contains("Reusing"), "{first}");
    let mark = comment(&s, "warehouse1");
    assert!(
        mark.starts_with("made by DB Dyno: tpcc sets=1 scale=1 use_fk=on "),
        "{mark}"
    );
    // Only the warehouse table carries the mark: the others keep the reference's DDL.
    assert_eq!(comment(&s, "stock1"), "");

    // The run's new orders grow its tables; the next prepare reuses the set all the same.
    let orders = s.count("orders1");
    let second = ok(&tpcc_ladder(&s, data.path(), "--scale=1", "--prepare"));
    assert!(
        second.contains(
            "Reusing TPC-C set 1 (warehouse1, district1, …): 1 warehouse, made by DB Dyno on 20"
        ),
        "{second}"
    );
    assert!(!second.contains("Creating tables"), "{second}");
    assert_eq!(
        comment(&s, "warehouse1"),
        mark,
        "the set is the first run's"
    );
    assert!(s.count("orders1") >= orders);
    let reused = runs_show(data.path(), run_id(&second));
    assert_eq!(
        reused["prepare"]["reused"]["tpcc_warehouses"], 1,
        "{}",
        reused["prepare"]
    );

    // Another scale: DB Dyno's set, not this plan's. Refused, untouched; always loads again.
    let o = tpcc_ladder(&s, data.path(), "--scale=2", "--prepare");
    assert!(!o.status.success(), "{}", both(&o));
    assert!(
        both(&o).contains("scale 1 (the plan's: 2)") && both(&o).contains("always"),
        "{}",
        both(&o)
    );
    assert_eq!(comment(&s, "warehouse1"), mark);
    let again = ok(&tpcc_ladder(
        &s,
        data.path(),
        "--scale=2",
        "--prepare=always",
    ));
    assert!(
        again.contains("dropping DB Dyno's TPC-C set 1 to load it again"),
        "{again}"
    );
    assert_eq!(s.count("warehouse1"), 2);
    assert!(comment(&s, "warehouse1").contains(" scale=2 "));

    // A set without the mark (sysbench-tpcc's prepare, or one cut short) is refused in
    // every mode, and left as it is.
    s.conn()
        .query_drop("ALTER TABLE warehouse1 COMMENT=''")
        .unwrap();
    for mode in ["--prepare", "--prepare=always"] {
        let o = tpcc_ladder(&s, data.path(), "--scale=2", mode);
        assert!(!o.status.success(), "{mode}: {}", both(&o));
        assert!(
            both(&o).contains("no DB Dyno mark on warehouse1"),
            "{mode}: {}",
            both(&o)
        );
        assert_eq!(s.count("warehouse1"), 2, "{mode}");
        assert_eq!(s.tables().len(), 9, "{mode}");
    }
}
