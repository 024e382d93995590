//! The prerequisite suite: running every check before a plan, and applying the fixes
//! the app can apply itself.
//!
//! Some fixes are [`CheckAction`]s the app can apply when the account is privileged;
//! [`apply_action`] does it and says what will not survive a restart.
//!
//! Non-goals: no printing (the CLI and the GUI render [`SuiteReport`]), no retries, no
//! verdicts of its own ([`crate::checks`] gives them).

use dbdyno_engine::{ConnectOptions, Plan};
use dbdyno_monitor::mysql_status::conn::connect_server;
use dbdyno_monitor::HostAccess;
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

use crate::check::{Check, CheckAction, CheckStatus};
use crate::environment::EnvironmentSnapshot;
use crate::error::ChecksError;
use crate::{checks, probe, sql};

/// What to check: the plan (connection, dataset, steps) and how to reach the server's OS.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    pub plan: Plan,
    pub host: HostAccess,
    /// `--device`: overrides the resolved data disk.
    pub devices: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SuiteReport {
    pub checks: Vec<Check>,
    pub environment: EnvironmentSnapshot,
}

impl SuiteReport {
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.status == CheckStatus::Fail)
    }

    pub fn worst(&self) -> CheckStatus {
        self.checks
            .iter()
            .map(|c| c.status)
            .max()
            .unwrap_or(CheckStatus::Pass)
    }

    pub fn get(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Actions of checks that did not pass, in check order.
    pub fn actions(&self) -> impl Iterator<Item = &CheckAction> {
        self.checks
            .iter()
            .filter(|c| matches!(c.status, CheckStatus::Warn | CheckStatus::Fail))
            .filter_map(|c| c.action.as_ref())
    }
}

/// Gathers the facts once and runs every check against them.
pub fn run_suite(opts: &SuiteOptions) -> SuiteReport {
    let mut facts = probe::gather(&opts.plan.connect, &opts.host, &opts.devices);
    if let Ok(m) = &mut facts.mysql {
        probe::verify_prepared_tables(&opts.plan.connect, m, &opts.plan);
    }
    SuiteReport {
        checks: checks::all(&facts, &opts.plan),
        environment: EnvironmentSnapshot::from_facts(&facts),
    }
}

/// What an applied action did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ActionOutcome {
    pub applied_sql: String,
    /// What a restart undoes and how to make it permanent (`None` when nothing is lost).
    pub note: Option<String>,
}

/// Applies `action` as the account in `admin` (which may be the benchmark's own account
/// when it is privileged). A SET GLOBAL is read back: a server that capped the value
/// is an error, not a silent success.
pub fn apply_action(
    action: &CheckAction,
    admin: &ConnectOptions,
) -> Result<ActionOutcome, ChecksError> {
    let mut conn = connect_server(admin).map_err(dbdyno_engine::EngineError::from)?;
    let statement = action.sql();
    conn.query_drop(&statement).map_err(|e| match &e {
        mysql::Error::MySqlError(me) if [1227, 1044, 1045, 1142].contains(&me.code) => {
            ChecksError::ActionDenied {
                sql: statement.clone(),
                user: admin.user.clone(),
                message: me.message.clone(),
            }
        }
        _ => ChecksError::query(format!("`{statement}`"), &e),
    })?;
    if let CheckAction::SetGlobal { variable, value } = action {
        let got = sql::variables(&mut conn, &[variable.as_str()])
            .map_err(|e| ChecksError::query(format!("reading back {variable}"), &e))?
            .remove(variable.as_str())
            .unwrap_or_default();
        if got.parse::<u64>().ok() != Some(*value) {
            return Err(ChecksError::ActionIneffective {
                sql: statement,
                variable: variable.clone(),
                got,
            });
        }
    }
    Ok(ActionOutcome {
        note: action.persistence_note(),
        applied_sql: statement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_verdicts() {
        let env = EnvironmentSnapshot::from_facts(&crate::checks::testing::facts());
        let mut r = SuiteReport {
            checks: vec![
                Check::new("a", "A", CheckStatus::Pass, "", ""),
                Check::new("b", "B", CheckStatus::Warn, "", "")
                    .with_action(CheckAction::CreateSchema { schema: "x".into() }),
                Check::new("c", "C", CheckStatus::Pass, "", "")
                    .with_action(CheckAction::CreateSchema { schema: "y".into() }),
            ],
            environment: env,
        };
        assert!(!r.failed());
        assert_eq!(r.worst(), CheckStatus::Warn);
        assert_eq!(
            r.actions().count(),
            1,
            "a passing check's action is not offered"
        );
        r.checks
            .push(Check::new("d", "D", CheckStatus::Fail, "", ""));
        assert!(r.failed());
        assert_eq!(r.get("d").unwrap().title, "D");
    }
}
