//! The Environments screen's "Load clients" section: the profile's `[[clients]]`
//! entries as the form edits them, and "Test SSH" for one of them. Which clients take
//! part in a run is the Plan screen's choice (`commands::plan_clients`).

use dbdyno_profile::clients::client_secret_scope;
use dbdyno_profile::secrets::Secret;
use dbdyno_profile::{
    ClientEntry, ClientUrl, Profile, SecretKind, SecretStore, SshAuth, SshSection,
};
use serde::{Deserialize, Serialize};
use tauri::State;

use super::connection::{ssh_outcome, SshTest};
use super::{SecretSlot, SshLogin};
use crate::error::{blocking, AppError, AppResult};
use crate::resolve;
use crate::state::AppState;

/// One load client machine: its URL and, when it differs from the server's, its SSH
/// login. Its password or key passphrase is never here (the keyring holds it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadClientForm {
    /// `ssh://user@host:port`.
    pub url: String,
    /// None: log in as to the server (its `[ssh]` auth and key).
    pub login: Option<SshLogin>,
    pub key_path: Option<String>,
    /// The client's accepted host key ("SHA256:…").
    pub host_key_fingerprint: Option<String>,
}

fn non_empty(s: Option<&str>) -> Option<String> {
    s.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

impl LoadClientForm {
    pub fn of(e: &ClientEntry) -> LoadClientForm {
        LoadClientForm {
            url: e.url.clone(),
            login: e.ssh.auth.map(|a| match a {
                SshAuth::Agent => SshLogin::Agent,
                SshAuth::Key => SshLogin::Key,
                SshAuth::Password => SshLogin::Password,
            }),
            key_path: e.ssh.key_path.clone(),
            host_key_fingerprint: e.ssh.host_key_fingerprint.clone(),
        }
    }

    pub fn entry(&self) -> ClientEntry {
        ClientEntry {
            url: self.url.trim().to_string(),
            ssh: SshSection {
                auth: self.login.map(|l| match l {
                    SshLogin::Agent => SshAuth::Agent,
                    SshLogin::Key => SshAuth::Key,
                    SshLogin::Password => SshAuth::Password,
                }),
                key_path: non_empty(self.key_path.as_deref()),
                host_key_fingerprint: non_empty(self.host_key_fingerprint.as_deref()),
                ..Default::default()
            },
        }
    }
}

/// The profile's clients as the form lists them.
pub fn forms_of(p: &Profile) -> Vec<LoadClientForm> {
    p.clients.iter().map(LoadClientForm::of).collect()
}

/// Logs in to load client `url` of the saved environment `name`, as a run would (its
/// own login, else the server's), and shows its host key to compare.
#[tauri::command]
#[specta::specta]
pub async fn test_client_ssh(
    state: State<'_, AppState>,
    name: String,
    url: String,
) -> AppResult<SshTest> {
    let known_hosts = state.known_hosts_file();
    blocking(move || {
        let p = resolve::load_profile(&name)?;
        let (target, pinned) =
            resolve::client_ssh_target(&p, &url, &known_hosts)?.ok_or_else(|| {
                AppError::invalid(format!(
                    "{url} is not an SSH load client of this environment: add it and save first"
                ))
            })?;
        Ok(ssh_outcome(dbdyno_ssh::connect(&target), pinned.as_deref()))
    })
    .await
}

/// Which SSH secrets a load client has of its own in the keyring (without them it
/// uses the environment's).
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ClientSecretsStored {
    pub url: String,
    pub has_ssh_password: bool,
    pub has_ssh_passphrase: bool,
}

/// The host of SSH client `url`, or why it has none.
fn host_of(url: &str) -> AppResult<String> {
    match ClientUrl::parse(url) {
        Ok(ClientUrl::Ssh { host, .. }) => Ok(host),
        Ok(ClientUrl::Local) => Err(AppError::invalid(
            "`local` is this machine: it has no SSH secret",
        )),
        Err(e) => Err(AppError::invalid(e.to_string())),
    }
}

/// What each SSH client of profile `p` has stored of its own.
pub fn stored_secrets(p: &Profile, store: &SecretStore) -> Vec<ClientSecretsStored> {
    p.clients
        .iter()
        .filter_map(|c| {
            let scope = client_secret_scope(&p.name, &host_of(&c.url).ok()?);
            let has = |k| store.get(&scope, k).ok().flatten().is_some();
            Some(ClientSecretsStored {
                url: c.url.clone(),
                has_ssh_password: has(SecretKind::SshPassword),
                has_ssh_passphrase: has(SecretKind::SshPassphrase),
            })
        })
        .collect()
}

/// Stores load client `url`'s own SSH password or key passphrase in the OS keyring (an
/// empty value removes it). It never comes back to the page.
#[tauri::command]
#[specta::specta]
pub async fn set_client_secret(
    name: String,
    url: String,
    slot: SecretSlot,
    value: String,
) -> AppResult<()> {
    blocking(move || {
        let kind =
            match slot {
                SecretSlot::SshPassword => SecretKind::SshPassword,
                SecretSlot::SshPassphrase => SecretKind::SshPassphrase,
                SecretSlot::Mysql => return Err(AppError::invalid(
                    "a load client has SSH secrets only: the MySQL password is the environment's",
                )),
            };
        let scope = client_secret_scope(&name, &host_of(&url)?);
        let store = SecretStore::new();
        if value.is_empty() {
            store.delete(&scope, kind)?;
        } else {
            store.set(&scope, kind, &Secret::new(value))?;
        }
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_form_goes_to_the_profile_and_back() {
        let form = LoadClientForm {
            url: " ssh://bench@c1:2222 ".into(),
            login: Some(SshLogin::Key),
            key_path: Some("~/.ssh/id".into()),
            host_key_fingerprint: Some(" ".into()),
        };
        let entry = form.entry();
        assert_eq!(entry.url, "ssh://bench@c1:2222");
        assert_eq!(entry.ssh.auth, Some(SshAuth::Key));
        assert_eq!(entry.ssh.host_key_fingerprint, None, "blank is none");
        assert_eq!(entry.ssh.host, None, "the host is in the url");
        let back = LoadClientForm::of(&entry);
        assert_eq!(back.url, "ssh://bench@c1:2222");
        assert_eq!(back.login, Some(SshLogin::Key));
        let server_login = LoadClientForm {
            login: None,
            ..back
        };
        assert_eq!(server_login.entry().ssh.auth, None, "the server's login");
    }

    #[test]
    fn a_clients_secrets_are_its_own() {
        let store =
            SecretStore::with_service(format!("dbdyno-test-app-clients-{}", std::process::id()));
        let mut p = Profile::named("idc");
        p.clients = vec![
            LoadClientForm {
                url: "ssh://bench@c1".into(),
                login: Some(SshLogin::Password),
                key_path: None,
                host_key_fingerprint: None,
            }
            .entry(),
            ClientEntry {
                url: "local".into(),
                ssh: Default::default(),
            },
        ];
        let scope = client_secret_scope("idc", "c1");
        store
            .set(&scope, SecretKind::SshPassword, &Secret::new("pw"))
            .unwrap();
        let stored = stored_secrets(&p, &store);
        assert_eq!(
            stored,
            [ClientSecretsStored {
                url: "ssh://bench@c1".into(),
                has_ssh_password: true,
                has_ssh_passphrase: false,
            }],
            "local has no secret"
        );
        store.delete(&scope, SecretKind::SshPassword).unwrap();
        assert!(host_of("local").is_err());
    }
}
