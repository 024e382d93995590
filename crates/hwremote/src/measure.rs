//! This machine's side: checks the directory, copies DB Dyno to the host (crates/remote),
//! starts the agent there, relays its progress and makes sure its work directory is gone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dbdyno_hwtest::size::format_size;
use dbdyno_hwtest::{HwTestResult, IntervalFigures};
use dbdyno_remote::{local_agent_binary, Installed, RemoteHost};
use dbdyno_ssh::sh_quote;
use serde::{Deserialize, Serialize};

use crate::error::RoomShortage;
use crate::protocol::{Event, Job, Stage, AGENT_COMMAND, CANCEL_LINE};
use crate::space::{df_command, margin_bytes, parse_df_available};
use crate::{HwRemoteError, Settings};

/// How often the cancel flag is looked at while waiting for the agent.
const POLL: Duration = Duration::from_millis(200);
/// How long the agent gets to clean up after a cancel line before it is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(15);
/// The prefix of every work directory, so nothing else is ever removed.
pub const WORK_DIR_PREFIX: &str = "dbdyno-hwtest-";

/// Room in the chosen directory, as checked before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirCheck {
    pub dir: String,
    pub available_bytes: u64,
    pub needed_bytes: u64,
}

/// What the shells show while the tests run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Progress {
    /// DB Dyno is on the host (`copied` false: the cached copy was reused).
    Installed {
        path: String,
        copied: bool,
    },
    Started {
        work_dir: String,
    },
    Stage {
        test: String,
        stage: Stage,
    },
    Interval {
        test: String,
        figures: IntervalFigures,
    },
    Result {
        result: Box<HwTestResult>,
    },
}

/// A finished measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub host: String,
    pub dir: String,
    pub results: Vec<HwTestResult>,
}

/// Refuses, before anything is written, a directory that is not absolute, not writable,
/// or short of room for the file set plus [`margin_bytes`].
pub fn check_dir(
    host: &RemoteHost,
    dir: &str,
    settings: &Settings,
) -> Result<DirCheck, HwRemoteError> {
    let file_set = settings.file_total_bytes()?;
    if !dir.starts_with('/') {
        return Err(HwRemoteError::NotAbsolute {
            host: host.name().into(),
            dir: dir.into(),
        });
    }
    let q = sh_quote(dir);
    let writable = host.run(&format!("test -d {q} && test -w {q}"))?;
    if writable.status != 0 {
        return Err(HwRemoteError::NotWritable {
            host: host.name().into(),
            dir: dir.into(),
        });
    }
    let df = host.run(&df_command(&q))?;
    let available = parse_df_available(&df.stdout).ok_or_else(|| HwRemoteError::Df {
        host: host.name().into(),
        dir: dir.into(),
        output: format!("{}{}", df.stdout, df.stderr).trim().to_string(),
    })?;
    let margin = margin_bytes(file_set);
    let needed = file_set + margin;
    if available < needed {
        return Err(HwRemoteError::NoRoom(Box::new(RoomShortage {
            host: host.name().into(),
            dir: dir.into(),
            available: format_size(available),
            needed: format_size(needed),
            file_set: format_size(file_set),
            margin: format_size(margin),
        })));
    }
    Ok(DirCheck {
        dir: dir.into(),
        available_bytes: available,
        needed_bytes: needed,
    })
}

/// Runs the tests in a new directory under `dir` on the host and returns their
/// results. Checks the room first ([`check_dir`]); `cancel` stops it, the files
/// removed. Every return, success or not, has made sure the work directory is gone.
pub fn measure(
    host: &RemoteHost,
    dir: &str,
    settings: &Settings,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Measurement, HwRemoteError> {
    check_dir(host, dir, settings)?;
    let installed = host.install(&local_agent_binary()?)?;
    on_progress(Progress::Installed {
        path: installed.path.clone(),
        copied: installed.copied,
    });
    let work_dir = format!("{}/{}", dir.trim_end_matches('/'), work_dir_name());
    let outcome = drive(host, &installed, &work_dir, settings, cancel, on_progress);
    let removed = remove_leftover(host, &work_dir);
    let results = outcome?;
    removed?;
    Ok(Measurement {
        host: host.name().into(),
        dir: dir.into(),
        results,
    })
}

fn drive(
    host: &RemoteHost,
    installed: &Installed,
    work_dir: &str,
    settings: &Settings,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Vec<HwTestResult>, HwRemoteError> {
    let job = Job {
        work_dir: work_dir.into(),
        tests: settings.tests(),
    };
    let mut agent = host.spawn(installed, &[AGENT_COMMAND.into()], &[])?;
    agent.send_line(&serde_json::to_string(&job).expect("jobs serialize"))?;
    let name = host.name().to_string();
    let mut results = Vec::new();
    let mut cancel_sent: Option<std::time::Instant> = None;
    loop {
        if cancel_sent.is_none() && cancel.load(Ordering::SeqCst) {
            // The agent removes its directory and ends; the kill below is for an agent
            // that cannot (its reply is what says the files are gone).
            let _ = agent.send_line(CANCEL_LINE);
            cancel_sent = Some(std::time::Instant::now());
        }
        if cancel_sent.is_some_and(|t| t.elapsed() > CANCEL_GRACE) {
            agent.kill()?;
            return Err(HwRemoteError::Cancelled { host: name });
        }
        let line = match agent.recv_line(POLL) {
            Ok(Some(line)) => line,
            Ok(None) => continue,
            Err(e) => {
                let _ = agent.kill();
                return Err(match cancel_sent {
                    Some(_) => HwRemoteError::Cancelled { host: name },
                    None => HwRemoteError::Lost {
                        host: name,
                        why: e.to_string(),
                    },
                });
            }
        };
        let event: Event = serde_json::from_str(&line).map_err(|_| HwRemoteError::BadLine {
            host: name.clone(),
            line: line.clone(),
        })?;
        match event {
            Event::Started { work_dir } => on_progress(Progress::Started { work_dir }),
            Event::Stage { test, stage } => on_progress(Progress::Stage { test, stage }),
            Event::Interval { test, figures } => on_progress(Progress::Interval { test, figures }),
            Event::Result { result } => {
                results.push((*result).clone());
                on_progress(Progress::Result { result });
            }
            Event::Done => {
                let _ = agent.kill();
                return Ok(results);
            }
            Event::Failed { message } => {
                let _ = agent.kill();
                return Err(HwRemoteError::Failed {
                    host: name,
                    message,
                });
            }
            Event::Cancelled { .. } => {
                let _ = agent.kill();
                return Err(HwRemoteError::Cancelled { host: name });
            }
        }
    }
}

/// Removes the work directory if the agent could not (a kill, a crash); an error when
/// there was one to remove after the agent said it was done.
fn remove_leftover(host: &RemoteHost, work_dir: &str) -> Result<(), HwRemoteError> {
    let q = sh_quote(work_dir);
    let out = host.run(&format!(
        "if test -e {q}; then rm -rf -- {q}; echo left; fi"
    ))?;
    if out.stdout.trim() == "left" {
        return Err(HwRemoteError::LeftBehind {
            host: host.name().into(),
            work_dir: work_dir.into(),
        });
    }
    Ok(())
}

/// `dbdyno-hwtest-<time>-<pid>`: unique per measurement, recognisable in a listing.
fn work_dir_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{WORK_DIR_PREFIX}{nanos:x}-{}", std::process::id())
}
