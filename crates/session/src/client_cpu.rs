//! This process's CPU while a run goes on, read once a second for the app's live chart
//! of the load generator (the engine measures each step's client CPU itself).
//!
//! Non-goals: other processes, per-thread figures.

use std::time::Instant;

use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

/// This process's CPU, as a share of all client cores, between two calls.
pub(crate) struct ClientCpu {
    sys: System,
    pid: Pid,
    last: Option<(Instant, u64)>,
    cores: f64,
}

impl ClientCpu {
    pub(crate) fn new() -> ClientCpu {
        ClientCpu {
            sys: System::new(),
            pid: sysinfo::get_current_pid().unwrap_or(Pid::from(0)),
            last: None,
            cores: dbdyno_engine::exec::client_cores() as f64,
        }
    }

    /// Percent of the machine since the previous call (None the first time).
    pub(crate) fn percent_of_machine(&mut self) -> Option<f64> {
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
