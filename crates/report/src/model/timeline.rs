//! One step seen up close: its per-second throughput and latency with the server's CPU
//! and disk beside them (seed 000's aligned tsar slice), and its latency distribution
//! read back from the stored HDR histogram.
//!
//! The step is chosen with `--timeline=SCENARIO@THREADS`; by default it is the baseline's
//! first scenario at its knee (or its peak when there is no knee), so the report shows
//! the step that matters most. Every environment that ran that step is shown.

use std::collections::BTreeMap;

use dbdyno_engine::stats::LatencyHistogram;
use dbdyno_engine::Scenario;
use serde::{Deserialize, Serialize};

use super::{KneeKind, ScenarioReport, Severity, Warning};
use crate::input::ReportRun;

/// Latency buckets per decade of milliseconds (edges at 10^(k/10) ms).
pub const BUCKETS_PER_DECADE: f64 = 10.0;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub env: usize,
    pub scenario: Scenario,
    pub threads: u32,
    /// The latency percentile of the interval records.
    pub percentile: f64,
    pub points: Vec<TimelinePoint>,
    pub server: Vec<ServerPoint>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimelinePoint {
    /// Seconds since measurement started, at the end of the interval.
    pub t_s: f64,
    pub tps: f64,
    pub qps: f64,
    pub latency_ms: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ServerPoint {
    pub t_s: f64,
    pub cpu_pct: f64,
    pub disk_util_pct: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyDistribution {
    pub scenario: Scenario,
    pub threads: u32,
    pub series: Vec<LatencySeries>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencySeries {
    pub env: usize,
    pub count: u64,
    pub buckets: Vec<LatencyBucket>,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

/// Share of transactions whose latency fell in `[lower_ms, upper_ms)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyBucket {
    pub lower_ms: f64,
    pub upper_ms: f64,
    pub share_pct: f64,
}

/// Which step to show, or `None` when no run has steps.
pub fn choose(
    scenarios: &[ScenarioReport],
    wanted: Option<(Scenario, u32)>,
) -> Option<(Scenario, u32)> {
    if wanted.is_some() {
        return wanted;
    }
    let s = scenarios.first()?;
    let e = s
        .envs
        .iter()
        .find(|e| e.cells.iter().any(Option::is_some))?;
    let threads = match (e.knee.kind, e.knee.best_threads) {
        (KneeKind::Found, Some(t)) => t,
        _ => e.peak?.threads,
    };
    Some((s.scenario, threads))
}

/// The timelines and latency distribution of the chosen step, and warnings about them.
pub fn build(
    runs: &[&ReportRun],
    scenarios: &[ScenarioReport],
    wanted: Option<(Scenario, u32)>,
) -> (Vec<Timeline>, Option<LatencyDistribution>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let Some((scenario, threads)) = choose(scenarios, wanted) else {
        return (Vec::new(), None, warnings);
    };
    let mut timelines = Vec::new();
    let mut series = Vec::new();
    for (env, run) in runs.iter().enumerate() {
        let Some(step) = run
            .steps
            .iter()
            .rev()
            .find(|s| s.result.scenario == scenario && s.result.threads == threads)
        else {
            continue;
        };
        let r = &step.result;
        timelines.push(Timeline {
            env,
            scenario,
            threads,
            percentile: r.percentile,
            points: r
                .intervals
                .iter()
                .map(|i| TimelinePoint {
                    t_s: i.elapsed_s,
                    tps: i.tps,
                    qps: i.qps,
                    latency_ms: i.latency_ms,
                })
                .collect(),
            server: step
                .server
                .iter()
                .flat_map(|s| &s.per_second)
                .map(|s| ServerPoint {
                    t_s: s.t_s,
                    cpu_pct: s.cpu_pct,
                    disk_util_pct: s.disk_util_pct,
                })
                .collect(),
        });
        match LatencyHistogram::from_base64(&r.histogram) {
            Ok(h) if h.count() > 0 => series.push(distribution(env, &h)),
            Ok(_) => warnings.push(Warning {
                severity: Severity::Note,
                env: Some(env),
                text: format!(
                    "{}: {scenario}@{threads} has no stored latency histogram, so its distribution is not shown",
                    run.label()
                ),
            }),
            Err(e) => warnings.push(Warning {
                severity: Severity::Warning,
                env: Some(env),
                text: format!("{}: {scenario}@{threads}: {e}", run.label()),
            }),
        }
    }
    let dist = (!series.is_empty()).then_some(LatencyDistribution {
        scenario,
        threads,
        series,
    });
    (timelines, dist, warnings)
}

/// Re-buckets an HDR histogram into log-spaced buckets (10 per decade), gaps filled.
pub fn distribution(env: usize, h: &LatencyHistogram) -> LatencySeries {
    let mut counts: BTreeMap<i32, u64> = BTreeMap::new();
    let mut total = 0u64;
    for (us, n) in h.recorded_us() {
        let ms = (us.max(1)) as f64 / 1000.0;
        let k = (ms.log10() * BUCKETS_PER_DECADE).floor() as i32;
        *counts.entry(k).or_default() += n;
        total += n;
    }
    let (lo, hi) = match (counts.keys().next(), counts.keys().next_back()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => (0, -1),
    };
    let edge = |k: i32| 10f64.powf(k as f64 / BUCKETS_PER_DECADE);
    let buckets = (lo..=hi)
        .map(|k| LatencyBucket {
            lower_ms: edge(k),
            upper_ms: edge(k + 1),
            share_pct: if total > 0 {
                counts.get(&k).copied().unwrap_or(0) as f64 * 100.0 / total as f64
            } else {
                0.0
            },
        })
        .collect();
    let s = h.summary();
    LatencySeries {
        env,
        count: total,
        buckets,
        // A histogram's summary has every percentile.
        p50_ms: s.p50_ms.unwrap_or_default(),
        p95_ms: s.p95_ms.unwrap_or_default(),
        p99_ms: s.p99_ms.unwrap_or_default(),
        max_ms: s.max_ms,
    }
}
