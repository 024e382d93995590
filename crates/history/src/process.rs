//! Who writes a run: the process id and its start time, so that a run left "running"
//! can be told apart from one still being written (a reused pid has another start time).

use sysinfo::{Pid, ProcessRefreshKind, ProcessStatus, ProcessesToUpdate, System};

/// This process: (pid, start time in seconds since the Unix epoch).
pub fn current() -> (u32, u64) {
    let pid = std::process::id();
    (pid, start_time(pid).unwrap_or(0))
}

/// Start time of a live (not zombie) process, seconds since the Unix epoch.
fn start_time(pid: u32) -> Option<u64> {
    let pid = Pid::from_u32(pid);
    let mut sys = System::new();
    sys.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[pid]),
        true,
        ProcessRefreshKind::nothing(),
    );
    let p = sys.process(pid)?;
    match p.status() {
        ProcessStatus::Zombie | ProcessStatus::Dead => None,
        _ => Some(p.start_time()),
    }
}

/// True when `pid` runs and started at `started_s` (±1 s: the clock reads are rounded).
pub fn is_alive(pid: u32, started_s: u64) -> bool {
    start_time(pid).is_some_and(|s| s.abs_diff(started_s) <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_finished_one_is_not() {
        let (pid, start) = current();
        assert!(start > 0);
        assert!(is_alive(pid, start));
        assert!(
            !is_alive(pid, start + 3600),
            "another start time is another process"
        );
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let cpid = child.id();
        child.wait().unwrap();
        assert!(!is_alive(cpid, start));
    }
}
