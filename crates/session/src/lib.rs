//! One run and everything around the engine's load, written once for both shells (the
//! `dbdyno` CLI and the desktop app), so a run is checked, monitored, recorded and
//! ended the same way whichever started it:
//!
//! - [`run_monitor`]: the environment snapshot, the MySQL status sampler and the
//!   server monitor (SSH or local /proc) started for a plan, fed the engine's events so
//!   each step's window is known, and stopped into a [`MonitoringReport`];
//! - [`preflight`]: the prerequisite checks that stop a plan before it starts, on the
//!   facts the environment snapshot and monitoring then reuse;
//! - [`record`]: the run's end handed to the history writer: the monitoring record,
//!   every per-second sample, and the final state;
//! - [`run`]: one whole run, the same in both shells: checks, samplers, history record
//!   and the engine on its thread, every event handed to the shell's consumer;
//! - [`metrics`]: the run's figures served to Prometheus while it is on;
//! - [`live`]: the app's Run screen folded from those events; [`describe`]: the lines
//!   both shells show about the environment; [`results`]: the `--json` document.
//!
//! Non-goals: no printing and no window. What a run says comes back as
//! [`RunEvent`]s; the CLI prints them, the app folds them into its live charts and log.

mod client_cpu;
pub mod describe;
mod fold;
pub mod live;
pub mod metrics;
pub mod preflight;
pub mod record;
pub mod resolve;
pub mod results;
pub mod run;
pub mod run_monitor;

pub use preflight::Preflight;
pub use record::{checkpoint, final_state, finish_recording};
pub use run::{
    history_dir_row, Checks, HistoryFaults, HistoryNote, HistoryTarget, NotStarted, OnHistoryError,
    Recorded, Run, RunEnd, RunEvent, RunRequest, Spilled,
};
pub use run_monitor::{MonitoringReport, Polled, RunMonitor, StartError, Update};
