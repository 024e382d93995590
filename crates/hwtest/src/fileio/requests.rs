//! Which request comes next, and the counters behind the figures: sb_fileio.c's
//! `file_get_seq_request`, `file_get_rnd_request` and its statistics, under one lock
//! as in sysbench (the rw ratio and the fsync rounds read the shared counts).

use crate::options::FileIoOptions;
use crate::result::FileTestMode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Read { file: u64, pos: u64, size: u64 },
    Write { file: u64, pos: u64, size: u64 },
    Fsync { file: u64 },
}

/// The request generator's position and the operation counts.
#[derive(Debug, Default)]
pub struct Schedule {
    position: u64,
    current_file: u64,
    fsynced_file: u64,
    /// Writes since the last complete round of fsyncs.
    is_dirty: bool,
    req_performed: u64,
    pub counts: OpCounts,
}

/// What was done; `last_*` mark the previous interval line.
#[derive(Debug, Default, Clone)]
pub struct OpCounts {
    pub read_ops: u64,
    pub write_ops: u64,
    pub other_ops: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub last_bytes_read: u64,
    pub last_bytes_written: u64,
    pub last_other_ops: u64,
}

impl Schedule {
    /// Every `fsync_freq` requests after a write, one fsync per file, one file per
    /// request, until every file is synced; then requests resume.
    fn periodic_fsync(&mut self, o: &FileIoOptions) -> Option<Request> {
        let freq = o.effective_fsync_freq();
        if freq == 0 || !self.is_dirty || !self.req_performed.is_multiple_of(freq) {
            return None;
        }
        let file = self.fsynced_file;
        self.fsynced_file += 1;
        if self.fsynced_file == o.file_num {
            self.fsynced_file = 0;
            self.is_dirty = false;
        }
        Some(Request::Fsync { file })
    }

    /// Sequential modes: the files one after another, in requests of
    /// `block × merged`, starting over after the last.
    pub fn next_sequential(&mut self, o: &FileIoOptions, mode: FileTestMode) -> Request {
        let writing = mode != FileTestMode::Seqrd;
        if writing {
            if let Some(fsync) = self.periodic_fsync(o) {
                return fsync;
            }
        }
        self.req_performed += 1;
        if writing {
            self.is_dirty = true;
        }
        if self.current_file == o.file_num {
            self.position = 0;
            self.current_file = 0;
        }
        let file_size = o.file_size();
        let (file, pos) = (self.current_file, self.position);
        let size = o.request_size().min(file_size - pos);
        self.position += size;
        if self.position == file_size {
            self.current_file += 1;
            self.position = 0;
        }
        if writing {
            Request::Write { file, pos, size }
        } else {
            Request::Read { file, pos, size }
        }
    }

    /// Random modes: a block-aligned offset drawn uniformly over the whole set
    /// (`uniform` in [0, 1)). rndrw reads while (reads+1)/(writes+1) is below the ratio.
    pub fn next_random(&mut self, o: &FileIoOptions, mode: FileTestMode, uniform: f64) -> Request {
        let write = match mode {
            FileTestMode::Rndrw => {
                (self.counts.read_ops + 1) as f64 / (self.counts.write_ops + 1) as f64 >= o.rw_ratio
            }
            m => m == FileTestMode::Rndwr,
        };
        if let Some(fsync) = self.periodic_fsync(o) {
            return fsync;
        }
        let file_size = o.file_size();
        // Over file_size × files rather than the total asked for: the same unless the
        // total does not divide, where sysbench could pick a file past the last.
        let set_size = file_size * o.file_num;
        let mut offset = (uniform * set_size as f64) as u64;
        offset -= offset % o.block_size;
        let (file, pos) = (offset / file_size, offset % file_size);
        let size = o.block_size.min(file_size - pos);
        self.req_performed += 1;
        if write {
            self.is_dirty = true;
            Request::Write { file, pos, size }
        } else {
            Request::Read { file, pos, size }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(num: u64, total: u64, freq: u64) -> FileIoOptions {
        FileIoOptions {
            file_num: num,
            total_size: total,
            block_size: 16384,
            fsync_freq: freq,
            ..Default::default()
        }
    }

    #[test]
    fn sequential_writes_walk_the_files_and_fsync_each_file_every_n_requests() {
        let o = opts(2, 4 * 16384, 3);
        let mut s = Schedule::default();
        let got: Vec<Request> = (0..8)
            .map(|_| s.next_sequential(&o, FileTestMode::Seqwr))
            .collect();
        use Request::*;
        assert_eq!(
            got,
            [
                Write {
                    file: 0,
                    pos: 0,
                    size: 16384
                },
                Write {
                    file: 0,
                    pos: 16384,
                    size: 16384
                },
                Write {
                    file: 1,
                    pos: 0,
                    size: 16384
                },
                Fsync { file: 0 },
                Fsync { file: 1 },
                Write {
                    file: 1,
                    pos: 16384,
                    size: 16384
                },
                Write {
                    file: 0,
                    pos: 0,
                    size: 16384
                },
                Write {
                    file: 0,
                    pos: 16384,
                    size: 16384
                },
            ]
        );
    }

    #[test]
    fn sequential_reads_never_fsync() {
        let o = opts(2, 4 * 16384, 1);
        let mut s = Schedule::default();
        for _ in 0..10 {
            assert!(matches!(
                s.next_sequential(&o, FileTestMode::Seqrd),
                Request::Read { .. }
            ));
        }
    }

    #[test]
    fn rndrw_keeps_reads_at_one_and_a_half_writes() {
        let o = opts(4, 64 << 20, 0);
        let mut s = Schedule::default();
        for i in 0..10_000u64 {
            match s.next_random(&o, FileTestMode::Rndrw, (i as f64 * 0.618).fract()) {
                Request::Read { pos, size, .. } => {
                    assert_eq!(pos % 16384, 0);
                    assert_eq!(size, 16384);
                    s.counts.read_ops += 1;
                }
                Request::Write { .. } => s.counts.write_ops += 1,
                Request::Fsync { .. } => panic!("fsync with --file-fsync-freq=0"),
            }
        }
        assert_eq!(s.counts.read_ops, 6000);
        assert_eq!(s.counts.write_ops, 4000);
    }

    #[test]
    fn random_offsets_cover_the_whole_set() {
        let o = opts(4, 4 * 16384 * 10, 0);
        let mut s = Schedule::default();
        assert_eq!(
            s.next_random(&o, FileTestMode::Rndrd, 0.0),
            Request::Read {
                file: 0,
                pos: 0,
                size: 16384
            }
        );
        assert_eq!(
            s.next_random(&o, FileTestMode::Rndrd, 0.999_999),
            Request::Read {
                file: 3,
                pos: 9 * 16384,
                size: 16384
            }
        );
    }

    #[test]
    fn random_writes_fsync_every_file_after_each_n_requests() {
        let o = opts(3, 3 * 16384, 2);
        let mut s = Schedule::default();
        let kinds: Vec<char> = (0..7)
            .map(|_| match s.next_random(&o, FileTestMode::Rndwr, 0.5) {
                Request::Write { .. } => 'w',
                Request::Fsync { .. } => 'f',
                Request::Read { .. } => 'r',
            })
            .collect();
        assert_eq!(kinds.iter().collect::<String>(), "wwfffww");
    }
}
