//! The five TPC-C transactions and the purge, as tpcc_run.lua sends them: the same
//! statements in the same order, with the same locking reads, as plain text queries
//! (the reference uses no prepared statements, so the server parses what it parses).
//!
//! One file per transaction; [`TxnKind::pick`] is tpcc.lua's mix, and [`Session`]
//! runs one statement while counting it.

mod delivery;
mod new_order;
mod order_status;
mod payment;
mod purge;
mod stock_level;

use std::fmt::{self, Write};

use mysql::prelude::{FromRow, Queryable};
use mysql::Conn;
use serde::{Deserialize, Serialize};

use super::TpccOptions;
use crate::results::{QueryCounts, QueryKind};
use crate::workload::rand::SbRand;

/// The transactions of tpcc.lua's mix.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TxnKind {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
    Purge,
}

impl TxnKind {
    pub const COUNT: usize = 6;
    pub const ALL: [TxnKind; Self::COUNT] = [
        TxnKind::NewOrder,
        TxnKind::Payment,
        TxnKind::OrderStatus,
        TxnKind::Delivery,
        TxnKind::StockLevel,
        TxnKind::Purge,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The reference's function names (`new_order`, `payment`, `orderstatus`, ...) as TPC-C spells them.
    pub fn label(self) -> &'static str {
        match self {
            TxnKind::NewOrder => "New-Order",
            TxnKind::Payment => "Payment",
            TxnKind::OrderStatus => "Order-Status",
            TxnKind::Delivery => "Delivery",
            TxnKind::StockLevel => "Stock-Level",
            TxnKind::Purge => "Purge",
        }
    }

    /// tpcc.lua's `event()`: `uniform(1, 23)` (24 with `--enable_purge`), 10 New-Order,
    /// 10 Payment, then one each of Order-Status, Delivery, Stock-Level (and Purge).
    pub fn pick(rng: &mut SbRand, enable_purge: bool) -> TxnKind {
        let max = if enable_purge { 24 } else { 23 };
        match rng.uniform(1, max) {
            1..=10 => TxnKind::NewOrder,
            11..=20 => TxnKind::Payment,
            21 => TxnKind::OrderStatus,
            22 => TxnKind::Delivery,
            23 => TxnKind::StockLevel,
            _ => TxnKind::Purge,
        }
    }
}

impl fmt::Display for TxnKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// How a transaction that raised no error ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Committed,
    /// New-Order's deliberate 1%: an unused item id makes it roll back (TPC-C 2.4.2.3).
    RolledBack,
}

/// One connection's TPC-C client: the options the statements need and reused buffers.
pub struct TpccClient {
    scale: u64,
    tables: u64,
    enable_purge: bool,
    sql: String,
    text: String,
    /// Statements sent by the transaction in progress, by kind.
    pub queries: QueryCounts,
}

impl TpccClient {
    pub fn new(o: &TpccOptions) -> TpccClient {
        TpccClient {
            scale: o.scale.max(1) as u64,
            tables: o.tables.max(1) as u64,
            enable_purge: o.enable_purge,
            sql: String::with_capacity(1024),
            text: String::with_capacity(600),
            queries: QueryCounts::default(),
        }
    }

    /// What tpcc_common.lua's `db_connection_init` does on a new connection: the
    /// isolation level through whichever variable the server has (`tx_isolation` or
    /// `transaction_isolation`), no foreign key checks, no autocommit.
    pub fn init_session(conn: &mut Conn, o: &TpccOptions) -> Result<(), mysql::Error> {
        let row: Option<(String, String)> =
            conn.query_first("SHOW VARIABLES LIKE 't%_isolation'")?;
        let variable = row
            .map(|(name, _)| name)
            .unwrap_or_else(|| "tx_isolation".into());
        let level = o.trx_level.sql().replace(' ', "-");
        conn.query_drop(format!("SET SESSION {variable}='{level}'"))?;
        conn.query_drop("SET FOREIGN_KEY_CHECKS=0")?;
        conn.query_drop("SET autocommit=0")
    }

    /// Refuses a dataset smaller than the options say: a transaction drawing a
    /// warehouse that is not there would write orders for it. `Err` says what is there.
    pub fn check_dataset(conn: &mut Conn, o: &TpccOptions) -> Result<(), String> {
        for t in 1..=o.tables.max(1) {
            let found: Result<Option<u64>, _> =
                conn.query_first(format!("SELECT COUNT(*) FROM warehouse{t}"));
            match found {
                Ok(Some(n)) if n >= o.scale as u64 => {}
                Ok(n) => {
                    return Err(format!(
                        "tpcc: warehouse{t} has {} and --scale={} asks for {}: \
                         run with the --scale the data was prepared with",
                        crate::wording::count(n.unwrap_or(0) as f64, "warehouse"),
                        o.scale,
                        o.scale
                    ))
                }
                Err(e) => {
                    return Err(format!(
                        "tpcc: cannot read warehouse{t} ({e}): prepare the data first \
                         (dbdyno tpcc --scale={} --tables={} prepare)",
                        o.scale, o.tables
                    ))
                }
            }
        }
        Ok(())
    }

    /// The statement sent last: what a failed transaction was doing.
    pub fn last_statement(&self) -> &str {
        &self.sql
    }

    /// Draws the next transaction of the mix.
    pub fn pick(&self, rng: &mut SbRand) -> TxnKind {
        TxnKind::pick(rng, self.enable_purge)
    }

    /// Runs one transaction of `kind`. An error leaves the transaction open: the caller
    /// rolls back, as the reference's `before_restart_event` hook does.
    pub fn run(
        &mut self,
        conn: &mut Conn,
        rng: &mut SbRand,
        kind: TxnKind,
    ) -> Result<Outcome, mysql::Error> {
        self.queries = QueryCounts::default();
        let mut s = Session {
            conn,
            sql: &mut self.sql,
            queries: &mut self.queries,
        };
        let shape = Shape {
            scale: self.scale,
            tables: self.tables,
        };
        match kind {
            TxnKind::NewOrder => new_order::run(&mut s, rng, shape),
            TxnKind::Payment => payment::run(&mut s, rng, shape, &mut self.text),
            TxnKind::OrderStatus => order_status::run(&mut s, rng, shape, &mut self.text),
            TxnKind::Delivery => delivery::run(&mut s, rng, shape),
            TxnKind::StockLevel => stock_level::run(&mut s, rng, shape),
            TxnKind::Purge => purge::run(&mut s, rng, shape),
        }
    }
}

/// The dataset's size, as the transactions draw keys from it.
#[derive(Debug, Clone, Copy)]
struct Shape {
    scale: u64,
    tables: u64,
}

impl Shape {
    /// The common prelude of every transaction: `table_num`, then `w_id`.
    fn table_and_warehouse(self, rng: &mut SbRand) -> (u64, u64) {
        let table = rng.uniform(1, self.tables);
        let w_id = rng.uniform(1, self.scale);
        (table, w_id)
    }
}

/// One connection, a reused statement buffer, and the transaction's statement counts.
struct Session<'a> {
    conn: &'a mut Conn,
    sql: &'a mut String,
    queries: &'a mut QueryCounts,
}

impl Session<'_> {
    fn render(&mut self, args: fmt::Arguments) {
        self.sql.clear();
        let _ = self.sql.write_fmt(args);
    }

    /// Sends a statement whose rows are not needed; returns the rows it read.
    fn exec(&mut self, kind: QueryKind, args: fmt::Arguments) -> Result<u64, mysql::Error> {
        self.render(args);
        let stats = self.conn.query_drain(&*self.sql)?;
        self.queries.add(kind, 1);
        Ok(stats.rows)
    }

    /// A SELECT's first row (the rest are read and dropped), as sysbench's `query_row`.
    fn row<T: FromRow>(&mut self, args: fmt::Arguments) -> Result<Option<T>, mysql::Error> {
        self.render(args);
        let row = self.conn.query_first(&*self.sql)?;
        self.queries.add(QueryKind::Read, 1);
        Ok(row)
    }

    /// Every row of a SELECT.
    fn rows<T: FromRow>(&mut self, args: fmt::Arguments) -> Result<Vec<T>, mysql::Error> {
        self.render(args);
        let rows = self.conn.query(&*self.sql)?;
        self.queries.add(QueryKind::Read, 1);
        Ok(rows)
    }

    fn begin(&mut self) -> Result<(), mysql::Error> {
        self.exec(QueryKind::Other, format_args!("BEGIN")).map(drop)
    }

    fn commit(&mut self) -> Result<(), mysql::Error> {
        self.exec(QueryKind::Other, format_args!("COMMIT"))
            .map(drop)
    }

    fn rollback(&mut self) -> Result<(), mysql::Error> {
        self.exec(QueryKind::Other, format_args!("ROLLBACK"))
            .map(drop)
    }
}

/// Quotes a string read back from the database for a literal: the loader writes letters
/// and digits only, but a dataset from elsewhere must not break the statement.
fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        if c == '\'' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
}

/// The row to pick among customers of one last name, ordered by first name: the
/// reference rounds an odd count above 1 up and takes row `count / 2 + 1` (Lua's float
/// division, so row ⌊count / 2⌋ + 1), 1-based; the result's last row if fewer.
fn middle_customer_index(count: u64, rows: usize) -> usize {
    let count = if count > 1 && count % 2 == 1 {
        count + 1
    } else {
        count
    };
    let one_based = (count / 2 + 1) as usize;
    one_based.min(rows).max(1) - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandOptions;

    #[test]
    fn the_mix_is_ten_ten_one_one_one() {
        let mut rng = SbRand::new(
            &RandOptions {
                seed: 5,
                ..RandOptions::default()
            },
            1,
        );
        let mut counts = [0u32; TxnKind::COUNT];
        let n = 230_000;
        for _ in 0..n {
            counts[TxnKind::pick(&mut rng, false).index()] += 1;
        }
        let share = |k: TxnKind| counts[k.index()] as f64 / n as f64 * 23.0;
        assert!((share(TxnKind::NewOrder) - 10.0).abs() < 0.2);
        assert!((share(TxnKind::Payment) - 10.0).abs() < 0.2);
        for k in [TxnKind::OrderStatus, TxnKind::Delivery, TxnKind::StockLevel] {
            assert!((share(k) - 1.0).abs() < 0.1, "{k}: {}", share(k));
        }
        assert_eq!(counts[TxnKind::Purge.index()], 0);
        let purges = (0..24_000)
            .filter(|_| TxnKind::pick(&mut rng, true) == TxnKind::Purge)
            .count();
        assert!((800..1200).contains(&purges), "{purges}");
    }

    #[test]
    fn middle_customer_follows_the_reference() {
        // count → 1-based row: 1 → 1, 2 → 2, 3 (→ 4) → 3, 4 → 3, 5 (→ 6) → 4.
        for (count, row) in [(1, 1), (2, 2), (3, 3), (4, 3), (5, 4)] {
            assert_eq!(middle_customer_index(count, 10), row - 1, "count {count}");
        }
        assert_eq!(middle_customer_index(5, 2), 1);
    }

    #[test]
    fn escaping_quotes_literals() {
        let mut s = String::new();
        push_escaped(&mut s, "a'b\\c");
        assert_eq!(s, "a\\'b\\\\c");
    }
}
