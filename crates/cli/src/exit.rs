//! Exit codes scripts can trust (docs/cli.md).
//!
//! When several apply, the first of these wins: 2, 3, 1 (the run itself failed or was
//! refused: nothing, or not all it planned, was measured, and the error says why), then
//! 6 (measured results are not in the history: a script must bring the spill file in
//! before anything else), then 130 (cancelled), then 5 (steps failed and were not
//! measured). `dbdyno report`'s 4 is its own command's.

use std::process::ExitCode;

/// The run failed: connection refused, access denied, a server error stopped a step.
pub const EXIT_FAILED: u8 = 1;
/// Bad options or an invalid plan; nothing was run.
pub const EXIT_USAGE: u8 = 2;
/// A safety rule refused (foreign tables, a table of another shape); nothing was changed.
pub const EXIT_REFUSED: u8 = 3;
/// `dbdyno report` with a baseline: a cell regressed beyond the threshold (and its
/// interval), or with `--fail-on-missing` a cell could not be compared.
pub const EXIT_REGRESSED: u8 = 4;
/// With `--on-step-error=continue`, one step or more failed; the others ran. Not 4: a
/// nightly script that runs a ladder and then a report must tell the two apart.
pub const EXIT_STEPS_FAILED: u8 = 5;
/// The run's results are not (fully) in the history (a full disk, a read-only file
/// system, a lock held too long): every measured step is in the spill file that the
/// last line names, with the command that brings it in (`dbdyno import results FILE`).
/// A history that cannot be written at the start is 1 instead (nothing was run).
pub const EXIT_NOT_RECORDED: u8 = 6;
/// Cancelled with Ctrl-C; finished steps are kept.
pub const EXIT_CANCELLED: u8 = 130;

pub fn usage_error(e: anyhow::Error) -> ExitCode {
    eprintln!("FATAL: {}", chain(&e));
    ExitCode::from(EXIT_USAGE)
}

/// Something failed before the run started (SSH monitoring refused, a check failed).
pub fn failed(e: anyhow::Error) -> ExitCode {
    eprintln!("FATAL: {}", chain(&e));
    ExitCode::from(EXIT_FAILED)
}

/// The error and its causes, each once: a library error that already shows its
/// source in its own message (thiserror's `{source}`) does not get it repeated.
pub fn chain(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_printed_once() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        let e = dbdyno_ssh::SshError::Connect {
            addr: "127.0.0.1:1".into(),
            source: io,
        };
        let text = chain(&anyhow::Error::new(e).context("monitoring"));
        assert_eq!(text.matches("Connection refused").count(), 1, "{text}");
        assert!(
            text.starts_with("monitoring: cannot connect to 127.0.0.1:1"),
            "{text}"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(chain(&plain), "outer: inner");
    }
}
