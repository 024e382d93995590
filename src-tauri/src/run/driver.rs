//! Drives one run: the engine runs on a thread of its own; this thread receives its
//! events and the monitor's samples, records them in the history (as the CLI does),
//! and sends throttled snapshots to the window. Long work never touches the UI thread.

use std::time::{Duration, Instant};

use crossbeam_channel::{never, select, unbounded, Receiver};
use dbdyno_engine::{run_plan, CancelToken, EngineEvent, EventSink, Plan};
use dbdyno_history::{HistoryWriter, RunState, SampleRow};
use dbdyno_monitor::{Monitor, SamplerEvent, ServerSample};
use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

use super::live::LiveRun;
use super::snapshot::{LogLevel, RunSnapshot};

/// At most this many snapshots a second reach the window.
pub const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

pub struct RunJob {
    pub plan: Plan,
    pub env: String,
    pub recorder: Option<HistoryWriter>,
    pub history_error: Option<String>,
    pub monitor: Option<Monitor>,
    pub monitor_error: Option<String>,
    /// Kernel names of the data disk, for the disk chart (empty: the busiest disk).
    pub data_devices: Vec<String>,
    pub cancel: CancelToken,
}

/// Runs the job to the end, calling `send` with each snapshot (the last one final).
pub fn drive(job: RunJob, send: impl Fn(RunSnapshot)) {
    let RunJob {
        plan,
        env,
        recorder,
        history_error,
        monitor,
        monitor_error,
        data_devices,
        cancel,
    } = job;
    let start_unix_ms = dbdyno_history::time::now_ms();
    let mut live = LiveRun::new(
        &plan,
        &env,
        recorder.as_ref().map(|r| r.run_id()),
        start_unix_ms,
    );
    if let Some(e) = history_error {
        live.note_history(format!("not recorded in the history: {e}"));
    }
    if let Some(e) = monitor_error {
        live.monitor_note(LogLevel::Warning, format!("server charts unavailable: {e}"));
    }
    let (tx, rx) = unbounded();
    let sink = EventSink::new(tx);
    let mut client = ClientCpu::new();
    let (outcome, error) = std::thread::scope(|scope| {
        let engine = {
            let cancel = cancel.clone();
            let plan = &plan;
            scope.spawn(move || run_plan(plan, &sink, &cancel))
        };
        let samples: Receiver<SamplerEvent> =
            monitor.as_ref().map_or_else(never, |m| m.events().clone());
        let mut last_send = Instant::now() - SNAPSHOT_EVERY;
        let mut last_client = Instant::now();
        let mut cancel_seen = false;
        loop {
            select! {
                recv(rx) -> e => if let Ok(e) = e {
                    on_event(&mut live, recorder.as_ref(), &e);
                },
                recv(samples) -> s => if let Ok(s) = s {
                    on_sample(&mut live, recorder.as_ref(), &data_devices, s);
                },
                default(Duration::from_millis(50)) => {}
            }
            if cancel.is_cancelled() && !cancel_seen {
                cancel_seen = true;
                live.cancel_requested();
            }
            if last_client.elapsed() >= Duration::from_secs(1) {
                last_client = Instant::now();
                if let Some(pct) = client.percent_of_machine() {
                    live.client_cpu(dbdyno_history::time::now_ms(), pct);
                }
            }
            if engine.is_finished() && rx.is_empty() {
                break;
            }
            if last_send.elapsed() >= SNAPSHOT_EVERY {
                last_send = Instant::now();
                send(live.snapshot());
            }
        }
        engine.join().unwrap_or_else(|_| {
            (
                Default::default(),
                Some(dbdyno_engine::EngineError::Internal(
                    "the engine thread panicked".into(),
                )),
            )
        })
    });
    if let Some(m) = monitor {
        m.stop();
    }
    live.finish(&outcome, error.as_ref());
    if let Some(r) = recorder {
        let (state, failure) = match (&error, outcome.cancelled) {
            (Some(e), _) => (RunState::Failed, Some(e.to_string())),
            (None, true) => (RunState::Cancelled, None),
            (None, false) => (RunState::Complete, None),
        };
        let report = r.finish(state, failure);
        if !report.errors.is_empty() {
            live.note_history(format!("history: {}", report.errors.join("; ")));
        }
    }
    send(live.snapshot());
}

fn on_event(live: &mut LiveRun, recorder: Option<&HistoryWriter>, e: &EngineEvent) {
    live.apply(e);
    if let Some(r) = recorder {
        r.record(e);
    }
}

fn on_sample(
    live: &mut LiveRun,
    recorder: Option<&HistoryWriter>,
    devices: &[String],
    e: SamplerEvent,
) {
    match e {
        SamplerEvent::Sample(s) => {
            live.server_sample(
                s.local_unix_ms,
                s.cpu.map(|c| c.util),
                disk_util(&s, devices),
            );
            if let (Some(r), Ok(json)) = (recorder, serde_json::to_value(&s)) {
                r.add_server_samples(vec![SampleRow {
                    step_index: live.current_step(),
                    unix_ms: s.local_unix_ms,
                    sample: json,
                }]);
            }
        }
        SamplerEvent::Disconnected { reason, .. } => {
            live.monitor_note(LogLevel::Warning, format!("server sampling lost: {reason}"))
        }
        SamplerEvent::Gap { from_ms, to_ms, .. } => live.monitor_note(
            LogLevel::Warning,
            format!(
                "no server samples for {:.1} s",
                (to_ms - from_ms) as f64 / 1000.0
            ),
        ),
        SamplerEvent::Warning(w) => live.monitor_note(LogLevel::Warning, w),
        SamplerEvent::Stopped { reason: Some(r) } => {
            live.monitor_note(LogLevel::Warning, format!("server sampling stopped: {r}"))
        }
        _ => {}
    }
}

/// %util of the data disk (the busiest of its devices), else of the busiest disk.
fn disk_util(s: &ServerSample, devices: &[String]) -> Option<f64> {
    s.disks
        .iter()
        .filter(|d| devices.is_empty() || devices.contains(&d.name))
        .map(|d| d.util_pct)
        .fold(None, |acc: Option<f64>, u| {
            Some(acc.map_or(u, |a| a.max(u)))
        })
}

/// This process's CPU, as a share of all client cores, between two calls.
struct ClientCpu {
    sys: System,
    pid: Pid,
    last: Option<(Instant, u64)>,
    cores: f64,
}

impl ClientCpu {
    fn new() -> ClientCpu {
        ClientCpu {
            sys: System::new(),
            pid: sysinfo::get_current_pid().unwrap_or(Pid::from(0)),
            last: None,
            cores: dbdyno_engine::exec::client_cores() as f64,
        }
    }

    fn percent_of_machine(&mut self) -> Option<f64> {
        self.sys.refresh_processes_specifics(
            ProcessesToUpdate::Some(&[self.pid]),
            false,
            ProcessRefreshKind::nothing().with_cpu(),
        );
        let cpu_ms = self.sys.process(self.pid)?.accumulated_cpu_time();
        let now = Instant::now();
        let out = self.last.map(|(at, ms)| {
            let wall = now.duration_since(at).as_secs_f64() * 1000.0;
            ((cpu_ms.saturating_sub(ms)) as f64 / (wall * self.cores) * 100.0).clamp(0.0, 100.0)
        });
        self.last = Some((now, cpu_ms));
        out
    }
}
