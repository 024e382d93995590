//! What happens around one run besides the engine's load, written once for both shells
//! (the `dbdyno` CLI and the desktop app), so a run is monitored and recorded the same
//! way whichever started it:
//!
//! - [`run_monitor`]: the environment snapshot, the MySQL status sampler and the
//!   server monitor (SSH or local /proc) started for a plan, fed the engine's events so
//!   each step's window is known, and stopped into a [`MonitoringReport`];
//! - [`preflight`]: the prerequisite checks that stop a plan before it starts, on the
//!   facts the environment snapshot and monitoring then reuse;
//! - [`record`]: the run's end handed to the history writer: the monitoring record,
//!   every per-second sample, and the final state.
//!
//! Non-goals: no printing and no UI. What the samplers say comes back as
//! [`Update`]s; the CLI prints them, the app folds them into its live charts and log.

mod fold;
pub mod preflight;
pub mod record;
pub mod run_monitor;

pub use preflight::Preflight;
pub use record::{checkpoint, final_state, finish_recording};
pub use run_monitor::{MonitoringReport, Polled, RunMonitor, StartError, Update};
