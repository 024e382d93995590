//! The end of a run, handed to the history: what monitoring found (the record and
//! every per-second sample), then the final state. A history that cannot be written
//! never fails a run: what went wrong comes back in the writer's report.

use dbdyno_engine::{EngineError, RunOutcome};
use dbdyno_history::{HistoryWriter, RunState, WriterReport};

use crate::run_monitor::MonitoringReport;

/// The state a run ended in, and the failure to store with it.
pub fn final_state(
    outcome: &RunOutcome,
    error: Option<&EngineError>,
) -> (RunState, Option<String>) {
    match (error, outcome.cancelled) {
        (Some(e), _) => (RunState::Failed, Some(e.to_string())),
        (None, true) => (RunState::Cancelled, None),
        (None, false) => (RunState::Complete, None),
    }
}

/// Stores the monitoring record and samples (when monitored), then the final state,
/// and waits until everything is written.
pub fn finish_recording(
    writer: HistoryWriter,
    outcome: &RunOutcome,
    error: Option<&EngineError>,
    monitoring: Option<&MonitoringReport>,
) -> WriterReport {
    let mut not_stored = None;
    if let Some(m) = monitoring {
        match serde_json::to_value(m) {
            Ok(v) => writer.set_monitoring(v),
            Err(e) => not_stored = Some(format!("the monitoring record is not stored: {e}")),
        }
        writer.add_server_samples(m.server_rows.clone());
        writer.add_mysql_samples(m.mysql_rows.clone());
    }
    let (state, failure) = final_state(outcome, error);
    let mut report = writer.finish(state, failure);
    report.errors.extend(not_stored);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_wins_over_cancel_and_cancel_over_complete() {
        let cancelled = RunOutcome {
            cancelled: true,
            ..Default::default()
        };
        let err = EngineError::Internal("boom".into());
        assert_eq!(
            final_state(&cancelled, Some(&err)),
            (RunState::Failed, Some(err.to_string()))
        );
        assert_eq!(final_state(&cancelled, None), (RunState::Cancelled, None));
        assert_eq!(
            final_state(&RunOutcome::default(), None),
            (RunState::Complete, None)
        );
    }
}
