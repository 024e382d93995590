//! Runs read from the history: a [`StoredRun`] becomes a [`ReportRun`] through the same
//! code as a `--json` document ([`results_doc::assemble`]), plus what only the history
//! keeps: the run's id, environment name, labels, state, and the per-second server
//! samples (the server CPU and disk of each second of each step).

use dbdyno_history::{BlockingHistory, HistoryError, RunSource, RunState, RunSummary, StoredRun};

use super::results_doc::{assemble, per_second_from_samples};
use super::ReportRun;

/// The listed runs, each loaded from the history as a report reads it (what `dbdyno
/// trend` and the History screen's trends analyse).
pub fn report_runs<'a>(
    h: &BlockingHistory,
    summaries: impl IntoIterator<Item = &'a RunSummary>,
) -> Result<Vec<ReportRun>, HistoryError> {
    summaries
        .into_iter()
        .map(|s| h.load_run(s.id).map(|r| report_run(&r)))
        .collect()
}

/// The run as a report reads it. Its id is the history id (what `--baseline` names).
pub fn report_run(run: &StoredRun) -> ReportRun {
    // A step imported from a log cut off before its summary has interval lines only:
    // no totals to put in a matrix (they would read 0 TPS). It is left out, and said so.
    let results = run.results().filter(|r| r.has_totals()).cloned().collect();
    let no_totals: Vec<String> = run
        .steps
        .iter()
        .filter(|s| !s.result.has_totals())
        .map(|s| dbdyno_engine::threads_label(s.result.scenario, s.result.threads))
        .collect();
    // sysbench's output does not say whether the buffer pool was warmed beforehand.
    let prewarm_done = match run.source {
        RunSource::Import => None,
        RunSource::Dbdyno => Some(run.prewarm.is_some()),
    };
    let mut r = assemble(
        run.plan.clone(),
        results,
        run.monitoring.as_ref(),
        Default::default(),
        prewarm_done,
    );
    r.id = run.id.to_string();
    r.env_name = run.env.clone();
    r.labels = run
        .labels
        .iter()
        .map(|l| match l.split_once('=').or_else(|| l.split_once(':')) {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => (l.clone(), String::new()),
        })
        .collect();
    r.started_at = Some(run.started_at_ms);
    r.finished_at = run.ended_at_ms.or(r.finished_at);
    r.state = Some(
        match run.state {
            RunState::Complete => "finished",
            other => other.as_str(),
        }
        .to_string(),
    );
    r.command_line = Some(command_line(&run.command));
    r.tool_version = Some(run.tool_version.clone());
    if r.environment.client_cores.is_none() {
        r.environment.client_cores = run.client_cores();
    }
    if let (Some(f), false) = (&run.failure, run.state == RunState::Partial) {
        r.warnings.push(format!("the run stopped early: {f}"));
    }
    r.warnings
        .extend(run.warnings.iter().map(|w| w.text.clone()));
    // A partial run went to its end: its failure is the steps that failed, one line
    // each with its reason, which the run's warnings usually say already.
    if let (Some(f), RunState::Partial) = (&run.failure, run.state) {
        for line in f.lines() {
            if !r.warnings.iter().any(|w| w.contains(line)) {
                r.warnings
                    .push(format!("a step failed and was not measured: {line}"));
            }
        }
    }
    for step in no_totals {
        r.warnings.push(format!(
            "{step}: the imported log has no summary (it was cut off), so the step is left out"
        ));
    }
    fill_per_second(&mut r, run);
    r
}

/// The history's `command` as a command line: runs recorded since the command line is
/// kept hold it whole (secrets redacted by the CLI); older ones hold the subcommand only
/// ("ladder"), which is shown as `dbdyno ladder`.
fn command_line(command: &str) -> String {
    if command == "dbdyno" || command.starts_with("dbdyno ") {
        command.to_string()
    } else {
        format!("dbdyno {command}")
    }
}

/// Each step's server seconds from the stored samples (the monitor's `ServerSample`).
fn fill_per_second(r: &mut ReportRun, run: &StoredRun) {
    per_second_from_samples(&mut r.steps, &run.server_samples);
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_results::{Monitoring, ResultsDocument};
    use serde_json::json;

    /// The monitored ladder of tests/fixtures/results (its plan, record and samples).
    fn fixture() -> ResultsDocument {
        serde_json::from_str(include_str!(
            "../../../../tests/fixtures/results/v1_ladder.json"
        ))
        .unwrap()
    }

    fn stored(monitoring: Option<Monitoring>) -> StoredRun {
        let doc = fixture();
        let mut plan = doc.plan;
        (plan.workload.tables, plan.workload.table_size) = (4, 1000);
        StoredRun {
            id: 7,
            env: "lab".into(),
            source: RunSource::Dbdyno,
            command: "ladder".into(),
            state: RunState::Complete,
            started_at: "2026-11-30T00:00:00Z".into(),
            started_at_ms: 1_000,
            ended_at_ms: Some(9_000),
            tool_version: "0.1.0".into(),
            labels: vec!["ticket=DB-1".into(), "nvme".into()],
            profile: None,
            plan: Some(plan),
            environment: Some(json!({"client": {"cores": 3}})),
            monitoring,
            prepare: None,
            prewarm: None,
            failure: None,
            steps: Vec::new(),
            warnings: Vec::new(),
            server_samples: doc.monitoring.unwrap().server_samples,
            mysql_samples: Vec::new(),
        }
    }

    #[test]
    fn identity_labels_and_monitoring_come_through() {
        let mut m = fixture().monitoring.unwrap().without_samples();
        m.environment.os.as_mut().unwrap().cpu_model = Some("AMD EPYC".into());
        m.environment.client.cores = 3;
        m.missing = vec![dbdyno_results::Missing::new(
            "disk utilisation",
            "no SSH access",
        )];
        let r = report_run(&stored(Some(m)));
        assert_eq!((r.id.as_str(), r.env_name.as_str()), ("7", "lab"));
        assert_eq!(r.state.as_deref(), Some("finished"));
        assert_eq!(r.labels.get("ticket").map(String::as_str), Some("DB-1"));
        assert!(r.labels.contains_key("nvme"));
        assert_eq!(r.environment.cpu_model.as_deref(), Some("AMD EPYC"));
        assert_eq!(r.environment.client_cores, Some(3));
        assert_eq!(r.environment.prewarm_done, Some(false));
        assert_eq!(
            r.warnings,
            ["not measured: disk utilisation (no SSH access)"]
        );
        assert_eq!(r.finished_at, Some(9_000));
    }

    #[test]
    fn the_recorded_command_line_is_shown_whole_and_an_old_subcommand_prefixed() {
        let mut run = stored(None);
        assert_eq!(
            report_run(&run).command_line.as_deref(),
            Some("dbdyno ladder")
        );
        run.command = "dbdyno ladder --ladder=1,2 --mysql-password=***".into();
        assert_eq!(
            report_run(&run).command_line.as_deref(),
            Some("dbdyno ladder --ladder=1,2 --mysql-password=***")
        );
    }

    #[test]
    fn a_partial_run_is_named_and_each_failed_step_said_once_with_its_reason() {
        let mut run = stored(None);
        run.state = RunState::Partial;
        let (a, b) = (
            "oltp_point_select @ 16 threads: 8 of 16 connections opened: Too many connections",
            "oltp_point_select @ 32 threads: 8 of 32 connections opened: Too many connections",
        );
        run.failure = Some(format!("{a}\n{b}"));
        // The engine's warning for the first one was stored with the run.
        run.warnings = vec![dbdyno_history::StoredWarning {
            step_index: Some(1),
            at_ms: 0,
            text: format!("step failed, the ladder goes on (--on-step-error=continue): {a}"),
        }];
        let r = report_run(&run);
        assert_eq!(r.state.as_deref(), Some("partial"));
        assert_eq!(
            r.warnings[1..],
            [format!("a step failed and was not measured: {b}")],
            "{:?}",
            r.warnings
        );
        assert!(r.warnings[0].ends_with(a));
        assert!(!r.warnings.iter().any(|w| w.contains("stopped early")));
    }

    #[test]
    fn an_imported_run_does_not_claim_prewarm_was_off() {
        let mut run = stored(None);
        run.source = RunSource::Import;
        assert_eq!(report_run(&run).environment.prewarm_done, None);
    }
}
