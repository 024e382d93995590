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
