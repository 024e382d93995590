//! The file set on disk: names, open flags, page-aligned buffers, prepare and cleanup
//! (sb_fileio.c `create_files`, `remove_files`, `sb_open`).

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::error::HwTestError;
use crate::options::FileIoOptions;
use crate::result::FileExtraFlag;

/// O_DIRECT wants the buffer, the offset and the length aligned; a page covers every
/// device's logical block size.
const BUFFER_ALIGN: usize = 4096;

/// `test_file.N` in the options' directory, as sysbench names them.
pub fn file_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("test_file.{n}"))
}

/// `--file-extra-flags` as open(2) flags.
pub fn extra_open_flags(flags: &[FileExtraFlag]) -> i32 {
    flags.iter().fold(0, |acc, f| {
        acc | match f {
            FileExtraFlag::Sync => libc::O_SYNC,
            FileExtraFlag::Dsync => libc::O_DSYNC,
            FileExtraFlag::Direct => libc::O_DIRECT,
        }
    })
}

/// "Extra file open flags: (none)" or the flags, as sysbench spells them.
pub fn extra_flags_text(flags: &[FileExtraFlag]) -> String {
    if flags.is_empty() {
        return "(none)".into();
    }
    // sysbench prints them in this order whatever the order given, "directio" last.
    let mut text = String::new();
    for (flag, word) in [
        (FileExtraFlag::Sync, "sync "),
        (FileExtraFlag::Dsync, "dsync "),
        (FileExtraFlag::Direct, "directio"),
    ] {
        if flags.contains(&flag) {
            text.push_str(word);
        }
    }
    text
}

/// A zeroed buffer whose start is page-aligned, without unsafe code: a larger vector,
/// used from its first aligned byte.
pub struct AlignedBuffer {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuffer {
    pub fn new(len: usize) -> Self {
        let storage = vec![0u8; len + BUFFER_ALIGN];
        let start = storage.as_ptr().align_offset(BUFFER_ALIGN);
        AlignedBuffer {
            storage,
            start,
            len,
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

/// Opens the set for a run, read-write with the extra flags (`sb_open`).
pub fn open_for_run(o: &FileIoOptions, path: &Path) -> Result<File, HwTestError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(extra_open_flags(&o.extra_flags))
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => HwTestError::NotPrepared {
                path: path.to_path_buf(),
            },
            _ => HwTestError::file("cannot open", path, e),
        })
}

/// `prepare`: creates or extends each file to its size in whole blocks, fsyncs it so
/// that the page cache's write-back does not land in the run, and logs sysbench's lines.
pub fn prepare(o: &FileIoOptions, log: &mut dyn FnMut(String)) -> Result<(), HwTestError> {
    let file_size = o.file_size();
    log(format!(
        "{} files, {}Kb each, {}Mb total",
        o.file_num,
        file_size / 1024,
        file_size * o.file_num / (1024 * 1024)
    ));
    log("Creating files for the test...".into());
    log(format!(
        "Extra file open flags: {}",
        extra_flags_text(&o.extra_flags)
    ));
    let block = AlignedBuffer::new(o.block_size as usize);
    let started = Instant::now();
    let mut written: u64 = 0;
    for n in 0..o.file_num {
        let path = file_path(&o.dir, n);
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .mode(0o600)
            .custom_flags(extra_open_flags(&o.extra_flags))
            .open(&path)
            .map_err(|e| HwTestError::file("cannot create", &path, e))?;
        let mut offset = file
            .seek(SeekFrom::End(0))
            .map_err(|e| HwTestError::file("cannot seek in", &path, e))?;
        log(if offset >= file_size {
            format!("Reusing existing file {name}")
        } else if offset > 0 {
            format!("Extending existing file {name}")
        } else {
            format!("Creating file {name}")
        });
        while offset < file_size {
            file.write_all(block.as_slice())
                .map_err(|e| HwTestError::file("failed to write", &path, e))?;
            offset += o.block_size;
            written += o.block_size;
        }
        file.sync_all()
            .map_err(|e| HwTestError::file("cannot fsync", &path, e))?;
    }
    let seconds = started.elapsed().as_secs_f64();
    log(if written > 0 {
        format!(
            "{written} bytes written in {seconds:.2} seconds ({:.2} MiB/sec).",
            written as f64 / 1048576.0 / seconds
        )
    } else {
        "No bytes written.".into()
    });
    Ok(())
}

/// `cleanup`: removes `test_file.0` … `test_file.{num-1}`; missing ones are fine.
pub fn cleanup(o: &FileIoOptions, log: &mut dyn FnMut(String)) -> Result<(), HwTestError> {
    log("Removing test files...".into());
    for n in 0..o.file_num {
        let path = file_path(&o.dir, n);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(HwTestError::file("cannot remove", &path, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_page_aligned_and_zeroed() {
        for len in [512, 16384, 100_000] {
            let b = AlignedBuffer::new(len);
            assert_eq!(b.as_slice().as_ptr() as usize % BUFFER_ALIGN, 0);
            assert_eq!(b.as_slice().len(), len);
            assert!(b.as_slice().iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn extra_flags_print_in_sysbenchs_order() {
        assert_eq!(extra_flags_text(&[]), "(none)");
        assert_eq!(
            extra_flags_text(&[FileExtraFlag::Direct, FileExtraFlag::Sync]),
            "sync directio"
        );
        assert_eq!(extra_open_flags(&[FileExtraFlag::Direct]), libc::O_DIRECT);
    }

    #[test]
    fn prepare_makes_whole_blocks_and_cleanup_removes_them() {
        let dir = tempfile::tempdir().unwrap();
        let o = FileIoOptions {
            file_num: 3,
            total_size: 3 * 40000,
            block_size: 16384,
            dir: dir.path().to_path_buf(),
            ..Default::default()
        };
        let mut lines = Vec::new();
        prepare(&o, &mut |l| lines.push(l)).unwrap();
        assert_eq!(lines[0], "3 files, 39Kb each, 0Mb total");
        assert_eq!(lines[3], "Creating file test_file.0");
        // 40000 bytes in 16 KiB blocks: three blocks, as sysbench writes them.
        let len = std::fs::metadata(file_path(dir.path(), 2)).unwrap().len();
        assert_eq!(len, 3 * 16384);
        let mut again = Vec::new();
        prepare(&o, &mut |l| again.push(l)).unwrap();
        assert_eq!(again[3], "Reusing existing file test_file.0");
        assert_eq!(again.last().unwrap(), "No bytes written.");
        cleanup(&o, &mut |_| {}).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
