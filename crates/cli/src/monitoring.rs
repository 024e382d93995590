//! The CLI's voice for a run's checks and monitoring: the checks that warn or fail, why
//! a run did not start, the environment, what the samplers say, each step's server
//! figures right after the step, and the closing table. They are printed from the
//! events of the shared run (`dbdyno_session::run`, the same one the desktop app
//! drives).
//!
//! Only problems found before the first step (a failed check, an unknown host key,
//! wrong credentials) stop the command, since the user asked for figures that would
//! otherwise be missing.
//!
//! Non-goals: no sampling, alignment or storage (dbdyno_session, dbdyno_monitor and the
//! history do those): this module is the CLI's voice.

use std::time::Duration;

use dbdyno_checks::Check;
use dbdyno_monitor::StepServerFigures;
use dbdyno_session::describe::{self, Line};
use dbdyno_session::run_monitor::StartError;
use dbdyno_session::{MonitoringReport, NotStarted, RunMonitor, Update};

/// Where monitoring lines go: stdout for the ladder, stderr for the sysbench form
/// (whose stdout stays exactly sysbench's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    Stdout,
    Stderr,
}

/// Longest wait after a step for the samples that end inside it.
pub const SETTLE: Duration = Duration::from_millis(2500);

pub fn say(out: Out, line: &str) {
    match out {
        Out::Stdout => println!("{line}"),
        Out::Stderr => eprintln!("{line}"),
    }
}

/// Each check that warns or fails, and the fix of a failed one (stderr, so the sysbench
/// form's stdout stays sysbench's).
pub fn print_problems(problems: &[Check]) {
    for line in dbdyno_checks::text::problem_lines(problems) {
        eprintln!("{line}");
    }
}

/// Why the run did not start, with what the user can do about it.
pub fn not_started(e: NotStarted) -> anyhow::Error {
    match e {
        // --skip-checks does not get past a hardware test on the host: only its end does.
        NotStarted::Refused { problems }
            if problems
                .iter()
                .any(|c| c.id == dbdyno_session::run::HARDWARE_TEST_RUNNING) =>
        {
            let why = problems
                .iter()
                .find(|c| c.id == dbdyno_session::run::HARDWARE_TEST_RUNNING)
                .map(|c| c.seen.clone())
                .unwrap_or_default();
            anyhow::anyhow!("{why}; nothing was run. Run again when the hardware test has ended")
        }
        // --skip-checks does not get past a load client that cannot take its share.
        NotStarted::Refused { problems } if problems.iter().any(failed_client) => anyhow::anyhow!(
            "a load client failed its checks, nothing was run: {}. Fix it as its row above \
             says, or leave it out of --clients",
            problems
                .iter()
                .filter(|c| failed_client(c))
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        // Nor does it get past a history that cannot take the results: its fix does.
        NotStarted::Refused { problems } if problems.iter().any(failed_history_dir) => {
            anyhow::anyhow!(
                "the history cannot take this run's results, nothing was run. Fix it as its \
                 row above says, give --spill-dir=DIR to keep the results in a file, or \
                 --no-history"
            )
        }
        e @ NotStarted::Refused { .. } => anyhow::anyhow!(
            "{e}. Fix them (`dbdyno check` with the same options explains, `--fix` applies \
             what it can), or add --skip-checks to run anyway"
        ),
        NotStarted::Monitor { source, .. } => match *source {
            e @ StartError::Ssh(_) => anyhow::anyhow!(
                "{e}. Fix it, or add --no-monitor to run with MySQL-side metrics only"
            ),
            e => e.into(),
        },
        e @ NotStarted::Metrics(_) => anyhow::anyhow!(
            "{e}; nothing was run. Choose another port, or leave --metrics-addr out"
        ),
    }
}

/// The history directory's row, failed (`history.directory`).
fn failed_history_dir(c: &Check) -> bool {
    c.status == dbdyno_checks::CheckStatus::Fail
        && c.id == dbdyno_checks::checks::history_dir::CHECK_ID
}

/// A load client's check that failed (`clients.<check>:<client>`).
fn failed_client(c: &Check) -> bool {
    c.status == dbdyno_checks::CheckStatus::Fail && c.id.starts_with("clients.")
}

/// What the run is measured on, before its first step.
pub fn print_environment(out: Out, m: &RunMonitor) {
    for line in m.environment_lines("--device") {
        match line {
            Line::Fact(text) | Line::Missing(text) => say(out, &text),
            Line::Warning(text) => say(out, &format!("WARNING: {text}")),
        }
    }
}

/// Samples feed the step figures and the record: only the notes are printed.
pub fn print_update(out: Out, u: &Update) {
    if let Update::Note { warning, text } = u {
        if *warning {
            say(out, &format!("WARNING: {text}"));
        } else {
            say(out, text);
        }
    }
}

/// A finished step's server figures, once its samples are in.
pub fn print_step(out: Out, f: &StepServerFigures, os_down: Option<(i64, &str)>) {
    for line in describe::step_lines(f, os_down) {
        say(out, &line);
    }
}

/// The per-step table and the sample-count verdict, after the run.
pub fn print_table(out: Out, report: &MonitoringReport) {
    for line in describe::step_table(report) {
        say(out, &line);
    }
}
