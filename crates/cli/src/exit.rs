//! Exit codes scripts can trust (docs/cli.md).

use std::process::ExitCode;

/// The run failed: connection refused, access denied, a server error stopped a step.
pub const EXIT_FAILED: u8 = 1;
/// Bad options or an invalid plan; nothing was run.
pub const EXIT_USAGE: u8 = 2;
/// A safety rule refused (foreign tables, a table of another shape); nothing was changed.
pub const EXIT_REFUSED: u8 = 3;
/// Cancelled with Ctrl-C; finished steps are kept.
pub const EXIT_CANCELLED: u8 = 130;

pub fn usage_error(e: anyhow::Error) -> ExitCode {
    eprintln!("FATAL: {e:#}");
    ExitCode::from(EXIT_USAGE)
}

/// Something failed before the run started (SSH monitoring refused, a check failed).
pub fn failed(e: anyhow::Error) -> ExitCode {
    eprintln!("FATAL: {e:#}");
    ExitCode::from(EXIT_FAILED)
}
