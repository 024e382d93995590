//! Which disk holds MySQL's data: from a path on the server (`@@datadir`) to the
//! block devices whose /proc/diskstats lines the monitor should report.
//!
//! Two halves: [`facts`] gathers raw command output with one script (run over SSH or
//! locally), [`resolve`] is a pure function over it, tested on captured layouts under
//! `tests/fixtures/disk/`. The user can always override the answer (`--device`).
//!
//! Non-goals: no MySQL connection (the caller passes the datadir), no root needed.

pub mod device;
pub mod facts;
pub mod resolve;

pub use device::{check_devices, devices_script, CheckedDevices};
pub use facts::{facts_script, DiskFacts};
pub use resolve::resolve;

use dbdyno_ssh::{SshConnection, SshError};
use serde::{Deserialize, Serialize};

/// Where a path's I/O goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DataDisk {
    /// The path asked about (e.g. /var/lib/mysql/).
    pub path: String,
    pub mount_point: String,
    pub fs_type: String,
    /// The mount source as the system names it (/dev/mapper/vg0-mysql, overlay, …).
    pub source: String,
    /// Kernel names as in /proc/diskstats, top of the stack first (dm-0, md0, sda,
    /// sdb). Empty when no block device applies; `chain` then says why.
    pub devices: Vec<String>,
    /// The reasoning, one step per line, for the report and for `--explain`.
    pub chain: Vec<String>,
    /// True when `devices` came from the user instead of the resolver.
    pub overridden: bool,
}

impl DataDisk {
    /// Replaces the resolved devices with the user's choice (`--device`), keeping the
    /// resolver's reasoning for the record.
    pub fn with_device_override(mut self, devices: Vec<String>) -> DataDisk {
        self.chain.push(format!(
            "devices set by the user (--device): {} (the resolver had found: {})",
            devices.join(", "),
            if self.devices.is_empty() {
                "none".to_string()
            } else {
                self.devices.join(", ")
            }
        ));
        self.devices = devices;
        self.overridden = true;
        self
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DiskError {
    #[error("the data directory must be an absolute path, got {0:?}")]
    RelativePath(String),
    #[error("could not find the filesystem of {path}: findmnt, df and /proc/self/mountinfo gave no answer (does the path exist on the server?)")]
    NoMount { path: String },
    #[error("could not run the disk facts script locally: {0}")]
    Local(#[source] std::io::Error),
    #[error("the disk facts script failed locally: {0}")]
    LocalFailed(String),
    #[error("{given} is not a block device on {host} (block devices: {known})")]
    UnknownDevice {
        given: String,
        host: String,
        known: String,
    },
    #[error(transparent)]
    Ssh(#[from] SshError),
}

fn check_path(path: &str) -> Result<(), DiskError> {
    if path.starts_with('/') {
        Ok(())
    } else {
        Err(DiskError::RelativePath(path.to_string()))
    }
}

/// Runs the facts script on this machine and returns its raw output.
pub fn gather_local(path: &str) -> Result<String, DiskError> {
    check_path(path)?;
    run_local(&facts_script(path))
}

fn run_local(script: &str) -> Result<String, DiskError> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("sh")
        .arg("-s")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(DiskError::Local)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(script.as_bytes())
            .map_err(DiskError::Local)?;
    }
    let out = child.wait_with_output().map_err(DiskError::Local)?;
    if !out.status.success() {
        return Err(DiskError::LocalFailed(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs the facts script on the server and returns its raw output.
pub fn gather_remote(conn: &SshConnection, path: &str) -> Result<String, DiskError> {
    check_path(path)?;
    Ok(conn.run_script(&facts_script(path))?)
}

/// Resolves `path` on this machine.
pub fn resolve_local(path: &str) -> Result<DataDisk, DiskError> {
    resolve(&DiskFacts::parse(&gather_local(path)?))
}

/// Resolves `path` on the server behind `conn`.
pub fn resolve_remote(conn: &SshConnection, path: &str) -> Result<DataDisk, DiskError> {
    resolve(&DiskFacts::parse(&gather_remote(conn, path)?))
}

/// Checks the user's `--device` names on this machine.
pub fn check_devices_local(names: &[String]) -> Result<CheckedDevices, DiskError> {
    check_devices(&run_local(&devices_script(names))?, names, "this machine")
}

/// Checks the user's `--device` names on the server behind `conn`.
pub fn check_devices_remote(
    conn: &SshConnection,
    names: &[String],
) -> Result<CheckedDevices, DiskError> {
    let out = conn.run_script(&devices_script(names))?;
    check_devices(&out, names, conn.addr())
}
