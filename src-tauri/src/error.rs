//! The one error type every command returns: a machine-readable code the front-end may
//! branch on (never on the text, GitButler's rule) and a message a person can act on,
//! taken from the library's own error (they are written to be shown).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The input does not make a valid profile or plan; the message lists the problems.
    Invalid,
    NotFound,
    /// A run is in progress (only one at a time).
    Busy,
    /// The SSH server's key is not known yet: the front-end asks the user to accept it.
    HostKeyUnknown,
    Ssh,
    Mysql,
    Keyring,
    History,
    Report,
    Io,
    /// The user closed a dialog without choosing.
    Dismissed,
    Internal,
}

#[derive(Debug, Clone, Serialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
}

impl AppError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> AppError {
        AppError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> AppError {
        AppError::new(ErrorCode::Invalid, message)
    }

    pub fn internal(message: impl Into<String>) -> AppError {
        AppError::new(ErrorCode::Internal, message)
    }
}

pub type AppResult<T> = Result<T, AppError>;

impl From<dbdyno_profile::ProfileError> for AppError {
    fn from(e: dbdyno_profile::ProfileError) -> Self {
        let code = match e {
            dbdyno_profile::ProfileError::NotFound { .. } => ErrorCode::NotFound,
            dbdyno_profile::ProfileError::Read { .. }
            | dbdyno_profile::ProfileError::Write { .. } => ErrorCode::Io,
            _ => ErrorCode::Invalid,
        };
        AppError::new(code, e.to_string())
    }
}

impl From<dbdyno_profile::SecretError> for AppError {
    fn from(e: dbdyno_profile::SecretError) -> Self {
        AppError::new(ErrorCode::Keyring, e.to_string())
    }
}

impl From<dbdyno_history::HistoryError> for AppError {
    fn from(e: dbdyno_history::HistoryError) -> Self {
        let code = match e {
            dbdyno_history::HistoryError::NoSuchRun(_) => ErrorCode::NotFound,
            _ => ErrorCode::History,
        };
        AppError::new(code, e.to_string())
    }
}

impl From<dbdyno_ssh::SshError> for AppError {
    fn from(e: dbdyno_ssh::SshError) -> Self {
        let code = match e {
            dbdyno_ssh::SshError::UnknownHostKey(_) => ErrorCode::HostKeyUnknown,
            _ => ErrorCode::Ssh,
        };
        AppError::new(code, e.to_string())
    }
}

impl From<dbdyno_checks::ChecksError> for AppError {
    fn from(e: dbdyno_checks::ChecksError) -> Self {
        let code = match e {
            dbdyno_checks::ChecksError::Ssh(_) => ErrorCode::Ssh,
            _ => ErrorCode::Mysql,
        };
        AppError::new(code, e.to_string())
    }
}

impl From<dbdyno_report::ReportError> for AppError {
    fn from(e: dbdyno_report::ReportError) -> Self {
        AppError::new(ErrorCode::Report, e.to_string())
    }
}

impl From<std::io::Error> for AppError {
    fn from(e: std::io::Error) -> Self {
        AppError::new(ErrorCode::Io, e.to_string())
    }
}

/// Problems of a profile or plan as one message, one problem per line.
pub fn problems(list: &[dbdyno_profile::Problem]) -> AppError {
    let lines: Vec<String> = list
        .iter()
        .map(|p| format!("{}: {}", p.field, p.message))
        .collect();
    AppError::invalid(lines.join("\n"))
}

/// Runs blocking library work off the async runtime's worker threads (and never on the
/// UI thread): database probes, SSH, SQLite, rendering.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> AppResult<T> + Send + 'static,
) -> AppResult<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| AppError::internal(format!("background task failed: {e}")))?
}
