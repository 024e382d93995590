//! `dbdyno import config|sysbench|results`: the seed toolkit's config becomes a profile;
//! sysbench text output becomes runs in the history, figures exactly as printed; a
//! results document (a spill file, a `--json` file) becomes a run. The libraries do
//! all three (`dbdyno_profile::store`, `dbdyno_history::import_sysbench`,
//! `dbdyno_history::import_results`); this prints what they did and names the options
//! that fix what they refused.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use dbdyno_engine::wording::count;
use dbdyno_engine::Scenario;
use dbdyno_history::import_sysbench::{
    import_sysbench, Duplicates, Earlier, FileError, ImportError, ImportNote, SysbenchImport,
};
use dbdyno_profile::secrets::{SecretKind, SecretStore};
use dbdyno_profile::store::{import_seed_config_to, PasswordOutcome, StoreError};

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
        ImportCommand::Hardware {
            files,
            env,
            host,
            data_dir,
            json,
        } => crate::cmd::hardware_records::import(
            files,
            env,
            host.as_deref(),
            data_dir.as_deref(),
            *json,
        ),
        ImportCommand::Results {
            file,
            env,
            force,
            data_dir,
        } => results(file, env.as_deref(), *force, data_dir.as_deref()),
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
    let header = format!(
        "# Imported by `dbdyno import config` from {file_name}.\n\
         # The MySQL password is not in this file: see `dbdyno profile secret --help`.\n"
    );
    let secrets = SecretStore::new();
    let keyring = (!no_keyring).then_some(&secrets);
    let imp =
        import_seed_config_to(output, &text, file_name, &name, &header, keyring).map_err(|e| {
            match e {
                StoreError::Write { path, source } => {
                    anyhow!("writing {}: {source}", path.display())
                }
                e => e.into(),
            }
        })?;
    for n in &imp.notices {
        eprintln!("NOTE: {n}");
    }
    println!("Wrote profile '{name}' to {}", output.display());
    match imp.password {
        PasswordOutcome::NotInFile => {}
        PasswordOutcome::Dropped => eprintln!(
            "NOTE: MYSQL_PASSWORD was dropped (--no-keyring); give it with MYSQL_PWD or `dbdyno profile secret set {name} mysql`"
        ),
        PasswordOutcome::InKeyring => println!(
            "The MySQL password is in the OS keyring as {}/{} (not in the file).",
            dbdyno_profile::secrets::SERVICE,
            SecretStore::account(&name, SecretKind::MysqlPassword)
        ),
        PasswordOutcome::KeyringRefused(e) => {
            eprintln!("NOTE: MYSQL_PASSWORD was dropped, the keyring did not take it: {e}")
        }
    }
    Ok(())
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

fn sysbench(files: &[PathBuf], o: &SysbenchOpts) -> Result<()> {
    let scenario = o
        .scenario
        .map(|s| s.parse::<Scenario>())
        .transpose()
        .map_err(|e| anyhow!("--scenario: {e}"))?;
    let started_at_ms = o
        .started_at
        .map(dbdyno_history::time::parse_datetime)
        .transpose()
        .map_err(|e| anyhow!("--started-at: {e}"))?;
    let import = SysbenchImport {
        scenario,
        labels: o.labels.to_vec(),
        started_at_ms,
        duplicates: if o.force {
            Duplicates::ImportAgain
        } else {
            Duplicates::Refuse
        },
        ..SysbenchImport::new(o.env)
    };
    // Before the history is opened: a bad option creates no database.
    import.check(files.len()).map_err(said)?;
    let h = crate::record::open_history(o.data_dir)?;
    let report = import_sysbench(&h, files, &import).map_err(said)?;
    if let Some(e) = report.refused.first() {
        bail!("{}", refusal(e));
    }
    for n in &report.notes {
        eprintln!("NOTE: {}", note(n));
    }
    if o.json {
        let runs = h.list_runs(Some(o.env))?;
        let imported: Vec<_> = report
            .imported
            .iter()
            .filter_map(|i| runs.iter().find(|r| r.id == i.run_id))
            .collect();
        println!("{}", serde_json::to_string_pretty(&imported)?);
        return Ok(());
    }
    for r in &report.imported {
        let what: Vec<String> = r.steps.iter().map(|(s, t)| format!("{s}@{t}")).collect();
        println!(
            "Imported {}: run id {}, {} [{}], {}",
            r.file,
            r.run_id,
            count(r.steps.len() as u32, "step"),
            what.join(", "),
            r.state
        );
    }
    Ok(())
}

/// A results document (a spill file, a `--json` file) into the history as one run.
fn results(file: &Path, env: Option<&str>, force: bool, data_dir: Option<&Path>) -> Result<()> {
    use dbdyno_history::import_results::{import_results, ResultsImport};
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file.display().to_string();
    // Read before the history is opened: a file that is not a document creates nothing.
    dbdyno_history::import_results::ResultsFile::parse(&text, &name)?;
    let h = crate::record::open_history(data_dir)?;
    let opts = ResultsImport {
        env: env.map(str::to_string),
        force,
    };
    let r = import_results(&h, &text, &name, &opts)?;
    let replaced = match r.replaced {
        Some((id, steps)) => format!(
            "; it replaces run {id}, which held {} of it",
            count(steps, "step")
        ),
        None => String::new(),
    };
    println!(
        "Imported {name}: run id {}, {}, {}, environment {}{replaced}",
        r.run_id,
        count(r.steps as u32, "step"),
        r.state,
        r.env
    );
    Ok(())
}

/// An import's failure in the command line's terms.
fn said(e: ImportError) -> anyhow::Error {
    match e {
        ImportError::BadEnv { env, reason } => anyhow!("--env={env}: {reason}"),
        ImportError::StartOfManyFiles => anyhow!(
            "--started-at names the start of one file's run; import the files one at a time"
        ),
        ImportError::History(e) => e.into(),
    }
}

/// A refused file, with what to give the command to import it.
fn refusal(e: &FileError) -> String {
    match e {
        FileError::Duplicate(d) => match &d.of {
            Earlier::Run { id, .. } => {
                format!("{d}; `dbdyno runs delete {id}` first, or give --force to import it again")
            }
            Earlier::GivenBefore { .. } => format!("{d}; give each file once (or --force)"),
        },
        FileError::UnknownScenario { .. } => format!("{e}; give --scenario=NAME"),
        FileError::Undated { .. } => format!("{e}; give --started-at"),
        _ => e.to_string(),
    }
}

fn note(n: &ImportNote) -> String {
    match n {
        ImportNote::ScenarioGuessed { .. } => format!("{n}; pass --scenario to name it"),
        ImportNote::DatedByFileTime { .. } => {
            format!("{n}; pass --started-at if the file was copied or edited since")
        }
        ImportNote::NoIntervals { .. } => {
            format!("{n} (sysbench prints them with --report-interval=1)")
        }
        ImportNote::TpmcUnknown { .. } => n.to_string(),
    }
}
