//! Δ% against the baseline and a verdict per cell that knows the noise.
//!
//! A cell (scenario × thread count) of an environment is compared with the baseline's cell
//! at the same scenario and thread count. Each figure's Δ gets a 95% interval from the two
//! steps' per-second records ([`super::noise`]); TPS and p95 decide the cell:
//!
//! - **REGRESSED** when the whole interval of Δ TPS lies below −threshold, or the whole
//!   interval of Δ p95 above +threshold with p95 up by at least the latency floor in
//!   milliseconds (a sub-millisecond p95 moving by a few microseconds is noise);
//! - **not judged** when a deciding figure has no interval (too few per-second values, or
//!   no per-second series of it): the reason is given, and nothing is claimed;
//! - **IMPROVED** when the whole interval lies beyond the threshold on the better side;
//! - **within noise** otherwise: these runs cannot tell whether the difference is larger
//!   than the threshold, and the width of the noise says by how much they could be wrong.
//!
//! Only regressed cells fail the comparison. A cell that only one side ran, or that either
//! side cancelled before its time was up, is MISSING (not comparable): reported, and a
//! failure only with `--fail-on-missing`.
//! Δ CPU is relative (percent of the baseline's CPU), as in "52% lower CPU".

use serde::{Deserialize, Serialize};

use super::knee::pct_change;
use super::noise::{self, Limits};
use super::{Cell, EnvScenario, ReportOptions, ScenarioReport};

// The records a comparison yields live in a leaf that the noise judgement shares.
pub use super::verdict::{Comparison, DeltaRow, Verdict};

/// Totals over every comparison of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonTotals {
    /// Cells both sides ran to their end: regressed + improved + within noise + not judged.
    pub compared: usize,
    /// REGRESSED cells: what fails the comparison (and `dbdyno report` with exit code 4).
    pub failed: usize,
    pub improved: usize,
    pub within_noise: usize,
    pub not_judged: usize,
    pub missing: usize,
    /// "env scenario at N threads: reasons" for each regressed cell, in report order.
    pub failures: Vec<String>,
}

pub fn compare_scenario(
    s: &ScenarioReport,
    baseline: usize,
    opts: &ReportOptions,
) -> Vec<Comparison> {
    let Some(base) = s.envs.iter().find(|e| e.env == baseline) else {
        return Vec::new();
    };
    s.envs
        .iter()
        .filter(|e| e.env != baseline)
        .map(|e| compare_env(s, base, e, opts))
        .collect()
}

/// One environment's ladder against the baseline's: a row per thread count, and the
/// ratios over the thread counts both ran.
fn compare_env(
    s: &ScenarioReport,
    base: &EnvScenario,
    e: &EnvScenario,
    opts: &ReportOptions,
) -> Comparison {
    let rows: Vec<DeltaRow> = s
        .threads
        .iter()
        .enumerate()
        .map(|(i, &threads)| match (&base.cells[i], &e.cells[i]) {
            (Some(b), Some(n)) if !b.cancelled && !n.cancelled => compared_row(threads, b, n, opts),
            (b, n) => missing_row(threads, b, n),
        })
        .collect();
    let pairs: Vec<(&Cell, &Cell)> = base
        .cells
        .iter()
        .zip(&e.cells)
        .filter_map(|(b, n)| Some((b.as_ref()?, n.as_ref()?)))
        .filter(|(b, n)| !b.cancelled && !n.cancelled)
        .collect();
    let tps_ratios: Vec<f64> = pairs
        .iter()
        .filter(|(b, n)| b.tps > 0.0 && n.tps > 0.0)
        .map(|(b, n)| n.tps / b.tps)
        .collect();
    let cpu_ratios: Vec<f64> = pairs
        .iter()
        .filter_map(|(b, n)| match (b.cpu_pct, n.cpu_pct) {
            (Some(x), Some(y)) if x > 0.0 => Some(y / x),
            _ => None,
        })
        .collect();
    Comparison {
        env: e.env,
        baseline: base.env,
        rows,
        tps_ratio: geo_mean(&tps_ratios),
        cpu_ratio: mean(&cpu_ratios),
        matched: pairs.len(),
    }
}

/// Both sides ran the step to its end: the deltas, their intervals, and the verdict with
/// its reasons.
fn compared_row(threads: u32, b: &Cell, n: &Cell, opts: &ReportOptions) -> DeltaRow {
    let opt = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) if x > 0.0 => Some(pct_change(x, y)),
        _ => None,
    };
    let limits = Limits {
        threshold_pct: opts.threshold_pct,
        latency_floor_ms: opts.latency_floor_ms,
    };
    let judged = noise::judge_cell(b, n, limits);
    let (verdict, reasons, noise_pct) = noise::cell_verdict(&judged);
    DeltaRow {
        threads,
        tps_pct: Some(pct_change(b.tps, n.tps)),
        qps_pct: Some(pct_change(b.qps, n.qps)),
        p95_pct: opt(b.p95_ms, n.p95_ms),
        p99_pct: opt(b.p99_ms, n.p99_ms),
        cpu_pct: opt(b.cpu_pct, n.cpu_pct),
        disk_util_pct: opt(b.disk_util_pct, n.disk_util_pct),
        verdict,
        reasons,
        noise_pct,
        judged: Some(judged),
        cancelled: false,
        interval_method: super::repeats::delta_source(b, n),
    }
}

/// A step only one side ran, or that either side cut short: not compared.
fn missing_row(threads: u32, b: &Option<Cell>, n: &Option<Cell>) -> DeltaRow {
    DeltaRow {
        threads,
        tps_pct: None,
        qps_pct: None,
        p95_pct: None,
        p99_pct: None,
        cpu_pct: None,
        disk_util_pct: None,
        verdict: Verdict::Missing,
        reasons: Vec::new(),
        noise_pct: None,
        judged: None,
        cancelled: [b, n]
            .iter()
            .any(|c| c.as_ref().is_some_and(|c| c.cancelled)),
        interval_method: None,
    }
}

/// Adds up the verdicts of every scenario.
pub fn totals(scenarios: &[ScenarioReport], envs: &[super::EnvSummary]) -> ComparisonTotals {
    let mut t = ComparisonTotals {
        compared: 0,
        failed: 0,
        improved: 0,
        within_noise: 0,
        not_judged: 0,
        missing: 0,
        failures: Vec::new(),
    };
    for s in scenarios {
        for c in &s.comparisons {
            for r in &c.rows {
                if r.verdict != Verdict::Missing {
                    t.compared += 1;
                }
                match r.verdict {
                    Verdict::Regressed => {
                        t.failed += 1;
                        t.failures.push(format!(
                            "{} {} at {} threads: {}",
                            envs.get(c.env).map(|e| e.name.as_str()).unwrap_or("?"),
                            s.scenario,
                            r.threads,
                            r.reasons.join(", ")
                        ));
                    }
                    Verdict::Improved => t.improved += 1,
                    Verdict::WithinNoise => t.within_noise += 1,
                    Verdict::NotJudged => t.not_judged += 1,
                    Verdict::Missing => t.missing += 1,
                }
            }
        }
    }
    t
}

fn geo_mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}
