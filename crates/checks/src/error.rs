//! Errors of the checks crate. Each names what failed and what to do about it; the
//! SSH, disk and engine errors they wrap already do.

use dbdyno_engine::EngineError;
use dbdyno_monitor::{DiskError, MonitorError};
use dbdyno_ssh::SshError;

#[derive(Debug, thiserror::Error)]
pub enum ChecksError {
    #[error(transparent)]
    Engine(#[from] EngineError),

    #[error(transparent)]
    Ssh(#[from] SshError),

    #[error(transparent)]
    Disk(#[from] DiskError),

    #[error(transparent)]
    Monitor(#[from] MonitorError),

    #[error("{what} failed: {message}{}", code.map(|c| format!(" (error {c})")).unwrap_or_default())]
    Query {
        what: String,
        code: Option<u16>,
        message: String,
    },

    /// The account may not change the variable (error 1227 and friends).
    #[error(
        "cannot run `{sql}` as '{user}': {message}. Changing a global variable needs SUPER or \
         SYSTEM_VARIABLES_ADMIN: run the fix as an administrator (dbdyno check --fix --admin-user=…), \
         or run the statement yourself"
    )]
    ActionDenied {
        sql: String,
        user: String,
        message: String,
    },

    /// The server accepted the statement but the value did not stick (capped by the server).
    #[error("`{sql}` ran, but the server now reports {variable} = {got}: it capped or ignored the value; set it in my.cnf and restart")]
    ActionIneffective {
        sql: String,
        variable: String,
        got: String,
    },
}

impl ChecksError {
    pub(crate) fn query(what: impl Into<String>, e: &mysql::Error) -> ChecksError {
        let (code, message) = match e {
            mysql::Error::MySqlError(me) => (Some(me.code), me.message.clone()),
            other => (None, other.to_string()),
        };
        ChecksError::Query {
            what: what.into(),
            code,
            message,
        }
    }
}
