//! `dbdyno runs list|show|delete|export`: the run history.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use dbdyno_history::{show, HistoryError};

use crate::args_history::{RunsArgs, RunsCommand};
use crate::exit::{EXIT_FAILED, EXIT_USAGE};

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

fn run_inner(a: &RunsArgs) -> Result<()> {
    let h = crate::record::open_history(a.data_dir.as_deref())?;
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
                for line in show::list_lines(&runs) {
                    writeln!(out, "{line}")?;
                }
            }
        }
        RunsCommand::Show { id, json } => {
            let run = h.load_run(*id)?;
            if *json {
                writeln!(out, "{}", serde_json::to_string_pretty(&run)?)?;
            } else {
                write!(out, "{}", show::run_text(&run))?;
            }
        }
        RunsCommand::Hardware { env, json } => {
            crate::cmd::hardware_records::list(&h, env.as_deref(), *json, &mut out)?;
        }
        RunsCommand::Delete { id } => {
            h.delete_run(*id)?;
            writeln!(out, "Deleted run {id}.")?;
        }
        RunsCommand::Export { id, output, .. } => {
            let run = h.load_run(*id)?;
            let text = serde_json::to_string_pretty(&show::export_document(&run))? + "\n";
            match output {
                Some(path) => std::fs::write(path, text)
                    .with_context(|| format!("writing {}", path.display()))?,
                None => out.write_all(text.as_bytes())?,
            }
        }
    }
    Ok(())
}
