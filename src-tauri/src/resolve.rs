//! From a profile (and the plan form) to what the libraries take: the engine's `Plan`
//! with the password filled in from the keyring, and the SSH target with its secrets.
//! Everything here is lookup and glue; the conversions are the profile crate's own.

use std::path::Path;

use dbdyno_checks::HostAccess;
use dbdyno_engine::{ConnectOptions, Plan};
use dbdyno_monitor::{KnownHostsConfig, SshAuth as MonitorAuth, SshTarget};
use dbdyno_profile::{PasswordFrom, Profile, SecretKind, SecretStore, SshAuth};

use crate::commands::plan::PlanForm;
use crate::error::{problems, AppError, AppResult};

pub fn load_profile(name: &str) -> AppResult<Profile> {
    Ok(dbdyno_profile::resolve_profile(name)?.profile)
}

/// The MySQL password as the profile says: the keyring entry `<name>/mysql`, else
/// MYSQL_PWD (a GUI has no terminal to prompt on: the Environments screen stores it).
pub fn mysql_password(p: &Profile) -> AppResult<Option<String>> {
    let from_env = || {
        std::env::var(SecretKind::MysqlPassword.env_var())
            .ok()
            .filter(|v| !v.is_empty())
    };
    Ok(match p.mysql.password_from.unwrap_or_default() {
        PasswordFrom::None => None,
        PasswordFrom::Env => from_env(),
        PasswordFrom::Keyring | PasswordFrom::Prompt => {
            match SecretStore::new().get(&p.name, SecretKind::MysqlPassword) {
                Ok(Some(s)) => Some(s.expose().to_string()),
                Ok(None) => from_env(),
                Err(e) => from_env().map(Some).ok_or(AppError::from(e))?,
            }
        }
    })
}

pub fn connect_options(p: &Profile) -> AppResult<ConnectOptions> {
    let mut c = p.connect_options();
    c.password = mysql_password(p)?;
    Ok(c)
}

/// The profile with the plan form's choices applied.
pub fn with_form(p: &Profile, form: &PlanForm) -> Profile {
    let mut p = p.clone();
    p.plan.scenarios = Some(form.scenarios.clone());
    p.plan.threads = Some(form.threads.clone());
    p.plan.time = Some(form.time_s as u64);
    p.plan.warmup = Some(form.warmup_s as u64);
    p.plan.cooldown = Some(form.cooldown_s as u64);
    p.plan.prepare = Some(form.prepare);
    p.plan.prewarm = Some(form.prewarm);
    p.plan.cleanup = Some(form.cleanup);
    p.workload.tables = Some(form.tables);
    p.workload.table_size = Some(form.table_size as u64);
    p
}

/// The validated plan, without the password (previews, checks of the plan's shape).
pub fn plan_without_secret(p: &Profile, form: &PlanForm) -> AppResult<Plan> {
    with_form(p, form).to_plan().map_err(|list| problems(&list))
}

/// The validated plan with the password, ready to run or check.
pub fn plan(p: &Profile, form: &PlanForm) -> AppResult<Plan> {
    let mut plan = plan_without_secret(p, form)?;
    plan.connect.password = mysql_password(p)?;
    Ok(plan)
}

/// The SSH target of a profile with an `[ssh]` section (None without one).
pub fn ssh_target(p: &Profile, known_hosts: &Path) -> AppResult<Option<SshTarget>> {
    let Some(s) = &p.ssh else { return Ok(None) };
    let host = s
        .host
        .clone()
        .or_else(|| p.mysql.host.clone())
        .ok_or_else(|| {
            AppError::invalid("ssh.host: give the SSH host (or a MySQL host to reuse)")
        })?;
    let user = s.user.clone().unwrap_or_else(|| "root".into());
    let store = SecretStore::new();
    let secret = |kind| -> AppResult<Option<String>> {
        Ok(store
            .resolve(&p.name, kind, true, None)?
            .map(|(s, _)| s.expose().to_string()))
    };
    let auth = match (s.auth, &s.key_path) {
        (Some(SshAuth::Password), _) => MonitorAuth::Password(secret(SecretKind::SshPassword)?.ok_or_else(|| {
            AppError::invalid("this environment logs in over SSH with a password, and none is stored: enter it under Secrets")
        })?),
        (Some(SshAuth::Key), None) => return Err(AppError::invalid("ssh.key_path: give the private key file")),
        (Some(SshAuth::Key) | None, Some(path)) => MonitorAuth::Key {
            path: path.into(),
            passphrase: secret(SecretKind::SshPassphrase)?,
        },
        (Some(SshAuth::Agent) | None, None) => MonitorAuth::Agent,
        (Some(SshAuth::Agent), Some(_)) => MonitorAuth::Agent,
    };
    Ok(Some(SshTarget::new(
        host,
        s.port.unwrap_or(22),
        user,
        auth,
        KnownHostsConfig::new(known_hosts),
    )))
}

/// How the server's OS is reached: SSH when the profile says, this machine's /proc
/// when the database is local, else not at all (the checks say why).
pub fn host_access(
    p: &Profile,
    connect: &ConnectOptions,
    known_hosts: &Path,
) -> AppResult<HostAccess> {
    // Checks and runs hold the server to the key the environment pinned, on every
    // connection (known_hosts or not). Test SSH and the accept dialog compare it
    // themselves, so that a re-keyed server can still be accepted there.
    let pinned = p.ssh.as_ref().and_then(|s| s.host_key_fingerprint.clone());
    let target = ssh_target(p, known_hosts)?.map(|mut t| {
        t.pinned_fingerprint = pinned;
        t
    });
    Ok(HostAccess::decide(connect, target, false))
}

/// The profile's data disk override as device names (`data_disk = "nvme0n1,nvme1n1"`,
/// `/dev/` optional), as the CLI reads it; empty: the resolver finds the disk.
pub fn data_disk(p: &Profile) -> Vec<String> {
    p.data_disk
        .iter()
        .flat_map(|d| d.split(','))
        .map(|d| d.trim().trim_start_matches("/dev/").to_string())
        .filter(|d| !d.is_empty())
        .collect()
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
