//! `dbdyno agent` as a child process: stdin for orders, stdout for reports.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};

use super::{Launcher, Transport, TransportError};
use crate::spec::ClientSpec;

/// How long a stopped agent gets to exit on its own before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// Starts agents from `binary` on this machine (for `local`; for every client when
/// `all_local`, the tests' stand-in for other machines).
pub struct LocalLauncher {
    pub binary: PathBuf,
    pub all_local: bool,
}

impl LocalLauncher {
    /// This very program: the CLI runs `dbdyno agent` from its own binary.
    pub fn this_binary() -> Result<LocalLauncher, TransportError> {
        let binary = std::env::current_exe().map_err(|e| TransportError::Start(e.to_string()))?;
        Ok(LocalLauncher {
            binary,
            all_local: false,
        })
    }
}

impl Launcher for LocalLauncher {
    fn launch(&self, spec: &ClientSpec) -> Result<Box<dyn Transport>, TransportError> {
        if !spec.is_local() && !self.all_local {
            return Err(TransportError::Start(format!(
                "{spec} is not this machine: an SSH client needs the SSH transport"
            )));
        }
        Ok(Box::new(ChildAgent::spawn(&self.binary)?))
    }
}

/// A running child agent; its stdout is read on a thread into a channel.
pub struct ChildAgent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl ChildAgent {
    pub fn spawn(binary: &std::path::Path) -> Result<ChildAgent, TransportError> {
        let mut child = Command::new(binary)
            .arg("agent")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| TransportError::Start(format!("{}: {e}", binary.display())))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = crossbeam_channel::unbounded();
        std::thread::Builder::new()
            .name("dbdyno-agent-reports".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| TransportError::Start(e.to_string()))?;
        Ok(ChildAgent {
            stdin: child.stdin.take(),
            child,
            lines,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Transport for ChildAgent {
    fn send_line(&mut self, line: &str) -> Result<(), TransportError> {
        // Writing into the pipe of an agent that ended would raise SIGPIPE, which ends
        // `dbdyno` (it keeps the default action, as command-line tools do).
        if !matches!(self.child.try_wait(), Ok(None)) {
            self.stdin = None;
            return Err(TransportError::Closed);
        }
        let stdin = self.stdin.as_mut().ok_or(TransportError::Closed)?;
        writeln!(stdin, "{line}")
            .and_then(|_| stdin.flush())
            .map_err(|_| TransportError::Closed)
    }

    fn recv_line(&mut self, timeout: Duration) -> Result<Option<String>, TransportError> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Ok(Some(line)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(TransportError::Closed),
        }
    }

    fn stop(&mut self) {
        // The end of its input is the agent's signal to stop and exit.
        self.stdin = None;
        let deadline = Instant::now() + EXIT_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ChildAgent {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}
