//! How the coordinator reaches an agent: a line out, a line in, and a way to stop it.
//!
//! - [`local`]: `dbdyno agent` as a child process of this one (the `local` client, and
//!   the tests' stand-in for remote machines);
//! - [`ssh`]: the agent copied to and started on another machine (`dbdyno-remote`).

pub mod local;
pub mod ssh;

use std::time::Duration;

use crate::spec::ClientSpec;

/// A transport failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransportError {
    /// The agent's output ended: it exited, or the connection to it died.
    #[error("the agent's connection closed")]
    Closed,
    #[error("cannot start the agent: {0}")]
    Start(String),
    #[error("{0}")]
    Io(String),
}

/// One running agent.
pub trait Transport: Send {
    fn send_line(&mut self, line: &str) -> Result<(), TransportError>;
    /// The agent's next line; Ok(None) when none came within `timeout`, Err(Closed) once
    /// its output ended.
    fn recv_line(&mut self, timeout: Duration) -> Result<Option<String>, TransportError>;
    /// Closes the agent's input (it then stops what it does and exits) and waits a
    /// moment for it, then kills it if it still runs.
    fn stop(&mut self);
    /// A line about how the agent got there (copied, or an earlier copy reused).
    fn note(&self) -> Option<String> {
        None
    }
}

/// Starts the agent of a client.
pub trait Launcher: Sync {
    fn launch(&self, spec: &ClientSpec) -> Result<Box<dyn Transport>, TransportError>;
}
