//! The MySQL password of a run. An explicit one (the CLI's `--mysql-password`) wins;
//! then the profile's `password_from` (the CLI's `--mysql-password-from` is laid onto
//! the profile like any profile option):
//! `keyring` (the entry `<profile>/mysql`, else MYSQL_PWD), `env` (MYSQL_PWD), `prompt`
//! (MYSQL_PWD, else asked; with nobody to ask, the keyring) or `none`.
//!
//! Without a profile file, `--env=NAME` names the keyring entry, and MYSQL_PWD stays
//! first: `--env` only names the run. The password only ever goes into the connection
//! options, which never serialize it.

use dbdyno_profile::{PasswordFrom, Profile, SecretKind, SecretStore};

use super::{env_value, Ask, ResolveError};

/// What the caller knows beyond the profile.
#[derive(Default)]
pub struct PasswordRequest<'a> {
    /// Given outright (the command line's value, or its prompt's answer).
    pub given: Option<String>,
    /// The keyring entry's name: the loaded profile's own (`--env` renames the run,
    /// not the profile the secrets were stored for), or `--env` without a profile.
    pub keyring_name: Option<&'a str>,
    /// The profile came from a file (not only from the command line's options).
    pub from_file: bool,
    pub ask: Option<&'a dyn Ask>,
}

/// The password, or `None` to connect without one. A keyring that cannot be read is
/// an error only when nothing else gives a password (the CLI warns and goes on).
pub fn mysql_password(p: &Profile, r: &PasswordRequest) -> Result<Option<String>, ResolveError> {
    if let Some(given) = &r.given {
        return Ok(Some(given.clone()));
    }
    let ambient = env_value(SecretKind::MysqlPassword.env_var());
    let from = p.mysql.password_from.unwrap_or_default();
    let keyring = || -> Result<Option<String>, ResolveError> {
        let Some(name) = r.keyring_name else {
            return Ok(ambient.clone());
        };
        match SecretStore::new().get(name, SecretKind::MysqlPassword) {
            Ok(Some(s)) => Ok(Some(s.expose().to_string())),
            Ok(None) => Ok(ambient.clone()),
            Err(_) if ambient.is_some() => Ok(ambient.clone()),
            Err(e) => Err(e.into()),
        }
    };
    match from {
        PasswordFrom::None => Ok(None),
        PasswordFrom::Env => Ok(ambient),
        PasswordFrom::Keyring if !r.from_file && ambient.is_some() => Ok(ambient),
        PasswordFrom::Keyring => keyring(),
        PasswordFrom::Prompt => match (&ambient, r.ask) {
            (Some(_), _) => Ok(ambient),
            (None, Some(ask)) => {
                let c = p.connect_options();
                let question = format!("Password for {}@{}: ", c.user, c.endpoint());
                ask.secret(&question)
                    .map(Some)
                    .map_err(|source| ResolveError::Prompt {
                        what: "the password",
                        source,
                    })
            }
            // Nobody to ask (the app): its Environments screen stores the password.
            (None, None) => keyring(),
        },
    }
}
