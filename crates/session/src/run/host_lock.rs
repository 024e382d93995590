//! A run holds its database host's lock shared (crates/history's `host_lock`), so that
//! `dbdyno hwtest` and the app's "Measure the server", which take it exclusive, never
//! measure a host under load, and no run starts on a host being measured.

use dbdyno_checks::{Check, CheckStatus};
use dbdyno_engine::Plan;
use dbdyno_history::host_lock::{lock_host, HostLock, HostLockError, HostUse};
use dbdyno_monitor::HostAccess;

use super::HistoryTarget;

/// The check id of a refusal, for scripts and the app.
pub const CHECK_ID: &str = "host.hardware_test_running";

/// Takes the lock of the MySQL host (and of the SSH host, the same machine by another
/// name) in the history's directory. No directory to keep it in (no home directory) is
/// no lock rather than no run.
pub fn take(
    plan: &Plan,
    access: &HostAccess,
    history: Option<&HistoryTarget>,
) -> Result<Option<HostLock>, Box<Check>> {
    let given = history.and_then(|h| h.data_dir.as_deref());
    let Ok(dir) = dbdyno_history::paths::resolve_data_dir(given) else {
        return Ok(None);
    };
    let mut hosts = vec![plan.connect.host.as_str()];
    if let HostAccess::Ssh(target) = access {
        hosts.push(target.host.as_str());
    }
    match lock_host(&dir, &hosts, HostUse::Benchmark) {
        Ok(lock) => Ok(Some(lock)),
        Err(e @ HostLockError::HardwareTestRunning { .. }) => Err(Box::new(Check::new(
            CHECK_ID,
            "No hardware test on the host",
            CheckStatus::Fail,
            e.to_string(),
            "a hardware test saturates the disk and CPU the benchmark measures",
        ))),
        // A lock that cannot be kept (a read-only directory) must not stop benchmarks.
        Err(_) => Ok(None),
    }
}
