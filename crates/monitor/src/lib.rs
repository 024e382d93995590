//! DB Dyno's server monitor: what the database server's CPU, disks, memory and network
//! do while a benchmark runs, sampled once a second.
//!
//! Data flow: a sampler (one long-lived shell loop over SSH, see [`stream`], or direct
//! reads of /proc on this machine, see [`local`]) yields raw /proc text →
//! [`procfs`] parses it into counters → [`rates`] turns two snapshots into a
//! [`ServerSample`] → [`monitor::Monitor`] sends [`SamplerEvent`]s on a channel and
//! reconnects after drops, recording gaps. [`disk`] finds which block devices hold
//! MySQL's datadir so the report shows the right disk.
//!
//! Non-goals: no tsar/sysstat dependency on the server (only `sh`, `head`, `sleep`),
//! no MySQL client (the datadir path comes from the caller), no Tauri or async runtime.

pub mod disk;
pub mod local;
pub mod monitor;
pub mod procfs;
pub mod rates;
pub mod ssh;
pub mod stream;

pub use disk::{DataDisk, DiskError};
pub use monitor::{Monitor, MonitorConfig, MonitorError, SamplerEvent, Target};
pub use rates::{
    CpuRates, DiskRates, DiskSelection, MemUsage, NetRates, RateOptions, SamplerCost, ServerSample,
    SwapRates,
};
pub use ssh::{ClockSync, HostKey, KnownHostsConfig, SshAuth, SshConnection, SshError, SshTarget};
