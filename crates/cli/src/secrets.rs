//! The MySQL password of a run: `--mysql-password` (or its prompt) first, then as the
//! profile says (`password_from`): the OS keyring entry `<profile>/mysql`, MYSQL_PWD, a
//! prompt, or none. Without a profile, `--env=NAME` finds the keyring entry `NAME/mysql`
//! when MYSQL_PWD is not set. The password only ever goes into the connection options,
//! which never serialize it. The profile's SSH secrets go the same way into the SSH
//! login options, never into the process environment (which child processes inherit).
//!
//! Keyring entries are looked up under the loaded profile's own name: `--env` renames
//! the run, not the profile the secrets were stored for.

use anyhow::{anyhow, Result};
use dbdyno_engine::Plan;
use dbdyno_profile::secrets::{SecretKind, SecretStore};
use dbdyno_profile::{PasswordFrom, Profile};

use crate::args::ConnArgs;
use crate::args_history::HistoryOpts;
use crate::ssh_target::SshSpec;

fn parse_from(s: &str) -> Result<PasswordFrom> {
    Ok(match s {
        "keyring" => PasswordFrom::Keyring,
        "env" => PasswordFrom::Env,
        "prompt" => PasswordFrom::Prompt,
        "none" => PasswordFrom::None,
        other => {
            return Err(anyhow!(
                "--mysql-password-from={other}: use keyring, env, prompt or none"
            ))
        }
    })
}

pub fn fill_mysql_password(
    plan: &mut Plan,
    conn: &ConnArgs,
    opts: &HistoryOpts,
    profile: Option<&Profile>,
    keyring_name: Option<&str>,
) -> Result<()> {
    if conn.mysql_password.is_some() {
        return Ok(()); // given (or prompted for) on the command line: plan_build took it.
    }
    let from = match (
        &opts.mysql_password_from,
        profile.and_then(|p| p.mysql.password_from),
    ) {
        (Some(s), _) => parse_from(s)?,
        (None, Some(f)) => f,
        (None, None) => PasswordFrom::Keyring,
    };
    let name = keyring_name
        .map(str::to_string)
        .or_else(|| opts.env.clone());
    let kind = SecretKind::MysqlPassword;
    match from {
        PasswordFrom::None => plan.connect.password = None,
        PasswordFrom::Env => {} // plan_build read MYSQL_PWD.
        PasswordFrom::Keyring => {
            let Some(name) = name else { return Ok(()) };
            // Without a profile, MYSQL_PWD stays first: --env only names the run.
            if profile.is_none() && plan.connect.password.is_some() {
                return Ok(());
            }
            match SecretStore::new().get(&name, kind) {
                Ok(Some(s)) => plan.connect.password = Some(s.expose().to_string()),
                Ok(None) => {}
                Err(e) if plan.connect.password.is_none() => {
                    eprintln!("WARNING: {e}");
                }
                Err(_) => {}
            }
        }
        PasswordFrom::Prompt => {
            if plan.connect.password.is_none() {
                let question = format!(
                    "Password for {}@{}: ",
                    plan.connect.user,
                    plan.connect.endpoint()
                );
                let p = rpassword::prompt_password(question)
                    .map_err(|e| anyhow!("reading the password from the terminal: {e}"))?;
                plan.connect.password = Some(p);
            }
        }
    }
    Ok(())
}

/// The profile's SSH password and key passphrase from the keyring (entries of
/// `keyring_name`), into `spec` for the SSH login options.
pub fn fill_ssh_secrets(spec: &mut SshSpec, profile: Option<&Profile>, keyring_name: Option<&str>) {
    let (Some(_), Some(name)) = (profile.filter(|p| p.ssh.is_some()), keyring_name) else {
        return;
    };
    let store = SecretStore::new();
    let get = |kind| match store.get(name, kind) {
        Ok(Some(s)) => Some(s.expose().to_string()),
        _ => None,
    };
    spec.password = get(SecretKind::SshPassword);
    spec.passphrase = get(SecretKind::SshPassphrase);
}
