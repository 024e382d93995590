//! The TPC-C figures of the runs that ran the tpcc scenario: tpmC and NOPM per thread
//! count (the tpmC dyno curve), the per-transaction table (count, rate, p95/p99,
//! rollbacks, deadlocks) and, when environments are compared, tpmC per environment with
//! its Δ against the baseline, as the matrices give TPS.
//!
//! Steps without TPC-C figures (an imported sysbench-tpcc log, which counts no
//! New-Orders) leave their point empty rather than inventing one. The repeats of a step
//! (`--repeat`) give their mean tpmC and NOPM; the per-transaction rows are the last
//! repeat's, which the table says.

use dbdyno_engine::tpcc::TpccResult;
use dbdyno_engine::Scenario;
use serde::{Deserialize, Serialize};

use crate::format;
use crate::input::ReportRun;

/// Every TPC-C figure of the report; `None` on the report when no step has any.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TpccSection {
    /// Thread counts any environment ran tpcc at with TPC-C figures, ascending.
    pub threads: Vec<u32>,
    /// One per environment that has TPC-C figures, in `Report::envs` order.
    pub curves: Vec<TpccCurve>,
    /// Every transaction type of every step, environment by environment.
    pub transactions: Vec<TpccTxnRow>,
    /// tpmC against the baseline, per environment other than it and thread count.
    pub deltas: Vec<TpccDelta>,
}

/// One environment's tpmC dyno curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TpccCurve {
    pub env: usize,
    /// Aligned with [`TpccSection::threads`]; `None` where the environment has no figure.
    pub points: Vec<Option<TpccPoint>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TpccPoint {
    pub threads: u32,
    pub tpmc: f64,
    pub nopm: f64,
}

/// One transaction type of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TpccTxnRow {
    pub env: usize,
    pub threads: u32,
    /// "New-Order", "Payment", ...
    pub transaction: String,
    pub count: u64,
    pub per_s: f64,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// Rolled back by design (New-Order's unused item).
    pub rollbacks: u64,
    /// Restarted after a deadlock or a lock wait timeout.
    pub deadlocks: u64,
}

/// tpmC of one environment at one thread count against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TpccDelta {
    pub env: usize,
    pub threads: u32,
    pub baseline_tpmc: Option<f64>,
    pub tpmc: Option<f64>,
    /// `None` when either side has no figure, or the baseline's is 0.
    pub delta_pct: Option<f64>,
}

/// The section of `runs` (baseline first, as `Report::envs`); `None` without figures.
pub fn build(runs: &[&ReportRun], baseline: Option<usize>) -> Option<TpccSection> {
    let per_env: Vec<Vec<(u32, Vec<&TpccResult>)>> = runs.iter().map(|r| steps_of(r)).collect();
    let mut threads: Vec<u32> = per_env
        .iter()
        .flat_map(|e| e.iter().map(|(t, _)| *t))
        .collect();
    threads.sort_unstable();
    threads.dedup();
    if threads.is_empty() {
        return None;
    }
    let curves: Vec<TpccCurve> = per_env
        .iter()
        .enumerate()
        .filter(|(_, steps)| !steps.is_empty())
        .map(|(env, steps)| TpccCurve {
            env,
            points: threads
                .iter()
                .map(|t| {
                    steps
                        .iter()
                        .find(|(st, _)| st == t)
                        .map(|(_, repeats)| mean_point(*t, repeats))
                })
                .collect(),
        })
        .collect();
    let transactions = per_env
        .iter()
        .enumerate()
        .flat_map(|(env, steps)| {
            steps.iter().flat_map(move |(t, repeats)| {
                let last = repeats.last().expect("a step has one repeat at least");
                txn_rows(env, *t, last)
            })
        })
        .collect();
    let deltas = baseline
        .map(|b| deltas(&curves, &threads, b, runs.len()))
        .unwrap_or_default();
    Some(TpccSection {
        threads,
        curves,
        transactions,
        deltas,
    })
}

/// A run's tpcc steps with TPC-C figures by thread count (ascending), each with its
/// repeats; the capacity search's extra steps are left out, as in the matrices.
fn steps_of(run: &ReportRun) -> Vec<(u32, Vec<&TpccResult>)> {
    let mut out: std::collections::BTreeMap<u32, Vec<&TpccResult>> = Default::default();
    for s in run.steps.iter().map(|s| &s.result) {
        if s.scenario != Scenario::Tpcc || s.sla_search {
            continue;
        }
        let Some(t) = &s.tpcc else { continue };
        let repeats = out.entry(s.threads).or_default();
        // A step that is not a repeat replaces what came before it: a re-run.
        if s.repeat.is_single() {
            repeats.clear();
        }
        repeats.push(t);
    }
    out.into_iter().collect()
}

fn mean_point(threads: u32, repeats: &[&TpccResult]) -> TpccPoint {
    let n = repeats.len().max(1) as f64;
    TpccPoint {
        threads,
        tpmc: repeats.iter().map(|r| r.tpmc).sum::<f64>() / n,
        nopm: repeats.iter().map(|r| r.nopm).sum::<f64>() / n,
    }
}

fn txn_rows(env: usize, threads: u32, r: &TpccResult) -> Vec<TpccTxnRow> {
    r.transactions
        .iter()
        .map(|t| TpccTxnRow {
            env,
            threads,
            transaction: t.kind.label().to_string(),
            count: t.count,
            per_s: t.per_s,
            p95_ms: t.latency.as_ref().and_then(|l| l.p95_ms),
            p99_ms: t.latency.as_ref().and_then(|l| l.p99_ms),
            rollbacks: t.rolled_back,
            deadlocks: t.deadlocks + t.lock_wait_timeouts,
        })
        .collect()
}

fn deltas(curves: &[TpccCurve], threads: &[u32], baseline: usize, envs: usize) -> Vec<TpccDelta> {
    let tpmc_of = |env: usize, i: usize| {
        curves
            .iter()
            .find(|c| c.env == env)
            .and_then(|c| c.points[i].map(|p| p.tpmc))
    };
    (0..envs)
        .filter(|&e| e != baseline)
        .flat_map(|env| {
            threads.iter().enumerate().filter_map(move |(i, &t)| {
                let base = tpmc_of(baseline, i);
                let own = tpmc_of(env, i);
                own.is_some().then(|| TpccDelta {
                    env,
                    threads: t,
                    baseline_tpmc: base,
                    tpmc: own,
                    delta_pct: match (base, own) {
                        (Some(b), Some(o)) if b > 0.0 => Some((o - b) / b * 100.0),
                        _ => None,
                    },
                })
            })
        })
        .collect()
}

impl TpccSection {
    /// An environment's point at a thread count.
    pub fn point(&self, env: usize, threads: u32) -> Option<TpccPoint> {
        let i = self.threads.iter().position(|&t| t == threads)?;
        self.curves
            .iter()
            .find(|c| c.env == env)
            .and_then(|c| c.points[i])
    }

    /// An environment's Δ tpmC at a thread count.
    pub fn delta(&self, env: usize, threads: u32) -> Option<&TpccDelta> {
        self.deltas
            .iter()
            .find(|d| d.env == env && d.threads == threads)
    }
}

/// The column headers of the tpmC table (one row per environment and thread count).
pub const CURVE_HEADER: [&str; 5] = ["Environment", "Threads", "tpmC", "NOPM", "Δ tpmC"];

/// One row of the tpmC table per environment and thread count, as text cells in
/// [`CURVE_HEADER`]'s order (Δ empty for the baseline or a single run).
pub fn curve_rows(s: &TpccSection, env_name: &dyn Fn(usize) -> String) -> Vec<[String; 5]> {
    s.curves
        .iter()
        .flat_map(|c| {
            c.points.iter().flatten().map(move |p| {
                let delta = s
                    .delta(c.env, p.threads)
                    .and_then(|d| d.delta_pct)
                    .map(format::delta_pct)
                    .unwrap_or_default();
                [
                    env_name(c.env),
                    p.threads.to_string(),
                    format::grouped(p.tpmc, 0),
                    format::grouped(p.nopm, 0),
                    delta,
                ]
            })
        })
        .collect()
}

/// The column headers of the per-transaction table.
pub const TXN_HEADER: [&str; 9] = [
    "Environment",
    "Threads",
    "Transaction",
    "Count",
    "Per second",
    "p95 (ms)",
    "p99 (ms)",
    "Rollbacks",
    "Deadlocks",
];

/// One per-transaction row as text cells in [`TXN_HEADER`]'s order.
pub fn txn_cells(t: &TpccTxnRow, env_name: &str) -> [String; 9] {
    [
        env_name.to_string(),
        t.threads.to_string(),
        t.transaction.clone(),
        format::grouped(t.count as f64, 0),
        format!("{:.2}", t.per_s),
        format::ms_opt(t.p95_ms),
        format::ms_opt(t.p99_ms),
        t.rollbacks.to_string(),
        t.deadlocks.to_string(),
    ]
}

/// Whether a column of these tables holds text (left-aligned) rather than figures.
pub fn is_text_column(header: &str) -> bool {
    matches!(header, "Environment" | "Transaction")
}

/// What the per-transaction table counts, said once under it.
pub const TXN_NOTE: &str = "Count: completed transactions, New-Orders rolled back by design included (TPC-C counts them). Deadlocks: restarts after a deadlock or a lock wait timeout. A repeated step shows its last repeat; tpmC is the repeats' mean.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_need_both_sides_and_a_baseline_above_zero() {
        let curves = vec![
            TpccCurve {
                env: 0,
                points: vec![Some(TpccPoint {
                    threads: 4,
                    tpmc: 1000.0,
                    nopm: 990.0,
                })],
            },
            TpccCurve {
                env: 1,
                points: vec![Some(TpccPoint {
                    threads: 4,
                    tpmc: 1100.0,
                    nopm: 1089.0,
                })],
            },
        ];
        let d = deltas(&curves, &[4], 0, 3);
        assert_eq!(d.len(), 1, "env 2 has no figure of its own: {d:?}");
        assert!((d[0].delta_pct.unwrap() - 10.0).abs() < 1e-9);
    }
}
