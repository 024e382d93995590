//! The local sampler: the database runs on this machine, so /proc is read directly
//! (no SSH, no shell loop) and goes through the same parsers and rate code.
//!
//! Non-goals: no threads here (the [`crate::monitor::Monitor`] owns the loop).

use crate::procfs::{parse_pid_stat_ticks, section, RawSnapshot};
use crate::rates::{compute_sample, RateOptions, ServerSample};
use std::time::Instant;

/// The files a snapshot reads, by section name.
const FILES: [(&str, &str); 7] = [
    (section::UPTIME, "/proc/uptime"),
    (section::STAT, "/proc/stat"),
    (section::LOADAVG, "/proc/loadavg"),
    (section::MEMINFO, "/proc/meminfo"),
    (section::VMSTAT, "/proc/vmstat"),
    (section::DISKSTATS, "/proc/diskstats"),
    (section::NET_DEV, "/proc/net/dev"),
];

/// Reads /proc now. The sampler cost is the calling thread's own CPU time
/// (/proc/thread-self/stat, without children: other parts of the app may spawn some).
pub fn read_snapshot() -> RawSnapshot {
    let texts: Vec<(&str, String)> = FILES
        .iter()
        .filter_map(|(name, path)| std::fs::read_to_string(path).ok().map(|t| (*name, t)))
        .collect();
    let mut snap = RawSnapshot::from_sections(texts.iter().map(|(n, t)| (*n, t.as_str())));
    snap.sampler_ticks = std::fs::read_to_string("/proc/thread-self/stat")
        .ok()
        .and_then(|t| parse_pid_stat_ticks(&t, false).ok());
    snap
}

/// Milliseconds since the Unix epoch on this machine's clock.
pub fn unix_ms_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Turns successive local snapshots into samples.
#[derive(Debug)]
pub struct LocalSampler {
    prev: Option<(RawSnapshot, Instant)>,
    opts: RateOptions,
}

impl LocalSampler {
    /// `opts.clk_tck` is kept as given: USER_HZ is 100 on every mainstream Linux
    /// architecture, and this avoids a libc dependency just for sysconf.
    pub fn new(opts: RateOptions) -> Self {
        LocalSampler { prev: None, opts }
    }

    /// Takes a snapshot; returns the rates since the previous call (`None` the first
    /// time, or if the clock did not advance).
    pub fn sample(&mut self) -> Option<ServerSample> {
        let now = Instant::now();
        let snap = read_snapshot();
        let local_ms = unix_ms_now();
        let sample = self.prev.as_ref().and_then(|(prev, at)| {
            // Prefer the kernel's uptime (what the counters are synchronous with);
            // fall back to our monotonic clock when /proc/uptime was unreadable.
            let dt = match (prev.uptime_s, snap.uptime_s) {
                (Some(a), Some(b)) if b > a => b - a,
                _ => now.duration_since(*at).as_secs_f64(),
            };
            compute_sample(prev, &snap, dt, local_ms, local_ms, &self.opts)
        });
        self.prev = Some((snap, now));
        sample
    }

    /// Parse problems in the latest snapshot (e.g. a /proc file missing in a container).
    pub fn warnings(&self) -> &[String] {
        self.prev
            .as_ref()
            .map(|(s, _)| s.warnings.as_slice())
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_snapshot_and_rates() {
        let s = read_snapshot();
        assert!(
            s.cpu.is_some() && s.mem.is_some() && s.uptime_s.is_some(),
            "{:?}",
            s.warnings
        );
        assert!(s.sampler_ticks.is_some());
        let mut sampler = LocalSampler::new(RateOptions::default());
        assert!(sampler.sample().is_none());
        std::thread::sleep(std::time::Duration::from_millis(300));
        let sample = sampler.sample().expect("second call yields a sample");
        assert!(
            sample.interval_s > 0.2 && sample.interval_s < 1.0,
            "{}",
            sample.interval_s
        );
        assert!(sample.cpu.is_some());
        assert!(sample.sampler.is_some());
    }
}
