//! Δ% against the baseline and a PASS/FAIL verdict per cell (HammerDB's Base/New idea).
//!
//! A cell (scenario × thread count) of an environment FAILS when, against the baseline's
//! cell at the same scenario and thread count:
//!
//! - TPS fell by more than the threshold (`Δ TPS < −threshold`), or
//! - p95 latency rose by more than the threshold *and* by at least the latency floor in
//!   milliseconds (a sub-millisecond p95 moving by a few microseconds is noise).
//!
//! Otherwise it PASSES. A cell that only one side ran, or that either side cancelled
//! before its time was up, is MISSING (not comparable): reported, and a failure only with
//! `--fail-on-missing`.
//! Δ CPU is relative (percent of the baseline's CPU), as in "52% lower CPU".

use serde::{Deserialize, Serialize};

use super::knee::pct_change;
use super::{ReportOptions, ScenarioReport};
use crate::format;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    Missing,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Missing => "n/a",
        }
    }
}

/// One environment against the baseline, for one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub env: usize,
    pub baseline: usize,
    /// Aligned with `ScenarioReport::threads`.
    pub rows: Vec<DeltaRow>,
    /// Geometric mean of TPS ratios over the thread counts both ran (1.35 = 35% more).
    pub tps_ratio: Option<f64>,
    /// Mean of server CPU ratios over the thread counts both ran with CPU figures.
    pub cpu_ratio: Option<f64>,
    /// Thread counts both ran.
    pub matched: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeltaRow {
    pub threads: u32,
    pub tps_pct: Option<f64>,
    pub qps_pct: Option<f64>,
    pub p95_pct: Option<f64>,
    pub p99_pct: Option<f64>,
    pub cpu_pct: Option<f64>,
    pub disk_util_pct: Option<f64>,
    pub verdict: Verdict,
    /// Why it failed (empty when it passed).
    pub reasons: Vec<String>,
    /// Either side's step was cancelled: shown, not compared.
    #[serde(default)]
    pub cancelled: bool,
}

impl DeltaRow {
    /// The verdict as the matrices print it: "cancelled" for a cut-short step.
    pub fn verdict_label(&self) -> &'static str {
        if self.cancelled {
            "cancelled"
        } else {
            self.verdict.label()
        }
    }
}

/// Totals over every comparison of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonTotals {
    pub compared: usize,
    pub passed: usize,
    pub failed: usize,
    pub missing: usize,
    /// "env scenario@threads (reason)" for each failure, in report order.
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
        .map(|e| {
            let rows: Vec<DeltaRow> = s
                .threads
                .iter()
                .enumerate()
                .map(|(i, &threads)| match (&base.cells[i], &e.cells[i]) {
                    (Some(b), Some(n)) if !b.cancelled && !n.cancelled => {
                        let opt = |x: Option<f64>, y: Option<f64>| match (x, y) {
                            (Some(x), Some(y)) if x > 0.0 => Some(pct_change(x, y)),
                            _ => None,
                        };
                        let tps_pct = pct_change(b.tps, n.tps);
                        let p95_pct = opt(b.p95_ms, n.p95_ms);
                        let mut reasons = Vec::new();
                        if tps_pct < -opts.threshold_pct {
                            reasons.push(format!(
                                "TPS {} ({} → {})",
                                format::delta_pct(tps_pct),
                                format::rate(b.tps),
                                format::rate(n.tps)
                            ));
                        }
                        if let (Some(p), Some(bp), Some(np)) = (p95_pct, b.p95_ms, n.p95_ms) {
                            if p > opts.threshold_pct && np - bp >= opts.latency_floor_ms {
                                reasons.push(format!(
                                    "p95 {} ({} → {} ms)",
                                    format::delta_pct(p),
                                    format::ms(bp),
                                    format::ms(np)
                                ));
                            }
                        }
                        DeltaRow {
                            threads,
                            tps_pct: Some(tps_pct),
                            qps_pct: Some(pct_change(b.qps, n.qps)),
                            p95_pct,
                            p99_pct: opt(b.p99_ms, n.p99_ms),
                            cpu_pct: opt(b.cpu_pct, n.cpu_pct),
                            disk_util_pct: opt(b.disk_util_pct, n.disk_util_pct),
                            verdict: if reasons.is_empty() {
                                Verdict::Pass
                            } else {
                                Verdict::Fail
                            },
                            reasons,
                            cancelled: false,
                        }
                    }
                    (b, n) => DeltaRow {
                        threads,
                        tps_pct: None,
                        qps_pct: None,
                        p95_pct: None,
                        p99_pct: None,
                        cpu_pct: None,
                        disk_util_pct: None,
                        verdict: Verdict::Missing,
                        reasons: Vec::new(),
                        cancelled: [b, n]
                            .iter()
                            .any(|c| c.as_ref().is_some_and(|c| c.cancelled)),
                    },
                })
                .collect();
            let pairs: Vec<(&super::Cell, &super::Cell)> = base
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
                baseline,
                rows,
                tps_ratio: geo_mean(&tps_ratios),
                cpu_ratio: mean(&cpu_ratios),
                matched: pairs.len(),
            }
        })
        .collect()
}

/// Adds up the verdicts of every scenario.
pub fn totals(scenarios: &[ScenarioReport], envs: &[super::EnvSummary]) -> ComparisonTotals {
    let mut t = ComparisonTotals {
        compared: 0,
        passed: 0,
        failed: 0,
        missing: 0,
        failures: Vec::new(),
    };
    for s in scenarios {
        for c in &s.comparisons {
            for r in &c.rows {
                match r.verdict {
                    Verdict::Pass => {
                        t.compared += 1;
                        t.passed += 1;
                    }
                    Verdict::Fail => {
                        t.compared += 1;
                        t.failed += 1;
                        t.failures.push(format!(
                            "{} {} at {} threads: {}",
                            envs.get(c.env).map(|e| e.name.as_str()).unwrap_or("?"),
                            s.scenario,
                            r.threads,
                            r.reasons.join(", ")
                        ));
                    }
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
