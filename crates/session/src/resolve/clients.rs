//! The load clients of a run (`--clients`, the profile's `[[clients]]` and
//! `plan.clients`): each SSH client's login resolved as the server's is, and the
//! launcher that starts their agents. Both shells call this, so a profile's clients
//! run the same from the CLI and the app.

use dbdyno_clients::transport::local::LocalLauncher;
use dbdyno_clients::{ClientSpec, ClientsPlan, Launcher, SpecError, SshLauncher};
use dbdyno_profile::clients::{client_keyring_name, LoadClient};
use dbdyno_profile::{Profile, SecretStore};
use dbdyno_ssh::SshTarget;

use super::{ssh_target, KnownHosts, ResolveError, SshLogin};

/// Why the load clients cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum ClientsResolveError {
    #[error("load client {url}: {source}")]
    Spec {
        url: String,
        #[source]
        source: SpecError,
    },
    /// Boxed: a resolve error is large, and this one is rare.
    #[error("load client {url}: {source}")]
    Login {
        url: String,
        #[source]
        source: Box<ResolveError>,
    },
    #[error("load client {url}: no SSH login (give --ssh-key, --ssh-agent or --ssh-password)")]
    NoLogin { url: String },
    #[error(transparent)]
    Binary(#[from] dbdyno_remote::RemoteError),
}

/// The clients `profile` drives its load from, or None for this machine alone (the
/// engine then runs in this process, exactly as without clients). `login` is the SSH
/// login the caller gives for the server; a client with an entry of its own in the
/// keyring holds secrets of its own (`<profile>.client.<host>`) logs in with those,
/// the others with the environment's.
pub fn clients_plan(
    profile: &Profile,
    login: &SshLogin,
    known: &KnownHosts,
) -> Result<Option<ClientsPlan>, ClientsResolveError> {
    let load = profile.load_clients();
    if load == [LoadClient::Local] {
        return Ok(None);
    }
    let (specs, logins) = client_logins(profile, load, login, known, &SecretStore::new())?;
    // `dbdyno` itself: the running CLI, or the one beside the app.
    let binary = dbdyno_remote::local_agent_binary()?;
    let local = LocalLauncher {
        binary: binary.clone(),
        all_local: false,
    };
    let launcher: Box<dyn Launcher + Send> = if logins.is_empty() {
        Box::new(local)
    } else {
        Box::new(SshLauncher {
            logins,
            binary,
            local,
            cache_dir: None,
        })
    };
    Ok(Some(ClientsPlan { specs, launcher }))
}

type Logins = Vec<(ClientSpec, SshTarget)>;

/// Every client as a spec, and each SSH client's login.
fn client_logins(
    profile: &Profile,
    load: Vec<LoadClient>,
    login: &SshLogin,
    known: &KnownHosts,
    store: &SecretStore,
) -> Result<(Vec<ClientSpec>, Logins), ClientsResolveError> {
    let mut specs = Vec::with_capacity(load.len());
    let mut logins = Vec::new();
    for client in load {
        let LoadClient::Ssh { url, ssh } = client else {
            specs.push(ClientSpec::Local);
            continue;
        };
        let spec = ClientSpec::parse(&url).map_err(|source| ClientsResolveError::Spec {
            url: url.clone(),
            source,
        })?;
        let host = ssh.host.clone().unwrap_or_default();
        let scope = client_scope(login.keyring_name, &host, store);
        let one = SshLogin {
            key: login.key.clone(),
            password: login.password.clone(),
            agent: login.agent,
            accept_new_host_key: login.accept_new_host_key,
            keyring_name: scope.as_deref().or(login.keyring_name),
            ask: login.ask,
        };
        let mut client_profile = profile.clone();
        client_profile.ssh = Some(ssh);
        let target = ssh_target(&client_profile, &one, known)
            .map_err(|source| ClientsResolveError::Login {
                url: url.clone(),
                source: Box::new(source),
            })?
            .ok_or_else(|| ClientsResolveError::NoLogin { url: url.clone() })?;
        if target.pinned_fingerprint.is_some() {
            store_pinned_key(&target, login).map_err(|source| ClientsResolveError::Login {
                url: url.clone(),
                source: Box::new(source),
            })?;
        }
        logins.push((spec.clone(), target));
        specs.push(spec);
    }
    Ok((specs, logins))
}

/// A client whose entry pins its host key is trusted as the server is: its key, seen
/// for the first time, is stored in known_hosts, which the agent's own connection then
/// finds (that connection checks known_hosts only). One login now, before anything
/// runs, so a wrong pin or login also stops the run early.
fn store_pinned_key(target: &SshTarget, login: &SshLogin) -> Result<(), ResolveError> {
    super::connect_trusted(target, login.ask).map(drop)
}

/// The keyring "profile" client `host` reads its SSH secrets from: its own when it has
/// some, else the environment's; none when the run reads no keyring (flags only).
fn client_scope(environment: Option<&str>, host: &str, store: &SecretStore) -> Option<String> {
    environment.map(|name| client_keyring_name(name, host, store))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> Profile {
        let text = "schema_version = 1\nname = \"t\"\n[mysql]\nhost = \"db1\"\n";
        dbdyno_profile::load_str(text, "test", "t").unwrap().profile
    }

    fn known() -> KnownHosts {
        KnownHosts {
            file: std::env::temp_dir().join("dbdyno-clients-resolve-known_hosts"),
            user_file_too: false,
        }
    }

    #[test]
    fn a_profile_without_clients_runs_on_this_machine_alone() {
        let p = profile();
        assert!(clients_plan(&p, &SshLogin::default(), &known())
            .unwrap()
            .is_none());
    }

    #[test]
    fn each_ssh_client_logs_in_at_its_own_address() {
        let mut p = profile();
        p.plan.clients = Some(vec![
            "local".into(),
            "ssh://bench@10.0.0.61:2222".into(),
            "ssh://10.0.0.62".into(),
        ]);
        let login = SshLogin {
            key: Some("/nonexistent/id_ed25519".into()),
            ..SshLogin::default()
        };
        let (specs, logins) =
            client_logins(&p, p.load_clients(), &login, &known(), &SecretStore::new()).unwrap();
        assert_eq!(
            specs.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec!["local", "ssh://bench@10.0.0.61:2222", "ssh://10.0.0.62"]
        );
        let at: Vec<(String, u16, String)> = logins
            .iter()
            .map(|(_, t)| (t.host.clone(), t.port, t.user.clone()))
            .collect();
        assert_eq!(at[0], ("10.0.0.61".into(), 2222, "bench".into()));
        assert_eq!((at[1].0.as_str(), at[1].1), ("10.0.0.62", 22));
    }

    #[test]
    fn a_client_logs_in_with_its_own_secrets_else_the_environments() {
        use dbdyno_profile::clients::client_secret_scope;
        use dbdyno_profile::secrets::Secret;
        use dbdyno_profile::SecretKind;
        let store = SecretStore::with_service(format!(
            "dbdyno-test-resolve-clients-{}",
            std::process::id()
        ));
        let own = client_secret_scope("idc", "c1");
        assert_eq!(
            client_scope(Some("idc"), "c1", &store).as_deref(),
            Some("idc")
        );
        store
            .set(&own, SecretKind::SshPassphrase, &Secret::new("pp"))
            .unwrap();
        let scope = client_scope(Some("idc"), "c1", &store);
        let other = client_scope(Some("idc"), "c2", &store);
        store.delete(&own, SecretKind::SshPassphrase).unwrap();
        assert_eq!(scope, Some(own));
        assert_eq!(
            other.as_deref(),
            Some("idc"),
            "a client without secrets of its own"
        );
        assert_eq!(
            client_scope(None, "c1", &store),
            None,
            "no keyring: flags only"
        );
    }
}
