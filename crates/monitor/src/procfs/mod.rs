//! Parsers for the Linux `/proc` files the sampler reads, as pure functions over text.
//!
//! Purpose: turn the raw text of `/proc/stat`, `/proc/diskstats`, `/proc/meminfo`,
//! `/proc/loadavg`, `/proc/vmstat`, `/proc/net/dev` and `/proc/<pid>/stat` into plain
//! counter structs, and gather them into one [`RawSnapshot`]. The same code serves the
//! remote streaming sampler and the local one, so both see identical numbers.
//!
//! Non-goals: no rates here (see [`crate::rates`]), no file I/O, no per-CPU or
//! per-process accounting beyond the sampler's own cost.
//!
//! The text comes from another machine, so nothing here panics on odd input: a line
//! that does not parse is skipped (tables) or reported as a [`ParseError`] (single-value
//! files), and [`RawSnapshot::from_sections`] keeps what it could read plus warnings.

mod cpu;
mod disk;
mod load;
mod mem;
mod net;
mod process;

pub use cpu::{parse_cpu_line, parse_stat, CpuTimes};
pub use disk::{parse_diskstats, DiskCounters};
pub use load::{parse_loadavg, LoadAvg};
pub use mem::{parse_meminfo, parse_vmstat_swap, MemInfo, SwapCounters};
pub use net::{parse_net_dev, NetCounters};
pub use process::{parse_pid_stat_ticks, parse_uptime};

use serde::{Deserialize, Serialize};

/// A line or file of `/proc` text that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse {file}: {reason}")]
pub struct ParseError {
    /// Which /proc file (e.g. "/proc/stat").
    pub file: &'static str,
    /// What was wrong, with the offending text when short.
    pub reason: String,
}

impl ParseError {
    pub(crate) fn new(file: &'static str, reason: impl Into<String>) -> Self {
        ParseError {
            file,
            reason: reason.into(),
        }
    }
}

/// Section names used by both samplers; the remote script prints `==> NAME <==`
/// headers with exactly these names (the `head` command prints the file ones itself).
pub mod section {
    pub const STAT: &str = "/proc/stat";
    pub const DISKSTATS: &str = "/proc/diskstats";
    pub const MEMINFO: &str = "/proc/meminfo";
    pub const LOADAVG: &str = "/proc/loadavg";
    pub const VMSTAT: &str = "/proc/vmstat";
    pub const NET_DEV: &str = "/proc/net/dev";
    pub const UPTIME: &str = "/proc/uptime";
    /// `/proc/<pid>/stat` of the sampler loop itself (remote shell or local thread).
    pub const SAMPLER: &str = "sampler";
    /// `/proc/<ppid>/stat` of the sampler's parent (the sshd session process remotely).
    pub const TRANSPORT: &str = "transport";
}

/// Every counter of one moment on one server, before any delta is taken.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RawSnapshot {
    /// Server uptime in seconds at capture, when known (the remote clock's tick).
    pub uptime_s: Option<f64>,
    pub cpu: Option<CpuTimes>,
    pub disks: Vec<DiskCounters>,
    pub mem: Option<MemInfo>,
    pub swap_io: Option<SwapCounters>,
    pub net: Vec<NetCounters>,
    pub load: Option<LoadAvg>,
    /// utime+stime+cutime+cstime of the sampler, in clock ticks.
    pub sampler_ticks: Option<u64>,
    /// utime+stime of the sampler's parent (sshd session), in clock ticks.
    pub transport_ticks: Option<u64>,
    /// What could not be parsed; the rest of the snapshot is still usable.
    pub warnings: Vec<String>,
}

impl RawSnapshot {
    /// Builds a snapshot from `(section name, text)` pairs as named in [`section`].
    /// Unknown sections are ignored so newer scripts can add more.
    pub fn from_sections<'a, I>(sections: I) -> RawSnapshot
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut snap = RawSnapshot::default();
        for (name, text) in sections {
            let result: Result<(), ParseError> = match name {
                section::STAT => parse_stat(text).map(|c| snap.cpu = Some(c)),
                section::DISKSTATS => {
                    snap.disks = parse_diskstats(text);
                    Ok(())
                }
                section::MEMINFO => parse_meminfo(text).map(|m| snap.mem = Some(m)),
                section::LOADAVG => parse_loadavg(text).map(|l| snap.load = Some(l)),
                section::VMSTAT => {
                    snap.swap_io = parse_vmstat_swap(text);
                    Ok(())
                }
                section::NET_DEV => {
                    snap.net = parse_net_dev(text);
                    Ok(())
                }
                section::UPTIME => parse_uptime(text).map(|u| snap.uptime_s = Some(u)),
                section::SAMPLER => {
                    parse_pid_stat_ticks(text, true).map(|t| snap.sampler_ticks = Some(t))
                }
                section::TRANSPORT => {
                    parse_pid_stat_ticks(text, false).map(|t| snap.transport_ticks = Some(t))
                }
                _ => Ok(()),
            };
            if let Err(e) = result {
                snap.warnings.push(e.to_string());
            }
        }
        snap
    }
}

/// Splits `text` into whitespace-separated fields and parses those from `from` on as
/// unsigned counters; `None` when any of them is not a number.
pub(crate) fn numbers(fields: &[&str]) -> Option<Vec<u64>> {
    fields.iter().map(|f| f.parse::<u64>().ok()).collect()
}
