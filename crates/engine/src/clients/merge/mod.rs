//! The shares of one step, run from several load clients, folded into one exact step.
//!
//! Exact means: counts are sums; per-second rates are sums on the common clock (second
//! `i` of every share, each share having started at the same instant); every
//! percentile, of the step and of each second, is read from the merged HDR histogram,
//! never averaged; min, max and the latency sum come from the shares' exact figures;
//! fairness is the population mean and deviation over all threads of all clients.
//! The statement classes' and TPC-C transaction types' percentiles come from their
//! merged histograms (each share sends them beside its result); the open-loop figures
//! add up (targets, connections, late starts, queues) and the achieved rate is the
//! shares' transactions over the common window, as tpmC and NOPM are.
//!
//! What cannot be merged exactly is left out, and said: a client lost mid-step sent
//! its per-second records but not its per-class, per-type or open-loop totals, so those
//! figures of that step are absent (never the other clients' alone under the step's
//! name) and [`MergedStep::warnings`] says why.

mod figures;
mod share;

pub use share::{MergeError, Share};

use crate::results::{
    per_sec, ClientCpu, ClientStep, ConnectionsOpened, Fairness, IntervalRecord, LatencySummary,
    QueryCounts, StepResult,
};
use crate::stats::{self, LatencyHistogram, StepConfidence};
use figures::{merge_classes, merge_open_loop, merge_queues, merge_tpcc};
use share::{decode, exact_summary};

/// A client whose load generator used at least this share of its machine's CPU likely
/// limited its share of the step (the rule the reports apply to a one-machine step).
pub const CLIENT_BOUND_PCT: f64 = 85.0;

/// A step merged from its shares, and what could not be merged exactly: each warning
/// names a figure left out of `result` and why.
#[derive(Debug, Clone)]
pub struct MergedStep {
    pub result: StepResult,
    pub warnings: Vec<String>,
}

/// Folds the shares of one step into one result whose `clients` keeps each share.
pub fn merge(shares: Vec<Share>) -> Result<MergedStep, MergeError> {
    let first = shares.first().ok_or(MergeError::NoShares)?.result.clone();
    let percentile = first.percentile;
    let mut latency = LatencyHistogram::new();
    for s in &shares {
        latency.add(&decode(&s.client, &s.result.histogram)?);
    }
    let intervals = merge_intervals(&shares, percentile)?;
    let results: Vec<&StepResult> = shares.iter().map(|s| &s.result).collect();
    let mut queries = QueryCounts::default();
    for r in &results {
        queries.merge(&r.queries);
    }
    let transactions = results.iter().map(|r| r.transactions).sum();
    let total_time_s = results.iter().map(|r| r.total_time_s).fold(0.0, f64::max);
    let exact: Vec<&LatencySummary> = results.iter().map(|r| &r.latency).collect();
    let summary = exact_summary(&latency, &exact);
    let whole_tps = per_sec(transactions, total_time_s);
    let steady = stats::find_steady_window(&intervals, whole_tps);
    let label = format!(
        "{} @ {}",
        first.scenario,
        crate::wording::count(results.iter().map(|r| r.threads).sum::<u32>(), "thread")
    );
    let mut warnings = Vec::new();
    let per_class = merge_classes(&shares, &label, &mut warnings)?;
    let tpcc = merge_tpcc(&shares, total_time_s, &label, &mut warnings)?;
    let open_loop = merge_open_loop(
        &shares,
        &intervals,
        transactions,
        total_time_s,
        &label,
        &mut warnings,
    );
    let mut merged = StepResult {
        threads: results.iter().map(|r| r.threads).sum(),
        // A share that never measured (lost before its first second) has no window.
        started_unix_ms: results
            .iter()
            .map(|r| r.started_unix_ms)
            .filter(|&t| t > 0)
            .min()
            .unwrap_or(0),
        ended_unix_ms: results.iter().map(|r| r.ended_unix_ms).max().unwrap_or(0),
        total_time_s,
        transactions,
        queries,
        ignored_errors: results.iter().map(|r| r.ignored_errors).sum(),
        reconnects: results.iter().map(|r| r.reconnects).sum(),
        latency_pct_ms: latency
            .value_at_percentile_ms(percentile)
            .min(summary.max_ms),
        latency: summary,
        per_class,
        fairness: merge_fairness(&results),
        intervals,
        steady,
        client_cpu: merge_cpu(&results),
        histogram: latency.to_base64(),
        cancelled: results.iter().any(|r| r.cancelled),
        printed: None,
        connections: merge_connections(&results),
        open_loop,
        tpcc,
        confidence: None,
        clients: Vec::new(),
        ..first
    };
    merged.clients = shares.into_iter().map(client_step).collect();
    merged.confidence = Some(StepConfidence::of_step(&merged));
    Ok(MergedStep {
        result: merged,
        warnings,
    })
}

/// Second `i` of the step is second `i` of every share that has one.
fn merge_intervals(shares: &[Share], percentile: f64) -> Result<Vec<IntervalRecord>, MergeError> {
    let longest = shares
        .iter()
        .map(|s| s.result.intervals.len())
        .max()
        .unwrap_or(0);
    (0..longest)
        .map(|i| {
            let parts: Vec<SecondPart> = shares
                .iter()
                .filter_map(|s| {
                    let record = s.result.intervals.get(i)?;
                    Some(SecondPart {
                        client: &s.client,
                        record,
                        histogram: s.interval_histograms.get(i).map_or("", String::as_str),
                    })
                })
                .collect();
            merge_second(&parts, percentile)
        })
        .collect()
}

/// One client's record of one second, with its latency histogram (base64).
pub struct SecondPart<'a> {
    pub client: &'a str,
    pub record: &'a IntervalRecord,
    pub histogram: &'a str,
}

/// One second of the step from every client's record of it: rates add up,
/// percentiles come from the sum of the seconds' histograms. What the coordinator
/// shows live, and what the merged step keeps.
pub fn merge_second(parts: &[SecondPart], percentile: f64) -> Result<IntervalRecord, MergeError> {
    let mut latency = LatencyHistogram::new();
    let mut m = IntervalRecord {
        percentile,
        ..IntervalRecord::default()
    };
    for p in parts {
        let r = p.record;
        latency.add(&decode(p.client, p.histogram)?);
        m.elapsed_s = m.elapsed_s.max(r.elapsed_s);
        m.duration_s = m.duration_s.max(r.duration_s);
        m.end_unix_ms = m.end_unix_ms.max(r.end_unix_ms);
        m.threads += r.threads;
        m.tps += r.tps;
        m.qps += r.qps;
        m.reads_ps += r.reads_ps;
        m.writes_ps += r.writes_ps;
        m.other_ps += r.other_ps;
        m.errors_ps += r.errors_ps;
        m.reconnects_ps += r.reconnects_ps;
    }
    m.open_loop = merge_queues(parts.iter().map(|p| p.record.open_loop));
    m.latency_ms = latency.value_at_percentile_ms(percentile);
    m.p95_ms = Some(latency.value_at_percentile_ms(95.0));
    m.p99_ms = Some(latency.value_at_percentile_ms(99.0));
    Ok(m)
}

/// Population mean and deviation over every thread, from each client's own (its
/// thread count, mean and deviation are all a population's moments need).
fn merge_fairness(results: &[&StepResult]) -> Fairness {
    let pooled = |f: fn(&Fairness) -> (f64, f64)| -> (f64, f64) {
        let n: f64 = results.iter().map(|r| r.threads as f64).sum();
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let mean = results
            .iter()
            .map(|r| r.threads as f64 * f(&r.fairness).0)
            .sum::<f64>()
            / n;
        let second_moment = results
            .iter()
            .map(|r| {
                let (m, sd) = f(&r.fairness);
                r.threads as f64 * (sd * sd + m * m)
            })
            .sum::<f64>()
            / n;
        (mean, (second_moment - mean * mean).max(0.0).sqrt())
    };
    let (events_avg, events_stddev) = pooled(|f| (f.events_avg, f.events_stddev));
    let (exec_time_avg_s, exec_time_stddev_s) =
        pooled(|f| (f.exec_time_avg_s, f.exec_time_stddev_s));
    Fairness {
        events_avg,
        events_stddev,
        exec_time_avg_s,
        exec_time_stddev_s,
    }
}

/// The step's client CPU: seconds and cores add up, and the share of a machine is the
/// busiest client's, so that a step with one saturated client reads client-bound.
fn merge_cpu(results: &[&StepResult]) -> ClientCpu {
    let cpu_seconds: f64 = results.iter().map(|r| r.client_cpu.cpu_seconds).sum();
    let queries: u64 = results.iter().map(|r| r.queries.total()).sum();
    ClientCpu {
        cpu_seconds,
        percent_of_core: results.iter().map(|r| r.client_cpu.percent_of_core).sum(),
        cores: results.iter().map(|r| r.client_cpu.cores).sum(),
        percent_of_machine: results
            .iter()
            .map(|r| r.client_cpu.percent_of_machine)
            .fold(0.0, f64::max),
        us_per_query: if queries > 0 {
            cpu_seconds * 1e6 / queries as f64
        } else {
            0.0
        },
    }
}

/// The slowest client's opening (the step waited for it), every client's retries.
fn merge_connections(results: &[&StepResult]) -> Option<ConnectionsOpened> {
    let opened: Vec<&ConnectionsOpened> = results
        .iter()
        .filter_map(|r| r.connections.as_ref())
        .collect();
    let slowest = opened
        .iter()
        .max_by(|a, b| a.seconds.total_cmp(&b.seconds))?;
    Some(ConnectionsOpened {
        seconds: slowest.seconds,
        retries: opened.iter().map(|c| c.retries).sum(),
        last_retry_reason: opened
            .iter()
            .rev()
            .find_map(|c| c.last_retry_reason.clone()),
    })
}

fn client_step(s: Share) -> ClientStep {
    let r = s.result;
    ClientStep {
        client: s.client,
        threads: r.threads,
        transactions: r.transactions,
        queries: r.queries,
        ignored_errors: r.ignored_errors,
        reconnects: r.reconnects,
        tps: r.tps(),
        qps: r.qps(),
        latency_pct_ms: r.latency_pct_ms,
        client_cpu: r.client_cpu,
        client_bound: r.client_cpu.percent_of_machine >= CLIENT_BOUND_PCT,
        clock_offset_ms: s.clock_offset_ms,
        intervals: r.intervals,
        lost: s.lost,
        open_loop: r.open_loop,
        tpcc: r.tpcc,
    }
}

#[cfg(test)]
mod tests;
