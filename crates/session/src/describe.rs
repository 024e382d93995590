//! The lines both shells show about what a monitored run is measured on: the server,
//! its machine, its data disk, the clock offsets, and the metrics the run will lack.
//! The CLI prints them before the first step; the app puts them in the Run screen's log.
//!
//! After each step, the server figures of the step ([`step_lines`]), and after the
//! run the table of every step ([`step_table`]), as the CLI prints them.
//!
//! Non-goals: no printing.

use dbdyno_engine::wording::count;
use dbdyno_monitor::StepServerFigures;

use crate::run_monitor::{MonitoringReport, RunMonitor};

/// One line about the run's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A fact: "Server: MariaDB 11.4 on db1 (datadir /var/lib/mysql)".
    Fact(String),
    /// Something that may skew the figures (the CLI prefixes it with "WARNING: ").
    Warning(String),
    /// "Missing: what: why": a metric the run will not have.
    Missing(String),
}

impl RunMonitor {
    /// What this run is measured on. `device_option`: how the user names the data disk
    /// in this shell ("--device"), said after the disk as chosen or as the way to
    /// override it.
    pub fn environment_lines(&self, device_option: &str) -> Vec<Line> {
        let e = self.environment();
        let mut out = Vec::new();
        if let Some(sv) = &e.server {
            out.push(Line::Fact(format!(
                "Server: {} {} on {} (datadir {})",
                sv.flavour,
                sv.version,
                sv.hostname.as_deref().unwrap_or("?"),
                sv.datadir.as_deref().unwrap_or("?")
            )));
        }
        if let Some(os) = &e.os {
            out.push(Line::Fact(format!(
                "Machine: {}, {}, {:.1} GiB RAM, kernel {} (read via {})",
                os.cpu_model.as_deref().unwrap_or("unknown CPU"),
                os.cpus.map_or("? CPUs".into(), |c| count(c, "CPU")),
                os.mem_total_mb.unwrap_or(0.0) / 1024.0,
                os.kernel.as_deref().unwrap_or("?"),
                self.access()
            )));
        }
        for d in &e.data_disks {
            out.push(Line::Fact(format!(
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
                    format!(" ({device_option})")
                } else {
                    format!(" (override with {device_option})")
                }
            )));
        }
        out.extend(self.clock_line().map(Line::Fact));
        if e.client.same_host == Some(true) {
            out.push(Line::Warning(
                "client and server are one machine: they share its CPUs (dbdyno check explains)"
                    .into(),
            ));
        }
        for m in self.missing() {
            out.push(Line::Missing(format!("Missing: {}: {}", m.what, m.why)));
        }
        out
    }

    /// "Clock offset (server − client): MySQL +0.3 ms (±0.1), SSH …", when measured.
    fn clock_line(&self) -> Option<String> {
        let c = &self.environment().clocks;
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
        (!clocks.is_empty())
            .then(|| format!("Clock offset (server − client): {}", clocks.join(", ")))
    }
}

/// "samples 5 (5.0 of 5.0 s)": the count and the seconds of the step they cover.
fn coverage(samples: u32, covered_s: f64, f: &StepServerFigures) -> String {
    let duration = (f.ended_unix_ms - f.started_unix_ms) as f64 / 1000.0;
    format!("samples {samples} ({covered_s:.1} of {duration:.1} s)")
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.1}%"))
}

/// A finished step's server figures, in a line or a few: CPU and data disk, MySQL,
/// sample-count flags, and a connection still down.
pub fn step_lines(f: &StepServerFigures, os_down: Option<(i64, &str)>) -> Vec<String> {
    let mut lines = Vec::new();
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
                    d.name,
                    d.util_pct_avg,
                    d.util_pct_max,
                    d.r_per_s_avg,
                    d.w_per_s_avg,
                    d.await_ms_avg
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
    lines.push(format!("  server: {}", parts.join("; ")));
    for flag in &f.flags {
        lines.push(format!("  SAMPLE COUNT: {flag}"));
    }
    // A gap still open is only recorded once sampling resumes: say it now.
    if let (Some((since, reason)), false) = (os_down, f.flags.is_empty()) {
        let for_s = (dbdyno_monitor::local::unix_ms_now() - since).max(0) as f64 / 1000.0;
        lines.push(format!(
            "  (no connection to the server for {for_s:.1} s so far: {reason}; reconnecting)"
        ));
    }
    lines
}

/// The per-step table and the sample-count verdict, after the run.
pub fn step_table(report: &MonitoringReport) -> Vec<String> {
    let steps = &report.record.steps;
    let mut lines = Vec::new();
    let mut say = |line: &str| lines.push(line.to_string());
    let disk = report
        .record
        .devices
        .first()
        .map_or("disk".to_string(), |d| d.clone());
    say(&format!(
            "\nServer during each step (cpu = 100 − idle − iowait; disk = {disk}):\n{:<34} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10}",
            "step", "cpu avg", "cpu max", "disk avg", "disk max", "await ms", "hit rate", "samples", "covered s"
        ));
    for f in steps {
        let os = f.os.as_ref();
        let d = os.and_then(|o| o.disks.first());
        say(&format!(
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
        say(&format!(
            "Sample count: samples cover every second of every step ({})",
            count(steps.len() as u32, "step")
        ));
    } else {
        say(&format!(
                "Sample count: {flagged} of {} flagged (fewer samples than seconds; see SAMPLE COUNT above)",
                count(steps.len() as u32, "step")
            ));
    }
    for m in &report.record.missing {
        say(&format!("Missing metrics: {}: {}", m.what, m.why));
    }
    lines
}
