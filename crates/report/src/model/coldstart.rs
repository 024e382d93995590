//! Cold starts: steps whose whole-step throughput was pulled down by their first
//! intervals (seed 003: summary 76.84 TPS against 88–92 once the buffer pool was warm).
//!
//! The engine's steady window (`StepResult::steady`) already found the warm part of each
//! step. A step counts as a cold start when that window excludes at least one leading
//! interval and the whole-step TPS is at least [`MIN_EFFECT_PCT`] below the steady TPS.

use serde::{Deserialize, Serialize};

use crate::format;
use crate::input::ReportRun;
use dbdyno_engine::Scenario;

/// Smallest whole-vs-steady shortfall (percent) reported as a cold start.
pub const MIN_EFFECT_PCT: f64 = 5.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColdStart {
    pub env: usize,
    pub scenario: Scenario,
    pub threads: u32,
    pub whole_tps: f64,
    pub steady_tps: f64,
    /// Whole-step TPS against steady TPS, in percent (negative).
    pub whole_vs_steady_pct: f64,
    /// Leading intervals the steady window left out.
    pub excluded_intervals: usize,
    /// TPS and latency percentile of the first interval.
    pub first_tps: f64,
    pub first_latency_ms: f64,
    pub steady_latency_ms: f64,
    pub percentile: f64,
    pub prewarm_done: Option<bool>,
    pub sentence: String,
}

/// Every cold-started step of every run, in run and step order.
pub fn find(runs: &[&ReportRun]) -> Vec<ColdStart> {
    let mut out = Vec::new();
    for (env, run) in runs.iter().enumerate() {
        for step in &run.steps {
            let r = &step.result;
            let Some(w) = &r.steady else { continue };
            let Some(first) = r.intervals.first() else {
                continue;
            };
            if w.first_interval == 0 || w.whole_vs_steady_pct > -MIN_EFFECT_PCT {
                continue;
            }
            let prewarm = run.environment.prewarm_done;
            let why = match prewarm {
                Some(false) => " (prewarm was off)",
                Some(true) => " even though prewarm ran",
                None => "",
            };
            let pct = trim_pct(r.percentile);
            let sentence = format!(
                "{}: {} at {} threads started cold{why}: its first interval ran at {} TPS with p{pct} {} ms ({} in all), against {} TPS and {} ms once warm; the whole-step {} TPS is {} below the steady rate",
                run.label(),
                r.scenario,
                r.threads,
                format::rate(first.tps),
                format::ms(first.latency_ms),
                dbdyno_engine::wording::count(w.first_interval as u32, "warm-up interval"),
                format::rate(w.tps),
                format::ms(w.latency_ms_avg),
                format::rate(r.tps()),
                format::pct_words(w.whole_vs_steady_pct),
            );
            out.push(ColdStart {
                env,
                scenario: r.scenario,
                threads: r.threads,
                whole_tps: r.tps(),
                steady_tps: w.tps,
                whole_vs_steady_pct: w.whole_vs_steady_pct,
                excluded_intervals: w.first_interval,
                first_tps: first.tps,
                first_latency_ms: first.latency_ms,
                steady_latency_ms: w.latency_ms_avg,
                percentile: r.percentile,
                prewarm_done: prewarm,
                sentence,
            });
        }
    }
    out
}

/// 95 → "95", 99.9 → "99.9".
pub fn trim_pct(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{}", p as u64)
    } else {
        format!("{p}")
    }
}
