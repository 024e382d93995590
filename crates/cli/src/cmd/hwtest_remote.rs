//! `dbdyno hwtest --profile=NAME`: the database host's disk, CPU and memory, measured
//! over SSH by DB Dyno's own tests (crates/hwremote) in a directory the user confirms.
//!
//! Order matters: the host lock and the room check come before anything is written on
//! the host; a busy server is only a warning; Ctrl-C cancels and the files go with it.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use dbdyno_history::hardware::{HardwareSource, NewHardwareRecord};
use dbdyno_history::host_lock::{lock_host, HostUse};
use dbdyno_hwremote::{HwRemoteError, Measurement, Progress, Settings};
use dbdyno_hwtest::{HwTestResult, TestFigures};
use dbdyno_remote::RemoteHost;
use dbdyno_session::resolve::Ask;

use crate::access::{self, Terminal};
pub use crate::args_hwtest::HwtestArgs;
use crate::exit::{failed, usage_error, EXIT_CANCELLED};
use crate::overlay;

impl HwtestArgs {
    fn settings(&self) -> Settings {
        let flags = match self.file_extra_flags.as_str() {
            "none" => String::new(),
            f => f.to_string(),
        };
        Settings {
            file_total_size: self.file_total_size.clone(),
            file_extra_flags: flags,
            threads: self.threads,
            fileio_time_s: self.fileio_time,
            cpu_time_s: self.cpu_time,
            memory_time_s: self.memory_time,
        }
    }
}

pub fn run(a: &HwtestArgs, m: &clap::ArgMatches) -> ExitCode {
    let cancel = Arc::new(AtomicBool::new(false));
    let c = cancel.clone();
    let _ = ctrlc::set_handler(move || c.store(true, Ordering::SeqCst));
    match measure(a, m, &cancel) {
        Ok(measurement) => {
            print_results(&measurement, a.json);
            ExitCode::SUCCESS
        }
        Err(e) => match e.downcast_ref::<HwRemoteError>() {
            Some(HwRemoteError::Cancelled { .. }) => {
                eprintln!("{e}");
                ExitCode::from(EXIT_CANCELLED)
            }
            Some(HwRemoteError::NoRoom(_) | HwRemoteError::NotWritable { .. }) => usage_error(e),
            _ => failed(e),
        },
    }
}

fn measure(a: &HwtestArgs, m: &clap::ArgMatches, cancel: &AtomicBool) -> Result<Measurement> {
    let cmd = overlay::tool_subcommand("hwtest");
    let applied = overlay::apply(&cmd, m, &a.history, Some(&a.conn), &[])?;
    let settings = a.settings();
    settings.file_total_bytes()?;
    let target = access::ssh_target(&applied, &a.ssh, a.history.data_dir.as_deref())?
        .ok_or_else(|| anyhow!("the hardware tests run on the database host over SSH: give --ssh-host (or a profile with an [ssh] section)"))?;
    let mut plan = applied.ladder_plan()?;
    let data_dir = dbdyno_history::paths::resolve_data_dir(a.history.data_dir.as_deref())?;
    let _lock = lock_host(
        &data_dir,
        &[target.host.as_str(), plan.connect.host.as_str()],
        HostUse::HardwareTest,
    )?;
    access::fill_mysql_password(&mut plan, &a.conn, &applied)?;
    let datadir = server_datadir(a, &plan.connect)?;
    // Checks the host key (and stores a first-seen one when the user says so).
    access::connect_trusted(&target)?.close();
    let (disk, proposal) = match dbdyno_hwremote::propose_on_host(&target, &datadir) {
        Ok((disk, proposal)) => (Some(disk), Some(proposal)),
        Err(e) if a.dir.is_some() => {
            eprintln!("WARNING: the data disk under {datadir} is unknown: {e}");
            (None, None)
        }
        Err(e) => return Err(e.into()),
    };
    let dir = match (&a.dir, proposal) {
        (Some(d), _) => d.clone(),
        (None, Some(p)) => confirm_proposal(p, a.yes)?,
        (None, None) => unreachable!("without --dir the proposal is required"),
    };
    let host = RemoteHost::connect(&target)?;
    let check = dbdyno_hwremote::check_dir(&host, &dir, &settings)?;
    eprintln!(
        "Measuring {} in {dir}: a {} file set ({} free), then cpu and memory",
        host.name(),
        settings.file_total_size,
        dbdyno_hwtest::size::format_size(check.available_bytes)
    );
    let facts = dbdyno_hwremote::host_facts(
        &host,
        disk.as_ref().map(|d| d.devices.as_slice()).unwrap_or(&[]),
    );
    let json = a.json;
    let measurement = dbdyno_hwremote::measure(&host, &dir, &settings, cancel, &mut |p| {
        show_progress(&p, json)
    })?;
    if let Some(history) = crate::record::target(&a.history, &applied, &plan, "hwtest") {
        let record = NewHardwareRecord {
            env: history.environment,
            recorded_at_ms: dbdyno_history::time::now_ms(),
            source: HardwareSource::Measured,
            host: Some(target.host.clone()),
            disk_device: disk
                .as_ref()
                .map(|d| d.devices.join(","))
                .filter(|d| !d.is_empty()),
            disk_model: facts.disk.map(|(_, model)| model),
            cpu_model: facts.cpu_model,
            results: measurement.results.clone(),
        };
        let env = record.env.clone();
        match crate::cmd::hardware_records::store_measurement(a.history.data_dir.as_deref(), record)
        {
            Ok(id) => eprintln!("Stored as hardware record {id} of {env} (`dbdyno runs hardware`)"),
            Err(e) => eprintln!("WARNING: the history could not store the results: {e:#}"),
        }
    }
    Ok(measurement)
}

/// `--datadir`, else the server's `@@datadir`; warns when MySQL is busy.
fn server_datadir(a: &HwtestArgs, connect: &dbdyno_engine::ConnectOptions) -> Result<String> {
    let state = dbdyno_engine::driver::connect(connect)
        .map_err(anyhow::Error::from)
        .and_then(|mut conn| {
            dbdyno_hwremote::server_state(&mut conn)
                .context("reading @@datadir and Threads_running")
        });
    match state {
        Ok(state) => {
            if let Some(w) = dbdyno_hwremote::busy_warning(state.threads_running) {
                eprintln!("WARNING: {w}");
            }
            Ok(a.datadir.clone().unwrap_or(state.datadir))
        }
        Err(e) => match &a.datadir {
            Some(d) => {
                eprintln!("WARNING: MySQL not reachable, whether it is busy is unknown: {e:#}");
                Ok(d.clone())
            }
            None => Err(e.context("MySQL's data directory is needed to choose where the test files go (or give --dir and --datadir)")),
        },
    }
}

/// The proposed directory, taken with `--yes` or when the user confirms it.
fn confirm_proposal(proposal: dbdyno_hwremote::Proposal, yes: bool) -> Result<String> {
    let Some(dir) = proposal.dir else {
        bail!("{}", proposal.why);
    };
    eprintln!(
        "Proposed directory for the test files: {dir} ({})",
        proposal.why
    );
    if yes {
        return Ok(dir);
    }
    let terminal = Terminal;
    if !terminal.interactive() {
        bail!("confirm the directory with --yes, or give another with --dir");
    }
    if terminal.confirm(&format!("Write the test files in {dir}?"))? {
        Ok(dir)
    } else {
        bail!("not confirmed: give the directory with --dir")
    }
}

fn show_progress(p: &Progress, json: bool) {
    if json {
        return;
    }
    match p {
        Progress::Installed { path, copied } => eprintln!(
            "DB Dyno {} {path}",
            if *copied { "copied to" } else { "already at" }
        ),
        Progress::Started { work_dir } => eprintln!("Working in {work_dir}"),
        Progress::Stage { test, stage } => eprintln!("{test}: {}", stage.name()),
        Progress::Interval { test, figures } => {
            let f = figures;
            let rate = match test.as_str() {
                "fileio" => format!(
                    "read {:.2} MiB/s, written {:.2} MiB/s, fsyncs {:.2}/s",
                    f.read_mib_per_s.unwrap_or(0.0),
                    f.written_mib_per_s.unwrap_or(0.0),
                    f.fsyncs_per_s.unwrap_or(0.0)
                ),
                "memory" => format!("{:.2} MiB/s", f.mib_per_s.unwrap_or(0.0)),
                _ => format!("{:.2} events/s", f.events_per_s.unwrap_or(0.0)),
            };
            eprintln!("  [ {}s ] {test}: {rate}", f.elapsed_s);
        }
        Progress::Result { .. } => {}
    }
}

fn print_results(m: &Measurement, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(m).expect("results serialize")
        );
        return;
    }
    println!("Hardware of {} (files in {}, all removed):", m.host, m.dir);
    for r in &m.results {
        println!("  {}", headline(r));
    }
}

/// One line per test: the figures a DBA compares.
fn headline(r: &HwTestResult) -> String {
    match &r.test {
        TestFigures::FileIo(f) => format!(
            "fileio {}: reads/s {:.2}, writes/s {:.2}, fsyncs/s {:.2}, read MiB/s {:.2}, written MiB/s {:.2}",
            r.options.get("file-test-mode").map(String::as_str).unwrap_or("?"),
            f.reads_per_s,
            f.writes_per_s,
            f.fsyncs_per_s,
            f.read_mib_per_s,
            f.written_mib_per_s
        ),
        TestFigures::Cpu(c) => format!("cpu: events/s {:.2}", c.events_per_s),
        TestFigures::Memory(mm) => format!(
            "memory: MiB/s {:.2}, operations/s {:.2}",
            mm.mib_per_s.unwrap_or(0.0),
            mm.operations_per_s
        ),
    }
}
