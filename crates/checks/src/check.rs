//! What a check reports: what it saw, why that matters and how to fix it (the SQL, the
//! my.cnf line or the command), and the fix the app can apply itself when there is one.
//!
//! Non-goals: no judging (see [`crate::checks`]), no running or applying (see
//! [`crate::suite`]).

use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fix {
    pub text: String,
    /// The SQL, my.cnf line or shell command to run, when there is one.
    pub sql_or_command: Option<String>,
}

/// A fix the app can apply itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// The plan's prepare mode that clears this check (the app offers it as a button:
    /// "Drop and prepare again", "Read the tables as they are").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare_fix: Option<dbdyno_engine::PrepareMode>,
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
            prepare_fix: None,
        }
    }

    pub fn with_fix(mut self, text: impl Into<String>, sql_or_command: Option<String>) -> Check {
        self.fix = Some(Fix {
            text: text.into(),
            sql_or_command,
        });
        self
    }

    pub fn with_prepare_fix(mut self, mode: dbdyno_engine::PrepareMode) -> Check {
        self.prepare_fix = Some(mode);
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
}
