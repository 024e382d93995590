//! `dbdyno ladder`: scenarios × thread counts, recorded in the history.

use std::process::ExitCode;

use crate::args::LadderArgs;
use crate::cmd::execute::execute;
use crate::exit::{failed, usage_error};
use crate::monitoring::{self, Out};
use crate::plan_build;
use crate::print::Style;
use crate::profile_apply;
use crate::record::Recorder;
use crate::secrets;
use crate::ssh_target::SshSpec;

pub fn run(a: &LadderArgs) -> ExitCode {
    // With --profile the options are parsed again with the profile's filled in.
    let (reparsed, applied) = match &a.history.profile {
        Some(name) => match profile_apply::ladder(name) {
            Ok((args, applied)) => (Some(args), Some(applied)),
            Err(e) => return usage_error(e),
        },
        None => (None, None),
    };
    let a = reparsed.as_ref().unwrap_or(a);
    let profile = applied.as_ref().map(|x| &x.profile);
    for n in applied.iter().flat_map(|x| &x.notices) {
        eprintln!("NOTE: {n}");
    }
    let mut plan = match plan_build::ladder_plan(a) {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    let keyring_name = applied.as_ref().map(|x| x.keyring_name.as_str());
    if let Err(e) =
        secrets::fill_mysql_password(&mut plan, &a.conn, &a.history, profile, keyring_name)
    {
        return usage_error(e);
    }
    let print_intervals = plan
        .steps()
        .next()
        .is_some_and(|s| s.settings.report_interval_s > 0);
    let mut spec = SshSpec::from_history(&a.history);
    secrets::fill_ssh_secrets(&mut spec, profile, keyring_name);
    let access = match monitoring::access(&plan, &spec, &a.ssh, &a.monitoring, true) {
        Ok(x) => x,
        Err(e) => return failed(e),
    };
    // The checks run before anything is created or recorded: a failing one stops here.
    let preflight =
        match monitoring::preflight(&plan, &access, a.run.skip_checks, !a.history.no_history) {
            Ok(p) => p,
            Err(e) => return failed(e),
        };
    let monitoring = match monitoring::start(&plan, access, preflight.as_ref(), Out::Stdout) {
        Ok(m) => m,
        Err(e) => return failed(e),
    };
    let recorder = Recorder::start(
        &a.history,
        profile,
        &plan,
        "ladder",
        false,
        preflight.as_ref().map(|p| p.environment()),
    );
    let recorded = recorder.as_ref().map(Recorder::run_id);
    // --report reads the run back from the history when it was recorded, else from its
    // results file: --json's, or one in the directory (also written when recorded).
    let report_json = match (&a.report, a.run.json.as_deref()) {
        (Some(_), Some("-")) => {
            return usage_error(anyhow::anyhow!(
                "--report needs the results in a file: give --json=FILE or no --json"
            ))
        }
        (Some(dir), None) => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                return usage_error(anyhow::anyhow!("--report: creating {}: {e}", dir.display()));
            }
            Some(dir.join("results.json").to_string_lossy().into_owned())
        }
        _ => None,
    };
    let json = report_json.as_deref().or(a.run.json.as_deref());
    let code = execute(
        &plan,
        Style::Ladder,
        print_intervals,
        json,
        "ladder",
        recorder,
        monitoring,
    );
    let report_code = match (&a.report, json, recorded) {
        (Some(dir), _, Some(id)) => Some(crate::cmd::report::after_ladder_from_history(
            dir,
            id,
            a.history.data_dir.as_deref(),
        )),
        (Some(dir), Some(path), None) if std::path::Path::new(path).is_file() => Some(
            crate::cmd::report::after_ladder(dir, std::path::Path::new(path)),
        ),
        _ => None,
    };
    match report_code {
        Some(r) if code == ExitCode::SUCCESS => r,
        _ => code,
    }
}
