//! prepare: create the sbtest tables and load them.
//!
//! sysbench loads one table per thread, so one big table loads on one thread. Here the
//! rows of every table are cut into chunks that all threads pull from a shared queue,
//! so the load is parallel across tables and within a table. Rows go in primary-key
//! order, streamed as `LOAD DATA LOCAL INFILE` from memory (large multi-row INSERTs when
//! the server forbids it), and the secondary index on `k` is built after the load
//! (cheaper than maintaining it row by row), as sysbench does.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

use mysql::prelude::Queryable;

use super::load_data::{self, LoadDataStream};
use super::mark::TableMark;
use super::pool::{load_in_parallel, LoadFlags};
use super::schema::{self, TableInfo, TableShape};
use super::verify::{verify_oltp_tables, FoundTables};
use super::{PrepareMode, PrepareReport};
use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::plan::ConnectOptions;
use crate::workload::rand::SbRand;
use crate::workload::values::{fill_template, C_TEMPLATE, PAD_TEMPLATE};
use crate::workload::{sql, Scenario, WorkloadOptions};

/// Rows per chunk a thread takes from the queue.
const CHUNK_ROWS: u64 = 20_000;
/// Rows per INSERT statement (about 400 KB of SQL: well under max_allowed_packet's 16 MB default).
const ROWS_PER_INSERT: u64 = 2_000;

#[derive(Debug, Clone, Copy)]
struct Chunk {
    table: u32,
    first_id: u64,
    last_id: u64,
}

/// Prepares the dataset `scenario` reads. With `mode` if-missing (or never), the OLTP
/// tables DB Dyno made earlier in the plan's shape are reused, and nothing is loaded;
/// with always, DB Dyno's own tables are dropped and loaded again. Tables DB Dyno did
/// not make are refused in every mode.
#[allow(clippy::too_many_arguments)]
pub fn prepare(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    scenario: Scenario,
    threads: u32,
    mode: PrepareMode,
    force: bool,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<PrepareReport, EngineError> {
    if scenario.is_tpcc() {
        return crate::tpcc::load::prepare(connect, &w.tpcc, threads, mode, force, events, cancel);
    }
    let started = Instant::now();
    let mut conn = driver::connect(connect)?;
    let existing = schema::list_tables(&mut conn)?;

    if scenario.uses_bulk_tables() {
        prepare_bulk(&mut conn, &existing, threads, events)?;
        return Ok(PrepareReport {
            tables: threads,
            threads,
            seconds: started.elapsed().as_secs_f64(),
            ..Default::default()
        });
    }

    // Every refusal happens before the first DROP or CREATE: bad input leaves the
    // schema as it was.
    refuse_foreign_tables(&existing, connect, force)?;
    match verify_oltp_tables(&mut conn, &existing, w)? {
        FoundTables::Absent => {}
        FoundTables::Reusable(_) | FoundTables::OursOtherShape { .. }
            if mode == PrepareMode::Always =>
        {
            drop_our_tables(&mut conn, &existing, w, events)?;
        }
        FoundTables::Reusable(reused) => {
            events.message(reused.line());
            return Ok(PrepareReport {
                tables: w.tables,
                threads,
                seconds: started.elapsed().as_secs_f64(),
                reused: Some(reused),
                ..Default::default()
            });
        }
        FoundTables::OursOtherShape { why } => {
            return Err(EngineError::Refused(format!(
                "{why}: prepare reuses DB Dyno's tables only in the plan's shape. prepare = \"always\" (--prepare=always) drops DB Dyno's tables and loads them again; or run cleanup first (dbdyno {scenario} --tables={} … cleanup)",
                w.tables
            )))
        }
        FoundTables::Foreign { table, why } => {
            let oltp_columns = existing.get(&table).map(|i| i.shape) == Some(TableShape::Oltp);
            return Err(EngineError::Refused(if oltp_columns {
                format!(
                    "{why}, so prepare neither reuses nor drops it. Run cleanup first (dbdyno {scenario} --tables={} … cleanup), run without prepare (prepare = \"never\") to read the tables as they are, or use another schema",
                    w.tables
                )
            } else {
                format!("{why}; it is not a benchmark table, so DB Dyno will not touch it. Rename it or use another schema")
            }));
        }
    }
    let mark = TableMark::now(w).comment();
    for t in 1..=w.tables {
        events.message(format!("Creating table 'sbtest{t}'..."));
        let create = format!("{} COMMENT='{mark}'", sql::create_oltp_table(t, w));
        driver::admin_exec(&mut conn, "CREATE TABLE", &create)?;
    }
    let total_rows = w.table_size * w.tables as u64;
    if w.table_size > 0 {
        events.message(format!(
            "Inserting {} into {} with {}",
            crate::wording::count(w.table_size as f64, "record"),
            crate::wording::count(w.tables, "table"),
            crate::wording::count(threads, "thread")
        ));
    }

    let load_start = Instant::now();
    load_rows(connect, w, threads, total_rows, events, cancel)?;
    let load_s = load_start.elapsed().as_secs_f64();

    let index_start = Instant::now();
    if w.create_secondary && !cancel.is_cancelled() {
        build_indexes(connect, w, threads, events, cancel)?;
    }
    let index_seconds = index_start.elapsed().as_secs_f64();
    if cancel.is_cancelled() {
        return Err(EngineError::Refused(
            "prepare was cancelled; the tables are partly loaded: run cleanup before the next prepare".into(),
        ));
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(PrepareReport {
        tables: w.tables,
        rows: total_rows,
        seconds,
        rows_per_sec: if seconds > 0.0 {
            total_rows as f64 / seconds
        } else {
            0.0
        },
        index_seconds,
        threads,
        load_seconds: load_s,
        reused: None,
    })
}

/// prepare = "always": drops the plan's tables, which the verifier found DB Dyno's own
/// (marked) before this is called; an unmarked one is left alone all the same.
fn drop_our_tables(
    conn: &mut mysql::Conn,
    existing: &BTreeMap<String, TableInfo>,
    w: &WorkloadOptions,
    events: &EventSink,
) -> Result<(), EngineError> {
    for t in 1..=w.tables {
        let name = sql::table_name(t);
        if existing.get(&name).is_some_and(|i| i.mark.is_some()) {
            events.message(format!(
                "Dropping table '{name}' (made by DB Dyno; prepare = always loads it again)..."
            ));
            driver::admin_exec(conn, "DROP TABLE", &format!("DROP TABLE `{name}`"))?;
        }
    }
    Ok(())
}

/// bulk_insert.lua's prepare: one (id, k) table per thread, CREATE IF NOT EXISTS.
fn prepare_bulk(
    conn: &mut mysql::Conn,
    existing: &BTreeMap<String, TableInfo>,
    threads: u32,
    events: &EventSink,
) -> Result<(), EngineError> {
    for t in 1..=threads {
        let name = sql::table_name(t);
        if let Some(info) = existing.get(&name) {
            if info.shape != TableShape::Bulk {
                return Err(EngineError::Refused(format!(
                    "table {name} exists with another shape ({}); bulk_insert needs (id, k). Use another schema or clean up first",
                    schema::describe_columns(&info.columns)
                )));
            }
        }
    }
    for t in 1..=threads {
        events.message(format!("Creating table 'sbtest{t}'..."));
        driver::admin_exec(
            conn,
            "creating a bulk_insert table",
            &sql::create_bulk_table(t),
        )?;
    }
    Ok(())
}

/// Refuses to load next to tables that are not benchmark tables, unless `force`.
fn refuse_foreign_tables(
    existing: &BTreeMap<String, TableInfo>,
    connect: &ConnectOptions,
    force: bool,
) -> Result<(), EngineError> {
    // TPC-C's tables are benchmark tables too: a ladder of both prepares both.
    let foreign = crate::tpcc::foreign_tables(existing);
    if !foreign.is_empty() && !force {
        return Err(EngineError::Refused(format!(
            "schema '{}' holds tables that are not benchmark tables: {}. DB Dyno only creates and drops sbtest1..N, but it will not load test data next to real data unless you pass --force (or use an empty schema)",
            connect.database,
            foreign.join(", ")
        )));
    }
    Ok(())
}

/// Interleaves tables so that early on every thread works on a different table.
fn chunks(w: &WorkloadOptions) -> Vec<Chunk> {
    let per_table: Vec<Vec<Chunk>> = (1..=w.tables)
        .map(|table| {
            let mut v = Vec::new();
            let mut first = 1;
            while first <= w.table_size {
                let last = (first + CHUNK_ROWS - 1).min(w.table_size);
                v.push(Chunk {
                    table,
                    first_id: first,
                    last_id: last,
                });
                first = last + 1;
            }
            v
        })
        .collect();
    let longest = per_table.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|i| per_table.iter().filter_map(move |t| t.get(i).copied()))
        .collect()
}

fn load_rows(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    threads: u32,
    total_rows: u64,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    load_in_parallel(
        chunks(w),
        threads,
        total_rows,
        events,
        |worker, rx, flags| load_worker(connect, w, worker, rx, flags, cancel),
    )
}

fn load_worker(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    worker: u32,
    rx: &crossbeam_channel::Receiver<Chunk>,
    flags: &LoadFlags,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let mut conn = driver::connect(connect)?;
    let mut rows = RowSource {
        rng: SbRand::new(&w.rand, 1_000 + worker as u64),
        table_size: w.table_size,
        c: String::with_capacity(120),
        pad: String::with_capacity(60),
    };
    let mut loader = Loader::LoadData(LoadDataStream::install(
        &mut conn,
        CHUNK_ROWS as usize * 200,
    ));
    let mut sql_buf = String::with_capacity((ROWS_PER_INSERT as usize) * 200 + 64);
    while let Ok(chunk) = rx.recv() {
        if cancel.is_cancelled() || flags.failed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let context = || format!("loading rows into sbtest{}", chunk.table);
        if let Loader::LoadData(stream) = &loader {
            stream.fill(|data| {
                for id in chunk.first_id..=chunk.last_id {
                    rows.write_tsv(id, data);
                }
            });
            match conn.query_drop(load_data_sql(chunk.table)) {
                Ok(()) => {
                    flags
                        .rows_done
                        .fetch_add(chunk.last_id - chunk.first_id + 1, Ordering::Relaxed);
                    continue;
                }
                // Nothing was loaded (the server refused before reading the stream):
                // this chunk and every next one go in as INSERTs.
                Err(e) if load_data::is_local_infile_refused(&e) => {
                    conn.set_local_infile_handler(None);
                    flags.inserts_instead.store(true, Ordering::Relaxed);
                    loader = Loader::Insert;
                }
                Err(e) => return Err(driver::query_error(&context(), &e)),
            }
        }
        let mut id = chunk.first_id;
        while id <= chunk.last_id {
            let last = (id + ROWS_PER_INSERT - 1).min(chunk.last_id);
            sql_buf.clear();
            let _ = write!(
                sql_buf,
                "INSERT INTO sbtest{}(id, k, c, pad) VALUES",
                chunk.table
            );
            for row in id..=last {
                if row != id {
                    sql_buf.push(',');
                }
                rows.write_values(row, &mut sql_buf);
            }
            conn.query_drop(&sql_buf)
                .map_err(|e| driver::query_error(&context(), &e))?;
            flags.rows_done.fetch_add(last - id + 1, Ordering::Relaxed);
            id = last + 1;
        }
    }
    Ok(())
}
/// How a loader thread sends rows: `LOAD DATA LOCAL INFILE` fed from memory
/// ([`super::load_data`]), or multi-row INSERTs when the server does not allow LOCAL
/// INFILE (MySQL 8's default).
enum Loader {
    LoadData(LoadDataStream),
    Insert,
}

fn load_data_sql(table: u32) -> String {
    load_data::load_data_sql(&format!("sbtest{table}"), "id, k, c, pad")
}

/// sysbench's row generator: `k` from the default distribution, `c` and `pad` from
/// their digit templates.
struct RowSource {
    rng: SbRand,
    table_size: u64,
    c: String,
    pad: String,
}

impl RowSource {
    fn next_row(&mut self) -> u64 {
        let k = self.rng.default_dist(1, self.table_size);
        fill_template(&mut self.rng, C_TEMPLATE, &mut self.c);
        fill_template(&mut self.rng, PAD_TEMPLATE, &mut self.pad);
        k
    }

    /// One LOAD DATA line: `id\tk\tc\tpad\n` (the values are digits and dashes: no escaping).
    fn write_tsv(&mut self, id: u64, out: &mut Vec<u8>) {
        let k = self.next_row();
        let _ = writeln!(out, "{id}\t{k}\t{}\t{}", self.c, self.pad);
    }

    /// One INSERT tuple: `(id,k,'c','pad')`.
    fn write_values(&mut self, id: u64, out: &mut String) {
        let k = self.next_row();
        let _ = write!(out, "({id},{k},'{}','{}')", self.c, self.pad);
    }
}

fn build_indexes(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    threads: u32,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    super::for_each_table(connect, w.tables, threads, cancel, |conn, t| {
        events.message(format!("Creating a secondary index on 'sbtest{t}'..."));
        driver::admin_exec(conn, "CREATE INDEX", &sql::create_secondary_index(t))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_row_once_and_interleave_tables() {
        let w = WorkloadOptions {
            tables: 3,
            table_size: 45_001,
            ..Default::default()
        };
        let cs = chunks(&w);
        let rows: u64 = cs.iter().map(|c| c.last_id - c.first_id + 1).sum();
        assert_eq!(rows, 3 * 45_001);
        assert_eq!(cs[0].table, 1);
        assert_eq!(cs[1].table, 2);
        assert_eq!(cs[2].table, 3);
        for t in 1..=3 {
            let mut ids: Vec<_> = cs
                .iter()
                .filter(|c| c.table == t)
                .map(|c| (c.first_id, c.last_id))
                .collect();
            ids.sort();
            assert_eq!(ids.first().unwrap().0, 1);
            assert_eq!(ids.last().unwrap().1, 45_001);
            for pair in ids.windows(2) {
                assert_eq!(pair[0].1 + 1, pair[1].0);
            }
        }
    }
}
