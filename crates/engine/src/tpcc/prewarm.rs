//! prewarm for TPC-C's tables (`dbdyno tpcc prewarm`, a ladder's prewarm with tpcc among
//! its scenarios): every table of every set the run uses is read whole through its
//! clustered index and through each secondary index, as the OLTP prewarm reads sbtest's
//! primary key and its index on `k`. sysbench-tpcc has no prewarm of its own.
//!
//! The indexes are the server's, not the schema module's list: a dataset prepared with
//! `--force_pk`, by the reference, or given an index by hand is read as it is.

use std::collections::{BTreeMap, BTreeSet};

use mysql::prelude::Queryable;
use mysql::Conn;

use super::schema::table_name;
use super::TpccOptions;
use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::phases::pool;
use crate::plan::ConnectOptions;

/// The nine tables, largest first at any scale, so that the last tables the threads
/// take from the queue are small ones and no thread is left scanning alone.
const LARGEST_FIRST: [&str; 9] = [
    "order_line",
    "stock",
    "customer",
    "item",
    "orders",
    "history",
    "new_orders",
    "district",
    "warehouse",
];

/// One table's scans: the statements that read each of its indexes whole.
#[derive(Debug)]
struct TableScans {
    table: String,
    statements: Vec<String>,
}

/// One pass of the scans over sets `1..=o.tables`, on up to `threads` connections.
pub(crate) fn one_pass(
    connect: &ConnectOptions,
    o: &TpccOptions,
    threads: u32,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let indexes = {
        let mut conn = driver::connect(connect)?;
        indexes_by_table(&mut conn)?
    };
    let units = table_scans(o.tables, &indexes)?;
    pool::for_each_queued(connect, units, threads, cancel, |conn, unit| {
        events.message(format!("Prewarming table {}", unit.table));
        let context = format!("prewarming {}", unit.table);
        unit.statements
            .iter()
            .try_for_each(|sql| driver::admin_exec(conn, &context, sql))
    })
}

/// Every table of the schema with the names of its indexes (none for a table without
/// a key or index).
fn indexes_by_table(conn: &mut Conn) -> Result<BTreeMap<String, BTreeSet<String>>, EngineError> {
    let rows: Vec<(String, Option<String>)> = conn
        .query(
            "SELECT t.TABLE_NAME, s.INDEX_NAME FROM information_schema.TABLES t \
             LEFT JOIN information_schema.STATISTICS s \
             ON s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME \
             WHERE t.TABLE_SCHEMA = DATABASE()",
        )
        .map_err(|e| driver::query_error("listing the TPC-C tables' indexes", &e))?;
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (table, index) in rows {
        let entry = out.entry(table).or_default();
        entry.extend(index);
    }
    Ok(out)
}

/// The scans of every table of sets `1..=sets`, largest tables first; refused, naming
/// them, when tables of those sets are missing (prewarm reads, it never creates).
fn table_scans(
    sets: u32,
    indexes: &BTreeMap<String, BTreeSet<String>>,
) -> Result<Vec<TableScans>, EngineError> {
    let mut units = Vec::new();
    let mut missing = Vec::new();
    for table in LARGEST_FIRST {
        for set in 1..=sets {
            let name = table_name(table, set);
            match indexes.get(&name) {
                Some(idx) => units.push(TableScans {
                    statements: scans(&name, idx),
                    table: name,
                }),
                None => missing.push(name),
            }
        }
    }
    if !missing.is_empty() {
        return Err(EngineError::Refused(format!(
            "prewarm: the schema has no TPC-C table {} (--tables={sets} sets): prepare them first (dbdyno tpcc --tables={sets} --scale=N prepare)",
            missing.join(", ")
        )));
    }
    Ok(units)
}

/// The statements that read `table` whole through its clustered index, then through
/// each secondary index. `COUNT(*)` with the index forced scans every leaf page of it;
/// a table without a primary key (history without `--force_pk`) is clustered on
/// InnoDB's hidden row id, read by a scan that may use none of its secondary indexes.
fn scans(table: &str, indexes: &BTreeSet<String>) -> Vec<String> {
    let secondary: Vec<&String> = indexes.iter().filter(|i| *i != "PRIMARY").collect();
    let clustered = if indexes.contains("PRIMARY") {
        "FORCE INDEX (PRIMARY)".to_string()
    } else if secondary.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = secondary.iter().map(|i| quoted(i)).collect();
        format!("IGNORE INDEX ({})", names.join(", "))
    };
    let count = |hint: &str| {
        format!("SELECT COUNT(*) FROM {} {hint}", quoted(table))
            .trim_end()
            .to_string()
    };
    std::iter::once(count(&clustered))
        .chain(
            secondary
                .iter()
                .map(|i| count(&format!("FORCE INDEX ({})", quoted(i)))),
        )
        .collect()
}

/// A name as a quoted identifier (names come from the server's catalogue).
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

#[cfg(test)]
mod tests {
    use super::super::schema::TABLES;
    use super::*;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_index_is_read_and_the_clustered_one_first() {
        assert_eq!(
            scans("orders1", &set(&["PRIMARY", "idx_orders1"])),
            [
                "SELECT COUNT(*) FROM `orders1` FORCE INDEX (PRIMARY)",
                "SELECT COUNT(*) FROM `orders1` FORCE INDEX (`idx_orders1`)",
            ]
        );
        assert_eq!(
            scans("item1", &set(&["PRIMARY"])),
            ["SELECT COUNT(*) FROM `item1` FORCE INDEX (PRIMARY)"]
        );
    }

    #[test]
    fn a_table_without_a_key_is_read_past_its_secondary_indexes() {
        assert_eq!(
            scans("history1", &set(&["fkey_history_11", "fkey_history_21"])),
            [
                "SELECT COUNT(*) FROM `history1` IGNORE INDEX (`fkey_history_11`, `fkey_history_21`)",
                "SELECT COUNT(*) FROM `history1` FORCE INDEX (`fkey_history_11`)",
                "SELECT COUNT(*) FROM `history1` FORCE INDEX (`fkey_history_21`)",
            ]
        );
        assert_eq!(scans("bare", &set(&[])), ["SELECT COUNT(*) FROM `bare`"]);
    }

    #[test]
    fn every_table_of_every_set_is_read_largest_first_and_missing_ones_refused() {
        let mut indexes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for set_no in 1..=2 {
            for t in &TABLES {
                indexes.insert(table_name(t.name, set_no), set(&["PRIMARY"]));
            }
        }
        indexes.insert("sbtest1".into(), set(&["PRIMARY", "k_1"]));
        let units = table_scans(2, &indexes).unwrap();
        let names: Vec<&str> = units.iter().map(|u| u.table.as_str()).collect();
        assert_eq!(names.len(), 18, "{names:?}");
        assert_eq!(&names[..3], ["order_line1", "order_line2", "stock1"]);
        assert_eq!(names.last(), Some(&"warehouse2"));
        assert!(!names.contains(&"sbtest1"));

        indexes.remove("stock2");
        indexes.remove("warehouse2");
        let e = table_scans(2, &indexes).unwrap_err().to_string();
        assert!(e.contains("stock2, warehouse2"), "{e}");
        assert!(e.contains("prepare them first"), "{e}");
        assert!(table_scans(1, &indexes).is_ok(), "set 1 is whole");
    }

    #[test]
    fn the_order_names_each_table_once() {
        let mut ordered = LARGEST_FIRST.to_vec();
        let mut all: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        ordered.sort_unstable();
        all.sort_unstable();
        assert_eq!(ordered, all);
    }
}
