//! Monitoring around `run` and `ladder`: takes the environment snapshot, starts the
//! MySQL status sampler and the server monitor (SSH or local /proc), prints each step's
//! server figures right after the step, and hands the whole record to `--json`.
//!
//! The samplers never stop a benchmark: a lost SSH connection is reported, retried and
//! recorded as a gap; only problems found before the first step (an unknown host key,
//! wrong credentials) stop the command, since the user asked for figures that would
//! otherwise be missing.
//!
//! Non-goals: no aggregation (dbdyno_checks::timeline), no storage.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use dbdyno_checks::timeline::{SampleGap, Source};
use dbdyno_checks::{
    EnvironmentSnapshot, HostAccess, Missing, MysqlEvent, MysqlSampler, MysqlSamplerConfig,
    StepServerFigures, StepWindow, Timeline,
};
use dbdyno_engine::{EngineEvent, Plan};
use dbdyno_history::SampleRow;
use dbdyno_monitor::{DiskSelection, Monitor, MonitorConfig, SamplerEvent};
use serde::Serialize;

use crate::args::SshArgs;
use crate::ssh_target::{self, SshSpec};

/// Where monitoring lines go: stdout for the ladder, stderr for the sysbench form
/// (whose stdout stays exactly sysbench's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    Stdout,
    Stderr,
}

/// Everything monitoring recorded, for `--json` (key `monitoring`).
#[derive(Debug, Clone, Serialize)]
pub struct MonitoringReport {
    pub environment: EnvironmentSnapshot,
    /// "ssh root@db1:22", "this machine (/proc)" or "none".
    pub os_access: String,
    /// The devices sampled as the data disk (empty: every active device).
    pub devices: Vec<String>,
    pub steps: Vec<StepServerFigures>,
    pub gaps: Vec<SampleGap>,
    /// Metrics this run does not have, and why.
    pub missing: Vec<Missing>,
    pub os_samples: usize,
    pub mysql_samples: usize,
    /// Every per-second sample for the history's sample tables (not in `--json`):
    /// the monitor's `ServerSample` and the MySQL status sample, each stamped with the
    /// end of its interval on this machine's clock and the step whose window holds it.
    #[serde(skip)]
    pub server_rows: Vec<SampleRow>,
    #[serde(skip)]
    pub mysql_rows: Vec<SampleRow>,
}

pub struct Session {
    out: Out,
    environment: EnvironmentSnapshot,
    access: String,
    local: bool,
    devices: Vec<String>,
    mysql: Option<MysqlSampler>,
    os: Option<Monitor>,
    os_offset: Option<f64>,
    /// Since when (local ms) and why the OS sampler has no connection.
    os_down: Option<(i64, String)>,
    timeline: Timeline,
    windows: Vec<StepWindow>,
    missing: Vec<Missing>,
    /// Copies of the samples (local end ms, middle ms, JSON) for the history.
    os_rows: Vec<(i64, f64, serde_json::Value)>,
    mysql_rows: Vec<(i64, f64, serde_json::Value)>,
}

/// Longest wait after a step for the samples that end inside it.
const SETTLE: Duration = Duration::from_millis(2500);

/// Starts monitoring for `plan`, or returns `None` when it is not wanted: the plan has
/// no measured step, or (`default_on` false: the sysbench form) neither an SSH host nor
/// `--monitor` was given.
pub fn start(
    plan: &Plan,
    spec: &SshSpec,
    ssh: &SshArgs,
    default_on: bool,
    out: Out,
) -> Result<Option<Session>> {
    if plan.steps().next().is_none() || !(default_on || spec.host.is_some() || ssh.monitor) {
        return Ok(None);
    }
    let target = if ssh.no_monitor {
        None
    } else {
        ssh_target::build_target(spec, ssh)?
    };
    if let Some(t) = &target {
        ssh_target::ensure_trusted(t, spec.host_key_fingerprint.as_deref())?;
    }
    let access = HostAccess::decide(&plan.connect, target, ssh.no_monitor);
    let devices = spec.devices(ssh);
    let (environment, facts) = EnvironmentSnapshot::gather(&plan.connect, &access, &devices);
    if let Some(Err(p)) = &facts.host.ssh {
        bail!(
            "cannot monitor the server over SSH: {}. Fix it, or add --no-monitor to run with MySQL-side metrics only",
            p.message
        );
    }
    let devices = environment.monitored_devices();
    let mut s = Session {
        out,
        access: access.describe(),
        local: matches!(access, HostAccess::Local),
        devices: devices.clone(),
        mysql: None,
        os: None,
        os_offset: None,
        os_down: None,
        timeline: Timeline::new(Duration::from_secs(1)),
        windows: Vec::new(),
        missing: environment.missing.clone(),
        os_rows: Vec::new(),
        mysql_rows: Vec::new(),
        environment,
    };
    match MysqlSampler::start(MysqlSamplerConfig::new(plan.connect.clone())) {
        Ok(m) => s.mysql = Some(m),
        Err(e) => {
            let why = format!("the status sampler could not connect: {e}");
            s.timeline.set_mysql_missing(why.clone());
            s.missing.push(Missing::new(
                "MySQL status (QPS, hit rate, row locks, fsyncs)",
                why,
            ));
        }
    }
    match (access.monitor_target(), &access) {
        (Some(target), _) => {
            let mut cfg = MonitorConfig::new(target);
            if !devices.is_empty() {
                cfg.rates.disks = DiskSelection::Only(devices);
            }
            s.os = Some(Monitor::start(cfg)?);
        }
        (None, HostAccess::None { why }) => {
            s.timeline.set_os_missing(why.clone());
            s.missing.push(Missing::new(
                "server CPU, disk, memory and network",
                why.clone(),
            ));
        }
        (None, _) => {}
    }
    s.print_environment();
    Ok(Some(s))
}

/// "samples 5 (5.0 of 5.0 s)": the count and the seconds of the step they cover.
fn coverage(samples: u32, covered_s: f64, f: &StepServerFigures) -> String {
    let duration = (f.ended_unix_ms - f.started_unix_ms) as f64 / 1000.0;
    format!("samples {samples} ({covered_s:.1} of {duration:.1} s)")
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.1}%"))
}

impl Session {
    fn say(&self, line: &str) {
        match self.out {
            Out::Stdout => println!("{line}"),
            Out::Stderr => eprintln!("{line}"),
        }
    }

    fn print_environment(&self) {
        let e = &self.environment;
        if let Some(sv) = &e.server {
            self.say(&format!(
                "Server: {} {} on {} (datadir {})",
                sv.flavour,
                sv.version,
                sv.hostname.as_deref().unwrap_or("?"),
                sv.datadir.as_deref().unwrap_or("?")
            ));
        }
        if let Some(os) = &e.os {
            self.say(&format!(
                "Machine: {}, {} CPU(s), {:.1} GiB RAM, kernel {} (read via {})",
                os.cpu_model.as_deref().unwrap_or("unknown CPU"),
                os.cpus.map_or("?".into(), |c| c.to_string()),
                os.mem_total_mb.unwrap_or(0.0) / 1024.0,
                os.kernel.as_deref().unwrap_or("?"),
                self.access
            ));
        }
        for d in &e.data_disks {
            self.say(&format!(
                "Data disk: {} {} on {} → {}{}",
                d.role,
                d.path,
                if d.mount_point.is_empty() {
                    "?"
                } else {
                    &d.mount_point
                },
                if d.devices.is_empty() {
                    "no block device".into()
                } else {
                    d.devices.join(", ")
                },
                if d.overridden {
                    " (--device)"
                } else {
                    " (override with --device)"
                }
            ));
        }
        let c = &e.clocks;
        let mut clocks = Vec::new();
        if let Some(m) = c.mysql {
            clocks.push(format!(
                "MySQL {:+.1} ms (±{:.1})",
                m.offset_ms,
                m.rtt_ms / 2.0
            ));
        }
        if let Some(s) = c.ssh {
            clocks.push(format!(
                "SSH {:+.1} ms (±{:.1})",
                s.offset_ms,
                s.rtt_ms / 2.0
            ));
        }
        if !clocks.is_empty() {
            self.say(&format!(
                "Clock offset (server − client): {}",
                clocks.join(", ")
            ));
        }
        if e.client.same_host == Some(true) {
            self.say("WARNING: client and server are one machine: they share its CPUs (dbdyno check explains)");
        }
        for m in &self.missing {
            self.say(&format!("Missing: {}: {}", m.what, m.why));
        }
    }

    /// Call with every engine event: prints a step's server figures once its samples are in.
    pub fn on_event(&mut self, e: &EngineEvent) {
        self.drain();
        if let EngineEvent::StepFinished { step, result } = e {
            let w = StepWindow::from_result(*step, result);
            let deadline = Instant::now() + SETTLE;
            while !self.timeline.covers(&w) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
                self.drain();
            }
            let f = self.timeline.figures(&w);
            self.print_step(&f);
            self.windows.push(w);
        }
    }

    fn print_step(&self, f: &StepServerFigures) {
        let mut parts = Vec::new();
        match (&f.os, &f.os_missing) {
            (Some(os), _) => {
                let mut s = format!(
                    "cpu {} avg / {} max",
                    pct(os.cpu_util_avg),
                    pct(os.cpu_util_max)
                );
                if let Some(d) = os.disks.first() {
                    s.push_str(&format!(
                        ", disk {} util {:.1}% avg / {:.1}% max (r/s {:.1}, w/s {:.1}, await {:.2} ms)",
                        d.name, d.util_pct_avg, d.util_pct_max, d.r_per_s_avg, d.w_per_s_avg, d.await_ms_avg
                    ));
                }
                s.push_str(&format!(", {}", coverage(os.samples, os.covered_s, f)));
                parts.push(s);
            }
            (None, Some(why)) => parts.push(format!("OS metrics missing ({why})")),
            (None, None) => {}
        }
        if let Some(m) = &f.mysql {
            parts.push(format!(
                "mysql: hit rate {}, row lock waits {}, fsyncs/s {:.1}, {}",
                pct(m.hit_rate_pct),
                m.row_lock_waits,
                m.data_fsyncs_per_s_avg,
                coverage(m.samples, m.covered_s, f)
            ));
        }
        self.say(&format!("  server: {}", parts.join("; ")));
        for flag in &f.flags {
            self.say(&format!("  SAMPLE COUNT: {flag}"));
        }
        // A gap still open is only recorded once sampling resumes: say it now.
        if let (Some((since, reason)), false) = (&self.os_down, f.flags.is_empty()) {
            let for_s = (dbdyno_monitor::local::unix_ms_now() - since).max(0) as f64 / 1000.0;
            self.say(&format!(
                "  (no connection to the server for {for_s:.1} s so far: {reason}; reconnecting)"
            ));
        }
    }

    fn drain(&mut self) {
        let os: Vec<SamplerEvent> = self
            .os
            .as_ref()
            .map(|m| m.events().try_iter().collect())
            .unwrap_or_default();
        for ev in os {
            self.on_os(ev);
        }
        let my: Vec<MysqlEvent> = self
            .mysql
            .as_ref()
            .map(|m| m.events().try_iter().collect())
            .unwrap_or_default();
        for ev in my {
            self.on_mysql(ev);
        }
    }

    fn on_os(&mut self, ev: SamplerEvent) {
        match ev {
            SamplerEvent::Connected {
                addr,
                clock,
                reconnect,
                ..
            } => {
                self.os_down = None;
                self.os_offset = if self.local {
                    Some(0.0)
                } else {
                    clock.map(|c| c.offset_ms)
                };
                if reconnect {
                    self.say(&format!(
                        "server monitor: reconnected to {addr}; sampling resumes"
                    ));
                }
            }
            SamplerEvent::Sample(s) => {
                // The end on this machine's clock, as the timeline aligns it.
                let end_ms = match self.os_offset {
                    Some(o) => s.server_unix_ms as f64 - o,
                    None => s.local_unix_ms as f64,
                };
                if let Ok(v) = serde_json::to_value(&s) {
                    self.os_rows
                        .push((end_ms as i64, end_ms - s.interval_s * 500.0, v));
                }
                self.timeline.push_os(s, self.os_offset)
            }
            SamplerEvent::Disconnected { at_ms, reason } => {
                self.say(&format!(
                    "WARNING: server monitor lost {}: {reason}. The benchmark goes on; reconnecting",
                    self.access
                ));
                self.os_down = Some((at_ms, reason));
            }
            SamplerEvent::ReconnectFailed { .. } => {}
            SamplerEvent::Gap {
                from_ms,
                to_ms,
                reason,
            } => {
                let gap = SampleGap {
                    source: Source::Os,
                    from_ms,
                    to_ms,
                    reason,
                };
                self.say(&format!(
                    "server monitor: {:.1} s without samples ({})",
                    gap.seconds(),
                    gap.reason
                ));
                self.timeline.push_gap(gap);
            }
            SamplerEvent::Warning(w) => self.say(&format!("server monitor: {w}")),
            SamplerEvent::Stopped { reason: Some(r) } => {
                self.say(&format!("WARNING: server monitor stopped: {r}"))
            }
            SamplerEvent::Stopped { reason: None } => {}
        }
    }

    fn on_mysql(&mut self, ev: MysqlEvent) {
        match ev {
            MysqlEvent::Sample(s) => {
                let end_ms = s.local_unix_ms;
                if let Ok(v) = serde_json::to_value(&s) {
                    self.mysql_rows
                        .push((end_ms, end_ms as f64 - s.interval_s * 500.0, v));
                }
                self.timeline.push_mysql(s)
            }
            MysqlEvent::Connected {
                reconnect: true, ..
            } => self.say("mysql sampler: reconnected; sampling resumes"),
            MysqlEvent::Disconnected { reason, .. } => self.say(&format!(
                "WARNING: mysql sampler lost its connection: {reason}; reconnecting"
            )),
            MysqlEvent::Restarted { uptime_s, .. } => self.say(&format!(
                "mysql sampler: the server restarted (uptime {uptime_s} s): counters start over"
            )),
            MysqlEvent::Gap {
                from_ms,
                to_ms,
                reason,
            } => {
                let gap = SampleGap {
                    source: Source::Mysql,
                    from_ms,
                    to_ms,
                    reason,
                };
                self.say(&format!(
                    "mysql sampler: {:.1} s without samples ({})",
                    gap.seconds(),
                    gap.reason
                ));
                self.timeline.push_gap(gap);
            }
            MysqlEvent::Stopped { reason: Some(r) } => {
                self.say(&format!("WARNING: mysql sampler stopped: {r}"))
            }
            MysqlEvent::Connected { .. }
            | MysqlEvent::ReconnectFailed { .. }
            | MysqlEvent::Stopped { reason: None } => {}
        }
    }

    /// Stops the samplers, prints the per-step table and the sample-count verdict, and
    /// returns the record for `--json`.
    pub fn finish(mut self) -> MonitoringReport {
        // Keep the receivers: a gap still open is closed (and reported) by the stop.
        let os_rx = self.os.as_ref().map(|m| m.events().clone());
        let my_rx = self.mysql.as_ref().map(|m| m.events().clone());
        if let Some(m) = self.os.take() {
            m.stop();
        }
        if let Some(m) = self.mysql.take() {
            m.stop();
        }
        for ev in os_rx.iter().flat_map(|r| r.try_iter()).collect::<Vec<_>>() {
            self.on_os(ev);
        }
        for ev in my_rx.iter().flat_map(|r| r.try_iter()).collect::<Vec<_>>() {
            self.on_mysql(ev);
        }
        let steps: Vec<StepServerFigures> = self
            .windows
            .iter()
            .map(|w| self.timeline.figures(w))
            .collect();
        if !steps.is_empty() {
            self.print_table(&steps);
        }
        MonitoringReport {
            environment: self.environment.clone(),
            os_access: self.access.clone(),
            devices: self.devices.clone(),
            gaps: self.timeline.gaps().to_vec(),
            missing: self.missing.clone(),
            os_samples: self.timeline.os_samples(),
            mysql_samples: self.timeline.mysql_samples(),
            server_rows: self.sample_rows(&self.os_rows),
            mysql_rows: self.sample_rows(&self.mysql_rows),
            steps,
        }
    }

    /// The samples as history rows, each with the step whose window holds its middle.
    fn sample_rows(&self, rows: &[(i64, f64, serde_json::Value)]) -> Vec<SampleRow> {
        rows.iter()
            .map(|(end_ms, mid_ms, v)| SampleRow {
                step_index: self
                    .windows
                    .iter()
                    .find(|w| {
                        *mid_ms >= w.started_unix_ms as f64 && *mid_ms < w.ended_unix_ms as f64
                    })
                    .map(|w| w.step as u32),
                unix_ms: *end_ms,
                sample: v.clone(),
            })
            .collect()
    }

    fn print_table(&self, steps: &[StepServerFigures]) {
        let disk = self
            .devices
            .first()
            .map_or("disk".to_string(), |d| d.clone());
        self.say(&format!(
            "\nServer during each step (cpu = 100 − idle − iowait; disk = {disk}):\n{:<34} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10}",
            "step", "cpu avg", "cpu max", "disk avg", "disk max", "await ms", "hit rate", "samples", "covered s"
        ));
        for f in steps {
            let os = f.os.as_ref();
            let d = os.and_then(|o| o.disks.first());
            self.say(&format!(
                "{:<34} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10}",
                f.label,
                pct(os.and_then(|o| o.cpu_util_avg)),
                pct(os.and_then(|o| o.cpu_util_max)),
                pct(d.map(|d| d.util_pct_avg)),
                pct(d.map(|d| d.util_pct_max)),
                d.map_or("-".into(), |d| format!("{:.2}", d.await_ms_avg)),
                pct(f.mysql.as_ref().and_then(|m| m.hit_rate_pct)),
                format!(
                    "{}/{}",
                    os.map(|o| o.samples)
                        .or(f.mysql.as_ref().map(|m| m.samples))
                        .unwrap_or(0),
                    f.expected_samples
                ),
                format!(
                    "{:.1}/{:.1}",
                    os.map(|o| o.covered_s)
                        .or(f.mysql.as_ref().map(|m| m.covered_s))
                        .unwrap_or(0.0),
                    (f.ended_unix_ms - f.started_unix_ms) as f64 / 1000.0
                )
            ));
        }
        let flagged = steps.iter().filter(|f| !f.sample_count_ok()).count();
        if flagged == 0 {
            self.say(&format!(
                "Sample count: samples cover every second of every step ({} step(s))",
                steps.len()
            ));
        } else {
            self.say(&format!(
                "Sample count: {flagged} of {} step(s) flagged (fewer samples than seconds; see SAMPLE COUNT above)",
                steps.len()
            ));
        }
        for m in &self.missing {
            self.say(&format!("Missing metrics: {}: {}", m.what, m.why));
        }
    }
}
