//! `dbdyno`: the command line over DB Dyno's engine. CLI definition and glue only:
//! every figure comes from `dbdyno-engine`.
//!
//! Exit codes scripts can trust:
//! 0 success · 1 the run failed (connection, server error) · 2 bad options or plan ·
//! 3 refused by a safety rule (foreign tables, a table of another shape) · 130 cancelled.

mod args;
mod plan_build;
mod print;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use dbdyno_engine::results::RESULTS_SCHEMA_VERSION;
use dbdyno_engine::{run_plan, CancelToken, EngineError, EventSink, Plan, RunOutcome};

use args::{ToolCli, ToolCommand, WorkloadCli, WorkloadCommand};
use print::{Printer, Style};

const EXIT_FAILED: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_REFUSED: u8 = 3;
const EXIT_CANCELLED: u8 = 130;

fn main() -> ExitCode {
    let argv = args::normalize_args(std::env::args());
    let tool_words = ["ladder"];
    match args::first_word(&argv) {
        Some(w) if tool_words.contains(&w) => {
            let cli = ToolCli::try_parse_from(&argv).unwrap_or_else(|e| e.exit());
            match cli.command {
                ToolCommand::Ladder(a) => {
                    let plan = match plan_build::ladder_plan(&a) {
                        Ok(p) => p,
                        Err(e) => return usage_error(e),
                    };
                    let print_intervals = plan.steps().next().is_some_and(|s| s.settings.report_interval_s > 0);
                    execute(&plan, Style::Ladder, print_intervals, a.run.json.as_deref(), "ladder")
                }
            }
        }
        Some("help") | None => {
            let _ = WorkloadCli::try_parse_from(["dbdyno", "--help"]).map_err(|e| e.print());
            ExitCode::SUCCESS
        }
        Some(_) => {
            let cli = WorkloadCli::try_parse_from(&argv).unwrap_or_else(|e| e.exit());
            let plan = match plan_build::workload_plan(&cli) {
                Ok(p) => p,
                Err(e) => return usage_error(e),
            };
            let style = Style::Sysbench {
                histogram: cli.run.histogram,
            };
            if cli.command == WorkloadCommand::Run {
                let s = plan.steps().next().expect("run has a step");
                print!(
                    "{}",
                    dbdyno_engine::sysbench_text::format_header(
                        env!("CARGO_PKG_VERSION"),
                        s.threads,
                        s.settings.report_interval_s,
                        s.settings.rate,
                        plan.workload.rand.seed,
                    )
                );
            }
            let print_intervals = plan.steps().next().is_some_and(|s| s.settings.report_interval_s > 0);
            let command = format!("{} {:?}", cli.workload, cli.command).to_lowercase();
            execute(&plan, style, print_intervals, cli.run.json.as_deref(), &command)
        }
    }
}

/// Runs the plan on a worker thread while this thread prints its events.
fn execute(plan: &Plan, style: Style, print_intervals: bool, json: Option<&str>, command: &str) -> ExitCode {
    let cancel = CancelToken::new();
    install_ctrlc(&cancel);
    let (tx, rx) = crossbeam_channel::unbounded();
    let sink = EventSink::new(tx);
    let (outcome, error) = std::thread::scope(|scope| {
        let engine = scope.spawn(|| run_plan(plan, &sink, &cancel));
        let mut printer = Printer::new(style, print_intervals);
        // Drop our copy of the sender's owner only after the engine finishes: iterate
        // until the engine thread is done and the channel is drained.
        loop {
            match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                Ok(e) => printer.handle(&e),
                Err(_) if engine.is_finished() => break,
                Err(_) => {}
            }
        }
        while let Ok(e) = rx.try_recv() {
            printer.handle(&e);
        }
        printer.finish();
        engine.join().expect("engine thread")
    });
    let _ = std::io::stdout().flush();
    if let Some(path) = json {
        if let Err(e) = write_json(path, plan, &outcome, command) {
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
        eprintln!("Cancelled: finished steps are kept above{}.", if json.is_some() { " and in the JSON file" } else { "" });
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
        eprintln!("\nCancelling: finishing in-flight transactions (Ctrl-C again to quit at once)...");
        c.cancel();
    });
}

/// The `--json` document (docs/json-schema.md): versioned, self-describing, no secrets.
fn write_json(path: &str, plan: &Plan, outcome: &RunOutcome, command: &str) -> anyhow::Result<()> {
    let doc = serde_json::json!({
        "schema_version": RESULTS_SCHEMA_VERSION,
        "tool": "dbdyno",
        "tool_version": env!("CARGO_PKG_VERSION"),
        "command": command,
        "plan": plan,
        "outcome": outcome,
    });
    let text = serde_json::to_string_pretty(&doc)?;
    if path == "-" {
        println!("{text}");
    } else {
        std::fs::write(path, text + "\n").with_context(|| format!("writing --json file {path}"))?;
    }
    Ok(())
}

fn usage_error(e: anyhow::Error) -> ExitCode {
    eprintln!("FATAL: {e:#}");
    ExitCode::from(EXIT_USAGE)
}
