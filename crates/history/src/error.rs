//! What can go wrong with the history, in words a person can act on.
//!
//! Each message carries its cause's text, and the cause is not also exposed as
//! `source()`: callers print errors with their chain (`{:#}`), and sqlx's errors repeat
//! their own cause, so a chain would print "file is not a database" three times.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot create the data directory {path}: {cause} (set --data-dir or DBDYNO_DATA_DIR to a writable directory)")]
    DataDir {
        path: PathBuf,
        cause: std::io::Error,
    },

    #[error("no data directory: the OS gives no user data directory here; set --data-dir or DBDYNO_DATA_DIR")]
    NoDataDir,

    #[error("cannot open the history database {path}: {cause}")]
    Open { path: PathBuf, cause: sqlx::Error },

    #[error("cannot bring the history database {path} up to date: {cause} (a newer DB Dyno may have written it)")]
    Migrate {
        path: PathBuf,
        cause: sqlx::migrate::MigrateError,
    },

    #[error("history database: {0}")]
    Sql(sqlx::Error),

    #[error("no run with id {0} in the history (see `dbdyno runs list`)")]
    NoSuchRun(i64),

    #[error("run {run}: stored {what} cannot be read back: {cause}")]
    Corrupt {
        run: i64,
        what: &'static str,
        cause: serde_json::Error,
    },

    #[error("cannot serialize {what} for the history: {cause}")]
    Serialize {
        what: &'static str,
        cause: serde_json::Error,
    },

    #[error("unknown run state '{0}' in the history (a newer DB Dyno may have written it)")]
    UnknownState(String),

    #[error("the history writer thread stopped: {0}")]
    WriterGone(String),

    #[error("{what} took longer than {seconds} s (a lock another process holds, or a disk that stopped answering)")]
    TooSlow { what: &'static str, seconds: u64 },

    #[error("cannot start the history writer: {0}")]
    Runtime(std::io::Error),
}

impl From<sqlx::Error> for HistoryError {
    fn from(e: sqlx::Error) -> HistoryError {
        HistoryError::Sql(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_is_said_once() {
        let e = HistoryError::Open {
            path: "h.sqlite3".into(),
            cause: sqlx::Error::Protocol("file is not a database".into()),
        };
        let chain = format!("{:#}", anyhow::Error::from(e));
        assert_eq!(
            chain.matches("file is not a database").count(),
            1,
            "{chain}"
        );
        let e = HistoryError::from(sqlx::Error::Protocol("locked".into()));
        assert!(std::error::Error::source(&e).is_none());
    }
}
