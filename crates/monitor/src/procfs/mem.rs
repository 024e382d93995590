//! `/proc/meminfo` (memory and swap sizes) and the swap paging counters of
//! `/proc/vmstat` (`pswpin`, `pswpout`).

use super::ParseError;
use serde::{Deserialize, Serialize};

/// The meminfo fields needed to reproduce `free`'s columns, in kB as the kernel prints.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct MemInfo {
    pub total_kb: u64,
    pub free_kb: u64,
    /// `MemAvailable`, absent before Linux 3.14.
    pub available_kb: Option<u64>,
    pub buffers_kb: u64,
    pub cached_kb: u64,
    pub sreclaimable_kb: u64,
    pub swap_total_kb: u64,
    pub swap_free_kb: u64,
}

/// Pages swapped in and out since boot.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SwapCounters {
    pub pswpin: u64,
    pub pswpout: u64,
}

pub fn parse_meminfo(text: &str) -> Result<MemInfo, ParseError> {
    let mut m = MemInfo::default();
    let mut saw_total = false;
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let Some(value) = rest
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
        else {
            continue;
        };
        match key {
            "MemTotal" => {
                m.total_kb = value;
                saw_total = true;
            }
            "MemFree" => m.free_kb = value,
            "MemAvailable" => m.available_kb = Some(value),
            "Buffers" => m.buffers_kb = value,
            "Cached" => m.cached_kb = value,
            "SReclaimable" => m.sreclaimable_kb = value,
            "SwapTotal" => m.swap_total_kb = value,
            "SwapFree" => m.swap_free_kb = value,
            _ => {}
        }
    }
    if !saw_total {
        return Err(ParseError::new("/proc/meminfo", "no MemTotal line"));
    }
    Ok(m)
}

/// `None` when the kernel does not report swap paging (both keys missing).
pub fn parse_vmstat_swap(text: &str) -> Option<SwapCounters> {
    let mut pswpin = None;
    let mut pswpout = None;
    for line in text.lines() {
        let mut f = line.split_whitespace();
        match (f.next(), f.next().and_then(|v| v.parse::<u64>().ok())) {
            (Some("pswpin"), Some(v)) => pswpin = Some(v),
            (Some("pswpout"), Some(v)) => pswpout = Some(v),
            _ => {}
        }
    }
    if pswpin.is_none() && pswpout.is_none() {
        return None;
    }
    Some(SwapCounters {
        pswpin: pswpin.unwrap_or(0),
        pswpout: pswpout.unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_captured_meminfo() {
        let m = parse_meminfo(include_str!("../../testdata/proc/a/meminfo")).expect("parses");
        assert!(m.total_kb > 1_000_000);
        assert!(m.free_kb <= m.total_kb);
        assert!(m.available_kb.is_some());
    }

    #[test]
    fn parses_captured_vmstat() {
        let s = parse_vmstat_swap(include_str!("../../testdata/proc/a/vmstat")).expect("present");
        assert_eq!(
            s,
            SwapCounters {
                pswpin: 0,
                pswpout: 0
            }
        );
        assert_eq!(parse_vmstat_swap("nr_free_pages 12\n"), None);
    }

    #[test]
    fn meminfo_without_total_is_an_error() {
        assert!(parse_meminfo("MemFree: 10 kB\n").is_err());
    }
}
