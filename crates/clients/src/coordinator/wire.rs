//! Reading an agent's reports.

use std::time::Duration;

use dbdyno_engine::clients::Report;

use super::client::Client;
use crate::transport::TransportError;

/// What an agent said within the wait.
pub(crate) enum Said {
    Report(Report),
    /// Nothing within the wait.
    Nothing,
}

/// The client's next report, or Nothing after `timeout`. A line that is not a report
/// (another version's, or noise on the channel) is skipped.
pub(crate) fn next(c: &mut Client, timeout: Duration) -> Result<Said, TransportError> {
    match c.transport.recv_line(timeout)? {
        None => Ok(Said::Nothing),
        Some(line) => Ok(serde_json::from_str::<Report>(&line)
            .map(Said::Report)
            .unwrap_or(Said::Nothing)),
    }
}

/// Waits up to `timeout` for a report that `want` accepts; others are skipped.
pub(crate) fn expect<T>(
    c: &mut Client,
    timeout: Duration,
    mut want: impl FnMut(Report) -> Option<T>,
) -> Result<Option<T>, TransportError> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        if let Said::Report(r) = next(c, left)? {
            if let Some(t) = want(r) {
                return Ok(Some(t));
            }
        }
    }
}
