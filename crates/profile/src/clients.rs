//! Load clients in a profile: the `[[clients]]` machines, the `plan.clients` choice of
//! which take part, and the list a run drives its load from. The profile only names
//! them and how to log in; reaching them and splitting the load is the run's business.

use crate::model::{ClientEntry, SshSection};
use crate::{Profile, SecretKind, SecretStore};

/// The word for this machine in `--clients` and `plan.clients`.
pub const LOCAL: &str = "local";

/// A load client's address, as written in `url`, `plan.clients` or `--clients`. The one
/// parser of client names: the run's clients (`dbdyno_clients::ClientSpec`) are these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientUrl {
    /// This machine.
    Local,
    /// Another machine over SSH; port and user are the SSH defaults when left out.
    Ssh {
        user: Option<String>,
        host: String,
        port: Option<u16>,
    },
}

/// Why a text names no load client; each message quotes the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientUrlError {
    #[error("`{0}` is no load client: give `local` or `ssh://[user@]host[:port]`")]
    Unknown(String),
    #[error("`{0}`: the user before `@` is empty")]
    EmptyUser(String),
    #[error("`{0}`: the host is missing")]
    NoHost(String),
    #[error("`{url}`: `{host}` is not a host name or address")]
    BadHost { url: String, host: String },
    #[error("`{0}`: an IPv6 address needs its closing `]`")]
    UnclosedBracket(String),
    #[error("`{url}`: the port `{port}` is not a number from 1 to 65535")]
    BadPort { url: String, port: String },
    #[error("no load client given")]
    Empty,
    #[error("`{0}` is named twice")]
    Twice(String),
}

impl ClientUrl {
    /// `local` or `ssh://[user@]host[:port]` (an IPv6 host in brackets: `ssh://[::1]:22`).
    pub fn parse(text: &str) -> Result<ClientUrl, ClientUrlError> {
        let text = text.trim();
        if text == LOCAL {
            return Ok(ClientUrl::Local);
        }
        let Some(rest) = text.strip_prefix("ssh://") else {
            return Err(ClientUrlError::Unknown(text.to_string()));
        };
        let rest = rest.trim_end_matches('/');
        let (user, hostport) = match rest.rsplit_once('@') {
            Some((u, h)) if !u.is_empty() => (Some(u.to_string()), h),
            Some(_) => return Err(ClientUrlError::EmptyUser(text.to_string())),
            None => (None, rest),
        };
        let (host, port) = split_host_port(text, hostport)?;
        if host.is_empty() {
            return Err(ClientUrlError::NoHost(text.to_string()));
        }
        if host.contains(['/', '?', '#', ' ']) {
            return Err(ClientUrlError::BadHost {
                url: text.to_string(),
                host: host.to_string(),
            });
        }
        Ok(ClientUrl::Ssh {
            user,
            host: host.to_string(),
            port,
        })
    }

    /// A comma-separated list (`--clients=local,ssh://h1`), each client once.
    pub fn parse_list(text: &str) -> Result<Vec<ClientUrl>, ClientUrlError> {
        let mut out: Vec<ClientUrl> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let url = ClientUrl::parse(part)?;
            if out.contains(&url) {
                return Err(ClientUrlError::Twice(url.to_string()));
            }
            out.push(url);
        }
        if out.is_empty() {
            return Err(ClientUrlError::Empty);
        }
        Ok(out)
    }

    pub fn is_local(&self) -> bool {
        matches!(self, ClientUrl::Local)
    }
}

/// The canonical spelling, which [`ClientUrl::parse`] reads back to the same value.
impl std::fmt::Display for ClientUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientUrl::Local => f.write_str(LOCAL),
            ClientUrl::Ssh { user, host, port } => {
                f.write_str("ssh://")?;
                if let Some(u) = user {
                    write!(f, "{u}@")?;
                }
                if host.contains(':') {
                    write!(f, "[{host}]")?;
                } else {
                    f.write_str(host)?;
                }
                if let Some(p) = port {
                    write!(f, ":{p}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::str::FromStr for ClientUrl {
    type Err = ClientUrlError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClientUrl::parse(s)
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port` of `url`.
fn split_host_port<'a>(url: &str, s: &'a str) -> Result<(&'a str, Option<u16>), ClientUrlError> {
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, after) = rest
            .split_once(']')
            .ok_or_else(|| ClientUrlError::UnclosedBracket(url.to_string()))?;
        (h, after.strip_prefix(':'))
    } else {
        match s.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                return Err(ClientUrlError::BadPort {
                    url: url.to_string(),
                    port: p.to_string(),
                })
            }
        },
    };
    Ok((host, port))
}

/// One load client of a run, as the profile describes it.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadClient {
    Local,
    Ssh {
        /// As the user wrote it: names the client in results and messages.
        url: String,
        /// The complete login: host, port and user from the URL, the other options
        /// from its `[[clients]]` entry, else from the server's `[ssh]` section.
        ssh: SshSection,
    },
}

impl LoadClient {
    /// The name the client goes by in results: `local` or its URL.
    pub fn name(&self) -> &str {
        match self {
            LoadClient::Local => LOCAL,
            LoadClient::Ssh { url, .. } => url,
        }
    }
}

/// The keyring "profile" under which a load client's SSH password or key passphrase is
/// stored: accounts `<profile>.client.<host>/ssh-password` and `.../ssh-passphrase`, so
/// that two client machines of one environment keep separate secrets. Characters a
/// keyring name does not take (`:` of an IPv6 address) become `_`.
pub fn client_secret_scope(profile: &str, host: &str) -> String {
    let host: String = host
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{profile}.client.{host}")
}

/// The keyring "profile" to read load client `host`'s SSH secrets from: its own
/// ([`client_secret_scope`]) when one of them is stored there, else the environment's,
/// so that clients logging in like the server need no secret of their own.
pub fn client_keyring_name(profile: &str, host: &str, store: &SecretStore) -> String {
    let own = client_secret_scope(profile, host);
    let has_own = [SecretKind::SshPassword, SecretKind::SshPassphrase]
        .into_iter()
        .any(|k| store.get(&own, k).ok().flatten().is_some());
    if has_own {
        own
    } else {
        profile.to_string()
    }
}

impl Profile {
    /// The load clients a run of this profile drives its load from, in order: the
    /// `plan.clients` choice, else this machine followed by every `[[clients]]` entry.
    /// Exactly `[Local]` for a profile without clients. Call on a valid profile: a URL
    /// that does not parse is left out ([`crate::validate`] names it).
    pub fn load_clients(&self) -> Vec<LoadClient> {
        let chosen: Vec<String> = match &self.plan.clients {
            Some(list) => list.clone(),
            None => std::iter::once(LOCAL.to_string())
                .chain(self.clients.iter().map(|c| c.url.clone()))
                .collect(),
        };
        let mut out: Vec<LoadClient> = Vec::new();
        for url in chosen {
            let client = match ClientUrl::parse(&url) {
                Ok(ClientUrl::Local) => LoadClient::Local,
                Ok(ClientUrl::Ssh { user, host, port }) => LoadClient::Ssh {
                    ssh: self.client_login(&url, user, host, port),
                    url: url.trim().to_string(),
                },
                Err(_) => continue,
            };
            if !out.contains(&client) {
                out.push(client);
            }
        }
        out
    }

    /// The SSH login of the client at `url`: its entry's options, else the server's.
    fn client_login(
        &self,
        url: &str,
        user: Option<String>,
        host: String,
        port: Option<u16>,
    ) -> SshSection {
        let entry = self.client_entry(url).map(|e| &e.ssh);
        let server = self.ssh.as_ref();
        let pick =
            |f: fn(&SshSection) -> Option<String>| entry.and_then(f).or_else(|| server.and_then(f));
        SshSection {
            host: Some(host),
            port,
            user: user.or_else(|| server.and_then(|s| s.user.clone())),
            auth: entry
                .and_then(|e| e.auth)
                .or_else(|| server.and_then(|s| s.auth)),
            key_path: pick(|s| s.key_path.clone()),
            // A host key is one machine's: the server's never stands for a client's.
            host_key_fingerprint: entry.and_then(|e| e.host_key_fingerprint.clone()),
            // A client behind the same bastion as the server, unless its entry says otherwise.
            jump: pick(|s| s.jump.clone()),
            // The same user's OpenSSH config, unless the entry names another.
            config: pick(|s| s.config.clone()),
        }
    }

    /// The `[[clients]]` entry whose URL is `url` (compared as parsed, so
    /// `ssh://h:22/` and `ssh://h:22` are one).
    pub fn client_entry(&self, url: &str) -> Option<&ClientEntry> {
        let wanted = ClientUrl::parse(url).ok()?;
        self.clients
            .iter()
            .find(|c| ClientUrl::parse(&c.url).ok().as_ref() == Some(&wanted))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SshAuth;

    #[test]
    fn urls_parse_with_and_without_user_and_port() {
        assert_eq!(ClientUrl::parse("local"), Ok(ClientUrl::Local));
        assert_eq!(
            ClientUrl::parse("ssh://bench@10.0.0.61:2222"),
            Ok(ClientUrl::Ssh {
                user: Some("bench".into()),
                host: "10.0.0.61".into(),
                port: Some(2222)
            })
        );
        assert_eq!(
            ClientUrl::parse("ssh://client2"),
            Ok(ClientUrl::Ssh {
                user: None,
                host: "client2".into(),
                port: None
            })
        );
        assert_eq!(
            ClientUrl::parse("ssh://[::1]:22"),
            Ok(ClientUrl::Ssh {
                user: None,
                host: "::1".into(),
                port: Some(22)
            })
        );
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        let message = |text: &str| ClientUrl::parse(text).unwrap_err().to_string();
        let e = message("client2");
        assert!(e.contains("ssh://[user@]host[:port]"), "{e}");
        let e = message("ssh://h:0");
        assert!(e.contains("port `0`"), "{e}");
        let e = message("ssh://h:ssh");
        assert!(e.contains("port `ssh`"), "{e}");
        let e = message("ssh://@h");
        assert!(e.contains("user"), "{e}");
        let e = message("ssh://");
        assert!(e.contains("host is missing"), "{e}");
        assert!(ClientUrl::parse("ssh://[::1").is_err());
    }

    fn ssh(user: Option<&str>, host: &str, port: Option<u16>) -> ClientUrl {
        ClientUrl::Ssh {
            user: user.map(String::from),
            host: host.into(),
            port,
        }
    }

    #[test]
    fn every_form_parses_and_prints_back() {
        for (text, want) in [
            ("local", ClientUrl::Local),
            ("ssh://h1", ssh(None, "h1", None)),
            ("ssh://bob@h1", ssh(Some("bob"), "h1", None)),
            (
                "ssh://bob@10.0.0.2:2222",
                ssh(Some("bob"), "10.0.0.2", Some(2222)),
            ),
            ("ssh://[::1]:22", ssh(None, "::1", Some(22))),
        ] {
            let got = ClientUrl::parse(text).unwrap();
            assert_eq!(got, want, "{text}");
            assert_eq!(got.to_string(), text);
            assert_eq!(text.parse::<ClientUrl>(), Ok(got));
        }
    }

    #[test]
    fn what_is_not_a_client_is_refused_with_its_reason() {
        assert!(matches!(
            ClientUrl::parse("h1"),
            Err(ClientUrlError::Unknown(_))
        ));
        assert!(matches!(
            ClientUrl::parse("ssh://bob@"),
            Err(ClientUrlError::NoHost(_))
        ));
        assert!(matches!(
            ClientUrl::parse("ssh://h:0"),
            Err(ClientUrlError::BadPort { .. })
        ));
        assert!(matches!(
            ClientUrl::parse("ssh://h:ssh"),
            Err(ClientUrlError::BadPort { .. })
        ));
        assert!(matches!(
            ClientUrl::parse("ssh://h/x"),
            Err(ClientUrlError::BadHost { .. })
        ));
        assert_eq!(ClientUrl::parse_list(" , "), Err(ClientUrlError::Empty));
        assert!(matches!(
            ClientUrl::parse_list("local,local"),
            Err(ClientUrlError::Twice(_))
        ));
        assert_eq!(
            ClientUrl::parse_list("local, ssh://h").unwrap(),
            vec![ClientUrl::Local, ssh(None, "h", None)]
        );
    }

    fn profile_with_two_clients() -> Profile {
        let mut p = Profile::named("idc");
        p.ssh = Some(SshSection {
            host: Some("db".into()),
            user: Some("root".into()),
            auth: Some(SshAuth::Key),
            key_path: Some("~/.ssh/server".into()),
            host_key_fingerprint: Some("SHA256:server".into()),
            ..Default::default()
        });
        p.clients = vec![
            ClientEntry {
                url: "ssh://bench@c1:2222".into(),
                ssh: SshSection {
                    auth: Some(SshAuth::Agent),
                    host_key_fingerprint: Some("SHA256:c1".into()),
                    ..Default::default()
                },
            },
            ClientEntry {
                url: "ssh://c2".into(),
                ssh: SshSection::default(),
            },
        ];
        p
    }

    #[test]
    fn no_clients_is_this_machine_alone() {
        assert_eq!(Profile::named("x").load_clients(), [LoadClient::Local]);
    }

    #[test]
    fn entries_take_part_after_this_machine_with_their_own_login_first() {
        let clients = profile_with_two_clients().load_clients();
        let names: Vec<&str> = clients.iter().map(LoadClient::name).collect();
        assert_eq!(names, ["local", "ssh://bench@c1:2222", "ssh://c2"]);
        let LoadClient::Ssh { ssh: c1, .. } = &clients[1] else {
            panic!("{clients:?}")
        };
        assert_eq!(c1.host.as_deref(), Some("c1"));
        assert_eq!(c1.port, Some(2222));
        assert_eq!(c1.user.as_deref(), Some("bench"));
        assert_eq!(c1.auth, Some(SshAuth::Agent));
        assert_eq!(c1.host_key_fingerprint.as_deref(), Some("SHA256:c1"));
        let LoadClient::Ssh { ssh: c2, .. } = &clients[2] else {
            panic!("{clients:?}")
        };
        assert_eq!(c2.user.as_deref(), Some("root"), "the server's user");
        assert_eq!(c2.auth, Some(SshAuth::Key), "the server's auth");
        assert_eq!(c2.key_path.as_deref(), Some("~/.ssh/server"));
        assert_eq!(c2.host_key_fingerprint, None, "never the server's host key");
    }

    #[test]
    fn plan_clients_chooses_who_takes_part_and_may_leave_this_machine_out() {
        let mut p = profile_with_two_clients();
        p.plan.clients = Some(vec!["ssh://c2".into(), "ssh://bench@c1:2222/".into()]);
        let clients = p.load_clients();
        let names: Vec<&str> = clients.iter().map(LoadClient::name).collect();
        assert_eq!(names, ["ssh://c2", "ssh://bench@c1:2222/"]);
        let LoadClient::Ssh { ssh, .. } = &clients[1] else {
            panic!()
        };
        assert_eq!(ssh.auth, Some(SshAuth::Agent), "found its entry");
    }

    const TWO_CLIENTS: &str = r#"schema_version = 1
name = "idc"

[ssh]
host = "db"
user = "root"
auth = "agent"

[plan]
clients = ["local", "ssh://bench@c1:2222"]

[[clients]]
url = "ssh://bench@c1:2222"
auth = "key"
key_path = "~/.ssh/id_ed25519"
host_key_fingerprint = "SHA256:abc"

[[clients]]
url = "ssh://c2"
"#;

    #[test]
    fn a_profile_file_with_clients_loads() {
        let p = crate::load_str(TWO_CLIENTS, "idc.toml", "idc")
            .unwrap()
            .profile;
        assert_eq!(p.clients.len(), 2);
        assert_eq!(p.clients[0].url, "ssh://bench@c1:2222");
        assert_eq!(p.clients[0].ssh.auth, Some(SshAuth::Key));
        assert_eq!(
            p.clients[0].ssh.key_path.as_deref(),
            Some("~/.ssh/id_ed25519")
        );
        assert_eq!(p.clients[1].ssh, SshSection::default());
        let names: Vec<String> = p.load_clients().iter().map(|c| c.name().into()).collect();
        assert_eq!(
            names,
            ["local", "ssh://bench@c1:2222"],
            "plan.clients chooses"
        );
    }

    #[test]
    fn clients_render_and_load_back_equal() {
        let p = crate::load_str(TWO_CLIENTS, "idc.toml", "idc")
            .unwrap()
            .profile;
        let text = crate::render::to_toml(&p, &Default::default());
        assert!(
            text.contains("\n[[clients]]\nurl = \"ssh://c2\"\n"),
            "{text}"
        );
        let back = crate::load_str(&text, "idc.toml", "idc").unwrap().profile;
        assert_eq!(back, p);
    }

    fn problems_of(text: &str) -> Vec<String> {
        match crate::load_str(text, "bad.toml", "bad") {
            Ok(_) => Vec::new(),
            Err(crate::ProfileError::Invalid { problems, .. }) => problems
                .iter()
                .map(|p| format!("{}: {}: {}", p.line.unwrap_or(0), p.field, p.message))
                .collect(),
            Err(e) => vec![e.to_string()],
        }
    }

    #[test]
    fn bad_client_entries_are_named_with_their_line() {
        let text = r#"schema_version = 1
name = "idc"

[[clients]]
url = "ssh://c1"
auth = "kerberos"

[[clients]]
url = "c2"
key_pat = "~/.ssh/id"
password = "hunter2"

[[clients]]
url = "ssh://c3"
host = "c3"
"#;
        let got = problems_of(text);
        let has = |line: usize, field: &str, words: &str| {
            got.iter()
                .any(|p| p.starts_with(&format!("{line}: {field}: ")) && p.contains(words))
        };
        assert!(
            has(6, "clients[0].auth", "unknown value `kerberos`"),
            "{got:#?}"
        );
        assert!(
            has(9, "clients[1].url", "ssh://[user@]host[:port]"),
            "{got:#?}"
        );
        assert!(
            has(10, "clients[1].key_pat", "did you mean `key_path`"),
            "{got:#?}"
        );
        assert!(
            has(11, "clients[1].password", "secrets never go"),
            "{got:#?}"
        );
        assert!(
            has(15, "clients[2].host", "give host, port and user in url"),
            "{got:#?}"
        );
        assert!(
            got.iter().all(|p| !p.contains("hunter2")),
            "a secret is never quoted: {got:#?}"
        );
    }

    #[test]
    fn clients_must_be_tables() {
        let got = problems_of("schema_version = 1\nname = \"idc\"\nclients = \"ssh://c1\"\n");
        assert_eq!(
            got,
            ["3: clients: give each load client as a [[clients]] table"]
        );
    }

    #[test]
    fn a_client_reads_its_own_secrets_else_the_environments() {
        let store =
            SecretStore::with_service(format!("dbdyno-test-clients-{}", std::process::id()));
        assert_eq!(client_keyring_name("idc", "c1", &store), "idc");
        let scope = client_secret_scope("idc", "c1");
        store
            .set(
                &scope,
                SecretKind::SshPassword,
                &crate::secrets::Secret::new("pw"),
            )
            .unwrap();
        assert_eq!(client_keyring_name("idc", "c1", &store), scope);
        assert_eq!(client_keyring_name("idc", "c2", &store), "idc");
        store.delete(&scope, SecretKind::SshPassword).unwrap();
    }

    #[test]
    fn secrets_of_two_clients_are_kept_apart() {
        assert_ne!(
            client_secret_scope("idc", "c1"),
            client_secret_scope("idc", "c2")
        );
        assert_eq!(client_secret_scope("idc", "c1"), "idc.client.c1");
        assert_eq!(client_secret_scope("idc", "::1"), "idc.client.__1");
        assert!(crate::validate::check_name(&client_secret_scope("idc", "::1")).is_ok());
    }
}
