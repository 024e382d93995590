//! Runs a plan through the shared run (`dbdyno_session::run`, the one the desktop app
//! drives too) and prints what it says: shared by every command that runs load. The
//! printer ([`Printer`]), the monitoring lines ([`crate::monitoring`]) and the history
//! lines ([`crate::record`]) are the consumers of the run's events; this module adds
//! Ctrl-C, the `--json` file and the exit code.

use std::io::Write;
use std::process::ExitCode;

use dbdyno_engine::wording::{count, plural};
use dbdyno_engine::{CancelToken, EngineError};
use dbdyno_session::{Checks, HistoryTarget, Run, RunEnd, RunEvent, RunRequest};

use crate::exit::{
    failed, EXIT_CANCELLED, EXIT_FAILED, EXIT_NOT_RECORDED, EXIT_REFUSED, EXIT_STEPS_FAILED,
    EXIT_USAGE,
};
use crate::monitoring::{self, Out, SETTLE};
use crate::print::{Printer, Style};
use crate::record;

/// How a command shows its run.
pub struct Output<'a> {
    pub style: Style,
    pub print_intervals: bool,
    /// `--json`: a file, or "-" for stdout.
    pub json: Option<&'a str>,
    /// What ran, for the `--json` document ("ladder", "oltp_read_write run").
    pub command: &'a str,
    /// Where monitoring and history lines go.
    pub out: Out,
}

/// The measured run a command asks for (`request`, with how the server is reached):
/// checked (unless `--skip-checks`), recorded in `history`, its samples kept for `--json`.
pub fn request(
    request: RunRequest,
    skip_checks: bool,
    history: Option<HistoryTarget>,
    json: Option<&str>,
) -> RunRequest {
    RunRequest {
        checks: if skip_checks {
            Checks::Skip
        } else {
            Checks::Enforce
        },
        history,
        settle: SETTLE,
        keep_samples: json.is_some(),
        ..request
    }
}

/// Starts the run: the checks first (each WARN and FAIL printed; a FAIL refuses the
/// plan before anything is created or recorded), then the samplers, whose environment
/// is printed, and the history record. Err: the exit code of a run that did not start.
pub fn start(request: RunRequest, out: Out) -> Result<Run, ExitCode> {
    match Run::start(request) {
        Ok(run) => {
            monitoring::print_problems(run.problems());
            if let Some(m) = run.monitor() {
                monitoring::print_environment(out, m);
            }
            Ok(run)
        }
        Err(e) => {
            monitoring::print_problems(e.problems());
            Err(failed(monitoring::not_started(e)))
        }
    }
}

/// Drives the run to its end while printing its events; then the closing tables, the
/// history's last word, the `--json` file, and the exit code.
pub fn execute(run: Run, o: &Output) -> ExitCode {
    let cancel = CancelToken::new();
    install_ctrlc(&cancel);
    let mut printer =
        Printer::new(o.style, o.print_intervals).with_sla(run.plan().sla().map(|s| s.target));
    let end = run.drive(&cancel, |e| match e {
        RunEvent::Engine(e) => printer.handle(e),
        RunEvent::EngineStopped => printer.finish(),
        RunEvent::Sampler(u) => monitoring::print_update(o.out, u),
        RunEvent::StepServer { figures, os_down } => {
            monitoring::print_step(o.out, figures, os_down)
        }
        RunEvent::History(note) => record::print_note(o.out, &note),
        RunEvent::Cancelling | RunEvent::ClientCpu { .. } | RunEvent::Tick => {}
    });
    if let Some(m) = end
        .monitoring
        .as_ref()
        .filter(|m| !m.record.steps.is_empty())
    {
        monitoring::print_table(o.out, m);
    }
    let _ = std::io::stdout().flush();
    record::print_end(o.out, end.history.as_ref(), end.spilled.as_ref());
    if let Some(path) = o.json {
        if let Err(e) = write_json(path, &end, o.command) {
            eprintln!("FATAL: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    }
    exit_code(&end, o.json.is_some())
}

/// Which code wins when several apply: exit.rs says (an error before the results,
/// results not in the history before a cancel or failed steps).
fn exit_code(end: &RunEnd, json: bool) -> ExitCode {
    // Results the history does not hold are what a script must act on first (import
    // the spill file); the line saying so is printed already.
    let or_not_recorded = |code: u8| {
        ExitCode::from(if end.spilled.is_some() {
            EXIT_NOT_RECORDED
        } else {
            code
        })
    };
    if let Some(e) = &end.error {
        eprintln!("FATAL: {e}");
        return ExitCode::from(match e {
            EngineError::Plan(_) => EXIT_USAGE,
            EngineError::Refused(_) => EXIT_REFUSED,
            _ => EXIT_FAILED,
        });
    }
    if end.outcome.cancelled {
        eprintln!(
            "Cancelled: finished steps are kept above{}.",
            if json { " and in the JSON file" } else { "" }
        );
        return or_not_recorded(EXIT_CANCELLED);
    }
    if let Some(line) = failed_steps_line(&end.outcome.failed_steps) {
        eprintln!("{line}");
        return or_not_recorded(EXIT_STEPS_FAILED);
    }
    if end.spilled.is_some() {
        return ExitCode::from(EXIT_NOT_RECORDED);
    }
    ExitCode::SUCCESS
}

/// The closing line of a ladder that went on past failed steps
/// (`--on-step-error=continue`): each failed step once, with its error.
fn failed_steps_line(failed: &[dbdyno_engine::FailedStep]) -> Option<String> {
    if failed.is_empty() {
        return None;
    }
    let list: Vec<String> = failed
        .iter()
        .map(|f| format!("  {}: {}", f.label, f.error))
        .collect();
    Some(format!(
        "FAILED STEPS: {} failed and {} not measured:\n{}",
        count(failed.len() as u32, "step"),
        plural(failed.len() as f64, "was"),
        list.join("\n")
    ))
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

/// The `--json` document (docs/json-schema.md) into `path`, or on stdout for "-".
fn write_json(path: &str, end: &RunEnd, command: &str) -> Result<(), String> {
    let doc =
        dbdyno_session::results::document(end, command, &dbdyno_history::command_line::current());
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    if path == "-" {
        println!("{text}");
        Ok(())
    } else {
        std::fs::write(path, text + "\n").map_err(|e| format!("writing --json file {path}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_lists_every_failed_step_with_its_error() {
        assert_eq!(failed_steps_line(&[]), None);
        let failed = [
            dbdyno_engine::FailedStep {
                label: "oltp_point_select @ 64 threads".into(),
                error: "opened 40 of 64 connections in 60.0s, then gave up: too many".into(),
            },
            dbdyno_engine::FailedStep {
                label: "oltp_point_select @ 128 threads".into(),
                error: "boom".into(),
            },
        ];
        let line = failed_steps_line(&failed).unwrap();
        assert!(
            line.starts_with("FAILED STEPS: 2 steps failed and were not measured:"),
            "{line}"
        );
        assert!(line.contains("@ 64 threads: opened 40 of 64"), "{line}");
        assert!(line.contains("@ 128 threads: boom"), "{line}");
    }
}
