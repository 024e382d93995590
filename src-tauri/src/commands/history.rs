//! History screen: every run (filter by environment, state and date), one run opened
//! with its step table and intervals, delete.

use dbdyno_checks::timeline::{SampleGap, Source};
use dbdyno_checks::MysqlSample;
use dbdyno_history::{BlockingHistory, RunState, StoredRun};
use dbdyno_monitor::ServerSample;
use serde::{Deserialize, Serialize};

use crate::error::{blocking, AppResult};
use crate::run::snapshot::{
    data_disk_util, LivePoint, MysqlPoint, ServerPoint, StepRow, StepStatus,
};
use crate::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunStateName {
    Running,
    Complete,
    Cancelled,
    Failed,
    Interrupted,
}

impl From<RunState> for RunStateName {
    fn from(s: RunState) -> Self {
        match s {
            RunState::Running => RunStateName::Running,
            RunState::Complete => RunStateName::Complete,
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
        .map(|s| {
            let r = &s.result;
            StepRow {
                index: s.index,
                scenario: r.scenario.name().to_string(),
                threads: r.threads,
                status: if r.cancelled {
                    StepStatus::Cancelled
                } else {
                    StepStatus::Done
                },
                tps: r.known_tps(),
                qps: r.known_qps(),
                p95_ms: r.latency.p95_ms,
                p99_ms: r.latency.p99_ms,
                avg_ms: Some(r.latency.avg_ms),
                errors: Some(r.ignored_errors as f64),
                reconnects: Some(r.reconnects as f64),
                steady_tps: r.steady.as_ref().map(|w| w.tps),
                client_cpu_pct: Some(r.client_cpu.percent_of_machine),
            }
        })
        .collect();
    let points = run
        .steps
        .iter()
        .flat_map(|s| {
            s.result.intervals.iter().map(move |i| LivePoint {
                t_s: (i.end_unix_ms - run.started_at_ms) as f64 / 1000.0,
                step: s.index,
                threads: i.threads,
                tps: i.tps,
                qps: i.qps,
                latency_ms: i.latency_ms,
                errors_ps: i.errors_ps,
                reconnects_ps: i.reconnects_ps,
            })
        })
        .collect();
    let (server, mysql) = sample_series(run);
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
    }
}

/// The server's and MySQL's per-second samples of a monitored run, on the run's clock,
/// for the History screen's charts (the Run screen's series, read back).
fn sample_series(run: &StoredRun) -> (Vec<ServerPoint>, Vec<MysqlPoint>) {
    let t_of = |unix_ms: i64| (unix_ms - run.started_at_ms) as f64 / 1000.0;
    // The data disk as the run sampled it (empty: every device, as on the Run screen).
    let devices: Vec<String> = run
        .monitoring
        .as_ref()
        .and_then(|m| serde_json::from_value(m["devices"].clone()).ok())
        .unwrap_or_default();
    let gaps: Vec<SampleGap> = run
        .monitoring
        .as_ref()
        .and_then(|m| serde_json::from_value(m["gaps"].clone()).ok())
        .unwrap_or_default();
    // A stored gap becomes an empty point in its middle, as on the Run screen: the line
    // breaks there instead of bridging the time without samples.
    let gap_times = |source: Source| -> Vec<(i64, f64)> {
        gaps.iter()
            .filter(|g| g.source == source)
            .map(|g| {
                let mid = (g.from_ms + g.to_ms) / 2;
                (mid, t_of(mid))
            })
            .collect()
    };
    let mut server: Vec<(i64, ServerPoint)> = run
        .server_samples
        .iter()
        .filter_map(|x| {
            let sample: ServerSample = serde_json::from_value(x.sample.clone()).ok()?;
            let point = ServerPoint {
                t_s: t_of(x.unix_ms),
                cpu_pct: sample.cpu.as_ref().map(|c| c.util),
                disk_util_pct: data_disk_util(&sample, &devices),
            };
            Some((x.unix_ms, point))
        })
        .collect();
    server.extend(gap_times(Source::Os).into_iter().map(|(at, t_s)| {
        let point = ServerPoint {
            t_s,
            cpu_pct: None,
            disk_util_pct: None,
        };
        (at, point)
    }));
    let mut mysql: Vec<(i64, MysqlPoint)> = run
        .mysql_samples
        .iter()
        .filter_map(|x| {
            let sample: MysqlSample = serde_json::from_value(x.sample.clone()).ok()?;
            let point = MysqlPoint {
                t_s: t_of(x.unix_ms),
                qps: Some(sample.questions_per_s),
                tps: Some(sample.transactions_per_s),
            };
            Some((x.unix_ms, point))
        })
        .collect();
    mysql.extend(gap_times(Source::Mysql).into_iter().map(|(at, t_s)| {
        let point = MysqlPoint {
            t_s,
            qps: None,
            tps: None,
        };
        (at, point)
    }));
    server.sort_by_key(|(at, _)| *at);
    mysql.sort_by_key(|(at, _)| *at);
    (
        server.into_iter().map(|(_, p)| p).collect(),
        mysql.into_iter().map(|(_, p)| p).collect(),
    )
}

fn keep(r: &dbdyno_history::RunSummary, f: &RunFilter) -> bool {
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
