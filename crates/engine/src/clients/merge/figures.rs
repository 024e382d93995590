//! The figures beyond the step's own totals, merged from the shares: latency per
//! statement class, TPC-C per transaction type (tpmC, NOPM), the open-loop schedule.
//! Each merges exactly or is left out with a warning, never half-merged.

use super::share::{decode, exact_summary, MergeError, Share};
use crate::open_loop::{unsustained_reason, IntervalQueue, OpenLoopResult};
use crate::results::{per_sec, ClassLatency, IntervalRecord, LatencySummary, StepResult};
use crate::stats::LatencyHistogram;
use crate::tpcc::{TpccResult, TpccTxnResult, TxnKind};
use crate::workload::StatementClass;

/// A share that did run transactions but sent no `has` figure: a client lost mid-step,
/// whose share was rebuilt from its per-second records alone.
fn unaccounted(shares: &[Share], has: impl Fn(&StepResult) -> bool) -> Option<&str> {
    shares
        .iter()
        .find(|s| s.result.transactions > 0 && !has(&s.result))
        .map(|s| s.client.as_str())
}

fn left_out(warnings: &mut Vec<String>, label: &str, what: &str, client: &str) {
    warnings.push(format!(
        "{label}: {what} left out of the merged step: load client {client} was lost mid-step and its share of them never arrived"
    ));
}

/// Histograms of the same figure from several shares, added; None when a share that
/// has the figure sent no histogram for it.
fn added<'a>(
    parts: impl Iterator<Item = (&'a str, Option<&'a str>)>,
    empty: LatencyHistogram,
) -> Result<Option<LatencyHistogram>, MergeError> {
    let mut all = empty;
    for (client, histogram) in parts {
        let Some(h) = histogram else {
            return Ok(None);
        };
        all.add(&decode(client, h)?);
    }
    Ok(Some(all))
}

/// Per statement class: counts, min, max and sums add up; percentiles are read from
/// the classes' merged histograms.
pub(super) fn merge_classes(
    shares: &[Share],
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<Vec<ClassLatency>, MergeError> {
    if shares.iter().all(|s| s.result.per_class.is_empty()) {
        return Ok(Vec::new());
    }
    if let Some(client) = unaccounted(shares, |r| !r.per_class.is_empty()) {
        left_out(
            warnings,
            label,
            "the latency per statement class is",
            client,
        );
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for class in StatementClass::all() {
        let parts: Vec<(&Share, &ClassLatency)> = shares
            .iter()
            .filter_map(|s| Some((s, s.result.per_class.iter().find(|c| c.class == class)?)))
            .collect();
        if parts.is_empty() {
            continue;
        }
        let histograms = parts.iter().map(|(s, _)| {
            let h = s.histograms.per_class.iter().find(|(c, _)| *c == class);
            (s.client.as_str(), h.map(|(_, h)| h.as_str()))
        });
        let Some(all) = added(histograms, LatencyHistogram::coarse())? else {
            warnings.push(format!(
                "{label}: the latency per statement class is left out of the merged step: a load client sent no histogram of {class:?}"
            ));
            return Ok(Vec::new());
        };
        let exact: Vec<&LatencySummary> = parts.iter().map(|(_, c)| &c.latency).collect();
        out.push(ClassLatency {
            class,
            latency: exact_summary(&all, &exact),
        });
    }
    Ok(out)
}

/// TPC-C: counts per transaction type add up, latencies come from the types' merged
/// histograms, and tpmC, NOPM and the rates are the summed counts over the common
/// window (`seconds`, the merged step's measured time).
pub(super) fn merge_tpcc(
    shares: &[Share],
    seconds: f64,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<TpccResult>, MergeError> {
    if shares.iter().all(|s| s.result.tpcc.is_none()) {
        return Ok(None);
    }
    if let Some(client) = unaccounted(shares, |r| r.tpcc.is_some()) {
        left_out(
            warnings,
            label,
            "the TPC-C figures (tpmC, NOPM, per transaction type) are",
            client,
        );
        return Ok(None);
    }
    let per_s = |n: u64| per_sec(n, seconds);
    let mut transactions = Vec::new();
    for kind in TxnKind::ALL {
        let parts: Vec<(&Share, &TpccTxnResult)> = shares
            .iter()
            .filter_map(|s| {
                let t = s.result.tpcc.as_ref()?;
                Some((s, t.transactions.iter().find(|t| t.kind == kind)?))
            })
            .collect();
        if parts.is_empty() {
            continue;
        }
        let sum = |f: fn(&TpccTxnResult) -> u64| parts.iter().map(|(_, t)| f(t)).sum::<u64>();
        let timed: Vec<&(&Share, &TpccTxnResult)> =
            parts.iter().filter(|(_, t)| t.latency.is_some()).collect();
        let histograms = timed.iter().map(|(s, _)| {
            let h = s.histograms.tpcc.iter().find(|(k, _)| *k == kind);
            (s.client.as_str(), h.map(|(_, h)| h.as_str()))
        });
        let latency = match added(histograms, LatencyHistogram::new())? {
            _ if timed.is_empty() => None,
            Some(all) => {
                let exact: Vec<&LatencySummary> = timed
                    .iter()
                    .filter_map(|(_, t)| t.latency.as_ref())
                    .collect();
                Some(exact_summary(&all, &exact))
            }
            None => {
                warnings.push(format!(
                    "{label}: the {} latency is left out of the merged step: a load client sent no histogram of it",
                    kind.label()
                ));
                None
            }
        };
        let count = sum(|t| t.count);
        transactions.push(TpccTxnResult {
            kind,
            count,
            rolled_back: sum(|t| t.rolled_back),
            deadlocks: sum(|t| t.deadlocks),
            lock_wait_timeouts: sum(|t| t.lock_wait_timeouts),
            other_errors: sum(|t| t.other_errors),
            per_s: per_s(count),
            latency,
        });
    }
    let total = |f: fn(&TpccTxnResult) -> u64| transactions.iter().map(f).sum::<u64>();
    let (new_orders, rolled_back) = transactions
        .iter()
        .find(|t| t.kind == TxnKind::NewOrder)
        .map_or((0, 0), |t| (t.count, t.rolled_back));
    Ok(Some(TpccResult {
        tpmc: per_s(new_orders) * 60.0,
        nopm: per_s(new_orders - rolled_back) * 60.0,
        rollbacks: total(|t| t.rolled_back),
        deadlocks: total(|t| t.deadlocks),
        lock_wait_timeouts: total(|t| t.lock_wait_timeouts),
        transactions,
    }))
}

/// One second's queues of every share: the arrivals waiting and in flight add up, the
/// longest lag is the longest of any. None when a share has no queue (a closed loop).
pub(super) fn merge_queues(
    queues: impl Iterator<Item = Option<IntervalQueue>>,
) -> Option<IntervalQueue> {
    let mut m = IntervalQueue::default();
    let mut any = false;
    for q in queues {
        let q = q?;
        any = true;
        m.queue += q.queue;
        m.concurrency += q.concurrency;
        m.late_starts += q.late_starts;
        m.max_lag_ms = m.max_lag_ms.max(q.max_lag_ms);
    }
    any.then_some(m)
}

/// The open-loop figures: the shares' targets, connections, late starts and queues add
/// up; the achieved rate is every share's transactions over the common window; the
/// verdict is taken again on the sums, as for one machine.
pub(super) fn merge_open_loop(
    shares: &[Share],
    intervals: &[IntervalRecord],
    transactions: u64,
    seconds: f64,
    label: &str,
    warnings: &mut Vec<String>,
) -> Option<OpenLoopResult> {
    let first = shares.iter().find_map(|s| s.result.open_loop.as_ref())?;
    if let Some(client) = unaccounted(shares, |r| r.open_loop.is_some()) {
        left_out(
            warnings,
            label,
            "the open-loop figures (achieved rate, late starts, queue) are",
            client,
        );
        return None;
    }
    let all: Vec<&OpenLoopResult> = shares
        .iter()
        .filter_map(|s| s.result.open_loop.as_ref())
        .collect();
    let target_rate: f64 = all.iter().map(|o| o.target_rate).sum();
    let achieved_rate = per_sec(transactions, seconds);
    let queue_at_end: u64 = all.iter().map(|o| o.queue_at_end).sum();
    let reason = unsustained_reason(target_rate, achieved_rate, queue_at_end);
    Some(OpenLoopResult {
        target_rate,
        dist: first.dist,
        connections: all.iter().map(|o| o.connections).sum(),
        achieved_rate,
        late_starts: all.iter().map(|o| o.late_starts).sum(),
        max_lag_ms: all.iter().map(|o| o.max_lag_ms).fold(0.0, f64::max),
        max_queue: intervals
            .iter()
            .filter_map(|i| i.open_loop.map(|q| q.queue))
            .max()
            .unwrap_or(queue_at_end),
        queue_at_end,
        sustained: reason.is_none(),
        reason,
    })
}
