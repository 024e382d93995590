//! The samplers of one run: takes the environment snapshot, starts the MySQL status
//! sampler and the server monitor (SSH or local /proc), learns each step's window from
//! the engine's events, and stops into the record stored with the run.
//!
//! The samplers never stop a benchmark: a lost connection is reported, retried and
//! recorded as a gap. Only problems found before the first step (an SSH host key or
//! login that fails) are returned by [`RunMonitor::start_gathered`], since the user asked for
//! figures that would otherwise be missing; the shell decides what to say.
//!
//! Non-goals: no aggregation ([`dbdyno_monitor::timeline`] does it), no printing, no
//! decision about whether to monitor at all (the shells' options decide).

use std::time::{Duration, Instant};

use dbdyno_checks::probe::Facts;
use dbdyno_checks::{EnvironmentSnapshot, Missing};
use dbdyno_engine::{EngineEvent, Plan};
use dbdyno_monitor::{
    DiskSelection, HostAccess, Monitor, MonitorConfig, MonitorError, MysqlEvent, MysqlSampler,
    MysqlSamplerConfig, SamplerEvent, StepServerFigures, StepWindow, Target, Timeline,
};
use dbdyno_results::{Monitoring, MysqlSample, Sampled, ServerSample};
use dbdyno_ssh::SshConnection;

use crate::fold::Fold;
pub use crate::fold::Update;

/// Everything monitoring recorded ([`Monitoring`]: `--json`'s key `monitoring`, and the
/// history's monitoring record), with the samples to store.
#[derive(Debug, Clone)]
pub struct MonitoringReport {
    /// The record, without its per-second samples.
    pub record: Monitoring,
    /// Per-second samples for the history's sample tables, those not handed out by an
    /// earlier checkpoint: the monitor's `ServerSample` and the MySQL status sample,
    /// each stamped with the end of its interval on this machine's clock and the step
    /// whose window holds it.
    pub server_rows: Vec<Sampled<ServerSample>>,
    pub mysql_rows: Vec<Sampled<MysqlSample>>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The server's OS is to be reached over SSH and cannot be (host key, login, network).
    #[error("cannot monitor the server over SSH: {0}")]
    Ssh(String),
    /// `--device` names something the server does not have.
    #[error("--device: {0}")]
    Device(String),
    #[error(transparent)]
    Monitor(#[from] MonitorError),
}

/// What the samplers said since the last call and, after a finished step, its figures.
#[derive(Debug, Default)]
pub struct Polled {
    pub updates: Vec<Update>,
    pub step: Option<StepServerFigures>,
    /// After a finished step: the record so far and the samples not stored yet, for
    /// [`crate::record::checkpoint`] (a run killed later keeps them).
    pub checkpoint: Option<MonitoringReport>,
}

pub struct RunMonitor {
    environment: EnvironmentSnapshot,
    access: String,
    devices: Vec<String>,
    missing: Vec<Missing>,
    mysql: Option<MysqlSampler>,
    os: Option<Monitor>,
    fold: Fold,
}

impl RunMonitor {
    /// Starts monitoring `plan` on the facts [`crate::Preflight`] gathered (the checks
    /// and the monitoring share one round of SSH and SQL), or returns `None` when it has
    /// no measured step. A MySQL sampler that cannot connect is recorded as missing
    /// metrics, not an error: the engine's own connection will say what is wrong.
    /// `conn`: an SSH session to `access`'s target the caller already opened (its host
    /// key check), which the sampler then uses instead of logging in again.
    pub fn start_gathered(
        plan: &Plan,
        access: HostAccess,
        environment: EnvironmentSnapshot,
        facts: &Facts,
        conn: Option<SshConnection>,
    ) -> Result<Option<RunMonitor>, StartError> {
        if plan.steps().next().is_none() {
            return Ok(None);
        }
        if let Some(Err(p)) = &facts.host.ssh {
            return Err(StartError::Ssh(p.message.clone()));
        }
        if let Some(e) = &facts.host.device_error {
            return Err(StartError::Device(e.clone()));
        }
        let devices = environment.monitored_devices();
        let mut timeline = Timeline::new(Duration::from_secs(1));
        let mut missing = environment.missing.clone();
        // The samplers give up on a silent server no later than the steps do.
        let stall = plan.stall_timeout();
        let mut mysql_config = MysqlSamplerConfig::new(plan.connect.clone());
        if let Some(s) = stall {
            mysql_config.stall_timeout = mysql_config.stall_timeout.min(s);
        }
        let mysql = match MysqlSampler::start(mysql_config) {
            Ok(m) => Some(m),
            Err(e) => {
                let why = format!("the status sampler could not connect: {e}");
                timeline.set_mysql_missing(why.clone());
                missing.push(Missing::new(
                    "MySQL status (QPS, hit rate, row locks, fsyncs)",
                    why,
                ));
                None
            }
        };
        let os = match (access.monitor_target(), &access) {
            (Some(target), _) => {
                let mut cfg = MonitorConfig::new(target);
                if let Some(s) = stall {
                    cfg.stall_timeout = cfg.stall_timeout.min(s);
                }
                if !devices.is_empty() {
                    cfg.rates.disks = DiskSelection::Only(devices.clone());
                }
                Some(match (conn, &cfg.target) {
                    (Some(c), Target::Ssh(_)) => Monitor::start_connected(cfg, c)?,
                    _ => Monitor::start(cfg)?,
                })
            }
            (None, HostAccess::None { why }) => {
                timeline.set_os_missing(why.clone());
                missing.push(Missing::new(
                    "server CPU, disk, memory and network",
                    why.clone(),
                ));
                None
            }
            (None, _) => None,
        };
        let access_text = access.describe();
        Ok(Some(RunMonitor {
            fold: Fold::new(
                access_text.clone(),
                matches!(access, HostAccess::Local),
                timeline,
            ),
            environment,
            access: access_text,
            devices,
            missing,
            mysql,
            os,
        }))
    }

    pub fn environment(&self) -> &EnvironmentSnapshot {
        &self.environment
    }

    /// "ssh root@db1:22", "this machine (/proc)" or "none".
    pub fn access(&self) -> &str {
        &self.access
    }

    /// The data disk's devices being sampled (empty: every active device).
    pub fn devices(&self) -> &[String] {
        &self.devices
    }

    /// Metrics this run will not have, and why.
    pub fn missing(&self) -> &[Missing] {
        &self.missing
    }

    /// Since when (local Unix ms) and why the OS sampler has no connection, if so.
    pub fn os_down(&self) -> Option<(i64, &str)> {
        self.fold.os_down()
    }

    /// Everything the samplers sent since the last call. Never blocks.
    pub fn poll(&mut self) -> Vec<Update> {
        let os: Vec<SamplerEvent> = self
            .os
            .as_ref()
            .map(|m| m.events().try_iter().collect())
            .unwrap_or_default();
        let my: Vec<MysqlEvent> = self
            .mysql
            .as_ref()
            .map(|m| m.events().try_iter().collect())
            .unwrap_or_default();
        self.fold_events(os, my)
    }

    fn fold_events(&mut self, os: Vec<SamplerEvent>, my: Vec<MysqlEvent>) -> Vec<Update> {
        let mut out = Vec::new();
        for ev in os {
            out.extend(self.fold.os(ev));
        }
        for ev in my {
            out.extend(self.fold.mysql(ev));
        }
        out
    }

    /// Call with every engine event. A finished step's window is kept; with a
    /// `settle` time, this waits up to that long for the samples that end inside the
    /// step, so its figures are complete when returned (the CLI prints them at once;
    /// the app passes zero and never stalls its snapshots).
    pub fn on_event(&mut self, e: &EngineEvent, settle: Duration) -> Polled {
        let mut updates = self.poll();
        let step = match e {
            EngineEvent::StepFinished { step, result } => {
                let w = StepWindow {
                    step: *step,
                    label: dbdyno_engine::threads_label(result.scenario, result.threads),
                    started_unix_ms: result.started_unix_ms,
                    ended_unix_ms: result.ended_unix_ms,
                };
                let deadline = Instant::now() + settle;
                while !self.fold.timeline.covers(&w) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(50));
                    updates.extend(self.poll());
                }
                let f = self.fold.timeline.figures(&w);
                self.fold.windows.push(w);
                Some(f)
            }
            _ => None,
        };
        let checkpoint = step.as_ref().map(|_| {
            let until = self.fold.windows.last().map(|w| w.ended_unix_ms as f64);
            self.report(until)
        });
        Polled {
            updates,
            step,
            checkpoint,
        }
    }

    /// The record as it stands, with the samples not handed out yet up to `until_ms`.
    fn report(&mut self, until_ms: Option<f64>) -> MonitoringReport {
        let (server_rows, mysql_rows) = self.fold.take_rows(until_ms);
        let f = &self.fold;
        MonitoringReport {
            record: Monitoring {
                steps: f.windows.iter().map(|w| f.timeline.figures(w)).collect(),
                gaps: f.timeline.gaps().to_vec(),
                os_samples: f.timeline.os_samples(),
                environment: self.environment.clone(),
                os_access: self.access.clone(),
                devices: self.devices.clone(),
                missing: self.missing.clone(),
                server_samples: Vec::new(),
                mysql_samples: Vec::new(),
            },
            server_rows,
            mysql_rows,
        }
    }

    /// Stops the samplers and returns the record, with what they said last (a gap still
    /// open is closed, and reported, by the stop). Its sample rows are those no
    /// checkpoint handed out.
    pub fn finish(mut self) -> (MonitoringReport, Vec<Update>) {
        let os_rx = self.os.as_ref().map(|m| m.events().clone());
        let my_rx = self.mysql.as_ref().map(|m| m.events().clone());
        if let Some(m) = self.os.take() {
            m.stop();
        }
        if let Some(m) = self.mysql.take() {
            m.stop();
        }
        let updates = self.fold_events(
            os_rx.iter().flat_map(|r| r.try_iter()).collect(),
            my_rx.iter().flat_map(|r| r.try_iter()).collect(),
        );
        let report = self.report(None);
        (report, updates)
    }
}
