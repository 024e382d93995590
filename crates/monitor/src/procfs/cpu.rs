//! The aggregate `cpu` line of `/proc/stat` (jiffies since boot per CPU state).

use super::{numbers, ParseError};
use serde::{Deserialize, Serialize};

/// Cumulative time of all CPUs in each state, in clock ticks, as the kernel counts it.
/// `user` and `nice` include `guest` and `guest_nice` (the kernel adds them twice).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct CpuTimes {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
    pub guest: u64,
    pub guest_nice: u64,
}

/// Parses the whole `/proc/stat` text (or just its first line) for the `cpu ` line.
pub fn parse_stat(text: &str) -> Result<CpuTimes, ParseError> {
    let line = text
        .lines()
        .find(|l| l.starts_with("cpu "))
        .ok_or_else(|| ParseError::new("/proc/stat", "no aggregate \"cpu \" line"))?;
    parse_cpu_line(line)
}

/// Parses one `cpu  1 2 3 ...` line. Old kernels print fewer columns (steal came in
/// 2.6.11, guest in 2.6.24); missing columns count as zero.
pub fn parse_cpu_line(line: &str) -> Result<CpuTimes, ParseError> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.first() != Some(&"cpu") || fields.len() < 5 {
        return Err(ParseError::new(
            "/proc/stat",
            format!("not a cpu line: {line:.80}"),
        ));
    }
    let n = numbers(&fields[1..]).ok_or_else(|| {
        ParseError::new("/proc/stat", format!("non-numeric cpu field: {line:.80}"))
    })?;
    let at = |i: usize| n.get(i).copied().unwrap_or(0);
    Ok(CpuTimes {
        user: at(0),
        nice: at(1),
        system: at(2),
        idle: at(3),
        iowait: at(4),
        irq: at(5),
        softirq: at(6),
        steal: at(7),
        guest: at(8),
        guest_nice: at(9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = include_str!("../../testdata/proc/a/stat");

    #[test]
    fn parses_captured_proc_stat() {
        let c = parse_stat(STAT).expect("captured /proc/stat parses");
        assert!(c.user > 0 && c.idle > 0);
        assert_eq!(c.nice, 0);
    }

    #[test]
    fn short_old_kernel_line_fills_zeros() {
        let c = parse_cpu_line("cpu  10 1 5 100 2").expect("parses");
        assert_eq!((c.user, c.iowait, c.steal), (10, 2, 0));
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_cpu_line("cpu  a b c d e").is_err());
        assert!(parse_stat("intr 1 2 3").is_err());
        assert!(parse_cpu_line("cpu0 1 2 3 4 5").is_err());
    }
}
