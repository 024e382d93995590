//! `dbdyno fileio|cpu|memory [options] prepare|run|cleanup|help`: DB Dyno's native
//! hardware tests (crates/hwtest) in sysbench's grammar and output. `--json=FILE`
//! writes the result document to FILE as well, as the sysbench form does; `--json=-`
//! prints it on stdout instead of sysbench's text.

use std::io::Write;
use std::process::ExitCode;

use dbdyno_hwtest::{text, Command, HwTestError, HwTestOptions, TestKind};

use crate::exit;

/// One command line of a hardware test, after `sysbench_options::translate`.
#[derive(Debug, PartialEq)]
pub struct Invocation {
    pub kind: TestKind,
    pub command: Word,
    /// `(name, value)` in order; a flag without `=` has the value `""` (on).
    pub pairs: Vec<(String, String)>,
    pub json: Option<Json>,
}

/// Where `--json` sends the result document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Json {
    /// `--json=-` (or bare `--json`): stdout, instead of the text.
    Stdout,
    File(std::path::PathBuf),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    Command(Command),
    Help,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UsageError {
    #[error("{test}: missing command: prepare, run, cleanup or help")]
    MissingCommand { test: &'static str },
    #[error("{test}: unknown command '{word}': prepare, run, cleanup or help")]
    UnknownCommand { test: &'static str, word: String },
    #[error("{test}: unexpected word '{word}' after the command")]
    ExtraWord { test: &'static str, word: String },
}

/// Whether `word` names a hardware test (the command line's first word).
pub fn is_hardware_test(word: &str) -> bool {
    TestKind::from_name(word).is_some()
}

/// Splits argv (program name first) into the test, its command and its options.
pub fn parse(argv: &[String]) -> Result<Invocation, UsageError> {
    let mut words = Vec::new();
    let mut pairs = Vec::new();
    let mut json = None;
    for arg in argv.iter().skip(1) {
        match arg.strip_prefix("--") {
            Some("json") | Some("json=-") => json = Some(Json::Stdout),
            Some(rest) if rest.starts_with("json=") => {
                json = Some(Json::File(rest["json=".len()..].into()))
            }
            Some(rest) => {
                let (name, value) = rest.split_once('=').unwrap_or((rest, ""));
                pairs.push((name.to_string(), value.to_string()));
            }
            None => words.push(arg.as_str()),
        }
    }
    let kind = words
        .first()
        .and_then(|w| TestKind::from_name(w))
        .expect("dispatched on a hardware test's name");
    let test = kind.name();
    let command = match words.get(1).copied() {
        None => return Err(UsageError::MissingCommand { test }),
        Some("help") => Word::Help,
        Some(w) => {
            Word::Command(
                Command::from_name(w).ok_or_else(|| UsageError::UnknownCommand {
                    test,
                    word: w.to_string(),
                })?,
            )
        }
    };
    if let Some(extra) = words.get(2) {
        return Err(UsageError::ExtraWord {
            test,
            word: extra.to_string(),
        });
    }
    Ok(Invocation {
        kind,
        command,
        pairs,
        json,
    })
}

pub fn run(argv: &[String]) -> ExitCode {
    let inv = match parse(argv) {
        Ok(inv) => inv,
        Err(e) => return exit::usage_error(e.into()),
    };
    let version = env!("CARGO_PKG_VERSION");
    let command = match inv.command {
        Word::Help => {
            print!("{}{}", text::version_line(version), text::help(inv.kind));
            return ExitCode::SUCCESS;
        }
        Word::Command(c) => c,
    };
    let opts = match HwTestOptions::from_pairs(inv.kind, &inv.pairs) {
        Ok(o) => o,
        Err(e) => return exit::usage_error(e.into()),
    };
    let text_out = inv.json != Some(Json::Stdout);
    let outcome = match command {
        Command::Run => run_test(&opts, inv.json.as_ref(), version),
        Command::Prepare | Command::Cleanup if opts.kind() != TestKind::FileIo => {
            Err(HwTestError::NoSuchCommand {
                test: opts.kind().name(),
                command: if command == Command::Prepare {
                    "prepare"
                } else {
                    "cleanup"
                },
            }
            .into())
        }
        Command::Prepare | Command::Cleanup => {
            if text_out {
                print!("{}", text::version_line(version));
            }
            let mut log = |line: String| {
                if text_out {
                    println!("{line}");
                }
            };
            if command == Command::Prepare {
                dbdyno_hwtest::prepare(&opts, &mut log)
            } else {
                dbdyno_hwtest::cleanup(&opts, &mut log)
            }
            .map_err(Failure::from)
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Test(e @ (HwTestError::Option(_) | HwTestError::NoSuchCommand { .. }))) => {
            exit::usage_error(e.into())
        }
        Err(Failure::Test(e)) => exit::failed(e.into()),
        Err(Failure::Json(e)) => exit::failed(e),
    }
}

/// A test that failed, or its result that could not be written.
enum Failure {
    Test(HwTestError),
    Json(anyhow::Error),
}

impl From<HwTestError> for Failure {
    fn from(e: HwTestError) -> Self {
        Failure::Test(e)
    }
}

fn run_test(opts: &HwTestOptions, json: Option<&Json>, version: &str) -> Result<(), Failure> {
    let text_out = json != Some(&Json::Stdout);
    let percentile = opts.general.percentile;
    dbdyno_hwtest::check_run(opts)?;
    if text_out {
        print!("{}", text::run_header(version, opts));
        let _ = std::io::stdout().flush();
    }
    let on_interval = |f: &dbdyno_hwtest::IntervalFigures| {
        if text_out {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text::interval_line(f, percentile).as_bytes());
            let _ = out.flush();
        }
    };
    let output = dbdyno_hwtest::run(opts, &on_interval)?;
    if text_out {
        let histogram = opts.general.histogram.then_some(&output.histogram);
        print!("{}", text::report(&output.result, histogram));
    }
    let document = serde_json::to_string_pretty(&output.result).expect("results serialize");
    match json {
        None => {}
        Some(Json::Stdout) => println!("{document}"),
        Some(Json::File(path)) => std::fs::write(path, document + "\n").map_err(|e| {
            Failure::Json(anyhow::Error::new(e).context(format!("writing {}", path.display())))
        })?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_anywhere_and_flags_without_values() {
        let inv = parse(&argv(&[
            "dbdyno",
            "--threads=2",
            "fileio",
            "--file-fsync-all",
            "--json=-",
            "run",
            "--file-total-size=8G",
        ]))
        .unwrap();
        assert_eq!(inv.kind, TestKind::FileIo);
        assert_eq!(inv.command, Word::Command(Command::Run));
        assert_eq!(inv.json, Some(Json::Stdout));
        assert_eq!(
            inv.pairs,
            [
                ("threads".to_string(), "2".to_string()),
                ("file-fsync-all".to_string(), String::new()),
                ("file-total-size".to_string(), "8G".to_string()),
            ]
        );
    }

    #[test]
    fn a_missing_or_unknown_command_is_one_line() {
        assert_eq!(
            parse(&argv(&["dbdyno", "cpu"])).unwrap_err().to_string(),
            "cpu: missing command: prepare, run, cleanup or help"
        );
        assert_eq!(
            parse(&argv(&["dbdyno", "memory", "go"]))
                .unwrap_err()
                .to_string(),
            "memory: unknown command 'go': prepare, run, cleanup or help"
        );
        assert!(parse(&argv(&["dbdyno", "cpu", "run", "now"])).is_err());
        assert_eq!(
            parse(&argv(&["dbdyno", "cpu", "help"])).unwrap().command,
            Word::Help
        );
    }
}
