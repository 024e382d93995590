//! One step, many load clients: what the engine knows about it.
//!
//! - [`protocol`]: the JSON-lines conversation between the coordinator and an agent
//!   (`dbdyno agent` on a client machine): orders in, reports out, versioned;
//! - [`merge`]: the clients' shares of one step folded into one exact [`StepResult`]
//!   (sums per second on the common clock, percentiles from the merged histograms, per
//!   statement class and TPC-C type too), or a figure left out with a warning.
//!
//! Non-goals: transport, splitting and timing (the `dbdyno-clients` coordinator does
//! those), and the agent's process (the CLI's hidden `agent` command).
//!
//! [`StepResult`]: crate::results::StepResult

pub mod merge;
pub mod protocol;

pub use merge::{merge, merge_second, MergeError, MergedStep, SecondPart, Share, CLIENT_BOUND_PCT};
pub use protocol::{
    agent_files_dir, AgentConnect, Order, PrewarmOrder, Report, StepOrder, VersionMismatch,
    PROTOCOL_VERSION,
};
