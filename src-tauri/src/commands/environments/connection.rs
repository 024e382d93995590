//! "Test MySQL" and "Test SSH" of the Environments screen, and accepting a server's host
//! key after the user compared its fingerprint.

use dbdyno_ssh::SshError;
use serde::Serialize;
use tauri::State;

use super::{is_user_profile, write_profile};
use crate::error::{blocking, AppError, AppResult, ErrorCode};
use crate::resolve;
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MysqlTest {
    pub ok: bool,
    pub message: String,
    pub server_version: Option<String>,
    /// The account the server matched ("sbtest@127.0.0.1").
    pub account: Option<String>,
    pub connect_ms: Option<f64>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SshTest {
    pub ok: bool,
    pub message: String,
    /// The server's host key ("SHA256:…"), to compare with what the server's admin says.
    pub fingerprint: Option<String>,
    /// The key is not known yet: show the fingerprint and offer to accept it.
    pub host_key_unknown: bool,
}

#[tauri::command]
#[specta::specta]
pub async fn test_mysql(name: String) -> AppResult<MysqlTest> {
    blocking(move || {
        let p = resolve::load_profile(&name)?;
        let c = resolve::connect_options(&p)?;
        Ok(match dbdyno_checks::probe::gather_mysql(&c) {
            Ok(m) => MysqlTest {
                ok: true,
                message: format!("connected to {} as {}", c.endpoint(), m.current_user),
                server_version: Some(
                    format!("{} {}", m.version.text, m.version.comment)
                        .trim()
                        .to_string(),
                ),
                account: Some(m.current_user),
                connect_ms: Some(m.connect_ms),
            },
            Err(e) => MysqlTest {
                ok: false,
                message: e.message,
                server_version: None,
                account: None,
                connect_ms: None,
            },
        })
    })
    .await
}

pub(super) fn ssh_outcome(
    r: Result<dbdyno_ssh::SshConnection, SshError>,
    pinned: Option<&str>,
) -> SshTest {
    match r {
        Ok(conn) => {
            let fp = conn.host_key().fingerprint_sha256();
            let msg = format!("logged in to {} as {}", conn.addr(), conn.user());
            conn.close();
            match pinned {
                Some(p) if p != fp => SshTest {
                    ok: false,
                    message: format!("the server's key {fp} is not the one this environment accepted ({p}): refusing it"),
                    fingerprint: Some(fp),
                    host_key_unknown: false,
                },
                _ => SshTest {
                    ok: true,
                    message: msg,
                    fingerprint: Some(fp),
                    host_key_unknown: false,
                },
            }
        }
        Err(SshError::UnknownHostKey(u)) => SshTest {
            ok: false,
            message: format!(
                "{}:{} is not known yet. Compare its key with what the server's administrator says, then accept it",
                u.host, u.port
            ),
            fingerprint: Some(u.key.fingerprint_sha256()),
            host_key_unknown: true,
        },
        Err(e) => SshTest {
            ok: false,
            message: e.to_string(),
            fingerprint: None,
            host_key_unknown: false,
        },
    }
}

#[tauri::command]
#[specta::specta]
pub async fn test_ssh(state: State<'_, AppState>, name: String) -> AppResult<SshTest> {
    let known_hosts = state.known_hosts_file();
    blocking(move || {
        let p = resolve::load_profile(&name)?;
        let target = resolve::ssh_target(&p, &known_hosts)?.ok_or_else(|| {
            AppError::invalid("this environment has no SSH section: turn SSH on and save first")
        })?;
        let pinned = p.ssh.as_ref().and_then(|s| s.host_key_fingerprint.clone());
        Ok(ssh_outcome(dbdyno_ssh::connect(&target), pinned.as_deref()))
    })
    .await
}

/// Trusts the server's host key after the user compared `fingerprint`: stores it in
/// the app's known_hosts and in the profile, then logs in again to prove it.
#[tauri::command]
#[specta::specta]
pub async fn accept_host_key(
    state: State<'_, AppState>,
    name: String,
    fingerprint: String,
) -> AppResult<SshTest> {
    let known_hosts = state.known_hosts_file();
    blocking(move || {
        let mut p = resolve::load_profile(&name)?;
        let target = resolve::ssh_target(&p, &known_hosts)?
            .ok_or_else(|| AppError::invalid("this environment has no SSH section"))?;
        match dbdyno_ssh::connect(&target) {
            Err(SshError::UnknownHostKey(u)) => {
                let seen = u.key.fingerprint_sha256();
                if seen != fingerprint {
                    return Err(AppError::new(
                        ErrorCode::Ssh,
                        format!("the server now shows key {seen}, not the {fingerprint} you confirmed: nothing was stored"),
                    ));
                }
                u.accept()?;
            }
            Ok(c) => c.close(),
            Err(e) => return Err(e.into()),
        }
        if is_user_profile(&name)? {
            if let Some(s) = p.ssh.as_mut() {
                s.host_key_fingerprint = Some(fingerprint.clone());
            }
            write_profile(&p)?;
        }
        Ok(ssh_outcome(dbdyno_ssh::connect(&target), Some(&fingerprint)))
    })
    .await
}
