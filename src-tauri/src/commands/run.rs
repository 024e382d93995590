//! Run screen: start a ladder (engine on its own thread, throttled snapshots through a
//! channel), cancel it, ask whether one is running.

use dbdyno_engine::CancelToken;
use dbdyno_history::{HistoryWriter, NewRun};
use dbdyno_session::run_monitor::StartError;
use dbdyno_session::{Preflight, RunMonitor};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};

use crate::commands::plan::PlanForm;
use crate::error::{blocking, AppError, AppResult, ErrorCode};
use crate::resolve;
use crate::run::driver::{drive, RunJob};
use crate::run::snapshot::RunSnapshot;
use crate::state::{ActiveRun, AppState};

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct StartedRun {
    /// Id in the history; None when the history could not be written (the run goes on).
    pub run_id: Option<u32>,
}

fn busy() -> AppError {
    AppError::new(
        ErrorCode::Busy,
        "a run is in progress: cancel it or wait until it ends",
    )
}

#[tauri::command]
#[specta::specta]
pub async fn start_run(
    app: AppHandle,
    state: State<'_, AppState>,
    env: String,
    form: PlanForm,
    on_progress: Channel<RunSnapshot>,
) -> AppResult<StartedRun> {
    if state.is_running() {
        return Err(busy());
    }
    let data_dir = state.data_dir.clone();
    let known_hosts = state.known_hosts_file();
    // A data disk chosen on the Checks screen for this environment is sampled too.
    let checked_devices = state.last_checks.lock().ok().and_then(|c| {
        c.as_ref()
            .filter(|c| c.env == env)
            .and_then(|c| c.report.environment.data_disks.first().cloned())
            .filter(|d| d.overridden)
            .map(|d| d.devices)
    });
    let cancel = CancelToken::new();
    let job = {
        let (env, cancel) = (env.clone(), cancel.clone());
        blocking(move || {
            let profile = resolve::load_profile(&env)?;
            let plan = resolve::plan(&profile, &form)?;
            let access = resolve::host_access(&profile, &plan.connect, &known_hosts)?;
            let devices = checked_devices.unwrap_or_else(|| resolve::data_disk(&profile));
            // The prerequisite checks first, as the CLI's ladder runs them: a plan
            // whose checks fail (too few prepared statements or connections, a
            // missing schema...) is refused before anything is recorded.
            let preflight = Preflight::gather(&plan, &access, &devices);
            if let Some(why) = preflight.refusal() {
                return Err(AppError::new(
                    ErrorCode::Invalid,
                    format!("{why} The Checks screen shows each check and applies the fixes it can."),
                ));
            }
            // The same samplers as the CLI's ladder, started the same way on the facts
            // the checks gathered; an SSH login that fails stops the run before it
            // starts, as it does there.
            let monitor = RunMonitor::start_gathered(
                &plan,
                access,
                preflight.environment().clone(),
                &preflight.facts,
                None,
            )
            .map_err(|e| match e {
                StartError::Ssh(_) => AppError::new(
                    ErrorCode::Ssh,
                    format!("{e}. Test SSH on the Environments screen, or turn SSH off for this environment to run with MySQL-side metrics only"),
                ),
                StartError::Device(_) => AppError::new(ErrorCode::Invalid, e.to_string()),
                StartError::Monitor(m) => AppError::new(ErrorCode::Ssh, m.to_string()),
            })?;
            let started = (|| {
                let mut new = NewRun::new(&profile.name, "ladder (app)").with_plan(&plan)?;
                new.labels = profile.labels.clone();
                new.profile = serde_json::to_value(&profile).ok();
                new.environment = serde_json::to_value(preflight.environment()).ok();
                HistoryWriter::start(&data_dir, new)
            })();
            let (recorder, history_error) = match started {
                Ok(w) => (Some(w), None),
                Err(e) => (None, Some(e.to_string())),
            };
            Ok(RunJob {
                plan,
                env,
                recorder,
                history_error,
                monitor,
                cancel,
            })
        })
        .await?
    };
    let run_id = job.recorder.as_ref().map(|r| r.run_id() as u32);
    let mut slot = state
        .run
        .lock()
        .map_err(|_| AppError::internal("run state poisoned"))?;
    if slot.is_some() {
        return Err(busy());
    }
    let handle = app.clone();
    let driver = std::thread::Builder::new()
        .name("dbdyno-run".into())
        .spawn(move || {
            drive(job, |snapshot| {
                // A window that went away stops listening; the run still ends cleanly.
                let _ = on_progress.send(snapshot);
            });
            if let Ok(mut r) = handle.state::<AppState>().run.lock() {
                *r = None;
            }
        })
        .map_err(|e| AppError::internal(format!("cannot start the run thread: {e}")))?;
    *slot = Some(ActiveRun {
        env,
        cancel,
        driver: Some(driver),
    });
    Ok(StartedRun { run_id })
}

/// Asks the run to stop: in-flight transactions finish, finished steps are kept. The
/// final snapshot arrives on the run's channel.
#[tauri::command]
#[specta::specta]
pub fn cancel_run(state: State<'_, AppState>) -> AppResult<bool> {
    let r = state
        .run
        .lock()
        .map_err(|_| AppError::internal("run state poisoned"))?;
    Ok(match r.as_ref() {
        Some(a) => {
            a.cancel.cancel();
            true
        }
        None => false,
    })
}

/// The environment of the run in progress, if any.
#[tauri::command]
#[specta::specta]
pub fn running_env(state: State<'_, AppState>) -> Option<String> {
    state
        .run
        .lock()
        .ok()
        .and_then(|r| r.as_ref().map(|a| a.env.clone()))
}
