//! What can stop a measurement of the server, each with a message that says what to do.

use dbdyno_monitor::DiskError;
use dbdyno_remote::RemoteError;
use dbdyno_ssh::SshError;

/// The figures of a refusal for want of room, as sizes for people ("1.5Gi").
#[derive(Debug)]
pub struct RoomShortage {
    pub host: String,
    pub dir: String,
    pub available: String,
    pub needed: String,
    pub file_set: String,
    pub margin: String,
}

#[derive(Debug, thiserror::Error)]
pub enum HwRemoteError {
    #[error("--{name}={value}: expected a size such as 512M or 8G")]
    Setting { name: &'static str, value: String },
    #[error("{dir} on {host} is not an absolute path")]
    NotAbsolute { host: String, dir: String },
    #[error("{dir} on {host} is not a directory the SSH user can write to")]
    NotWritable { host: String, dir: String },
    #[error("not enough room in {} on {}: {} free, the tests need {} (a {} file set and {} kept free); choose a smaller --file-total-size or another --dir", .0.dir, .0.host, .0.available, .0.needed, .0.file_set, .0.margin)]
    NoRoom(Box<RoomShortage>),
    #[error("reading the free space of {dir} on {host}: {output}")]
    Df {
        host: String,
        dir: String,
        output: String,
    },
    #[error(transparent)]
    Remote(#[from] RemoteError),
    #[error(transparent)]
    Ssh(#[from] SshError),
    #[error("finding the data disk: {0}")]
    Disk(#[from] DiskError),
    #[error("the tests failed on {host}: {message}")]
    Failed { host: String, message: String },
    #[error("cancelled; the files on {host} were removed")]
    Cancelled { host: String },
    #[error("DB Dyno on {host} stopped answering ({why}); it removes its own files when its connection ends")]
    Lost { host: String, why: String },
    #[error("the work directory {work_dir} on {host} was still there after the tests and has been removed")]
    LeftBehind { host: String, work_dir: String },
    #[error("unexpected line from DB Dyno on {host}: {line}")]
    BadLine { host: String, line: String },
}
