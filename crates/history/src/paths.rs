//! Where the history lives: `--data-dir`, else `DBDYNO_DATA_DIR`, else the OS's user
//! data directory (`~/.local/share/dbdyno` on Linux).

use std::path::PathBuf;

use crate::HistoryError;

/// Environment variable that overrides the data directory (tests, portable use).
pub const DATA_DIR_ENV: &str = "DBDYNO_DATA_DIR";

/// The data directory to use when none is given on the command line.
pub fn default_data_dir() -> Result<PathBuf, HistoryError> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "dbdyno")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or(HistoryError::NoDataDir)
}

/// `explicit` when given, else [`default_data_dir`].
pub fn resolve_data_dir(explicit: Option<&std::path::Path>) -> Result<PathBuf, HistoryError> {
    match explicit {
        Some(p) => Ok(p.to_path_buf()),
        None => default_data_dir(),
    }
}

/// Whether a file can be written and synced in `dir` (made when missing), and the free
/// bytes for this user on its file system: the facts of the history directory's check
/// row. Writes a few KiB (a full disk with inodes left still takes an empty file) and
/// removes them.
pub fn probe_dir(dir: &std::path::Path) -> (Result<(), String>, Option<u64>) {
    use std::io::Write;
    let written = (|| {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!(".dbdyno-probe-{}", std::process::id()));
        let r = (|| {
            let mut f = std::fs::File::create(&path)?;
            f.write_all(&[0u8; 16 * 1024])?;
            f.sync_all()
        })();
        let _ = std::fs::remove_file(&path);
        r
    })()
    .map_err(|e| e.to_string());
    (written, avail_bytes(dir))
}

/// Free bytes for an unprivileged user on the file system holding `dir`.
fn avail_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut s = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: `c` is a valid NUL-terminated path and `s` points to writable memory of
    // the struct's size; statvfs fills it or fails.
    let r = unsafe { libc::statvfs(c.as_ptr(), s.as_mut_ptr()) };
    if r != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled the struct.
    let s = unsafe { s.assume_init() };
    // The fields' types differ between platforms (u32 on some): cast, not From.
    #[allow(clippy::unnecessary_cast)]
    Some(s.f_bavail as u64 * s.f_frsize as u64)
}
