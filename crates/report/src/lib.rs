//! DB Dyno's reports: one run, or several environments compared against a baseline, in
//! HTML, PDF, Markdown, CSV and JSON.
//!
//! The data flows one way:
//!
//! - [`input`]: what a report reads ([`ReportRun`]: a run's steps, environment facts and
//!   server figures), from the history or from `dbdyno … --json` files;
//! - [`model`]: every figure, delta, verdict, knee, bottleneck class and sentence, computed
//!   once ([`build`]);
//! - [`charts`]: SVG charts of the model, shared by the HTML and the PDF;
//! - [`render`]: one module per output format; renderers only lay the model out.
//!
//! Non-goals: storing runs (the history crate), collecting server figures (the checks and
//! monitor crates), statistics over repeated runs.

pub mod charts;
pub mod error;
pub mod format;
pub mod input;
pub mod model;
pub mod render;

pub use error::ReportError;
pub use input::{
    EnvironmentFacts, MysqlFigures, ReportRun, ReportStep, ServerFigures, ServerSecond,
};
pub use model::{build, Report, ReportOptions};
