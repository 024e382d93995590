//! The SSH login to the database server: host, user, credentials and known_hosts, from
//! the profile's `[ssh]` section and what the caller adds (the CLI's `--ssh-key`,
//! `--ssh-password`, `--ssh-agent`, `--accept-new-host-key`, `--known-hosts`).
//!
//! The credentials, first match wins: the profile's `auth` when set; else the caller's
//! choice; else the profile's key; else the `IdentityFile` of the host's entry in the
//! user's OpenSSH config (`ssh_config`); else a password from DBDYNO_SSH_PASSWORD or the
//! keyring; else a running agent; else ~/.ssh's default keys. Secrets come from the
//! environment first, then the keyring entries of the profile; never from a file.

use std::path::{Path, PathBuf};

use dbdyno_profile::{Profile, SecretKind, SecretStore, SshAuth};
use dbdyno_ssh::{KnownHostsConfig, SshAuth as Login, SshTarget};

use super::ssh_config::UserSshConfig;
use super::{env_value, expand_home, Ask, ResolveError};

/// Which known_hosts files hold the keys DB Dyno trusts.
#[derive(Debug, Clone)]
pub struct KnownHosts {
    /// DB Dyno's own file: read, and appended to when a key is accepted.
    pub file: PathBuf,
    /// Also trust, read-only, the keys in the user's `~/.ssh/known_hosts`, as OpenSSH
    /// users expect. Off when the file was named on purpose: it is then the only authority.
    pub user_file_too: bool,
}

/// What the caller adds to the profile's `[ssh]` section.
#[derive(Default)]
pub struct SshLogin<'a> {
    pub key: Option<PathBuf>,
    /// A password given outright (the CLI's `--ssh-password`, or its prompt's answer).
    pub password: Option<String>,
    pub agent: bool,
    pub accept_new_host_key: bool,
    /// The profile's keyring entries: its own name when it came from a file.
    pub keyring_name: Option<&'a str>,
    /// Asks for a protected key's passphrase when none is stored.
    pub ask: Option<&'a dyn Ask>,
}

/// The target, or `None` when the profile has no `[ssh]` section. The SSH host is the
/// section's, else the MySQL host; the user's OpenSSH config fills what the section
/// leaves out (its `Host` entry for that name: HostName, User, Port, IdentityFile,
/// ProxyJump), and the same for each jump host. The profile's pinned host key goes
/// with it.
pub fn ssh_target(
    p: &Profile,
    login: &SshLogin,
    known: &KnownHosts,
) -> Result<Option<SshTarget>, ResolveError> {
    let Some(s) = &p.ssh else { return Ok(None) };
    let Some(name) = s
        .host
        .clone()
        .or_else(|| p.mysql.host.clone())
        .filter(|h| !h.trim().is_empty())
    else {
        return Ok(None);
    };
    let config = UserSshConfig::load(s.config.as_deref())?;
    let entry = config.host(&name);
    let host = entry.host_name.clone().unwrap_or(name);
    let user = s
        .user
        .clone()
        .or_else(|| entry.user.clone())
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "root".into());
    let secrets = Secrets {
        keyring_name: login.keyring_name,
    };
    let auth = Credentials {
        p,
        login,
        secrets: &secrets,
        config_key: entry.identity_file.clone(),
        user: &user,
        host: &host,
    }
    .choose()?;
    let mut files = KnownHostsConfig::new(&known.file);
    if known.user_file_too {
        files = files.with_user_known_hosts();
    }
    let jump = s.jump.as_deref().or(entry.proxy_jump.as_deref());
    let hops = match jump.map(dbdyno_profile::parse_jump_hosts) {
        Some(Ok(hops)) => hops,
        Some(Err(why)) => return Err(ResolveError::BadJumpHosts { why }),
        None => Vec::new(),
    };
    let mut t = SshTarget::new(host, s.port.or(entry.port).unwrap_or(22), user, auth, files);
    t.accept_new_host_key = login.accept_new_host_key;
    // Each hop logs in with the server's credentials (or the key its config entry
    // names) and is checked against the same known_hosts; the pinned key is the
    // server's alone.
    t.jumps = hops
        .into_iter()
        .map(|hop| {
            let entry = config.host(&hop.host);
            let auth = match entry.identity_file {
                Some(path) => Login::Key {
                    path,
                    passphrase: None,
                },
                None => t.auth.clone(),
            };
            let mut j = SshTarget::new(
                entry.host_name.unwrap_or(hop.host),
                hop.port.or(entry.port).unwrap_or(22),
                hop.user.or(entry.user).unwrap_or_else(|| t.user.clone()),
                auth,
                t.known_hosts.clone(),
            );
            j.accept_new_host_key = t.accept_new_host_key;
            j
        })
        .collect();
    t.pinned_fingerprint = s.host_key_fingerprint.clone();
    Ok(Some(t))
}

/// The profile's SSH secrets: the environment variable first, then the keyring.
struct Secrets<'a> {
    keyring_name: Option<&'a str>,
}

impl Secrets<'_> {
    fn get(&self, kind: SecretKind) -> Option<String> {
        env_value(kind.env_var()).or_else(|| {
            let name = self.keyring_name?;
            match SecretStore::new().get(name, kind) {
                Ok(Some(s)) => Some(s.expose().to_string()),
                _ => None,
            }
        })
    }
}

struct Credentials<'a> {
    p: &'a Profile,
    login: &'a SshLogin<'a>,
    secrets: &'a Secrets<'a>,
    /// The `IdentityFile` of the host's OpenSSH config entry.
    config_key: Option<PathBuf>,
    user: &'a str,
    host: &'a str,
}

impl Credentials<'_> {
    fn choose(&self) -> Result<Login, ResolveError> {
        let profile_key = self.p.ssh.as_ref().and_then(|s| s.key_path.as_deref());
        let key = self
            .login
            .key
            .clone()
            .or(profile_key.map(expand_home))
            .or(self.config_key.clone());
        let password = || {
            self.login
                .password
                .clone()
                .or_else(|| self.secrets.get(SecretKind::SshPassword))
        };
        match self.p.ssh.as_ref().and_then(|s| s.auth) {
            Some(SshAuth::Agent) => return Ok(Login::Agent),
            Some(SshAuth::Password) => {
                return password()
                    .map(Login::Password)
                    .ok_or_else(|| ResolveError::NoSshPassword {
                        host: self.host.into(),
                    })
            }
            Some(SshAuth::Key) => {
                return match key {
                    Some(k) => self.key(k),
                    None => Err(ResolveError::NoSshKey {
                        host: self.host.into(),
                    }),
                }
            }
            None => {}
        }
        if self.login.agent {
            return Ok(Login::Agent);
        }
        if let Some(pw) = &self.login.password {
            return Ok(Login::Password(pw.clone()));
        }
        if let Some(k) = key {
            return self.key(k);
        }
        if let Some(pw) = password() {
            return Ok(Login::Password(pw));
        }
        if std::env::var_os("SSH_AUTH_SOCK").is_some() {
            return Ok(Login::Agent);
        }
        for name in ["id_ed25519", "id_ecdsa", "id_rsa"] {
            let p = expand_home(&format!("~/.ssh/{name}"));
            if p.exists() {
                return self.key(p);
            }
        }
        Err(ResolveError::NoSshCredentials {
            user: self.user.into(),
            host: self.host.into(),
        })
    }

    /// A key login; its passphrase stored, or asked for when the key is protected and
    /// someone can answer, else none (the login then says so).
    fn key(&self, path: PathBuf) -> Result<Login, ResolveError> {
        let mut passphrase = self.secrets.get(SecretKind::SshPassphrase);
        if passphrase.is_none() && key_is_encrypted(&path) {
            if let Some(ask) = self.login.ask.filter(|a| a.can_type_secret()) {
                let question = format!("Passphrase for key {}: ", path.display());
                passphrase =
                    Some(
                        ask.secret(&question)
                            .map_err(|source| ResolveError::Prompt {
                                what: "the SSH key passphrase",
                                source,
                            })?,
                    );
            }
        }
        Ok(Login::Key { path, passphrase })
    }
}

/// True when the private key file is protected by a passphrase: an OpenSSH key whose
/// cipher is not "none", or a PEM key with an ENCRYPTED header.
pub fn key_is_encrypted(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    if text.contains("ENCRYPTED") {
        return true;
    }
    let b64: String = text
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN OPENSSH PRIVATE KEY-----"))
        .skip(1)
        .take_while(|l| !l.starts_with("-----END"))
        .collect();
    use base64::Engine as _;
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(b64.trim()) else {
        return false;
    };
    // "openssh-key-v1\0", then the cipher name as a length-prefixed string.
    let Some(rest) = bytes.strip_prefix(b"openssh-key-v1\0".as_slice()) else {
        return false;
    };
    let Some(len) = rest
        .get(..4)
        .map(|l| u32::from_be_bytes([l[0], l[1], l[2], l[3]]) as usize)
    else {
        return false;
    };
    rest.get(4..4 + len).is_some_and(|cipher| cipher != b"none")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_keys_are_recognised() {
        let dir = tempfile::tempdir().unwrap();
        for (name, args, protected) in [
            ("plain", &["-t", "ed25519", "-N", ""][..], false),
            ("locked", &["-t", "ed25519", "-N", "pass phrase"][..], true),
            (
                "pem",
                &["-t", "rsa", "-b", "1024", "-m", "PEM", "-N", "five+ chars"][..],
                true,
            ),
        ] {
            let path = dir.path().join(name);
            let ok = std::process::Command::new("ssh-keygen")
                .args(["-q", "-f"])
                .arg(&path)
                .args(args)
                .status()
                .expect("ssh-keygen (openssh-client) is installed");
            assert!(ok.success());
            assert_eq!(key_is_encrypted(&path), protected, "{name}");
        }
        assert!(!key_is_encrypted(&dir.path().join("missing")));
    }

    fn profile(ssh: &str) -> Profile {
        let text = format!("schema_version = 1\nname = \"t\"\n[mysql]\nhost = \"db1\"\n{ssh}");
        dbdyno_profile::load_str(&text, "test", "t")
            .unwrap()
            .profile
    }

    fn known() -> KnownHosts {
        KnownHosts {
            file: "/tmp/kh".into(),
            user_file_too: false,
        }
    }

    #[test]
    fn jump_hosts_log_in_as_the_server_does_unless_they_name_their_user() {
        let p = profile(
            "[ssh]\nhost = \"db1\"\nuser = \"dba\"\njump = \"ops@bastion:2222,inner\"\nhost_key_fingerprint = \"SHA256:pin\"\n",
        );
        let login = SshLogin {
            key: Some("/k".into()),
            accept_new_host_key: true,
            ..Default::default()
        };
        let t = ssh_target(&p, &login, &known()).unwrap().unwrap();
        let hops: Vec<_> = t
            .jumps
            .iter()
            .map(|j| {
                (
                    j.user.as_str(),
                    j.host.as_str(),
                    j.port,
                    j.accept_new_host_key,
                )
            })
            .collect();
        assert_eq!(
            hops,
            [("ops", "bastion", 2222, true), ("dba", "inner", 22, true)]
        );
        assert!(t.jumps.iter().all(|j| j.pinned_fingerprint.is_none()
            && matches!(j.auth, Login::Key { ref path, .. } if path == Path::new("/k"))));
        let mut bad = p.clone();
        bad.ssh.as_mut().unwrap().jump = Some("bastion:ssh".into());
        let e = ssh_target(&bad, &login, &known()).unwrap_err();
        assert!(e.to_string().contains("`ssh` is not a port"), "{e}");
    }

    #[test]
    fn the_users_ssh_config_fills_what_the_profile_leaves_out_and_never_overrides_it() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("id_db");
        let hop_key = dir.path().join("id_ops");
        std::fs::write(&key, "k").unwrap();
        std::fs::write(&hop_key, "k").unwrap();
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            format!(
                "Host db1\n  HostName 10.0.0.50\n  User dba\n  Port 2222\n  IdentityFile {}\n  ProxyJump bastion\n\
                 Host bastion\n  HostName 192.0.2.7\n  User ops\n  IdentityFile {}\n",
                key.display(),
                hop_key.display()
            ),
        )
        .unwrap();
        let section = |extra: &str| {
            profile(&format!(
                "[ssh]\nhost = \"db1\"\nconfig = \"{}\"\n{extra}",
                config.display()
            ))
        };
        let t = ssh_target(&section(""), &SshLogin::default(), &known())
            .unwrap()
            .unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.user.as_str()),
            ("10.0.0.50", 2222, "dba")
        );
        assert!(
            matches!(t.auth, Login::Key { ref path, .. } if path == &key),
            "{:?}",
            t.auth
        );
        let hop = &t.jumps[..];
        assert_eq!(hop.len(), 1);
        assert_eq!(
            (hop[0].host.as_str(), hop[0].port, hop[0].user.as_str()),
            ("192.0.2.7", 22, "ops"),
            "a hop's own entry is read too"
        );
        assert!(matches!(hop[0].auth, Login::Key { ref path, .. } if path == &hop_key));

        // The profile's fields win, as ssh's options win over its config.
        let t = ssh_target(
            &section("user = \"root\"\nport = 22\njump = \"none\"\n"),
            &SshLogin {
                key: Some("/k".into()),
                ..Default::default()
            },
            &known(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.user.as_str()),
            ("10.0.0.50", 22, "root")
        );
        assert!(t.jumps.is_empty(), "jump = none: no bastion");
        assert!(matches!(t.auth, Login::Key { ref path, .. } if path == Path::new("/k")));

        // config = "none": the alias is the address.
        let mut off = section("");
        off.ssh.as_mut().unwrap().config = Some("none".into());
        let login = SshLogin {
            key: Some("/k".into()),
            ..Default::default()
        };
        let t = ssh_target(&off, &login, &known()).unwrap().unwrap();
        assert_eq!((t.host.as_str(), t.port), ("db1", 22));
    }

    #[test]
    fn no_ssh_section_means_no_target() {
        assert!(ssh_target(&profile(""), &SshLogin::default(), &known())
            .unwrap()
            .is_none());
    }

    #[test]
    fn credentials_follow_the_options_and_the_profile() {
        let p = profile(
            "[ssh]\nhost = \"db1\"\nuser = \"root\"\nhost_key_fingerprint = \"SHA256:pin\"\n",
        );
        let key = SshLogin {
            key: Some("/k".into()),
            ..Default::default()
        };
        let t = ssh_target(&p, &key, &known()).unwrap().unwrap();
        assert!(matches!(t.auth, Login::Key { ref path, .. } if path == Path::new("/k")));
        assert_eq!(
            (t.host.as_str(), t.port, t.user.as_str()),
            ("db1", 22, "root")
        );
        assert_eq!(t.known_hosts.app_file, Path::new("/tmp/kh"));
        assert_eq!(
            t.known_hosts.user_file, None,
            "a named file is the only one"
        );
        assert_eq!(t.pinned_fingerprint.as_deref(), Some("SHA256:pin"));
        let agent = SshLogin {
            agent: true,
            key: Some("/k".into()),
            ..Default::default()
        };
        assert!(matches!(
            ssh_target(&p, &agent, &known()).unwrap().unwrap().auth,
            Login::Agent
        ));
        let by_password = profile("[ssh]\nhost = \"db1\"\nuser = \"root\"\nauth = \"password\"\n");
        let pw = SshLogin {
            password: Some("secret".into()),
            ..Default::default()
        };
        assert!(matches!(
            ssh_target(&by_password, &pw, &known())
                .unwrap()
                .unwrap()
                .auth,
            Login::Password(_)
        ));
        // As the command line can say (`--ssh-auth=key`); a profile file must name the key.
        let mut by_key = profile("[ssh]\nhost = \"db1\"\n");
        by_key.ssh.as_mut().unwrap().auth = Some(SshAuth::Key);
        let e = ssh_target(&by_key, &SshLogin::default(), &known()).unwrap_err();
        assert!(e.is_missing_credentials(), "{e}");
        assert!(e.to_string().contains("--ssh-key=FILE"), "{e}");
    }
}
