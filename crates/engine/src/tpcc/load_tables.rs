//! The load cut by table instead of by unit: each table of each set, every warehouse's
//! rows, loaded by one connection in one transaction and one LOAD DATA statement, so
//! that MariaDB's bulk insert into an empty InnoDB table does the work (it takes that
//! path for a transaction's first statement only).
//!
//! Why: with `unique_checks=0` and `foreign_key_checks=0` (session variables any user
//! may set), MariaDB turns a transaction's first insert into an empty InnoDB table
//! into a table lock with one undo record for the whole table (MDEV-515, MDEV-24818)
//! and buffers and sorts the index entries (MDEV-24621), instead of a row lock and an
//! undo record per row. It only does so for a table that is empty when the transaction
//! first writes to it, and every later row must go in that same transaction: one
//! connection per table, so the load is parallel across tables, not within one.
//!
//! When: on the MariaDB releases where mariadb-import itself turns it on (its
//! `can_enable_innodb_bulk_load`: 10.11.11+, 11.4.5+, 11.7.2+; earlier ones had
//! MDEV-34703), for InnoDB tables, and while the table loads can keep the threads
//! busy: a set's three big tables (stock, order_line, customer) hold about nine
//! tenths of its bytes, so about four connections per set have work; more threads
//! than that load faster by unit, across warehouses (`load_units`).

use super::load_units::{TableRows, Unit};
use super::options::TpccOptions;

/// The tables in the order their loads are handed out: longest first, so that the
/// longest load starts first and the small ones fill the gaps at the end. The server's
/// time follows rows more than bytes: order_line (about 300,000 rows a warehouse) took
/// 6 s at scale 4 where stock (100,000 rows a warehouse, more bytes) took 3.
const BIGGEST_FIRST: [&str; 9] = [
    "order_line",
    "stock",
    "customer",
    "item",
    "history",
    "orders",
    "new_orders",
    "district",
    "warehouse",
];

/// Threads per set of tables that table-by-table loading keeps busy (see the module
/// comment).
const BUSY_THREADS_PER_SET: u32 = 4;

/// How many table loads run at once: at most `threads`, and at most the server's CPUs
/// when it says how many it has (`server_cpus`). Each load is one statement, so one
/// server thread running flat out, and the longest (order_line) bounds the wall time:
/// loads beyond the server's cores only take CPU from it. Measured at scale 4 on a
/// 2-CPU server (release build, quiet machine): 4 loaders 6.1-6.3 s, 3 loaders
/// 5.9-6.1 s, 2 loaders 5.5 s.
pub fn loaders(threads: u32, server_cpus: Option<u32>) -> u32 {
    server_cpus
        .filter(|&c| c > 0)
        .map_or(threads, |c| threads.min(c))
        .max(1)
}

/// One table of one set: every unit that writes rows into it, in primary key order.
#[derive(Debug, Clone)]
pub struct TableLoad {
    /// The table without its set number (`order_line`).
    pub table: &'static str,
    pub set: u32,
    pub units: Vec<Unit>,
}

impl TableLoad {
    /// This table's part of each unit, in order.
    pub fn parts(&self) -> impl Iterator<Item = TableRows<'_>> {
        self.units
            .iter()
            .flat_map(|u| u.tables())
            .filter(move |t| t.table == self.table && t.set == self.set)
    }
}

/// Whether this prepare should load table by table: the server bulk-inserts into
/// empty tables (`version` is its `VERSION()`), the tables are InnoDB's, and the
/// table loads keep `threads` busy.
pub fn worth_it(version: &str, o: &TpccOptions, threads: u32) -> bool {
    server_bulk_inserts(version)
        && o.storage_engine.eq_ignore_ascii_case("innodb")
        && threads <= BUSY_THREADS_PER_SET * o.tables
}

/// MariaDB releases where mariadb-import enables the bulk insert (its
/// `can_enable_innodb_bulk_load`): 10.11.11 and later 10.11, 11.4.5 and later 11.4,
/// 11.7.2 and later. MySQL has no such path.
fn server_bulk_inserts(version: &str) -> bool {
    if !version.to_ascii_lowercase().contains("mariadb") {
        return false;
    }
    // Behind old replication code MariaDB reports "5.5.5-10.x": the real version follows.
    let core = version.strip_prefix("5.5.5-").unwrap_or(version);
    let mut nums = core
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|n| n.parse::<u32>().unwrap_or(0));
    let v = (
        nums.next().unwrap_or(0),
        nums.next().unwrap_or(0),
        nums.next().unwrap_or(0),
    );
    v >= (11, 7, 2)
        || ((11, 4, 5)..(11, 5, 0)).contains(&v)
        || ((10, 11, 11)..(10, 12, 0)).contains(&v)
}

/// The units of `load_units::plan` regrouped by table, biggest tables first and the
/// sets round-robin; within a table, units in primary key order (warehouse, then
/// district or first item), so each table's rows arrive sorted.
pub fn by_table(units: &[Unit]) -> Vec<TableLoad> {
    let sets = units.iter().map(Unit::set).max().unwrap_or(0);
    let mut loads = Vec::new();
    for table in BIGGEST_FIRST {
        for set in 1..=sets {
            let mut mine: Vec<Unit> = units
                .iter()
                .filter(|u| u.set() == set && u.tables().iter().any(|t| t.table == table))
                .cloned()
                .collect();
            mine.sort_by_key(Unit::key_order);
            if !mine.is_empty() {
                loads.push(TableLoad {
                    table,
                    set,
                    units: mine,
                });
            }
        }
    }
    loads
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpcc::load_units::plan;
    use crate::tpcc::rows::{RowBuf, RowFormat, RowRng};

    #[test]
    fn every_table_of_every_set_is_one_load_with_every_row_once() {
        let mut rng = RowRng::new();
        let units = plan(2, 2, &mut rng);
        let loads = by_table(&units);
        assert_eq!(loads.len(), 2 * 9);
        assert_eq!(
            loads[..4]
                .iter()
                .map(|l| (l.table, l.set))
                .collect::<Vec<_>>(),
            [
                ("order_line", 1),
                ("order_line", 2),
                ("stock", 1),
                ("stock", 2)
            ]
        );
        // Written rows per table and set: what the units plan, nothing twice.
        let count = |table: &str, set: u32| -> usize {
            let load = loads
                .iter()
                .find(|l| l.table == table && l.set == set)
                .unwrap();
            let mut b = RowBuf::new(RowFormat::Tsv);
            let mut rng = RowRng::new();
            for part in load.parts() {
                (part.write)(&mut b, &mut rng, "2026-12-01 00:00:00");
            }
            b.rows()
        };
        assert_eq!(count("stock", 2), 2 * 100_000);
        assert_eq!(count("district", 1), 2 * 10);
        assert_eq!(count("warehouse", 2), 2);
        assert_eq!(count("customer", 1), 2 * 10 * 3_000);
        assert_eq!(count("new_orders", 2), 2 * 10 * 900);
        assert_eq!(count("item", 1), 100_000);
    }

    #[test]
    fn a_tables_units_come_in_primary_key_order() {
        let mut rng = RowRng::new();
        let loads = by_table(&plan(1, 3, &mut rng));
        let stock = loads.iter().find(|l| l.table == "stock").unwrap();
        let keys: Vec<(u32, u32, u32)> = stock.units.iter().map(Unit::key_order).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(keys.first(), Some(&(1, 1, 1)));
        assert_eq!(keys.last().map(|k| k.1), Some(3));
    }

    #[test]
    fn no_more_loaders_than_threads_nor_than_the_servers_cpus() {
        assert_eq!(loaders(4, Some(2)), 2);
        assert_eq!(loaders(4, Some(16)), 4);
        assert_eq!(loaders(4, None), 4);
        assert_eq!(loaders(4, Some(0)), 4, "no answer is not zero CPUs");
        assert_eq!(loaders(0, Some(2)), 1);
    }

    #[test]
    fn only_mariadb_releases_with_the_fixed_bulk_insert_qualify() {
        for (version, bulk) in [
            ("10.11.19-MariaDB-0+deb12u1", true),
            ("10.11.11-MariaDB", true),
            ("10.11.10-MariaDB", false),
            ("5.5.5-10.11.14-MariaDB-log", true),
            ("10.6.21-MariaDB", false),
            ("11.4.4-MariaDB", false),
            ("11.4.5-MariaDB", true),
            ("11.6.2-MariaDB", false),
            ("11.8.1-MariaDB", true),
            ("12.0.2-MariaDB", true),
            ("8.0.40", false),
            ("8.4.3-percona", false),
        ] {
            assert_eq!(server_bulk_inserts(version), bulk, "{version}");
        }
    }

    #[test]
    fn table_by_table_only_for_innodb_and_while_the_loads_keep_the_threads_busy() {
        let v = "10.11.19-MariaDB";
        let o = TpccOptions::default();
        assert!(worth_it(v, &o, 4));
        assert!(!worth_it(v, &o, 5));
        let two_sets = TpccOptions {
            tables: 2,
            ..Default::default()
        };
        assert!(worth_it(v, &two_sets, 8));
        let myisam = TpccOptions {
            storage_engine: "MyISAM".into(),
            ..Default::default()
        };
        assert!(!worth_it(v, &myisam, 4));
        assert!(!worth_it("8.0.40", &o, 4));
    }
}
