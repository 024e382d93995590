//! What can go wrong while building or writing a report, in words a person can act on.

use std::path::PathBuf;

/// Errors of this crate. Rendering itself cannot fail on data; only input, fonts and
/// the file system can.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{source_name}: {detail}")]
    Input { source_name: String, detail: String },

    #[error("no runs to report on: give at least one input")]
    NoRuns,

    #[error(
        "two runs share the id '{0}': ids must be unique (rename one file or pass --env-names)"
    )]
    DuplicateRun(String),

    #[error("--baseline '{wanted}' matches no run; the runs are: {known}")]
    UnknownBaseline { wanted: String, known: String },

    #[error("--timeline '{0}' is not SCENARIO@THREADS (for example oltp_read_write@64)")]
    BadTimeline(String),

    #[error("--timeline {wanted}: no environment ran that step; the steps run are {ran}")]
    TimelineNotRun { wanted: String, ran: String },

    #[error("--threshold must be a positive percentage (got {0})")]
    BadThreshold(f64),

    /// Only a report holding text the built-in Latin font cannot draw needs a system
    /// font; `needed` says which characters.
    #[error("no font with CJK coverage found for the PDF, which holds {needed}. Install one (Debian/Ubuntu: apt-get install fonts-noto-cjk; Fedora: dnf install google-noto-sans-cjk-fonts; macOS and Windows ship PingFang and Microsoft YaHei), or set DBDYNO_REPORT_FONT to a .ttf, .otf or .ttc file (append #N for face N of a collection). Looked in: {looked}")]
    FontNotFound { needed: String, looked: String },

    #[error("font {path}: {detail}")]
    Font { path: PathBuf, detail: String },

    #[error("chart could not be converted for the PDF: {0}")]
    Chart(String),

    #[error("the PDF could not be serialised: {0}")]
    Pdf(String),

    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
