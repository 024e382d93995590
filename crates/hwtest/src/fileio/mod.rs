//! `fileio`: prepare, run and cleanup of sysbench's file I/O test.

mod files;
mod requests;

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub use files::{cleanup, extra_flags_text, file_path, prepare};
use files::{open_for_run, AlignedBuffer};
use requests::{Request, Schedule};

use crate::error::{HwTestError, OptionError};
use crate::options::{FileIoOptions, FsyncMode, GeneralOptions};
use crate::result::{FileIoMode, FileIoResult, FileIoSetup, FileTestMode, IntervalFigures};
use crate::runner::{self, IntervalCommon, LoopFigures, Workload};
use crate::size::format_size;

const MIB: f64 = 1024.0 * 1024.0;

/// What sysbench's fileio header states for these options.
pub fn setup(o: &FileIoOptions, general: &GeneralOptions) -> Option<FileIoSetup> {
    let test_mode = o.test_mode?;
    let random = matches!(
        test_mode,
        FileTestMode::Rndrd | FileTestMode::Rndwr | FileTestMode::Rndrw
    );
    Some(FileIoSetup {
        test_mode,
        io_mode: o.io_mode,
        extra_flags: o.extra_flags.clone(),
        file_num: o.file_num,
        file_size_bytes: o.file_size(),
        total_size_bytes: o.file_size() * o.file_num,
        block_size_bytes: o.block_size,
        merged_request_bytes: (o.merged_requests > 0).then(|| o.request_size()),
        rw_ratio: random.then_some(o.rw_ratio),
        io_requests: random.then_some(general.events),
        fsync_freq: o.effective_fsync_freq(),
        fsync_end: o.effective_fsync_end(),
        fsync_all: o.fsync_all,
    })
}

/// What `run` needs beyond [`check`]: a test mode.
pub fn check_run(o: &FileIoOptions) -> Result<FileTestMode, HwTestError> {
    check(o)?;
    Ok(o.test_mode.ok_or(OptionError::MissingTestMode)?)
}

/// The checks sysbench makes before it touches a file, plus the size the set must have.
pub fn check(o: &FileIoOptions) -> Result<(), HwTestError> {
    if o.file_size() == 0 {
        return Err(OptionError::Invalid {
            name: "file-total-size".into(),
            value: format_size(o.total_size) + "B",
            expected: format!("expected at least one byte per file ({} files)", o.file_num),
        }
        .into());
    }
    if o.io_mode == FileIoMode::Mmap {
        return Err(OptionError::Unsupported {
            name: "file-io-mode".into(),
            value: "mmap".into(),
            reason: "memory-mapped I/O is not implemented; use sync",
        }
        .into());
    }
    Ok(())
}

/// The run: opens the set (seqwr starts from empty files), drives the requests and
/// returns the loop's figures with fileio's own.
pub fn run(
    general: &GeneralOptions,
    o: &FileIoOptions,
    on_interval: &(dyn Fn(&IntervalFigures) + Sync),
    cancel: &AtomicBool,
) -> Result<(LoopFigures, FileIoResult), HwTestError> {
    let mode = check_run(o)?;
    let files = open_set(o, mode)?;
    let test = FileIoRun {
        o,
        mode,
        files,
        seed: general.rand_seed,
        schedule: Mutex::new(Schedule::default()),
    };
    let figures = runner::run(&test, general, on_interval, cancel)?;
    let c = test.schedule.into_inner().unwrap().counts;
    let s = figures.total_time_s;
    let result = FileIoResult {
        reads_per_s: c.read_ops as f64 / s,
        writes_per_s: c.write_ops as f64 / s,
        fsyncs_per_s: c.other_ops as f64 / s,
        read_mib_per_s: c.bytes_read as f64 / MIB / s,
        written_mib_per_s: c.bytes_written as f64 / MIB / s,
        setup: setup(o, general),
    };
    Ok((figures, result))
}

/// sysbench's `file_prepare` for a run: seqwr removes the set and creates it empty, the
/// other modes need the files prepare made, at their full size.
fn open_set(o: &FileIoOptions, mode: FileTestMode) -> Result<Vec<File>, HwTestError> {
    (0..o.file_num)
        .map(|n| {
            let path = file_path(&o.dir, n);
            if mode == FileTestMode::Seqwr {
                // Removed and made anew, as sysbench does (not truncated: ext4 flushes
                // a file truncated to nothing and rewritten when it is closed).
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(HwTestError::file("cannot remove", &path, e))
                    }
                    _ => {}
                }
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                    .map_err(|e| HwTestError::file("cannot create", &path, e))?;
            }
            let file = open_for_run(o, &path)?;
            if mode != FileTestMode::Seqwr {
                let len = file
                    .metadata()
                    .map_err(|e| HwTestError::file("cannot stat", &path, e))?
                    .len();
                if len < o.file_size() {
                    return Err(HwTestError::FileTooSmall {
                        path,
                        found: format_size(len),
                        expected: format_size(o.file_size()),
                    });
                }
            }
            Ok(file)
        })
        .collect()
}

struct FileIoRun<'a> {
    o: &'a FileIoOptions,
    mode: FileTestMode,
    files: Vec<File>,
    seed: u64,
    schedule: Mutex<Schedule>,
}

struct Worker {
    buffer: AlignedBuffer,
    rng: SmallRng,
}

impl FileIoRun<'_> {
    fn fsync(&self, file: u64) -> Result<(), HwTestError> {
        let f = &self.files[file as usize];
        let done = match self.o.fsync_mode {
            FsyncMode::Fsync => f.sync_all(),
            FsyncMode::Fdatasync => f.sync_data(),
        };
        done.map_err(|e| HwTestError::file("failed to fsync", &file_path(&self.o.dir, file), e))?;
        self.schedule.lock().unwrap().counts.other_ops += 1;
        Ok(())
    }

    fn io_error(&self, action: &'static str, file: u64, e: std::io::Error) -> HwTestError {
        HwTestError::file(action, &file_path(&self.o.dir, file), e)
    }
}

impl Workload for FileIoRun<'_> {
    type State = Worker;
    type Event = Request;

    fn thread_state(&self, thread: usize) -> Result<Worker, HwTestError> {
        let rng = if self.seed == 0 {
            SmallRng::from_entropy()
        } else {
            SmallRng::seed_from_u64(self.seed.wrapping_add(thread as u64))
        };
        Ok(Worker {
            buffer: AlignedBuffer::new(self.o.request_size() as usize),
            rng,
        })
    }

    fn next_event(&self, w: &mut Worker) -> Option<Request> {
        let uniform: f64 = w.rng.gen();
        let mut s = self.schedule.lock().unwrap();
        Some(match self.mode {
            FileTestMode::Seqwr | FileTestMode::Seqrewr | FileTestMode::Seqrd => {
                s.next_sequential(self.o, self.mode)
            }
            _ => s.next_random(self.o, self.mode, uniform),
        })
    }

    fn execute(&self, w: &mut Worker, request: Request) -> Result<(), HwTestError> {
        match request {
            Request::Read { file, pos, size } => {
                let buf = &mut w.buffer.as_mut_slice()[..size as usize];
                self.files[file as usize]
                    .read_exact_at(buf, pos)
                    .map_err(|e| self.io_error("failed to read", file, e))?;
                let mut s = self.schedule.lock().unwrap();
                s.counts.read_ops += 1;
                s.counts.bytes_read += size;
            }
            Request::Write { file, pos, size } => {
                let buf = &w.buffer.as_slice()[..size as usize];
                self.files[file as usize]
                    .write_all_at(buf, pos)
                    .map_err(|e| self.io_error("failed to write", file, e))?;
                if self.o.fsync_all {
                    self.fsync(file)?;
                }
                let mut s = self.schedule.lock().unwrap();
                s.counts.write_ops += 1;
                s.counts.bytes_written += size;
            }
            Request::Fsync { file } => self.fsync(file)?,
        }
        Ok(())
    }

    /// Every worker fsyncs every file at its end unless the mode only reads, as
    /// sysbench's `file_thread_done`: counted as fsyncs, not as events.
    fn thread_done(&self, _: &mut Worker) -> Result<(), HwTestError> {
        if self.o.effective_fsync_end()
            && !matches!(self.mode, FileTestMode::Seqrd | FileTestMode::Rndrd)
        {
            for file in 0..self.o.file_num {
                self.fsync(file)?;
            }
        }
        Ok(())
    }

    fn interval(&self, c: &IntervalCommon) -> IntervalFigures {
        let mut s = self.schedule.lock().unwrap();
        let n = &mut s.counts;
        let figures = IntervalFigures {
            elapsed_s: c.elapsed_s,
            read_mib_per_s: Some((n.bytes_read - n.last_bytes_read) as f64 / MIB / c.interval_s),
            written_mib_per_s: Some(
                (n.bytes_written - n.last_bytes_written) as f64 / MIB / c.interval_s,
            ),
            fsyncs_per_s: Some((n.other_ops - n.last_other_ops) as f64 / c.interval_s),
            latency_pct_ms: c.latency_pct_ms,
            ..Default::default()
        };
        n.last_bytes_read = n.bytes_read;
        n.last_bytes_written = n.bytes_written;
        n.last_other_ops = n.other_ops;
        figures
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;

    #[test]
    fn seqwr_starts_from_new_empty_files_as_sysbench() {
        let dir = tempfile::tempdir().unwrap();
        let o = FileIoOptions {
            file_num: 2,
            total_size: 2 * 16384,
            dir: dir.path().to_path_buf(),
            ..Default::default()
        };
        prepare(&o, &mut |_| {}).unwrap();
        let inode = |n| std::fs::metadata(file_path(dir.path(), n)).unwrap().ino();
        let before = [inode(0), inode(1)];
        // Kept open, the old files' inodes cannot be reused by the new ones.
        let old = open_set(&o, FileTestMode::Rndrd).unwrap();
        let new = open_set(&o, FileTestMode::Seqwr).unwrap();
        for (n, file) in new.iter().enumerate() {
            // Removed and created, not truncated in place: a truncated ext4 file that is
            // written again is flushed when closed, which sysbench's files are not.
            assert_ne!(inode(n as u64), before[n]);
            assert_eq!(file.metadata().unwrap().len(), 0);
        }
        drop(old);
    }
}
