//! Engine errors. Each says what failed, against what, and what the server answered,
//! so the shells can print it as is.

pub use dbdyno_mysql::MysqlError;

use crate::plan::error::PlanError;
use crate::workload::StatementClass;

#[derive(Debug, Clone, thiserror::Error)]
pub enum EngineError {
    #[error("invalid plan: {0}")]
    Plan(#[from] PlanError),

    /// Connecting or an administrative query failed (dbdyno-mysql's helpers, which the
    /// monitor shares): its own text, with the endpoint and user or the context.
    #[error(transparent)]
    Mysql(#[from] MysqlError),

    #[error("{class} statement failed: {message} (error {code}){}", sql_hint(.sql))]
    Statement {
        class: StatementClass,
        code: u16,
        message: String,
        sql: String,
    },

    /// A safety rule stopped the phase before it changed anything.
    #[error("{0}")]
    Refused(String),

    #[error(
        "lost the connection to the server and could not reconnect within {seconds}s: {message}"
    )]
    ReconnectFailed { seconds: u64, message: String },

    /// The server stopped answering (no result, no error, no reset) for as long as the
    /// step's stall timeout: a frozen host or a network path that drops everything.
    #[error(
        "the server was silent for {seconds} s (since {since}): no answer, no error, no reset on any connection (a frozen host or a cut network path?); --stall-timeout={seconds} ends the step"
    )]
    ServerSilent { seconds: u64, since: String },

    /// A step could not open all its connections within its budget.
    #[error("opened {opened} of {wanted} connections in {seconds:.1}s, then gave up: {cause}")]
    ConnectionsNotOpened {
        opened: u32,
        wanted: u32,
        seconds: f64,
        cause: Box<EngineError>,
    },

    #[error("internal error: {0}")]
    Internal(String),
}

fn sql_hint(sql: &str) -> String {
    if sql.is_empty() {
        String::new()
    } else {
        let short: String = sql.chars().take(160).collect();
        format!("\n  statement: {short}")
    }
}

impl EngineError {
    /// The server's error code, when there is one (tests and shells branch on it).
    pub fn server_code(&self) -> Option<u16> {
        match self {
            EngineError::Mysql(e) => e.server_code(),
            EngineError::Statement { code, .. } => Some(*code),
            EngineError::ConnectionsNotOpened { cause, .. } => cause.server_code(),
            _ => None,
        }
    }
}
