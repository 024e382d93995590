//! History screen's "Import sysbench logs…": sysbench text output chosen in a file dialog
//! (opened here, so the page never names a file) filed as runs by the history crate's
//! import, as `dbdyno import sysbench` files them. File by file: the good files are
//! imported, a file imported before is skipped, and each refused file says why.
//!
//! Non-goals: a start time (the CLI's `--started-at`): runs are dated by their files.

use std::path::{Path, PathBuf};

use dbdyno_engine::Scenario;
use dbdyno_history::import_sysbench::{
    import_sysbench, Duplicates, FileError, ImportError, ImportReport, SysbenchImport,
};
use dbdyno_history::BlockingHistory;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;

use super::history::RunStateName;
use crate::error::{blocking, AppError, AppResult, ErrorCode};
use crate::state::AppState;

/// Where runs go when the page names no environment.
pub const DEFAULT_ENV: &str = "imported";

#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct SysbenchImportRequest {
    /// The environment the runs are filed under; empty: "imported".
    pub env: Option<String>,
    /// The scenario of every step; empty: from each file's name, else its statement mix.
    pub scenario: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ImportedLog {
    pub file: String,
    pub run_id: u32,
    pub state: RunStateName,
    /// "oltp_read_only@4", one per step.
    pub steps: Vec<String>,
}

/// A file left out, and why: it was refused, or it is a duplicate.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LogProblem {
    pub file: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SysbenchImportResult {
    pub env: String,
    pub imported: Vec<ImportedLog>,
    /// Content imported before (or chosen twice): skipped.
    pub duplicates: Vec<LogProblem>,
    pub refused: Vec<LogProblem>,
    /// Guesses made while filing the imported runs.
    pub notes: Vec<String>,
}

/// A text field's value, when the page filled it.
fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|s| s.to_str())
        .map_or_else(|| path.display().to_string(), str::to_string)
}

/// The import's options from the page's request, checked before any dialog opens.
fn options(r: &SysbenchImportRequest) -> AppResult<SysbenchImport> {
    let scenario = given(&r.scenario)
        .map(|s| s.parse::<Scenario>())
        .transpose()
        .map_err(|e| AppError::invalid(format!("scenario: {e}")))?;
    let o = SysbenchImport {
        scenario,
        duplicates: Duplicates::Skip,
        all_or_nothing: false,
        ..SysbenchImport::new(given(&r.env).unwrap_or(DEFAULT_ENV))
    };
    o.check(1).map_err(said)?;
    Ok(o)
}

fn said(e: ImportError) -> AppError {
    match e {
        ImportError::BadEnv { reason, .. } => AppError::invalid(format!("environment: {reason}")),
        ImportError::StartOfManyFiles => AppError::internal(e.to_string()),
        ImportError::History(e) => e.into(),
    }
}

/// A refused file's message, with what to do here when the page can help.
fn refusal(e: &FileError) -> String {
    match e {
        FileError::UnknownScenario { .. } => {
            format!("{e}; choose its scenario and import it again")
        }
        _ => e.to_string(),
    }
}

fn result(env: String, r: ImportReport) -> SysbenchImportResult {
    SysbenchImportResult {
        env,
        imported: r
            .imported
            .into_iter()
            .map(|i| ImportedLog {
                file: i.file,
                run_id: i.run_id as u32,
                state: i.state.into(),
                steps: i.steps.iter().map(|(s, t)| format!("{s}@{t}")).collect(),
            })
            .collect(),
        duplicates: r
            .duplicates
            .iter()
            .map(|d| LogProblem {
                file: file_name(&d.path),
                message: d.to_string(),
            })
            .collect(),
        refused: r
            .refused
            .iter()
            .map(|e| LogProblem {
                file: file_name(e.path()),
                message: refusal(e),
            })
            .collect(),
        notes: r.notes.iter().map(ToString::to_string).collect(),
    }
}

/// Imports `files` into the history in `data_dir`.
fn import_logs(
    data_dir: &Path,
    files: &[PathBuf],
    o: &SysbenchImport,
) -> AppResult<SysbenchImportResult> {
    let h = BlockingHistory::open(data_dir)?;
    let report = import_sysbench(&h, files, o).map_err(said)?;
    Ok(result(o.env.clone(), report))
}

/// Asks for sysbench logs in a file dialog and files each as a run.
#[tauri::command]
#[specta::specta]
pub async fn import_sysbench_logs(
    app: AppHandle,
    request: SysbenchImportRequest,
) -> AppResult<SysbenchImportResult> {
    let o = options(&request)?;
    blocking(move || {
        // A blocking dialog, on this worker thread (the plugin shows it on the UI thread).
        let picked = app
            .dialog()
            .file()
            // No filter: logs are named anything (.txt, .log, oltp_read_only_64).
            .set_title("Import sysbench logs")
            .blocking_pick_files()
            .ok_or_else(|| AppError::new(ErrorCode::Dismissed, "no file chosen"))?;
        let files = picked
            .into_iter()
            .map(|f| f.into_path())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| AppError::new(ErrorCode::Io, format!("not a local file: {e}")))?;
        import_logs(&app.state::<AppState>().data_dir, &files, &o)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysbench log of tests/fixtures/sysbench.
    fn fixture(name: &str) -> PathBuf {
        [
            env!("CARGO_MANIFEST_DIR"),
            "../tests/fixtures/sysbench",
            name,
        ]
        .iter()
        .collect()
    }

    fn request(env: &str, scenario: &str) -> SysbenchImportRequest {
        SysbenchImportRequest {
            env: Some(env.into()),
            scenario: Some(scenario.into()),
        }
    }

    /// The fixture logs through the command's own path: imported with their steps, a
    /// second import skips them as duplicates, a file that does not tell its scenario
    /// is refused with what to do, and the rest is still imported.
    #[test]
    fn logs_are_imported_file_by_file_and_duplicates_skipped() {
        let data = tempfile::tempdir().unwrap();
        let files = [
            fixture("shell_loop_read_only_1_4.log"),
            fixture("oltp_insert.txt"),
        ];
        let o = options(&request(" ", "")).unwrap();
        let first = import_logs(data.path(), &files, &o).unwrap();
        assert_eq!(first.env, DEFAULT_ENV);
        let steps: Vec<&[String]> = first.imported.iter().map(|i| &i.steps[..]).collect();
        assert_eq!(
            steps,
            [
                &["oltp_read_only@1".to_string(), "oltp_read_only@4".into()][..],
                &["oltp_insert@2".to_string()][..],
            ]
        );
        assert!(first.refused.is_empty() && first.duplicates.is_empty());
        assert!(
            first.notes.iter().any(|n| n.contains("scenario guessed")),
            "{:?}",
            first.notes
        );

        let dir = tempfile::tempdir().unwrap();
        let writes = dir.path().join("writes.txt");
        std::fs::copy(fixture("oltp_insert.txt"), &writes).unwrap();
        let o = options(&request("lab", "")).unwrap();
        let files = [
            fixture("oltp_insert.txt"),
            writes,
            fixture("seed_003_article.txt"),
        ];
        let second = import_logs(data.path(), &files, &o).unwrap();
        assert_eq!(second.duplicates.len(), 2, "the copy too: same content");
        assert_eq!(second.duplicates[0].file, "oltp_insert.txt");
        assert!(second.duplicates[0]
            .message
            .contains("already imported as run"));
        assert_eq!(second.imported.len(), 1);
        assert_eq!(second.imported[0].file, "seed_003_article.txt");
        assert_eq!(second.imported[0].state, RunStateName::Complete);

        let capture = dir.path().join("capture.txt");
        std::fs::copy(fixture("reads_only_histogram_capture.txt"), &capture).unwrap();
        let third = import_logs(data.path(), std::slice::from_ref(&capture), &o).unwrap();
        assert_eq!(third.refused[0].file, "capture.txt");
        assert!(
            third.refused[0]
                .message
                .ends_with("; choose its scenario and import it again"),
            "{}",
            third.refused[0].message
        );
        let o = options(&request("lab", "select_random_points")).unwrap();
        let fourth = import_logs(data.path(), &[capture], &o).unwrap();
        assert_eq!(fourth.imported[0].steps, ["select_random_points@2"]);
        let h = BlockingHistory::open(data.path()).unwrap();
        assert_eq!(h.list_runs(Some("lab")).unwrap().len(), 2);
    }

    #[test]
    fn a_bad_environment_or_scenario_is_refused_before_the_dialog() {
        let e = options(&request("a b", "")).unwrap_err();
        assert!(e.message.starts_with("environment: "), "{}", e.message);
        let e = options(&request("x", "oltp_nothing")).unwrap_err();
        assert!(
            e.message.starts_with("scenario: unknown scenario"),
            "{}",
            e.message
        );
        assert_eq!(e.code, ErrorCode::Invalid);
    }
}
