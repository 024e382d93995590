//! What the server's measurement runs: sizes and times, with defaults the user sees
//! (the CLI's help, the app's form) and can change.

use dbdyno_hwtest::size::parse_size;
use serde::{Deserialize, Serialize};

use crate::protocol::TestJob;
use crate::HwRemoteError;

/// The tests of one measurement: fileio random read/write and sequential read on one
/// file set, then cpu, then memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// fileio's `--file-total-size` (sysbench's default, 2G). Bigger than the host's
    /// RAM keeps the page cache out of the figures, at the price of time and space.
    pub file_total_size: String,
    /// fileio's `--file-extra-flags`: `direct` (the default) bypasses the page cache
    /// as InnoDB's O_DIRECT does; empty for none (tmpfs has no O_DIRECT).
    pub file_extra_flags: String,
    /// `--threads` of every test.
    pub threads: u32,
    /// Seconds of each fileio run (random read/write, then sequential read).
    pub fileio_time_s: u64,
    pub cpu_time_s: u64,
    pub memory_time_s: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            file_total_size: "2G".into(),
            file_extra_flags: "direct".into(),
            threads: 4,
            fileio_time_s: 20,
            cpu_time_s: 10,
            memory_time_s: 10,
        }
    }
}

/// Interval lines every second: they are the progress the user sees.
const REPORT_INTERVAL: &str = "1";

impl Settings {
    /// The file set's size in bytes.
    pub fn file_total_bytes(&self) -> Result<u64, HwRemoteError> {
        parse_size(&self.file_total_size).ok_or_else(|| HwRemoteError::Setting {
            name: "file-total-size",
            value: self.file_total_size.clone(),
        })
    }

    /// The tests in the order the agent runs them.
    pub fn tests(&self) -> Vec<TestJob> {
        let common = |time: u64| {
            vec![
                ("threads".to_string(), self.threads.to_string()),
                ("time".to_string(), time.to_string()),
                ("report-interval".to_string(), REPORT_INTERVAL.to_string()),
            ]
        };
        let fileio = |mode: &str| {
            let mut o = common(self.fileio_time_s);
            o.push(("file-total-size".into(), self.file_total_size.clone()));
            o.push(("file-test-mode".into(), mode.into()));
            if !self.file_extra_flags.is_empty() {
                o.push(("file-extra-flags".into(), self.file_extra_flags.clone()));
            }
            o
        };
        vec![
            TestJob {
                test: "fileio".into(),
                options: fileio("rndrw"),
            },
            TestJob {
                test: "fileio".into(),
                options: fileio("seqrd"),
            },
            TestJob {
                test: "cpu".into(),
                options: common(self.cpu_time_s),
            },
            TestJob {
                test: "memory".into(),
                options: common(self.memory_time_s),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_hwtest::{HwTestOptions, TestKind};

    #[test]
    fn every_test_takes_its_options() {
        for job in Settings::default().tests() {
            let kind = job.kind().unwrap();
            HwTestOptions::from_pairs(kind, &job.options)
                .unwrap_or_else(|e| panic!("{}: {e}", job.test));
            assert!(
                kind != TestKind::FileIo || job.options.iter().any(|(n, _)| n == "file-test-mode")
            );
        }
    }

    #[test]
    fn a_bad_size_is_named() {
        let s = Settings {
            file_total_size: "lots".into(),
            ..Settings::default()
        };
        assert_eq!(
            s.file_total_bytes().unwrap_err().to_string(),
            "--file-total-size=lots: expected a size such as 512M or 8G"
        );
        assert_eq!(Settings::default().file_total_bytes().unwrap(), 2 << 30);
    }
}
