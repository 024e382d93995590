//! Profile errors: every message names the file, the line when known, the dotted field
//! and what is wrong, like a compiler does. No message ever quotes a secret: values of
//! fields that may hold one are never echoed.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted path of the field: `plan.threads[2]`, `workload.table_size`, `mysql`.
    pub field: String,
    /// Line (from 1) in the file, when the field is in it.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}: {}", self.field, self.message),
            None => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read profile {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("cannot write profile {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },

    /// The file is not TOML, or a field has a value of the wrong kind.
    #[error("{}", render(file, problems))]
    Invalid {
        file: String,
        problems: Vec<Problem>,
    },

    #[error("no profile named '{name}': not a file, not in {user_dir}, not a shipped example (see `dbdyno profile list`)")]
    NotFound { name: String, user_dir: String },

    #[error("profile file {path} not found")]
    FileNotFound { path: String },

    #[error("no user configuration directory on this system; set DBDYNO_CONFIG_DIR")]
    NoConfigDir,

    #[error("cannot read the seed config {file}: line {line}: {message}")]
    SeedConfig {
        file: String,
        line: usize,
        message: String,
    },

    /// A problem of the whole seed config, not of one line.
    #[error("cannot import the seed config {file}: {message}")]
    SeedConfigFile { file: String, message: String },
}

impl ProfileError {
    /// The problems of an invalid profile (empty for other errors).
    pub fn problems(&self) -> &[Problem] {
        match self {
            ProfileError::Invalid { problems, .. } => problems,
            _ => &[],
        }
    }

    pub(crate) fn invalid(file: &str, problems: Vec<Problem>) -> ProfileError {
        ProfileError::Invalid {
            file: file.to_string(),
            problems,
        }
    }
}

fn render(file: &str, problems: &[Problem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| match p.line {
            Some(l) => format!("{file}:{l}: {}: {}", p.field, p.message),
            None => format!("{file}: {}: {}", p.field, p.message),
        })
        .collect();
    match lines.len() {
        1 => format!("invalid profile: {}", lines[0]),
        n => format!("invalid profile ({n} problems):\n  {}", lines.join("\n  ")),
    }
}
