//! What can go wrong in a hardware test, each with a one-line message.

use std::path::PathBuf;

/// A bad option: one line naming the option, the value and what would do.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OptionError {
    #[error("--{name}={value}: {expected}")]
    Invalid {
        name: String,
        value: String,
        expected: String,
    },
    #[error("--{name}: not an option of the {test} test (see `{test} help`)")]
    Unknown { name: String, test: &'static str },
    #[error("--{name}={value}: {reason}")]
    Unsupported {
        name: String,
        value: String,
        reason: &'static str,
    },
    #[error("missing required argument: --file-test-mode (seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw)")]
    MissingTestMode,
}

#[derive(Debug, thiserror::Error)]
pub enum HwTestError {
    #[error(transparent)]
    Option(#[from] OptionError),
    #[error("{action} {}: {source}", path.display())]
    File {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("size of file '{}' is {found}B, but at least {expected}B is expected (did you run 'prepare' with different --file-total-size or --file-num values?)", path.display())]
    FileTooSmall {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("cannot open {}: no such file (did you forget to run the prepare step?)", path.display())]
    NotPrepared { path: PathBuf },
    #[error("memory: {0}")]
    Memory(String),
    #[error("'{test}' test does not implement the '{command}' command")]
    NoSuchCommand {
        test: &'static str,
        command: &'static str,
    },
    #[error("cancelled")]
    Cancelled,
    #[error("a worker thread panicked")]
    WorkerPanicked,
}

impl HwTestError {
    pub(crate) fn file(
        action: &'static str,
        path: &std::path::Path,
        source: std::io::Error,
    ) -> Self {
        HwTestError::File {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}
