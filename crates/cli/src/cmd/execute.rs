//! Runs an engine plan while printing its events: shared by every command that runs load.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use dbdyno_engine::results::RESULTS_SCHEMA_VERSION;
use dbdyno_engine::{run_plan, CancelToken, EngineError, EventSink, Plan, RunOutcome};

use crate::exit::{EXIT_CANCELLED, EXIT_FAILED, EXIT_REFUSED, EXIT_USAGE};
use crate::print::{Printer, Style};
use crate::record::Recorder;

/// Runs the plan on a worker thread while this thread prints its events (and, with a
/// recorder, stores them in the history).
pub fn execute(
    plan: &Plan,
    style: Style,
    print_intervals: bool,
    json: Option<&str>,
    command: &str,
    recorder: Option<Recorder>,
    mut monitoring: Option<crate::monitoring::Session>,
) -> ExitCode {
    let cancel = CancelToken::new();
    install_ctrlc(&cancel);
    let (tx, rx) = crossbeam_channel::unbounded();
    let sink = EventSink::new(tx);
    // Every per-second sample, for the `--json` document: checkpoints hand rows out once
    // (to the history), so they are gathered here as they pass.
    let mut samples = Samples::default();
    let (outcome, error) = std::thread::scope(|scope| {
        let engine = scope.spawn(|| run_plan(plan, &sink, &cancel));
        let mut printer = Printer::new(style, print_intervals);
        let mut handle = |e: &dbdyno_engine::EngineEvent| {
            printer.handle(e);
            if let Some(r) = &recorder {
                r.record(e);
            }
            if let Some(checkpoint) = monitoring.as_mut().and_then(|m| m.on_event(e)) {
                if json.is_some() {
                    samples.add(&checkpoint);
                }
                if let Some(r) = &recorder {
                    r.checkpoint(&checkpoint);
                }
            }
        };
        // Drop our copy of the sender's owner only after the engine finishes: iterate
        // until the engine thread is done and the channel is drained.
        loop {
            match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                Ok(e) => handle(&e),
                Err(_) if engine.is_finished() => break,
                Err(_) => {}
            }
        }
        while let Ok(e) = rx.try_recv() {
            handle(&e);
        }
        printer.finish();
        engine.join().expect("engine thread")
    });
    let monitoring = monitoring.map(|m| m.finish());
    let _ = std::io::stdout().flush();
    if let Some(r) = recorder {
        r.finish(&outcome, error.as_ref(), monitoring.as_ref());
    }
    if let Some(path) = json {
        if let Some(m) = &monitoring {
            samples.add(m);
        }
        if let Err(e) = write_json(path, plan, &outcome, command, monitoring.as_ref(), &samples) {
            eprintln!("FATAL: {e:#}");
            return ExitCode::from(EXIT_FAILED);
        }
    }
    if let Some(e) = error {
        eprintln!("FATAL: {e}");
        return ExitCode::from(match e {
            EngineError::Plan(_) => EXIT_USAGE,
            EngineError::Refused(_) => EXIT_REFUSED,
            _ => EXIT_FAILED,
        });
    }
    if outcome.cancelled {
        eprintln!(
            "Cancelled: finished steps are kept above{}.",
            if json.is_some() {
                " and in the JSON file"
            } else {
                ""
            }
        );
        return ExitCode::from(EXIT_CANCELLED);
    }
    ExitCode::SUCCESS
}

fn install_ctrlc(cancel: &CancelToken) {
    let c = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        if c.is_cancelled() {
            // A second Ctrl-C: the user wants out now.
            std::process::exit(EXIT_CANCELLED as i32);
        }
        eprintln!(
            "\nCancelling: finishing in-flight transactions (Ctrl-C again to quit at once)..."
        );
        c.cancel();
    });
}

/// The per-second server (OS) and MySQL samples of a monitored run, in the history's
/// shape (`step_index`, `unix_ms`, `sample`).
#[derive(Default)]
struct Samples {
    server: Vec<serde_json::Value>,
    mysql: Vec<serde_json::Value>,
}

impl Samples {
    fn add(&mut self, m: &crate::monitoring::MonitoringReport) {
        let row = |r: &dbdyno_history::SampleRow| serde_json::json!({"step_index": r.step_index, "unix_ms": r.unix_ms, "sample": r.sample});
        self.server.extend(m.server_rows.iter().map(row));
        self.mysql.extend(m.mysql_rows.iter().map(row));
    }
}

/// The `--json` document (docs/json-schema.md): versioned, self-describing, no secrets.
fn write_json(
    path: &str,
    plan: &Plan,
    outcome: &RunOutcome,
    command: &str,
    monitoring: Option<&crate::monitoring::MonitoringReport>,
    samples: &Samples,
) -> anyhow::Result<()> {
    // The monitoring record with its per-second samples, which a report's timeline
    // charts (server CPU and disk under the QPS line).
    let monitoring = monitoring.map(|m| {
        let mut v = serde_json::to_value(m).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("server_samples".into(), samples.server.clone().into());
            o.insert("mysql_samples".into(), samples.mysql.clone().into());
        }
        v
    });
    let doc = serde_json::json!({
        "schema_version": RESULTS_SCHEMA_VERSION,
        "tool": "dbdyno",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "command": command,
        // As typed, with secret values redacted (a report's appendix shows it).
        "command_line": crate::cmdline::current(),
        "plan": plan,
        "outcome": outcome,
        // Environment snapshot and per-step server figures (null when not monitored).
        "monitoring": monitoring,
    });
    let text = serde_json::to_string_pretty(&doc)?;
    if path == "-" {
        println!("{text}");
    } else {
        std::fs::write(path, text + "\n").with_context(|| format!("writing --json file {path}"))?;
    }
    Ok(())
}
