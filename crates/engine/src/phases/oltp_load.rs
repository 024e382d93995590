//! Loading the rows of the OLTP tables `sbtestN`, and building each table's secondary
//! index as soon as its last row is in.
//!
//! How rows travel: prepared multi-row INSERTs over the binary protocol, 1,000 rows a
//! statement. Measured on the sandbox MariaDB 10.11 (2,000,000 sbtest rows, one
//! connection, three alternating rounds): the server spent 10.0-10.4 CPU seconds on
//! them against 11.8-12.6 s for the same rows as `LOAD DATA LOCAL INFILE`, whose text
//! parser (`READ_INFO::read_field`, appending field bytes one at a time) took a third
//! of its time; on a small box the server's CPU per row bounds the load. Binary
//! statements also need no `local_infile`, which MySQL 8 turns off by default. A
//! server that refuses prepared statements (max_prepared_stmt_count reached) gets
//! multi-row text INSERTs instead; the rows are the same either way.
//!
//! Order: tables go in groups of as many tables as there are loader threads, their
//! chunks interleaved so that each thread mostly works on a table of its own (two
//! writers at the right edge of one primary key contend for its last page), and a
//! group finishes before the next starts. So a prepare that is cut short leaves the
//! first tables complete, with their index, and a resumed one keeps them
//! ([`super::verify`]). One big table is shared by the threads, as many as the server
//! runs at once ([`loaders`]), each thread in a stripe of the key of its own.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use mysql::prelude::Queryable;
use mysql::{Conn, Statement, Value};

use super::pool::{load_in_parallel, LoadFlags};
use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::plan::ConnectOptions;
use crate::workload::rand::SbRand;
use crate::workload::values::{fill_template, C_TEMPLATE, PAD_TEMPLATE};
use crate::workload::{sql, WorkloadOptions};

/// Rows per chunk a thread takes from the queue.
const CHUNK_ROWS: u64 = 20_000;
/// Rows per prepared INSERT: 4,000 placeholders (the protocol allows 65,535) and about
/// 190 KB a statement. 250 and 4,000 rows cost the server more per row.
const ROWS_PER_STATEMENT: u64 = 1_000;
/// Rows per text INSERT (about 400 KB of SQL: well under max_allowed_packet's 16 MB).
const ROWS_PER_TEXT_INSERT: u64 = 2_000;

/// Server errors meaning "no prepared statement for you": 1461 (max_prepared_stmt_count
/// reached), 1295 (the statement cannot be prepared here).
const PREPARE_REFUSED: [u16; 2] = [1461, 1295];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Chunk {
    table: u32,
    first_id: u64,
    last_id: u64,
}

impl Chunk {
    fn rows(&self) -> u64 {
        self.last_id - self.first_id + 1
    }
}

/// How long the rows took and how long the indexes went on after the last row.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LoadTimes {
    /// From the first row sent until every row is in.
    pub load_seconds: f64,
    /// From the last row until the last index is built: the time the indexes add.
    /// Indexes of tables finished early are built while other tables load, and
    /// count in `load_seconds`.
    pub index_seconds: f64,
}

/// Loads `tables` (already created, empty) with `threads` connections and builds the
/// secondary index of each as its last row goes in (when the plan wants one).
pub(super) fn load_tables(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    tables: &[u32],
    threads: u32,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<LoadTimes, EngineError> {
    let started = Instant::now();
    let chunks = chunks(w.table_size, tables, threads);
    let total_rows = w.table_size * tables.len() as u64;
    let shared = Shared::new(connect, w, tables, events, cancel);
    // A table of no rows still gets its index.
    if w.table_size == 0 {
        let mut conn = driver::connect(connect)?;
        for &t in tables {
            build_index(&mut conn, w, events, t)?;
        }
    }
    load_in_parallel(chunks, threads, total_rows, events, |worker, rx, flags| {
        shared.load_worker(worker, rx, flags)
    })?;
    let end = started.elapsed().as_secs_f64();
    let load_seconds = shared
        .last_row_at
        .get()
        .map_or(end, |t| t.duration_since(started).as_secs_f64());
    Ok(LoadTimes {
        load_seconds,
        index_seconds: (end - load_seconds).max(0.0),
    })
}

/// How many loader threads to use for `tables` tables out of the plan's `threads`: no
/// more per table than the server runs threads at once. More writers into one table
/// than the server has cores spin on InnoDB's index latch: measured on the sandbox
/// (2 cores) with one table of 10,000,000 rows and a 1 GiB buffer pool, 4 loaders took
/// 50.4-52.7 s and 99.6-104.3 s of server CPU for the rows, 2 loaders 37.7 s and 78.2 s,
/// 1 loader 50.6 s and 60.8 s (perf: 14% of the server's time in one spin loop under
/// `ha_write_row` with 4). MariaDB says how many threads it runs at once in
/// `thread_pool_size` (its count of the host's CPUs unless set); MySQL does not, and
/// gets every thread.
pub(super) fn loaders(conn: &mut Conn, threads: u32, tables: usize, events: &EventSink) -> u32 {
    let per_table = driver::server_cpus(conn);
    let loaders = loaders_for(threads, tables, per_table);
    if let Some(cores) = per_table.filter(|_| loaders < threads) {
        events.message(format!(
            "Loading with {loaders} of the {threads} threads: the server runs {cores} at once (thread_pool_size = {cores}), and more writers than that into one table only spin on its index latch"
        ));
    }
    loaders
}

fn loaders_for(threads: u32, tables: usize, per_table: Option<u32>) -> u32 {
    let threads = threads.max(1);
    match per_table {
        Some(p) => threads
            .min(u32::try_from(tables).unwrap_or(u32::MAX).saturating_mul(p))
            .max(1),
        None => threads,
    }
}

/// Builds the secondary index of `tables` (rows all in: a resumed prepare whose last
/// run stopped while building them), on up to `threads` connections.
pub(super) fn build_indexes(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    tables: &[u32],
    threads: u32,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    super::pool::for_each_queued(connect, tables.to_vec(), threads, cancel, |conn, t| {
        build_index(conn, w, events, t)
    })
}

/// The chunks of `tables`, in groups of `threads` tables with the chunks of a group
/// interleaved (see the module's comment). A group of fewer tables than threads (one big
/// table) cuts each table into as many stripes as it gets threads, and interleaves the
/// stripes: the chunks in flight at once then lie far apart in the primary key, so the
/// threads split different pages under different parents instead of taking turns at
/// the key's right edge.
fn chunks(table_size: u64, tables: &[u32], threads: u32) -> Vec<Chunk> {
    let threads = threads.max(1) as usize;
    let lane = |table: u32, first_id: u64, last_id: u64| {
        let mut v = Vec::new();
        let mut first = first_id;
        while first <= last_id {
            let last = (first + CHUNK_ROWS - 1).min(last_id);
            v.push(Chunk {
                table,
                first_id: first,
                last_id: last,
            });
            first = last + 1;
        }
        v
    };
    let mut out = Vec::new();
    for group in tables.chunks(threads) {
        let stripes = (threads / group.len()) as u64;
        let lanes: Vec<Vec<Chunk>> = group
            .iter()
            .flat_map(|&t| {
                (0..stripes).map(move |i| {
                    let first = table_size * i / stripes + 1;
                    let last = table_size * (i + 1) / stripes;
                    lane(t, first, last)
                })
            })
            .collect();
        let longest = lanes.iter().map(Vec::len).max().unwrap_or(0);
        out.extend((0..longest).flat_map(|i| lanes.iter().filter_map(move |l| l.get(i).copied())));
    }
    out
}

/// What every loader thread shares.
struct Shared<'a> {
    connect: &'a ConnectOptions,
    w: &'a WorkloadOptions,
    events: &'a EventSink,
    cancel: &'a CancelToken,
    /// Rows of each table not yet in: the thread that takes it to 0 builds the index.
    rows_left: BTreeMap<u32, AtomicU64>,
    /// Tables with rows not yet in: the thread that takes it to 0 sets `last_row_at`.
    tables_left: AtomicUsize,
    /// When the last row of all went in.
    last_row_at: OnceLock<Instant>,
    /// Whether the fall back to text INSERTs was said (once, not per thread).
    text_said: AtomicBool,
}

impl<'a> Shared<'a> {
    fn new(
        connect: &'a ConnectOptions,
        w: &'a WorkloadOptions,
        tables: &[u32],
        events: &'a EventSink,
        cancel: &'a CancelToken,
    ) -> Shared<'a> {
        Shared {
            connect,
            w,
            events,
            cancel,
            rows_left: tables
                .iter()
                .map(|&t| (t, AtomicU64::new(w.table_size)))
                .collect(),
            tables_left: AtomicUsize::new(tables.len()),
            last_row_at: OnceLock::new(),
            text_said: AtomicBool::new(false),
        }
    }

    fn load_worker(
        &self,
        worker: u32,
        rx: &crossbeam_channel::Receiver<Chunk>,
        flags: &LoadFlags,
    ) -> Result<(), EngineError> {
        let mut conn = driver::connect(self.connect)?;
        let mut rows = RowSource {
            rng: SbRand::new(&self.w.rand, 1_000 + worker as u64),
            table_size: self.w.table_size,
            c: String::with_capacity(120),
            pad: String::with_capacity(60),
        };
        let mut sender = RowSender::Binary(BTreeMap::new());
        while let Ok(chunk) = rx.recv() {
            if self.cancel.is_cancelled() || flags.failed.load(Ordering::Relaxed) {
                return Ok(());
            }
            self.send_chunk(&mut conn, &mut sender, &mut rows, chunk, flags)?;
            let left = self.rows_left[&chunk.table].fetch_sub(chunk.rows(), Ordering::AcqRel);
            if left == chunk.rows() {
                if self.tables_left.fetch_sub(1, Ordering::AcqRel) == 1 {
                    let _ = self.last_row_at.set(Instant::now());
                }
                if !self.cancel.is_cancelled() {
                    build_index(&mut conn, self.w, self.events, chunk.table)?;
                }
            }
        }
        sender.close(&mut conn);
        Ok(())
    }

    fn send_chunk(
        &self,
        conn: &mut Conn,
        sender: &mut RowSender,
        rows: &mut RowSource,
        chunk: Chunk,
        flags: &LoadFlags,
    ) -> Result<(), EngineError> {
        let context = || format!("loading rows into sbtest{}", chunk.table);
        let mut id = chunk.first_id;
        while id <= chunk.last_id {
            let batch = match sender {
                RowSender::Binary(_) => ROWS_PER_STATEMENT,
                RowSender::Text(_) => ROWS_PER_TEXT_INSERT,
            };
            let last = (id + batch - 1).min(chunk.last_id);
            let n = last - id + 1;
            match sender {
                RowSender::Binary(statements) if n == ROWS_PER_STATEMENT => {
                    let stmt = match statements.get(&chunk.table) {
                        Some(s) => s.clone(),
                        None => match conn.prep(insert_sql(chunk.table, n, true)) {
                            Ok(s) => statements.entry(chunk.table).or_insert(s).clone(),
                            Err(e) if is_prepare_refused(&e) => {
                                self.say_text_inserts(&e);
                                *sender = RowSender::Text(String::new());
                                continue;
                            }
                            Err(e) => return Err(driver::query_error(&context(), &e)),
                        },
                    };
                    let mut params = Vec::with_capacity(n as usize * 4);
                    for row in id..=last {
                        let k = rows.next_row();
                        params.push(Value::UInt(row));
                        params.push(Value::UInt(k));
                        params.push(Value::Bytes(rows.c.as_bytes().to_vec()));
                        params.push(Value::Bytes(rows.pad.as_bytes().to_vec()));
                    }
                    conn.exec_drop(&stmt, params)
                        .map_err(|e| driver::query_error(&context(), &e))?;
                }
                // The last rows of a table that are fewer than a statement's, and every
                // row once the server refused prepared statements.
                _ => {
                    let mut text = match sender {
                        RowSender::Text(buf) => std::mem::take(buf),
                        RowSender::Binary(_) => String::new(),
                    };
                    text.clear();
                    text.push_str(&insert_sql(chunk.table, 0, false));
                    for row in id..=last {
                        if row != id {
                            text.push(',');
                        }
                        rows.write_values(row, &mut text);
                    }
                    let sent = conn.query_drop(&text);
                    if let RowSender::Text(buf) = sender {
                        *buf = text;
                    }
                    sent.map_err(|e| driver::query_error(&context(), &e))?;
                }
            }
            flags.rows_done.fetch_add(n, Ordering::AcqRel);
            id = last + 1;
        }
        Ok(())
    }

    fn say_text_inserts(&self, e: &mysql::Error) {
        if !self.text_said.swap(true, Ordering::Relaxed) {
            self.events.message(format!(
                "The server refused a prepared INSERT ({e}): loading with multi-row text INSERTs, which cost it more per row"
            ));
        }
    }
}

/// Builds table `table`'s secondary index `k_N`, when the plan wants one.
fn build_index(
    conn: &mut Conn,
    w: &WorkloadOptions,
    events: &EventSink,
    table: u32,
) -> Result<(), EngineError> {
    if !w.create_secondary {
        return Ok(());
    }
    events.message(format!("Creating a secondary index on 'sbtest{table}'..."));
    driver::admin_exec(conn, "CREATE INDEX", &sql::create_secondary_index(table))
}

/// How a loader thread sends rows: prepared statements by table, or text INSERTs (the
/// buffer is reused from statement to statement).
enum RowSender {
    Binary(BTreeMap<u32, Statement>),
    Text(String),
}

impl RowSender {
    /// Frees the server's prepared statements (the connection closes next anyway; a
    /// failure here loses nothing).
    fn close(self, conn: &mut Conn) {
        if let RowSender::Binary(statements) = self {
            for (_, s) in statements {
                let _ = conn.close(s);
            }
        }
    }
}

fn is_prepare_refused(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(me) if PREPARE_REFUSED.contains(&me.code))
}

/// `INSERT INTO sbtestN(id, k, c, pad) VALUES` followed, for a prepared statement, by
/// `rows` groups of placeholders.
fn insert_sql(table: u32, rows: u64, placeholders: bool) -> String {
    let mut s = format!("INSERT INTO sbtest{table}(id, k, c, pad) VALUES");
    if placeholders {
        for i in 0..rows {
            s.push_str(if i == 0 { "(?,?,?,?)" } else { ",(?,?,?,?)" });
        }
    }
    s
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
    /// Draws the next row's values: returns `k`, leaves `c` and `pad` in their buffers.
    fn next_row(&mut self) -> u64 {
        let k = self.rng.default_dist(1, self.table_size);
        fill_template(&mut self.rng, C_TEMPLATE, &mut self.c);
        fill_template(&mut self.rng, PAD_TEMPLATE, &mut self.pad);
        k
    }

    /// One INSERT tuple: `(id,k,'c','pad')` (digits and dashes: no escaping).
    fn write_values(&mut self, id: u64, out: &mut String) {
        let k = self.next_row();
        let _ = write!(out, "({id},{k},'{}','{}')", self.c, self.pad);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(cs: &[Chunk], table: u32) -> Vec<(u64, u64)> {
        let mut ids: Vec<_> = cs
            .iter()
            .filter(|c| c.table == table)
            .map(|c| (c.first_id, c.last_id))
            .collect();
        ids.sort();
        ids
    }

    #[test]
    fn chunks_cover_every_row_once() {
        let cs = chunks(45_001, &[1, 2, 3], 2);
        assert_eq!(cs.iter().map(Chunk::rows).sum::<u64>(), 3 * 45_001);
        for t in 1..=3 {
            let ids = rows_of(&cs, t);
            assert_eq!(ids.first().unwrap().0, 1);
            assert_eq!(ids.last().unwrap().1, 45_001);
            for pair in ids.windows(2) {
                assert_eq!(pair[0].1 + 1, pair[1].0);
            }
        }
    }

    #[test]
    fn tables_load_in_groups_of_the_thread_count() {
        // Two threads, three tables: 1 and 2 interleaved, then 3 after both (in two
        // stripes, one per thread).
        let cs = chunks(45_001, &[1, 2, 3], 2);
        let order: Vec<u32> = cs.iter().map(|c| c.table).collect();
        assert_eq!(order, [1, 2, 1, 2, 1, 2, 3, 3, 3, 3]);
        // A resumed prepare loads only what is missing, in the same way (four threads,
        // two tables: two stripes each).
        let cs = chunks(20_000, &[2, 4], 4);
        assert_eq!(cs.iter().map(|c| c.table).collect::<Vec<_>>(), [2, 2, 4, 4]);
        assert!(chunks(0, &[1], 4).is_empty());
    }

    #[test]
    fn a_table_shared_by_threads_is_loaded_in_interleaved_stripes() {
        // One table, two threads: the chunks alternate between its two halves.
        let cs = chunks(100_000, &[1], 2);
        let firsts: Vec<u64> = cs.iter().map(|c| c.first_id).collect();
        assert_eq!(firsts, [1, 50_001, 20_001, 70_001, 40_001, 90_001]);
        assert_eq!(cs.iter().map(Chunk::rows).sum::<u64>(), 100_000);
        // Two tables, four threads: two stripes each.
        let cs = chunks(40_000, &[1, 2], 4);
        let order: Vec<(u32, u64)> = cs.iter().map(|c| (c.table, c.first_id)).collect();
        assert_eq!(order, [(1, 1), (1, 20_001), (2, 1), (2, 20_001)]);
        // A table smaller than its stripes still has every row once.
        let cs = chunks(3, &[1], 4);
        assert_eq!(rows_of(&cs, 1), [(1, 1), (2, 2), (3, 3)]);
    }

    #[test]
    fn no_more_loaders_per_table_than_the_server_runs_at_once() {
        // One big table on a 2-core server: 2 of 4 threads.
        assert_eq!(loaders_for(4, 1, Some(2)), 2);
        // Enough tables for every thread to have its own.
        assert_eq!(loaders_for(4, 16, Some(2)), 4);
        assert_eq!(loaders_for(8, 3, Some(2)), 6);
        // A server that does not say (MySQL): every thread.
        assert_eq!(loaders_for(4, 1, None), 4);
        assert_eq!(loaders_for(0, 1, Some(2)), 1);
    }

    #[test]
    fn statements_name_the_table_and_hold_one_group_per_row() {
        assert_eq!(
            insert_sql(3, 2, true),
            "INSERT INTO sbtest3(id, k, c, pad) VALUES(?,?,?,?),(?,?,?,?)"
        );
        assert_eq!(
            insert_sql(3, 2, false),
            "INSERT INTO sbtest3(id, k, c, pad) VALUES"
        );
    }
}
