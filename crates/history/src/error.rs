//! What can go wrong with the history, in words a person can act on.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot create the data directory {path}: {source} (set --data-dir or DBDYNO_DATA_DIR to a writable directory)")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("no data directory: the OS gives no user data directory here; set --data-dir or DBDYNO_DATA_DIR")]
    NoDataDir,

    #[error("cannot open the history database {path}: {source}")]
    Open { path: PathBuf, source: sqlx::Error },

    #[error("cannot bring the history database {path} up to date: {source} (a newer DB Dyno may have written it)")]
    Migrate {
        path: PathBuf,
        source: sqlx::migrate::MigrateError,
    },

    #[error("history database: {0}")]
    Sql(#[from] sqlx::Error),

    #[error("no run with id {0} in the history (see `dbdyno runs list`)")]
    NoSuchRun(i64),

    #[error("run {run}: stored {what} cannot be read back: {source}")]
    Corrupt {
        run: i64,
        what: &'static str,
        source: serde_json::Error,
    },

    #[error("cannot serialize {what} for the history: {source}")]
    Serialize {
        what: &'static str,
        source: serde_json::Error,
    },

    #[error("unknown run state '{0}' in the history (a newer DB Dyno may have written it)")]
    UnknownState(String),

    #[error("the history writer thread stopped: {0}")]
    WriterGone(String),

    #[error("cannot start the history writer: {0}")]
    Runtime(std::io::Error),
}
