//! `dbdyno check`: runs the prerequisite suite for a plan and prints a table (or JSON);
//! `--fix` applies the fixes the app can apply, then checks again. Exits 1 when any
//! check fails.

use std::process::ExitCode;

use anyhow::{Context, Result};
use dbdyno_checks::{
    apply_action, run_suite, CheckAction, CheckStatus, HostAccess, SuiteOptions, SuiteReport,
};
use dbdyno_engine::{ConnectOptions, LadderSpec, Plan};

use crate::args::CheckArgs;
use crate::exit::{usage_error, EXIT_FAILED};
use crate::plan_build;
use crate::ssh_target::{self, SshSpec};

const PROMPT: &str = "\u{0}prompt";

pub fn run(a: &CheckArgs) -> ExitCode {
    // With --profile the options are parsed again with the profile's filled in.
    let (reparsed, applied) = match &a.history.profile {
        Some(name) => match crate::profile_apply::check(name) {
            Ok((args, applied)) => (Some(args), Some(applied)),
            Err(e) => return usage_error(e),
        },
        None => (None, None),
    };
    let a = reparsed.as_ref().unwrap_or(a);
    for n in applied.iter().flat_map(|x| &x.notices) {
        eprintln!("NOTE: {n}");
    }
    let (plan, opts) = match prepare(a, applied.as_ref()) {
        Ok(x) => x,
        Err(e) => return usage_error(e),
    };
    let mut report = run_suite(&opts);
    let mut applied = Vec::new();
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
                        applied.push(serde_json::json!({ "sql": o.applied_sql, "note": o.note }));
                    }
                    Err(e) => {
                        eprintln!("Could not apply `{}`: {e}", action.sql());
                        applied.push(
                            serde_json::json!({ "sql": action.sql(), "error": e.to_string() }),
                        );
                    }
                }
            }
            eprintln!("Checking again after the fixes...");
            report = run_suite(&opts);
        }
    }
    if a.json {
        let mut doc = serde_json::to_value(&report).unwrap_or_default();
        doc["fixes_applied"] = serde_json::Value::Array(applied);
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

fn prepare(
    a: &CheckArgs,
    applied: Option<&crate::profile_apply::Applied>,
) -> Result<(Plan, SuiteOptions)> {
    let (scenarios, threads) = a.shape.parse()?;
    let spec = LadderSpec {
        scenarios,
        threads,
        prepare: a.prepare,
        cleanup: a.cleanup,
        ..Default::default()
    };
    let mut plan = Plan {
        connect: plan_build::connect_options(&a.conn)?,
        workload: plan_build::workload_options(&a.workload_opts, &a.conn)?,
        phases: spec.phases(),
        force: a.force,
    };
    plan.validate()?;
    let profile = applied.map(|x| &x.profile);
    let keyring_name = applied.map(|x| x.keyring_name.as_str());
    crate::secrets::fill_mysql_password(&mut plan, &a.conn, &a.history, profile, keyring_name)?;
    let mut spec = SshSpec::from_history(&a.history);
    crate::secrets::fill_ssh_secrets(&mut spec, profile, keyring_name);
    let target = if a.no_monitor {
        None
    } else {
        ssh_target::build_target(&spec, &a.ssh)?
    };
    let host = HostAccess::decide(&plan.connect, target, a.no_monitor);
    let opts = SuiteOptions {
        plan: plan.clone(),
        host,
        devices: spec.devices(&a.ssh),
    };
    Ok((plan, opts))
}

/// The account `--fix` uses: `--admin-user` with its password, or the benchmark's own.
fn admin_connect(a: &CheckArgs, c: &ConnectOptions) -> Result<ConnectOptions> {
    let Some(user) = &a.admin_user else {
        return Ok(c.clone());
    };
    let password = match a.admin_password.as_deref() {
        Some(PROMPT) => Some(
            rpassword::prompt_password(format!("Password for {user}@{}: ", c.endpoint()))
                .context("reading the admin password from the terminal")?,
        ),
        Some(p) => Some(p.to_string()),
        None => std::env::var("DBDYNO_ADMIN_PWD").ok(),
    };
    Ok(ConnectOptions {
        user: user.clone(),
        password,
        ..c.clone()
    })
}

fn print_report(r: &SuiteReport, plan: &Plan, host: &HostAccess) {
    let threads: Vec<String> = {
        let mut t: Vec<u32> = plan.steps().map(|s| s.threads).collect();
        t.sort_unstable();
        t.dedup();
        t.iter().map(|t| t.to_string()).collect()
    };
    let mut scenarios: Vec<String> = plan.steps().map(|s| s.scenario.to_string()).collect();
    scenarios.dedup();
    println!(
        "DB Dyno checks for {} (schema {}): {} at {} threads, {} table(s) × {} rows; server OS: {}\n",
        plan.connect.endpoint(),
        plan.connect.database,
        scenarios.join(", "),
        threads.join(","),
        plan.workload.tables,
        plan.workload.table_size,
        host.describe()
    );
    for c in &r.checks {
        println!("{:<5} {}  [{}]", c.status.to_string(), c.title, c.id);
        println!("      {}", c.seen);
        if matches!(c.status, CheckStatus::Warn | CheckStatus::Fail) {
            println!("      why:  {}", c.why);
            if let Some(f) = &c.fix {
                println!("      fix:  {}", f.text);
                if let Some(cmd) = &f.sql_or_command {
                    println!("            {cmd}");
                }
            }
            if let Some(a) = &c.action {
                println!("      app:  `dbdyno check --fix` runs `{}`", a.sql());
            }
        }
    }
    let count = |s: CheckStatus| r.checks.iter().filter(|c| c.status == s).count();
    println!(
        "\n{} passed, {} warning(s), {} failed, {} skipped",
        count(CheckStatus::Pass),
        count(CheckStatus::Warn),
        count(CheckStatus::Fail),
        count(CheckStatus::Skipped)
    );
}
