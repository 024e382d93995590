//! The performance matrix: one [`Cell`] per environment × scenario × thread count, read
//! from each step's result and the server figures aligned to it.
//!
//! Whole-step figures are used, as sysbench prints them, so that a report matches the
//! tool people compare with; the steady-window TPS is kept beside them for the cold-start
//! analysis, and each figure's 95% interval from the step's per-second records
//! ([`noise::step_intervals`]) for the verdicts.

use std::collections::BTreeMap;

use dbdyno_engine::Scenario;

use super::{noise, Cell, Peak};
use crate::input::{ReportRun, ReportStep};

/// CPU below this (in percent) makes "QPS per CPU %" meaningless (division by noise).
const MIN_CPU_FOR_EFFICIENCY: f64 = 0.5;

/// One scenario's cells for every environment, before analysis.
#[derive(Debug, Clone)]
pub struct ScenarioGrid {
    pub scenario: Scenario,
    pub threads: Vec<u32>,
    /// `cells[env][i]` is the cell at `threads[i]`.
    pub cells: Vec<Vec<Option<Cell>>>,
}

/// Lays every run's steps out by scenario (engine order) and thread count (ascending).
/// A step that ran twice in one run counts once: the later one (a re-run replaces).
pub fn grid(runs: &[&ReportRun]) -> Vec<ScenarioGrid> {
    let mut by_scenario: BTreeMap<Scenario, Vec<BTreeMap<u32, Cell>>> = BTreeMap::new();
    for (env, run) in runs.iter().enumerate() {
        for step in &run.steps {
            let per_env = by_scenario
                .entry(step.result.scenario)
                .or_insert_with(|| vec![BTreeMap::new(); runs.len()]);
            per_env[env].insert(step.result.threads, cell(step));
        }
    }
    by_scenario
        .into_iter()
        .map(|(scenario, per_env)| {
            let mut threads: Vec<u32> = per_env.iter().flat_map(|m| m.keys().copied()).collect();
            threads.sort_unstable();
            threads.dedup();
            let cells = per_env
                .into_iter()
                .map(|mut m| threads.iter().map(|t| m.remove(t)).collect())
                .collect();
            ScenarioGrid {
                scenario,
                threads,
                cells,
            }
        })
        .collect()
}

/// A step's figures.
pub fn cell(step: &ReportStep) -> Cell {
    let r = &step.result;
    let lat = &r.latency;
    // Runs imported from sysbench text know only the printed percentile: fall back on
    // the headline figure when it is the one asked for, else the figure is unknown.
    let headline = |p: f64| {
        ((r.percentile - p).abs() < 1e-9)
            .then(|| r.known_latency_pct_ms())
            .flatten()
    };
    let p95_ms = lat.p95_ms.or_else(|| headline(95.0));
    let p99_ms = lat.p99_ms.or_else(|| headline(99.0));
    let server = step.server.as_ref();
    let cpu_pct = server.map(|s| s.cpu_pct_avg);
    let (tps, qps) = (r.tps(), r.qps());
    let figures = noise::Figures {
        tps,
        qps,
        p95_ms,
        p99_ms,
    };
    Cell {
        threads: r.threads,
        tps,
        qps,
        p95_ms,
        p99_ms,
        cpu_pct,
        disk_util_pct: server.map(|s| s.disk_util_pct_avg),
        iowait_pct: server.and_then(|s| s.iowait_pct_avg),
        samples: server.map(|s| s.samples),
        expected_samples: server.map(|s| s.expected_samples),
        errors: r.ignored_errors,
        reconnects: r.reconnects,
        client_cpu_pct: r.client_cpu.percent_of_machine,
        qps_per_cpu: cpu_pct
            .filter(|c| *c >= MIN_CPU_FOR_EFFICIENCY)
            .map(|c| qps / c),
        steady_tps: r.steady.as_ref().map(|s| s.tps),
        row_lock_waits: step.mysql.as_ref().and_then(|m| m.row_lock_waits),
        seconds: r.total_time_s,
        cancelled: r.cancelled,
        intervals: noise::step_intervals(&r.intervals, figures),
    }
}

/// The step with the highest TPS.
pub fn peak(cells: &[&Cell]) -> Option<Peak> {
    cells
        .iter()
        .max_by(|a, b| a.tps.total_cmp(&b.tps))
        .map(|c| Peak {
            threads: c.threads,
            tps: c.tps,
            qps: c.qps,
            p95_ms: c.p95_ms,
        })
}
