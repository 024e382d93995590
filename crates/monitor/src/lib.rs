//! DB Dyno's server monitor: what the database server's CPU, disks, memory, network
//! and MySQL status counters do while a benchmark runs, sampled once a second.
//!
//! Data flow: a sampler (one long-lived shell loop over SSH, see [`stream`], or direct
//! reads of /proc on this machine, see [`local`]) yields raw /proc text →
//! [`procfs`] parses it into counters → [`rates`] turns two snapshots into a
//! [`ServerSample`] → [`monitor::Monitor`] sends [`SamplerEvent`]s on a channel and
//! reconnects after drops, recording gaps. [`disk`] finds which block devices hold
//! MySQL's datadir so the report shows the right disk. [`host`] says how the server's
//! OS is reached (SSH, this machine, or not at all) and runs fact scripts there.
//!
//! MySQL's side of a run comes from its own sampler: [`mysql_status`] polls
//! `SHOW GLOBAL STATUS` once a second and turns two polls into a [`MysqlSample`].
//! [`timeline`] aligns both samplers' samples to each step's exact window and reduces
//! them to [`StepServerFigures`].
//!
//! Non-goals: no tsar/sysstat dependency on the server (only `sh`, `head`, `sleep`),
//! no MySQL facts or verdicts (the checks crate reads variables and judges them; the
//! datadir path comes from the caller), no Tauri or async runtime.

pub mod disk;
pub mod host;
pub mod local;
pub mod monitor;
pub mod mysql_status;
pub mod procfs;
pub mod rates;
pub mod stream;
pub mod timeline;
pub mod watch;

pub use disk::{DataDisk, DiskError};
pub use host::HostAccess;
pub use monitor::{Monitor, MonitorConfig, MonitorError, SamplerEvent, Target};
pub use mysql_status::{
    MysqlClock, MysqlEvent, MysqlSample, MysqlSampler, MysqlSamplerConfig, MysqlSamplerError,
};
pub use rates::{
    CpuRates, DiskRates, DiskSelection, MemUsage, NetRates, RateOptions, SamplerCost, ServerSample,
    SwapRates,
};
pub use timeline::{StepServerFigures, StepWindow, Timeline};
