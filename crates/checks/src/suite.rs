//! The prerequisite suite: what a check reports, running every check before a plan,
//! and applying the fixes the app can apply itself.
//!
//! A check says what it saw, why that matters and how to fix it (the SQL, the my.cnf
//! line or the command). Some fixes are [`CheckAction`]s the app can apply when the
//! account is privileged; [`apply_action`] does it and says what will not survive a
//! restart.
//!
//! Non-goals: no printing (the CLI and the GUI render [`SuiteReport`]), no retries.

use dbdyno_engine::{ConnectOptions, Plan};
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

use crate::environment::EnvironmentSnapshot;
use crate::error::ChecksError;
use crate::host::HostAccess;
use crate::{checks, probe, sql};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// Not applicable, or impossible to judge without something that is missing.
    Skipped,
    Pass,
    Warn,
    Fail,
}

impl std::fmt::Display for CheckStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CheckStatus::Skipped => "SKIP",
            CheckStatus::Pass => "PASS",
            CheckStatus::Warn => "WARN",
            CheckStatus::Fail => "FAIL",
        })
    }
}

/// How to fix a problem by hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub text: String,
    /// The SQL, my.cnf line or shell command to run, when there is one.
    pub sql_or_command: Option<String>,
}

/// A fix the app can apply itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum CheckAction {
    /// `SET GLOBAL variable = value` (needs SUPER or SYSTEM_VARIABLES_ADMIN; lost at restart).
    SetGlobal { variable: String, value: u64 },
    /// `CREATE DATABASE` for the target schema.
    CreateSchema { schema: String },
}

impl CheckAction {
    pub fn sql(&self) -> String {
        match self {
            CheckAction::SetGlobal { variable, value } => {
                format!("SET GLOBAL {variable} = {value}")
            }
            CheckAction::CreateSchema { schema } => {
                format!("CREATE DATABASE `{}`", schema.replace('`', "``"))
            }
        }
    }

    /// What a restart undoes, and the my.cnf line that makes the change permanent.
    pub fn persistence_note(&self) -> Option<String> {
        match self {
            CheckAction::SetGlobal { variable, value } => Some(format!(
                "SET GLOBAL does not survive a restart: add `{variable} = {value}` under [mysqld] in my.cnf \
                 (MySQL 8 also: SET PERSIST {variable} = {value})"
            )),
            CheckAction::CreateSchema { .. } => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable identifier ("mysql.max_prepared_stmt_count"): scripts and the GUI key on it.
    pub id: String,
    pub title: String,
    pub status: CheckStatus,
    /// What the check saw, with the numbers.
    pub seen: String,
    /// Why it matters for the benchmark.
    pub why: String,
    pub fix: Option<Fix>,
    pub action: Option<CheckAction>,
}

impl Check {
    pub fn new(
        id: &str,
        title: &str,
        status: CheckStatus,
        seen: impl Into<String>,
        why: impl Into<String>,
    ) -> Check {
        Check {
            id: id.to_string(),
            title: title.to_string(),
            status,
            seen: seen.into(),
            why: why.into(),
            fix: None,
            action: None,
        }
    }

    pub fn with_fix(mut self, text: impl Into<String>, sql_or_command: Option<String>) -> Check {
        self.fix = Some(Fix {
            text: text.into(),
            sql_or_command,
        });
        self
    }

    pub fn with_action(mut self, action: CheckAction) -> Check {
        self.action = Some(action);
        self
    }

    /// A check that could not run because something before it failed.
    pub fn skipped(
        id: &str,
        title: &str,
        because: impl Into<String>,
        why: impl Into<String>,
    ) -> Check {
        Check::new(id, title, CheckStatus::Skipped, because, why)
    }
}

/// What to check: the plan (connection, dataset, steps) and how to reach the server's OS.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    pub plan: Plan,
    pub host: HostAccess,
    /// `--device`: overrides the resolved data disk.
    pub devices: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    let facts = probe::gather(&opts.plan.connect, &opts.host, &opts.devices);
    SuiteReport {
        checks: checks::all(&facts, &opts.plan),
        environment: EnvironmentSnapshot::from_facts(&facts),
    }
}

/// What an applied action did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    let mut conn = sql::connect_server(admin)?;
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
    fn actions_spell_their_sql_and_what_a_restart_undoes() {
        let a = CheckAction::SetGlobal {
            variable: "max_prepared_stmt_count".into(),
            value: 2048,
        };
        assert_eq!(a.sql(), "SET GLOBAL max_prepared_stmt_count = 2048");
        let note = a.persistence_note().unwrap();
        assert!(
            note.contains("does not survive a restart")
                && note.contains("max_prepared_stmt_count = 2048")
        );
        let s = CheckAction::CreateSchema {
            schema: "we`ird".into(),
        };
        assert_eq!(s.sql(), "CREATE DATABASE `we``ird`");
        assert_eq!(s.persistence_note(), None);
    }

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
