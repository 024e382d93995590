//! What the history stores and gives back. Plain serializable records: the CLI prints
//! them as JSON, the reports read them.

use dbdyno_engine::phases::{PrepareReport, PrewarmReport};
use dbdyno_engine::{Plan, StepResult};
use dbdyno_profile::Profile;
use dbdyno_results::{Monitoring, MysqlSample, Sampled, ServerSample};
use serde::{Deserialize, Serialize};

use crate::HistoryError;

/// Life cycle of a run. `running` becomes one of the others; `interrupted` is set when
/// the history is opened and the process that wrote a `running` run is gone (a crash,
/// kill -9, a power cut). `partial`: the run went to its end past steps that failed
/// (`--on-step-error=continue`); its failure names them, one line each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    Running,
    Complete,
    Partial,
    Cancelled,
    Failed,
    Interrupted,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Complete => "complete",
            RunState::Partial => "partial",
            RunState::Cancelled => "cancelled",
            RunState::Failed => "failed",
            RunState::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> Result<RunState, HistoryError> {
        Ok(match s {
            "running" => RunState::Running,
            "complete" => RunState::Complete,
            "partial" => RunState::Partial,
            "cancelled" => RunState::Cancelled,
            "failed" => RunState::Failed,
            "interrupted" => RunState::Interrupted,
            other => return Err(HistoryError::UnknownState(other.to_string())),
        })
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a run's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunSource {
    /// Measured by DB Dyno and recorded as it ran.
    #[default]
    Dbdyno,
    /// Read from sysbench text output (`dbdyno import sysbench`).
    Import,
}

impl RunSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RunSource::Dbdyno => "dbdyno",
            RunSource::Import => "import",
        }
    }

    fn parse(s: &str) -> RunSource {
        if s == "import" {
            RunSource::Import
        } else {
            RunSource::Dbdyno
        }
    }
}

/// What a run starts with. Snapshots are JSON values of types that never serialize a
/// secret (the engine's `ConnectOptions` skips the password; profiles hold none).
#[derive(Debug, Clone, Default)]
pub struct NewRun {
    /// The environment the run belongs to (the profile's name or `--env`).
    pub env: String,
    pub source: RunSource,
    /// How the run was made: the CLI's command line with every secret value redacted
    /// ("dbdyno ladder --mysql-host=… --mysql-password=***"), "ladder (app)",
    /// "import sysbench FILE". Never a raw command line, which may hold a password.
    /// [`command_name`] gives the short form lists show.
    pub command: String,
    pub labels: Vec<String>,
    pub profile: Option<Profile>,
    pub plan: Option<Plan>,
    pub environment: Option<serde_json::Value>,
    /// Unix ms; None means now.
    pub started_at_ms: Option<i64>,
    /// The file an imported run was read from (only [`crate::History::insert_finished_run`]
    /// stores it), so that importing the same file again can be refused.
    pub import_file: Option<ImportedFile>,
}

/// Identity of an imported file: its content's SHA-256 (hex) and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedFile {
    pub sha256: String,
    pub name: String,
}

impl NewRun {
    pub fn new(env: impl Into<String>, command: impl Into<String>) -> NewRun {
        NewRun {
            env: env.into(),
            command: command.into(),
            ..NewRun::default()
        }
    }

    /// Stores `plan` as the run's plan snapshot.
    pub fn with_plan(mut self, plan: &Plan) -> NewRun {
        self.plan = Some(plan.clone());
        self
    }
}

pub(crate) fn to_value<T: Serialize>(
    v: &T,
    what: &'static str,
) -> Result<serde_json::Value, HistoryError> {
    serde_json::to_value(v).map_err(|cause| HistoryError::Serialize { what, cause })
}

/// The short name of a recorded command, for lists: the subcommand of a CLI command line
/// ("dbdyno ladder --threads=…" → "ladder"; sysbench's form "dbdyno oltp_read_write
/// --threads=8 run" → "oltp_read_write run"), anything else as it is ("ladder (app)",
/// "import sysbench x.log").
pub fn command_name(command: &str) -> String {
    let Some(rest) = command.strip_prefix("dbdyno ") else {
        return command.to_string();
    };
    let words = shell_words(rest);
    // sysbench's form takes options before the workload too ("dbdyno --threads=8
    // oltp_read_write run"); a shell-quoted option starts with "'-".
    let is_option = |w: &&String| w.starts_with('-') || w.starts_with("'-");
    let Some(first) = words.iter().find(|w| !is_option(w)) else {
        return command.to_string();
    };
    const PHASES: [&str; 4] = ["prepare", "prewarm", "run", "cleanup"];
    match words.last() {
        Some(last) if words.len() > 1 && PHASES.contains(&last.as_str()) => {
            format!("{first} {last}")
        }
        _ => first.to_string(),
    }
}

/// `line` split where a POSIX shell would split it (whitespace outside single quotes,
/// backslash escapes outside them), each word kept as written, quotes included.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word) = (Vec::new(), String::new());
    let (mut quoted, mut escaped) = (false, false);
    for c in line.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' && !quoted {
            escaped = true;
        } else if c == '\'' {
            quoted = !quoted;
        } else if c.is_whitespace() && !quoted {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// One line of `dbdyno runs list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: i64,
    pub env: String,
    pub source: RunSource,
    pub command: String,
    pub state: RunState,
    /// RFC 3339 UTC.
    pub started_at: String,
    pub started_at_ms: i64,
    pub ended_at_ms: Option<i64>,
    /// Number of finished steps stored.
    pub steps: u32,
    pub labels: Vec<String>,
    /// Distinct scenarios of the stored steps, in step order.
    pub scenarios: Vec<String>,
    /// Highest known step TPS (None without steps, or when no step's TPS is known).
    pub max_tps: Option<f64>,
}

/// One stored step: the engine's result, intervals and histogram included.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredStep {
    pub index: u32,
    pub result: StepResult,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredWarning {
    pub step_index: Option<u32>,
    pub at_ms: i64,
    pub text: String,
}

/// Everything stored about one run: what reports read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRun {
    pub id: i64,
    pub env: String,
    pub source: RunSource,
    pub command: String,
    pub state: RunState,
    pub started_at: String,
    pub started_at_ms: i64,
    pub ended_at_ms: Option<i64>,
    pub tool_version: String,
    pub labels: Vec<String>,
    /// The profile the run used (no secrets), when it used one.
    pub profile: Option<Profile>,
    /// The engine's validated plan; None for imports without one, or when this version
    /// cannot read the stored one (the run's warnings then say why).
    pub plan: Option<Plan>,
    pub environment: Option<serde_json::Value>,
    /// What monitoring recorded (the `monitoring` object of `--json`: environment
    /// snapshot, per-step server figures, gaps, missing metrics); None when unmonitored.
    #[serde(default)]
    pub monitoring: Option<Monitoring>,
    pub prepare: Option<PrepareReport>,
    pub prewarm: Option<PrewarmReport>,
    pub failure: Option<String>,
    pub steps: Vec<StoredStep>,
    pub warnings: Vec<StoredWarning>,
    #[serde(default)]
    pub server_samples: Vec<Sampled<ServerSample>>,
    #[serde(default)]
    pub mysql_samples: Vec<Sampled<MysqlSample>>,
}

impl StoredRun {
    /// The cores of the machine that ran the load, from the stored environment (the
    /// history's own layout of it: `environment.rs`).
    pub fn client_cores(&self) -> Option<u32> {
        let cores = self.environment.as_ref()?.get("client")?.get("cores")?;
        cores.as_u64().map(|c| c as u32)
    }

    /// The step results in step order.
    pub fn results(&self) -> impl Iterator<Item = &StepResult> {
        self.steps.iter().map(|s| &s.result)
    }
}

pub(crate) fn source_from_db(s: &str) -> RunSource {
    RunSource::parse(s)
}

#[cfg(test)]
mod tests {
    use super::command_name;

    #[test]
    fn command_names_are_the_subcommand_of_a_recorded_command_line() {
        assert_eq!(
            command_name("dbdyno ladder --mysql-host=127.0.0.1 --mysql-password=*** --threads=1,2"),
            "ladder"
        );
        assert_eq!(
            command_name("dbdyno oltp_read_write --threads=8 --time=30 run"),
            "oltp_read_write run"
        );
        assert_eq!(command_name("dbdyno ladder"), "ladder");
        assert_eq!(
            command_name("dbdyno --threads=8 '--mysql-db=a b' oltp_read_write --time=5 run"),
            "oltp_read_write run"
        );
        assert_eq!(
            command_name(r"dbdyno '--mysql-db=it'\''s a b' oltp_point_select run"),
            "oltp_point_select run"
        );
        assert_eq!(command_name("ladder (app)"), "ladder (app)");
        assert_eq!(
            command_name("import sysbench x.log"),
            "import sysbench x.log"
        );
    }
}
