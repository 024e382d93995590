//! What can go wrong on a remote host, each phrased so the reader knows what to do.

use std::path::PathBuf;

use dbdyno_ssh::SshError;

use crate::Platform;

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error(transparent)]
    Ssh(#[from] SshError),

    #[error(
        "cannot find DB Dyno's own binary to copy to the other hosts (looked at {tried}): \
         set DBDYNO_AGENT_BINARY to the path of the `dbdyno` executable"
    )]
    NoAgentBinary { tried: String },

    #[error("cannot read {} (the binary to copy): {source}", path.display())]
    ReadLocal {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "REFUSED: {host} is a {remote} machine and this DB Dyno is built for {local}: its binary \
         cannot run there. Use a host of the same OS and CPU, or a DB Dyno built for {remote} \
         (DBDYNO_AGENT_BINARY names the binary to copy)"
    )]
    Platform {
        host: String,
        local: Platform,
        remote: Platform,
    },

    #[error("cannot tell the OS and CPU of {host}: `uname -sm` printed {output:?}")]
    UnknownPlatform { host: String, output: String },

    #[error(
        "{host} has neither `sha256sum` nor `shasum -a 256`, and DB Dyno checks every copy of its \
         binary with one of them: install coreutils (or perl's shasum) there"
    )]
    NoChecksumTool { host: String },

    #[error("{doing} on {host} failed (exit status {status}){}", tail(stderr))]
    Command {
        host: String,
        doing: &'static str,
        status: i32,
        stderr: String,
    },

    #[error("{doing} on {host}: {source}")]
    Io {
        host: String,
        doing: &'static str,
        #[source]
        source: std::io::Error,
    },

    #[error("{doing} on {host}: {source}")]
    Channel {
        host: String,
        doing: &'static str,
        #[source]
        source: ssh2::Error,
    },

    #[error(
        "the binary copied to {host} for {path} arrived with SHA-256 {actual:?}, not {expected}: \
         damaged on the way (a full disk there?); the copy was removed, try again"
    )]
    ChecksumMismatch {
        host: String,
        path: String,
        expected: String,
        actual: String,
    },

    #[error(
        "the binary copied to {host} ({path}) does not run there (exit status {status}){}. \
         Common causes: a cache on a file system mounted noexec (XDG_CACHE_HOME there moves \
         it), or a binary linked against a newer C library than the host's (build DB Dyno on \
         a system no newer than the hosts)",
        tail(stderr)
    )]
    WontRun {
        host: String,
        path: String,
        status: i32,
        stderr: String,
    },

    #[error("{name:?} cannot be an environment variable name (letters, digits and _, not starting with a digit)")]
    BadEnvName { name: String },

    #[error("the process on {host} did not say its process id; it printed instead: {line:?}")]
    NoPid { host: String, line: String },

    #[error("timed out after {seconds} s {doing} on {host}")]
    Timeout {
        host: String,
        doing: &'static str,
        seconds: u64,
    },

    #[error(
        "the process on {host} has ended{}{}{}",
        status.map(|s| format!(" (exit status {s})")).unwrap_or_default(),
        lost.as_ref().map(|l| format!(" (the SSH connection was lost: {l})")).unwrap_or_default(),
        tail(stderr)
    )]
    Closed {
        host: String,
        /// The exit status when the host said it (128 + n for a process ended by signal n).
        status: Option<i32>,
        /// The last of what the process wrote to stderr.
        stderr: String,
        /// Why the connection broke, when it did.
        lost: Option<String>,
    },
}

/// `: <last errors>` when there are any.
fn tail(stderr: &str) -> String {
    let s = stderr.trim();
    if s.is_empty() {
        String::new()
    } else {
        format!(": {s}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_refusal_names_both_sides() {
        let e = RemoteError::Platform {
            host: "bench@db2:22".into(),
            local: Platform::new("linux", "x86_64"),
            remote: Platform::new("linux", "aarch64"),
        };
        let msg = e.to_string();
        assert!(msg.contains("bench@db2:22"), "{msg}");
        assert!(msg.contains("linux/aarch64"), "{msg}");
        assert!(msg.contains("linux/x86_64"), "{msg}");
    }

    #[test]
    fn closed_says_status_and_errors_only_when_known() {
        let bare = RemoteError::Closed {
            host: "h".into(),
            status: None,
            stderr: " \n".into(),
            lost: None,
        };
        assert_eq!(bare.to_string(), "the process on h has ended");
        let full = RemoteError::Closed {
            host: "h".into(),
            status: Some(2),
            stderr: "boom\n".into(),
            lost: None,
        };
        assert_eq!(
            full.to_string(),
            "the process on h has ended (exit status 2): boom"
        );
        let lost = RemoteError::Closed {
            host: "h".into(),
            status: None,
            stderr: String::new(),
            lost: Some("connection reset".into()),
        };
        assert_eq!(
            lost.to_string(),
            "the process on h has ended (the SSH connection was lost: connection reset)"
        );
    }
}
