//! From an environment profile to what a run, a check or a monitor takes: the MySQL
//! password, the SSH login and host-key policy, and how the server's OS is reached.
//! Written once for both shells: the CLI passes its flags as overrides and a terminal
//! to ask on; the app passes no overrides and no terminal (its screens store secrets
//! and accept host keys).
//!
//! Non-goals: no parsing of flags or forms (each shell overlays its own onto the
//! [`dbdyno_profile::Profile`]), no printing (notes come back as text).

mod clients;
mod password;
mod ssh_config;
mod ssh_login;
mod trust;

pub use clients::{clients_plan, ClientsResolveError};
pub use password::{mysql_password, PasswordRequest};
pub use ssh_login::{key_is_encrypted, ssh_target, KnownHosts, SshLogin};
pub use trust::{connect_trusted, Trusted};

/// A person to ask, when there is one: the CLI's terminal. The app has none.
pub trait Ask {
    /// True when someone can answer a question now (a terminal on stdin and stderr).
    fn interactive(&self) -> bool;
    /// True when someone can type a secret now (a terminal on stdin).
    fn can_type_secret(&self) -> bool;
    /// A secret, typed without echo.
    fn secret(&self, question: &str) -> std::io::Result<String>;
    /// A yes/no question, answered no by default.
    fn confirm(&self, question: &str) -> std::io::Result<bool>;
}

/// Why a profile could not be turned into a login or a password. The messages name
/// the CLI's options; the app words the login ones for its screens
/// ([`ResolveError::is_missing_credentials`]).
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("reading the OS keyring: {0}")]
    Keyring(#[from] dbdyno_profile::SecretError),
    #[error("reading {what} from the terminal: {source}")]
    Prompt {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("the profile logs in to {host} by password: give --ssh-password or DBDYNO_SSH_PASSWORD, or store it in the keyring")]
    NoSshPassword { host: String },
    #[error("the profile logs in to {host} by key: give --ssh-key=FILE")]
    NoSshKey { host: String },
    #[error(
        "no SSH credentials for {user}@{host}: give --ssh-key=FILE, --ssh-agent or --ssh-password"
    )]
    NoSshCredentials { user: String, host: String },
    #[error("[ssh] jump (--ssh-jump): {why}; give the jump hosts as [user@]host[:port], comma-separated, nearest first")]
    BadJumpHosts { why: String },
    #[error("reading the OpenSSH client config {}: {why}; fix it, name another with [ssh] config (--ssh-config=FILE), or read none with --ssh-config=none", path.display())]
    SshConfig {
        path: std::path::PathBuf,
        why: String,
    },
    #[error(transparent)]
    Ssh(#[from] dbdyno_ssh::SshError),
    #[error("host key not trusted: nothing was run")]
    NotTrusted,
}

impl ResolveError {
    /// The profile names a login whose secret or key is missing.
    pub fn is_missing_credentials(&self) -> bool {
        matches!(
            self,
            ResolveError::NoSshPassword { .. }
                | ResolveError::NoSshKey { .. }
                | ResolveError::NoSshCredentials { .. }
        )
    }
}

/// `~/rest` as a path under `$HOME` (the profile's key paths and `~/.ssh/config`'s
/// IdentityFile are written so); any other path as it is.
fn expand_home(p: &str) -> std::path::PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => std::path::Path::new(&home).join(rest),
        _ => std::path::PathBuf::from(p),
    }
}

/// An environment variable's value, unless unset or empty.
fn env_value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
