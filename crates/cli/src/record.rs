//! The CLI's side of a run's history record: which record the options ask for
//! (`--no-history`, `--env`, `--data-dir`, the profile) and the lines it prints about
//! it. The record itself is kept by the shared run (`dbdyno_session::run`); a history
//! that cannot be written never stops a benchmark: the user is told, and the run goes on.

use dbdyno_engine::wording::count;
use dbdyno_engine::Plan;
use dbdyno_session::{
    HistoryFaults, HistoryNote, HistoryTarget, OnHistoryError, Recorded, Spilled,
};

use crate::args_history::HistoryOpts;
use crate::monitoring::{say, Out};
use crate::overlay::Applied;

/// Where this run is recorded, unless `--no-history`: under `--env`, else the
/// profile's name, else the server's host:port. `command` ("ladder") stands for the
/// command line when the process has no arguments.
pub fn target(
    opts: &HistoryOpts,
    applied: &Applied,
    plan: &Plan,
    command: &str,
) -> Option<HistoryTarget> {
    if opts.no_history {
        return None;
    }
    // The command line as typed (secrets redacted), so that a report can show how the
    // run was made.
    let line = dbdyno_history::command_line::current();
    let line = if line == "dbdyno" {
        command.to_string()
    } else {
        line
    };
    let mut target = HistoryTarget::of_profile(
        &applied.profile,
        applied.from_file,
        plan,
        line,
        opts.data_dir.clone(),
    );
    // The server was never reached: a failed run with no step would only clutter the
    // history, once per attempt. The error is on the terminal.
    target.forget_unreached = true;
    Some(target)
}

/// Where the results go when the history cannot take them (`--spill-dir`), and whether
/// the run then goes on (`--on-history-error`).
pub fn faults(opts: &HistoryOpts) -> HistoryFaults {
    HistoryFaults {
        spill_dir: opts.spill_dir.clone(),
        on_error: match opts.on_history_error.as_deref() {
            Some("stop") => OnHistoryError::Stop,
            _ => OnHistoryError::Continue,
        },
    }
}

/// The run id as the run starts, or why the history says something.
pub fn print_note(out: Out, note: &HistoryNote) {
    match note {
        HistoryNote::Recording { run_id } => say(
            out,
            &format!("Run id: {run_id} (history: dbdyno runs show {run_id})"),
        ),
        HistoryNote::NotRecorded(e) => {
            eprintln!("WARNING: this run is not recorded in the history: {e}")
        }
        HistoryNote::NotStored(why) => eprintln!("WARNING: {why}"),
    }
}

/// How the recording went, after the run; then, for a run the history did not fully
/// take, the one line saying where its results are and how to bring them in.
pub fn print_end(out: Out, recorded: Option<&Recorded>, spilled: Option<&Spilled>) {
    print_recorded(out, recorded, spilled.is_some());
    if let Some(s) = spilled {
        eprintln!("{}", s.not_in_history_line(recorded));
    }
}

fn print_recorded(out: Out, recorded: Option<&Recorded>, spilled: bool) {
    match recorded {
        None => {}
        Some(Recorded::Forgotten { run_id }) => say(
            out,
            &format!(
                "Run id: {run_id}: not kept in the history (the connection failed, nothing ran)"
            ),
        ),
        Some(Recorded::NotForgotten { run_id, why }) => say(
            out,
            &format!("Run id: {run_id}: recorded as failed (could not remove it: {why})"),
        ),
        Some(Recorded::Stored { report, state }) => {
            say(
                out,
                &format!(
                    "Run id: {}: {} recorded, state {state}",
                    report.run_id,
                    count(report.steps_written, "step")
                ),
            );
            // A run that went to the spill file has its reason in the last line; the
            // writes dropped after the first failure would only repeat it.
            let errors = if spilled {
                &report.errors[..report.errors.len().min(1)]
            } else {
                &report.errors[..]
            };
            for e in errors {
                eprintln!("WARNING: history: {e}");
            }
        }
    }
}
/// The history at `--data-dir` (or the default data directory), opened for a command.
pub fn open_history(
    data_dir: Option<&std::path::Path>,
) -> anyhow::Result<dbdyno_history::BlockingHistory> {
    let dir = dbdyno_history::paths::resolve_data_dir(data_dir)?;
    Ok(dbdyno_history::BlockingHistory::open(&dir)?)
}
