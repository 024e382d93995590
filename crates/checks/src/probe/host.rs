//! The OS side of the facts: the SSH session's outcome and clock, the machine's facts
//! (one script, see [`crate::os_facts`]), and the disk under each directory MySQL
//! writes to, or the disks the user named with `--device`.
//!
//! Non-goals: no MySQL facts (the directories come from the caller), no verdicts.

use std::time::Instant;

use dbdyno_monitor::host::HostShell;
use dbdyno_monitor::{DataDisk, HostAccess};
use dbdyno_ssh::ClockSync;

use super::ssh::{SshOk, SshProblem};
use crate::os_facts::{self, OsFacts};

/// The OS side.
#[derive(Debug, Clone)]
pub struct HostFacts {
    /// "ssh root@db1:22", "this machine (/proc)" or "none".
    pub access: String,
    pub kind: AccessKind,
    /// Why there is no OS access (for `AccessKind::None`).
    pub none_why: Option<String>,
    /// The SSH session's outcome (for `AccessKind::Ssh`).
    pub ssh: Option<Result<SshOk, SshProblem>>,
    pub os: Option<OsFacts>,
    /// Why `os` is missing although access was possible.
    pub os_error: Option<String>,
    pub data_disks: Vec<RoleDisk>,
    pub disk_error: Option<String>,
    /// `--device` named something that is not a block device on the server.
    pub device_error: Option<String>,
    /// `--device` choices worth a warning (a partition instead of its disk).
    pub device_warnings: Vec<String>,
    pub clock: Option<ClockSync>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    Ssh,
    Local,
    None,
}

impl HostFacts {
    /// The facts before anything is read: how the OS is reached, and why not.
    fn unread(access: &HostAccess) -> HostFacts {
        HostFacts {
            access: access.describe(),
            kind: match access {
                HostAccess::Ssh(_) => AccessKind::Ssh,
                HostAccess::Local => AccessKind::Local,
                HostAccess::None { .. } => AccessKind::None,
            },
            none_why: match access {
                HostAccess::None { why } => Some(why.clone()),
                _ => None,
            },
            ssh: None,
            os: None,
            os_error: None,
            data_disks: Vec::new(),
            disk_error: None,
            device_error: None,
            device_warnings: Vec::new(),
            clock: None,
        }
    }
}

/// A directory MySQL writes to and the disk under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleDisk {
    /// "data directory", "redo log", "binary log"…
    pub role: String,
    pub disk: DataDisk,
}

pub(super) fn gather_host(
    access: &HostAccess,
    dirs: &[(String, String)],
    devices: &[String],
) -> HostFacts {
    let mut facts = HostFacts::unread(access);
    let t = Instant::now();
    let shell = match HostShell::open(access) {
        Ok(Some(s)) => s,
        Ok(None) => return facts,
        Err(e) => {
            facts.ssh = Some(Err(SshProblem::from_error(&e)));
            return facts;
        }
    };
    if let Some(c) = shell.ssh() {
        facts.ssh = Some(Ok(SshOk {
            fingerprint: c.host_key().fingerprint_sha256(),
            connect_ms: t.elapsed().as_secs_f64() * 1000.0,
        }));
        facts.clock = c.clock_sync(5).ok();
    }
    let paths: Vec<String> = dirs.iter().map(|(_, p)| p.clone()).collect();
    match shell.run_script(&os_facts::os_facts_script(&paths)) {
        Ok(out) => facts.os = Some(OsFacts::parse(&out)),
        Err(e) => facts.os_error = Some(e.to_string()),
    }
    read_disks(&shell, dirs, devices, &mut facts);
    shell.close();
    facts
}

/// The disk under each of MySQL's directories, then `--device` over the resolver's
/// answer; what failed goes into `disk_error` and `device_error`.
fn read_disks(
    shell: &HostShell,
    dirs: &[(String, String)],
    devices: &[String],
    facts: &mut HostFacts,
) {
    let mut errors = Vec::new();
    for (role, path) in dirs {
        match shell.resolve_disk(path) {
            Ok(disk) => facts.data_disks.push(RoleDisk {
                role: role.clone(),
                disk,
            }),
            Err(e) => errors.push(format!("{role} {path}: {e}")),
        }
    }
    if dirs.is_empty() {
        errors.push("the data directory is unknown (MySQL was not reachable or @@datadir is not an absolute path)".into());
    }
    if !devices.is_empty() {
        match shell.check_devices(devices) {
            Ok(checked) => {
                apply_device_override(&mut facts.data_disks, dirs, &checked.devices);
                facts.device_warnings = checked.warnings;
            }
            Err(e) => facts.device_error = Some(e.to_string()),
        }
    }
    if !errors.is_empty() {
        facts.disk_error = Some(errors.join("; "));
    }
}

/// `--device` replaces the resolver's answer: on the datadir's entry (kept for its
/// reasoning), or on a new one when the resolver found nothing.
fn apply_device_override(disks: &mut Vec<RoleDisk>, dirs: &[(String, String)], devices: &[String]) {
    if let Some(first) = disks.first_mut() {
        first.disk = first.disk.clone().with_device_override(devices.to_vec());
        disks.truncate(1);
    } else {
        disks.push(RoleDisk {
            role: "data directory".into(),
            disk: DataDisk {
                path: dirs.first().map(|(_, p)| p.clone()).unwrap_or_default(),
                mount_point: String::new(),
                fs_type: String::new(),
                source: String::new(),
                devices: devices.to_vec(),
                chain: vec![format!(
                    "devices set by the user (--device): {}",
                    devices.join(", ")
                )],
                overridden: true,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_override_replaces_the_resolver() {
        let dirs = vec![("data directory".to_string(), "/d".to_string())];
        let mut none = Vec::new();
        apply_device_override(&mut none, &dirs, &["nvme0n1".into()]);
        assert_eq!(none[0].disk.devices, ["nvme0n1"]);
        assert!(none[0].disk.overridden);
    }
}
