//! A run's monitoring handed to the history: after each finished step (checkpoint)
//! and at the end (the rest of the samples, the final record, then the final state).
//! A history that cannot be written never fails a run: what went wrong comes back in
//! the writer's report. Also what a run's record starts with: its environment.

use dbdyno_checks::EnvironmentSnapshot;
use dbdyno_engine::{EngineError, EngineEvent, Plan, RunOutcome};
use dbdyno_history::{HistoryWriter, RunState, WriterReport};

use crate::run_monitor::MonitoringReport;

/// The state a run ended in, and the failure to store with it: for a run that went on
/// past failed steps, `partial` and one line per failed step, "label: why".
pub fn final_state(
    outcome: &RunOutcome,
    error: Option<&EngineError>,
) -> (RunState, Option<String>) {
    match (error, outcome.cancelled) {
        (Some(e), _) => (RunState::Failed, Some(e.to_string())),
        (None, true) => (RunState::Cancelled, None),
        (None, false) if !outcome.failed_steps.is_empty() => {
            (RunState::Partial, Some(failed_steps_lines(outcome)))
        }
        (None, false) => (RunState::Complete, None),
    }
}

/// "oltp_point_select @ 16 threads: 8 of 16 connections opened: ...", one line each.
fn failed_steps_lines(outcome: &RunOutcome) -> String {
    let lines: Vec<String> = outcome
        .failed_steps
        .iter()
        .map(|f| format!("{}: {}", f.label, f.error))
        .collect();
    lines.join("\n")
}

/// The environment stored with a run: the server snapshot taken before it started
/// (version, variables, OS, data disk; monitored or not), completed with the client
/// machine's description.
pub fn environment_json(
    environment: Option<&EnvironmentSnapshot>,
    plan: &Plan,
) -> serde_json::Value {
    let client = dbdyno_history::environment::client_snapshot(&plan.connect.endpoint());
    let Some(mut doc) = environment.and_then(|e| serde_json::to_value(e).ok()) else {
        return client;
    };
    for (key, extra) in client.as_object().into_iter().flatten() {
        match doc.get_mut(key.as_str()) {
            Some(serde_json::Value::Object(have)) => {
                for (k, v) in extra.as_object().into_iter().flatten() {
                    have.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            _ => doc[key.as_str()] = extra.clone(),
        }
    }
    doc
}

/// True when the run ended at its first connection: no phase ran, nothing changed.
pub fn nothing_ran(outcome: &RunOutcome, error: Option<&EngineError>) -> bool {
    matches!(
        error,
        Some(EngineError::Mysql(
            dbdyno_engine::MysqlError::Connect { .. }
        ))
    ) && outcome.steps.is_empty()
        && outcome.prepare.is_none()
        && outcome.prewarm.is_none()
        && outcome.dropped_tables.is_empty()
}

/// After each finished step: the monitoring record so far and the samples not stored
/// yet, so that a run killed later (kill -9, power loss) keeps the server figures and
/// samples of the steps it finished. Queued to the writer; never blocks the run.
pub fn checkpoint(writer: &HistoryWriter, monitoring: &MonitoringReport) -> Option<String> {
    store_monitoring(writer, monitoring)
}

/// Stores the monitoring record and the samples no checkpoint stored (when
/// monitored), then the final state, and waits until everything is written.
pub fn finish_recording(
    writer: HistoryWriter,
    outcome: &RunOutcome,
    error: Option<&EngineError>,
    monitoring: Option<&MonitoringReport>,
) -> WriterReport {
    let not_stored = store_end(&writer, monitoring);
    let (state, failure) = final_state(outcome, error);
    let mut report = writer.finish(state, failure);
    report.errors.extend(not_stored);
    report
}

/// What the end of a run stores before its final state: monitoring's findings as
/// warnings, the monitoring record and the samples no checkpoint stored. Queued to the
/// writer; returns why the record could not be stored, if so.
pub fn store_end(writer: &HistoryWriter, monitoring: Option<&MonitoringReport>) -> Option<String> {
    // What monitoring noticed goes to the run's warnings too, where `runs show`, the
    // reports and the app list warnings, not only inside the monitoring record.
    for text in monitoring.map(monitoring_warnings).unwrap_or_default() {
        writer.record(&EngineEvent::Warning { text });
    }
    monitoring.and_then(|m| store_monitoring(writer, m))
}

/// Monitoring's findings as warning lines: sampling gaps, per-step sample-count flags,
/// metrics the run does not have.
fn monitoring_warnings(m: &MonitoringReport) -> Vec<String> {
    let m = &m.record;
    let mut out = Vec::new();
    for g in &m.gaps {
        out.push(format!(
            "monitoring: no {} samples for {:.1} s ({})",
            g.source,
            g.seconds(),
            g.reason
        ));
    }
    for s in &m.steps {
        for f in &s.flags {
            out.push(format!("monitoring, {}: {f}", s.label));
        }
    }
    for x in &m.missing {
        out.push(format!("not measured: {} ({})", x.what, x.why));
    }
    out
}

/// Replaces the run's monitoring record and appends the report's sample rows. Returns
/// why the record could not be stored, if so.
fn store_monitoring(writer: &HistoryWriter, m: &MonitoringReport) -> Option<String> {
    writer.set_monitoring(m.record.clone());
    writer.add_server_samples(m.server_rows.clone());
    writer.add_mysql_samples(m.mysql_rows.clone());
    None
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

    #[test]
    fn a_run_past_failed_steps_is_partial_and_names_them() {
        let failed = |label: &str, error: &str| dbdyno_engine::FailedStep {
            label: label.into(),
            error: error.into(),
        };
        let outcome = RunOutcome {
            failed_steps: vec![
                failed(
                    "oltp_point_select @ 16 threads",
                    "8 of 16 connections opened",
                ),
                failed("oltp_point_select @ 32 threads", "Too many connections"),
            ],
            ..Default::default()
        };
        assert_eq!(
            final_state(&outcome, None),
            (
                RunState::Partial,
                Some(
                    "oltp_point_select @ 16 threads: 8 of 16 connections opened\noltp_point_select @ 32 threads: Too many connections"
                        .into()
                )
            )
        );
        // Cancelled or failed later: that is what the run ended as.
        let cancelled = RunOutcome {
            cancelled: true,
            ..outcome.clone()
        };
        assert_eq!(final_state(&cancelled, None).0, RunState::Cancelled);
    }
}
