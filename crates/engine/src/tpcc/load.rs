//! `tpcc prepare`: create the table sets and load them, in parallel.
//!
//! The reference (tpcc_common.lua's `cmd_prepare`) creates each set's tables with
//! their secondary indexes and foreign keys, loads its items, then loads one whole
//! warehouse per thread with multi-row INSERTs. Here the tables are created with their
//! primary keys only, and the rows are streamed as `LOAD DATA LOCAL INFILE` from
//! memory (multi-row INSERTs when the server forbids it: the mechanism the OLTP
//! prepare uses, `phases::load_data`, on the same loader pool, `phases::pool`), cut
//! one of two ways:
//!
//! * **table by table** (`load_tables`) where the server bulk-inserts into empty
//!   InnoDB tables: each table in one transaction and one statement, its secondary
//!   indexes created beforehand, since the bulk insert builds them from sorted entries;
//! * **unit by unit** (`load_units`) elsewhere: units any thread may take, parallel
//!   across warehouses, and the secondary indexes built after the load in one pass per
//!   table.
//!
//! The foreign keys are added last (with FOREIGN_KEY_CHECKS=0, as the reference loads:
//! no row is checked). The end schema is the reference's, statement for statement
//! (`tests/it/tpcc_data.rs` holds the two tools' `SHOW CREATE TABLE` side by side).
//!
//! Measured at scale 4 with 4 threads on the sandbox MariaDB 10.11 (server CPU over
//! the whole prepare, docs/benchmarks.md): unit by unit with the indexes after the load
//! 12.0-12.3 s (with the indexes before it, 14.7-15.4 s); table by table in one
//! statement per table with the indexes before 9.9-10.3 s, with them after 14.5-15.0 s;
//! table by table in 20,000-row statements (only a transaction's first statement takes
//! the bulk path) 12.5-18.6 s.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use mysql::prelude::Queryable;
use mysql::Conn;

use super::dataset;
use super::load_tables::{self, TableLoad};
use super::load_units::{self, Unit};
use super::mark::TpccMark;
use super::options::TpccOptions;
use super::rows::{RowBuf, RowFormat, RowRng};
use super::schema::{self, DROP_ORDER, FOREIGN_KEYS, INDEXES, TABLES};
use super::verify::{marked_sets, verify_tpcc_tables};
use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::phases::load_data::{self, LoadDataStream};
use crate::phases::pool::{for_each_queued, load_in_parallel, LoadFlags};
use crate::phases::schema::TableInfo;
use crate::phases::{
    schema as phase_schema, FoundTables, PrepareMode, PrepareReport, ReusedTables,
};
use crate::plan::ConnectOptions;
use crate::wording::count;

/// Largest INSERT statement when LOAD DATA is refused (well under max_allowed_packet's
/// 16 MB default).
const MAX_INSERT_BYTES: usize = 1 << 20;

/// Creates and loads `o.tables` sets of `o.scale` warehouses with `threads` connections,
/// and marks each set as DB Dyno's once it is whole ([`super::mark`]).
///
/// With `mode` if-missing (or never), sets DB Dyno loaded earlier in the plan's shape are
/// reused and nothing is loaded; with always, DB Dyno's marked sets are dropped and
/// loaded again. Refuses, before creating or dropping anything, tables DB Dyno did not
/// load (sysbench-tpcc's, in every mode), DB Dyno's sets of another shape unless
/// always, and a schema holding tables that are not benchmark tables (someone's data)
/// unless `force`.
pub fn prepare(
    connect: &ConnectOptions,
    o: &TpccOptions,
    threads: u32,
    mode: PrepareMode,
    force: bool,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<PrepareReport, EngineError> {
    let started = Instant::now();
    if o.scale == 0 || o.tables == 0 {
        return Err(EngineError::Refused(
            "tpcc prepare needs --scale and --tables of at least 1".into(),
        ));
    }
    let mut conn = driver::connect(connect)?;
    if let Some(reused) = reuse_or_make_room(&mut conn, connect, o, mode, force, events)? {
        events.message(reused.line());
        return Ok(PrepareReport {
            tables: o.tables * TABLES.len() as u32,
            threads,
            seconds: started.elapsed().as_secs_f64(),
            reused: Some(reused),
            ..Default::default()
        });
    }
    let create_sql = (1..=o.tables)
        .flat_map(|set| TABLES.iter().map(move |t| (t, set)))
        .map(|(t, set)| schema::create_table_sql(t, set, o))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| EngineError::Refused(e.to_string()))?;
    for (i, sql) in create_sql.iter().enumerate() {
        if i % TABLES.len() == 0 {
            events.message(format!("Creating tables: {}", i / TABLES.len() + 1));
        }
        driver::admin_exec(&mut conn, "CREATE TABLE", sql)?;
    }

    let mut rng = RowRng::new();
    let units = load_units::plan(o.tables, o.scale, &mut rng);
    let rows_total: u64 = units.iter().map(Unit::rows).sum();
    let version: String = conn
        .query_first("SELECT VERSION()")
        .map_err(|e| driver::query_error("reading the server's version", &e))?
        .unwrap_or_default();
    let loaders = load_tables::loaders(threads, driver::server_cpus(&mut conn));
    let by_table = load_tables::worth_it(&version, o, loaders);
    // Table by table, the bulk insert builds the secondary indexes from sorted
    // entries as it loads, so they are created on the empty tables; unit by unit they
    // are built after the load, in one pass per table.
    if by_table {
        add_indexes(connect, o, threads, events, cancel)?;
    }
    events.message(format!(
        "Loading {} into {} of tables with {}{}",
        count(o.scale, "warehouse"),
        count(o.tables, "set"),
        match (by_table, loaders < threads) {
            (true, true) => format!("{loaders} of {threads} threads (one per server CPU)"),
            _ => count(threads, "thread"),
        },
        if by_table {
            ", one table per transaction (the server's bulk insert into empty tables)"
        } else {
            ""
        }
    ));
    let load_start = Instant::now();
    if by_table {
        load_by_table(connect, &units, loaders, rows_total, events, cancel)?;
    } else {
        load_rows(connect, units, threads, rows_total, events, cancel)?;
    }
    let load_seconds = load_start.elapsed().as_secs_f64();

    let index_start = Instant::now();
    if !cancel.is_cancelled() && !by_table {
        add_indexes(connect, o, threads, events, cancel)?;
    }
    if o.use_fk && !cancel.is_cancelled() {
        add_foreign_keys(&mut conn, o, events)?;
    }
    let index_seconds = index_start.elapsed().as_secs_f64();
    if cancel.is_cancelled() {
        return Err(EngineError::Refused(
            "prepare was cancelled; the tables are partly loaded: run tpcc cleanup before the next prepare".into(),
        ));
    }
    // Last: only a set whose every row, index and key is in carries the mark.
    let mark = TpccMark::now(o).comment();
    for set in 1..=o.tables {
        let warehouse = schema::table_name("warehouse", set);
        driver::admin_exec(
            &mut conn,
            "ALTER TABLE",
            &format!("ALTER TABLE {warehouse} COMMENT='{mark}'"),
        )?;
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(PrepareReport {
        tables: o.tables * TABLES.len() as u32,
        rows: rows_total,
        seconds,
        rows_per_sec: if seconds > 0.0 {
            rows_total as f64 / seconds
        } else {
            0.0
        },
        load_seconds,
        index_seconds,
        threads,
        reused: None,
    })
}

/// What prepare finds decides: the sets to reuse (Some), or room made to load (None):
/// DB Dyno's own sets dropped under always, nothing there otherwise. Every refusal comes
/// before the first DROP or CREATE: bad input leaves the schema as it was.
fn reuse_or_make_room(
    conn: &mut Conn,
    connect: &ConnectOptions,
    o: &TpccOptions,
    mode: PrepareMode,
    force: bool,
    events: &EventSink,
) -> Result<Option<ReusedTables>, EngineError> {
    let existing = phase_schema::list_tables(conn)?;
    let cleanup = format!("dbdyno tpcc --tables={} … cleanup", o.tables);
    let verdict = verify_tpcc_tables(conn, &existing, o)?;
    match &verdict {
        FoundTables::Foreign { table, why } => {
            let impostor = existing
                .get(table)
                .is_some_and(|t| matches!(dataset::classify(t), dataset::Found::Impostor { .. }));
            return Err(EngineError::Refused(if impostor {
                format!("{why}; it is not a TPC-C table, so DB Dyno will not touch it. Rename it or use another schema")
            } else {
                format!("{why}, so prepare neither reuses nor drops it. Run cleanup first ({cleanup}: it drops every table of TPC-C's names and columns), run without prepare (prepare = \"never\") to read the tables as they are, or use another schema")
            }));
        }
        FoundTables::OursOtherShape { why } if mode != PrepareMode::Always => {
            return Err(EngineError::Refused(format!(
                "{why}: prepare reuses DB Dyno's TPC-C tables only in the plan's shape. prepare = \"always\" (--prepare=always) drops DB Dyno's sets and loads them again; or run cleanup first ({cleanup})"
            )))
        }
        _ => {}
    }
    let foreign = dataset::foreign_tables(&existing);
    if !foreign.is_empty() && !force {
        return Err(EngineError::Refused(format!(
            "schema '{}' holds tables that are not benchmark tables: {}. DB Dyno only creates and drops its own tables, but it will not load test data next to real data unless you pass --force (or use an empty schema)",
            connect.database,
            foreign.join(", ")
        )));
    }
    match verdict {
        FoundTables::Reusable(reused) if mode != PrepareMode::Always => Ok(Some(reused)),
        FoundTables::Absent => Ok(None),
        // Always over DB Dyno's own sets (the refusals are above).
        _ => {
            drop_marked_sets(conn, &existing, events)?;
            Ok(None)
        }
    }
}

/// Drops every table of each set DB Dyno marked, children before parents; a set
/// without the mark is never touched here (cleanup is the command for those).
fn drop_marked_sets(
    conn: &mut Conn,
    existing: &BTreeMap<String, TableInfo>,
    events: &EventSink,
) -> Result<(), EngineError> {
    let sets = marked_sets(existing);
    driver::admin_exec(conn, "SET FOREIGN_KEY_CHECKS", "SET FOREIGN_KEY_CHECKS=0")?;
    for set in sets {
        events.message(format!(
            "prepare = \"always\": dropping DB Dyno's TPC-C set {set} to load it again"
        ));
        for table in DROP_ORDER {
            super::cleanup::drop_table(conn, table, set)?;
        }
    }
    driver::admin_exec(conn, "SET FOREIGN_KEY_CHECKS", "SET FOREIGN_KEY_CHECKS=1")?;
    Ok(())
}

fn load_rows(
    connect: &ConnectOptions,
    units: Vec<Unit>,
    threads: u32,
    rows_total: u64,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    load_in_parallel(units, threads, rows_total, events, |_, rx, flags| {
        load_worker(connect, rx, flags, cancel)
    })
}

/// One loader connection: takes units until the queue is empty, a loader failed or
/// the prepare is cancelled.
fn load_worker(
    connect: &ConnectOptions,
    rx: &crossbeam_channel::Receiver<Unit>,
    flags: &LoadFlags,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let (mut conn, mut sender) = loader_connection(connect, "SET FOREIGN_KEY_CHECKS=0")?;
    while let Ok(unit) = rx.recv() {
        if cancel.is_cancelled() || flags.failed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let now = server_now(&mut conn)?;
        for t in unit.tables() {
            let rows = sender.send(&mut conn, &t, &now, flags)?;
            flags.rows_done.fetch_add(rows, Ordering::Relaxed);
        }
    }
    Ok(())
}

fn load_by_table(
    connect: &ConnectOptions,
    units: &[Unit],
    threads: u32,
    rows_total: u64,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let loads = load_tables::by_table(units);
    let threads = threads.min(u32::try_from(loads.len()).unwrap_or(u32::MAX));
    load_in_parallel(loads, threads, rows_total, events, |_, rx, flags| {
        table_worker(connect, rx, flags, cancel)
    })
}

/// One loader connection that loads whole tables, each in one transaction and one
/// LOAD DATA statement: the server's bulk insert into an empty table (`load_tables`)
/// needs every row of the table in the transaction whose first insert found it
/// empty, and takes the bulk path only for that first statement. Cancelled or
/// failed, the connection closes and the server rolls the table's load back.
fn table_worker(
    connect: &ConnectOptions,
    rx: &crossbeam_channel::Receiver<TableLoad>,
    flags: &LoadFlags,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    // unique_checks=0 is safe: the rows are generated unique by construction.
    let (mut conn, mut sender) =
        loader_connection(connect, "SET FOREIGN_KEY_CHECKS=0, UNIQUE_CHECKS=0")?;
    while let Ok(load) = rx.recv() {
        if cancel.is_cancelled() || flags.failed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let now = server_now(&mut conn)?;
        driver::admin_exec(&mut conn, "START TRANSACTION", "START TRANSACTION")?;
        if sender.send_streamed(&mut conn, &load, &now, flags)? {
            driver::admin_exec(&mut conn, "COMMIT", "COMMIT")?;
            continue;
        }
        // LOCAL INFILE refused: the same rows as INSERTs, in the same transaction.
        for t in load.parts() {
            if cancel.is_cancelled() || flags.failed.load(Ordering::Relaxed) {
                return Ok(());
            }
            let rows = sender.send(&mut conn, &t, &now, flags)?;
            flags.rows_done.fetch_add(rows, Ordering::Relaxed);
        }
        driver::admin_exec(&mut conn, "COMMIT", "COMMIT")?;
    }
    Ok(())
}

/// A loader's connection with its session settings (`set`) and its row sender. As
/// the reference's loader connections: rows are not checked against parents (the
/// foreign keys are added after the load anyway).
fn loader_connection(
    connect: &ConnectOptions,
    set: &str,
) -> Result<(Conn, RowSender), EngineError> {
    let mut conn = driver::connect(connect)?;
    driver::admin_exec(&mut conn, "setting the loader's session", set)?;
    let sender = RowSender {
        stream: Some(LoadDataStream::install(&mut conn, 8 << 20)),
        buf: RowBuf::new(RowFormat::Tsv),
        rng: RowRng::new(),
    };
    Ok((conn, sender))
}

/// The server's `NOW()`, which the reference stores in the date columns.
fn server_now(conn: &mut Conn) -> Result<String, EngineError> {
    Ok(conn
        .query_first("SELECT CAST(NOW() AS CHAR)")
        .map_err(|e| driver::query_error("reading the server's time", &e))?
        .unwrap_or_default())
}

/// Writes a table's rows and sends them: LOAD DATA while the server takes it, INSERTs
/// from the first refusal on.
struct RowSender {
    /// None once the server refused LOCAL INFILE.
    stream: Option<LoadDataStream>,
    buf: RowBuf,
    rng: RowRng,
}

impl RowSender {
    fn send(
        &mut self,
        conn: &mut Conn,
        t: &load_units::TableRows<'_>,
        now: &str,
        flags: &LoadFlags,
    ) -> Result<u64, EngineError> {
        let table = schema::table_name(t.table, t.set);
        let context = || format!("loading rows into {table}");
        if let Some(stream) = &self.stream {
            self.buf.clear(RowFormat::Tsv);
            (t.write)(&mut self.buf, &mut self.rng, now);
            let rows = self.buf.rows() as u64;
            stream.fill(|data| std::mem::swap(data, self.buf.bytes_mut()));
            match conn.query_drop(load_data::load_data_sql(&table, t.columns)) {
                Ok(()) => return Ok(rows),
                // Nothing was loaded (the server refused before reading the stream):
                // these rows and every next ones go in as INSERTs.
                Err(e) if load_data::is_local_infile_refused(&e) => {
                    conn.set_local_infile_handler(None);
                    flags.inserts_instead.store(true, Ordering::Relaxed);
                    self.stream = None;
                }
                Err(e) => return Err(driver::query_error(&context(), &e)),
            }
        }
        self.buf.clear(RowFormat::Values);
        (t.write)(&mut self.buf, &mut self.rng, now);
        let prefix = format!("INSERT INTO {table} ({})", t.columns);
        for sql in self.buf.insert_statements(&prefix, MAX_INSERT_BYTES) {
            conn.query_drop(&sql)
                .map_err(|e| driver::query_error(&context(), &e))?;
        }
        Ok(self.buf.rows() as u64)
    }

    /// Sends a whole table load as one LOAD DATA statement, its rows written by a
    /// second thread while the server reads them. Returns false, having loaded
    /// nothing, when the server refuses LOCAL INFILE (the caller then sends the parts
    /// as INSERTs, through [`send`](Self::send)).
    fn send_streamed(
        &mut self,
        conn: &mut Conn,
        load: &TableLoad,
        now: &str,
        flags: &LoadFlags,
    ) -> Result<bool, EngineError> {
        let Some(stream) = &self.stream else {
            return Ok(false);
        };
        let Some(columns) = load.parts().next().map(|t| t.columns) else {
            return Ok(true);
        };
        let table = schema::table_name(load.table, load.set);
        // A rendezvous channel: a chunk counts as loaded once the handler took it.
        let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(0);
        stream.stream_from(rx);
        let rng = &mut self.rng;
        let sent = std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut buf = RowBuf::new(RowFormat::Tsv);
                for t in load.parts() {
                    buf.clear(RowFormat::Tsv);
                    (t.write)(&mut buf, rng, now);
                    let rows = buf.rows() as u64;
                    if tx.send(std::mem::take(buf.bytes_mut())).is_err() {
                        return;
                    }
                    flags.rows_done.fetch_add(rows, Ordering::Relaxed);
                }
            });
            let sent = conn.query_drop(load_data::load_data_sql(&table, columns));
            // Drops the receiver: a writer the server never read from stops.
            stream.fill(|_| {});
            sent
        });
        match sent {
            Ok(()) => Ok(true),
            Err(e) if load_data::is_local_infile_refused(&e) => {
                conn.set_local_infile_handler(None);
                flags.inserts_instead.store(true, Ordering::Relaxed);
                self.stream = None;
                Ok(false)
            }
            Err(e) => Err(driver::query_error(
                &format!("loading rows into {table}"),
                &e,
            )),
        }
    }
}

/// Builds every set's secondary indexes, one ALTER TABLE per table (one pass over its
/// rows), tables spread over `threads` connections.
fn add_indexes(
    connect: &ConnectOptions,
    o: &TpccOptions,
    threads: u32,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let mut work: Vec<(u32, &'static str)> = Vec::new();
    for set in 1..=o.tables {
        for i in &INDEXES {
            if !work.contains(&(set, i.table)) {
                work.push((set, i.table));
            }
        }
    }
    for set in 1..=o.tables {
        events.message(format!("Adding indexes {set} ..."));
    }
    for_each_queued(connect, work, threads, cancel, |conn, (set, table)| {
        match schema::add_indexes_sql(table, set) {
            Some(sql) => driver::admin_exec(conn, "CREATE INDEX", &sql),
            None => Ok(()),
        }
    })
}

/// Adds the foreign keys (`--use_fk`) with FOREIGN_KEY_CHECKS=0, as the reference's
/// session has it: the server then records the constraint without reading the rows.
fn add_foreign_keys(
    conn: &mut Conn,
    o: &TpccOptions,
    events: &EventSink,
) -> Result<(), EngineError> {
    driver::admin_exec(conn, "SET FOREIGN_KEY_CHECKS", "SET FOREIGN_KEY_CHECKS=0")?;
    for set in 1..=o.tables {
        events.message(format!("Adding FK {set} ..."));
        let mut tables: Vec<&str> = Vec::new();
        for f in &FOREIGN_KEYS {
            if !tables.contains(&f.table) {
                tables.push(f.table);
            }
        }
        for table in tables {
            if let Some(sql) = schema::add_foreign_keys_sql(table, set) {
                driver::admin_exec(conn, "ADD FOREIGN KEY", &sql)?;
            }
        }
    }
    Ok(())
}
