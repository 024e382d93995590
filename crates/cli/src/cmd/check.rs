//! `dbdyno check`: runs the prerequisite suite for a plan and prints a table (or JSON);
//! `--fix` applies the fixes the app can apply, then checks again. Exits 1 when any
//! check fails.

use std::process::ExitCode;

use anyhow::Result;
use dbdyno_checks::{apply_action, run_suite, Check, CheckAction, SuiteOptions, SuiteReport};
use dbdyno_engine::{ConnectOptions, Plan};
use dbdyno_monitor::HostAccess;

use crate::access;
use crate::args::CheckArgs;
use crate::exit::{usage_error, EXIT_FAILED};
use crate::overlay::{self, Applied};

pub fn run(a: &CheckArgs, m: &clap::ArgMatches) -> ExitCode {
    let cmd = overlay::tool_subcommand("check");
    let applied = match overlay::apply(&cmd, m, &a.history, Some(&a.conn), &[]) {
        Ok(x) => x,
        Err(e) => return usage_error(e),
    };
    for n in &applied.notices {
        eprintln!("NOTE: {n}");
    }
    let (plan, opts) = match prepare(a, &applied) {
        Ok(x) => x,
        Err(e) => return usage_error(e),
    };
    let client_rows = match client_rows(a, &applied, &plan) {
        Ok(rows) => rows,
        Err(e) => return usage_error(e),
    };
    let mut report = run_suite(&opts);
    let mut applied_fixes = Vec::new();
    if a.fix {
        let actions: Vec<CheckAction> = report.actions().cloned().collect();
        if actions.is_empty() {
            eprintln!("--fix: nothing the app can fix by itself");
        } else {
            let admin = match admin_connect(a, &plan.connect) {
                Ok(c) => c,
                Err(e) => return usage_error(e),
            };
            for action in &actions {
                match apply_action(action, &admin) {
                    Ok(o) => {
                        eprintln!("Applied as {}: {}", admin.user, o.applied_sql);
                        if let Some(note) = &o.note {
                            eprintln!("  NOTE: {note}");
                        }
                        applied_fixes
                            .push(serde_json::json!({ "sql": o.applied_sql, "note": o.note }));
                    }
                    Err(e) => {
                        eprintln!("Could not apply `{}`: {e}", action.sql());
                        applied_fixes.push(
                            serde_json::json!({ "sql": action.sql(), "error": e.to_string() }),
                        );
                    }
                }
            }
            eprintln!("Checking again after the fixes...");
            report = run_suite(&opts);
        }
    }
    report.checks.extend(client_rows);
    // The history's directory on this machine: writable, with room for the plan.
    if !a.history.no_history {
        report.checks.extend(dbdyno_session::history_dir_row(
            a.history.data_dir.as_deref(),
            a.history.spill_dir.as_deref(),
            &plan,
        ));
    }
    if a.json {
        let mut doc = serde_json::to_value(&report).unwrap_or_default();
        doc["fixes_applied"] = serde_json::Value::Array(applied_fixes);
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        print_report(&report, &plan, &opts.host);
    }
    if report.failed() {
        ExitCode::from(EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    }
}

/// The plan the checks judge: the profile's with the command line's options, as
/// `ladder` would run it.
fn prepare(a: &CheckArgs, applied: &Applied) -> Result<(Plan, SuiteOptions)> {
    let mut plan = applied.ladder_plan()?;
    access::fill_mysql_password(&mut plan, &a.conn, applied)?;
    let target = if a.no_monitor {
        None
    } else {
        access::ssh_target(applied, &a.ssh, a.history.data_dir.as_deref())?
    };
    let host = HostAccess::decide(&plan.connect, target, a.no_monitor);
    let opts = SuiteOptions {
        plan: plan.clone(),
        host,
        devices: access::devices(applied, &a.ssh),
    };
    Ok((plan, opts))
}

/// The load clients' rows (`--clients`, else the profile's; none for this machine
/// alone): each client started and checked as a run checks it, then stopped.
fn client_rows(a: &CheckArgs, applied: &Applied, plan: &Plan) -> Result<Vec<Check>> {
    let data_dir = a.history.data_dir.as_deref();
    let clients = crate::clients::plan(a.clients.as_deref(), applied, &a.ssh, data_dir)?;
    Ok(match clients.map(|c| c.connect(plan)) {
        None => Vec::new(),
        Some(Ok(coordinator)) => coordinator.check_rows(),
        Some(Err(e)) => e.checks,
    })
}

/// The account `--fix` uses: `--admin-user` with its password, or the benchmark's own.
fn admin_connect(a: &CheckArgs, c: &ConnectOptions) -> Result<ConnectOptions> {
    let Some(user) = &a.admin_user else {
        return Ok(c.clone());
    };
    let question = || format!("Password for {user}@{}: ", c.endpoint());
    let password =
        access::flag_secret(a.admin_password.as_deref(), "the admin password", question)?
            .or_else(|| std::env::var("DBDYNO_ADMIN_PWD").ok());
    Ok(ConnectOptions {
        user: user.clone(),
        password,
        ..c.clone()
    })
}

fn print_report(r: &SuiteReport, plan: &Plan, host: &HostAccess) {
    print!(
        "{}",
        dbdyno_checks::text::report_text(r, plan, &host.describe())
    );
}
