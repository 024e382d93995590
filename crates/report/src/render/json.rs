//! The report model as JSON: everything the other formats show, for scripts and dashboards.
//! Layout version: [`crate::model::REPORT_SCHEMA_VERSION`].

use crate::error::ReportError;
use crate::model::Report;

pub fn render(r: &Report) -> String {
    // A Report holds only strings, numbers, options and vectors: serialising cannot fail.
    serde_json::to_string_pretty(r).expect("the report model serialises to JSON") + "\n"
}

/// Reads a report written by [`render`] (dashboards, `dbdyno report --json` round trips).
pub fn parse(text: &str) -> Result<Report, ReportError> {
    serde_json::from_str(text).map_err(|e| ReportError::Input {
        source_name: "report JSON".into(),
        detail: e.to_string(),
    })
}
