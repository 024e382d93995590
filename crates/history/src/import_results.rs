//! A run's results document filed in the history as a run: the `--json` document of
//! `dbdyno ladder` / `run`, or the spill file a run writes when the history cannot take
//! its results (a full disk, a read-only file system, a lock held too long). `dbdyno
//! import results FILE` is the CLI's door; the spill file's `record` object says under
//! which environment, with which labels and in which state the run belongs, and which
//! partial record of it the history holds, so that the import replaces that record.
//!
//! The document is read into typed values ([`ResultsDocument`]); the step results,
//! phase reports and plan are the engine's own types, so a document that does not
//! hold them is refused with the field that is wrong, and nothing is written.
//!
//! Non-goals: sysbench's text (`import_sysbench`), reports from documents (the report
//! crate reads them directly).

use dbdyno_results::ResultsDocument;
use serde::{Deserialize, Serialize};

use crate::model::{to_value, ImportedFile, NewRun, RunState};
use crate::write::{insert_run, insert_samples, insert_step};
use crate::{BlockingHistory, History, HistoryError};

/// The newest results layout this build reads (`--json`'s `schema_version`).
pub const NEWEST_SCHEMA: u32 = dbdyno_results::RESULTS_SCHEMA_VERSION;

/// What a spill file adds to the results document: where the run belongs in the
/// history and how far it got. Written by the run (`dbdyno_session`), read back here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpillRecord {
    /// The environment the run is filed under.
    pub env: String,
    #[serde(default)]
    pub labels: Vec<String>,
    /// The profile the run came from (no secrets), when from a file.
    #[serde(default)]
    pub profile: Option<dbdyno_profile::Profile>,
    /// The environment snapshot taken before the run started.
    #[serde(default)]
    pub environment: Option<serde_json::Value>,
    pub started_at_ms: i64,
    /// Set when the run ended; None in a spill file of a run that is still going (or
    /// was killed later): its import is then `interrupted`.
    #[serde(default)]
    pub ended_at_ms: Option<i64>,
    /// `running` until the run's end, then the state it ended in.
    pub state: RunState,
    /// The error that ended a failed run, or the failed steps of a partial one.
    #[serde(default)]
    pub failure: Option<String>,
    /// The run's record in the history that holds its first steps, if one was created:
    /// the import replaces it.
    #[serde(default)]
    pub history_run_id: Option<i64>,
    /// Why the run is not (fully) in the history.
    pub why: String,
}

/// A results file: the `--json` document, or a spill file (the same document with a
/// `record` saying where the run belongs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultsFile {
    #[serde(flatten)]
    pub document: ResultsDocument,
    /// Only in a spill file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<SpillRecord>,
}

/// Why a document was not imported. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ImportResultsError {
    #[error("{file} is not a DB Dyno results document (`--json` or a spill file): {cause}")]
    NotADocument {
        file: String,
        cause: serde_json::Error,
    },
    #[error("{file} has results layout {found}; this DB Dyno reads up to {newest} (a newer DB Dyno wrote it)", newest = NEWEST_SCHEMA)]
    TooNew { file: String, found: u32 },
    #[error("{file} does not say which environment the run belongs to (a `--json` file); give --env=NAME")]
    NoEnv { file: String },
    #[error("{file} is already in the history as run {run_id}; `dbdyno runs delete {run_id}` first, or give --force to import it again")]
    Duplicate { file: String, run_id: i64 },
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ResultsImport {
    /// The environment to file the run under; None: the spill file's.
    pub env: Option<String>,
    /// Import a file whose content is already in the history.
    pub force: bool,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedResults {
    pub run_id: i64,
    pub env: String,
    pub steps: usize,
    pub state: RunState,
    /// The partial record of the same run the import replaced: (its id, its steps).
    pub replaced: Option<(i64, u32)>,
}

impl ResultsFile {
    /// Reads a document's text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<ResultsFile, ImportResultsError> {
        let doc: ResultsFile =
            serde_json::from_str(text).map_err(|cause| ImportResultsError::NotADocument {
                file: file.to_string(),
                cause,
            })?;
        if doc.document.schema_version > NEWEST_SCHEMA {
            return Err(ImportResultsError::TooNew {
                file: file.to_string(),
                found: doc.document.schema_version,
            });
        }
        Ok(doc)
    }

    /// The state the run is filed in, and its failure text: the spill file's, where a
    /// run still going when it was last written is `interrupted`; else as the outcome
    /// says (a failure, a cancel, failed steps, or complete).
    pub fn state(&self) -> (RunState, Option<String>) {
        if let Some(r) = &self.record {
            return match r.state {
                RunState::Running | RunState::Interrupted => (
                    RunState::Interrupted,
                    Some(r.failure.clone().unwrap_or_else(|| {
                        "the run stopped before its end (a crash, a kill); the spill file holds the steps it finished".to_string()
                    })),
                ),
                s => (s, r.failure.clone()),
            };
        }
        let o = &self.document.outcome;
        if let Some(f) = &o.failure {
            return (RunState::Failed, Some(f.clone()));
        }
        if o.cancelled {
            return (RunState::Cancelled, None);
        }
        if !o.failed_steps.is_empty() {
            let lines: Vec<String> = o
                .failed_steps
                .iter()
                .map(|f| format!("{}: {}", f.label, f.error))
                .collect();
            return (RunState::Partial, Some(lines.join("\n")));
        }
        (RunState::Complete, None)
    }
}

/// Files `text` (the content of `file`) as a run; see [`ResultsImport`].
pub fn import_results(
    h: &BlockingHistory,
    text: &str,
    file: &str,
    opts: &ResultsImport,
) -> Result<ImportedResults, ImportResultsError> {
    let doc = ResultsFile::parse(text, file)?;
    let env = opts
        .env
        .clone()
        .or_else(|| doc.record.as_ref().map(|r| r.env.clone()))
        .ok_or_else(|| ImportResultsError::NoEnv {
            file: file.to_string(),
        })?;
    let sha256 = crate::import_sysbench::sha256_hex(text.as_bytes());
    if !opts.force {
        if let Some((run_id, _)) = h.find_imports(&sha256)?.into_iter().next() {
            return Err(ImportResultsError::Duplicate {
                file: file.to_string(),
                run_id,
            });
        }
    }
    let name = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
    // The partial record of this very run (same start, same command), if the history
    // still holds it.
    let partial = match doc.record.as_ref().and_then(|r| r.history_run_id) {
        Some(id) => match h.load_run(id) {
            Ok(run) if same_run(&run, &doc) => Some((id, run.steps.len() as u32)),
            Ok(_) | Err(HistoryError::NoSuchRun(_)) => None,
            Err(e) => return Err(e.into()),
        },
        None => None,
    };
    let run_id = h.insert_results_run(&doc, &env, ImportedFile { sha256, name })?;
    if let Some((id, _)) = partial {
        h.delete_run(id)?;
    }
    Ok(ImportedResults {
        run_id,
        env,
        steps: doc.document.outcome.steps.len(),
        state: doc.state().0,
        replaced: partial,
    })
}

fn same_run(run: &crate::StoredRun, doc: &ResultsFile) -> bool {
    let Some(r) = &doc.record else {
        return false;
    };
    run.started_at_ms == r.started_at_ms
        && doc
            .document
            .command_line
            .as_deref()
            .is_none_or(|c| c == run.command)
        && run.env == r.env
}

impl History {
    /// Stores a whole results document as one run, in one transaction: the run, its
    /// steps, phase reports, monitoring record and samples, or nothing.
    pub async fn insert_results_run(
        &self,
        file_doc: &ResultsFile,
        env: &str,
        file: ImportedFile,
    ) -> Result<i64, HistoryError> {
        let record = file_doc.record.as_ref();
        let doc = &file_doc.document;
        let command = doc
            .command_line_or_name()
            .unwrap_or_else(|| "dbdyno".to_string());
        let new = NewRun {
            labels: record.map(|r| r.labels.clone()).unwrap_or_default(),
            profile: record.and_then(|r| r.profile.clone()),
            environment: record.and_then(|r| r.environment.clone()),
            started_at_ms: record.map(|r| r.started_at_ms).or_else(|| {
                doc.outcome
                    .steps
                    .first()
                    .map(|s| s.started_unix_ms)
                    .filter(|ms| *ms > 0)
            }),
            ..NewRun::new(env, command)
        }
        .with_plan(&doc.plan);
        let (state, failure) = file_doc.state();
        let ended_at_ms = record.and_then(|r| r.ended_at_ms).or_else(|| {
            doc.outcome
                .steps
                .last()
                .map(|s| s.ended_unix_ms)
                .filter(|ms| *ms > 0)
        });
        let mut tx = self.pool.begin().await?;
        let id = insert_run(&mut tx, &new, state, None).await?;
        for (i, s) in doc.outcome.steps.iter().enumerate() {
            insert_step(&mut tx, id, i as u32, s).await?;
        }
        let o = &doc.outcome;
        let prepare = o
            .prepare
            .as_ref()
            .map(|p| to_value(p, "the prepare report"))
            .transpose()?;
        let prewarm = o
            .prewarm
            .as_ref()
            .map(|p| to_value(p, "the prewarm report"))
            .transpose()?;
        let monitoring = doc
            .monitoring
            .as_ref()
            .map(|m| to_value(&m.without_samples(), "the monitoring record"))
            .transpose()?;
        sqlx::query(
            "UPDATE runs SET ended_at_ms = ?, failure = ?, prepare_json = ?, prewarm_json = ?,
                             monitoring_json = ? WHERE id = ?",
        )
        .bind(ended_at_ms)
        .bind(failure)
        .bind(prepare.map(|v| v.to_string()))
        .bind(prewarm.map(|v| v.to_string()))
        .bind(monitoring.map(|v| v.to_string()))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if let Some(m) = &doc.monitoring {
            insert_samples(&mut tx, "server_samples", id, &m.server_samples).await?;
            insert_samples(&mut tx, "mysql_samples", id, &m.mysql_samples).await?;
        }
        sqlx::query("INSERT INTO import_files (run_id, sha256, file) VALUES (?, ?, ?)")
            .bind(id)
            .bind(&file.sha256)
            .bind(&file.name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(id)
    }
}
