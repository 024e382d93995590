//! `dbdyno ladder`: scenarios × thread counts, recorded in the history.

use std::process::ExitCode;

use crate::access;
use crate::args::LadderArgs;
use crate::cmd::execute;
use crate::exit::{failed, usage_error};
use crate::monitoring::Out;
use crate::overlay;
use crate::print::Style;
use crate::record;

pub fn run(a: &LadderArgs, m: &clap::ArgMatches) -> ExitCode {
    let applied = match overlay::apply(
        &overlay::tool_subcommand("ladder"),
        m,
        &a.history,
        Some(&a.conn),
        &[],
    ) {
        Ok(x) => x,
        Err(e) => return usage_error(e),
    };
    for n in &applied.notices {
        eprintln!("NOTE: {n}");
    }
    let mut plan = match applied.ladder_plan() {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    if let Err(e) = access::fill_mysql_password(&mut plan, &a.conn, &applied) {
        return usage_error(e);
    }
    let print_intervals = plan
        .steps()
        .next()
        .is_some_and(|s| s.settings.report_interval_s > 0);
    let report_json = match report_results(a) {
        Ok(file) => file,
        Err(code) => return code,
    };
    let json = report_json.as_deref().or(a.run.json.as_deref());
    let history = record::target(&a.history, &applied, &plan, "ladder");
    let reach = access::access(
        plan,
        &applied,
        &a.ssh,
        &a.monitoring,
        true,
        a.history.data_dir.as_deref(),
    );
    let clients = crate::clients::plan(
        a.run.clients.as_deref(),
        &applied,
        &a.ssh,
        a.history.data_dir.as_deref(),
    );
    let request = match (reach, clients) {
        (Ok(r), Ok(clients)) => dbdyno_session::RunRequest {
            clients,
            history_faults: record::faults(&a.history),
            ..execute::request(r, a.run.skip_checks, history, json)
        },
        (Err(e), _) | (_, Err(e)) => return failed(e),
    };
    // The checks run before anything is created or recorded: a failing one stops here.
    let run = match execute::start(request, Out::Stdout) {
        Ok(run) => run,
        Err(code) => return code,
    };
    if let (Some(dir), Some(_)) = (&a.report, &report_json) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return usage_error(anyhow::anyhow!("--report: creating {}: {e}", dir.display()));
        }
    }
    let recorded = run.run_id();
    let output = execute::Output {
        style: Style::Ladder,
        print_intervals,
        json,
        command: "ladder",
        out: Out::Stdout,
    };
    let code = execute::execute(run, &output);
    match report(a, json, recorded) {
        Some(r) if code == ExitCode::SUCCESS => r,
        _ => code,
    }
}

/// The results file `--report DIR` adds when `--json` names none: the report reads the
/// run back from the history when it was recorded, else from its results file.
fn report_results(a: &LadderArgs) -> Result<Option<String>, ExitCode> {
    match (&a.report, a.run.json.as_deref()) {
        (Some(_), Some("-")) => Err(usage_error(anyhow::anyhow!(
            "--report needs the results in a file: give --json=FILE or no --json"
        ))),
        (Some(dir), None) => Ok(Some(
            dir.join("results.json").to_string_lossy().into_owned(),
        )),
        _ => Ok(None),
    }
}

/// `--report DIR` after the run: from the history (`recorded`), else from `json`.
fn report(a: &LadderArgs, json: Option<&str>, recorded: Option<i64>) -> Option<ExitCode> {
    match (&a.report, json, recorded) {
        (Some(dir), _, Some(id)) => Some(crate::cmd::report::after_ladder_from_history(
            dir,
            id,
            a.history.data_dir.as_deref(),
        )),
        (Some(dir), Some(path), None) if std::path::Path::new(path).is_file() => Some(
            crate::cmd::report::after_ladder(dir, std::path::Path::new(path)),
        ),
        _ => None,
    }
}
