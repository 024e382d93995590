//! One SSH login to a host, for commands, installs and starting processes.

use std::time::Duration;

use dbdyno_ssh::{self as ssh, CommandOutput, SshConnection, SshTarget};

use crate::{ps, Installed, Platform, RemoteError, RemoteProcess};

/// How long one command (a checksum of a large binary included) may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// A host reached over SSH. Commands share its one session; every process started on
/// it gets a session of its own, so a process's reads never wait behind a command.
pub struct RemoteHost {
    pub(crate) target: SshTarget,
    pub(crate) conn: SshConnection,
    pub(crate) name: String,
    pub(crate) local_platform: Platform,
    pub(crate) cache_dir: Option<String>,
}

impl std::fmt::Debug for RemoteHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteHost")
            .field("name", &self.name)
            .finish()
    }
}

impl RemoteHost {
    /// Opens the SSH login (host key verified, as the monitor's connections are).
    pub fn connect(target: &SshTarget) -> Result<RemoteHost, RemoteError> {
        // libssh2 ends a blocking wait ("Timed out waiting on socket") once a keepalive
        // interval passes without data, which would fail a checksum of a large binary
        // that takes longer; this session's commands are bounded by COMMAND_TIMEOUT.
        let mut commands = target.clone();
        commands.keepalive = Duration::from_secs(3600);
        let conn = ssh::connect(&commands)?;
        conn.set_timeout(COMMAND_TIMEOUT);
        Ok(RemoteHost {
            name: format!("{}@{}", target.user, target.addr()),
            target: target.clone(),
            conn,
            local_platform: Platform::local(),
            cache_dir: None,
        })
    }

    /// The platform the binaries to install are built for (default: this program's).
    /// Tests use it to stage a mismatch; it would also let a build for another
    /// platform be installed from here.
    pub fn with_local_platform(mut self, platform: Platform) -> RemoteHost {
        self.local_platform = platform;
        self
    }

    /// Installs into `<dir>/<sha256>/dbdyno` instead of the per-user cache (tests use a
    /// private directory).
    pub fn with_cache_dir(mut self, dir: impl Into<String>) -> RemoteHost {
        self.cache_dir = Some(dir.into());
        self
    }

    /// `user@host:port`, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The host's OS and CPU, from `uname -sm`.
    pub fn platform(&self) -> Result<Platform, RemoteError> {
        let out = self.run_checked("uname -sm", "asking the OS and CPU (uname -sm)")?;
        Platform::from_uname(&out).ok_or_else(|| RemoteError::UnknownPlatform {
            host: self.name.clone(),
            output: out.trim().to_string(),
        })
    }

    /// Runs `command` (parsed by the login shell) and returns what it printed, whatever
    /// its exit status.
    pub fn run(&self, command: &str) -> Result<CommandOutput, RemoteError> {
        Ok(self.conn.run(command, None)?)
    }

    /// Starts `<installed.path> <args...>` with `env` set, stdin and stdout as a line
    /// channel, in a process group of its own, on an SSH session of its own.
    ///
    /// Environment values travel on the process's stdin before it starts, never on a
    /// command line, so a password does not show in `ps`. No PTY: when the connection
    /// goes, sshd closes the process's pipes and it reads end of input.
    pub fn spawn(
        &self,
        installed: &Installed,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<RemoteProcess, RemoteError> {
        let conn = ssh::connect(&self.target)?;
        RemoteProcess::start(conn, self.name.clone(), &installed.path, args, env)
    }

    /// PIDs of the processes on the host running `installed.path`.
    pub fn processes_of(&self, installed: &Installed) -> Result<Vec<u32>, RemoteError> {
        let out = self.run_checked(ps::LIST_PROCESSES, "listing processes (ps)")?;
        Ok(ps::pids_running(&out, &installed.path))
    }

    /// Runs a POSIX sh script through `sh -s` and returns its stdout if it exits 0.
    pub(crate) fn run_script(
        &self,
        script: &str,
        doing: &'static str,
    ) -> Result<String, RemoteError> {
        let out = self.conn.run("sh -s", Some(script))?;
        self.checked(out, doing)
    }

    fn run_checked(&self, command: &str, doing: &'static str) -> Result<String, RemoteError> {
        let out = self.conn.run(command, None)?;
        self.checked(out, doing)
    }

    fn checked(&self, out: CommandOutput, doing: &'static str) -> Result<String, RemoteError> {
        if out.status == 0 {
            Ok(out.stdout)
        } else {
            Err(RemoteError::Command {
                host: self.name.clone(),
                doing,
                status: out.status,
                stderr: out.stderr,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn hosts_and_processes_can_move_between_threads() {
        assert_send::<RemoteHost>();
        assert_send::<RemoteProcess>();
    }
}
