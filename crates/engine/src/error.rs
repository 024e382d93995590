//! Engine errors. Each says what failed, against what, and what the server answered,
//! so the shells can print it as is.

use crate::plan::PlanError;
use crate::workload::StatementClass;

#[derive(Debug, Clone, thiserror::Error)]
pub enum EngineError {
    #[error("invalid plan: {0}")]
    Plan(#[from] PlanError),

    #[error("cannot connect to MySQL at {endpoint} as '{user}': {message}")]
    Connect {
        endpoint: String,
        user: String,
        /// Server error code when the server answered (1045 access denied, 1049 unknown database).
        code: Option<u16>,
        message: String,
    },

    #[error("{class} statement failed: {message} (error {code}){}", sql_hint(.sql))]
    Statement {
        class: StatementClass,
        code: u16,
        message: String,
        sql: String,
    },

    #[error("{context} failed: {message}{}", code.map(|c| format!(" (error {c})")).unwrap_or_default())]
    Query {
        context: String,
        code: Option<u16>,
        message: String,
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

/// The connection helpers' errors become the engine's variants of the same text, so
/// callers that match on `Connect` or `Query` see no difference.
impl From<dbdyno_mysql::MysqlError> for EngineError {
    fn from(e: dbdyno_mysql::MysqlError) -> Self {
        match e {
            dbdyno_mysql::MysqlError::Connect {
                endpoint,
                user,
                code,
                message,
            } => EngineError::Connect {
                endpoint,
                user,
                code,
                message,
            },
            dbdyno_mysql::MysqlError::Query {
                context,
                code,
                message,
            } => EngineError::Query {
                context,
                code,
                message,
            },
        }
    }
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
            EngineError::Connect { code, .. } | EngineError::Query { code, .. } => *code,
            EngineError::Statement { code, .. } => Some(*code),
            EngineError::ConnectionsNotOpened { cause, .. } => cause.server_code(),
            _ => None,
        }
    }
}
