//! Client authentication: private key file, ssh-agent, or password, with errors
//! that say which credential failed for whom and what to check next.
//!
//! Non-goals: keyboard-interactive and multi-factor prompts (the monitor runs unattended).

use super::{SshAuth, SshError, SshTarget};
use ssh2::Session;
use std::path::PathBuf;

// libssh2 error codes (include/libssh2.h) that decide which message fits.
const LIBSSH2_ERROR_FILE: i32 = -16;
const LIBSSH2_ERROR_AUTHENTICATION_FAILED: i32 = -18;
const LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED: i32 = -19;

pub(super) fn code(e: &ssh2::Error) -> Option<i32> {
    match e.code() {
        ssh2::ErrorCode::Session(c) => Some(c),
        ssh2::ErrorCode::SFTP(_) => None,
    }
}

pub(super) fn authenticate(
    session: &Session,
    target: &SshTarget,
    addr: &str,
) -> Result<(), SshError> {
    let user = target.user.as_str();
    // Asking for the methods first lets a refusal say what the server would accept.
    let offered = session
        .auth_methods(user)
        .map(str::to_string)
        .unwrap_or_default();
    let offers = |m: &str| offered.split(',').any(|o| o == m);
    let result = match &target.auth {
        SshAuth::Key { path, passphrase } => {
            std::fs::File::open(path).map_err(|e| SshError::KeyFile { path: path.clone(), detail: e.to_string() })?;
            session.userauth_pubkey_file(user, None, path, passphrase.as_deref()).map_err(|e| match code(&e) {
                Some(LIBSSH2_ERROR_FILE) => SshError::KeyFile {
                    path: path.clone(),
                    detail: format!(
                        "{} ({})",
                        e.message(),
                        if passphrase.is_some() {
                            "is the passphrase right?"
                        } else {
                            "if the key is protected by a passphrase, give it"
                        }
                    ),
                },
                Some(LIBSSH2_ERROR_AUTHENTICATION_FAILED | LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED) => SshError::AuthKey {
                    user: user.into(),
                    addr: addr.into(),
                    key: path.clone(),
                    detail: format!(
                        "the server refused the key (is its public half in ~{user}/.ssh/authorized_keys on the server?{})",
                        if offers("publickey") { String::new() } else { format!(" the server offers only: {offered}") }
                    ),
                },
                _ => SshError::AuthKey { user: user.into(), addr: addr.into(), key: path.clone(), detail: e.message().to_string() },
            })
        }
        SshAuth::Agent => session.userauth_agent(user).map_err(|e| SshError::AuthAgent {
            user: user.into(),
            addr: addr.into(),
            detail: format!(
                "{} (is ssh-agent running with SSH_AUTH_SOCK set, and does `ssh-add -l` list a key the server accepts?)",
                e.message()
            ),
        }),
        SshAuth::Password(pw) => {
            if !offered.is_empty() && !offers("password") {
                return Err(SshError::AuthPassword {
                    user: user.into(),
                    addr: addr.into(),
                    detail: format!("the server does not accept passwords (it offers: {offered}); use a key"),
                });
            }
            session.userauth_password(user, pw).map_err(|e| SshError::AuthPassword {
                user: user.into(),
                addr: addr.into(),
                detail: match code(&e) {
                    Some(LIBSSH2_ERROR_AUTHENTICATION_FAILED) => "wrong user name or password".to_string(),
                    _ => e.message().to_string(),
                },
            })
        }
    };
    result?;
    if session.authenticated() {
        Ok(())
    } else {
        Err(SshError::AuthKey {
            user: user.into(),
            addr: addr.into(),
            key: PathBuf::new(),
            detail: "the server wants further authentication (multi-factor), which DB Dyno does not support".into(),
        })
    }
}
