//! `/proc/diskstats`: cumulative I/O counters per block device (and partition).
//!
//! Field layout (Documentation/admin-guide/iostats.rst): major minor name, then
//! reads, reads merged, sectors read, ms reading, writes, writes merged, sectors
//! written, ms writing, I/Os in flight, ms doing I/O, weighted ms, and since 4.18
//! four discard fields, since 5.5 two flush fields. Sectors are always 512 bytes here.

use super::numbers;
use serde::{Deserialize, Serialize};

/// One device's counters. The kernel keeps them as `unsigned long`, so they wrap at
/// 2^32 on 32-bit kernels; [`crate::rates`] handles that.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiskCounters {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub ms_reading: u64,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub ms_writing: u64,
    pub in_flight: u64,
    pub ms_io: u64,
    pub weighted_ms_io: u64,
}

impl DiskCounters {
    /// True when the device has never done any I/O (unused loop devices, empty
    /// drives): iostat hides those by default and so do we.
    pub fn is_idle_forever(&self) -> bool {
        self.reads == 0 && self.writes == 0
    }
}

/// Parses every well-formed line; malformed lines are skipped, not fatal, since one odd
/// device must not hide the others.
pub fn parse_diskstats(text: &str) -> Vec<DiskCounters> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<DiskCounters> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 14 {
        return None;
    }
    let major = f[0].parse().ok()?;
    let minor = f[1].parse().ok()?;
    let n = numbers(&f[3..14])?;
    Some(DiskCounters {
        major,
        minor,
        name: f[2].to_string(),
        reads: n[0],
        reads_merged: n[1],
        sectors_read: n[2],
        ms_reading: n[3],
        writes: n[4],
        writes_merged: n[5],
        sectors_written: n[6],
        ms_writing: n[7],
        in_flight: n[8],
        ms_io: n[9],
        weighted_ms_io: n[10],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DISKSTATS: &str = include_str!("../../testdata/proc/a/diskstats");

    #[test]
    fn parses_captured_diskstats() {
        let d = parse_diskstats(DISKSTATS);
        let vda = d.iter().find(|d| d.name == "vda").expect("vda present");
        assert_eq!((vda.major, vda.minor), (254, 0));
        assert_eq!(vda.reads, 61486);
        assert_eq!(vda.sectors_written, 5032288);
        assert_eq!(vda.weighted_ms_io, 50651);
        assert!(d.iter().any(|d| d.name == "loop0" && d.is_idle_forever()));
    }

    #[test]
    fn old_kernel_14_fields_and_garbage() {
        let text = "   8       0 sda 10 0 80 5 20 0 160 7 0 12 12\n8 1 sda1 x y\n\n";
        let d = parse_diskstats(text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].writes, 20);
    }
}
