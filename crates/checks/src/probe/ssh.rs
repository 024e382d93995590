//! A failed SSH session, classified by where it stopped (reaching the server, its host
//! key, the login, or a command after it) so the checks can say which step to fix.
//!
//! Non-goals: no connecting (the monitor crate does it), no wording of the fix.

use dbdyno_ssh::SshError;

#[derive(Debug, Clone, PartialEq)]
pub struct SshOk {
    pub fingerprint: String,
    pub connect_ms: f64,
}

/// Where an SSH connection stopped, and the monitor crate's message for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SshProblem {
    pub stage: SshStage,
    pub message: String,
    /// The key's fingerprint when the host key was the problem.
    pub fingerprint: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SshStage {
    /// Name, TCP or handshake.
    Reach,
    HostKey,
    Auth,
    /// After login (a command failed).
    Session,
}

impl SshProblem {
    pub fn from_error(e: &SshError) -> SshProblem {
        let (stage, fingerprint) = match e {
            SshError::Resolve { .. }
            | SshError::Connect { .. }
            | SshError::Handshake { .. }
            | SshError::NoHostKey { .. } => (SshStage::Reach, None),
            SshError::UnknownHostKey(u) => (SshStage::HostKey, Some(u.key.fingerprint_sha256())),
            SshError::HostKeyChanged { fingerprint, .. }
            | SshError::HostKeyRevoked { fingerprint, .. }
            | SshError::HostKeyPinMismatch { fingerprint, .. } => {
                (SshStage::HostKey, Some(fingerprint.clone()))
            }
            SshError::HostKeyOtherTypesKnown { key, .. } => (
                SshStage::HostKey,
                key.rsplit(' ').next().map(str::to_string),
            ),
            SshError::KnownHostsRead(_) | SshError::KnownHostsWrite { .. } => {
                (SshStage::HostKey, None)
            }
            SshError::KeyFile { .. }
            | SshError::AuthKey { .. }
            | SshError::AuthPassword { .. }
            | SshError::AuthAgent { .. } => (SshStage::Auth, None),
            _ => (SshStage::Session, None),
        };
        SshProblem {
            stage,
            message: e.to_string(),
            fingerprint,
        }
    }
}
