//! Monitoring around `run` and `ladder`: decides from the options whether and how to
//! reach the server's OS, starts the shared run monitor (`dbdyno_session`, the same one
//! the desktop app uses), prints the environment, what the samplers say, each step's
//! server figures right after the step, and the closing table.
//!
//! Only problems found before the first step (an unknown host key, wrong credentials)
//! stop the command, since the user asked for figures that would otherwise be missing.
//!
//! Non-goals: no sampling, alignment or storage (dbdyno_session, dbdyno_checks and the
//! history do those): this module is the CLI's voice.

use std::time::Duration;

use anyhow::{bail, Result};
use dbdyno_checks::{CheckStatus, HostAccess, StepServerFigures};
use dbdyno_engine::{EngineEvent, Plan};
use dbdyno_monitor::SshConnection;
use dbdyno_session::run_monitor::StartError;
use dbdyno_session::{Preflight, RunMonitor, Update};

pub use dbdyno_session::MonitoringReport;

use crate::args::{MonitorToggle, SshArgs};
use crate::ssh_target::{self, SshSpec};

/// Where monitoring lines go: stdout for the ladder, stderr for the sysbench form
/// (whose stdout stays exactly sysbench's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    Stdout,
    Stderr,
}

pub struct Session {
    out: Out,
    monitor: RunMonitor,
}

/// Longest wait after a step for the samples that end inside it.
const SETTLE: Duration = Duration::from_millis(2500);

/// How this command reaches the server's OS, decided once for the checks, the
/// environment snapshot and the monitoring.
pub struct Access {
    host: HostAccess,
    devices: Vec<String>,
    /// Monitoring was asked for (or is the default) and the plan has a measured step.
    monitor: bool,
    /// The session opened to check the host key, kept for the sampler.
    conn: Option<SshConnection>,
}

/// Decides whether to monitor `plan` (`default_on` false: the sysbench form, which
/// monitors only with an SSH host or `--monitor`) and how to reach the server's OS;
/// an SSH host key is checked (and accepted, when the user says so) here.
pub fn access(
    plan: &Plan,
    spec: &SshSpec,
    ssh: &SshArgs,
    toggle: &MonitorToggle,
    default_on: bool,
) -> Result<Access> {
    let monitor =
        plan.steps().next().is_some() && (default_on || spec.host.is_some() || toggle.monitor);
    let target = if toggle.no_monitor || !monitor {
        None
    } else {
        ssh_target::build_target(spec, ssh)?
    };
    let conn = match &target {
        Some(t) => Some(ssh_target::connect_trusted(t)?),
        None => None,
    };
    Ok(Access {
        host: HostAccess::decide(&plan.connect, target, toggle.no_monitor),
        devices: spec.devices(ssh),
        monitor,
        conn,
    })
}

/// Runs the prerequisite suite before anything starts: prints each WARN and FAIL
/// (stderr, so the sysbench form's stdout stays sysbench's) and refuses the plan on a
/// FAIL. The gathered facts serve the environment snapshot (`recorded`: the run goes to
/// the history) and the monitoring afterwards. With `skip` (`--skip-checks`) nothing is
/// judged or printed, and the facts are gathered only when monitoring or the history
/// needs them: the server then sees nothing but the benchmark's own statements.
pub fn preflight(
    plan: &Plan,
    access: &Access,
    skip: bool,
    recorded: bool,
) -> Result<Option<Preflight>> {
    if skip {
        return Ok((access.monitor || recorded)
            .then(|| Preflight::gather(plan, &access.host, &access.devices)));
    }
    let pre = Preflight::gather(plan, &access.host, &access.devices);
    for c in pre.problems() {
        eprintln!(
            "{:<5} {}  [{}]: {}",
            c.status.to_string(),
            c.title,
            c.id,
            c.seen
        );
        if c.status == CheckStatus::Fail {
            if let Some(f) = &c.fix {
                match &f.sql_or_command {
                    Some(cmd) => eprintln!("      fix:  {}: {cmd}", f.text),
                    None => eprintln!("      fix:  {}", f.text),
                }
            }
        }
    }
    if pre.failed() {
        let ids: Vec<&str> = pre
            .problems()
            .into_iter()
            .filter(|c| c.status == CheckStatus::Fail)
            .map(|c| c.id.as_str())
            .collect();
        bail!(
            "the prerequisite checks failed ({}), nothing was run. Fix them (`dbdyno check` with the \
             same options explains, `--fix` applies what it can), or add --skip-checks to run anyway",
            ids.join(", ")
        );
    }
    Ok(Some(pre))
}

/// Starts monitoring on the facts `pre` gathered, or returns `None` when it is not
/// wanted (see [`access`]).
pub fn start(
    plan: &Plan,
    access: Access,
    pre: Option<&Preflight>,
    out: Out,
) -> Result<Option<Session>> {
    let Some(pre) = pre.filter(|_| access.monitor) else {
        return Ok(None);
    };
    let monitor = match RunMonitor::start_gathered(
        plan,
        access.host,
        pre.environment().clone(),
        &pre.facts,
        access.conn,
    ) {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(None),
        Err(e @ StartError::Ssh(_)) => {
            bail!("{e}. Fix it, or add --no-monitor to run with MySQL-side metrics only")
        }
        Err(e) => return Err(e.into()),
    };
    let s = Session { out, monitor };
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

fn say(out: Out, line: &str) {
    match out {
        Out::Stdout => println!("{line}"),
        Out::Stderr => eprintln!("{line}"),
    }
}

/// Samples feed the step figures and the record: only the notes are printed.
fn print_updates(out: Out, updates: &[Update]) {
    for u in updates {
        if let Update::Note { warning, text } = u {
            if *warning {
                say(out, &format!("WARNING: {text}"));
            } else {
                say(out, text);
            }
        }
    }
}

impl Session {
    fn say(&self, line: &str) {
        say(self.out, line);
    }

    fn print_environment(&self) {
        let e = self.monitor.environment();
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
                self.monitor.access()
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
        for m in self.monitor.missing() {
            self.say(&format!("Missing: {}: {}", m.what, m.why));
        }
    }

    /// Call with every engine event: prints what the samplers said and, after a step,
    /// its server figures once its samples are in. Returns then what the history should
    /// keep at once (see `dbdyno_session::checkpoint`).
    pub fn on_event(&mut self, e: &EngineEvent) -> Option<MonitoringReport> {
        let polled = self.monitor.on_event(e, SETTLE);
        print_updates(self.out, &polled.updates);
        if let Some(f) = &polled.step {
            self.print_step(f);
        }
        polled.checkpoint
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
        if let (Some((since, reason)), false) = (self.monitor.os_down(), f.flags.is_empty()) {
            let for_s = (dbdyno_monitor::local::unix_ms_now() - since).max(0) as f64 / 1000.0;
            self.say(&format!(
                "  (no connection to the server for {for_s:.1} s so far: {reason}; reconnecting)"
            ));
        }
    }

    /// Stops the samplers, prints the per-step table and the sample-count verdict, and
    /// returns the record for `--json` and the history.
    pub fn finish(self) -> MonitoringReport {
        let out = self.out;
        let (report, updates) = self.monitor.finish();
        print_updates(out, &updates);
        if !report.steps.is_empty() {
            print_table(out, &report);
        }
        report
    }
}

fn print_table(out: Out, report: &MonitoringReport) {
    let steps = &report.steps;
    let say = |line: &str| say(out, line);
    let disk = report
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
            "Sample count: samples cover every second of every step ({} step(s))",
            steps.len()
        ));
    } else {
        say(&format!(
                "Sample count: {flagged} of {} step(s) flagged (fewer samples than seconds; see SAMPLE COUNT above)",
                steps.len()
            ));
    }
    for m in &report.missing {
        say(&format!("Missing metrics: {}: {}", m.what, m.why));
    }
}
