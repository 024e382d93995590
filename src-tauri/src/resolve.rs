//! From a profile to what the libraries take, through the same
//! resolution the CLI uses (`dbdyno_session::resolve`): the engine's `Plan` with the
//! password from the keyring, the SSH target with its secrets, the host access. The
//! app has no terminal: nothing is asked, its screens store secrets and accept keys.

use std::path::Path;

use dbdyno_engine::ConnectOptions;
use dbdyno_monitor::HostAccess;
use dbdyno_profile::{LoadClient, Profile};
use dbdyno_session::resolve::{self, KnownHosts, PasswordRequest, ResolveError, SshLogin};
use dbdyno_ssh::SshTarget;

use crate::error::{AppError, AppResult};

pub fn load_profile(name: &str) -> AppResult<Profile> {
    Ok(dbdyno_profile::resolve_profile(name)?.profile)
}

fn app_error(e: ResolveError) -> AppError {
    match e {
        ResolveError::Keyring(e) => e.into(),
        ResolveError::Ssh(e) => e.into(),
        ResolveError::NoSshPassword { .. } => AppError::invalid(
            "this environment logs in over SSH with a password, and none is stored: enter it under Secrets",
        ),
        ResolveError::NoSshKey { .. } => AppError::invalid("ssh.key_path: give the private key file"),
        ResolveError::NoSshCredentials { user, host } => AppError::invalid(format!(
            "no SSH credentials for {user}@{host}: choose agent, key or password for this environment (no agent is running and ~/.ssh has no default key)"
        )),
        other => AppError::invalid(other.to_string()),
    }
}

/// The MySQL password as the profile says: the keyring entry `<name>/mysql`, else
/// MYSQL_PWD (a GUI has no terminal to prompt on: the Environments screen stores it).
pub fn mysql_password(p: &Profile) -> AppResult<Option<String>> {
    let request = PasswordRequest {
        keyring_name: Some(&p.name),
        from_file: true,
        ..Default::default()
    };
    resolve::mysql_password(p, &request).map_err(app_error)
}

pub fn connect_options(p: &Profile) -> AppResult<ConnectOptions> {
    let mut c = p.connect_options();
    c.password = mysql_password(p)?;
    Ok(c)
}

/// The SSH target of a profile with an `[ssh]` section (None without one), held to
/// the profile's pinned host key.
fn pinned_target(p: &Profile, known_hosts: &Path) -> AppResult<Option<SshTarget>> {
    let login = SshLogin {
        keyring_name: Some(&p.name),
        ..Default::default()
    };
    let known = KnownHosts {
        file: known_hosts.to_path_buf(),
        user_file_too: false,
    };
    resolve::ssh_target(p, &login, &known).map_err(app_error)
}

/// The SSH target for Test SSH and the accept dialog, which compare the pinned key
/// themselves (so that a re-keyed server can still be accepted there).
pub fn ssh_target(p: &Profile, known_hosts: &Path) -> AppResult<Option<SshTarget>> {
    Ok(pinned_target(p, known_hosts)?.map(|mut t| {
        t.pinned_fingerprint = None;
        t
    }))
}

/// The SSH target of load client `url` of the profile and the host key pinned for it:
/// its login from its `[[clients]]` entry, else the server's `[ssh]`, its secrets from
/// the client's own keyring entries when it has some, else the environment's
/// (`dbdyno_profile::clients::client_keyring_name`).
/// None when `url` is no SSH client. The caller compares the pinned key, as Test SSH does.
pub fn client_ssh_target(
    p: &Profile,
    url: &str,
    known_hosts: &Path,
) -> AppResult<Option<(SshTarget, Option<String>)>> {
    let wanted = url.trim();
    let Some(ssh) = p.load_clients().into_iter().find_map(|c| match c {
        LoadClient::Ssh { url, ssh } if url == wanted => Some(ssh),
        _ => None,
    }) else {
        return Ok(None);
    };
    let host = ssh.host.clone().unwrap_or_default();
    let pinned = ssh.host_key_fingerprint.clone();
    let scope = dbdyno_profile::clients::client_keyring_name(
        &p.name,
        &host,
        &dbdyno_profile::SecretStore::new(),
    );
    // The session resolves a profile's `[ssh]`: the client's login stands in for it.
    let mut as_server = p.clone();
    as_server.ssh = Some(ssh);
    let login = SshLogin {
        keyring_name: Some(&scope),
        ..Default::default()
    };
    let known = KnownHosts {
        file: known_hosts.to_path_buf(),
        user_file_too: false,
    };
    let target = resolve::ssh_target(&as_server, &login, &known).map_err(app_error)?;
    Ok(target.map(|mut t| {
        t.pinned_fingerprint = None;
        (t, pinned)
    }))
}

/// The load clients a run of `p` drives its load from (its `[[clients]]` and
/// `plan.clients`, the Plan form laid over it), resolved as the CLI's `--clients` are;
/// None: this machine alone. Each SSH client logs in with its own keyring secrets when
/// it has some, else the environment's; nothing is asked.
pub fn clients_plan(
    p: &Profile,
    known_hosts: &Path,
) -> AppResult<Option<dbdyno_clients::ClientsPlan>> {
    let login = SshLogin {
        keyring_name: Some(&p.name),
        ..Default::default()
    };
    let known = KnownHosts {
        file: known_hosts.to_path_buf(),
        user_file_too: false,
    };
    resolve::clients_plan(p, &login, &known).map_err(|e| match e {
        resolve::ClientsResolveError::Login { url, source } => {
            let e = app_error(*source);
            AppError::new(e.code, format!("load client {url}: {}", e.message))
        }
        other => AppError::invalid(other.to_string()),
    })
}

/// How the server's OS is reached: SSH when the profile says, this machine's /proc
/// when the database is local, else not at all (the checks say why). Checks and runs
/// hold the server to the key the environment pinned, on every connection.
pub fn host_access(
    p: &Profile,
    connect: &ConnectOptions,
    known_hosts: &Path,
) -> AppResult<HostAccess> {
    Ok(HostAccess::decide(
        connect,
        pinned_target(p, known_hosts)?,
        false,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_checks_hold_the_server_to_the_pinned_host_key() {
        let text = "schema_version = 1\nname = \"pinned\"\n\n[mysql]\nhost = \"127.0.0.1\"\nport = 33306\nuser = \"sbtest\"\ndb = \"sbtest\"\n\n\
                    [ssh]\nhost = \"127.0.0.1\"\nport = 22222\nuser = \"root\"\nauth = \"agent\"\nhost_key_fingerprint = \"SHA256:pinned\"\n";
        let p = dbdyno_profile::load_str(text, "test", "pinned")
            .expect("a valid profile")
            .profile;
        let connect = ConnectOptions {
            host: "127.0.0.1".into(),
            ..Default::default()
        };
        let HostAccess::Ssh(t) = host_access(&p, &connect, Path::new("/nonexistent/kh")).unwrap()
        else {
            panic!("an [ssh] section means SSH access")
        };
        assert_eq!(t.pinned_fingerprint.as_deref(), Some("SHA256:pinned"));
        // Test SSH and the accept dialog compare it themselves: the plain target is free.
        let plain = ssh_target(&p, Path::new("/nonexistent/kh"))
            .unwrap()
            .unwrap();
        assert_eq!(plain.pinned_fingerprint, None);
    }
}
