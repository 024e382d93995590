//! The agent on another machine: DB Dyno's own binary copied there over SSH (checked by
//! SHA-256, kept in a per-user cache and reused) and started with its stdin and stdout
//! as the line channel (`dbdyno-remote`). When the SSH connection dies, sshd closes the
//! agent's stdin and the agent exits: nothing is left behind.

use std::path::PathBuf;
use std::time::Duration;

use dbdyno_remote::{Installed, RemoteError, RemoteHost, RemoteProcess};
use dbdyno_ssh::SshTarget;

use super::local::LocalLauncher;
use super::{Launcher, Transport, TransportError};
use crate::spec::ClientSpec;

/// Starts `local` on this machine and every `ssh://` client over SSH.
pub struct SshLauncher {
    /// Each SSH client's login (host, port, user, key or password, known hosts): the
    /// profile's `[[clients]]` entry for it, else the SSH options given for the server.
    pub logins: Vec<(ClientSpec, SshTarget)>,
    /// The binary copied to the clients.
    pub binary: PathBuf,
    pub local: LocalLauncher,
    /// Install into this directory instead of the per-user cache (tests).
    pub cache_dir: Option<String>,
}

impl SshLauncher {
    /// The login of one client, if it has one.
    pub fn target_of(&self, spec: &ClientSpec) -> Option<&SshTarget> {
        self.logins.iter().find(|(s, _)| s == spec).map(|(_, t)| t)
    }

    /// Logs in to the client, copies the binary unless its checksum is already there.
    pub fn install(&self, target: &SshTarget) -> Result<(RemoteHost, Installed), RemoteError> {
        let mut host = RemoteHost::connect(target)?;
        if let Some(dir) = &self.cache_dir {
            host = host.with_cache_dir(dir.clone());
        }
        let installed = host.install(&self.binary)?;
        Ok((host, installed))
    }
}

impl Launcher for SshLauncher {
    fn launch(&self, spec: &ClientSpec) -> Result<Box<dyn Transport>, TransportError> {
        if spec.is_local() {
            return self.local.launch(spec);
        }
        let target = self
            .target_of(spec)
            .ok_or_else(|| TransportError::Start(format!("no SSH login for {spec}")))?;
        let start = |e: RemoteError| TransportError::Start(e.to_string());
        let (host, installed) = self.install(target).map_err(start)?;
        let process = host
            .spawn(&installed, &["agent".to_string()], &[])
            .map_err(start)?;
        Ok(Box::new(SshAgent {
            _host: host,
            installed,
            process,
        }))
    }
}

/// An agent running on another machine.
pub struct SshAgent {
    /// The login its install used (kept open for the agent's lifetime).
    _host: RemoteHost,
    installed: Installed,
    process: RemoteProcess,
}

fn transport_error(e: RemoteError) -> TransportError {
    match e {
        RemoteError::Closed { .. } => TransportError::Closed,
        other => TransportError::Io(other.to_string()),
    }
}

impl Transport for SshAgent {
    fn send_line(&mut self, line: &str) -> Result<(), TransportError> {
        self.process.send_line(line).map_err(transport_error)
    }

    fn recv_line(&mut self, timeout: Duration) -> Result<Option<String>, TransportError> {
        self.process.recv_line(timeout).map_err(transport_error)
    }

    fn stop(&mut self) {
        let _ = self.process.kill();
    }

    fn note(&self) -> Option<String> {
        Some(if self.installed.copied {
            format!("DB Dyno copied to {}", self.installed.path)
        } else {
            format!(
                "DB Dyno already at {} (same checksum): copy skipped",
                self.installed.path
            )
        })
    }
}
