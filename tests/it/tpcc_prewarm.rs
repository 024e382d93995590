//! TPC-C's prewarm against the sandbox: on a cold buffer pool, `dbdyno tpcc prewarm` and
//! a ladder's `--prewarm` with the tpcc scenario read every index of every TPC-C table
//! into the pool (counted by index in `information_schema.INNODB_BUFFER_PAGE`); tables
//! of a set that was never prepared are refused, by name.
//!
//! The pool is made cold as the OLTP prewarm test makes it (`prewarm.rs`): a restart of
//! a server of the test's own, whose pool's page list is not saved at shutdown.

use std::collections::BTreeMap;

use dbdyno_engine::tpcc::schema::{table_name, INDEXES, TABLES};
use dbdyno_tests::*;
use mysql::prelude::Queryable;
use serde_json::Value;

use crate::prewarm::{cold_pool_server, restart_with_a_cold_pool};

const SCALE: &str = "--scale=1";
const SETS: &str = "--tables=1";

/// Every index of set 1 as InnoDB names it in the buffer pool: `table1 PRIMARY`, history's
/// hidden clustered index without `--force_pk`, and each secondary index. Taken from the
/// schema module, not from the server, so that an index prewarm leaves out is missed here.
fn every_index() -> Vec<(String, String)> {
    let clustered = TABLES.iter().map(|t| {
        let key = if t.primary_key.is_empty() {
            "GEN_CLUST_INDEX"
        } else {
            "PRIMARY"
        };
        (table_name(t.name, 1), key.to_string())
    });
    let secondary = INDEXES
        .iter()
        .map(|i| (table_name(i.table, 1), format!("{}1", i.name)));
    clustered.chain(secondary).collect()
}

/// Pages of each index of the schema now in the buffer pool, by (table, index).
fn pages_by_index(s: &TestSchema) -> BTreeMap<(String, String), u64> {
    let prefix = format!("`{}`.", s.name);
    let rows: Vec<(String, String, u64)> = s
        .sandbox
        .admin()
        .query(format!(
            "SELECT TABLE_NAME, INDEX_NAME, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE \
             WHERE TABLE_NAME LIKE '{prefix}%' GROUP BY TABLE_NAME, INDEX_NAME"
        ))
        .unwrap();
    rows.into_iter()
        .map(|(table, index, pages)| {
            let table = table[prefix.len()..].trim_matches('`').to_string();
            ((table, index), pages)
        })
        .collect()
}

/// Reads every page of every index of set 1, at every level: CHECK TABLE validates each
/// index of an InnoDB table page by page. Independent of prewarm's own statements.
fn read_every_page(s: &TestSchema) {
    let mut admin = s.sandbox.admin();
    for t in &TABLES {
        let _: Vec<mysql::Row> = admin
            .query(format!(
                "CHECK TABLE `{}`.`{}`",
                s.name,
                table_name(t.name, 1)
            ))
            .unwrap();
    }
}

/// Every index has pages in the pool, and at least 90% of the pages CHECK TABLE finds
/// in it afterwards: prewarm read each index whole. (The scans read every leaf page and
/// the path to the first one; the other inner pages, about 1% of an index, only CHECK
/// TABLE reads.) The pool holds the whole dataset: nothing is evicted meanwhile.
fn assert_every_index_warm(s: &TestSchema, after: &str) {
    let warm = pages_by_index(s);
    read_every_page(s);
    let whole = pages_by_index(s);
    for key in every_index() {
        let (w, all) = (
            warm.get(&key).copied().unwrap_or(0),
            whole.get(&key).copied().unwrap_or(0),
        );
        assert!(
            w > 0 && 10 * w >= 9 * all,
            "after {after}: {} {} had {w} of its {all} pages in the pool; in the pool: {warm:?}",
            key.0,
            key.1
        );
    }
}

#[test]
fn tpcc_prewarm_reads_every_index_of_every_table_into_a_cold_pool() {
    let _g = shared_server();
    let server = cold_pool_server("tpcc-prewarm");
    let s = TestSchema::on(server.sandbox(), "tpcc_prewarm");
    ok(&s.dbdyno(&["tpcc", SCALE, SETS, "--threads=2", "prepare"]));
    let tables = TABLES.len() as u64;

    // The command: exit code 0, each table named, the hit rate said.
    restart_with_a_cold_pool(&server, &s, tables);
    let out = s.dbdyno(&["tpcc", SCALE, SETS, "--threads=2", "prewarm"]);
    let text = format!("{}{}", ok(&out), stderr(&out));
    for t in &TABLES {
        let line = format!("Prewarming table {}", table_name(t.name, 1));
        assert!(text.contains(&line), "{line} in:\n{text}");
    }
    assert!(text.contains("Buffer pool hit rate"), "{text}");
    assert!(!text.contains("sbtest"), "no OLTP table is read: {text}");
    assert_every_index_warm(&s, "dbdyno tpcc prewarm");

    // A ladder with tpcc and --prewarm: the plan says whose tables, the pool fills again.
    restart_with_a_cold_pool(&server, &s, tables);
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("out.json");
    ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=tpcc",
        "--ladder=1",
        "--time=1",
        SCALE,
        SETS,
        "--prewarm",
        &format!("--json={}", json.display()),
        &data_dir_arg(data.path()),
    ]));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let phase = doc["plan"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["phase"] == "prewarm")
        .cloned()
        .unwrap_or_else(|| panic!("a prewarm phase: {}", doc["plan"]));
    assert_eq!(phase["dataset"], "tpcc", "{phase}");
    assert!(doc["outcome"]["prewarm"]["seconds"].as_f64().unwrap() > 0.0);
    assert_every_index_warm(&s, "a ladder's --prewarm");

    // Sets never prepared: refused by name, nothing read.
    let out = s.dbdyno(&["tpcc", SCALE, "--tables=2", "prewarm"]);
    assert!(!out.status.success(), "{}", stdout(&out));
    let said = stderr(&out);
    assert!(
        said.contains("warehouse2") && said.contains("prepare them first"),
        "{said}"
    );
}
