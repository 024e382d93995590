//! `dbdyno import config|sysbench`: the seed toolkit's config becomes a profile;
//! sysbench text output becomes runs in the history, figures exactly as printed.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use dbdyno_engine::sysbench_text::{parse_sysbench_output, ParsedRun};
use dbdyno_engine::{Scenario, StepResult};
use dbdyno_history::{NewRun, RunSource, RunState};
use dbdyno_profile::secrets::{SecretKind, SecretStore};
use dbdyno_profile::seed_config::import_seed_config;

use crate::args_history::{ImportArgs, ImportCommand};
use crate::exit::EXIT_USAGE;

pub fn run(a: &ImportArgs) -> ExitCode {
    let r = match &a.command {
        ImportCommand::Config {
            file,
            output,
            name,
            no_keyring,
            force,
        } => config(file, output, name.as_deref(), *no_keyring, *force),
        ImportCommand::Sysbench {
            files,
            env,
            scenario,
            labels,
            data_dir,
            json,
        } => sysbench(
            files,
            env,
            scenario.as_deref(),
            labels,
            data_dir.as_deref(),
            *json,
        ),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("FATAL: {e:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn config(
    file: &Path,
    output: &Path,
    name: Option<&str>,
    no_keyring: bool,
    force: bool,
) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    if output.exists() && !force {
        bail!("{} exists; give --force to replace it", output.display());
    }
    let name = match name {
        Some(n) => n.to_string(),
        None => output
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| {
                anyhow!(
                    "cannot name the profile after {}; give --name",
                    output.display()
                )
            })?
            .to_string(),
    };
    let file_name = file
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("config");
    let imp = import_seed_config(&text, file_name, &name)?;
    let header = format!(
        "# Imported by `dbdyno import config` from {file_name}.\n\
         # The MySQL password is not in this file: see `dbdyno profile secret --help`.\n"
    );
    let text = header + &dbdyno_profile::render::to_toml(&imp.profile, &imp.comments);
    // What is written must load back as a valid profile: check before writing.
    dbdyno_profile::load_str(&text, &output.display().to_string(), &name)?;
    std::fs::write(output, text).with_context(|| format!("writing {}", output.display()))?;
    for n in &imp.notices {
        eprintln!("NOTE: {n}");
    }
    println!("Wrote profile '{name}' to {}", output.display());
    match (&imp.password, no_keyring) {
        (None, _) => {}
        (Some(_), true) => eprintln!(
            "NOTE: MYSQL_PASSWORD was dropped (--no-keyring); give it with MYSQL_PWD or `dbdyno profile secret set {name} mysql`"
        ),
        (Some(p), false) => match SecretStore::new().set(&name, SecretKind::MysqlPassword, p) {
            Ok(()) => println!(
                "The MySQL password is in the OS keyring as {}/{} (not in the file).",
                dbdyno_profile::secrets::SERVICE,
                SecretStore::account(&name, SecretKind::MysqlPassword)
            ),
            Err(e) => eprintln!("NOTE: MYSQL_PASSWORD was dropped, the keyring did not take it: {e}"),
        },
    }
    Ok(())
}

/// The scenario of a log: `--scenario`, else a scenario name in the file name (the seed
/// toolkit names logs `oltp_point_select_64.log`), else the statement mix.
fn scenario_of(
    run: &ParsedRun,
    file: &str,
    given: Option<Scenario>,
) -> Result<(Scenario, &'static str)> {
    if let Some(s) = given {
        return Ok((s, "--scenario"));
    }
    // Longest name first: a file named for oltp_update_non_index also contains "oltp_update".
    let mut all = Scenario::ALL.to_vec();
    all.sort_by_key(|s| std::cmp::Reverse(s.name().len()));
    if let Some(s) = all.into_iter().find(|s| file.contains(s.name())) {
        return Ok((s, "the file name"));
    }
    let q = run.queries;
    let guess = match (q.read > 0, q.write > 0, q.other > 0) {
        (true, false, false) => Some(Scenario::OltpPointSelect),
        (true, false, true) => Some(Scenario::OltpReadOnly),
        (true, true, _) => Some(Scenario::OltpReadWrite),
        (false, true, true) => Some(Scenario::OltpWriteOnly),
        _ => None,
    };
    guess.map(|s| (s, "the read/write/other mix")).ok_or_else(|| {
        anyhow!("{file} (line {}): cannot tell the scenario from the file name or the statement mix; give --scenario", run.first_line)
    })
}

fn sysbench(
    files: &[std::path::PathBuf],
    env: &str,
    scenario: Option<&str>,
    labels: &[String],
    data_dir: Option<&Path>,
    json: bool,
) -> Result<()> {
    dbdyno_profile::validate::check_name(env).map_err(|e| anyhow!("--env={env}: {e}"))?;
    let given = scenario.map(|s| s.parse::<Scenario>()).transpose()?;
    // Read everything first: nothing is imported when any file is bad.
    let mut prepared = Vec::new();
    for path in files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let parsed =
            parse_sysbench_output(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let mut steps: Vec<StepResult> = Vec::new();
        let mut how = Vec::new();
        for r in &parsed {
            let (sc, why) = scenario_of(r, &name, given)?;
            how.push(why);
            steps.push(r.to_step_result(sc));
        }
        let complete = parsed.iter().all(|r| r.complete);
        let mtime_ms = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        let total_ms: f64 = steps.iter().map(|s| s.total_time_s * 1000.0).sum();
        let started = mtime_ms.map(|m| m - total_ms as i64);
        let first = &parsed[0];
        let environment = serde_json::json!({
            "import": {
                "file": name,
                "sysbench_version": first.sysbench_version,
                "version_line": first.version_line,
                "scenario_from": how.first(),
                "runs_in_file": parsed.len(),
            }
        });
        let mut new = NewRun::new(env, format!("import sysbench {name}"));
        new.source = RunSource::Import;
        new.labels = labels.to_vec();
        new.environment = Some(environment);
        new.started_at_ms = started;
        // A log cut off before its summary is a run that did not finish.
        let state = if complete {
            RunState::Complete
        } else {
            RunState::Interrupted
        };
        prepared.push((name, new, steps, state, mtime_ms));
    }
    let h = super::runs::open(data_dir)?;
    let mut imported = Vec::new();
    for (name, new, steps, state, ended) in prepared {
        let id = h.insert_finished_run(&new, &steps, state, ended)?;
        if !json {
            let what: Vec<String> = steps
                .iter()
                .map(|s| format!("{}@{}", s.scenario, s.threads))
                .collect();
            println!(
                "Imported {name}: run id {id}, {} step(s) [{}], {state}",
                steps.len(),
                what.join(", ")
            );
        }
        imported.push(h.list_runs(Some(env))?.into_iter().find(|r| r.id == id));
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&imported.into_iter().flatten().collect::<Vec<_>>())?
        );
    }
    Ok(())
}
