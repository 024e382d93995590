//! The user's OpenSSH client config: what its `Host` entries say about a name, for the
//! fields a profile leaves out. DBAs keep there how their hosts are reached (an alias,
//! the real address, the account, the key, the bastion), and `ssh db1` works for them;
//! DB Dyno reaching `db1` the same way is what they expect.
//!
//! Read: `HostName` (with `%h`), `User`, `Port`, `IdentityFile` and `ProxyJump`, first
//! value wins as in ssh_config(5). The profile's own fields and the command line win
//! over the config, as `ssh`'s options do. Parsed by the `ssh2-config` crate (its
//! `Host` pattern matching, `Match`-less includes and `~` expansion are OpenSSH's);
//! options it does not know are ignored, as they do not change where we connect.
//!
//! Non-goals: `Match` blocks, `ProxyCommand`, `HostKeyAlias`, the system-wide
//! `/etc/ssh/ssh_config`, and a jump host's own `ProxyJump` (each hop is reached
//! through the one before, as the profile lists them).

use std::io::BufReader;
use std::path::{Path, PathBuf};

use ssh2_config::{ParseRule, SshConfig};

use super::ResolveError;

/// A parsed config, or none (no file, or `config = "none"`).
pub(super) struct UserSshConfig {
    parsed: Option<SshConfig>,
}

/// What the config says about one name; `None` and empty are "the config is silent".
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct HostConfig {
    pub host_name: Option<String>,
    pub user: Option<String>,
    pub port: Option<u16>,
    /// The first `IdentityFile` that exists (ssh skips the missing ones too).
    pub identity_file: Option<PathBuf>,
    /// `ProxyJump` as the profile writes it: comma-separated, or "none".
    pub proxy_jump: Option<String>,
}

impl UserSshConfig {
    /// The profile's `[ssh] config`: unset reads `~/.ssh/config` when there is one; a
    /// path must exist; "none" reads nothing.
    pub fn load(setting: Option<&str>) -> Result<UserSshConfig, ResolveError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let path = match setting.map(str::trim) {
            Some("none") => return Ok(UserSshConfig { parsed: None }),
            Some(p) => super::expand_home(p),
            None => match &home {
                Some(h) if h.join(".ssh/config").is_file() => h.join(".ssh/config"),
                _ => return Ok(UserSshConfig { parsed: None }),
            },
        };
        let bad = |why: String| ResolveError::SshConfig {
            path: path.clone(),
            why,
        };
        let file = std::fs::File::open(&path).map_err(|e| bad(e.to_string()))?;
        let mut config = SshConfig::default();
        if let Some(h) = home {
            config = config.home_dir(h);
        }
        let parsed = config
            .parse(
                &mut BufReader::new(file),
                ParseRule::ALLOW_UNKNOWN_FIELDS | ParseRule::ALLOW_UNSUPPORTED_FIELDS,
            )
            .map_err(|e| bad(e.to_string()))?;
        Ok(UserSshConfig {
            parsed: Some(parsed),
        })
    }

    /// What the config says about `name` (an alias or an address).
    pub fn host(&self, name: &str) -> HostConfig {
        let Some(config) = &self.parsed else {
            return HostConfig::default();
        };
        let p = config.query(name);
        HostConfig {
            host_name: p.host_name.map(|h| expand_tokens(&h, name)),
            user: p.user,
            port: p.port,
            identity_file: p
                .identity_file
                .unwrap_or_default()
                .into_iter()
                .find(|f| Path::new(f).is_file()),
            proxy_jump: p
                .proxy_jump
                .filter(|hops| !hops.is_empty())
                .map(|hops| hops.join(",")),
        }
    }
}

/// `HostName`'s tokens: `%h` is the name asked for, `%%` a percent sign.
fn expand_tokens(value: &str, name: &str) -> String {
    value
        .replace("%%", "\u{0}")
        .replace("%h", name)
        .replace('\u{0}', "%")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> (tempfile::TempDir, UserSshConfig) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("id_db"), "key").unwrap();
        let text = text.replace("$DIR", &dir.path().display().to_string());
        let path = dir.path().join("config");
        std::fs::write(&path, text).unwrap();
        let c = UserSshConfig::load(Some(path.to_str().unwrap())).unwrap();
        (dir, c)
    }

    #[test]
    fn a_host_entry_gives_its_address_account_port_key_and_bastion() {
        let (dir, c) = config(
            "# how the DBA reaches the database hosts\n\
             Host db1 db1.prod\n  HostName 10.0.0.50\n  User dba\n  Port 2222\n\
             \x20 IdentityFile $DIR/missing\n  IdentityFile $DIR/id_db\n  ProxyJump ops@bastion:22,inner\n\
             \x20 SomeFutureOption yes\n\
             Host *.internal\n  HostName %h.example.com\n\
             Host *\n  User fallback\n  Port 2200\n",
        );
        assert_eq!(
            c.host("db1"),
            HostConfig {
                host_name: Some("10.0.0.50".into()),
                user: Some("dba".into()),
                port: Some(2222),
                identity_file: Some(dir.path().join("id_db")),
                proxy_jump: Some("ops@bastion:22,inner".into()),
            },
            "first value wins; a missing IdentityFile is skipped"
        );
        assert_eq!(
            c.host("cache.internal"),
            HostConfig {
                host_name: Some("cache.internal.example.com".into()),
                user: Some("fallback".into()),
                port: Some(2200),
                ..HostConfig::default()
            },
            "%h is the name asked for; `Host *` fills the rest"
        );
    }

    #[test]
    fn none_reads_nothing_and_a_named_file_must_exist() {
        let none = UserSshConfig::load(Some("none")).unwrap();
        assert_eq!(none.host("db1"), HostConfig::default());
        let missing = UserSshConfig::load(Some("/nonexistent/ssh_config"))
            .err()
            .unwrap()
            .to_string();
        assert!(
            missing.contains("/nonexistent/ssh_config") && missing.contains("--ssh-config=none"),
            "{missing}"
        );
    }

    #[test]
    fn a_config_that_does_not_parse_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(&path, "Host db1\n  Port eleven\n").unwrap();
        let e = UserSshConfig::load(Some(path.to_str().unwrap()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(&path.display().to_string()), "{e}");
    }
}
