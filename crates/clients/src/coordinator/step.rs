//! One measured step across the clients: split, open, start at one instant, follow
//! the intervals live (merged per second, told as the engine's usual events), gather
//! the shares and merge them.

use std::time::{Duration, Instant, SystemTime};

use dbdyno_engine::clients::{
    merge, merge_second, AgentConnect, MergedStep, Order, Report, SecondPart, Share, StepOrder,
};
use dbdyno_engine::events::ConnectionsOpening;
use dbdyno_engine::exec::{ShareHistograms, StepCall, WorkerSlice};
use dbdyno_engine::results::{ClientCpu, Fairness, LatencySummary, QueryCounts};
use dbdyno_engine::{
    CancelToken, ClientLost, EngineError, EngineEvent, EventSink, IntervalRecord, StepPlan,
    StepResult,
};

use super::check::measure_clock;
use super::client::Client;
use super::wire::{self, Said};
use crate::agent::unix_us;
use crate::split::{split, split_by};

/// Margin between the start order and the start instant, beyond half the slowest
/// round trip: every agent must have the order before the instant passes.
const START_MARGIN: Duration = Duration::from_millis(300);
/// Longest wait for the shares' connections (the engine's own budget is 60 s).
const OPENING_WAIT: Duration = Duration::from_secs(180);
/// A client silent this long past its expected next interval is lost.
const SILENCE: Duration = Duration::from_secs(10);
/// Clock exchanges before each step (the run's checks took more).
const STEP_CLOCK_SAMPLES: usize = 3;
/// How long one look at every running client may wait in all, shared among them.
/// Reports come once a second, so a report waits at most this long to be read; a
/// shorter wait per client made the coordinator wake over a thousand times a second
/// and spend a tenth of a core on empty reads, taken from the server and the agents
/// when they share the machine (`bench/clients_split.sh`).
const SWEEP: Duration = Duration::from_millis(100);

/// One client's part of the step while it runs.
struct Part {
    client: usize,
    plan: StepPlan,
    /// Its workers among the step's.
    workers: WorkerSlice,
    records: Vec<IntervalRecord>,
    histograms: Vec<String>,
    finished: Option<(StepResult, ShareHistograms)>,
    lost: Option<ClientLost>,
    last_heard: Instant,
}

impl Part {
    fn done(&self) -> bool {
        self.finished.is_some() || self.lost.is_some()
    }
}

pub(crate) fn run(clients: &mut [Client], call: &StepCall) -> Result<StepResult, EngineError> {
    let StepCall {
        step,
        step_index,
        events,
        cancel,
        ..
    } = *call;
    let mut parts = shares_of(clients, step)?;
    events.message(format!(
        "{} @ {} across {} load clients: {}",
        step.scenario,
        dbdyno_engine::wording::count(step.threads, "thread"),
        parts.len(),
        parts
            .iter()
            .map(|p| format!("{} {}", clients[p.client].name, p.plan.threads))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let opening = Instant::now();
    for p in &parts {
        let c = &mut clients[p.client];
        // Clocks drift: each step's start uses a fresh offset.
        measure_clock(c, STEP_CLOCK_SAMPLES).map_err(|e| EngineError::Internal(e.to_string()))?;
        let order = Order::Step(Box::new(StepOrder {
            connect: AgentConnect::new(call.connect),
            workload: call.workload.clone(),
            step: p.plan.clone(),
            workers: p.workers,
            step_index,
            server_seen: call.server_seen,
        }));
        send(c, &order)?;
    }
    await_ready(clients, &mut parts, events, cancel)?;
    events.send(EngineEvent::Connecting(ConnectionsOpening {
        step: step_index,
        scenario: step.scenario,
        threads: parts.iter().map(|p| p.plan.threads).sum(),
        opened: parts.iter().map(|p| p.plan.threads).sum(),
        retries: 0,
        elapsed_s: opening.elapsed().as_secs_f64(),
        done: true,
    }));
    let start = start_all(clients, &parts)?;
    follow(clients, &mut parts, call, start);
    let merged = gather(clients, parts)?;
    for w in merged.warnings {
        events.warning(w);
    }
    Ok(merged.result)
}

/// The step's threads (and --events, --rate) across the clients still in the run;
/// a client whose share is no thread sits the step out.
fn shares_of(clients: &[Client], step: &StepPlan) -> Result<Vec<Part>, EngineError> {
    let active: Vec<usize> = (0..clients.len())
        .filter(|&i| clients[i].lost.is_none())
        .collect();
    if active.is_empty() {
        return Err(EngineError::Internal(
            "every load client was lost: no client is left to run the step".into(),
        ));
    }
    let threads = split(step.threads as u64, active.len());
    let events = split_by(step.settings.events, &threads);
    // Each share's first worker: the threads of the clients before it.
    let firsts = threads.iter().scan(0u64, |before, &t| {
        let first = *before;
        *before += t;
        Some(first as u32)
    });
    let now = Instant::now();
    Ok(active
        .into_iter()
        .zip(threads.iter().zip(events).zip(firsts))
        .filter(|(_, ((t, _), _))| **t > 0)
        .map(|(client, ((&t, e), first))| {
            let mut plan = step.clone();
            plan.threads = t as u32;
            plan.settings.events = e;
            plan.settings.rate = step.settings.rate * t as f64 / step.threads.max(1) as f64;
            Part {
                client,
                plan,
                workers: WorkerSlice {
                    first,
                    of: step.threads,
                },
                records: Vec::new(),
                histograms: Vec::new(),
                finished: None,
                lost: None,
                last_heard: now,
            }
        })
        .collect())
}

fn send(c: &mut Client, order: &Order) -> Result<(), EngineError> {
    c.transport
        .send_line(&order.to_line())
        .map_err(|e| EngineError::Internal(format!("load client {}: {e}", c.name)))
}

/// Waits until every share's connections are open. A client that fails or is lost
/// here calls the step off for all (nothing was measured yet); a cancel too.
fn await_ready(
    clients: &mut [Client],
    parts: &mut [Part],
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let deadline = Instant::now() + OPENING_WAIT;
    let mut ready = vec![false; parts.len()];
    let mut failure: Option<String> = None;
    while failure.is_none() && ready.iter().any(|r| !r) {
        if cancel.is_cancelled() {
            failure = Some("cancelled before the step started".into());
            break;
        }
        if Instant::now() > deadline {
            failure = Some(format!(
                "the load clients' connections did not open within {}s",
                OPENING_WAIT.as_secs()
            ));
            break;
        }
        for (i, p) in parts.iter().enumerate() {
            if ready[i] {
                continue;
            }
            let c = &mut clients[p.client];
            match wire::next(c, Duration::from_millis(10)) {
                Ok(Said::Report(Report::Ready)) => ready[i] = true,
                Ok(Said::Report(Report::Failed { error })) => {
                    failure = Some(format!("load client {}: {error}", c.name));
                }
                Ok(Said::Report(Report::Warning { text })) => {
                    events.warning(format!("{}: {text}", c.name))
                }
                Ok(_) => {}
                Err(e) => {
                    let reason = format!("load client {}: {e}", c.name);
                    c.lost = Some(reason.clone());
                    failure = Some(reason);
                }
            }
            if failure.is_some() {
                break;
            }
        }
    }
    let Some(why) = failure else {
        return Ok(());
    };
    // Call the step off everywhere; each agent answers with a failure, read and dropped.
    for p in parts.iter() {
        let c = &mut clients[p.client];
        if c.lost.is_none() {
            let _ = c.transport.send_line(&Order::Abort.to_line());
            let _ = wire::expect(c, Duration::from_secs(10), |r| match r {
                Report::Failed { .. } | Report::Finished { .. } => Some(()),
                _ => None,
            });
        }
    }
    Err(EngineError::Internal(why))
}

/// One instant for all: far enough ahead that every agent has the order before it
/// passes; each is told it on its own clock.
fn start_all(clients: &mut [Client], parts: &[Part]) -> Result<SystemTime, EngineError> {
    let slowest_rtt = parts
        .iter()
        .map(|p| clients[p.client].offset.rtt_us)
        .max()
        .unwrap_or(0);
    let start = SystemTime::now() + START_MARGIN + Duration::from_micros(slowest_rtt as u64);
    let start_us = unix_us(start);
    for p in parts {
        let c = &mut clients[p.client];
        send(
            c,
            &Order::Start {
                at_unix_us: start_us + c.offset.offset_us,
            },
        )?;
    }
    Ok(start)
}

/// Reads every client's reports until each share finished or was lost; every second
/// that all shares still running have reported is merged and told at once.
fn follow(clients: &mut [Client], parts: &mut [Part], call: &StepCall, start: SystemTime) {
    let StepCall {
        step,
        step_index,
        events,
        cancel,
        ..
    } = *call;
    let settings = &step.settings;
    let measure_start = start + Duration::from_secs(settings.warmup_s);
    let interval = Duration::from_secs(settings.record_interval_s());
    let mut started_told = false;
    let mut cancel_sent = false;
    let mut told = 0usize;
    for p in parts.iter_mut() {
        p.last_heard = Instant::now();
    }
    while parts.iter().any(|p| !p.done()) {
        if cancel.is_cancelled() && !cancel_sent {
            cancel_sent = true;
            for p in parts.iter().filter(|p| !p.done()) {
                let _ = clients[p.client]
                    .transport
                    .send_line(&Order::Cancel.to_line());
            }
        }
        if !started_told && SystemTime::now() >= measure_start {
            started_told = true;
            events.send(EngineEvent::StepStarted {
                step: step_index,
                scenario: step.scenario,
                threads: step.threads,
                warmup_s: settings.warmup_s,
                planned_s: settings.time_s,
            });
        }
        let running = parts.iter().filter(|p| !p.done()).count().max(1);
        let wait = SWEEP / running as u32;
        for p in parts.iter_mut().filter(|p| !p.done()) {
            read_part(
                &mut clients[p.client],
                p,
                wait,
                measure_start,
                interval,
                events,
            );
        }
        told = tell_seconds(parts, clients, step, step_index, told, events);
    }
    if !started_told {
        events.send(EngineEvent::StepStarted {
            step: step_index,
            scenario: step.scenario,
            threads: step.threads,
            warmup_s: settings.warmup_s,
            planned_s: settings.time_s,
        });
    }
    tell_seconds(parts, clients, step, step_index, told, events);
}

/// What one client said since the last look.
fn read_part(
    c: &mut Client,
    p: &mut Part,
    mut wait: Duration,
    measure_start: SystemTime,
    interval: Duration,
    events: &EventSink,
) {
    let offset_ms = c.offset.offset_us / 1000;
    loop {
        match wire::next(c, wait) {
            Ok(Said::Nothing) => break,
            Ok(Said::Report(r)) => {
                p.last_heard = Instant::now();
                match r {
                    Report::Interval {
                        mut record,
                        histogram,
                    } => {
                        record.end_unix_ms -= offset_ms;
                        p.records.push(record);
                        p.histograms.push(histogram);
                    }
                    Report::Finished { result, histograms } => {
                        let mut result = *result;
                        on_our_clock(&mut result, offset_ms);
                        p.finished = Some((result, histograms));
                        return;
                    }
                    Report::Failed { error } => {
                        lose(c, p, format!("its step failed: {error}"), events);
                        return;
                    }
                    Report::Warning { text } => events.warning(format!("{}: {text}", c.name)),
                    _ => {}
                }
            }
            Err(e) => {
                lose(c, p, e.to_string(), events);
                return;
            }
        }
        wait = Duration::ZERO;
    }
    // Silent past its next interval by more than SILENCE (after the warmup): lost.
    let next_due = measure_start + interval * (p.records.len() as u32 + 1);
    let overdue = SystemTime::now()
        .duration_since(next_due)
        .unwrap_or_default();
    if overdue > SILENCE && p.last_heard.elapsed() > SILENCE {
        lose(
            c,
            p,
            format!("no report for {}s", p.last_heard.elapsed().as_secs()),
            events,
        );
    }
}

/// A client gone mid-step: its share so far counts, the step is partial, and the run
/// goes on without it.
fn lose(c: &mut Client, p: &mut Part, reason: String, events: &EventSink) {
    let after_s = p.records.last().map_or(0.0, |r| r.elapsed_s);
    events.warning(format!(
        "load client {} lost {:.0}s into the step ({reason}): the step is partial, the run goes on without it",
        c.name, after_s
    ));
    c.lost = Some(reason.clone());
    c.transport.stop();
    p.lost = Some(ClientLost { after_s, reason });
}

/// A share's wall-clock times moved from its client's clock onto this machine's.
fn on_our_clock(r: &mut StepResult, offset_ms: i64) {
    r.started_unix_ms -= offset_ms;
    r.ended_unix_ms -= offset_ms;
    for i in &mut r.intervals {
        i.end_unix_ms -= offset_ms;
    }
}

/// Tells every second from `told` on that each share still running has reported;
/// returns the next second to tell.
fn tell_seconds(
    parts: &[Part],
    clients: &[Client],
    step: &StepPlan,
    step_index: usize,
    mut told: usize,
    events: &EventSink,
) -> usize {
    loop {
        let complete = parts.iter().all(|p| p.records.len() > told || p.done());
        let any = parts.iter().any(|p| p.records.len() > told);
        if !complete || !any {
            return told;
        }
        let second: Vec<SecondPart> = parts
            .iter()
            .filter(|p| p.records.len() > told)
            .map(|p| SecondPart {
                client: &clients[p.client].name,
                record: &p.records[told],
                histogram: &p.histograms[told],
            })
            .collect();
        if let Ok(record) = merge_second(&second, step.settings.percentile) {
            events.send(EngineEvent::Interval {
                step: step_index,
                record,
            });
        }
        told += 1;
    }
}

/// Every share, finished or lost, merged into the step.
fn gather(clients: &[Client], parts: Vec<Part>) -> Result<MergedStep, EngineError> {
    let mut shares = Vec::with_capacity(parts.len());
    for p in parts {
        let c = &clients[p.client];
        let clock_offset_ms = c.offset.offset_us as f64 / 1000.0;
        let share = match (p.finished, p.lost) {
            (Some((result, histograms)), _) => Share {
                client: c.name.clone(),
                result,
                interval_histograms: p.histograms,
                histograms,
                clock_offset_ms,
                lost: None,
            },
            (None, lost) => Share::from_intervals(
                c.name.clone(),
                &planned(&p.plan),
                p.records,
                p.histograms,
                clock_offset_ms,
                lost.unwrap_or_default(),
            )
            .map_err(|e| EngineError::Internal(e.to_string()))?,
        };
        shares.push(share);
    }
    merge(shares).map_err(|e| EngineError::Internal(e.to_string()))
}

/// An empty result of the step as planned for one client: what a lost client's share
/// is built on.
fn planned(step: &StepPlan) -> StepResult {
    StepResult {
        scenario: step.scenario,
        threads: step.threads,
        started_unix_ms: 0,
        ended_unix_ms: 0,
        warmup_s: step.settings.warmup_s as f64,
        total_time_s: 0.0,
        transactions: 0,
        queries: QueryCounts::default(),
        ignored_errors: 0,
        reconnects: 0,
        percentile: step.settings.percentile,
        latency_pct_ms: 0.0,
        latency: LatencySummary::default(),
        per_class: Vec::new(),
        fairness: Fairness::default(),
        intervals: Vec::new(),
        steady: None,
        client_cpu: ClientCpu::default(),
        histogram: String::new(),
        cancelled: false,
        printed: None,
        connections: None,
        open_loop: None,
        confidence: None,
        repeat: step.repeat,
        sla_search: false,
        clients: Vec::new(),
        tpcc: None,
    }
}
