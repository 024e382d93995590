//! Run screen: start a ladder (the shared run of `dbdyno_session`, driven on a thread
//! of its own, throttled snapshots through a channel), cancel it, ask whether one is
//! running.

use dbdyno_engine::CancelToken;
use dbdyno_session::live::RunSnapshot;
use dbdyno_session::metrics::{MetricsError, MetricsRequest};
use dbdyno_session::run_monitor::StartError;
use dbdyno_session::{Checks, HistoryTarget, NotStarted, Run, RunRequest};
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};

use crate::commands::plan::PlanForm;
use crate::error::{blocking, AppError, AppResult, ErrorCode};
use crate::resolve;
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
    let run = {
        let env = env.clone();
        blocking(move || start(&env, &form, data_dir, &known_hosts, checked_devices)).await?
    };
    let run_id = run.run_id().map(|id| id as u32);
    let mut slot = state
        .run
        .lock()
        .map_err(|_| AppError::internal("run state poisoned"))?;
    if slot.is_some() {
        return Err(busy());
    }
    let cancel = CancelToken::new();
    let handle = app.clone();
    let driver = {
        let (env, cancel) = (env.clone(), cancel.clone());
        std::thread::Builder::new()
            .name("dbdyno-run".into())
            .spawn(move || {
                crate::run::drive(run, &env, &cancel, |snapshot| {
                    // A window that went away stops listening; the run still ends cleanly.
                    let _ = on_progress.send(snapshot);
                });
                if let Ok(mut r) = handle.state::<AppState>().run.lock() {
                    *r = None;
                }
            })
            .map_err(|e| AppError::internal(format!("cannot start the run thread: {e}")))?
    };
    *slot = Some(ActiveRun {
        env,
        cancel,
        driver: Some(driver),
    });
    Ok(StartedRun { run_id })
}

/// The blocking half of [`start_run`]: the profile's plan, checked, its samplers
/// sampling, its record open. `checked_devices`: the data disk chosen on the Checks
/// screen, which wins over the profile's.
fn start(
    env: &str,
    form: &PlanForm,
    data_dir: std::path::PathBuf,
    known_hosts: &std::path::Path,
    checked_devices: Option<Vec<String>>,
) -> AppResult<Run> {
    let profile = resolve::load_profile(env)?;
    let plan = crate::commands::plan::plan(&profile, form)?;
    let request = run_request(&profile, form, plan, data_dir, known_hosts, checked_devices)?;
    Run::start(request).map_err(not_started)
}

/// What [`start`] asks the session for: `plan` (the form laid over `profile`, its
/// password resolved) with the profile's host access, data disk, history record and
/// load clients, exactly as the CLI's ladder builds it.
fn run_request(
    profile: &dbdyno_profile::Profile,
    form: &PlanForm,
    plan: dbdyno_engine::Plan,
    data_dir: std::path::PathBuf,
    known_hosts: &std::path::Path,
    checked_devices: Option<Vec<String>>,
) -> AppResult<RunRequest> {
    let access = resolve::host_access(profile, &plan.connect, known_hosts)?;
    let devices = checked_devices.unwrap_or_else(|| profile.data_disk_devices());
    // The form's choice of clients is the profile's `plan.clients` for this run.
    let clients = resolve::clients_plan(
        &crate::commands::plan::with_form(profile, form),
        known_hosts,
    )?;
    // The prerequisite checks first, as the CLI's ladder runs them: a plan
    // whose checks fail (too few prepared statements or connections, a
    // missing schema...) is refused before anything is recorded. Then the
    // same samplers as the CLI's, on the facts the checks gathered.
    // The app serves metrics on loopback only: the command line's
    // --metrics-allow-remote is the explicit way to offer them to the network.
    let metrics = match form.metrics_addr.as_deref().map(str::trim) {
        Some(a) if !a.is_empty() => Some(
            MetricsRequest::for_run(a, false, profile, &plan).map_err(|e| {
                let why = match e {
                    MetricsError::NotLoopback(a) => format!(
                        "live metrics: {a} is not a loopback address; the app serves them on \
                     127.0.0.1 or [::1] only (the command line's --metrics-allow-remote \
                     offers them to the network)"
                    ),
                    e => e.to_string(),
                };
                AppError::new(ErrorCode::Invalid, why)
            })?,
        ),
        _ => None,
    };
    let history =
        HistoryTarget::of_profile(profile, true, &plan, "ladder (app)".into(), Some(data_dir));
    Ok(RunRequest {
        metrics,
        access,
        devices,
        checks: Checks::Enforce,
        monitor: true,
        history: Some(history),
        clients,
        ..RunRequest::new(plan)
    })
}

/// Why the run did not start, in the app's words: what to do is on another screen.
fn not_started(e: NotStarted) -> AppError {
    match e {
        NotStarted::Refused { problems } => AppError::new(
            ErrorCode::Invalid,
            format!(
                "{} The Checks screen shows each check and applies the fixes it can.",
                dbdyno_session::preflight::refusal(&problems).unwrap_or_default()
            ),
        ),
        NotStarted::Monitor { source, .. } => match *source {
            e @ StartError::Ssh(_) => AppError::new(
                ErrorCode::Ssh,
                format!("{e}. Test SSH on the Environments screen, or turn SSH off for this environment to run with MySQL-side metrics only"),
            ),
            e @ StartError::Device(_) => AppError::new(ErrorCode::Invalid, e.to_string()),
            StartError::Monitor(m) => AppError::new(ErrorCode::Ssh, m.to_string()),
        },
        e @ NotStarted::Metrics(_) => AppError::new(
            ErrorCode::Invalid,
            format!("{e}. Choose another port for the live metrics, or turn them off on the Plan screen"),
        ),
    }
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const WITH_CLIENTS: &str = r#"schema_version = 1
name = "g2-app-clients"

[mysql]
host = "127.0.0.1"
port = 33306
user = "sbtest"
db = "sbtest"

[[clients]]
url = "ssh://bench@127.0.0.2:2222"
auth = "key"
key_path = "/nonexistent/id_ed25519"
"#;

    fn request_of(profile: &dbdyno_profile::Profile, form: &PlanForm) -> RunRequest {
        try_request_of(profile, form).unwrap()
    }

    fn try_request_of(profile: &dbdyno_profile::Profile, form: &PlanForm) -> AppResult<RunRequest> {
        // The agent binary the launcher will copy: any file stands in for `dbdyno`.
        std::env::set_var(
            dbdyno_remote::AGENT_BINARY_VAR,
            std::env::current_exe().unwrap(),
        );
        let plan = crate::commands::plan::plan_without_secret(profile, form).unwrap();
        let dir = std::env::temp_dir();
        run_request(
            profile,
            form,
            plan,
            dir,
            Path::new("/nonexistent/known_hosts"),
            None,
        )
    }

    fn names(request: &RunRequest) -> Option<Vec<String>> {
        let clients = request.clients.as_ref()?;
        Some(clients.specs.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn a_profile_that_lists_clients_runs_on_them() {
        let profile = dbdyno_profile::load_str(WITH_CLIENTS, "test", "g2-app-clients")
            .unwrap()
            .profile;
        let form = PlanForm::from_profile(&profile).unwrap();
        assert_eq!(
            names(&request_of(&profile, &form)),
            Some(vec![
                "local".to_string(),
                "ssh://bench@127.0.0.2:2222".to_string()
            ])
        );
        // The Plan form's choice wins: this machine alone runs as without clients.
        let alone = PlanForm {
            clients: vec!["local".into()],
            ..form.clone()
        };
        assert_eq!(names(&request_of(&profile, &alone)), None);
        let remote_only = PlanForm {
            clients: vec!["ssh://bench@127.0.0.2:2222".into()],
            ..form
        };
        assert_eq!(
            names(&request_of(&profile, &remote_only)),
            Some(vec!["ssh://bench@127.0.0.2:2222".to_string()])
        );
    }

    /// The Plan screen's "Live metrics" reaches the run with the environment's name, on
    /// loopback only: the app has no way to ask for more.
    #[test]
    fn live_metrics_are_served_on_loopback_only() {
        let profile = dbdyno_profile::load_str(WITH_CLIENTS, "test", "metrics-app")
            .unwrap()
            .profile;
        let form = PlanForm {
            clients: vec!["local".into()],
            ..PlanForm::from_profile(&profile).unwrap()
        };
        assert!(request_of(&profile, &form).metrics.is_none());
        let on = |addr: &str| PlanForm {
            metrics_addr: Some(addr.into()),
            ..form.clone()
        };
        let m = request_of(&profile, &on(" 127.0.0.1:9187 "))
            .metrics
            .unwrap();
        assert_eq!(m.addr.0.to_string(), "127.0.0.1:9187");
        assert_eq!(m.env, profile.name);
        assert!(request_of(&profile, &on("")).metrics.is_none());
        let e = try_request_of(&profile, &on("0.0.0.0:9187")).err().unwrap();
        assert!(
            e.message.contains("127.0.0.1 or [::1] only"),
            "{}",
            e.message
        );
    }
}
