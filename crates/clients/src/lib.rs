//! Several load clients for one step (`--clients`).
//!
//! - [`spec`]: a client as the user names it (`local`, `ssh://user@host:port`);
//! - [`agent`]: what `dbdyno agent` runs on a client: orders in, reports out;
//! - [`transport`]: how an agent is reached (a local child process; SSH);
//! - [`coordinator`]: the engine's step runner across the clients: checks before the
//!   run, the split, one start instant, the live merged seconds, the exact merge;
//! - [`run`]: a whole plan across the clients (what the session runs for `--clients`);
//! - [`split`], [`clock`]: the pure parts (shares of a step, NTP-style clock offset).
//!
//! Non-goals: the merge itself (the engine's `clients::merge`, beside the figures it
//! merges), printing (the shells print the engine's events as for one machine).

pub mod agent;
pub mod clock;
pub mod coordinator;
pub mod run;
pub mod spec;
pub mod split;
pub mod transport;

pub use coordinator::{ClientCheck, ClientsError, Coordinator, NotConnected};
pub use run::ClientsPlan;
pub use spec::{ClientSpec, SpecError};
pub use transport::local::LocalLauncher;
pub use transport::ssh::SshLauncher;
pub use transport::{Launcher, Transport, TransportError};
