//! Measured steps: one scenario at one thread count.
//!
//! The controller (the calling thread) starts one OS thread per connection, waits until
//! every connection is up and its statements prepared, lets warmup pass, then wakes once
//! per interval to collect the workers' live figures into an [`IntervalRecord`]. At the
//! end it merges the workers' own histograms into the step's [`StepResult`].
//!
//! Why threads and a synchronous driver: see [`crate::driver`].

mod client_cpu;
mod fd_limit;
mod interval_latency;
mod opening;
mod pacing;
mod rendezvous;
mod share;
mod shared;
mod silence;
mod statements;
mod worker;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex, OnceLock};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

pub use client_cpu::client_cores;
use client_cpu::CpuClock;
use interval_latency::IntervalLatency;
use opening::{Opening, OpeningProgress};
pub use rendezvous::StepRendezvous;
pub use share::{ShareHistograms, WorkerSlice};
use shared::{IntervalCell, Shared, Timeline};
use silence::Watch;
use worker::{NotOpened, Worker, WorkerTotals};

use crate::cancel::CancelToken;
use crate::error::EngineError;
use crate::events::{ConnectionsOpening, EngineEvent, EventSink};
use crate::plan::{ConnectOptions, StepPlan};
use crate::results::{
    per_sec, ClassLatency, ClientCpu, ConnectionsOpened, IntervalRecord, QueryCounts, StepResult,
};
use crate::stats::{self, LatencyHistogram};
use crate::utc::now_ms;
use crate::workload::shape::TxnShape;
use crate::workload::{StatementClass, WorkloadOptions};

/// How often the controller checks for cancel, --events and failures between intervals.
const POLL: Duration = Duration::from_millis(20);
/// How often a step whose connections are still opening says how far it got.
const OPENING_PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// One measured step as it is asked for: what every road to a step (this machine, a
/// load client's share, the coordinator) passes along.
#[derive(Clone, Copy)]
pub struct StepCall<'a> {
    pub connect: &'a ConnectOptions,
    pub workload: &'a WorkloadOptions,
    pub step: &'a StepPlan,
    pub step_index: usize,
    /// A login to this server succeeded earlier in the run, so a refused connect is
    /// worth retrying (see [`opening`]).
    pub server_seen: bool,
    pub events: &'a EventSink,
    pub cancel: &'a CancelToken,
}

/// Runs one step and returns its figures. A cancel ends the step early; what was
/// measured until then is returned with `cancelled = true`. `server_seen`: a login to
/// this server succeeded earlier in the run, so a refused connect is worth retrying
/// (see [`opening`]).
pub fn run_step(
    connect: &ConnectOptions,
    workload: &WorkloadOptions,
    step: &StepPlan,
    step_index: usize,
    server_seen: bool,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<StepResult, EngineError> {
    run(&StepCall {
        connect,
        workload,
        step,
        step_index,
        server_seen,
        events,
        cancel,
    })
}

/// [`run_step`] for a [`StepCall`]: the one-machine path, the clock starting as soon
/// as the connections are ready.
pub fn run(call: &StepCall) -> Result<StepResult, EngineError> {
    let whole = WorkerSlice::whole(call.step.threads);
    run_measured(call, whole, None).map(|(result, _)| result)
}

/// One share of a step run from several load clients: its workers are `workers` of
/// the step's; once every connection is ready it waits for the start instant
/// `rendezvous` gives, and hands it every interval with its latency histogram. Returns
/// the share's figures and the histograms they summarise (per statement class and
/// TPC-C type), so that the coordinator merges every percentile exactly.
pub fn run_share(
    call: &StepCall,
    workers: WorkerSlice,
    rendezvous: &dyn StepRendezvous,
) -> Result<(StepResult, ShareHistograms), EngineError> {
    run_measured(call, workers, Some(rendezvous))
        .map(|(result, histograms)| (result, histograms.unwrap_or_default()))
}

/// The step itself; the histograms per class and type only for a share (`rendezvous`).
fn run_measured(
    call: &StepCall,
    workers: WorkerSlice,
    rendezvous: Option<&dyn StepRendezvous>,
) -> Result<(StepResult, Option<ShareHistograms>), EngineError> {
    let StepCall {
        connect,
        workload,
        step,
        step_index,
        server_seen,
        events,
        cancel,
    } = *call;
    let threads = step.threads;
    let shared = shared_state(connect, workload, step, workers);
    let cells: Vec<Mutex<IntervalCell>> = (0..threads)
        .map(|_| Mutex::new(IntervalCell::default()))
        .collect();
    if let Some(note) = fd_limit::make_room_for(threads) {
        events.warning(note);
    }
    let ctx = StepContext {
        step,
        step_index,
        events,
        cancel,
        rendezvous,
    };
    // Phase 1: connect and prepare on every worker thread, paced by `opening`.
    let (ready_tx, ready_rx) = crossbeam_channel::unbounded::<(u32, Result<(), NotOpened>)>();
    let gate = StartGate {
        barrier: Barrier::new(threads as usize + 1),
        abort: AtomicBool::new(false),
        opening: Opening::new(opening::BUDGET, server_seen),
    };

    std::thread::scope(
        |scope| -> Result<(StepResult, Option<ShareHistograms>), EngineError> {
            let handles = spawn_workers(scope, &shared, &cells, &gate, ready_tx)?;
            let first_error = await_ready(&ready_rx, &gate.opening, &shared, &ctx);
            let opened = gate.opening.progress();
            if first_error.is_none() {
                warn_if_retried(&ctx, &opened);
            }
            let first_error = first_error.or_else(|| await_cue(&ctx));
            if first_error.is_some() || cancel.is_cancelled() {
                gate.abort.store(true, Ordering::SeqCst);
            }
            // Phase 2: the clock starts when every connection is ready (or on cue).
            let measure_start = start_clock(&shared, &gate, step.settings.warmup_s);
            let not_started = first_error.or_else(|| {
                cancel
                    .is_cancelled()
                    .then(|| EngineError::Internal("cancelled before the step started".into()))
            });
            if let Some(e) = not_started {
                for h in handles {
                    let _ = h.join();
                }
                return Err(e);
            }

            let mut watch = Watch::new(
                &shared.answers,
                &shared.stop,
                shared.epoch,
                step.settings.stall_timeout(),
                step_index,
                events,
            );
            let mut run = control(&shared, &cells, &ctx, measure_start, &mut watch);
            shared.stop.store(true, Ordering::SeqCst);
            // The workers finish the transactions they are in: still watched, so that
            // a server that falls silent now cannot keep them (and the run) waiting.
            let stalled = await_workers(&handles, &mut watch);
            let totals = join_workers(handles);
            let ended = Instant::now();
            if let Some(e) = run.stalled.take().or(stalled) {
                return Err(e);
            }
            let totals = totals?;
            // What workers recorded after the last interval (a cut-short tail, the
            // transactions in flight at the stop) counts for the step too.
            run.step_latency.add(&drain_cells(&cells).latency);
            let open_loop = pacing::step_result(
                step,
                &shared,
                &totals,
                &run.intervals,
                ended.saturating_duration_since(measure_start),
                ended,
            );
            let mut result = finish(
                step,
                &mut run,
                &totals,
                &opened,
                measure_start,
                ended,
                cancel.is_cancelled(),
            );
            result.open_loop = open_loop;
            let histograms = rendezvous.map(|_| ShareHistograms::of(&totals));
            Ok((result, histograms))
        },
    )
}

/// The step being run and whom to tell about it: what the controller's phases share.
struct StepContext<'a> {
    step: &'a StepPlan,
    step_index: usize,
    events: &'a EventSink,
    cancel: &'a CancelToken,
    rendezvous: Option<&'a dyn StepRendezvous>,
}

/// On cue only: says "ready" and waits for the start instant. Returns the error that
/// calls the step off (the coordinator's abort); a cancel is seen by the caller.
fn await_cue(ctx: &StepContext) -> Option<EngineError> {
    let rendezvous = ctx.rendezvous?;
    if ctx.cancel.is_cancelled() {
        return None;
    }
    match rendezvous.ready() {
        Some(at) => {
            rendezvous::wait_for_start(rendezvous::instant_of(at), ctx.cancel);
            None
        }
        None => Some(EngineError::Internal(
            "the step was called off before it started".into(),
        )),
    }
}

/// Where the workers and the controller meet before the clock starts: every worker
/// waits at `barrier` once its connection is up (or failed), and learns from `abort`
/// whether the step goes ahead.
struct StartGate {
    barrier: Barrier,
    abort: AtomicBool,
    opening: Opening,
}

/// The state the step's workers share with the controller.
fn shared_state(
    connect: &ConnectOptions,
    workload: &WorkloadOptions,
    step: &StepPlan,
    workers: WorkerSlice,
) -> Shared {
    let settings = &step.settings;
    let shape = TxnShape::for_scenario(step.scenario, workload);
    let tables = if step.scenario.single_table_only() {
        1
    } else {
        workload.tables
    } as usize;
    // Every statement a worker prepares must fit the driver's cache (see driver::opts).
    let stmt_cache = shape.classes().len() * tables + 8;
    Shared {
        scenario: step.scenario,
        threads: step.threads,
        workers,
        connect: connect.clone(),
        workload: workload.clone(),
        stmt_cache,
        timeline: OnceLock::new(),
        stop: AtomicBool::new(false),
        event_limit: settings.events,
        events_done: AtomicU64::new(0),
        arrivals: pacing::schedule(settings, workload.rand.seed, workers),
        in_flight: AtomicU64::new(0),
        answers: (0..step.threads).map(|_| Default::default()).collect(),
        epoch: Instant::now(),
    }
}

type WorkerHandle<'scope> = ScopedJoinHandle<'scope, Result<WorkerTotals, EngineError>>;

/// Starts one thread per connection. Each connects, reports on `ready_tx`, waits at the
/// gate, then runs the load unless the step was aborted.
fn spawn_workers<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    shared: &'env Shared,
    cells: &'env [Mutex<IntervalCell>],
    gate: &'env StartGate,
    ready_tx: crossbeam_channel::Sender<(u32, Result<(), NotOpened>)>,
) -> Result<Vec<WorkerHandle<'scope>>, EngineError> {
    let mut handles = Vec::with_capacity(shared.threads as usize);
    for id in 0..shared.threads {
        let cell = &cells[id as usize];
        let slot = &shared.answers[id as usize];
        let ready_tx = ready_tx.clone();
        let handle = std::thread::Builder::new()
            .name(format!("dbdyno-worker-{id}"))
            .stack_size(WORKER_STACK)
            .spawn_scoped(scope, move || -> Result<WorkerTotals, EngineError> {
                // Numbered among the whole step's workers (share.rs says why).
                let number = shared.workers.first + id;
                let worker = Worker::connect(number, shared, cell, slot, &gate.opening);
                let _ = ready_tx.send((id, worker.as_ref().map(|_| ()).map_err(Clone::clone)));
                gate.barrier.wait();
                let Ok(worker) = worker else {
                    return Err(EngineError::Internal("step aborted".into()));
                };
                if gate.abort.load(Ordering::SeqCst) {
                    return Err(EngineError::Internal("step aborted".into()));
                }
                worker.run()
            })
            .map_err(|e| EngineError::Internal(format!("cannot start worker thread: {e}")))?;
        handles.push(handle);
    }
    Ok(handles)
}

/// Starts the step's clock and releases the workers from the gate. Returns when
/// measurement starts (after `warmup_s`).
fn start_clock(shared: &Shared, gate: &StartGate, warmup_s: u64) -> Instant {
    let t0 = Instant::now();
    let measure_start = t0 + Duration::from_secs(warmup_s);
    // Published before the barrier releases the workers; each copies it once.
    let _ = shared.timeline.set(Timeline { t0, measure_start });
    gate.barrier.wait();
    measure_start
}

/// Opening that needed retries succeeded, but slowly: say so.
fn warn_if_retried(ctx: &StepContext, opened: &OpeningProgress) {
    if opened.retries == 0 {
        return;
    }
    ctx.events.warning(format!(
        "{} @ {}: the connections took {:.1}s to open, {} retried (last: {})",
        ctx.step.scenario,
        crate::wording::count(ctx.step.threads, "thread"),
        opened.elapsed.as_secs_f64(),
        crate::wording::count(opened.retries as f64, "attempt"),
        opened.last_retry_reason.as_deref().unwrap_or("unknown")
    ));
}

/// Waits until every worker has ended, watching the server meanwhile. Returns the stall
/// that ended the wait, if one did (the workers' sockets are shut down by then).
fn await_workers(handles: &[WorkerHandle<'_>], watch: &mut Watch) -> Option<EngineError> {
    let mut stalled = None;
    while !handles.iter().all(|h| h.is_finished()) {
        if stalled.is_none() {
            stalled = watch.check().err();
        }
        std::thread::sleep(POLL);
    }
    stalled
}

/// Every worker's totals, or the first error a worker ended with (a panic counts).
fn join_workers(handles: Vec<WorkerHandle<'_>>) -> Result<Vec<WorkerTotals>, EngineError> {
    let mut totals = Vec::with_capacity(handles.len());
    let mut fatal: Option<EngineError> = None;
    for h in handles {
        match h.join() {
            Ok(Ok(t)) => totals.push(t),
            Ok(Err(e)) => {
                if fatal.is_none() {
                    fatal = Some(e);
                }
            }
            Err(_) => {
                fatal.get_or_insert(EngineError::Internal("a worker thread panicked".into()));
            }
        }
    }
    match fatal {
        Some(e) => Err(e),
        None => Ok(totals),
    }
}

/// Each worker's stack. Workers keep small frames (their statistics live on the heap),
/// and a thousand threads at the 2 MiB default reserve 2 GiB of address space; 512 KiB
/// leaves room for a TLS handshake in a debug build.
const WORKER_STACK: usize = 512 * 1024;

/// Waits until every worker reported ready or failed, telling consumers how the opening
/// goes and passing a cancel on to the workers still trying. Returns the error that
/// stops the step, if any.
fn await_ready(
    ready_rx: &crossbeam_channel::Receiver<(u32, Result<(), NotOpened>)>,
    opening: &Opening,
    shared: &Shared,
    ctx: &StepContext,
) -> Option<EngineError> {
    let StepContext {
        step,
        step_index,
        events,
        cancel,
        ..
    } = *ctx;
    let threads = step.threads;
    let mut failed: Option<(EngineError, bool)> = None;
    let mut answered = 0;
    let mut next_progress = Instant::now() + OPENING_PROGRESS_EVERY;
    let progress = |done: bool| {
        let p = opening.progress();
        events.send(EngineEvent::Connecting(ConnectionsOpening {
            step: step_index,
            scenario: step.scenario,
            threads,
            opened: p.opened,
            retries: p.retries,
            elapsed_s: p.elapsed.as_secs_f64(),
            done,
        }));
    };
    while answered < threads {
        match ready_rx.recv_timeout(POLL) {
            Ok((_, Ok(()))) | Ok((_, Err(NotOpened::Stopped))) => answered += 1,
            Ok((_, Err(NotOpened::Failed { error, retried }))) => {
                answered += 1;
                failed.get_or_insert((error, retried));
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
        }
        if cancel.is_cancelled() {
            shared.stop.store(true, Ordering::SeqCst);
        }
        if Instant::now() >= next_progress {
            progress(false);
            next_progress += OPENING_PROGRESS_EVERY;
        }
    }
    progress(true);
    let (error, retried) = failed?;
    let p = opening.progress();
    // An error that retrying could not fix, before any connection opened, is the
    // server's own answer (access denied, unknown schema): pass it on as it is.
    if !retried && p.opened == 0 {
        return Some(error);
    }
    Some(EngineError::ConnectionsNotOpened {
        opened: p.opened,
        wanted: threads,
        seconds: p.elapsed.as_secs_f64(),
        cause: Box::new(error),
    })
}

/// What the controller gathered while the workers ran.
struct Controlled {
    intervals: Vec<IntervalRecord>,
    /// Transaction latency of the intervals collected; the tail after the last
    /// interval is still in the cells when the controller returns.
    step_latency: LatencyHistogram,
    cpu_ms_start: u64,
    cpu_ms_end: u64,
    started_unix_ms: i64,
    /// The silence that reached the stall timeout and ended the step, if one did.
    stalled: Option<EngineError>,
}

/// Lets warmup pass, then collects one [`IntervalRecord`] per interval until the step's
/// time is up, a cancel, or a stop (--events, a failed worker).
fn control(
    shared: &Shared,
    cells: &[Mutex<IntervalCell>],
    ctx: &StepContext,
    measure_start: Instant,
    watch: &mut Watch,
) -> Controlled {
    let StepContext {
        step,
        step_index,
        events,
        cancel,
        rendezvous,
    } = *ctx;
    let settings = &step.settings;
    let mut cpu = CpuClock::new();
    // Warmup: load runs, nothing is recorded.
    let mut stalled = None;
    wait_until(measure_start, shared, cancel, watch, &mut stalled);
    // Nothing is in the cells yet: workers record only transactions that start at or
    // after `measure_start`, so none of the warmup's.
    let started_unix_ms = now_ms();
    events.send(EngineEvent::StepStarted {
        step: step_index,
        scenario: step.scenario,
        threads: step.threads,
        warmup_s: settings.warmup_s,
        planned_s: settings.time_s,
    });
    let cpu_ms_start = cpu.cpu_ms();
    let interval = Duration::from_secs(settings.record_interval_s());
    let measure_end =
        (settings.time_s > 0).then(|| measure_start + Duration::from_secs(settings.time_s));
    let mut intervals = Vec::new();
    // The step's transaction latencies, gathered interval by interval from the cells
    // (a worker keeps no histogram of its own beside its cell's).
    let mut step_latency = LatencyHistogram::new();
    let mut last = measure_start;
    let mut k: u32 = 1;
    loop {
        let target = measure_start + interval * k;
        let target = measure_end.map_or(target, |e| target.min(e));
        let interrupted = !wait_until(target, shared, cancel, watch, &mut stalled);
        let now = Instant::now();
        let duration = (now - last).as_secs_f64();
        // A short tail (cancel, --events) would draw a misleading spike; keep it only
        // when it covers at least half an interval.
        if !interrupted || duration >= interval.as_secs_f64() / 2.0 {
            let (record, latency) = collect_interval(
                cells,
                &mut step_latency,
                shared,
                step,
                (now - measure_start).as_secs_f64(),
                duration,
            );
            if let Some(r) = rendezvous {
                r.interval(&record, &latency);
            }
            events.send(EngineEvent::Interval {
                step: step_index,
                record: record.clone(),
            });
            intervals.push(record);
        }
        last = now;
        k += 1;
        if interrupted || measure_end.is_some_and(|e| now >= e) {
            break;
        }
    }
    shared.stop.store(true, Ordering::SeqCst);
    Controlled {
        intervals,
        step_latency,
        cpu_ms_start,
        cpu_ms_end: cpu.cpu_ms(),
        started_unix_ms,
        stalled,
    }
}

/// Sleeps until `target` in naps of at most [`POLL`], watching the server. False when
/// a cancel or a stop came first; a silence as long as the stall timeout stops the step
/// and lands in `stalled`.
fn wait_until(
    target: Instant,
    shared: &Shared,
    cancel: &CancelToken,
    watch: &mut Watch,
    stalled: &mut Option<EngineError>,
) -> bool {
    while Instant::now() < target {
        if cancel.is_cancelled() || shared.stop.load(Ordering::Relaxed) {
            return false;
        }
        if let Err(e) = watch.check() {
            shared.stop.store(true, Ordering::SeqCst);
            *stalled = Some(e);
            return false;
        }
        std::thread::sleep(POLL.min(target.saturating_duration_since(Instant::now())));
    }
    true
}

/// Empties every worker's cell into one: the figures since the last call.
fn drain_cells(cells: &[Mutex<IntervalCell>]) -> IntervalCell {
    let mut all = IntervalCell::default();
    for c in cells {
        c.lock().unwrap().drain_into(&mut all);
    }
    all
}

fn collect_interval(
    cells: &[Mutex<IntervalCell>],
    step_latency: &mut LatencyHistogram,
    shared: &Shared,
    step: &StepPlan,
    elapsed_s: f64,
    duration_s: f64,
) -> (IntervalRecord, LatencyHistogram) {
    let IntervalCell {
        transactions: txns,
        queries,
        errors,
        reconnects,
        latency,
        late_starts,
        max_lag_us,
    } = drain_cells(cells);
    let open_loop = pacing::interval_queue(shared, Instant::now(), late_starts, max_lag_us);
    step_latency.add(&latency);
    let latencies = IntervalLatency::of(&latency, step.settings.percentile);
    let ps = |n: u64| {
        if duration_s > 0.0 {
            n as f64 / duration_s
        } else {
            0.0
        }
    };
    let record = IntervalRecord {
        elapsed_s,
        duration_s,
        end_unix_ms: now_ms(),
        threads: shared.threads,
        tps: ps(txns),
        qps: ps(queries.total()),
        reads_ps: ps(queries.read),
        writes_ps: ps(queries.write),
        other_ps: ps(queries.other),
        latency_ms: latencies.at_percentile_ms,
        percentile: step.settings.percentile,
        p95_ms: Some(latencies.p95_ms),
        p99_ms: Some(latencies.p99_ms),
        errors_ps: ps(errors),
        reconnects_ps: ps(reconnects),
        open_loop,
    };
    (record, latency)
}

/// The workers' own figures, added up.
struct Merged {
    per_class: Vec<LatencyHistogram>,
    queries: QueryCounts,
    transactions: u64,
    ignored: u64,
    reconnects: u64,
    events_per_thread: Vec<u64>,
    busy_per_thread: Vec<f64>,
}

fn merge_totals(totals: &[WorkerTotals]) -> Merged {
    let mut m = Merged {
        per_class: (0..StatementClass::COUNT)
            .map(|_| LatencyHistogram::coarse())
            .collect(),
        queries: QueryCounts::default(),
        transactions: 0,
        ignored: 0,
        reconnects: 0,
        events_per_thread: Vec::with_capacity(totals.len()),
        busy_per_thread: Vec::with_capacity(totals.len()),
    };
    for t in totals {
        for (acc, h) in m.per_class.iter_mut().zip(&t.per_class) {
            if let Some(h) = h {
                acc.add(h);
            }
        }
        m.queries.merge(&t.queries);
        m.transactions += t.transactions;
        m.ignored += t.ignored_errors;
        m.reconnects += t.reconnects;
        m.events_per_thread.push(t.transactions);
        m.busy_per_thread.push(t.busy.as_secs_f64());
    }
    m
}

/// What the client machine spent on the step's `queries` over `total_time_s`.
fn client_cpu(run: &Controlled, total_time_s: f64, queries: u64) -> ClientCpu {
    let cpu_seconds = run.cpu_ms_end.saturating_sub(run.cpu_ms_start) as f64 / 1000.0;
    let cores = client_cores();
    let measured_s = total_time_s.max(1e-9);
    ClientCpu {
        cpu_seconds,
        percent_of_core: 100.0 * cpu_seconds / measured_s,
        cores,
        percent_of_machine: 100.0 * cpu_seconds / measured_s / cores as f64,
        us_per_query: if queries > 0 {
            cpu_seconds * 1e6 / queries as f64
        } else {
            0.0
        },
    }
}

fn finish(
    step: &StepPlan,
    run: &mut Controlled,
    totals: &[WorkerTotals],
    opened: &OpeningProgress,
    measure_start: Instant,
    ended: Instant,
    cancelled: bool,
) -> StepResult {
    let latency = std::mem::take(&mut run.step_latency);
    let m = merge_totals(totals);
    let total_time_s = ended.saturating_duration_since(measure_start).as_secs_f64();
    let summary = latency.summary();
    let client_cpu = client_cpu(run, total_time_s, m.queries.total());
    let whole_tps = per_sec(m.transactions, total_time_s);
    let intervals = std::mem::take(&mut run.intervals);
    let steady = stats::find_steady_window(&intervals, whole_tps);
    let mut result = StepResult {
        scenario: step.scenario,
        threads: step.threads,
        started_unix_ms: run.started_unix_ms,
        ended_unix_ms: now_ms(),
        warmup_s: step.settings.warmup_s as f64,
        total_time_s,
        transactions: m.transactions,
        queries: m.queries,
        ignored_errors: m.ignored,
        reconnects: m.reconnects,
        percentile: step.settings.percentile,
        latency_pct_ms: latency.value_at_percentile_ms(step.settings.percentile),
        latency: summary,
        per_class: StatementClass::all()
            .into_iter()
            .zip(m.per_class.iter())
            .filter(|(_, h)| h.count() > 0)
            .map(|(class, h)| ClassLatency {
                class,
                latency: h.summary(),
            })
            .collect(),
        fairness: stats::fairness(&m.events_per_thread, &m.busy_per_thread),
        intervals,
        steady,
        client_cpu,
        histogram: latency.to_base64(),
        cancelled,
        printed: None,
        connections: Some(ConnectionsOpened {
            seconds: opened.elapsed.as_secs_f64(),
            retries: opened.retries,
            last_retry_reason: opened.last_retry_reason.clone(),
        }),
        confidence: None,
        repeat: step.repeat,
        sla_search: false,
        clients: Vec::new(),
        open_loop: None,
        tpcc: tpcc_result(totals, total_time_s),
    };
    // Every measured step carries its intervals, even when they only say why there are
    // none (a step shorter than one interval).
    result.confidence = Some(stats::StepConfidence::of_step(&result));
    result
}

/// The tpcc scenario's figures, from every worker's per-type totals.
fn tpcc_result(totals: &[WorkerTotals], seconds: f64) -> Option<crate::tpcc::TpccResult> {
    let mut all: Option<crate::tpcc::run::TpccTotals> = None;
    for t in totals.iter().filter_map(|t| t.tpcc.as_ref()) {
        all.get_or_insert_with(Default::default).merge(t);
    }
    all.map(|a| a.result(seconds))
}
