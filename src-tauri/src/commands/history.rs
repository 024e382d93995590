//! History screen: every run (filter by environment, state and date), one run opened
//! with its step table and intervals, delete.

use dbdyno_history::{BlockingHistory, RunState, StoredRun};
use dbdyno_session::live::{LivePoint, MysqlPoint, ServerPoint, StepRow};
use serde::{Deserialize, Serialize};

use crate::error::{blocking, AppResult};
use crate::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunStateName {
    Running,
    Complete,
    /// Ran to its end past failed steps (`--on-step-error=continue`).
    Partial,
    Cancelled,
    Failed,
    Interrupted,
}

impl From<RunState> for RunStateName {
    fn from(s: RunState) -> Self {
        match s {
            RunState::Running => RunStateName::Running,
            RunState::Complete => RunStateName::Complete,
            RunState::Partial => RunStateName::Partial,
            RunState::Cancelled => RunStateName::Cancelled,
            RunState::Failed => RunStateName::Failed,
            RunState::Interrupted => RunStateName::Interrupted,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct RunFilter {
    pub env: Option<String>,
    pub state: Option<RunStateName>,
    /// Runs started at or after this day (YYYY-MM-DD, UTC).
    pub from_day: Option<String>,
    /// Runs started on or before this day (YYYY-MM-DD, UTC).
    pub to_day: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RunRow {
    pub id: u32,
    pub env: String,
    pub state: RunStateName,
    /// The subcommand ("ladder", "ladder (app)", "import sysbench x.log").
    pub command: String,
    /// "2024-05-01 12:00:00" (UTC).
    pub started: String,
    pub duration_s: Option<f64>,
    pub steps: u32,
    pub scenarios: Vec<String>,
    pub max_tps: Option<f64>,
    pub labels: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RunDetail {
    pub row: RunRow,
    /// The recorded command line, secrets redacted (the CLI's whole line).
    pub command_line: String,
    pub failure: Option<String>,
    pub steps: Vec<StepRow>,
    /// Every interval of every step, on the run's clock (the Run screen's charts).
    pub points: Vec<LivePoint>,
    /// The server's OS samples and MySQL status samples stored with a monitored run,
    /// on the same clock (empty when the run was not monitored).
    pub server: Vec<ServerPoint>,
    pub mysql: Vec<MysqlPoint>,
    pub warnings: Vec<String>,
    /// The stored plan in the report appendix's words: where it ran, scenarios, threads,
    /// timing, every workload option away from sysbench's default, the phases.
    pub plan_settings: Vec<PlanSetting>,
}

/// One line of a run's stored plan ("rand_type": "zipfian").
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PlanSetting {
    pub name: String,
    pub value: String,
}

pub fn open(state: &AppState) -> AppResult<BlockingHistory> {
    Ok(BlockingHistory::open(&state.data_dir)?)
}

fn started_text(rfc3339: &str) -> String {
    rfc3339
        .replace('T', " ")
        .trim_end_matches('Z')
        .chars()
        .take(19)
        .collect()
}

fn row_of(r: &dbdyno_history::RunSummary) -> RunRow {
    RunRow {
        id: r.id as u32,
        env: r.env.clone(),
        state: r.state.into(),
        command: dbdyno_history::command_name(&r.command),
        started: started_text(&r.started_at),
        duration_s: r.ended_at_ms.map(|e| (e - r.started_at_ms) as f64 / 1000.0),
        steps: r.steps,
        scenarios: r.scenarios.clone(),
        max_tps: r.max_tps,
        labels: r.labels.clone(),
    }
}

pub(crate) fn detail(run: &StoredRun) -> RunDetail {
    let max_tps = run
        .results()
        .map(|s| s.tps())
        .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))));
    let mut scenarios: Vec<String> = Vec::new();
    for s in run.results() {
        let n = s.scenario.name().to_string();
        if !scenarios.contains(&n) {
            scenarios.push(n);
        }
    }
    let steps = run
        .steps
        .iter()
        .map(|s| StepRow::finished(s.index, &s.result))
        .collect();
    let points = run
        .steps
        .iter()
        .flat_map(|s| {
            s.result.intervals.iter().map(move |i| {
                LivePoint::of(
                    i,
                    s.index,
                    (i.end_unix_ms - run.started_at_ms) as f64 / 1000.0,
                )
            })
        })
        .collect();
    let (server, mysql) = dbdyno_session::live::stored_series(run);
    RunDetail {
        row: RunRow {
            id: run.id as u32,
            env: run.env.clone(),
            state: run.state.into(),
            command: dbdyno_history::command_name(&run.command),
            started: started_text(&run.started_at),
            duration_s: run
                .ended_at_ms
                .map(|e| (e - run.started_at_ms) as f64 / 1000.0),
            steps: run.steps.len() as u32,
            scenarios,
            max_tps,
            labels: run.labels.clone(),
        },
        command_line: run.command.clone(),
        failure: run.failure.clone(),
        steps,
        points,
        server,
        mysql,
        warnings: run.warnings.iter().map(|w| w.text.clone()).collect(),
        plan_settings: run
            .plan
            .as_ref()
            .map(dbdyno_report::model::appendix::settings)
            .unwrap_or_default()
            .into_iter()
            .map(|(name, value)| PlanSetting { name, value })
            .collect(),
    }
}

pub(crate) fn keep(r: &dbdyno_history::RunSummary, f: &RunFilter) -> bool {
    let day = &r.started_at.get(..10).unwrap_or("");
    f.state.is_none_or(|s| RunStateName::from(r.state) == s)
        && f.from_day
            .as_deref()
            .filter(|d| !d.is_empty())
            .is_none_or(|d| *day >= d)
        && f.to_day
            .as_deref()
            .filter(|d| !d.is_empty())
            .is_none_or(|d| *day <= d)
}

#[tauri::command]
#[specta::specta]
pub async fn list_runs(app: tauri::AppHandle, filter: RunFilter) -> AppResult<Vec<RunRow>> {
    use tauri::Manager;
    blocking(move || {
        let h = open(&app.state::<AppState>())?;
        let env = filter.env.as_deref().filter(|e| !e.is_empty());
        Ok(h.list_runs(env)?
            .iter()
            .filter(|r| keep(r, &filter))
            .map(row_of)
            .collect())
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn get_run(app: tauri::AppHandle, id: u32) -> AppResult<RunDetail> {
    use tauri::Manager;
    blocking(move || {
        let h = open(&app.state::<AppState>())?;
        Ok(detail(&h.load_run(id as i64)?))
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_run(app: tauri::AppHandle, id: u32) -> AppResult<()> {
    use tauri::Manager;
    blocking(move || {
        let h = open(&app.state::<AppState>())?;
        h.delete_run(id as i64)?;
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::workload::RandType;
    use dbdyno_history::{RunSource, RunState, StoredRun};

    use super::detail;

    /// A run opened in History lists its stored plan, the choices made on the Plan
    /// screen included.
    #[test]
    fn a_run_shows_its_stored_plan() {
        let mut plan = dbdyno_profile::Profile::named("x").to_plan().unwrap();
        plan.workload.rand.rand_type = RandType::Zipfian;
        let run = StoredRun {
            id: 1,
            env: "x".into(),
            source: RunSource::Dbdyno,
            command: "ladder (app)".into(),
            state: RunState::Complete,
            started_at: "2026-11-30T00:00:00Z".into(),
            started_at_ms: 0,
            ended_at_ms: None,
            tool_version: "0".into(),
            labels: Vec::new(),
            profile: None,
            plan: Some(plan.clone()),
            environment: None,
            monitoring: None,
            prepare: None,
            prewarm: None,
            failure: None,
            steps: Vec::new(),
            warnings: Vec::new(),
            server_samples: Vec::new(),
            mysql_samples: Vec::new(),
        };
        let shown = detail(&run).plan_settings;
        assert!(
            shown
                .iter()
                .any(|s| s.name == "rand_type" && s.value == "zipfian"),
            "{shown:?}"
        );
        assert!(detail(&StoredRun { plan: None, ..run })
            .plan_settings
            .is_empty());
    }
}
