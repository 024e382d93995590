//! Compare screen: runs of the history against a baseline and a regression threshold,
//! as `dbdyno_report::build` computes them (dyno curves, the Δ% matrix with its
//! intervals and verdicts that know the noise, the analysis). The same request, exported ([`super::export`]), is the same report as
//! `dbdyno report --runs=… --baseline=… --threshold=…`.

use dbdyno_report::input::from_history::report_run;
use dbdyno_report::input::name_apart;
use dbdyno_report::model::DEFAULT_THRESHOLD_PCT;
use dbdyno_report::{build, Report, ReportOptions};
use serde::Deserialize;
use tauri::{AppHandle, Manager};

use super::compare_view::{view, CompareView};
use super::history;
use crate::error::{blocking, AppError, AppResult};
use crate::state::AppState;

/// Which runs to report on, against what.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct CompareRequest {
    /// History ids, in the order picked: one for a run's own report, two or more to compare.
    pub run_ids: Vec<u32>,
    /// The run the others are compared against (default: the first picked).
    pub baseline: Option<u32>,
    /// A cell regresses when the whole 95% interval of Δ TPS lies below −this many
    /// percent, or that of Δ p95 above +this many (default: the report's, 5).
    pub threshold_pct: Option<f64>,
}

/// Reads the runs from the history and builds the report model.
pub fn report_for(state: &AppState, req: &CompareRequest) -> AppResult<Report> {
    if req.run_ids.is_empty() {
        return Err(AppError::invalid("runs: pick at least one run"));
    }
    if let Some(b) = req.baseline.filter(|b| !req.run_ids.contains(b)) {
        return Err(AppError::invalid(format!(
            "baseline: run #{b} is not one of the runs picked"
        )));
    }
    let h = history::open(state)?;
    let mut runs = req
        .run_ids
        .iter()
        .map(|&id| Ok(report_run(&h.load_run(id as i64)?)))
        .collect::<AppResult<Vec<_>>>()?;
    // Two runs of one environment (before/after a change) must not share a legend entry.
    name_apart(&mut runs);
    let opts = ReportOptions {
        baseline: req.baseline.map(|b| b.to_string()),
        threshold_pct: req.threshold_pct.unwrap_or(DEFAULT_THRESHOLD_PCT),
        ..ReportOptions::default()
    };
    Ok(build(&runs, &opts)?)
}

#[tauri::command]
#[specta::specta]
pub async fn compare_runs(app: AppHandle, request: CompareRequest) -> AppResult<CompareView> {
    blocking(move || Ok(view(&report_for(&app.state::<AppState>(), &request)?))).await
}
