//! DB Dyno's SSH floor: connections to another host (libssh2 through the `ssh2` crate),
//! host-key checking against known_hosts, and the one shell-quoting function.
//!
//! Purpose: open an authenticated session with the server's host key verified against
//! known_hosts files we control, run small commands, and hand callers a channel (the
//! monitor's sampler, the remote agent's spawn and copy, the remote hardware tests).
//! Authentication by private key file (optional passphrase), ssh-agent, or password.
//! A crate of its own so that every crate which reaches a host over SSH finds it in one
//! place, and none of them has to depend on the monitor for it.
//!
//! Jump hosts (`ProxyJump`): [`SshTarget::jumps`], each hop a session of its own
//! (`jump`).
//!
//! Non-goals: no interactive prompts here (the CLI/GUI asks, then calls again), no
//! port forwarding for callers, no ~/.ssh/config parsing (the caller resolves aliases), no writes to the user's own
//! ~/.ssh/known_hosts (it is only read, when asked).

mod auth;
mod clock;
mod error;
mod jump;
pub mod known_hosts;
mod shell;

pub use clock::ClockSync;
pub use error::{SshError, UnknownHostKey};
pub use known_hosts::{HostKey, HostKeyStatus};
pub use shell::sh_quote;

use ssh2::{Channel, ExtendedData, MethodType, Session};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to prove who we are.
#[derive(Clone)]
pub enum SshAuth {
    /// A private key file (OpenSSH or PEM format), with its passphrase if it has one.
    Key {
        path: PathBuf,
        passphrase: Option<String>,
    },
    /// Every identity the running ssh-agent (`SSH_AUTH_SOCK`) offers, in turn.
    Agent,
    Password(String),
}

// Hand-written so that secrets never reach logs through `{:?}`.
impl std::fmt::Debug for SshAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SshAuth::Key { path, passphrase } => f
                .debug_struct("Key")
                .field("path", path)
                .field("passphrase", &passphrase.as_ref().map(|_| "<redacted>"))
                .finish(),
            SshAuth::Agent => f.write_str("Agent"),
            SshAuth::Password(_) => f.write_str("Password(<redacted>)"),
        }
    }
}

/// Which known_hosts files decide whether to trust the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownHostsConfig {
    /// The app's own file (in its data dir): read, and appended to on acceptance.
    pub app_file: PathBuf,
    /// The user's `~/.ssh/known_hosts`, read-only, when the user opted in.
    pub user_file: Option<PathBuf>,
}

impl KnownHostsConfig {
    pub fn new(app_file: impl Into<PathBuf>) -> Self {
        KnownHostsConfig {
            app_file: app_file.into(),
            user_file: None,
        }
    }

    /// Also trust keys in `$HOME/.ssh/known_hosts` (never written to).
    pub fn with_user_known_hosts(mut self) -> Self {
        self.user_file =
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".ssh").join("known_hosts"));
        self
    }

    fn files(&self) -> Vec<PathBuf> {
        std::iter::once(self.app_file.clone())
            .chain(self.user_file.clone())
            .collect()
    }
}

/// Where and how to connect.
#[derive(Debug, Clone)]
pub struct SshTarget {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub auth: SshAuth,
    pub known_hosts: KnownHostsConfig,
    /// Trust-on-first-use: store an unknown host key instead of failing. A changed
    /// key is refused regardless, and so is a new key of another type than those
    /// already known for the host.
    pub accept_new_host_key: bool,
    /// The SHA256 fingerprint the host key must have (a profile's pinned key),
    /// compared on every connection, known_hosts or not.
    pub pinned_fingerprint: Option<String>,
    /// Limit for TCP connect, handshake and authentication.
    pub connect_timeout: Duration,
    /// SSH-level keepalive interval (libssh2 keepalive@openssh.com requests).
    pub keepalive: Duration,
    /// The jump hosts in between (OpenSSH's `ProxyJump`), nearest first: the first is
    /// reached directly, each next one through the one before, this target through the
    /// last. Each hop is checked and logs in by its own fields; its own `jumps` are not
    /// followed.
    pub jumps: Vec<SshTarget>,
}

impl SshTarget {
    pub fn new(
        host: impl Into<String>,
        port: u16,
        user: impl Into<String>,
        auth: SshAuth,
        known_hosts: KnownHostsConfig,
    ) -> Self {
        SshTarget {
            host: host.into(),
            port,
            user: user.into(),
            auth,
            known_hosts,
            accept_new_host_key: false,
            pinned_fingerprint: None,
            connect_timeout: Duration::from_secs(10),
            keepalive: Duration::from_secs(5),
            jumps: Vec::new(),
        }
    }

    /// `host:port` (IPv6 literals bracketed) for messages.
    pub fn addr(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Output of a finished remote command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
}

/// An authenticated session with a verified host key.
pub struct SshConnection {
    session: Session,
    // A second handle on the socket: shutting it down from another thread is the one
    // reliable way to wake a blocking libssh2 read when the monitor is stopped.
    socket: TcpStream,
    addr: String,
    user: String,
    host_key: HostKey,
    // The jump hosts this session runs over; declared last, so they stop after it.
    _tunnels: jump::Tunnels,
}

impl std::fmt::Debug for SshConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshConnection")
            .field("addr", &self.addr)
            .field("user", &self.user)
            .finish()
    }
}

/// Opens, verifies and authenticates a session, through the target's jump hosts if it
/// has any.
pub fn connect(target: &SshTarget) -> Result<SshConnection, SshError> {
    let Some((first, rest)) = target.jumps.split_first() else {
        return connect_over(target, tcp_connect(target)?, jump::Tunnels::default());
    };
    let mut tunnels = jump::Tunnels::default();
    let mut via = connect_over(first, tcp_connect(first)?, jump::Tunnels::default())?;
    for next in rest {
        let (stream, tunnel) = jump::open(via, &next.host, next.port)?;
        tunnels.push(tunnel);
        via = connect_over(next, stream, jump::Tunnels::default())?;
    }
    let (stream, tunnel) = jump::open(via, &target.host, target.port)?;
    tunnels.push(tunnel);
    connect_over(target, stream, tunnels)
}

/// A session over `tcp`: a direct connection, or the end of a jump host's tunnel.
fn connect_over(
    target: &SshTarget,
    tcp: TcpStream,
    tunnels: jump::Tunnels,
) -> Result<SshConnection, SshError> {
    let addr = target.addr();
    let socket = tcp.try_clone().map_err(|source| SshError::Io {
        addr: addr.clone(),
        doing: "cloning the socket",
        source,
    })?;
    let mut session = Session::new().map_err(|source| SshError::Session {
        addr: addr.clone(),
        doing: "creating a session",
        source,
    })?;
    session.set_tcp_stream(tcp);
    session.set_timeout(millis(target.connect_timeout));
    prefer_known_key_types(&session, target);
    session.handshake().map_err(|source| SshError::Handshake {
        addr: addr.clone(),
        source,
    })?;

    let host_key = session
        .host_key()
        .and_then(|(blob, _)| HostKey::from_blob(blob))
        .ok_or_else(|| SshError::NoHostKey { addr: addr.clone() })?;
    verify_host_key(target, &host_key)?;
    auth::authenticate(&session, target, &addr)?;

    session.set_keepalive(true, target.keepalive.as_secs().clamp(2, 3600) as u32);
    Ok(SshConnection {
        session,
        socket,
        addr,
        user: target.user.clone(),
        host_key,
        _tunnels: tunnels,
    })
}

fn millis(d: Duration) -> u32 {
    d.as_millis().clamp(1, u32::MAX as u128) as u32
}

fn tcp_connect(target: &SshTarget) -> Result<TcpStream, SshError> {
    let addr = target.addr();
    let addrs: Vec<_> = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|source| SshError::Resolve {
            host: target.host.clone(),
            source,
        })?
        .collect();
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "the name has no addresses");
    for a in addrs {
        match TcpStream::connect_timeout(&a, target.connect_timeout) {
            Ok(s) => {
                // Samples are small and latency-sensitive; do not let Nagle batch them.
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = e,
        }
    }
    Err(SshError::Connect { addr, source: last })
}

/// Asks the server first for key types we already know for it, so a server with
/// several host keys presents one we can verify instead of looking "unknown".
fn prefer_known_key_types(session: &Session, target: &SshTarget) {
    let known =
        known_hosts::known_key_types(&target.known_hosts.files(), &target.host, target.port);
    if known.is_empty() {
        return;
    }
    let Ok(supported) = session.supported_algs(MethodType::HostKey) else {
        return;
    };
    let mut prefs: Vec<&str> = Vec::new();
    for t in &known {
        // An "ssh-rsa" key is negotiated under the rsa-sha2 signature names.
        let algs: &[&str] = if t == "ssh-rsa" {
            &["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]
        } else {
            &[t.as_str()]
        };
        for a in algs {
            if supported.contains(a) && !prefs.contains(a) {
                prefs.push(a);
            }
        }
    }
    for a in &supported {
        if !prefs.contains(a) {
            prefs.push(a);
        }
    }
    // Best effort: on failure libssh2 keeps its default order, which still works.
    let _ = session.method_pref(MethodType::HostKey, &prefs.join(","));
}

/// Whether `pin` is a SHA256 host key fingerprint ("SHA256:" and 43 base64 characters,
/// or the bare 43). A shipped example's placeholder ("SHA256:REPLACE-WITH-THE-SERVER-
/// FINGERPRINT") is not one: it pins nothing, so the key is judged by known_hosts like
/// any unpinned target's (an unknown key is refused and offered for trust, never taken
/// silently), instead of a mismatch no one could get past.
pub fn is_sha256_fingerprint(pin: &str) -> bool {
    let bare = pin.trim().trim_start_matches("SHA256:");
    bare.len() == 43
        && bare
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

fn verify_host_key(target: &SshTarget, key: &HostKey) -> Result<(), SshError> {
    let pinned = target.pinned_fingerprint.as_deref();
    if let Some(pinned) = pinned.filter(|p| is_sha256_fingerprint(p)) {
        let seen = key.fingerprint_sha256();
        // "SHA256:abc" or the bare "abc", as people copy it.
        if pinned.trim().trim_start_matches("SHA256:") != seen.trim_start_matches("SHA256:") {
            return Err(SshError::HostKeyPinMismatch {
                host: target.host.clone(),
                port: target.port,
                key_type: key.key_type.clone(),
                fingerprint: seen,
                pinned: pinned.to_string(),
            });
        }
    }
    let files = target.known_hosts.files();
    match known_hosts::check(&files, &target.host, target.port, key)? {
        HostKeyStatus::Trusted { .. } => Ok(()),
        HostKeyStatus::Changed { file, line } => Err(SshError::HostKeyChanged {
            host: target.host.clone(),
            port: target.port,
            key_type: key.key_type.clone(),
            fingerprint: key.fingerprint_sha256(),
            file,
            line,
        }),
        HostKeyStatus::Revoked { file, line } => Err(SshError::HostKeyRevoked {
            host: target.host.clone(),
            port: target.port,
            fingerprint: key.fingerprint_sha256(),
            file,
            line,
        }),
        HostKeyStatus::Unknown { other_types } => {
            let unknown = UnknownHostKey {
                host: target.host.clone(),
                port: target.port,
                key: key.clone(),
                known_hosts_file: target.known_hosts.app_file.clone(),
                other_types,
            };
            if target.accept_new_host_key && !unknown.other_types.is_empty() {
                Err(SshError::HostKeyOtherTypesKnown {
                    key: format!(
                        "{} key {}",
                        unknown.key.key_type,
                        unknown.key.fingerprint_sha256()
                    ),
                    host: unknown.host,
                    port: unknown.port,
                    file: unknown.known_hosts_file,
                    other_types: unknown.other_types.join(", "),
                })
            } else if target.accept_new_host_key {
                unknown.accept()
            } else {
                Err(SshError::UnknownHostKey(Box::new(unknown)))
            }
        }
    }
}

impl SshConnection {
    pub fn addr(&self) -> &str {
        &self.addr
    }

    pub fn user(&self) -> &str {
        &self.user
    }

    /// The verified host key this session was opened with.
    pub fn host_key(&self) -> &HostKey {
        &self.host_key
    }

    /// Timeout for every later blocking call (reads included); 0 means none.
    pub fn set_timeout(&self, timeout: Duration) {
        self.session.set_timeout(millis(timeout));
    }

    /// Runs `command` (parsed by the user's login shell), feeding `stdin` if given,
    /// and waits for it to finish.
    pub fn run(&self, command: &str, stdin: Option<&str>) -> Result<CommandOutput, SshError> {
        let mut ch = self.exec(command)?;
        if let Some(input) = stdin {
            ch.write_all(input.as_bytes())
                .map_err(|source| self.io_err("sending a command's input", source))?;
        }
        ch.send_eof()
            .map_err(|source| self.sess_err("sending end of input", source))?;
        let mut stdout = String::new();
        ch.read_to_string(&mut stdout)
            .map_err(|source| self.io_err("reading a command's output", source))?;
        let mut stderr = String::new();
        ch.stderr()
            .read_to_string(&mut stderr)
            .map_err(|source| self.io_err("reading a command's errors", source))?;
        ch.wait_close()
            .map_err(|source| self.sess_err("closing a command channel", source))?;
        let status = ch
            .exit_status()
            .map_err(|source| self.sess_err("reading an exit status", source))?;
        Ok(CommandOutput {
            stdout,
            stderr,
            status,
        })
    }

    /// Runs a POSIX sh script through `sh -s` (script on stdin: no quoting through the
    /// login shell, which may be fish or csh) and returns its stdout if it exits 0.
    pub fn run_script(&self, script: &str) -> Result<String, SshError> {
        let out = self.run("sh -s", Some(script))?;
        if out.status != 0 {
            return Err(SshError::CommandFailed {
                addr: self.addr.clone(),
                status: out.status,
                stderr: out.stderr.trim().to_string(),
            });
        }
        Ok(out.stdout)
    }

    /// Starts a long-running script (stdin is the script, then EOF) and returns its
    /// channel; stderr is discarded so it can never fill the window and stall stdout.
    pub fn spawn_script(&self, script: &str) -> Result<Channel, SshError> {
        let mut ch = self.exec("sh -s")?;
        ch.handle_extended_data(ExtendedData::Ignore)
            .map_err(|source| self.sess_err("setting up stderr", source))?;
        ch.write_all(script.as_bytes())
            .map_err(|source| self.io_err("sending the sampler script", source))?;
        ch.send_eof()
            .map_err(|source| self.sess_err("sending end of input", source))?;
        Ok(ch)
    }

    /// Sends a keepalive if one is due.
    pub fn keepalive(&self) -> Result<(), SshError> {
        self.session
            .keepalive_send()
            .map(|_| ())
            .map_err(|source| self.sess_err("sending a keepalive", source))
    }

    /// libssh2's last error code on this session, for diagnostics.
    pub fn last_error_code(&self) -> Option<i32> {
        ssh2::Error::last_session_error(&self.session).and_then(|e| auth::code(&e))
    }

    /// A clone of the socket; `shutdown` on it aborts blocking calls from any thread.
    pub fn socket_handle(&self) -> Option<TcpStream> {
        self.socket.try_clone().ok()
    }

    /// Ends the session politely (best effort) and closes the socket.
    pub fn close(self) {
        let _ = self
            .session
            .disconnect(None, "DB Dyno monitor stopped", None);
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// Switches every later call on this session between blocking (the default, bounded
    /// by [`Self::set_timeout`]) and non-blocking (`WouldBlock` errors; wait on the
    /// socket for [`Self::block_directions`]). For a caller that owns the session alone.
    pub fn set_blocking(&self, blocking: bool) {
        self.session.set_blocking(blocking);
    }

    /// Which way the socket must become ready after a non-blocking call would block.
    pub fn block_directions(&self) -> ssh2::BlockDirections {
        self.session.block_directions()
    }

    /// Opens the server's SFTP subsystem (fails on a server that offers none).
    pub fn sftp(&self) -> Result<ssh2::Sftp, SshError> {
        self.session
            .sftp()
            .map_err(|source| self.sess_err("opening SFTP", source))
    }

    /// Starts `command` (parsed by the user's login shell) on a channel of its own,
    /// without a PTY, and returns the channel to stream stdin, stdout and stderr on.
    pub fn exec(&self, command: &str) -> Result<Channel, SshError> {
        let mut ch = self
            .session
            .channel_session()
            .map_err(|source| self.sess_err("opening a channel", source))?;
        ch.exec(command)
            .map_err(|source| self.sess_err("starting a command", source))?;
        Ok(ch)
    }

    fn sess_err(&self, doing: &'static str, source: ssh2::Error) -> SshError {
        SshError::Session {
            addr: self.addr.clone(),
            doing,
            source,
        }
    }

    fn io_err(&self, doing: &'static str, source: std::io::Error) -> SshError {
        SshError::Io {
            addr: self.addr.clone(),
            doing,
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_sha256_fingerprint;

    #[test]
    fn a_placeholder_pins_nothing() {
        let real = "SHA256:EaAd5D8+aKcjwg8YeMiaJCyQKLuTC7WKnJA1esA/qxk";
        assert!(is_sha256_fingerprint(real));
        assert!(is_sha256_fingerprint(real.trim_start_matches("SHA256:")));
        assert!(!is_sha256_fingerprint(
            "SHA256:REPLACE-WITH-THE-SERVER-FINGERPRINT"
        ));
        assert!(!is_sha256_fingerprint(""));
        // One character short is a typo, not a pin: judged by known_hosts, never trusted.
        assert!(!is_sha256_fingerprint(&real[..real.len() - 1]));
    }
}
