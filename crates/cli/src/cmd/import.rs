//! `dbdyno import config|sysbench`: the seed toolkit's config becomes a profile;
//! sysbench text output becomes runs in the history, figures exactly as printed.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use dbdyno_engine::sysbench_text::{parse_sysbench_output, ParsedRun};
use dbdyno_engine::{Scenario, StepResult};
use dbdyno_history::{ImportedFile, NewRun, RunSource, RunState};
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
            started_at,
            force,
        } => sysbench(
            files,
            &SysbenchOpts {
                env,
                scenario: scenario.as_deref(),
                labels,
                data_dir: data_dir.as_deref(),
                json: *json,
                started_at: started_at.as_deref(),
                force: *force,
            },
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

/// Where a step's scenario came from (stored with the run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScenarioFrom {
    Option,
    FileName,
    QueryMix,
}

impl ScenarioFrom {
    fn as_str(self) -> &'static str {
        match self {
            ScenarioFrom::Option => "--scenario",
            ScenarioFrom::FileName => "the file name",
            ScenarioFrom::QueryMix => "guessed from the read/write/other mix",
        }
    }
}

/// The scenario of a log: `--scenario`, else a scenario name in the file name (the seed
/// toolkit names logs `oltp_point_select_64.log`), else the statement mix where only
/// one standard script produces it. A reads-only mix does not tell: oltp_point_select,
/// select_random_points and select_random_ranges all print it, and so does
/// oltp_read_only with --skip-trx. Filing such a log under a guess would put it beside
/// the wrong runs, so `--scenario` is required then.
fn scenario_of(
    run: &ParsedRun,
    file: &str,
    given: Option<Scenario>,
) -> Result<(Scenario, ScenarioFrom)> {
    if let Some(s) = given {
        return Ok((s, ScenarioFrom::Option));
    }
    // Longest name first: a file named for oltp_update_non_index also contains "oltp_update".
    let mut all = Scenario::ALL.to_vec();
    all.sort_by_key(|s| std::cmp::Reverse(s.name().len()));
    if let Some(s) = all.into_iter().find(|s| file.contains(s.name())) {
        return Ok((s, ScenarioFrom::FileName));
    }
    let q = run.queries;
    let guess = match (q.read > 0, q.write > 0, q.other > 0) {
        (true, false, true) => Some(Scenario::OltpReadOnly),
        (true, true, _) => Some(Scenario::OltpReadWrite),
        (false, true, true) => Some(Scenario::OltpWriteOnly),
        _ => None,
    };
    if let Some(s) = guess {
        return Ok((s, ScenarioFrom::QueryMix));
    }
    let why = match (q.read > 0, q.write > 0, q.other > 0) {
        (true, false, false) => "reads only, which oltp_point_select, select_random_points, select_random_ranges and oltp_read_only --skip-trx all print",
        (false, true, false) => "writes only, which oltp_insert, oltp_delete, oltp_update_index and oltp_update_non_index all print",
        _ => "no read/write/other counts are printed",
    };
    bail!(
        "{file} (line {}): cannot tell the scenario: the file name names none and the statement mix is {why}; give --scenario=NAME",
        run.first_line
    )
}

struct SysbenchOpts<'a> {
    env: &'a str,
    scenario: Option<&'a str>,
    labels: &'a [String],
    data_dir: Option<&'a Path>,
    json: bool,
    started_at: Option<&'a str>,
    force: bool,
}

/// SHA-256 of a file's bytes, hex: how a second import of the same log is recognised
/// whatever its name or modification time.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Gives the steps of one imported file wall-clock times: the first run starts at
/// `start_ms`, each run follows the previous one, and each interval ends at its step's
/// start plus its elapsed time. Logs carry no clock, so this is the best consistent
/// placement (gaps between runs of a shell loop are unknown and left out).
fn place_in_time(steps: &mut [StepResult], start_ms: i64) -> i64 {
    let mut at = start_ms;
    for s in steps.iter_mut() {
        let measured_s = if s.total_time_s > 0.0 {
            s.total_time_s
        } else {
            // No summary: the interval lines are all there is.
            s.intervals.last().map_or(0.0, |i| i.elapsed_s)
        };
        s.started_unix_ms = at;
        s.ended_unix_ms = at + (measured_s * 1000.0).round() as i64;
        for i in &mut s.intervals {
            i.end_unix_ms = at + (i.elapsed_s * 1000.0).round() as i64;
        }
        at = s.ended_unix_ms;
    }
    at
}

fn sysbench(files: &[std::path::PathBuf], o: &SysbenchOpts) -> Result<()> {
    let env = o.env;
    dbdyno_profile::validate::check_name(env).map_err(|e| anyhow!("--env={env}: {e}"))?;
    let given = o
        .scenario
        .map(|s| s.parse::<Scenario>())
        .transpose()
        .map_err(|e| anyhow!("--scenario: {e}"))?;
    let given_start = o
        .started_at
        .map(dbdyno_history::time::parse_datetime)
        .transpose()
        .map_err(|e| anyhow!("--started-at: {e}"))?;
    if given_start.is_some() && files.len() > 1 {
        bail!("--started-at names the start of one file's run; import the files one at a time");
    }
    let h = super::runs::open(o.data_dir)?;
    // Read everything first: nothing is imported when any file is bad.
    let mut prepared = Vec::new();
    let mut notes = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|_| anyhow!("{}: not a text file (invalid UTF-8)", path.display()))?;
        let name = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let sha256 = sha256_hex(&bytes);
        if !o.force {
            if let Some((_, first)) = seen.iter().find(|(h, _)| *h == sha256) {
                bail!(
                    "{}: same content as {first} given before it; give each file once (or --force)",
                    path.display()
                );
            }
            let before = h.find_imports(&sha256)?;
            if let Some((id, was)) = before.first() {
                bail!(
                    "{}: already imported as run {id} (from {was}, same content); `dbdyno runs delete {id}` first, or give --force to import it again",
                    path.display()
                );
            }
        }
        seen.push((sha256.clone(), name.clone()));
        let parsed =
            parse_sysbench_output(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        let mut steps: Vec<StepResult> = Vec::new();
        let mut how = Vec::new();
        for r in &parsed {
            let (sc, from) = scenario_of(r, &name, given)?;
            if from == ScenarioFrom::QueryMix {
                notes.push(format!(
                    "{name} (line {}): scenario guessed as {sc} from the query mix; pass --scenario to name it",
                    r.first_line
                ));
            }
            how.push(from.as_str());
            steps.push(r.to_step_result(sc));
        }
        let complete = parsed.iter().all(|r| r.complete);
        let mtime_ms = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        let total_ms: f64 = steps
            .iter()
            .map(|s| {
                if s.total_time_s > 0.0 {
                    s.total_time_s
                } else {
                    s.intervals.last().map_or(0.0, |i| i.elapsed_s)
                }
            })
            .sum::<f64>()
            * 1000.0;
        let (started, started_from) = match (given_start, mtime_ms) {
            (Some(t), _) => (t, "--started-at"),
            (None, Some(m)) => {
                notes.push(format!(
                    "{name}: start time taken from the file's modification time minus the run time ({}); pass --started-at if the file was copied or edited since",
                    dbdyno_history::time::rfc3339(m - total_ms as i64)
                ));
                (
                    m - total_ms as i64,
                    "the file's modification time minus the run time",
                )
            }
            (None, None) => bail!(
                "{}: the file has no modification time to date the run by; give --started-at",
                path.display()
            ),
        };
        let ended = place_in_time(&mut steps, started);
        let first = &parsed[0];
        let environment = serde_json::json!({
            "import": {
                "file": name,
                "sha256": sha256,
                "sysbench_version": first.sysbench_version,
                "version_line": first.version_line,
                "scenario_from": how,
                "started_at_from": started_from,
                "runs_in_file": parsed.len(),
            }
        });
        let mut new = NewRun::new(env, format!("import sysbench {name}"));
        new.source = RunSource::Import;
        new.labels = o.labels.to_vec();
        new.environment = Some(environment);
        new.started_at_ms = Some(started);
        new.import_file = Some(ImportedFile {
            sha256,
            name: name.clone(),
        });
        // A log cut off before its summary is a run that did not finish.
        let state = if complete {
            RunState::Complete
        } else {
            RunState::Interrupted
        };
        prepared.push((name, new, steps, state, ended));
    }
    for n in &notes {
        eprintln!("NOTE: {n}");
    }
    let mut imported = Vec::new();
    for (name, new, steps, state, ended) in prepared {
        let id = h.insert_finished_run(&new, &steps, state, Some(ended))?;
        if !o.json {
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
    if o.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&imported.into_iter().flatten().collect::<Vec<_>>())?
        );
    }
    Ok(())
}
