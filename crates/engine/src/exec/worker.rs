//! One worker: one OS thread, one connection, its own random generator and its own
//! statistics. Nothing in the loop is shared but a lock-free stop flag and one
//! uncontended mutex per transaction for the live interval figures.

use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::Conn;

use super::opening::{OpenError, Opening};
use super::share::ShareHistograms;
use super::shared::{sleep_until, start_lag, IntervalCell, Shared};
use super::silence::AnswerSlot;
use super::statements::{Draw, SliceDraw, Statements};
use crate::driver::{self, ErrorKind};
use crate::error::EngineError;
use crate::results::QueryCounts;
use crate::stats::LatencyHistogram;
use crate::tpcc::run::{Retried, TpccTotals};
use crate::tpcc::txn::{Outcome, TpccClient, TxnKind};
use crate::workload::rand::SbRand;
use crate::workload::shape::TxnShape;
use crate::workload::{sql, Scenario, StatementClass};

/// A lost connection is retried this long before the step fails: the same budget a
/// step's first connections get.
const RECONNECT_GIVE_UP: Duration = super::opening::BUDGET;
/// sysbench's bulk insert flushes a multi-row INSERT at this size.
const BULK_FLUSH_BYTES: usize = 512 * 1024;

/// What a worker hands back when the step ends.
pub struct WorkerTotals {
    pub transactions: u64,
    pub queries: QueryCounts,
    pub ignored_errors: u64,
    pub reconnects: u64,
    /// Indexed by [`StatementClass::index`]; a class gets its histogram on its first
    /// statement, at two significant digits ([`LatencyHistogram::coarse`]). An empty
    /// 3-digit HDR histogram is 16 KiB and a worker runs a few of the 14 classes:
    /// allocating all of them cost a 1,024-thread step over 200 MB.
    pub per_class: Vec<Option<LatencyHistogram>>,
    /// Sum of measured transaction times (sysbench's per-thread "execution time").
    pub busy: Duration,
    /// Open loop: measured transactions that started late, and the longest start lag.
    pub late_starts: u64,
    pub max_lag_us: u64,
    /// The tpcc scenario's per-transaction-type figures; None for the OLTP ones.
    pub tpcc: Option<TpccTotals>,
}

impl WorkerTotals {
    fn record_class(&mut self, class: StatementClass, latency: Duration) {
        self.per_class[class.index()]
            .get_or_insert_with(LatencyHistogram::coarse)
            .record_us(latency.as_micros() as u64);
    }
}

impl ShareHistograms {
    /// Every worker's histograms added up, per class and per transaction type.
    pub(super) fn of(totals: &[WorkerTotals]) -> ShareHistograms {
        let mut classes: Vec<Option<LatencyHistogram>> =
            (0..StatementClass::COUNT).map(|_| None).collect();
        let mut kinds: Vec<Option<LatencyHistogram>> = (0..TxnKind::COUNT).map(|_| None).collect();
        for t in totals {
            for (acc, h) in classes.iter_mut().zip(&t.per_class) {
                if let Some(h) = h {
                    acc.get_or_insert_with(LatencyHistogram::coarse).add(h);
                }
            }
            for (acc, k) in kinds.iter_mut().zip(t.tpcc.iter().flat_map(|t| &t.kinds)) {
                if let Some(h) = &k.latency {
                    acc.get_or_insert_with(LatencyHistogram::new).add(h);
                }
            }
        }
        ShareHistograms {
            per_class: StatementClass::all()
                .into_iter()
                .zip(classes)
                .filter_map(|(c, h)| Some((c, h.filter(|h| h.count() > 0)?.to_base64())))
                .collect(),
            tpcc: TxnKind::ALL
                .into_iter()
                .zip(kinds)
                .filter_map(|(k, h)| Some((k, h.filter(|h| h.count() > 0)?.to_base64())))
                .collect(),
        }
    }
}

/// Why one transaction did not complete.
enum TxnFailure {
    Ignored,
    Reconnected,
    Fatal(EngineError),
    Stopped,
}

pub struct Worker<'a> {
    pub id: u32,
    shared: &'a Shared,
    cell: &'a Mutex<IntervalCell>,
    /// Where the controller sees this worker wait for the server (silence.rs).
    slot: &'a AnswerSlot,
    conn: Conn,
    stmts: Statements,
    shape: TxnShape,
    rng: SbRand,
    totals: WorkerTotals,
    /// Per-transaction scratch: statements executed, by kind.
    txn_queries: QueryCounts,
    bulk: Option<BulkState>,
    /// select_random_points/ranges: this worker's id slice, packed.
    slice: i64,
    /// oltp_insert without auto_inc: unique ids, as sysbench.rand.unique() gives.
    unique_seq: u32,
    /// The tpcc scenario's client; None for the OLTP ones, whose loop walks `shape`.
    tpcc: Option<TpccState>,
    /// Clock reads shared across a boundary where nothing runs between two timings:
    /// the transaction's start is its first statement's, and the last statement's end
    /// is the transaction's. A point select reads the clock twice instead of four
    /// times (the reads were about 1 % of the client's CPU per query).
    clock: SharedReads,
}

/// See [`Worker::clock`]. Both are taken (cleared) by their one reader.
#[derive(Default)]
struct SharedReads {
    /// The transaction's start, until its first statement takes it.
    txn_start: Option<Instant>,
    /// The end of the statement that ran last, if nothing ran after it.
    stmt_end: Option<Instant>,
}

/// A tpcc worker's client and the type and outcome of its last transaction, recorded
/// once the loop knows the transaction's latency.
struct TpccState {
    client: TpccClient,
    last: Option<(TxnKind, Outcome)>,
}

struct BulkState {
    buf: String,
    rows: u64,
    next_id: i64,
}

/// Why a worker could not get ready. Errors here abort the step before it starts.
#[derive(Debug, Clone)]
pub enum NotOpened {
    /// The step stopped first (cancel, or another worker failed for good).
    Stopped,
    /// `retried`: the cause could pass, and was retried until the budget ran out.
    Failed { error: EngineError, retried: bool },
}

impl<'a> Worker<'a> {
    /// Connects (paced and retried by `opening`) and prepares statements.
    pub fn connect(
        id: u32,
        shared: &'a Shared,
        cell: &'a Mutex<IntervalCell>,
        slot: &'a AnswerSlot,
        opening: &Opening,
    ) -> Result<Self, NotOpened> {
        let o = &shared.workload;
        let shape = TxnShape::for_scenario(shared.scenario, o);
        let (mut conn, stmts) = open_and_prepare(id, shared, &shape, opening)?;
        let rng = SbRand::new(&o.rand, id as u64 + 1);
        // The slices of every worker of the step, on every load client.
        let rlen = o.table_size / shared.workers.of.max(1) as u64;
        let tpcc = if shared.scenario.is_tpcc() {
            let ready = TpccClient::init_session(&mut conn, &o.tpcc)
                .map_err(|e| driver::query_error("setting up the tpcc session", &e))
                .and_then(|()| {
                    TpccClient::check_dataset(&mut conn, &o.tpcc).map_err(EngineError::Refused)
                });
            if let Err(error) = ready {
                opening.fail_for_good();
                return Err(NotOpened::Failed {
                    error,
                    retried: false,
                });
            }
            Some(TpccState {
                client: TpccClient::new(&o.tpcc),
                last: None,
            })
        } else {
            None
        };
        let bulk = if shared.scenario == Scenario::BulkInsert {
            Some(BulkState::resume(&mut conn, id).map_err(|error| {
                opening.fail_for_good();
                NotOpened::Failed {
                    error,
                    retried: false,
                }
            })?)
        } else {
            None
        };
        opening.mark_opened();
        slot.publish(Some(&conn));
        Ok(Worker {
            id,
            shared,
            cell,
            slot,
            conn,
            stmts,
            shape,
            rng,
            totals: WorkerTotals {
                transactions: 0,
                queries: QueryCounts::default(),
                ignored_errors: 0,
                reconnects: 0,
                per_class: (0..StatementClass::COUNT).map(|_| None).collect(),
                busy: Duration::ZERO,
                late_starts: 0,
                max_lag_us: 0,
                tpcc: tpcc.as_ref().map(|_| TpccTotals::default()),
            },
            txn_queries: QueryCounts::default(),
            bulk,
            slice: SliceDraw::pack(rlen * id as u64, rlen),
            unique_seq: id.wrapping_mul(0x9E37_79B9),
            tpcc,
            clock: SharedReads::default(),
        })
    }

    /// Runs transactions until told to stop. Returns the worker's totals.
    pub fn run(mut self) -> Result<WorkerTotals, EngineError> {
        let r = self.run_loop();
        // Whatever it waited on is over, and the socket is retracted before the
        // connection closes (silence.rs says why).
        self.slot.idle();
        self.slot.publish(None);
        r.map(|()| self.totals)
    }

    fn run_loop(&mut self) -> Result<(), EngineError> {
        let shared = self.shared;
        let timeline = *shared
            .timeline
            .get()
            .expect("timeline is set before workers start");
        // Under --rate, an arrival whose attempt hit an ignored error or a lost connection
        // is retried as the same arrival (intended and first start kept), as sysbench
        // restarts its event: drawing a new one would drop that arrival's wait.
        let mut retry: Option<(Instant, Instant)> = None;
        loop {
            if shared.stop.load(Ordering::Relaxed) {
                break;
            }
            // With --rate, each transaction has an intended start time; latency counts
            // from it, so a stalled server cannot hide its queue (no coordinated omission).
            let (intended, started) = match retry.take() {
                Some((intended, started)) => (Some(intended), started),
                None => match shared.next_intended_start(timeline.t0) {
                    Some(t) => {
                        if !sleep_until(t, || shared.stop.load(Ordering::Relaxed)) {
                            break;
                        }
                        (Some(t), Instant::now())
                    }
                    None => (None, Instant::now()),
                },
            };
            let latency_from = intended.unwrap_or(started);
            let measured = latency_from >= timeline.measure_start;
            if measured && !shared.reserve_event() {
                break;
            }
            self.txn_queries = QueryCounts::default();
            // Counted under --rate only: one shared counter bumped by every transaction
            // of a closed loop at 300k/s would be a contended cache line for nothing.
            let paced = intended.is_some();
            if paced {
                shared.in_flight.fetch_add(1, Ordering::Relaxed);
            }
            self.clock = SharedReads {
                txn_start: Some(started),
                stmt_end: None,
            };
            let outcome = self.transaction(measured);
            if paced {
                shared.in_flight.fetch_sub(1, Ordering::Relaxed);
            }
            match outcome {
                Ok(()) => {
                    let end = self.clock.stmt_end.take().unwrap_or_else(Instant::now);
                    if measured {
                        let lag = intended.map(|t| start_lag(t, started));
                        self.record_txn(end - latency_from, lag);
                    }
                }
                Err(TxnFailure::Ignored) => {
                    retry = intended.map(|t| (t, started));
                    if measured {
                        shared.release_event();
                        self.totals.ignored_errors += 1;
                        self.cell.lock().unwrap().errors += 1;
                    }
                }
                Err(TxnFailure::Reconnected) => {
                    retry = intended.map(|t| (t, started));
                    if measured {
                        shared.release_event();
                        self.totals.reconnects += 1;
                        self.cell.lock().unwrap().reconnects += 1;
                    }
                }
                Err(TxnFailure::Stopped) => break,
                Err(TxnFailure::Fatal(e)) => {
                    shared.stop.store(true, Ordering::SeqCst);
                    return Err(e);
                }
            }
        }
        if let Some(b) = self.bulk.take() {
            // The rows a bulk_insert worker buffered still count, as in sysbench's thread_done().
            let mut b = b;
            if b.rows > 0 {
                let t0 = Instant::now();
                self.slot.sent(shared.epoch, t0);
                let r = self.conn.query_drop(&b.buf);
                self.slot.answered(shared.epoch, Instant::now());
                if let Err(e) = r {
                    return Err(statement_error(StatementClass::BulkInsert, &e, "INSERT …"));
                }
                self.totals.queries.write += 1;
                self.totals
                    .record_class(StatementClass::BulkInsert, t0.elapsed());
                b.rows = 0;
            }
        }
        Ok(())
    }

    /// `lag`: under --rate, how late the transaction started (µs) and whether that
    /// was a late start.
    fn record_txn(&mut self, latency: Duration, lag: Option<(u64, bool)>) {
        let us = latency.as_micros() as u64;
        if let Some(last) = self.tpcc.as_mut().and_then(|t| t.last.take()) {
            self.record_tpcc(last, us);
        }
        self.totals.transactions += 1;
        self.totals.queries.merge(&self.txn_queries);
        self.totals.busy += latency;
        let (lag_us, late) = lag.unwrap_or((0, false));
        self.totals.late_starts += late as u64;
        self.totals.max_lag_us = self.totals.max_lag_us.max(lag_us);
        let mut cell = self.cell.lock().unwrap();
        cell.transactions += 1;
        cell.queries.merge(&self.txn_queries);
        cell.latency.record_us(us);
        cell.late_starts += late as u64;
        cell.max_lag_us = cell.max_lag_us.max(lag_us);
    }

    /// One sysbench event: BEGIN, the shape's blocks, COMMIT (or one TPC-C transaction).
    fn transaction(&mut self, measured: bool) -> Result<(), TxnFailure> {
        if self.tpcc.is_some() {
            return self.tpcc_transaction(measured);
        }
        let explicit = self.shape.explicit_trx;
        if explicit {
            self.statement(StatementClass::Begin, Draw { table: 1, id: 0 }, measured)?;
        }
        for bi in 0..self.shape.blocks.len() {
            let table = self.pick_table();
            let repeat = self.shape.blocks[bi].repeat;
            for _ in 0..repeat {
                let id = self.pick_id();
                for ci in 0..self.shape.blocks[bi].classes.len() {
                    let class = self.shape.blocks[bi].classes[ci];
                    if class == StatementClass::BulkInsert {
                        self.bulk_row(measured)?;
                        continue;
                    }
                    let id = if class == StatementClass::Insert
                        && self.shared.scenario == Scenario::OltpInsert
                    {
                        self.insert_id()
                    } else {
                        id
                    };
                    self.statement(class, Draw { table, id }, measured)?;
                }
            }
        }
        if explicit {
            self.statement(StatementClass::Commit, Draw { table: 1, id: 0 }, measured)?;
        }
        Ok(())
    }

    /// One event of tpcc.lua: a transaction drawn from the mix. A deadlock or a lock
    /// wait timeout (the ignored codes) rolls back and restarts the event with a new
    /// draw, as sysbench does; the type that hit it is counted.
    fn tpcc_transaction(&mut self, measured: bool) -> Result<(), TxnFailure> {
        let state = self.tpcc.as_mut().expect("tpcc state");
        let kind = state.client.pick(&mut self.rng);
        // A TPC-C transaction's statements are the client's: the wait is watched whole.
        self.slot.sent(self.shared.epoch, Instant::now());
        let r = state.client.run(&mut self.conn, &mut self.rng, kind);
        self.txn_queries = state.client.queries;
        match r {
            Ok(outcome) => {
                self.slot.answered(self.shared.epoch, Instant::now());
                state.last = Some((kind, outcome));
                Ok(())
            }
            Err(e) => match driver::classify(&e) {
                ErrorKind::Server { code, .. }
                    if self.shared.workload.ignore_errors.ignores(code) =>
                {
                    self.slot.answered(self.shared.epoch, Instant::now());
                    // sysbench-tpcc's before_restart_event hook.
                    self.rollback();
                    if measured {
                        if let Some(t) = self.totals.tpcc.as_mut() {
                            t.retried(kind, Retried::of_code(code));
                        }
                    }
                    Err(TxnFailure::Ignored)
                }
                ErrorKind::ConnectionLost(_) => {
                    Err(self.handle_error(StatementClass::Begin, Draw { table: 1, id: 0 }, e))
                }
                _ => {
                    let context = format!("{kind}: `{}`", state.client.last_statement());
                    Err(TxnFailure::Fatal(driver::query_error(&context, &e)))
                }
            },
        }
    }

    /// A completed TPC-C transaction's type and latency. New-Order's rollbacks by design
    /// count as sysbench-tpcc counts them: a transaction, and an error.
    fn record_tpcc(&mut self, (kind, outcome): (TxnKind, Outcome), us: u64) {
        let Some(t) = self.totals.tpcc.as_mut() else {
            return;
        };
        t.record(kind, outcome, us);
        if outcome == Outcome::RolledBack {
            self.totals.ignored_errors += 1;
            self.cell.lock().unwrap().errors += 1;
        }
    }

    fn pick_table(&mut self) -> u32 {
        if self.shared.scenario.single_table_only() {
            1
        } else {
            self.rng.uniform(1, self.shared.workload.tables as u64) as u32
        }
    }

    fn pick_id(&mut self) -> i64 {
        if self.shared.scenario.single_table_only() {
            self.slice
        } else {
            self.rng
                .default_dist(1, self.shared.workload.table_size.max(1)) as i64
        }
    }

    /// oltp_insert.lua: id 0 lets AUTO_INCREMENT pick; without auto_inc, a unique
    /// 32-bit value shifted into INT's range, like `sysbench.rand.unique() - 2147483648`.
    fn insert_id(&mut self) -> i64 {
        if self.shared.workload.auto_inc {
            0
        } else {
            self.unique_seq = self.unique_seq.wrapping_add(self.shared.workers.of.max(1));
            // A multiplicative permutation of u32 keeps values unique and scattered.
            (self.unique_seq.wrapping_mul(0x2545_F491) as i64) - 2_147_483_648
        }
    }

    fn statement(
        &mut self,
        class: StatementClass,
        d: Draw,
        measured: bool,
    ) -> Result<(), TxnFailure> {
        let t0 = self.clock.txn_start.take().unwrap_or_else(Instant::now);
        self.slot.sent(self.shared.epoch, t0);
        let r = self.stmts.execute(
            &mut self.conn,
            class,
            d,
            &mut self.rng,
            &self.shared.workload,
        );
        match r {
            Ok(()) => {
                let t1 = Instant::now();
                self.slot.answered(self.shared.epoch, t1);
                self.clock.stmt_end = Some(t1);
                self.txn_queries.add(class.kind(), 1);
                if measured {
                    self.totals.record_class(class, t1 - t0);
                }
                Ok(())
            }
            Err(e) => Err(self.handle_error(class, d, e)),
        }
    }

    fn bulk_row(&mut self, measured: bool) -> Result<(), TxnFailure> {
        use std::fmt::Write;
        // Rows are buffered here after any statement: the transaction ends later.
        self.clock.stmt_end = None;
        let b = self.bulk.as_mut().expect("bulk state for bulk_insert");
        if b.rows == 0 {
            b.buf.clear();
            let _ = write!(b.buf, "INSERT INTO sbtest{} VALUES", self.id + 1);
        }
        let sep = if b.rows == 0 { "" } else { "," };
        let _ = write!(b.buf, "{sep}({id},{id})", id = b.next_id);
        b.next_id += 1;
        b.rows += 1;
        if b.buf.len() < BULK_FLUSH_BYTES {
            return Ok(());
        }
        let t0 = Instant::now();
        self.slot.sent(self.shared.epoch, t0);
        let r = self.conn.query_drop(&b.buf);
        b.rows = 0;
        match r {
            Ok(()) => {
                self.slot.answered(self.shared.epoch, Instant::now());
                self.txn_queries.add(StatementClass::BulkInsert.kind(), 1);
                if measured {
                    self.totals
                        .record_class(StatementClass::BulkInsert, t0.elapsed());
                }
                Ok(())
            }
            Err(e) => Err(self.handle_error(
                StatementClass::BulkInsert,
                Draw {
                    table: self.id + 1,
                    id: 0,
                },
                e,
            )),
        }
    }

    /// Ends the open transaction after an ignored error, watched like any statement.
    fn rollback(&mut self) {
        self.slot.sent(self.shared.epoch, Instant::now());
        if self.conn.query_drop("ROLLBACK").is_ok() {
            self.slot.answered(self.shared.epoch, Instant::now());
        } else {
            self.slot.idle();
        }
    }

    fn handle_error(&mut self, class: StatementClass, d: Draw, e: mysql::Error) -> TxnFailure {
        let kind = driver::classify(&e);
        match &kind {
            ErrorKind::ConnectionLost(_) => self.slot.idle(),
            _ => self.slot.answered(self.shared.epoch, Instant::now()),
        }
        match kind {
            ErrorKind::Server { code, .. } if self.shared.workload.ignore_errors.ignores(code) => {
                // sysbench restarts the event; the open transaction must end first.
                if self.shape.explicit_trx {
                    self.rollback();
                }
                TxnFailure::Ignored
            }
            ErrorKind::ConnectionLost(msg) => match self.reconnect() {
                Ok(()) => TxnFailure::Reconnected,
                Err(None) => TxnFailure::Stopped,
                Err(Some(last)) => TxnFailure::Fatal(EngineError::ReconnectFailed {
                    seconds: RECONNECT_GIVE_UP.as_secs(),
                    message: format!("{msg}; last attempt: {last}"),
                }),
            },
            _ => {
                let text =
                    sql::statement_text(class, d.table, &self.shared.workload).unwrap_or_default();
                TxnFailure::Fatal(statement_error(class, &e, &text))
            }
        }
    }

    /// Reconnects and re-prepares, as sysbench's before_restart_event hook does.
    /// `Err(None)`: the step was stopped while waiting; `Err(Some(msg))`: gave up.
    fn reconnect(&mut self) -> Result<(), Option<String>> {
        let deadline = Instant::now() + RECONNECT_GIVE_UP;
        let mut last = String::new();
        while Instant::now() < deadline {
            if self.shared.stop.load(Ordering::Relaxed) {
                return Err(None);
            }
            match driver::connect_with_cache(&self.shared.connect, self.shared.stmt_cache) {
                Ok(mut conn) => match prepare_statements(&mut conn, self.shared, &self.shape)
                    .and_then(|stmts| self.init_tpcc_session(&mut conn).map(|()| stmts))
                {
                    Ok(stmts) => {
                        self.slot.publish(None);
                        self.conn = conn;
                        self.slot.publish(Some(&self.conn));
                        self.stmts = stmts;
                        return Ok(());
                    }
                    Err(e) => last = e.to_string(),
                },
                Err(e) => last = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err(Some(last))
    }
}

impl Worker<'_> {
    /// A new connection of a tpcc worker gets the reference's session settings again.
    fn init_tpcc_session(&self, conn: &mut Conn) -> Result<(), EngineError> {
        if self.tpcc.is_none() {
            return Ok(());
        }
        TpccClient::init_session(conn, &self.shared.workload.tpcc)
            .map_err(|e| driver::query_error("setting up the tpcc session", &e))
    }
}

impl BulkState {
    /// bulk_insert.lua counts ids from 1 in a fresh table; continuing from the current
    /// maximum lets a ladder run bulk_insert at several thread counts without collisions.
    fn resume(conn: &mut Conn, worker: u32) -> Result<BulkState, EngineError> {
        let table = worker + 1;
        driver::admin_exec(
            conn,
            "creating the bulk_insert table",
            &sql::create_bulk_table(table),
        )?;
        let max: Option<i64> = conn
            .query_first(format!("SELECT COALESCE(MAX(id), 0) FROM sbtest{table}"))
            .map_err(|e| driver::query_error("reading the bulk_insert table", &e))?;
        Ok(BulkState {
            buf: String::with_capacity(BULK_FLUSH_BYTES + 64),
            rows: 0,
            next_id: max.unwrap_or(0) + 1,
        })
    }
}

/// One connection with its statements prepared. A prepare that loses its connection
/// (the server went away between login and prepare) starts over within the budget.
fn open_and_prepare(
    id: u32,
    shared: &Shared,
    shape: &TxnShape,
    opening: &Opening,
) -> Result<(Conn, Statements), NotOpened> {
    loop {
        let mut conn = opening
            .connect(id, &shared.connect, shared.stmt_cache, &shared.stop)
            .map_err(|e| match e {
                OpenError::Stopped => NotOpened::Stopped,
                OpenError::Failed { error, retried } => NotOpened::Failed {
                    error: driver::connect_error(&shared.connect, &error),
                    retried,
                },
            })?;
        let prepared = Statements::prepare(
            &mut conn,
            shared.scenario,
            &shape.classes(),
            shape.explicit_trx,
            &shared.workload,
        );
        match prepared {
            Ok(stmts) => return Ok((conn, stmts)),
            Err((_, e, _))
                if matches!(driver::classify(&e), ErrorKind::ConnectionLost(_))
                    && opening.may_retry() =>
            {
                opening.note_retry(&e);
                std::thread::sleep(Duration::from_millis(100));
            }
            Err((class, e, text)) => {
                opening.fail_for_good();
                return Err(NotOpened::Failed {
                    error: statement_error(class, &e, &text),
                    retried: false,
                });
            }
        }
    }
}

fn prepare_statements(
    conn: &mut Conn,
    shared: &Shared,
    shape: &TxnShape,
) -> Result<Statements, EngineError> {
    Statements::prepare(
        conn,
        shared.scenario,
        &shape.classes(),
        shape.explicit_trx,
        &shared.workload,
    )
    .map_err(|(class, e, text)| statement_error(class, &e, &text))
}

fn statement_error(class: StatementClass, e: &mysql::Error, sql: &str) -> EngineError {
    let (code, message) = match e {
        mysql::Error::MySqlError(me) => (me.code, me.message.clone()),
        other => (0, other.to_string()),
    };
    EngineError::Statement {
        class,
        code,
        message,
        sql: sql.to_string(),
    }
}
