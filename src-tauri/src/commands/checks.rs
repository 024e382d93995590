//! Checks screen: the prerequisite suite for an environment and plan, with what each
//! check saw and why it matters, the data disk resolved (and overridable), and the
//! one-click fixes the checks crate offers.

use dbdyno_checks::{apply_action, run_suite, CheckAction, CheckStatus, SuiteOptions, SuiteReport};
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::commands::plan::PlanForm;
use crate::error::{blocking, AppError, AppResult};
use crate::resolve;
use crate::state::{AppState, CachedChecks};

/// A check's status as the app's screens show it (the checks crate's `CheckStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CheckVerdict {
    Skipped,
    Pass,
    Warn,
    Fail,
}

impl From<CheckStatus> for CheckVerdict {
    fn from(s: CheckStatus) -> Self {
        match s {
            CheckStatus::Skipped => CheckVerdict::Skipped,
            CheckStatus::Pass => CheckVerdict::Pass,
            CheckStatus::Warn => CheckVerdict::Warn,
            CheckStatus::Fail => CheckVerdict::Fail,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CheckRow {
    pub id: String,
    pub title: String,
    pub verdict: CheckVerdict,
    pub seen: String,
    pub why: String,
    pub fix_text: Option<String>,
    /// The SQL, my.cnf line or command of the fix.
    pub fix_command: Option<String>,
    /// The statement the app can run itself ("SET GLOBAL …"), when it can.
    pub action_sql: Option<String>,
    /// The plan's prepare mode that clears the check, offered as a button that changes
    /// the plan ("Drop and prepare again", "Read the tables as they are").
    pub prepare_fix: Option<super::plan::PrepareChoice>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct DataDiskRow {
    pub role: String,
    pub path: String,
    pub mount_point: String,
    pub fs_type: String,
    pub devices: Vec<String>,
    pub free: Option<String>,
    pub overridden: bool,
    /// How the devices were found, one step per line.
    pub chain: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ChecksView {
    pub checks: Vec<CheckRow>,
    pub worst: CheckVerdict,
    pub server: Option<String>,
    pub os_access: String,
    pub data_disks: Vec<DataDiskRow>,
    /// What could not be found out, and why.
    pub missing: Vec<String>,
    /// Why a run of this plan would be refused now (None: Start run may go): the run's
    /// own preflight decision on these checks, in its words.
    pub start_refusal: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct FixResult {
    pub applied_sql: String,
    /// What a restart undoes and how to make it permanent.
    pub note: Option<String>,
    /// The suite again, after the fix.
    pub checks: ChecksView,
}

/// Credentials for a fix that needs more rights than the benchmark account has.
/// Used once, never stored.
#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct AdminLogin {
    pub user: String,
    pub password: String,
}

fn view(r: &SuiteReport) -> ChecksView {
    let human = dbdyno_checks::checks::dataset::human_bytes;
    let e = &r.environment;
    ChecksView {
        checks: r
            .checks
            .iter()
            .map(|c| CheckRow {
                id: c.id.clone(),
                title: c.title.clone(),
                verdict: c.status.into(),
                seen: c.seen.clone(),
                why: c.why.clone(),
                fix_text: c.fix.as_ref().map(|f| f.text.clone()),
                fix_command: c.fix.as_ref().and_then(|f| f.sql_or_command.clone()),
                action_sql: c
                    .action
                    .as_ref()
                    .filter(|_| matches!(c.status, CheckStatus::Warn | CheckStatus::Fail))
                    .map(CheckAction::sql),
                prepare_fix: c.prepare_fix.map(Into::into),
            })
            .collect(),
        worst: r.worst().into(),
        server: e.server.as_ref().map(|s| {
            format!("{} {}", s.version, s.version_comment)
                .trim()
                .to_string()
        }),
        os_access: e.os_access.clone(),
        data_disks: e
            .data_disks
            .iter()
            .map(|d| DataDiskRow {
                role: d.role.clone(),
                path: d.path.clone(),
                mount_point: d.mount_point.clone(),
                fs_type: d.fs_type.clone(),
                devices: d.devices.clone(),
                free: d
                    .filesystem
                    .as_ref()
                    .map(|f| format!("{} free of {}", human(f.avail_bytes), human(f.total_bytes))),
                overridden: d.overridden,
                chain: d.chain.clone(),
            })
            .collect(),
        missing: e
            .missing
            .iter()
            .map(|m| format!("{}: {}", m.what, m.why))
            .collect(),
        start_refusal: dbdyno_session::preflight::refusal(&r.checks),
    }
}

fn suite(
    state: &AppState,
    env: &str,
    form: &PlanForm,
    devices: Vec<String>,
) -> AppResult<SuiteReport> {
    let p = resolve::load_profile(env)?;
    let plan = crate::commands::plan::plan(&p, form)?;
    let known_hosts = state.known_hosts_file();
    let host = resolve::host_access(&p, &plan.connect, &known_hosts)?;
    let devices = if devices.is_empty() {
        p.data_disk_devices()
    } else {
        devices
    };
    let clients = resolve::clients_plan(&crate::commands::plan::with_form(&p, form), &known_hosts)?;
    let mut report = run_suite(&SuiteOptions {
        plan: plan.clone(),
        host,
        devices,
    });
    // The load clients the plan runs from, started and checked as a run checks them;
    // their agents stop when the coordinator is dropped here.
    if let Some(clients) = clients {
        report.checks.extend(match clients.connect(&plan) {
            Ok(coordinator) => coordinator.check_rows(),
            Err(e) => e.checks,
        });
    }
    Ok(report)
}

/// Runs every check for this environment and plan. `devices` overrides the data disk
/// (empty: the profile's `data_disk`, else the resolver's answer).
#[tauri::command]
#[specta::specta]
pub async fn run_checks(
    app: tauri::AppHandle,
    env: String,
    form: PlanForm,
    devices: Vec<String>,
) -> AppResult<ChecksView> {
    use tauri::Manager;
    let handle = app.clone();
    blocking(move || {
        let state = handle.state::<AppState>();
        let report = suite(&state, &env, &form, devices)?;
        let v = view(&report);
        if let Ok(mut c) = state.last_checks.lock() {
            *c = Some(CachedChecks { env, report });
        }
        Ok(v)
    })
    .await
}

/// Applies the fix of check `check_id` from the last checks of `env` (never an action
/// sent by the page), as the benchmark account or `admin`, then checks again.
#[tauri::command]
#[specta::specta]
pub async fn apply_fix(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    env: String,
    check_id: String,
    form: PlanForm,
    admin: Option<AdminLogin>,
) -> AppResult<FixResult> {
    use tauri::Manager;
    let action = {
        let cached = state
            .last_checks
            .lock()
            .map_err(|_| AppError::internal("checks state poisoned"))?;
        let c = cached
            .as_ref()
            .filter(|c| c.env == env)
            .ok_or_else(|| AppError::invalid("run the checks first"))?;
        c.report
            .get(&check_id)
            .and_then(|c| c.action.clone())
            .ok_or_else(|| {
                AppError::invalid(format!("check '{check_id}' has no fix the app can apply"))
            })?
    };
    let handle = app.clone();
    blocking(move || {
        let state = handle.state::<AppState>();
        let p = resolve::load_profile(&env)?;
        let mut login = resolve::connect_options(&p)?;
        if let Some(a) = admin.filter(|a| !a.user.trim().is_empty()) {
            login.user = a.user.trim().to_string();
            login.password = Some(a.password).filter(|p| !p.is_empty());
        }
        let done = apply_action(&action, &login)?;
        let report = suite(&state, &env, &form, Vec::new())?;
        let checks = view(&report);
        if let Ok(mut c) = state.last_checks.lock() {
            *c = Some(CachedChecks { env, report });
        }
        Ok(FixResult {
            applied_sql: done.applied_sql,
            note: done.note,
            checks,
        })
    })
    .await
}
