//! Connection and query errors. Each says what failed, against what, and what the
//! server answered; the engine turns them into its own `EngineError` variants of the
//! same text.

#[derive(Debug, Clone, thiserror::Error)]
pub enum MysqlError {
    #[error("cannot connect to MySQL at {endpoint} as '{user}': {message}")]
    Connect {
        endpoint: String,
        user: String,
        /// Server error code when the server answered (1045 access denied, 1049 unknown database).
        code: Option<u16>,
        message: String,
        /// The connection's TLS mode demands TLS and the server offers none.
        tls_missing: bool,
    },

    #[error("{context} failed: {message}{}", code.map(|c| format!(" (error {c})")).unwrap_or_default())]
    Query {
        context: String,
        code: Option<u16>,
        message: String,
    },
}

impl MysqlError {
    /// The server's error code, when there is one (checks and shells branch on it).
    pub fn server_code(&self) -> Option<u16> {
        match self {
            MysqlError::Connect { code, .. } | MysqlError::Query { code, .. } => *code,
        }
    }

    /// The TLS mode demands TLS and the server offers none (the fix is the server's TLS
    /// or the profile's `ssl_mode`, not the network).
    pub fn tls_missing(&self) -> bool {
        matches!(
            self,
            MysqlError::Connect {
                tls_missing: true,
                ..
            }
        )
    }
}
