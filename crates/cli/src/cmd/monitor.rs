//! `dbdyno monitor`: the database server's CPU and data disk once a second, one line
//! per sample like `tsar --cpu --io -I <disk> -l -i1` (seed 000), or JSON lines.
//!
//! Over SSH with `--ssh-host`, else this machine. The disk is `--device`, else the one
//! under `--datadir` as the monitor crate's resolver finds it (the choice is printed).
//! A lost connection is reported and retried; sampling resumes when the server is back.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dbdyno_checks::host::HostShell;
use dbdyno_monitor::local::unix_ms_now;
use dbdyno_monitor::{DiskSelection, Monitor, MonitorConfig, SamplerEvent, ServerSample, Target};

use crate::args::MonitorArgs;
use crate::exit::{failed, usage_error, EXIT_FAILED};
use crate::ssh_target::{self, SshSpec};

pub fn run(a: &MonitorArgs) -> ExitCode {
    // With --profile the options are parsed again with the profile's filled in.
    let (reparsed, applied) = match &a.history.profile {
        Some(name) => match crate::profile_apply::monitor(name) {
            Ok((args, applied)) => (Some(args), Some(applied)),
            Err(e) => return usage_error(e),
        },
        None => (None, None),
    };
    let a = reparsed.as_ref().unwrap_or(a);
    let mut spec = SshSpec::from_history(&a.history);
    crate::secrets::fill_ssh_secrets(
        &mut spec,
        applied.as_ref().map(|x| &x.profile),
        applied.as_ref().map(|x| x.keyring_name.as_str()),
    );
    let target = match ssh_target::build_target(&spec, &a.ssh) {
        Ok(t) => t,
        Err(e) => return usage_error(e),
    };
    // One SSH session: the host key check's, then the disk's, then the sampler's.
    let shell = match &target {
        Some(t) => match ssh_target::connect_trusted(t) {
            Ok(c) => HostShell::Ssh(c),
            Err(e) => return failed(e),
        },
        None => HostShell::Local,
    };
    let devices = match choose_devices(&shell, &spec.devices(&a.ssh), &a.datadir) {
        Ok(d) => d,
        Err(e) => {
            shell.close();
            return failed(e);
        }
    };
    let mut cfg = MonitorConfig::new(match target {
        Some(t) => Target::Ssh(t),
        None => Target::Local,
    });
    if !devices.is_empty() {
        cfg.rates.disks = DiskSelection::Only(devices.clone());
    }
    let started = match shell {
        HostShell::Ssh(conn) => Monitor::start_connected(cfg, conn),
        HostShell::Local => Monitor::start(cfg),
    };
    let monitor = match started {
        Ok(m) => m,
        Err(e) => return failed(e.into()),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));

    let started = Instant::now();
    let start_ms = unix_ms_now();
    let limit = (a.duration > 0).then(|| Duration::from_secs(a.duration));
    // Samples ending up to half a second after the deadline still cover its last second.
    let last_end_ms = limit.map(|l| start_ms + l.as_millis() as i64 + 500);
    let mut printed = 0u64;
    let mut code = ExitCode::SUCCESS;
    if !a.json {
        print_header(&devices);
    }
    loop {
        if stop.load(Ordering::SeqCst)
            || limit.is_some_and(|l| started.elapsed() > l + Duration::from_millis(1200))
        {
            break;
        }
        let Ok(ev) = monitor.events().recv_timeout(Duration::from_millis(200)) else {
            continue;
        };
        match ev {
            SamplerEvent::Sample(s) => {
                if last_end_ms.is_some_and(|end| s.local_unix_ms > end) {
                    break;
                }
                if a.json {
                    let mut v = serde_json::to_value(&s).unwrap_or_default();
                    v["type"] = "sample".into();
                    println!("{v}");
                } else {
                    if printed > 0 && printed.is_multiple_of(20) {
                        print_header(&devices);
                    }
                    println!("{}", line(&s, &devices));
                }
                printed += 1;
            }
            SamplerEvent::Connected {
                reconnect, addr, ..
            } => {
                if reconnect {
                    eprintln!("reconnected to {addr}: sampling resumes");
                }
            }
            SamplerEvent::Disconnected { reason, .. } => {
                eprintln!("connection lost: {reason}; reconnecting")
            }
            SamplerEvent::ReconnectFailed { .. } => {}
            SamplerEvent::Gap {
                from_ms,
                to_ms,
                reason,
            } => {
                if a.json {
                    println!(
                        "{}",
                        serde_json::json!({ "type": "gap", "from_ms": from_ms, "to_ms": to_ms, "reason": reason })
                    );
                } else {
                    println!(
                        "-- {:.1} s without samples: {reason}",
                        (to_ms - from_ms) as f64 / 1000.0
                    );
                }
            }
            SamplerEvent::Warning(w) => eprintln!("WARNING: {w}"),
            SamplerEvent::Stopped { reason } => {
                if let Some(r) = reason {
                    eprintln!("FATAL: {r}");
                    code = ExitCode::from(EXIT_FAILED);
                }
                break;
            }
        }
    }
    monitor.stop();
    code
}

/// The disk to show: the user's `--device` names, checked against the server's
/// /proc/diskstats (an unknown name is an error, a partition a warning), else the
/// one under `datadir` as the resolver finds it.
fn choose_devices(
    shell: &HostShell,
    given: &[String],
    datadir: &str,
) -> anyhow::Result<Vec<String>> {
    if given.is_empty() {
        return Ok(resolve_devices(shell, datadir));
    }
    let c = shell.check_devices(given)?;
    eprintln!("disk: {} (--device)", c.devices.join(", "));
    for w in &c.warnings {
        eprintln!("WARNING: {w}");
    }
    Ok(c.devices)
}

/// The data disk under `datadir`. No silent fallback: a path that is not there, or
/// one on a filesystem without a block device (tmpfs, overlay), gives no device and
/// says why; `--datadir=/` asks for the root filesystem's disk.
fn resolve_devices(shell: &HostShell, datadir: &str) -> Vec<String> {
    let exists = shell
        .run_script(&format!(
            "if [ -e {} ]; then echo yes; else echo no; fi\n",
            dbdyno_monitor::disk::facts::sh_quote(datadir)
        ))
        .map(|o| o.trim() == "yes");
    let found = match exists {
        Ok(false) => {
            eprintln!("disk: no block device: {datadir} does not exist on the server");
            Vec::new()
        }
        _ => match shell.resolve_disk(datadir) {
            Ok(d) if !d.devices.is_empty() => {
                eprintln!(
                    "disk: {} ({} is on {}, {}; override with --device)",
                    d.devices.join(", "),
                    datadir,
                    d.mount_point,
                    d.fs_type
                );
                d.devices
            }
            Ok(d) => {
                eprintln!(
                    "disk: no block device: {datadir} is on {} ({}): {}",
                    d.mount_point,
                    d.fs_type,
                    d.chain.join(" / ")
                );
                Vec::new()
            }
            Err(e) => {
                eprintln!("disk: no block device: {datadir}: {e}");
                Vec::new()
            }
        },
    };
    if found.is_empty() {
        eprintln!(
            "disk: the disk columns stay empty: give --device=NAME, or --datadir=/ for the root filesystem's disk"
        );
    }
    found
}

/// The disk columns: r/s, w/s, rkB/s, wkB/s, await, aqu-sz, util (iostat's), 60 wide.
const DISK_COLS: [(&str, usize); 7] = [
    ("r/s", 8),
    ("w/s", 8),
    ("rkB/s", 9),
    ("wkB/s", 9),
    ("await", 7),
    ("aqu-sz", 7),
    ("util", 6),
];

fn print_header(devices: &[String]) {
    let mut top = format!("{:<18} {:-^41}", "Time (UTC)", "cpu");
    let mut cols = format!(
        "{:<18} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "Time (UTC)", "user", "sys", "wait", "steal", "idle", "util"
    );
    let names: Vec<String> = if devices.is_empty() {
        vec!["no disk".into()]
    } else {
        devices.to_vec()
    };
    let width: usize = DISK_COLS.iter().map(|(_, w)| w + 1).sum::<usize>() - 1;
    for d in &names {
        top.push_str(&format!(" {:-^width$}", d));
        for (name, w) in DISK_COLS {
            cols.push_str(&format!(" {name:>w$}"));
        }
    }
    println!("{top}\n{cols}");
}

/// One sample: the time is the server's own stamp, as tsar prints the server's time.
/// A device without figures in this sample (none chosen, or gone) keeps its columns,
/// filled with "-".
fn line(s: &ServerSample, devices: &[String]) -> String {
    let mut out = format!("{:<18}", tsar_time(s.server_unix_ms));
    match s.cpu {
        Some(c) => out.push_str(&format!(
            " {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>6.1}",
            c.user, c.system, c.iowait, c.steal, c.idle, c.util
        )),
        None => out.push_str(&format!(" {:>41}", "-")),
    }
    let slots: Vec<Option<&dbdyno_monitor::rates::DiskRates>> = if devices.is_empty() {
        vec![None]
    } else {
        devices
            .iter()
            .map(|d| s.disks.iter().find(|x| &x.name == d))
            .collect()
    };
    for d in slots {
        match d {
            Some(d) => out.push_str(&format!(
                " {:>8.2} {:>8.2} {:>9.2} {:>9.2} {:>7.2} {:>7.2} {:>6.1}",
                d.r_per_s, d.w_per_s, d.rkb_per_s, d.wkb_per_s, d.await_ms, d.aqu_sz, d.util_pct
            )),
            None => {
                for (_, w) in DISK_COLS {
                    out.push_str(&format!(" {:>w$}", "-"));
                }
            }
        }
    }
    out
}

/// `dd/mm/yy-HH:MM:SS` (tsar's layout) in UTC.
fn tsar_time(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = dbdyno_history::time::civil_from_days(days);
    format!(
        "{d:02}/{m:02}/{:02}-{:02}:{:02}:{:02}",
        y.rem_euclid(100),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_with_and_without_a_device() {
        let header_width = {
            let width: usize = DISK_COLS.iter().map(|(_, w)| w + 1).sum::<usize>();
            18 + 42 + width
        };
        let sample: ServerSample = serde_json::from_value(serde_json::json!({
            "server_unix_ms": 0, "local_unix_ms": 0, "interval_s": 1.0,
            "cpu": null, "disks": [], "mem": null, "swap": null, "net": [], "load": null,
            "sampler": null
        }))
        .expect("a sample without figures");
        for devices in [vec![], vec!["vda".to_string()]] {
            let l = line(&sample, &devices);
            assert_eq!(l.len(), header_width, "{l:?}");
            assert_eq!(
                l.split_whitespace().count(),
                1 + 1 + DISK_COLS.len(),
                "{l:?}"
            );
        }
    }

    #[test]
    fn tsar_time_layout() {
        assert_eq!(tsar_time(0), "01/01/70-00:00:00");
        // 2024-02-29 13:45:07 UTC
        assert_eq!(tsar_time(1_709_214_307_000), "29/02/24-13:45:07");
    }
}
