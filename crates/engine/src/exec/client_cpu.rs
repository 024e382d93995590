//! The load generator's own CPU use, so a report can tell a client-bound result from a
//! server-bound one.

use sysinfo::{Pid, ProcessRefreshKind, ProcessesToUpdate, System};

pub struct CpuClock {
    sys: System,
    pid: Pid,
}

impl CpuClock {
    pub fn new() -> Self {
        CpuClock {
            sys: System::new(),
            pid: sysinfo::get_current_pid().unwrap_or(Pid::from(0)),
        }
    }

    /// CPU milliseconds (user + system) this process has used so far.
    pub fn cpu_ms(&mut self) -> u64 {
        self.sys.refresh_processes_specifics(
            ProcessesToUpdate::Some(&[self.pid]),
            false,
            ProcessRefreshKind::nothing().with_cpu(),
        );
        self.sys
            .process(self.pid)
            .map(|p| p.accumulated_cpu_time())
            .unwrap_or(0)
    }
}

impl Default for CpuClock {
    fn default() -> Self {
        Self::new()
    }
}

pub fn client_cores() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1)
}
