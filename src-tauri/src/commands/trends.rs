//! History screen, "Trends over time": each environment × scenario × thread count with
//! enough runs, its TPS and p95 run after run, where each changed level, and the levels
//! between. The analysis is the report crate's (`dbdyno_report::model::trend`, what
//! `dbdyno trend` prints); this file reads the runs the History filter shows and turns
//! the result into what the chart draws.

use dbdyno_report::input::from_history::report_runs;
use dbdyno_report::model::trend::{
    segment_levels, trends, ChangePoint, ChangePointOptions, Trend, MIN_RUNS,
};
use serde::Serialize;

use super::history::{keep, open, RunFilter};
use crate::error::{blocking, AppResult};
use crate::state::AppState;

/// One cell's series, ready to draw: x is the run's place in the series (1 = oldest).
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TrendView {
    pub env: String,
    pub scenario: String,
    pub threads: u32,
    /// "idc oltp_write_only @ 4 threads: 10 runs, 2026-11-20 … 2026-12-01".
    pub summary: String,
    /// One sentence per change point, TPS first; "No change point." when none.
    pub changes: Vec<String>,
    pub runs: Vec<TrendPointView>,
    /// The run numbers (1-based, as x) where a new TPS level starts, and p95's.
    pub tps_change_at: Vec<u32>,
    pub p95_change_at: Vec<u32>,
    /// Each run's level: the mean of its segment between change points (a step line).
    pub tps_level: Vec<Option<f64>>,
    pub p95_level: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TrendPointView {
    /// The history id (what History opens).
    pub run_id: u32,
    /// "2026-12-01" (UTC), when known.
    pub day: Option<String>,
    pub tps: f64,
    pub p95_ms: Option<f64>,
}

#[tauri::command]
#[specta::specta]
pub async fn history_trends(app: tauri::AppHandle, filter: RunFilter) -> AppResult<Vec<TrendView>> {
    use tauri::Manager;
    blocking(move || {
        let h = open(&app.state::<AppState>())?;
        let env = filter.env.as_deref().filter(|e| !e.is_empty());
        let listed = h.list_runs(env)?;
        let runs = report_runs(&h, listed.iter().filter(|r| keep(r, &filter)))?;
        let found = trends(
            &runs.iter().collect::<Vec<_>>(),
            MIN_RUNS,
            &ChangePointOptions::default(),
        );
        Ok(found.iter().map(view).collect())
    })
    .await
}

fn view(t: &Trend) -> TrendView {
    let tps: Vec<f64> = t.runs.iter().map(|r| r.tps).collect();
    let p95: Vec<f64> = t
        .runs
        .iter()
        .map(|r| r.p95_ms.unwrap_or(f64::NAN))
        .collect();
    let run_numbers = |points: &[ChangePoint]| points.iter().map(|p| p.index as u32 + 1).collect();
    TrendView {
        env: t.env.clone(),
        scenario: t.scenario.name().to_string(),
        threads: t.threads,
        summary: t.summary.clone(),
        changes: t.changes.clone(),
        runs: t
            .runs
            .iter()
            .map(|r| TrendPointView {
                run_id: r.run_id.parse().unwrap_or(0),
                day: r.started_at.map(dbdyno_report::format::date),
                tps: r.tps,
                p95_ms: r.p95_ms,
            })
            .collect(),
        tps_change_at: run_numbers(&t.tps_changes),
        p95_change_at: run_numbers(&t.p95_changes),
        tps_level: segment_levels(&tps, &t.tps_changes),
        p95_level: segment_levels(&p95, &t.p95_changes),
    }
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::Scenario;
    use dbdyno_report::model::trend::TrendRun;

    use super::*;

    /// A drop after the sixth run: the chart's marker sits at run 7 and the level line
    /// steps there; the p95 line breaks where a run has no p95.
    #[test]
    fn a_drop_is_marked_at_its_run_and_the_level_steps_there() {
        let tps = [
            1000.0, 1010.0, 995.0, 1005.0, 990.0, 1000.0, 700.0, 705.0, 695.0, 700.0,
        ];
        let runs: Vec<&dbdyno_report::input::ReportRun> = Vec::new();
        assert!(trends(&runs, MIN_RUNS, &ChangePointOptions::default()).is_empty());
        let tps_changes =
            dbdyno_report::model::trend::change_points(&tps, &ChangePointOptions::default());
        let t = Trend {
            env: "nightly".into(),
            scenario: Scenario::OltpReadOnly,
            threads: 4,
            runs: tps
                .iter()
                .enumerate()
                .map(|(i, &tps)| TrendRun {
                    run_id: (i + 11).to_string(),
                    started_at: Some(1_764_547_200_000 + i as i64 * 86_400_000),
                    tps,
                    p95_ms: (i != 2).then_some(5.0),
                })
                .collect(),
            tps_changes,
            p95_changes: Vec::new(),
            summary: String::new(),
            changes: Vec::new(),
        };
        let v = view(&t);
        assert_eq!(v.tps_change_at, [7]);
        assert_eq!(v.scenario, "oltp_read_only");
        assert_eq!(
            (v.runs[0].run_id, v.runs[0].day.as_deref()),
            (11, Some("2025-12-01"))
        );
        assert_eq!(v.runs[2].p95_ms, None);
        let level = |i: usize| v.tps_level[i].unwrap();
        assert!(
            (level(0) - 1000.0).abs() < 0.01 && level(5) == level(0),
            "{:?}",
            v.tps_level
        );
        assert!(
            (level(6) - 700.0).abs() < 0.01 && level(9) == level(6),
            "{:?}",
            v.tps_level
        );
        assert!(v.p95_level.iter().all(|l| *l == Some(5.0)));
    }
}
