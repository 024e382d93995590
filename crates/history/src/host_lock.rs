//! One lock per database host, in the history's directory, so that a hardware test
//! never runs while a benchmark runs against the same host (its disk and CPU figures
//! would be the benchmark's leftovers, and the benchmark's figures the test's victims).
//!
//! A lock file per host name under `<data dir>/locks/`, held with flock(2): a run
//! takes it shared (runs may overlap each other), the hardware test exclusive. The
//! kernel releases it when the process ends, however it ends, so a crash leaves no
//! stale lock behind. A host is known by every name the caller has for it (the MySQL
//! host, the SSH host); taking any of them conflicts.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// Who takes the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostUse {
    /// A benchmark run (ladder, run): shared.
    Benchmark,
    /// A hardware test on the host: exclusive.
    HardwareTest,
}

#[derive(Debug, thiserror::Error)]
pub enum HostLockError {
    #[error("a benchmark is running against {host}: the hardware test waits for it to end")]
    BenchmarkRunning { host: String },
    #[error("a hardware test is running on {host}: wait for it to end before benchmarking it")]
    HardwareTestRunning { host: String },
    #[error("the host lock {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Held locks; dropping it releases them.
#[derive(Debug)]
pub struct HostLock {
    _files: Vec<File>,
}

/// Takes the lock of every name in `hosts` for `usage`, without waiting: a conflict is
/// an error naming who holds it.
pub fn lock_host(
    data_dir: &Path,
    hosts: &[&str],
    usage: HostUse,
) -> Result<HostLock, HostLockError> {
    let dir = data_dir.join("locks");
    std::fs::create_dir_all(&dir).map_err(|source| HostLockError::Io {
        path: dir.clone(),
        source,
    })?;
    // One order for every caller, so two takers never wait on each other crosswise.
    let mut names: Vec<(String, &str)> = hosts.iter().map(|h| (lock_key(h), *h)).collect();
    names.sort();
    names.dedup_by(|a, b| a.0 == b.0);
    let mut files = Vec::new();
    for (key, host) in names {
        let path = dir.join(format!("host-{key}.lock"));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| HostLockError::Io {
                path: path.clone(),
                source,
            })?;
        let operation = match usage {
            HostUse::Benchmark => libc::LOCK_SH,
            HostUse::HardwareTest => libc::LOCK_EX,
        } | libc::LOCK_NB;
        // SAFETY: flock on a file descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } != 0 {
            let source = std::io::Error::last_os_error();
            if source.kind() != std::io::ErrorKind::WouldBlock {
                return Err(HostLockError::Io { path, source });
            }
            let host = host.to_string();
            return Err(match usage {
                HostUse::Benchmark => HostLockError::HardwareTestRunning { host },
                HostUse::HardwareTest => HostLockError::BenchmarkRunning { host },
            });
        }
        files.push(file);
    }
    Ok(HostLock { _files: files })
}

/// The file name part for a host: lowercase, anything but letters, digits, dots and
/// dashes as `_` (IPv6 colons, a stray slash).
fn lock_key(host: &str) -> String {
    let host = host.trim().trim_start_matches('[').trim_end_matches(']');
    let host = if host.is_empty() { "localhost" } else { host };
    host.to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_share_and_the_hardware_test_excludes() {
        let dir = tempfile::tempdir().unwrap();
        let ladder = lock_host(dir.path(), &["db1", "10.0.0.5"], HostUse::Benchmark).unwrap();
        let second = lock_host(dir.path(), &["DB1"], HostUse::Benchmark).unwrap();
        let refused = lock_host(dir.path(), &["10.0.0.5"], HostUse::HardwareTest).unwrap_err();
        assert!(
            matches!(refused, HostLockError::BenchmarkRunning { .. }),
            "{refused}"
        );
        drop((ladder, second));
        let test = lock_host(dir.path(), &["db1"], HostUse::HardwareTest).unwrap();
        let refused = lock_host(dir.path(), &["db1"], HostUse::Benchmark).unwrap_err();
        assert!(
            matches!(refused, HostLockError::HardwareTestRunning { .. }),
            "{refused}"
        );
        drop(test);
        lock_host(dir.path(), &["db2"], HostUse::HardwareTest).unwrap();
    }

    #[test]
    fn names_become_file_names() {
        assert_eq!(lock_key("[::1]"), "__1");
        assert_eq!(lock_key("DB-1.example"), "db-1.example");
        assert_eq!(lock_key(""), "localhost");
    }
}
