//! The performance matrix: one [`Cell`] per environment × scenario × thread count, read
//! from each step's result and the server figures aligned to it.
//!
//! Whole-step figures are used, as sysbench prints them, so that a report matches the
//! tool people compare with; the steady-window TPS is kept beside them for the cold-start
//! analysis, and each figure's 95% interval, stored with the step ([`noise::of_step`]),
//! for the verdicts.

use std::collections::BTreeMap;

use dbdyno_engine::Scenario;

use super::{noise, repeats, Cell, Peak};
use crate::input::{ReportRun, ReportStep};

/// CPU below this (in percent) makes "QPS per CPU %" meaningless (division by noise).
pub(super) const MIN_CPU_FOR_EFFICIENCY: f64 = 0.5;

/// One scenario's cells for every environment, before analysis.
#[derive(Debug, Clone)]
pub struct ScenarioGrid {
    pub scenario: Scenario,
    pub threads: Vec<u32>,
    /// `cells[env][i]` is the cell at `threads[i]`.
    pub cells: Vec<Vec<Option<Cell>>>,
}

/// Lays every run's steps out by scenario (engine order) and thread count (ascending).
/// The repeats of a step (`--repeat`) make one cell ([`repeats::combine`]); a step that
/// is not repeated but ran twice in one run counts once: the later one (a re-run
/// replaces).
pub fn grid(runs: &[&ReportRun]) -> Vec<ScenarioGrid> {
    let mut by_scenario: BTreeMap<Scenario, Vec<BTreeMap<u32, Cell>>> = BTreeMap::new();
    for (env, run) in runs.iter().enumerate() {
        for ((scenario, threads), steps) in repeats_of_each_step(run) {
            let per_env = by_scenario
                .entry(scenario)
                .or_insert_with(|| vec![BTreeMap::new(); runs.len()]);
            if let Some(c) = repeats::combine(steps.into_iter().map(cell).collect()) {
                per_env[env].insert(threads, c);
            }
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

/// A run's steps by (scenario, threads), each with its repeats in the order they ran.
fn repeats_of_each_step(run: &ReportRun) -> BTreeMap<(Scenario, u32), Vec<&ReportStep>> {
    let mut out: BTreeMap<(Scenario, u32), Vec<&ReportStep>> = BTreeMap::new();
    // The capacity search's extra steps (`--sla-search`) serve the capacity section
    // only: the matrix compares the planned ladder, the same thread counts on every run.
    for step in run.steps.iter().filter(|s| !s.result.sla_search) {
        let r = &step.result;
        let repeats = out.entry((r.scenario, r.threads)).or_default();
        // A step that is not a repeat (or follows one that was not) replaces what came
        // before: a re-run.
        if r.repeat.is_single() || repeats.iter().any(|s| s.result.repeat.is_single()) {
            repeats.clear();
        }
        repeats.push(step);
    }
    out
}

/// A step's figures.
pub fn cell(step: &ReportStep) -> Cell {
    let r = &step.result;
    // Runs imported from sysbench text know only the printed percentile: the headline
    // figure stands in when it is the one asked for, else the figure is unknown.
    let noise::Figures {
        tps,
        qps,
        p95_ms,
        p99_ms,
    } = noise::Figures::of_step(r);
    let server = step.server.as_ref();
    let cpu_pct = server.map(|s| s.cpu_pct_avg);
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
        intervals: noise::of_step(r),
        repeats: 1,
        open_loop: r.open_loop.clone(),
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
