//! Shared helpers of the report tests: fixtures and pinned options.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use dbdyno_report::input::results_doc::runs_from_json;
use dbdyno_report::{build, Report, ReportOptions, ReportRun};

/// `tests/fixtures/report/` at the workspace root.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/report")
}

pub fn runs(name: &str) -> Vec<ReportRun> {
    let path = fixtures().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    runs_from_json(&text, name, "fixture").expect("fixture runs")
}

/// Options with the clock and version pinned, so that outputs are reproducible.
pub fn opts(baseline: Option<&str>) -> ReportOptions {
    ReportOptions {
        baseline: baseline.map(str::to_string),
        generated_at_ms: Some(1_750_000_000_000),
        tool_version: "test".into(),
        ..Default::default()
    }
}

pub fn report(name: &str, baseline: Option<&str>) -> Report {
    build(&runs(name), &opts(baseline)).expect("report model")
}

/// Runs a poppler tool (`pdftotext`, `pdfinfo`, ...): its stdout and stderr.
pub fn tool(name: &str, args: &[&str]) -> (String, String) {
    let out = Command::new(name).args(args).output().unwrap_or_else(|e| {
        panic!("{name} could not run ({e}): install poppler-utils (bash scripts/deps.sh)")
    });
    assert!(
        out.status.success(),
        "{name} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
