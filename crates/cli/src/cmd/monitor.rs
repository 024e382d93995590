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

use dbdyno_monitor::host::HostShell;
use dbdyno_monitor::local::unix_ms_now;
use dbdyno_monitor::{
    watch, DiskSelection, Monitor, MonitorConfig, SamplerEvent, ServerSample, Target,
};

use crate::access;
use crate::args::MonitorArgs;
use crate::exit::{failed, usage_error, EXIT_FAILED};
use crate::overlay;

pub fn run(a: &MonitorArgs, m: &clap::ArgMatches) -> ExitCode {
    let cmd = overlay::tool_subcommand("monitor");
    let applied = match overlay::apply(&cmd, m, &a.history, None, &[]) {
        Ok(x) => x,
        Err(e) => return usage_error(e),
    };
    let target = match access::ssh_target(&applied, &a.ssh, a.history.data_dir.as_deref()) {
        Ok(t) => t,
        Err(e) => return usage_error(e),
    };
    let (monitor, devices) = match start(target, &access::devices(&applied, &a.ssh), &a.datadir) {
        Ok(x) => x,
        Err(e) => return failed(e),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let _ = ctrlc::set_handler(move || s.store(true, Ordering::SeqCst));
    let code = Printer {
        json: a.json,
        devices: &devices,
        printed: 0,
    }
    .follow(&monitor, &stop, a.duration);
    monitor.stop();
    code
}

/// Logs in (one SSH session: the host key check's, then the disk's, then the
/// sampler's), picks the disk and starts sampling.
fn start(
    target: Option<dbdyno_ssh::SshTarget>,
    given: &[String],
    datadir: &str,
) -> anyhow::Result<(Monitor, Vec<String>)> {
    let shell = match &target {
        Some(t) => HostShell::Ssh(access::connect_trusted(t)?),
        None => HostShell::Local,
    };
    let devices = match watch::choose_devices(&shell, given, datadir) {
        Ok(w) => {
            for note in &w.notes {
                eprintln!("{note}");
            }
            w.devices
        }
        Err(e) => {
            shell.close();
            return Err(e.into());
        }
    };
    let mut cfg = MonitorConfig::new(match target {
        Some(t) => Target::Ssh(t),
        None => Target::Local,
    });
    if !devices.is_empty() {
        cfg.rates.disks = DiskSelection::Only(devices.clone());
    }
    let monitor = match shell {
        HostShell::Ssh(conn) => Monitor::start_connected(cfg, conn),
        HostShell::Local => Monitor::start(cfg),
    }?;
    Ok((monitor, devices))
}

/// One line (or JSON object) per sample, until Ctrl-C, `--duration` or the end.
struct Printer<'a> {
    json: bool,
    devices: &'a [String],
    printed: u64,
}

impl Printer<'_> {
    fn follow(&mut self, monitor: &Monitor, stop: &AtomicBool, duration_s: u64) -> ExitCode {
        let started = Instant::now();
        let start_ms = unix_ms_now();
        let limit = (duration_s > 0).then(|| Duration::from_secs(duration_s));
        // Samples ending up to half a second after the deadline still cover its last second.
        let last_end_ms = limit.map(|l| start_ms + l.as_millis() as i64 + 500);
        if !self.json {
            println!("{}", watch::header(self.devices));
        }
        loop {
            if stop.load(Ordering::SeqCst)
                || limit.is_some_and(|l| started.elapsed() > l + Duration::from_millis(1200))
            {
                return ExitCode::SUCCESS;
            }
            let Ok(ev) = monitor.events().recv_timeout(Duration::from_millis(200)) else {
                continue;
            };
            if let SamplerEvent::Sample(s) = &ev {
                if last_end_ms.is_some_and(|end| s.local_unix_ms > end) {
                    return ExitCode::SUCCESS;
                }
            }
            if let Some(code) = self.event(ev) {
                return code;
            }
        }
    }

    /// Prints one event; returns the exit code when sampling stopped.
    fn event(&mut self, ev: SamplerEvent) -> Option<ExitCode> {
        match ev {
            SamplerEvent::Sample(s) => self.sample(&s),
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
                if self.json {
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
                return Some(match reason {
                    Some(r) => {
                        eprintln!("FATAL: {r}");
                        ExitCode::from(EXIT_FAILED)
                    }
                    None => ExitCode::SUCCESS,
                })
            }
        }
        None
    }

    fn sample(&mut self, s: &ServerSample) {
        if self.json {
            let mut v = serde_json::to_value(s).unwrap_or_default();
            v["type"] = "sample".into();
            println!("{v}");
        } else {
            if self.printed > 0 && self.printed.is_multiple_of(20) {
                println!("{}", watch::header(self.devices));
            }
            println!(
                "{}",
                watch::line(&tsar_time(s.server_unix_ms), s, self.devices)
            );
        }
        self.printed += 1;
    }
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
    fn tsar_time_layout() {
        assert_eq!(tsar_time(0), "01/01/70-00:00:00");
        // 2024-02-29 13:45:07 UTC
        assert_eq!(tsar_time(1_709_214_307_000), "29/02/24-13:45:07");
    }
}
