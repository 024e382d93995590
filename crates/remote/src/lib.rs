//! DB Dyno's own binary on another host, reached over SSH: copied there, checked by
//! SHA-256, kept in a per-user cache and reused; started with a JSON-lines channel on its
//! stdin and stdout; stopped with everything it started.
//!
//! Load clients (several machines driving one database) and the hardware tests on the
//! database host both run DB Dyno there this way. A host of another OS or CPU is refused
//! before anything is copied. The process has no PTY, so when the SSH connection goes,
//! its stdin ends and it is expected to exit (DB Dyno's agent does).
//!
//! ```no_run
//! # fn demo(target: &dbdyno_ssh::SshTarget) -> Result<(), dbdyno_remote::RemoteError> {
//! use dbdyno_remote::{local_agent_binary, RemoteHost};
//! use std::time::Duration;
//! let host = RemoteHost::connect(target)?;
//! let installed = host.install(&local_agent_binary()?)?;
//! let mut agent = host.spawn(&installed, &["--version".into()], &[])?;
//! let line = agent.recv_line(Duration::from_secs(5))?;
//! agent.kill()?;
//! # let _ = line; Ok(()) }
//! ```

mod agent_binary;
mod checksum;
mod error;
mod host;
mod install;
mod platform;
mod process;
mod ps;
mod shell;
mod socket_wait;

pub use agent_binary::{local_agent_binary, AGENT_BINARY_VAR};
pub use checksum::sha256_file;
pub use error::RemoteError;
pub use host::RemoteHost;
pub use install::{Installed, Transfer, KEEP_VERSIONS};
pub use platform::Platform;
pub use process::RemoteProcess;
