//! Export of a report (one run from History, or a comparison) to PDF, HTML, Markdown or
//! CSV through the native save dialog. The dialog is opened here, never by the page: the
//! page names no path, and the app writes only the file chosen in the dialog (the
//! capabilities grant the page no file-system or dialog access).

use std::path::Path;

use dbdyno_report::render::{write_all, Outputs, PageSize};
use dbdyno_report::Report;
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Manager};
use tauri_plugin_dialog::DialogExt;

use super::compare::{report_for, CompareRequest};
use crate::error::{blocking, AppError, AppResult, ErrorCode};
use crate::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Pdf,
    Html,
    Markdown,
    Csv,
}

impl ExportFormat {
    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Pdf => "pdf",
            ExportFormat::Html => "html",
            ExportFormat::Markdown => "md",
            ExportFormat::Csv => "csv",
        }
    }

    fn label(self) -> &'static str {
        match self {
            ExportFormat::Pdf => "PDF",
            ExportFormat::Html => "HTML",
            ExportFormat::Markdown => "Markdown",
            ExportFormat::Csv => "CSV",
        }
    }

    /// Only this format, to `path`.
    fn outputs(self, path: &Path) -> Outputs {
        let p = Some(path.to_path_buf());
        let mut o = Outputs {
            page_size: PageSize::A4,
            ..Outputs::default()
        };
        match self {
            ExportFormat::Pdf => o.pdf = p,
            ExportFormat::Html => o.html = p,
            ExportFormat::Markdown => o.markdown = p,
            ExportFormat::Csv => o.csv = p,
        }
        o
    }
}

/// What the save dialog proposes: "dbdyno-run-12.pdf", "dbdyno-compare-9-12.pdf"
/// (baseline first).
fn suggested_name(r: &Report, format: ExportFormat) -> String {
    let ids: Vec<&str> = r.envs.iter().map(|e| e.run_id.as_str()).collect();
    let kind = if ids.len() == 1 { "run" } else { "compare" };
    format!("dbdyno-{kind}-{}.{}", ids.join("-"), format.extension())
}

/// Where the dialog opens: the user's documents folder, else their home (else GTK's
/// default, the folder the app was started from).
fn start_dir(app: &AppHandle) -> Option<std::path::PathBuf> {
    let paths = app.path();
    [paths.document_dir().ok(), paths.home_dir().ok()]
        .into_iter()
        .flatten()
        .find(|d| d.is_dir())
}

/// Renders one format of the report to `path`.
fn write_one(r: &Report, format: ExportFormat, path: &Path) -> AppResult<()> {
    write_all(r, &format.outputs(path))?;
    Ok(())
}

/// Builds the report, asks where to save it, writes it there. Returns the path written,
/// or nothing when the dialog was cancelled (nothing is written then).
#[tauri::command]
#[specta::specta]
pub async fn export_report(
    app: AppHandle,
    request: CompareRequest,
    format: ExportFormat,
) -> AppResult<Option<String>> {
    blocking(move || {
        // Built before the dialog opens: a request that cannot make a report fails
        // without asking for a file first.
        let report = report_for(&app.state::<AppState>(), &request)?;
        let mut dialog = app
            .dialog()
            .file()
            .set_title(format!("Export {} report", format.label()))
            .set_file_name(suggested_name(&report, format))
            .add_filter(format.label(), &[format.extension()]);
        if let Some(dir) = start_dir(&app) {
            dialog = dialog.set_directory(dir);
        }
        // A blocking dialog, on this worker thread (the plugin shows it on the UI thread).
        let Some(chosen) = dialog.blocking_save_file() else {
            return Ok(None);
        };
        let path = chosen
            .into_path()
            .map_err(|e| AppError::new(ErrorCode::Io, format!("not a local file: {e}")))?;
        write_one(&report, format, &path)?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_report::input::results_doc::runs_from_json;
    use dbdyno_report::{build, ReportOptions};

    fn report(ids: usize) -> Report {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/report/three_envs.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let mut runs = runs_from_json(&text, path, "three_envs").expect("runs");
        runs.truncate(ids);
        let opts = ReportOptions {
            baseline: Some("hw_cloud".into()).filter(|_| ids > 1),
            ..ReportOptions::default()
        };
        build(&runs, &opts).expect("report")
    }

    #[test]
    fn the_dialog_proposes_a_name_with_the_run_ids_and_the_formats_extension() {
        assert_eq!(
            suggested_name(&report(1), ExportFormat::Pdf),
            "dbdyno-run-idc.pdf"
        );
        assert_eq!(
            suggested_name(&report(2), ExportFormat::Markdown),
            "dbdyno-compare-hw_cloud-idc.md"
        );
    }

    /// Each format writes exactly the chosen file, in that format, and nothing beside it.
    #[test]
    fn each_format_writes_only_the_chosen_file() {
        let dir = std::env::temp_dir().join(format!("dbdyno-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let r = report(2);
        for (format, starts) in [
            (ExportFormat::Pdf, "%PDF-"),
            (ExportFormat::Html, "<!DOCTYPE html>"),
            (ExportFormat::Markdown, "# "),
            (ExportFormat::Csv, "run_id,environment,"),
        ] {
            let path = dir.join(format!("chosen-{format:?}"));
            write_one(&r, format, &path).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]).to_string();
            assert!(head.starts_with(starts), "{format:?} starts with {head:?}");
            let text = String::from_utf8_lossy(&bytes);
            if format != ExportFormat::Pdf {
                assert!(text.contains("华为云"), "{format:?} names the baseline");
            }
        }
        let files = std::fs::read_dir(&dir).unwrap().count();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(files, 4, "one file per export, nothing else");
    }
}
