//! Per-second figures from two [`RawSnapshot`]s: CPU %, iostat-style disk rates,
//! memory, swap paging, network throughput, load, and the sampler's own cost.
//!
//! Purpose: one pure function, [`compute_sample`], that both samplers call, so a
//! remote and a local server produce the same [`ServerSample`] for the same counters.
//!
//! Non-goals: no smoothing or averaging across samples (the report does that), no
//! per-CPU breakdown, no disk selection policy beyond [`DiskSelection`].
//!
//! Counters can wrap (32-bit kernels keep `unsigned long`) or reset (a device removed
//! and re-added under the same name, an interface recreated). [`counter_delta`] tells
//! the two apart as well as one can, and a device present in only one of the two
//! snapshots is simply left out of that sample.

use crate::procfs::{CpuTimes, DiskCounters, LoadAvg, MemInfo, NetCounters, RawSnapshot};
use serde::{Deserialize, Serialize};

/// One sampling interval on one server: what a dashboard row or a report point needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServerSample {
    /// End of the interval on the server's own clock (Unix ms).
    pub server_unix_ms: i64,
    /// When this side received the data (Unix ms, local clock).
    pub local_unix_ms: i64,
    /// Length of the interval the rates cover, measured on the server's clock.
    pub interval_s: f64,
    /// `None` only when /proc/stat could not be read or parsed.
    pub cpu: Option<CpuRates>,
    pub disks: Vec<DiskRates>,
    pub mem: Option<MemUsage>,
    pub swap: Option<SwapRates>,
    pub net: Vec<NetRates>,
    pub load: Option<LoadAvg>,
    /// What the sampling loop itself cost on the server in this interval.
    pub sampler: Option<SamplerCost>,
}

/// Share of all CPUs' time in each state over the interval, in percent (sums to ~100).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuRates {
    /// User time without guest time (as sar's %user).
    pub user: f64,
    pub nice: f64,
    pub system: f64,
    pub iowait: f64,
    /// Hard and soft interrupt time together.
    pub irq_softirq: f64,
    pub steal: f64,
    pub idle: f64,
    /// 100 - idle - iowait: the busy share the report plots.
    pub util: f64,
}

/// iostat -x columns for one device over the interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiskRates {
    /// Kernel name as in /proc/diskstats (sda, nvme0n1, dm-0, md0).
    pub name: String,
    pub r_per_s: f64,
    pub w_per_s: f64,
    pub rkb_per_s: f64,
    pub wkb_per_s: f64,
    /// Average ms per completed read (0 when none completed).
    pub r_await_ms: f64,
    pub w_await_ms: f64,
    /// Average ms per completed read or write.
    pub await_ms: f64,
    /// Average queue length (weighted I/O time / interval).
    pub aqu_sz: f64,
    /// Share of the interval the device had I/O in flight, capped at 100.
    pub util_pct: f64,
}

/// Memory as `free -m` shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MemUsage {
    pub total_mb: f64,
    /// total - free - buffers - cached - reclaimable slab.
    pub used_mb: f64,
    pub free_mb: f64,
    /// buffers + page cache + reclaimable slab ("buff/cache").
    pub cached_mb: f64,
    pub available_mb: Option<f64>,
    pub swap_total_mb: f64,
    pub swap_used_mb: f64,
}

/// Pages moved to and from swap per second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SwapRates {
    pub in_pages_per_s: f64,
    pub out_pages_per_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetRates {
    pub iface: String,
    pub rx_kb_per_s: f64,
    pub tx_kb_per_s: f64,
    pub rx_packets_per_s: f64,
    pub tx_packets_per_s: f64,
}

/// CPU the sampler used on the server, in percent of one core.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SamplerCost {
    /// The sampling loop (remote shell with its `head`/`sleep` children, or the local
    /// sampler thread).
    pub loop_cpu_pct: f64,
    /// The loop's parent: the sshd session process that encrypts the stream. `None`
    /// locally or when the server hides other processes' /proc entries.
    pub transport_cpu_pct: Option<f64>,
}

/// Which block devices to report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum DiskSelection {
    /// Every device that has ever done I/O (as iostat's default), partitions included.
    #[default]
    AllActive,
    /// Exactly these kernel names (e.g. from [`crate::disk::DataDisk::devices`]), in
    /// this order; a name missing from /proc/diskstats is skipped.
    Only(Vec<String>),
}

/// What [`compute_sample`] needs besides the two snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct RateOptions {
    pub disks: DiskSelection,
    /// Report the loopback interface too (off by default: it is the benchmark's own
    /// traffic when client and server share a machine, not the server's network).
    pub include_loopback: bool,
    /// Clock ticks per second of the server (`getconf CLK_TCK`, 100 on Linux).
    pub clk_tck: u32,
}

impl Default for RateOptions {
    fn default() -> Self {
        RateOptions {
            disks: DiskSelection::AllActive,
            include_loopback: false,
            clk_tck: 100,
        }
    }
}

/// Increase of a kernel counter between two readings.
///
/// `None` means "do not trust this pair": the counter went backwards by more than a
/// 32-bit wrap explains, i.e. the device or interface was reset.
pub fn counter_delta(old: u64, new: u64) -> Option<u64> {
    if new >= old {
        return Some(new - old);
    }
    // A 32-bit kernel counter wrapped: the old value fits in 32 bits and the distance
    // across the wrap is modest. A huge distance is more likely a reset to near zero.
    const WRAP: u64 = 1 << 32;
    if old < WRAP {
        let d = WRAP - old + new;
        if d < WRAP / 2 {
            return Some(d);
        }
    }
    None
}

/// Builds one sample. `interval_s` must be the time between the two snapshots
/// (from the server's clock when known); a non-positive interval yields `None`.
pub fn compute_sample(
    prev: &RawSnapshot,
    cur: &RawSnapshot,
    interval_s: f64,
    server_unix_ms: i64,
    local_unix_ms: i64,
    opts: &RateOptions,
) -> Option<ServerSample> {
    if !(interval_s.is_finite() && interval_s > 0.0) {
        return None;
    }
    let cpu = match (&prev.cpu, &cur.cpu) {
        (Some(a), Some(b)) => cpu_rates(a, b),
        _ => None,
    };
    let sampler = sampler_cost(prev, cur, interval_s, opts.clk_tck);
    Some(ServerSample {
        server_unix_ms,
        local_unix_ms,
        interval_s,
        cpu,
        disks: disk_rates(&prev.disks, &cur.disks, interval_s, &opts.disks),
        mem: cur.mem.as_ref().map(mem_usage),
        swap: match (prev.swap_io, cur.swap_io) {
            (Some(a), Some(b)) => Some(SwapRates {
                in_pages_per_s: counter_delta(a.pswpin, b.pswpin).unwrap_or(0) as f64 / interval_s,
                out_pages_per_s: counter_delta(a.pswpout, b.pswpout).unwrap_or(0) as f64
                    / interval_s,
            }),
            _ => None,
        },
        net: net_rates(&prev.net, &cur.net, interval_s, opts.include_loopback),
        load: cur.load,
        sampler,
    })
}

fn cpu_rates(a: &CpuTimes, b: &CpuTimes) -> Option<CpuRates> {
    // Per-state deltas saturate at zero: iowait is documented to go backwards on
    // some kernels, and a negative share would be nonsense.
    let d = |x: u64, y: u64| y.saturating_sub(x) as f64;
    let guest = d(a.guest, b.guest);
    let guest_nice = d(a.guest_nice, b.guest_nice);
    let user = (d(a.user, b.user) - guest).max(0.0);
    let nice = (d(a.nice, b.nice) - guest_nice).max(0.0);
    let system = d(a.system, b.system);
    let idle = d(a.idle, b.idle);
    let iowait = d(a.iowait, b.iowait);
    let irq = d(a.irq, b.irq) + d(a.softirq, b.softirq);
    let steal = d(a.steal, b.steal);
    let total = user + nice + system + idle + iowait + irq + steal;
    if total <= 0.0 {
        return None;
    }
    let pct = |x: f64| 100.0 * x / total;
    Some(CpuRates {
        user: pct(user),
        nice: pct(nice),
        system: pct(system),
        iowait: pct(iowait),
        irq_softirq: pct(irq),
        steal: pct(steal),
        idle: pct(idle),
        util: (100.0 - pct(idle) - pct(iowait)).clamp(0.0, 100.0),
    })
}

fn disk_rates(
    prev: &[DiskCounters],
    cur: &[DiskCounters],
    dt: f64,
    selection: &DiskSelection,
) -> Vec<DiskRates> {
    let pick: Vec<&DiskCounters> = match selection {
        DiskSelection::AllActive => cur.iter().filter(|d| !d.is_idle_forever()).collect(),
        DiskSelection::Only(names) => names
            .iter()
            .filter_map(|n| cur.iter().find(|d| &d.name == n))
            .collect(),
    };
    pick.into_iter()
        .filter_map(|b| {
            // Match on name and device number: a name reused by a new device
            // (hot-plug) must not be diffed against the old one.
            let a = prev
                .iter()
                .find(|a| a.name == b.name && a.major == b.major && a.minor == b.minor)?;
            one_disk(a, b, dt)
        })
        .collect()
}

fn one_disk(a: &DiskCounters, b: &DiskCounters, dt: f64) -> Option<DiskRates> {
    let reads = counter_delta(a.reads, b.reads)? as f64;
    let writes = counter_delta(a.writes, b.writes)? as f64;
    let rsec = counter_delta(a.sectors_read, b.sectors_read)? as f64;
    let wsec = counter_delta(a.sectors_written, b.sectors_written)? as f64;
    let rms = counter_delta(a.ms_reading, b.ms_reading)? as f64;
    let wms = counter_delta(a.ms_writing, b.ms_writing)? as f64;
    let io_ms = counter_delta(a.ms_io, b.ms_io)? as f64;
    let weighted = counter_delta(a.weighted_ms_io, b.weighted_ms_io)? as f64;
    let per_op = |ms: f64, ops: f64| if ops > 0.0 { ms / ops } else { 0.0 };
    Some(DiskRates {
        name: b.name.clone(),
        r_per_s: reads / dt,
        w_per_s: writes / dt,
        // diskstats sectors are 512 bytes regardless of the device's sector size.
        rkb_per_s: rsec / 2.0 / dt,
        wkb_per_s: wsec / 2.0 / dt,
        r_await_ms: per_op(rms, reads),
        w_await_ms: per_op(wms, writes),
        await_ms: per_op(rms + wms, reads + writes),
        aqu_sz: weighted / (dt * 1000.0),
        util_pct: (100.0 * io_ms / (dt * 1000.0)).min(100.0),
    })
}

fn mem_usage(m: &MemInfo) -> MemUsage {
    let mb = |kb: u64| kb as f64 / 1024.0;
    let cache = m.buffers_kb + m.cached_kb + m.sreclaimable_kb;
    MemUsage {
        total_mb: mb(m.total_kb),
        used_mb: mb(m.total_kb.saturating_sub(m.free_kb).saturating_sub(cache)),
        free_mb: mb(m.free_kb),
        cached_mb: mb(cache),
        available_mb: m.available_kb.map(mb),
        swap_total_mb: mb(m.swap_total_kb),
        swap_used_mb: mb(m.swap_total_kb.saturating_sub(m.swap_free_kb)),
    }
}

fn net_rates(prev: &[NetCounters], cur: &[NetCounters], dt: f64, loopback: bool) -> Vec<NetRates> {
    cur.iter()
        .filter(|b| loopback || b.iface != "lo")
        .filter_map(|b| {
            let a = prev.iter().find(|a| a.iface == b.iface)?;
            Some(NetRates {
                iface: b.iface.clone(),
                rx_kb_per_s: counter_delta(a.rx_bytes, b.rx_bytes)? as f64 / 1024.0 / dt,
                tx_kb_per_s: counter_delta(a.tx_bytes, b.tx_bytes)? as f64 / 1024.0 / dt,
                rx_packets_per_s: counter_delta(a.rx_packets, b.rx_packets)? as f64 / dt,
                tx_packets_per_s: counter_delta(a.tx_packets, b.tx_packets)? as f64 / dt,
            })
        })
        .collect()
}

fn sampler_cost(
    prev: &RawSnapshot,
    cur: &RawSnapshot,
    dt: f64,
    clk_tck: u32,
) -> Option<SamplerCost> {
    let tck = f64::from(clk_tck.max(1));
    let pct = |a: Option<u64>, b: Option<u64>| -> Option<f64> {
        let d = b?.checked_sub(a?)?;
        Some(100.0 * d as f64 / tck / dt)
    };
    Some(SamplerCost {
        loop_cpu_pct: pct(prev.sampler_ticks, cur.sampler_ticks)?,
        transport_cpu_pct: pct(prev.transport_ticks, cur.transport_ticks),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::procfs::section;

    fn snapshot(dir: &str) -> RawSnapshot {
        let read = |f: &str| {
            std::fs::read_to_string(format!(
                "{}/testdata/proc/{dir}/{f}",
                env!("CARGO_MANIFEST_DIR")
            ))
            .expect("captured fixture present")
        };
        let files = [
            (section::STAT, read("stat")),
            (section::DISKSTATS, read("diskstats")),
            (section::MEMINFO, read("meminfo")),
            (section::LOADAVG, read("loadavg")),
            (section::VMSTAT, read("vmstat")),
            (section::NET_DEV, read("net_dev")),
            (section::UPTIME, read("uptime")),
        ];
        RawSnapshot::from_sections(files.iter().map(|(n, t)| (*n, t.as_str())))
    }

    #[test]
    fn captured_pair_gives_plausible_rates() {
        let (a, b) = (snapshot("a"), snapshot("b"));
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        let dt = b.uptime_s.unwrap_or(0.0) - a.uptime_s.unwrap_or(0.0);
        assert!((dt - 1.33).abs() < 0.001, "dt={dt}");
        let s = compute_sample(&a, &b, dt, 1, 2, &RateOptions::default()).expect("sample");
        let cpu = s.cpu.expect("cpu");
        let sum =
            cpu.user + cpu.nice + cpu.system + cpu.iowait + cpu.irq_softirq + cpu.steal + cpu.idle;
        assert!((sum - 100.0).abs() < 1e-6, "sum={sum}");
        // Between the captures a 200 MiB O_DIRECT write ran on vda.
        let vda = s.disks.iter().find(|d| d.name == "vda").expect("vda rates");
        assert!((vda.w_per_s - 231.0 / dt).abs() < 1e-9);
        assert!((vda.wkb_per_s - (5441968.0 - 5032288.0) / 2.0 / dt).abs() < 1e-6);
        assert!((vda.w_await_ms - 101.0 / 231.0).abs() < 1e-9);
        assert!(vda.util_pct > 0.0 && vda.util_pct <= 100.0);
        // Idle loop devices are hidden; lo is skipped unless asked for.
        assert!(s.disks.iter().all(|d| !d.name.starts_with("loop")));
        assert!(s.net.iter().all(|n| n.iface != "lo"));
        assert!(s.mem.expect("mem").total_mb > 1000.0);
        assert_eq!(s.swap, Some(SwapRates::default()));
    }

    #[test]
    fn wrap_and_reset() {
        assert_eq!(counter_delta(10, 15), Some(5));
        assert_eq!(counter_delta(u32::MAX as u64 - 4, 5), Some(10));
        // Way past 2^32 and going down: a reset, not a wrap.
        assert_eq!(counter_delta(10_000_000_000, 5), None);
        // Small old value, new value lower: a reset (the wrap distance would be ~4G).
        assert_eq!(counter_delta(1000, 10), None);
    }

    fn disk(name: &str, minor: u32, reads: u64) -> DiskCounters {
        DiskCounters {
            major: 8,
            minor,
            name: name.into(),
            reads,
            ms_reading: reads,
            ..Default::default()
        }
    }

    #[test]
    fn devices_appearing_disappearing_and_replaced() {
        let prev = vec![disk("sda", 0, 100), disk("sdb", 16, 50)];
        let cur = vec![disk("sda", 0, 110), disk("sdc", 32, 5), disk("sdb", 48, 60)];
        let r = disk_rates(&prev, &cur, 1.0, &DiskSelection::AllActive);
        // sdc is new, sdb is a different device under an old name: only sda is diffed.
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].name, "sda");
        assert_eq!(r[0].r_per_s, 10.0);
        let only = disk_rates(
            &prev,
            &cur,
            1.0,
            &DiskSelection::Only(vec!["nvme0n1".into(), "sda".into()]),
        );
        assert_eq!(only.len(), 1);
        // A counter reset drops the device for this one interval instead of panicking.
        let reset = disk_rates(
            &[disk("sda", 0, 5_000_000_000)],
            &[disk("sda", 0, 3)],
            1.0,
            &DiskSelection::AllActive,
        );
        assert!(reset.is_empty());
    }

    #[test]
    fn cpu_iowait_going_backwards_is_clamped() {
        let a = CpuTimes {
            user: 100,
            idle: 100,
            iowait: 50,
            ..Default::default()
        };
        let b = CpuTimes {
            user: 150,
            idle: 150,
            iowait: 40,
            ..Default::default()
        };
        let c = cpu_rates(&a, &b).expect("rates");
        assert_eq!((c.user, c.idle, c.iowait, c.util), (50.0, 50.0, 0.0, 50.0));
        assert!(cpu_rates(&a, &a).is_none());
    }

    #[test]
    fn missing_parts_and_bad_interval() {
        let empty = RawSnapshot::default();
        assert!(compute_sample(&empty, &empty, 0.0, 0, 0, &RateOptions::default()).is_none());
        let s = compute_sample(&empty, &empty, 1.0, 0, 0, &RateOptions::default()).expect("sample");
        assert!(s.cpu.is_none() && s.disks.is_empty() && s.sampler.is_none());
    }

    #[test]
    fn loopback_on_request_and_serde_roundtrip() {
        let (a, b) = (snapshot("a"), snapshot("b"));
        let opts = RateOptions {
            include_loopback: true,
            ..Default::default()
        };
        let s = compute_sample(&a, &b, 1.33, 1, 2, &opts).expect("sample");
        assert!(s.net.iter().any(|n| n.iface == "lo"));
        let json = serde_json::to_string(&s).expect("serializes");
        let back: ServerSample = serde_json::from_str(&json).expect("deserializes");
        // serde_json's default float parsing may differ in the last bit: compare loosely.
        assert_eq!(
            (back.server_unix_ms, back.net.len(), back.disks.len()),
            (s.server_unix_ms, s.net.len(), s.disks.len())
        );
        let (a, b) = (&back.disks[0], &s.disks[0]);
        assert_eq!(a.name, b.name);
        assert!(
            (a.wkb_per_s - b.wkb_per_s).abs() < 1e-9 && (a.w_await_ms - b.w_await_ms).abs() < 1e-12
        );
    }
}
