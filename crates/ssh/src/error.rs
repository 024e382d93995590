//! Errors of the SSH layer, each phrased so the person reading it knows what to do.

use std::path::PathBuf;

use super::known_hosts::HostKey;

/// A host key seen for the first time, with what is needed to ask the user and to
/// store it. Boxed inside [`SshError::UnknownHostKey`] to keep the error small.
#[derive(Debug, Clone)]
pub struct UnknownHostKey {
    pub host: String,
    pub port: u16,
    pub key: HostKey,
    /// The file an acceptance is written to (the app's own known_hosts).
    pub known_hosts_file: PathBuf,
    /// Key types already listed for this host (the server offered another type).
    pub other_types: Vec<String>,
}

impl UnknownHostKey {
    /// Stores the key in [`Self::known_hosts_file`]; a later connect then trusts it.
    pub fn accept(&self) -> Result<(), SshError> {
        super::known_hosts::append(&self.known_hosts_file, &self.host, self.port, &self.key)
            .map_err(|source| SshError::KnownHostsWrite {
                path: self.known_hosts_file.clone(),
                source,
            })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SshError {
    #[error("cannot resolve host name {host}: {source}")]
    Resolve {
        host: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot connect to {addr}: {source} (is sshd running there, and is the port right and open?)")]
    Connect {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the jump host {via} could not open a connection to {to}: {source} (can {via} reach \
         {to}, and does its sshd allow TCP forwarding: AllowTcpForwarding yes?)"
    )]
    Forward {
        via: String,
        to: String,
        #[source]
        source: ssh2::Error,
    },
    #[error(
        "SSH handshake with {addr} failed: {source} (is this an SSH server? is it overloaded?)"
    )]
    Handshake {
        addr: String,
        #[source]
        source: ssh2::Error,
    },
    #[error(
        "the host key of {host}:{port} is not known: {key_type} key {fingerprint}. Check this fingerprint \
         with the server's administrator (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then accept it \
         (--accept-new-host-key) to store it in {file}{others}",
        host = .0.host, port = .0.port, key_type = .0.key.key_type, fingerprint = .0.key.fingerprint_sha256(),
        file = .0.known_hosts_file.display(),
        others = if .0.other_types.is_empty() { String::new() } else {
            format!(" (keys of type {} are already listed for this host)", .0.other_types.join(", "))
        }
    )]
    UnknownHostKey(Box<UnknownHostKey>),
    #[error(
        "REFUSED: {host}:{port} presents {key_type} key {fingerprint}, not the host key this target is pinned to ({pinned}, the profile's host_key_fingerprint or --ssh-host-key-fingerprint). A different server, a reinstalled one, or a man-in-the-middle: change the pinned fingerprint only if you know which"
    )]
    HostKeyPinMismatch {
        host: String,
        port: u16,
        key_type: String,
        fingerprint: String,
        pinned: String,
    },
    #[error(
        "REFUSED: --accept-new-host-key does not store {key} for {host}:{port}, because {file} already \
         lists keys of type {other_types} for this host: a new key of another type can mean a different \
         server. Check the fingerprint with the server's administrator (ssh-keygen -lf \
         /etc/ssh/ssh_host_*_key.pub), then accept it at the interactive prompt (without the flag) or edit {file}",
        file = .file.display()
    )]
    HostKeyOtherTypesKnown {
        host: String,
        port: u16,
        /// "ssh-ed25519 key SHA256:…"
        key: String,
        file: PathBuf,
        /// The types already listed, comma-separated (kept as one string: the error stays small).
        other_types: String,
    },
    #[error(
        "REFUSED: the host key of {host}:{port} has CHANGED. The server sent {key_type} key {fingerprint}, \
         but {file} line {line} lists a different key for it. This can be a man-in-the-middle attack, or \
         the server was reinstalled; only if you know it was reinstalled, delete line {line} of {file} and \
         connect again", file = .file.display()
    )]
    HostKeyChanged {
        host: String,
        port: u16,
        key_type: String,
        fingerprint: String,
        file: PathBuf,
        line: usize,
    },
    #[error(
        "REFUSED: the host key of {host}:{port} ({fingerprint}) is marked @revoked in {file} line {line}",
        file = .file.display()
    )]
    HostKeyRevoked {
        host: String,
        port: u16,
        fingerprint: String,
        file: PathBuf,
        line: usize,
    },
    #[error("the server {addr} sent no usable host key")]
    NoHostKey { addr: String },
    #[error(transparent)]
    KnownHostsRead(#[from] super::known_hosts::KnownHostsReadError),
    #[error("cannot write known_hosts file {}: {source}", path.display())]
    KnownHostsWrite {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot use private key {}: {detail}", path.display())]
    KeyFile { path: PathBuf, detail: String },
    #[error("authentication failed for user {user} at {addr} with key {}: {detail}", key.display())]
    AuthKey {
        user: String,
        addr: String,
        key: PathBuf,
        detail: String,
    },
    #[error("authentication failed for user {user} at {addr} with password: {detail}")]
    AuthPassword {
        user: String,
        addr: String,
        detail: String,
    },
    #[error("authentication failed for user {user} at {addr} through ssh-agent: {detail}")]
    AuthAgent {
        user: String,
        addr: String,
        detail: String,
    },
    #[error("SSH session with {addr} failed while {doing}: {source}")]
    Session {
        addr: String,
        doing: &'static str,
        #[source]
        source: ssh2::Error,
    },
    #[error("SSH connection to {addr} failed while {doing}: {source}")]
    Io {
        addr: String,
        doing: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("command on {addr} exited with status {status}: {stderr}")]
    CommandFailed {
        addr: String,
        status: i32,
        stderr: String,
    },
    #[error("unexpected output from {addr} while {doing}: {output:.200}")]
    BadOutput {
        addr: String,
        doing: &'static str,
        output: String,
    },
}

impl SshError {
    /// True for errors that retrying will not fix without a person acting: host key
    /// problems and credentials. The monitor stops reconnecting on these.
    pub fn needs_user_action(&self) -> bool {
        matches!(
            self,
            SshError::UnknownHostKey(_)
                | SshError::HostKeyPinMismatch { .. }
                | SshError::HostKeyOtherTypesKnown { .. }
                | SshError::HostKeyChanged { .. }
                | SshError::HostKeyRevoked { .. }
                | SshError::KnownHostsRead(_)
                | SshError::KnownHostsWrite { .. }
                | SshError::KeyFile { .. }
                | SshError::AuthKey { .. }
                | SshError::AuthPassword { .. }
                | SshError::AuthAgent { .. }
        )
    }
}
