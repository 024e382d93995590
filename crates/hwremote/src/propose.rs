//! Which directory to propose for the file set: one on the data disk's filesystem, so
//! the figures are that disk's, but never inside MySQL's data directory (a directory
//! there reads as a schema to MySQL).

use dbdyno_monitor::disk::DataDisk;
use serde::{Deserialize, Serialize};

/// The proposal shown to the user, who confirms it or gives another directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// `None` when no directory on that filesystem is outside the data directory.
    pub dir: Option<String>,
    /// Why this directory, or why none, in one sentence.
    pub why: String,
}

/// The data directory's parent when it is on the same filesystem.
pub fn propose_dir(disk: &DataDisk) -> Proposal {
    let datadir = disk.path.trim_end_matches('/');
    let mount = disk.mount_point.trim_end_matches('/');
    let on = format!("{} ({}, {})", disk.mount_point, disk.fs_type, disk.source);
    if datadir == mount || datadir.is_empty() {
        return Proposal {
            dir: None,
            why: format!(
                "the data directory {} is the root of its filesystem {on}: no other directory is on it; give one with --dir",
                disk.path
            ),
        };
    }
    let parent = match datadir.rsplit_once('/') {
        Some(("", _)) => "/".to_string(),
        Some((p, _)) => p.to_string(),
        None => {
            return Proposal {
                dir: None,
                why: format!("the data directory {} is not an absolute path", disk.path),
            }
        }
    };
    Proposal {
        why: format!(
            "beside the data directory {}, on its filesystem {on}",
            disk.path
        ),
        dir: Some(parent),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(path: &str, mount: &str) -> DataDisk {
        DataDisk {
            path: path.into(),
            mount_point: mount.into(),
            fs_type: "ext4".into(),
            source: "/dev/sdb1".into(),
            devices: vec!["sdb".into()],
            chain: vec![],
            overridden: false,
        }
    }

    #[test]
    fn the_parent_of_the_datadir_on_its_filesystem() {
        let p = propose_dir(&disk("/data/mysql/", "/data"));
        assert_eq!(p.dir.as_deref(), Some("/data"));
        assert!(p.why.contains("/data (ext4, /dev/sdb1)"), "{}", p.why);
        assert_eq!(
            propose_dir(&disk("/var/lib/mysql", "/")).dir.as_deref(),
            Some("/var/lib")
        );
    }

    #[test]
    fn none_when_the_datadir_is_the_mount_point() {
        let p = propose_dir(&disk("/var/lib/mysql/", "/var/lib/mysql"));
        assert_eq!(p.dir, None);
        assert!(p.why.contains("--dir"), "{}", p.why);
    }
}
