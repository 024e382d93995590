//! Trends over the history: for each environment × scenario × thread count that ran
//! again and again (a nightly job), the series of TPS and p95 run after run, and where
//! each moved to another level and stayed ([`dbdyno_stats::change_points`]). The
//! `trend` command prints them; the `gate` command judges the newest run with them
//! ([`gate`]).
//!
//! A run is one value per cell: the cell of the performance matrix ([`cells::grid`]),
//! so repeats count as their mean, as everywhere in a report. Runs are in the order they
//! started. A cancelled or failed run's cells count as well, as far as they got.
//!
//! Non-goal: reading the history (the caller passes the runs).

use std::collections::BTreeMap;

use dbdyno_engine::Scenario;
pub use dbdyno_stats::{
    change_points, segment_levels, ChangePoint, ChangePointOptions, DeltaRange,
};
use dbdyno_stats::{last_segment, repeats_interval, Estimate};
use serde::{Deserialize, Serialize};

use super::cells;
use crate::format;
use crate::input::ReportRun;

/// One cell's series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    pub env: String,
    pub scenario: Scenario,
    pub threads: u32,
    /// The runs, oldest first.
    pub runs: Vec<TrendRun>,
    /// Where TPS changed level, and p95 (both by index into `runs`).
    pub tps_changes: Vec<ChangePoint>,
    pub p95_changes: Vec<ChangePoint>,
    /// "idc oltp_write_only @ 4 threads: 10 runs, 2026-11-20 … 2026-12-01".
    pub summary: String,
    /// One sentence per change point, TPS first; "No change point." when none.
    pub changes: Vec<String>,
}

/// One run's figures in a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendRun {
    pub run_id: String,
    /// Unix ms, when known.
    pub started_at: Option<i64>,
    pub tps: f64,
    pub p95_ms: Option<f64>,
}

/// The runs a cell needs for a trend (in a report, and `trend`'s default).
pub const MIN_RUNS: usize = 5;

/// Every cell with at least `min_runs` runs, by environment, scenario (engine order) and
/// thread count.
pub fn trends(runs: &[&ReportRun], min_runs: usize, options: &ChangePointOptions) -> Vec<Trend> {
    let mut ordered: Vec<&ReportRun> = runs.to_vec();
    ordered.sort_by(|a, b| {
        let at = |r: &ReportRun| r.started_at.unwrap_or(i64::MAX);
        at(a).cmp(&at(b)).then_with(|| a.id.cmp(&b.id))
    });
    let mut series: BTreeMap<(String, Scenario, u32), Vec<TrendRun>> = BTreeMap::new();
    for run in ordered {
        for grid in cells::grid(&[run]) {
            for (threads, cell) in grid.threads.iter().zip(&grid.cells[0]) {
                let Some(cell) = cell else { continue };
                series
                    .entry((run.env_name.clone(), grid.scenario, *threads))
                    .or_default()
                    .push(TrendRun {
                        run_id: run.id.clone(),
                        started_at: run.started_at,
                        tps: cell.tps,
                        p95_ms: cell.p95_ms,
                    });
            }
        }
    }
    series
        .into_iter()
        .filter(|(_, runs)| runs.len() >= min_runs)
        .map(|((env, scenario, threads), runs)| {
            let tps: Vec<f64> = runs.iter().map(|r| r.tps).collect();
            let p95: Vec<f64> = runs.iter().map(|r| r.p95_ms.unwrap_or(f64::NAN)).collect();
            let tps_changes = change_points(&tps, options);
            let p95_changes = change_points(&p95, options);
            let mut changes: Vec<String> = [("TPS", &tps_changes), ("p95", &p95_changes)]
                .into_iter()
                .flat_map(|(figure, points)| points.iter().map(move |p| (figure, p)))
                .map(|(figure, p)| change_sentence(figure, p, &runs[p.index]))
                .collect();
            if changes.is_empty() {
                changes.push("No change point.".to_string());
            }
            let days = |r: Option<&TrendRun>| r.and_then(|r| r.started_at).map(format::date);
            let span = match (days(runs.first()), days(runs.last())) {
                (Some(a), Some(b)) => format!(", {a} … {b}"),
                _ => String::new(),
            };
            Trend {
                summary: format!(
                    "{env} {scenario} @ {threads} threads: {} runs{span}",
                    runs.len()
                ),
                env,
                scenario,
                threads,
                tps_changes,
                p95_changes,
                changes,
                runs,
            }
        })
        .collect()
}

/// The newest run of a cell judged against the history: a regression when its TPS is
/// below the last stable level's interval by more than the threshold (or its p95 above).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateVerdict {
    pub env: String,
    pub scenario: Scenario,
    pub threads: u32,
    pub run_id: String,
    pub tps: Judged,
    pub p95: Option<Judged>,
}

impl GateVerdict {
    /// Each figure judged, with its name: TPS, then p95 when known.
    pub fn figures(&self) -> impl Iterator<Item = (&'static str, &Judged)> {
        std::iter::once(("TPS", &self.tps)).chain(self.p95.as_ref().map(|p| ("p95", p)))
    }

    pub fn regressed(&self) -> bool {
        self.figures().any(|(_, j)| j.regressed)
    }
}

/// One figure of the newest run against its level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    pub newest: f64,
    pub level: Estimate,
    /// How far the newest run is past the level's interval, in percent of the level
    /// (0 inside it); positive is worse (lower TPS, higher p95).
    pub beyond_pct: f64,
    pub regressed: bool,
}

impl Judged {
    /// "2243.0 against 2556.2 over the last 3 runs: 12.3% beyond its 95% interval
    /// (threshold 5%)". The level's run count is `level.values`: the runs since the
    /// last change point before the newest.
    pub fn reading(&self, threshold_pct: f64) -> String {
        let verdict = if self.regressed {
            format!(
                "{:.1}% beyond its 95% interval (threshold {threshold_pct}%)",
                self.beyond_pct
            )
        } else {
            "within its interval and the threshold".to_string()
        };
        format!(
            "{:.1} against {:.1} over the last {} runs: {verdict}",
            self.newest, self.level.mean, self.level.values
        )
    }
}

/// The verdict on each cell's newest run ([`trends`] left out the cells too short for
/// one; a cell needs a run before the newest to have a level at all).
pub fn gate(trends: &[Trend], threshold_pct: f64) -> Vec<GateVerdict> {
    trends
        .iter()
        .filter_map(|t| {
            let (newest, history) = t.runs.split_last().filter(|(_, h)| !h.is_empty())?;
            let tps: Vec<f64> = history.iter().map(|r| r.tps).collect();
            let p95: Option<Vec<f64>> = history.iter().map(|r| r.p95_ms).collect();
            Some(GateVerdict {
                env: t.env.clone(),
                scenario: t.scenario,
                threads: t.threads,
                run_id: newest.run_id.clone(),
                tps: judge(&tps, newest.tps, false, threshold_pct),
                p95: p95
                    .zip(newest.p95_ms)
                    .map(|(values, value)| judge(&values, value, true, threshold_pct)),
            })
        })
        .collect()
}

/// `value` against the level of `history` since its last change point (one cannot be
/// placed with a single run after it, so the newest run is judged, not searched).
fn judge(history: &[f64], value: f64, higher_is_worse: bool, threshold_pct: f64) -> Judged {
    let from = last_segment(&change_points(history, &ChangePointOptions::default()));
    let level = repeats_interval(&history[from..]);
    let (lower, upper) = level
        .interval
        .map_or((level.mean, level.mean), |i| (i.lower, i.upper));
    let past = if higher_is_worse {
        value - upper
    } else {
        lower - value
    };
    let beyond_pct = if level.mean > 0.0 {
        (past / level.mean * 100.0).max(0.0)
    } else {
        0.0
    };
    Judged {
        newest: value,
        regressed: beyond_pct > threshold_pct,
        beyond_pct,
        level,
    }
}

/// "TPS changed at run 7 (id 12, 2026-11-27): 1234.5 → 987.6, −20.0% (−23.0% … −17.0%),
/// p = 1.2e-6".
fn change_sentence(figure: &str, p: &ChangePoint, run: &TrendRun) -> String {
    let day = run
        .started_at
        .map(|ms| format!(", {}", format::date(ms)))
        .unwrap_or_default();
    let pct = p.delta.pct.map_or("?".to_string(), |v| format!("{v:+.1}%"));
    let range = match &p.delta.range {
        DeltaRange::Interval {
            lower_pct,
            upper_pct,
            ..
        } => format!(" ({lower_pct:+.1}% … {upper_pct:+.1}%)"),
        _ => String::new(),
    };
    format!(
        "{figure} changed at run {} (id {}{day}): {:.1} → {:.1}, {pct}{range}, p = {:.1e}.",
        p.index + 1,
        run.run_id,
        p.before.mean,
        p.after.mean,
        p.p_value
    )
}
