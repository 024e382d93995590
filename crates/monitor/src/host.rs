//! How DB Dyno reaches the database server's operating system: over SSH, directly (the
//! database runs on this machine), or not at all (a managed database, or the user
//! said `--no-monitor`), and a small shell for running fact scripts either way.
//!
//! Non-goals: no sampling loop ([`crate::Monitor`] owns it), no prompts.

use std::io::Write;
use std::net::{IpAddr, UdpSocket};
use std::process::{Command, Stdio};

use dbdyno_mysql::ConnectOptions;

use crate::disk::{self, DataDisk, DiskError};
use crate::Target;
use dbdyno_ssh::{SshConnection, SshError, SshTarget};

/// Why a fact script did not run.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error(transparent)]
    Ssh(#[from] SshError),

    #[error("cannot run a script on this machine ({doing}): {source}")]
    Local {
        doing: &'static str,
        #[source]
        source: std::io::Error,
    },

    #[error("the script on {host} failed: {message}")]
    Script { host: String, message: String },
}

/// Where OS-side facts and samples come from.
// One per run, made once and cloned a handful of times: boxing the target would buy
// nothing but a `Box::new` at every caller.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum HostAccess {
    Ssh(SshTarget),
    /// The database runs on this machine: read /proc here.
    Local,
    /// No OS access; `why` goes into the results' list of missing metrics.
    None {
        why: String,
    },
}

impl HostAccess {
    /// SSH when a target is given; otherwise local /proc when the database is on this
    /// machine; otherwise nothing (MySQL-side metrics only), saying why.
    pub fn decide(
        connect: &ConnectOptions,
        ssh: Option<SshTarget>,
        no_monitor: bool,
    ) -> HostAccess {
        if no_monitor {
            return HostAccess::None {
                why: "OS sampling turned off (--no-monitor), as for a managed database: MySQL-side metrics only".into(),
            };
        }
        match ssh {
            Some(t) => HostAccess::Ssh(t),
            None if is_local_endpoint(connect) => HostAccess::Local,
            None => HostAccess::None {
                why: format!(
                    "the database at {} is not on this machine and no --ssh-host was given (a managed database?): \
                     MySQL-side metrics only. Give --ssh-host/--ssh-user/--ssh-key to sample its CPU and disks",
                    connect.endpoint()
                ),
            },
        }
    }

    /// The [`Monitor`](crate::Monitor)'s target, when there is OS access.
    pub fn monitor_target(&self) -> Option<Target> {
        match self {
            HostAccess::Ssh(t) => Some(Target::Ssh(t.clone())),
            HostAccess::Local => Some(Target::Local),
            HostAccess::None { .. } => None,
        }
    }

    /// "ssh root@db1:22", "this machine (/proc)" or "none".
    pub fn describe(&self) -> String {
        match self {
            HostAccess::Ssh(t) => format!("ssh {}@{}", t.user, t.addr()),
            HostAccess::Local => "this machine (/proc)".into(),
            HostAccess::None { .. } => "none".into(),
        }
    }
}

/// True when the endpoint is this machine: a Unix socket, a loopback address, this
/// host's name, or an address bound to one of its interfaces.
pub fn is_local_endpoint(c: &ConnectOptions) -> bool {
    if c.socket.is_some() {
        return true;
    }
    let host = c.host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        // Binding succeeds only for an address of this machine; nothing is sent.
        return ip.is_loopback() || UdpSocket::bind((ip, 0)).is_ok();
    }
    local_hostname().is_some_and(|h| h.eq_ignore_ascii_case(host))
}

/// This machine's host name.
pub fn local_hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// An open way of running scripts on the server.
pub enum HostShell {
    Local,
    Ssh(SshConnection),
}

impl HostShell {
    /// Opens the shell for `access` (`None` for [`HostAccess::None`]). Over SSH this
    /// connects and authenticates, so host key and credential errors surface here.
    pub fn open(access: &HostAccess) -> Result<Option<HostShell>, SshError> {
        Ok(match access {
            HostAccess::Ssh(t) => Some(HostShell::Ssh(dbdyno_ssh::connect(t)?)),
            HostAccess::Local => Some(HostShell::Local),
            HostAccess::None { .. } => None,
        })
    }

    /// Runs a POSIX sh script and returns its stdout.
    pub fn run_script(&self, script: &str) -> Result<String, ShellError> {
        match self {
            HostShell::Ssh(c) => Ok(c.run_script(script)?),
            HostShell::Local => run_local_script(script),
        }
    }

    /// Which block devices hold `path` (see [`crate::disk`]).
    pub fn resolve_disk(&self, path: &str) -> Result<DataDisk, DiskError> {
        match self {
            HostShell::Ssh(c) => disk::resolve_remote(c, path),
            HostShell::Local => disk::resolve_local(path),
        }
    }

    /// Checks the user's `--device` names against the server's /proc/diskstats.
    pub fn check_devices(&self, names: &[String]) -> Result<disk::CheckedDevices, DiskError> {
        match self {
            HostShell::Ssh(c) => disk::check_devices_remote(c, names),
            HostShell::Local => disk::check_devices_local(names),
        }
    }

    pub fn ssh(&self) -> Option<&SshConnection> {
        match self {
            HostShell::Ssh(c) => Some(c),
            HostShell::Local => None,
        }
    }

    pub fn close(self) {
        if let HostShell::Ssh(c) = self {
            c.close();
        }
    }
}

fn run_local_script(script: &str) -> Result<String, ShellError> {
    let local = |doing| move |source| ShellError::Local { doing, source };
    let mut child = Command::new("sh")
        .arg("-s")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(local("starting sh"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(script.as_bytes())
            .map_err(local("sending the script"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(local("reading the output"))?;
    if !out.status.success() {
        return Err(ShellError::Script {
            host: "this machine".into(),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(host: &str) -> ConnectOptions {
        ConnectOptions {
            host: host.into(),
            ..Default::default()
        }
    }

    #[test]
    fn local_endpoints() {
        assert!(is_local_endpoint(&at("127.0.0.1")));
        assert!(is_local_endpoint(&at("localhost")));
        assert!(is_local_endpoint(&at("::1")));
        assert!(is_local_endpoint(&ConnectOptions {
            socket: Some("/tmp/x.sock".into()),
            host: "db.example.com".into(),
            ..Default::default()
        }));
        // TEST-NET-1 (RFC 5737): never an address of this machine.
        assert!(!is_local_endpoint(&at("192.0.2.1")));
    }

    #[test]
    fn access_decision_says_why() {
        assert!(matches!(
            HostAccess::decide(&at("127.0.0.1"), None, false),
            HostAccess::Local
        ));
        let HostAccess::None { why } = HostAccess::decide(&at("192.0.2.1"), None, false) else {
            panic!("a remote database without SSH has no OS access")
        };
        assert!(
            why.contains("managed") && why.contains("--ssh-host"),
            "{why}"
        );
        let HostAccess::None { why } = HostAccess::decide(&at("127.0.0.1"), None, true) else {
            panic!("--no-monitor")
        };
        assert!(why.contains("--no-monitor"), "{why}");
    }

    #[test]
    fn local_shell_runs_scripts() {
        let sh = HostShell::Local;
        assert_eq!(sh.run_script("echo hi\n").unwrap(), "hi\n");
        let e = sh.run_script("echo oops >&2; exit 3\n").unwrap_err();
        assert!(e.to_string().contains("oops"), "{e}");
    }
}
