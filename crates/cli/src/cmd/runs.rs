//! `dbdyno runs list|show|delete|export`: the run history.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dbdyno_engine::stats::LatencyHistogram;
use dbdyno_engine::sysbench_text;
use dbdyno_history::{BlockingHistory, HistoryError, StoredRun};

use crate::args_history::{RunsArgs, RunsCommand};
use crate::exit::{EXIT_FAILED, EXIT_USAGE};

/// Version of the `runs export --json` document (docs/history.md).
pub const EXPORT_SCHEMA_VERSION: u32 = 1;

pub fn run(a: &RunsArgs) -> ExitCode {
    match run_inner(a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("FATAL: {e:#}");
            let no_such = e
                .downcast_ref::<HistoryError>()
                .is_some_and(|h| matches!(h, HistoryError::NoSuchRun(_)));
            ExitCode::from(if no_such { EXIT_USAGE } else { EXIT_FAILED })
        }
    }
}

pub fn open(data_dir: Option<&std::path::Path>) -> Result<BlockingHistory> {
    let dir = dbdyno_history::paths::resolve_data_dir(data_dir)?;
    Ok(BlockingHistory::open(&dir)?)
}

fn run_inner(a: &RunsArgs) -> Result<()> {
    let h = open(a.data_dir.as_deref())?;
    let mut out = std::io::stdout().lock();
    match &a.command {
        RunsCommand::List { env, json } => {
            let runs = h.list_runs(env.as_deref())?;
            if *json {
                writeln!(out, "{}", serde_json::to_string_pretty(&runs)?)?;
            } else if runs.is_empty() {
                writeln!(
                    out,
                    "No runs in the history ({}).",
                    h.history().path().display()
                )?;
            } else {
                writeln!(
                    out,
                    "{:>5}  {:<20} {:<12} {:<20} {:>5} {:>12}  command / scenarios",
                    "id", "env", "state", "started (UTC)", "steps", "max tps"
                )?;
                for r in runs {
                    writeln!(
                        out,
                        "{:>5}  {:<20} {:<12} {:<20} {:>5} {:>12}  {} {}",
                        r.id,
                        r.env,
                        r.state.as_str(),
                        r.started_at.replace('T', " ").trim_end_matches('Z'),
                        r.steps,
                        r.max_tps.map_or("-".into(), |t| format!("{t:.2}")),
                        r.command,
                        r.scenarios.join(",")
                    )?;
                }
            }
        }
        RunsCommand::Show { id, json } => {
            let run = h.load_run(*id)?;
            if *json {
                writeln!(out, "{}", serde_json::to_string_pretty(&run)?)?;
            } else {
                write!(out, "{}", show_text(&run))?;
            }
        }
        RunsCommand::Delete { id } => {
            h.delete_run(*id)?;
            writeln!(out, "Deleted run {id}.")?;
        }
        RunsCommand::Export { id, output, .. } => {
            let run = h.load_run(*id)?;
            let doc = serde_json::json!({
                "schema_version": EXPORT_SCHEMA_VERSION,
                "tool": "dbdyno",
                "tool_version": env!("CARGO_PKG_VERSION"),
                "run": run,
            });
            let text = serde_json::to_string_pretty(&doc)? + "\n";
            match output {
                Some(path) => std::fs::write(path, text)
                    .with_context(|| format!("writing {}", path.display()))?,
                None => out.write_all(text.as_bytes())?,
            }
        }
    }
    Ok(())
}

/// A run as text: its header, then each step in sysbench's summary layout with our
/// extra figures (every figure stored), then warnings.
fn show_text(run: &StoredRun) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "Run {} — env {} — {}\n",
        run.id, run.env, run.state
    ));
    s.push_str(&format!(
        "  command:  {} ({})\n",
        run.command,
        run.source.as_str()
    ));
    s.push_str(&format!("  started:  {}\n", run.started_at));
    if let Some(end) = run.ended_at_ms {
        s.push_str(&format!(
            "  ended:    {}\n",
            dbdyno_history::time::rfc3339(end)
        ));
    }
    if !run.labels.is_empty() {
        s.push_str(&format!("  labels:   {}\n", run.labels.join(", ")));
    }
    if let Some(f) = &run.failure {
        s.push_str(&format!("  failure:  {f}\n"));
    }
    s.push_str(&format!("  steps:    {}\n", run.steps.len()));
    for step in &run.steps {
        let r = &step.result;
        s.push_str(&format!(
            "\n=== step {}: {} @ {} threads{} ===\n",
            step.index + 1,
            r.scenario,
            r.threads,
            if r.cancelled { " (cancelled)" } else { "" }
        ));
        for i in &r.intervals {
            s.push_str(&sysbench_text::format_interval(i));
            s.push('\n');
        }
        if !r.has_totals() {
            // A log cut off before sysbench's summary: printing one would show zeros.
            s.push_str("(no summary in the source: totals, rates and latency are unknown)\n");
            continue;
        }
        // Imports without a --histogram block have none to print.
        let hist = if r.histogram.is_empty() {
            None
        } else {
            LatencyHistogram::from_base64(&r.histogram).ok()
        };
        s.push_str(&sysbench_text::format_summary(r, hist.as_ref()));
    }
    if !run.warnings.is_empty() {
        s.push_str("\nWarnings:\n");
        for w in &run.warnings {
            s.push_str(&format!("  {}\n", w.text));
        }
    }
    s
}
