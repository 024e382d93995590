//! The first SSH connection of a command, made before anything runs, so that host-key
//! and login problems stop it before the benchmark starts; the open session then
//! serves the sampler (one login less).
//!
//! A host key seen for the first time is stored when the profile pins it (the monitor
//! compares the pin before it looks the key up, so a key that reaches this point
//! matches it) or when a person says yes; otherwise the error, with the fingerprint and
//! how to accept it, is returned.

use dbdyno_ssh::{SshConnection, SshError, SshTarget};

use super::{Ask, ResolveError};

/// An open, trusted session, and what happened to the host key, if worth saying.
pub struct Trusted {
    pub connection: SshConnection,
    pub note: Option<String>,
}

pub fn connect_trusted(target: &SshTarget, ask: Option<&dyn Ask>) -> Result<Trusted, ResolveError> {
    let u = match dbdyno_ssh::connect(target) {
        Ok(connection) => {
            return Ok(Trusted {
                connection,
                note: None,
            })
        }
        Err(SshError::UnknownHostKey(u)) => u,
        Err(e) => return Err(e.into()),
    };
    let seen = u.key.fingerprint_sha256();
    if target.pinned_fingerprint.is_some() {
        let note = format!(
            "SSH: stored {}'s host key {seen} (the profile's fingerprint) in {}",
            u.host,
            u.known_hosts_file.display()
        );
        u.accept()?;
        let mut trusted = connect_trusted(target, ask)?;
        trusted.note = Some(note);
        return Ok(trusted);
    }
    let Some(ask) = ask.filter(|a| a.interactive()) else {
        return Err(SshError::UnknownHostKey(u).into());
    };
    let question = format!(
        "The SSH host key of {}:{} is not known.\n  {} key fingerprint {seen}\nTrust it and store it in {}?",
        u.host,
        u.port,
        u.key.key_type,
        u.known_hosts_file.display()
    );
    let yes = ask
        .confirm(&question)
        .map_err(|source| ResolveError::Prompt {
            what: "the answer",
            source,
        })?;
    if !yes {
        return Err(ResolveError::NotTrusted);
    }
    u.accept()?;
    connect_trusted(target, Some(ask))
}
