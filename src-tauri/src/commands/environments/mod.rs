//! Environments screen: list, create, edit, duplicate and delete profiles; secrets into
//! the OS keyring; "Test MySQL" and "Test SSH" (with the host key shown for
//! confirmation); import of the seed toolkit's benchmark_config.conf.
//!
//! Profiles are the profile crate's TOML files in the user's profile folder, written
//! through its store (`dbdyno_profile::store`); the shipped examples are read-only
//! (duplicate one to change it). The connection tests are in [`connection`], the seed
//! config import in [`seed`].

pub mod clients;
pub mod connection;
pub mod seed;
pub mod tls;

use dbdyno_profile::secrets::Secret;
use dbdyno_profile::store::{ProfileStore, StoreError};
use dbdyno_profile::{
    Loaded, PasswordFrom, Profile, ProfileOrigin, SecretKind, SecretStore, SshAuth, SshSection,
};
use serde::{Deserialize, Serialize};

use crate::error::{blocking, problems, AppError, AppResult, ErrorCode};
use crate::resolve;
use tls::TlsSetting;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EnvironmentEntry {
    pub name: String,
    /// Shipped examples are read-only.
    pub example: bool,
    pub path: String,
    pub description: String,
    pub labels: Vec<String>,
    /// Why the profile cannot be used, when it cannot.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PasswordSource {
    /// The OS keyring (else MYSQL_PWD).
    Keyring,
    /// The MYSQL_PWD environment variable only.
    Env,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SshLogin {
    Agent,
    Key,
    Password,
}

/// What the environment form edits. Plan and workload settings of the profile are kept
/// as they are (the Plan screen edits them per run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct EnvironmentForm {
    pub name: String,
    pub description: String,
    pub labels: Vec<String>,
    pub mysql_host: String,
    pub mysql_port: u16,
    /// Unix socket (host and port are then not used).
    pub mysql_socket: Option<String>,
    pub mysql_user: String,
    pub mysql_db: String,
    /// TLS to the server (the profile's `ssl_mode`).
    pub mysql_ssl_mode: TlsSetting,
    /// CA certificate (PEM) to verify the server's certificate; None: the system's.
    pub mysql_ssl_ca: Option<String>,
    pub password_from: PasswordSource,
    pub ssh_enabled: bool,
    pub ssh_host: String,
    pub ssh_port: u16,
    pub ssh_user: String,
    pub ssh_login: SshLogin,
    pub ssh_key_path: Option<String>,
    /// The accepted host key ("SHA256:…"), set by accepting it after "Test SSH".
    pub ssh_host_key_fingerprint: Option<String>,
    /// Jump hosts in between, as OpenSSH's ProxyJump: `[user@]host[:port]`, comma-separated.
    pub ssh_jump: Option<String>,
    /// Block device of the data directory, when the automatic resolver must be overridden.
    pub data_disk: Option<String>,
    /// Machines that can drive load besides this one (the profile's `[[clients]]`).
    pub load_clients: Vec<clients::LoadClientForm>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EnvironmentDetail {
    pub form: EnvironmentForm,
    pub example: bool,
    pub path: Option<String>,
    pub has_mysql_password: bool,
    pub has_ssh_password: bool,
    pub has_ssh_passphrase: bool,
    /// Each SSH load client's own secrets, stored or not.
    pub client_secrets: Vec<clients::ClientSecretsStored>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SecretSlot {
    Mysql,
    SshPassword,
    SshPassphrase,
}

impl SecretSlot {
    fn kind(self) -> SecretKind {
        match self {
            SecretSlot::Mysql => SecretKind::MysqlPassword,
            SecretSlot::SshPassword => SecretKind::SshPassword,
            SecretSlot::SshPassphrase => SecretKind::SshPassphrase,
        }
    }
}

fn entry(e: dbdyno_profile::ProfileEntry) -> EnvironmentEntry {
    EnvironmentEntry {
        name: e.name,
        example: e.origin == ProfileOrigin::Example,
        path: e.path,
        description: e.description,
        labels: e.labels,
        error: e.error,
    }
}

/// The first line of every profile the app writes.
pub(super) const HEADER: &str =
    "# Written by the DB Dyno app. Secrets are in the OS keyring, never here.\n";

/// The store's refusals in the words of this screen: a name problem starts with "name:"
/// for the page to show it by the input, an invalid profile is one problem a line.
impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::BadName { reason, .. } => AppError::invalid(format!("name: {reason}")),
            StoreError::Taken { name } => AppError::invalid(format!(
                "name: an environment named '{name}' exists already"
            )),
            StoreError::NotUserProfile { .. } => {
                AppError::invalid("shipped examples cannot be deleted")
            }
            StoreError::Invalid {
                problems: found, ..
            } => problems(&found),
            StoreError::Write { .. } => AppError::new(ErrorCode::Io, e.to_string()),
            StoreError::Remove { source, .. } => source.into(),
            StoreError::Profile(e) => e.into(),
            StoreError::Secret(e) => e.into(),
        }
    }
}

pub(super) fn store() -> AppResult<ProfileStore> {
    Ok(ProfileStore::user()?)
}

pub(super) fn is_user_profile(name: &str) -> AppResult<bool> {
    Ok(store()?.has(name)?)
}

fn form_of(p: &Profile) -> EnvironmentForm {
    let c = p.connect_options();
    let ssh = p.ssh.clone().unwrap_or_default();
    EnvironmentForm {
        name: p.name.clone(),
        description: p.description.clone(),
        labels: p.labels.clone(),
        mysql_host: c.host,
        mysql_port: c.port,
        mysql_socket: c.socket,
        mysql_user: c.user,
        mysql_db: c.database,
        mysql_ssl_mode: c.tls.into(),
        mysql_ssl_ca: c.tls_ca,
        password_from: match p.mysql.password_from.unwrap_or_default() {
            PasswordFrom::Env => PasswordSource::Env,
            PasswordFrom::None => PasswordSource::None,
            PasswordFrom::Keyring | PasswordFrom::Prompt => PasswordSource::Keyring,
        },
        ssh_enabled: p.ssh.is_some(),
        ssh_host: ssh.host.unwrap_or_default(),
        ssh_port: ssh.port.unwrap_or(22),
        // Empty: the user's ~/.ssh/config entry for the host says, else the login name.
        ssh_user: ssh.user.unwrap_or_default(),
        ssh_login: match (ssh.auth, &ssh.key_path) {
            (Some(SshAuth::Password), _) => SshLogin::Password,
            (Some(SshAuth::Key), _) | (None, Some(_)) => SshLogin::Key,
            _ => SshLogin::Agent,
        },
        ssh_key_path: ssh.key_path,
        ssh_host_key_fingerprint: ssh.host_key_fingerprint,
        ssh_jump: ssh.jump,
        data_disk: p.data_disk.clone(),
        load_clients: clients::forms_of(p),
    }
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The form applied onto `base` (whose plan and workload sections are kept).
fn apply_form(mut p: Profile, f: &EnvironmentForm) -> Profile {
    p.name = f.name.trim().to_string();
    p.description = f.description.trim().to_string();
    p.labels = f.labels.iter().filter_map(|l| non_empty(l)).collect();
    p.mysql.host = non_empty(&f.mysql_host);
    p.mysql.port = Some(f.mysql_port);
    p.mysql.socket = f.mysql_socket.as_deref().and_then(non_empty);
    p.mysql.user = non_empty(&f.mysql_user);
    p.mysql.db = non_empty(&f.mysql_db);
    p.mysql.ssl_mode = Some(f.mysql_ssl_mode.into());
    p.mysql.ssl_ca = f.mysql_ssl_ca.as_deref().and_then(non_empty);
    p.mysql.password_from = Some(match f.password_from {
        PasswordSource::Keyring => PasswordFrom::Keyring,
        PasswordSource::Env => PasswordFrom::Env,
        PasswordSource::None => PasswordFrom::None,
    });
    p.ssh = f.ssh_enabled.then(|| SshSection {
        host: non_empty(&f.ssh_host),
        // 22, the form's default, is left to the user's ~/.ssh/config entry (whose
        // Port then applies) and else is 22 all the same.
        port: (f.ssh_port != 22).then_some(f.ssh_port),
        user: non_empty(&f.ssh_user),
        auth: Some(match f.ssh_login {
            SshLogin::Agent => SshAuth::Agent,
            SshLogin::Key => SshAuth::Key,
            SshLogin::Password => SshAuth::Password,
        }),
        key_path: f.ssh_key_path.as_deref().and_then(non_empty),
        host_key_fingerprint: f.ssh_host_key_fingerprint.as_deref().and_then(non_empty),
        jump: f.ssh_jump.as_deref().and_then(non_empty),
        // Not on the form: a profile file's choice of OpenSSH config is kept.
        config: p.ssh.as_ref().and_then(|s| s.config.clone()),
    });
    p.data_disk = f.data_disk.as_deref().and_then(non_empty);
    p.clients = f.load_clients.iter().map(|c| c.entry()).collect();
    p
}

pub(super) fn written(loaded: Loaded) -> EnvironmentEntry {
    EnvironmentEntry {
        name: loaded.profile.name,
        example: false,
        path: loaded
            .path
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        description: loaded.profile.description,
        labels: loaded.profile.labels,
        error: None,
    }
}

/// Validates and writes a user profile; what was written must load back.
pub(super) fn write_profile(p: &Profile) -> AppResult<EnvironmentEntry> {
    Ok(written(store()?.write(p, HEADER)?))
}

#[tauri::command]
#[specta::specta]
pub async fn list_environments() -> AppResult<Vec<EnvironmentEntry>> {
    blocking(|| {
        Ok(dbdyno_profile::list_profiles()?
            .into_iter()
            .map(entry)
            .collect())
    })
    .await
}

/// A blank form with the engine's defaults (what a new environment starts from).
#[tauri::command]
#[specta::specta]
pub fn new_environment_form() -> EnvironmentForm {
    form_of(&Profile::named(""))
}

#[tauri::command]
#[specta::specta]
pub async fn get_environment(name: String) -> AppResult<EnvironmentDetail> {
    blocking(move || {
        let loaded = dbdyno_profile::resolve_profile(&name)?;
        let store = SecretStore::new();
        let has = |k| store.get(&loaded.profile.name, k).ok().flatten().is_some();
        Ok(EnvironmentDetail {
            form: form_of(&loaded.profile),
            example: !is_user_profile(&name)?,
            path: loaded.path.map(|p| p.display().to_string()),
            has_mysql_password: has(SecretKind::MysqlPassword),
            has_ssh_password: has(SecretKind::SshPassword),
            has_ssh_passphrase: has(SecretKind::SshPassphrase),
            client_secrets: clients::stored_secrets(&loaded.profile, &store),
        })
    })
    .await
}

/// Creates or updates a user profile. `previous` is the name it had (a rename moves
/// the file and its keyring entries); None creates a new one.
#[tauri::command]
#[specta::specta]
pub async fn save_environment(
    form: EnvironmentForm,
    previous: Option<String>,
) -> AppResult<EnvironmentEntry> {
    blocking(move || {
        tls::check_ca_file(form.mysql_ssl_ca.as_deref())?;
        let name = form.name.trim().to_string();
        let base = match &previous {
            Some(p) => resolve::load_profile(p)?,
            None => Profile::named(&name),
        };
        let loaded = store()?.save(&apply_form(base, &form), previous.as_deref(), HEADER)?;
        Ok(written(loaded))
    })
    .await
}

/// Copies an environment (an example or a user profile) under a new name.
#[tauri::command]
#[specta::specta]
pub async fn duplicate_environment(name: String, new_name: String) -> AppResult<EnvironmentEntry> {
    blocking(move || {
        let p = resolve::load_profile(&name)?;
        Ok(written(store()?.duplicate(&p, &new_name, HEADER)?))
    })
    .await
}

/// `name` trimmed, when it can name a new user profile: valid as a file and keyring
/// name, and not taken. The message starts with "name:" for the page to show by the input.
pub(super) fn free_name(name: &str) -> AppResult<String> {
    Ok(store()?.free_name(name)?)
}

/// Deletes a user profile and its keyring entries (the history keeps its runs).
#[tauri::command]
#[specta::specta]
pub async fn delete_environment(name: String) -> AppResult<()> {
    blocking(move || Ok(store()?.delete(&name)?)).await
}

/// Stores a secret in the OS keyring (an empty value removes it). It never comes back
/// to the page: `get_environment` only says whether one is stored.
#[tauri::command]
#[specta::specta]
pub async fn set_secret(name: String, slot: SecretSlot, value: String) -> AppResult<()> {
    blocking(move || {
        let store = SecretStore::new();
        if value.is_empty() {
            store.delete(&name, slot.kind())?;
        } else {
            store.set(&name, slot.kind(), &Secret::new(value))?;
        }
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The form edits the jump hosts and leaves to the user's ~/.ssh/config what it
    /// leaves empty (the user) or at its default (port 22); a profile file's choice of
    /// config file survives a save.
    #[test]
    fn the_ssh_fields_leave_what_is_unset_to_the_users_ssh_config() {
        let text = "schema_version = 1\nname = \"behind\"\n[mysql]\nhost = \"10.0.0.5\"\n\
                    [ssh]\nhost = \"db1\"\nconfig = \"none\"\njump = \"ops@bastion\"\n";
        let p = dbdyno_profile::load_str(text, "test", "behind")
            .unwrap()
            .profile;
        let mut f = form_of(&p);
        assert_eq!(f.ssh_jump.as_deref(), Some("ops@bastion"));
        assert_eq!((f.ssh_user.as_str(), f.ssh_port), ("", 22));
        f.ssh_jump = Some(" ops@bastion:2222,inner ".into());
        let saved = apply_form(p, &f);
        let ssh = saved.ssh.unwrap();
        assert_eq!(ssh.jump.as_deref(), Some("ops@bastion:2222,inner"));
        assert_eq!((ssh.user, ssh.port), (None, None));
        assert_eq!(ssh.config.as_deref(), Some("none"));
    }
}
