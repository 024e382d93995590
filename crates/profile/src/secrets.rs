//! Secrets (the MySQL password, an SSH password or key passphrase) live outside every
//! file DB Dyno writes: in the OS keyring (macOS keychain, Windows credential manager,
//! the Linux kernel's keyutils), or in an environment variable, or typed at a prompt.
//!
//! Keyring entries: service `dbdyno`, account `<profile>/mysql`, `<profile>/ssh-password`,
//! `<profile>/ssh-passphrase`. On Linux they live in the kernel's user keyring
//! (keyutils, see `user_keyring`): in memory, shared by every process of the user, gone
//! at reboot, so a CLI process finds what another process of the same user stored.
//!
//! [`Secret`] never shows its value in `Debug` or `Display`.

use std::fmt;

/// Keyring service name of every DB Dyno secret.
pub const SERVICE: &str = "dbdyno";

/// Which secret of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretKind {
    MysqlPassword,
    SshPassword,
    SshPassphrase,
}

impl SecretKind {
    pub const ALL: [SecretKind; 3] = [
        SecretKind::MysqlPassword,
        SecretKind::SshPassword,
        SecretKind::SshPassphrase,
    ];

    /// The account suffix and the command-line word: `mysql`, `ssh-password`, `ssh-passphrase`.
    pub fn word(self) -> &'static str {
        match self {
            SecretKind::MysqlPassword => "mysql",
            SecretKind::SshPassword => "ssh-password",
            SecretKind::SshPassphrase => "ssh-passphrase",
        }
    }

    /// The environment variable consulted when the keyring has nothing.
    pub fn env_var(self) -> &'static str {
        match self {
            SecretKind::MysqlPassword => "MYSQL_PWD",
            SecretKind::SshPassword => "DBDYNO_SSH_PASSWORD",
            SecretKind::SshPassphrase => "DBDYNO_SSH_PASSPHRASE",
        }
    }

    pub fn parse(word: &str) -> Option<SecretKind> {
        SecretKind::ALL.into_iter().find(|k| k.word() == word)
    }
}

/// A secret value; its text is only reachable through [`Secret::expose`].
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<hidden>)")
    }
}

/// Where a resolved secret came from (for messages; never the value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretSource {
    Keyring,
    Env,
    Prompt,
}

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("the OS keyring is not available ({0}); give the secret through {1} instead")]
    Unavailable(String, &'static str),
    #[error("the keyring refused to {action} '{account}': {detail}")]
    Keyring {
        action: &'static str,
        account: String,
        detail: String,
    },
    #[error("profile name '{0}' cannot name a keyring entry: {1}")]
    BadName(String, String),
    #[error("reading the secret from the terminal: {0}")]
    Prompt(std::io::Error),
}

/// The keyring, under one service name (tests use their own to stay apart).
#[derive(Debug, Clone)]
pub struct SecretStore {
    service: String,
}

impl Default for SecretStore {
    fn default() -> Self {
        SecretStore::new()
    }
}

impl SecretStore {
    pub fn new() -> SecretStore {
        SecretStore::with_service(SERVICE)
    }

    pub fn with_service(service: impl Into<String>) -> SecretStore {
        SecretStore {
            service: service.into(),
        }
    }

    /// `<profile>/mysql`, ...
    pub fn account(profile: &str, kind: SecretKind) -> String {
        format!("{profile}/{}", kind.word())
    }

    fn entry(&self, profile: &str, kind: SecretKind) -> Result<keyring::Entry, SecretError> {
        crate::validate::check_name(profile)
            .map_err(|e| SecretError::BadName(profile.to_string(), e))?;
        let account = SecretStore::account(profile, kind);
        #[cfg(target_os = "linux")]
        {
            let c = crate::user_keyring::UserKeyringCredential::new(&self.service, &account);
            Ok(keyring::Entry::new_with_credential(Box::new(c)))
        }
        #[cfg(not(target_os = "linux"))]
        {
            keyring::Entry::new(&self.service, &account)
                .map_err(|e| keyring_error("open", profile, kind, e))
        }
    }

    pub fn set(&self, profile: &str, kind: SecretKind, secret: &Secret) -> Result<(), SecretError> {
        self.entry(profile, kind)?
            .set_password(secret.expose())
            .map_err(|e| keyring_error("store", profile, kind, e))
    }

    /// The stored secret; Ok(None) when there is none.
    pub fn get(&self, profile: &str, kind: SecretKind) -> Result<Option<Secret>, SecretError> {
        match self.entry(profile, kind)?.get_password() {
            Ok(s) => Ok(Some(Secret(s))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keyring_error("read", profile, kind, e)),
        }
    }

    /// Removes the secret; Ok(false) when there was none.
    pub fn delete(&self, profile: &str, kind: SecretKind) -> Result<bool, SecretError> {
        match self.entry(profile, kind)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(keyring_error("delete", profile, kind, e)),
        }
    }

    /// The keyring, else the kind's environment variable, else (when `prompt` is true) a
    /// question on the terminal. A keyring that does not work is skipped, not fatal:
    /// the environment and the prompt still can answer.
    pub fn resolve(
        &self,
        profile: &str,
        kind: SecretKind,
        use_keyring: bool,
        prompt: Option<&str>,
    ) -> Result<Option<(Secret, SecretSource)>, SecretError> {
        if use_keyring {
            if let Ok(Some(s)) = self.get(profile, kind) {
                return Ok(Some((s, SecretSource::Keyring)));
            }
        }
        if let Some(v) = std::env::var(kind.env_var()).ok().filter(|v| !v.is_empty()) {
            return Ok(Some((Secret(v), SecretSource::Env)));
        }
        if let Some(question) = prompt {
            let s = prompt_hidden(question).map_err(SecretError::Prompt)?;
            return Ok(Some((Secret(s), SecretSource::Prompt)));
        }
        Ok(None)
    }
}

fn keyring_error(
    action: &'static str,
    profile: &str,
    kind: SecretKind,
    e: keyring::Error,
) -> SecretError {
    match e {
        keyring::Error::NoStorageAccess(inner) | keyring::Error::PlatformFailure(inner) => {
            SecretError::Unavailable(inner.to_string(), kind.env_var())
        }
        other => SecretError::Keyring {
            action,
            account: SecretStore::account(profile, kind),
            detail: other.to_string(),
        },
    }
}

/// Asks on the terminal with echo turned off before the question shows, so that an
/// answer typed the moment it appears is never echoed (rpassword prints first, then
/// turns echo off).
#[cfg(unix)]
pub fn prompt_hidden(question: &str) -> std::io::Result<String> {
    use std::io::{BufRead, Write};
    use std::os::fd::AsRawFd;
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let fd = tty.as_raw_fd();
    // SAFETY: termios is plain data, filled by tcgetattr on an open terminal fd.
    let mut saved: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut quiet = saved;
    quiet.c_lflag &= !libc::ECHO;
    quiet.c_lflag |= libc::ECHONL;
    // SAFETY: same fd, a termios derived from the one read above.
    if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &quiet) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let answer = (|| {
        let mut out = &tty;
        out.write_all(question.as_bytes())?;
        out.flush()?;
        let mut line = String::new();
        std::io::BufReader::new(&tty).read_line(&mut line)?;
        Ok(line.trim_end_matches(['\n', '\r']).to_string())
    })();
    // SAFETY: restores the settings read above on the same fd.
    unsafe { libc::tcsetattr(fd, libc::TCSANOW, &saved) };
    answer
}

#[cfg(not(unix))]
pub fn prompt_hidden(question: &str) -> std::io::Result<String> {
    rpassword::prompt_password(question)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_is_hidden_from_debug() {
        let s = Secret::new("hunter2");
        assert!(!format!("{s:?}").contains("hunter2"));
        assert_eq!(s.expose(), "hunter2");
    }

    #[test]
    fn accounts_and_words() {
        assert_eq!(
            SecretStore::account("idc", SecretKind::MysqlPassword),
            "idc/mysql"
        );
        assert_eq!(
            SecretKind::parse("ssh-passphrase"),
            Some(SecretKind::SshPassphrase)
        );
        assert_eq!(SecretKind::parse("root"), None);
    }

    /// The real OS keyring (keyutils on Linux): store, read back, delete.
    #[test]
    fn keyring_round_trip() {
        let store = SecretStore::with_service(format!("dbdyno-test-{}", std::process::id()));
        let secret = Secret::new(format!("Round-Trip-{}-é", std::process::id()));
        store
            .set("unit", SecretKind::SshPassphrase, &secret)
            .unwrap();
        assert_eq!(
            store.get("unit", SecretKind::SshPassphrase).unwrap(),
            Some(secret.clone())
        );
        let (got, from) = store
            .resolve("unit", SecretKind::SshPassphrase, true, None)
            .unwrap()
            .unwrap();
        assert_eq!((got, from), (secret, SecretSource::Keyring));
        assert!(store.delete("unit", SecretKind::SshPassphrase).unwrap());
        assert_eq!(store.get("unit", SecretKind::SshPassphrase).unwrap(), None);
        assert!(!store.delete("unit", SecretKind::SshPassphrase).unwrap());
        assert!(store
            .set("bad/name", SecretKind::MysqlPassword, &Secret::new("x"))
            .is_err());
    }
}
