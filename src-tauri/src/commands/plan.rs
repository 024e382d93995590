//! Plan screen: the ladder form with the profile's defaults, and a preview of what it
//! will do (phases, total time, dataset estimate against buffer pool and free disk),
//! all computed by the engine and checks crates.

use dbdyno_checks::checks::dataset::{estimate_bytes, human_bytes, regime, SPACE_SAFETY_FACTOR};
use dbdyno_engine::runner::phase_label;
use dbdyno_engine::{Phase, Scenario};
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::error::{blocking, AppResult};
use crate::resolve;
use crate::state::AppState;

/// What the Plan screen edits. Everything else comes from the environment's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct PlanForm {
    pub scenarios: Vec<String>,
    /// The thread ladder.
    pub threads: Vec<u32>,
    /// Seconds measured per step.
    pub time_s: u32,
    pub warmup_s: u32,
    /// Pause between steps.
    pub cooldown_s: u32,
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    pub prepare: bool,
    pub prewarm: bool,
    pub cleanup: bool,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PlanSetup {
    pub form: PlanForm,
    /// Every scenario the engine runs, in its order.
    pub scenarios_available: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PhaseRow {
    pub label: String,
    /// Planned seconds; None when the server decides (prepare, prewarm, cleanup).
    pub seconds: Option<u32>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct DatasetEstimate {
    pub bytes: f64,
    pub human: String,
    /// From the last checks of this environment, when they ran.
    pub buffer_pool_bytes: Option<f64>,
    pub buffer_pool_human: Option<String>,
    /// Dataset / buffer pool, and what that ratio makes the test measure.
    pub ratio: Option<f64>,
    pub regime: Option<String>,
    pub free_disk_bytes: Option<f64>,
    pub free_disk_human: Option<String>,
    /// False when the data (with room for growth) does not fit the free space.
    pub fits_disk: Option<bool>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PlanPreview {
    pub phases: Vec<PhaseRow>,
    pub steps: u32,
    /// Seconds of the measured steps, warm-ups and cool-downs.
    pub total_seconds: u32,
    /// True when prepare or prewarm add time the plan cannot know in advance.
    pub open_ended: bool,
    pub peak_connections: u32,
    pub peak_prepared_statements: f64,
    pub dataset: DatasetEstimate,
}

impl PlanForm {
    /// The form as the profile (and so the engine's defaults) fills it.
    pub fn from_profile(p: &dbdyno_profile::Profile) -> AppResult<PlanForm> {
        let spec = p.ladder_spec().map_err(|l| crate::error::problems(&l))?;
        let w = p
            .workload_options()
            .map_err(|l| crate::error::problems(&l))?;
        Ok(PlanForm {
            scenarios: spec
                .scenarios
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            threads: spec.threads.clone(),
            time_s: spec.settings.time_s as u32,
            warmup_s: spec.settings.warmup_s as u32,
            cooldown_s: spec.cooldown_s as u32,
            tables: w.tables,
            table_size: w.table_size.min(u32::MAX as u64) as u32,
            prepare: spec.prepare,
            prewarm: spec.prewarm,
            cleanup: spec.cleanup,
        })
    }
}

#[tauri::command]
#[specta::specta]
pub async fn plan_defaults(env: String) -> AppResult<PlanSetup> {
    blocking(move || {
        let p = resolve::load_profile(&env)?;
        Ok(PlanSetup {
            form: PlanForm::from_profile(&p)?,
            scenarios_available: Scenario::ALL.iter().map(|s| s.name().to_string()).collect(),
        })
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn plan_preview(
    state: State<'_, AppState>,
    env: String,
    form: PlanForm,
) -> AppResult<PlanPreview> {
    let cached = state.last_checks.lock().ok().and_then(|c| {
        c.as_ref()
            .filter(|c| c.env == env)
            .map(|c| c.report.environment.clone())
    });
    blocking(move || {
        let p = resolve::load_profile(&env)?;
        let plan = resolve::plan_without_secret(&p, &form)?;
        let phases = plan
            .phases
            .iter()
            .map(|ph| PhaseRow {
                label: phase_label(ph),
                seconds: match ph {
                    Phase::Step(s) => Some((s.settings.time_s + s.settings.warmup_s) as u32),
                    Phase::Cooldown { seconds } => Some(*seconds as u32),
                    _ => None,
                },
            })
            .collect();
        let bytes = estimate_bytes(&plan);
        let bp = cached
            .as_ref()
            .and_then(|e| e.variables.get("innodb_buffer_pool_size"))
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|b| *b > 0);
        let free = cached
            .as_ref()
            .and_then(|e| e.data_disks.first())
            .and_then(|d| d.filesystem.as_ref())
            .map(|f| f.avail_bytes);
        let ratio = bp.map(|b| bytes as f64 / b as f64);
        let needs_prepare = plan
            .phases
            .iter()
            .any(|p| matches!(p, Phase::Prepare { .. }));
        Ok(PlanPreview {
            phases,
            steps: plan.steps().count() as u32,
            total_seconds: plan.estimated_seconds() as u32,
            open_ended: plan
                .phases
                .iter()
                .any(|p| matches!(p, Phase::Prepare { .. } | Phase::Prewarm(_))),
            peak_connections: plan.peak_connections(),
            peak_prepared_statements: plan.peak_prepared_statements() as f64,
            dataset: DatasetEstimate {
                bytes: bytes as f64,
                human: human_bytes(bytes),
                buffer_pool_bytes: bp.map(|b| b as f64),
                buffer_pool_human: bp.map(human_bytes),
                ratio,
                regime: ratio.map(|r| regime(r).to_string()),
                free_disk_bytes: free.map(|f| f as f64),
                free_disk_human: free.map(human_bytes),
                fits_disk: free
                    .filter(|_| needs_prepare)
                    .map(|f| (bytes as f64) * SPACE_SAFETY_FACTOR <= f as f64),
            },
        })
    })
    .await
}
