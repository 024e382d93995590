//! From `--ssh-*` options to the monitor crate's `SshTarget`: credentials, the known_hosts
//! file, and what to do with a host key seen for the first time (accept when asked or
//! when the profile names it, ask on a terminal, otherwise refuse with the fingerprint).
//!
//! `run`, `ladder`, `check` and `monitor` get host, port, user, auth, key path and the
//! expected fingerprint from their profile options (`args_history::HistoryOpts`, so the
//! option names are the same everywhere); the login details common to all are in
//! [`crate::args::SshArgs`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use dbdyno_monitor::{KnownHostsConfig, SshAuth, SshError, SshTarget};

use crate::args::SshArgs;
use crate::args_history::HistoryOpts;

/// Marks an option given without a value: ask on the terminal.
const PROMPT: &str = "\u{0}prompt";

/// Where the server is and how the profile says to log in.
#[derive(Debug, Clone, Default)]
pub struct SshSpec {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub user: Option<String>,
    /// agent, key or password (the profile's `[ssh] auth`).
    pub auth: Option<String>,
    pub key_path: Option<String>,
    /// The host key the profile accepted (SHA256:…).
    pub host_key_fingerprint: Option<String>,
    /// The data directory (known_hosts lives there by default).
    pub data_dir: Option<PathBuf>,
    /// The profile's data disk (`--data-disk`), used when `--device` is not given.
    pub data_disk: Option<String>,
    /// The profile's SSH password and key passphrase from the keyring (never
    /// serialized, never put in the process environment).
    pub password: Option<String>,
    pub passphrase: Option<String>,
}

impl SshSpec {
    pub fn from_history(h: &HistoryOpts) -> SshSpec {
        SshSpec {
            host: h.ssh_host.clone(),
            port: h.ssh_port,
            user: h.ssh_user.clone(),
            auth: h.ssh_auth.clone(),
            key_path: h.ssh_key_path.clone(),
            host_key_fingerprint: h.ssh_host_key_fingerprint.clone(),
            data_dir: h.data_dir.clone(),
            data_disk: h.data_disk.clone(),
            ..SshSpec::default()
        }
    }
}

impl SshSpec {
    /// `--device`, else the profile's data disk: the devices to sample instead of the resolver's.
    pub fn devices(&self, ssh: &SshArgs) -> Vec<String> {
        if !ssh.device.is_empty() {
            return ssh.device.clone();
        }
        self.data_disk
            .iter()
            .flat_map(|d| d.split(','))
            .map(|d| d.trim().trim_start_matches("/dev/").to_string())
            .filter(|d| !d.is_empty())
            .collect()
    }
}

/// DB Dyno's own known_hosts: `--known-hosts`, else `known_hosts` in the data directory.
pub fn known_hosts_file(ssh: &SshArgs, data_dir: Option<&Path>) -> Result<PathBuf> {
    if let Some(f) = &ssh.known_hosts {
        return Ok(f.clone());
    }
    let dir = dbdyno_history::paths::resolve_data_dir(data_dir)
        .context("finding DB Dyno's data directory for known_hosts")?;
    Ok(dir.join("known_hosts"))
}

fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(p),
    }
}

/// `--ssh-password`: its value, or a prompt when given without one.
fn password_flag(ssh: &SshArgs, user: &str, host: &str) -> Result<Option<String>> {
    match ssh.ssh_password.as_deref() {
        Some(PROMPT) => Ok(Some(
            rpassword::prompt_password(format!("SSH password for {user}@{host}: "))
                .context("reading the SSH password from the terminal")?,
        )),
        Some(p) => Ok(Some(p.to_string())),
        None => Ok(None),
    }
}

/// A password not given on the command line: DBDYNO_SSH_PASSWORD, else the keyring's.
fn password_ambient(spec: &SshSpec) -> Option<String> {
    std::env::var("DBDYNO_SSH_PASSWORD")
        .ok()
        .or_else(|| spec.password.clone())
}

/// True when the private key file is protected by a passphrase: an OpenSSH key whose
/// cipher is not "none", or a PEM key with an ENCRYPTED header.
fn key_is_encrypted(path: &Path) -> bool {
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

/// The key's passphrase: the keyring's or DBDYNO_SSH_PASSPHRASE, else asked on the
/// terminal (no echo) when the key is protected, else none (the login then says so).
fn passphrase(spec: &SshSpec, path: &Path) -> Result<Option<String>> {
    if let Some(p) = std::env::var("DBDYNO_SSH_PASSPHRASE")
        .ok()
        .or_else(|| spec.passphrase.clone())
    {
        return Ok(Some(p));
    }
    if key_is_encrypted(path) && std::io::stdin().is_terminal() {
        return Ok(Some(
            rpassword::prompt_password(format!("Passphrase for key {}: ", path.display()))
                .context("reading the SSH key passphrase from the terminal")?,
        ));
    }
    Ok(None)
}

/// The credentials: the profile's `auth` when set; else the command line's choice
/// (--ssh-agent, --ssh-password, --ssh-key: clap lets only one through); else the
/// profile's key; else a password from DBDYNO_SSH_PASSWORD or the keyring; else an
/// agent when one runs; else ~/.ssh's default keys. Options given on the command line
/// always win over environment variables.
fn auth(spec: &SshSpec, ssh: &SshArgs, user: &str, host: &str) -> Result<SshAuth> {
    let key_auth = |path: PathBuf| -> Result<SshAuth> {
        let passphrase = passphrase(spec, &path)?;
        Ok(SshAuth::Key { path, passphrase })
    };
    let profile_key = || spec.key_path.as_deref().map(expand_home);
    match spec.auth.as_deref() {
        Some("agent") => return Ok(SshAuth::Agent),
        Some("password") => {
            let pw = match password_flag(ssh, user, host)? {
                Some(p) => Some(p),
                None => password_ambient(spec),
            };
            return pw.map(SshAuth::Password).ok_or_else(|| {
                anyhow!("the profile logs in to {host} by password: give --ssh-password or DBDYNO_SSH_PASSWORD, or store it in the keyring")
            });
        }
        Some("key") => {
            return match ssh.ssh_key.clone().or_else(profile_key) {
                Some(k) => key_auth(k),
                None => Err(anyhow!(
                    "the profile logs in to {host} by key: give --ssh-key=FILE"
                )),
            }
        }
        Some(other) => bail!("--ssh-auth={other}: use agent, key or password"),
        None => {}
    }
    if ssh.ssh_agent {
        return Ok(SshAuth::Agent);
    }
    if let Some(p) = password_flag(ssh, user, host)? {
        return Ok(SshAuth::Password(p));
    }
    if let Some(k) = ssh.ssh_key.clone().or_else(profile_key) {
        return key_auth(k);
    }
    if let Some(p) = password_ambient(spec) {
        return Ok(SshAuth::Password(p));
    }
    if std::env::var_os("SSH_AUTH_SOCK").is_some() {
        return Ok(SshAuth::Agent);
    }
    for name in ["id_ed25519", "id_ecdsa", "id_rsa"] {
        let p = expand_home(&format!("~/.ssh/{name}"));
        if p.exists() {
            return key_auth(p);
        }
    }
    bail!(
        "no SSH credentials for {user}@{host}: give --ssh-key=FILE, --ssh-agent or --ssh-password"
    )
}

/// The target, or `None` when no SSH host is given.
pub fn build_target(spec: &SshSpec, ssh: &SshArgs) -> Result<Option<SshTarget>> {
    let Some(host) = spec.host.clone().filter(|h| !h.trim().is_empty()) else {
        return Ok(None);
    };
    let user = spec
        .user
        .clone()
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "root".into());
    let auth = auth(spec, ssh, &user, &host)?;
    let mut known = KnownHostsConfig::new(known_hosts_file(ssh, spec.data_dir.as_deref())?);
    // As OpenSSH users expect, keys they already trust in ~/.ssh/known_hosts count
    // too (read only; accepted keys go to DB Dyno's file). A known_hosts file named
    // on purpose (--known-hosts, DBDYNO_KNOWN_HOSTS) is the only authority.
    if ssh.known_hosts.is_none() {
        known = known.with_user_known_hosts();
    }
    let mut t = SshTarget::new(host, spec.port.unwrap_or(22), user, auth, known);
    t.accept_new_host_key = ssh.accept_new_host_key;
    t.pinned_fingerprint = spec.host_key_fingerprint.clone();
    Ok(Some(t))
}

/// Connects once before anything runs, so that host key and login problems stop the
/// command before the benchmark starts; the open session is returned for the sampler
/// (one SSH login less). A first-seen key is stored when the target is pinned to it (the
/// profile's fingerprint: the monitor compares the pin before it looks the key up, so a
/// key that reaches this point matches it) or a person at the terminal says yes;
/// otherwise the error (with the fingerprint and how to accept it) is returned.
pub fn connect_trusted(target: &SshTarget) -> Result<dbdyno_monitor::SshConnection> {
    match dbdyno_monitor::ssh::connect(target) {
        Ok(c) => Ok(c),
        Err(SshError::UnknownHostKey(u)) => {
            let seen = u.key.fingerprint_sha256();
            if target.pinned_fingerprint.is_some() {
                u.accept()?;
                eprintln!(
                    "SSH: stored {}'s host key {seen} (the profile's fingerprint) in {}",
                    u.host,
                    u.known_hosts_file.display()
                );
                return connect_trusted(target);
            }
            if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
                eprint!(
                    "The SSH host key of {}:{} is not known.\n  {} key fingerprint {seen}\nTrust it and store it in {}? [y/N] ",
                    u.host,
                    u.port,
                    u.key.key_type,
                    u.known_hosts_file.display()
                );
                let _ = std::io::stderr().flush();
                let mut answer = String::new();
                std::io::stdin()
                    .read_line(&mut answer)
                    .context("reading the answer")?;
                if matches!(answer.trim(), "y" | "Y" | "yes") {
                    u.accept()?;
                    return connect_trusted(target);
                }
                bail!("host key not trusted: nothing was run");
            }
            Err(SshError::UnknownHostKey(u).into())
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_keys_are_recognised() {
        let dir = std::env::temp_dir().join(format!("dbdyno-keytest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, args, protected) in [
            ("plain", &["-t", "ed25519", "-N", ""][..], false),
            ("locked", &["-t", "ed25519", "-N", "pass phrase"][..], true),
            (
                "pem",
                &["-t", "rsa", "-b", "1024", "-m", "PEM", "-N", "five+ chars"][..],
                true,
            ),
        ] {
            let path = dir.join(name);
            let _ = std::fs::remove_file(&path);
            let ok = std::process::Command::new("ssh-keygen")
                .args(["-q", "-f"])
                .arg(&path)
                .args(args)
                .status()
                .expect("ssh-keygen (openssh-client) is installed");
            assert!(ok.success());
            assert_eq!(key_is_encrypted(&path), protected, "{name}");
        }
        assert!(!key_is_encrypted(&dir.join("missing")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn no_host_means_no_target() {
        assert!(build_target(&SshSpec::default(), &SshArgs::default())
            .unwrap()
            .is_none());
    }

    #[test]
    fn credentials_follow_the_options() {
        let spec = SshSpec {
            host: Some("db1".into()),
            user: Some("root".into()),
            ..Default::default()
        };
        let ssh = SshArgs {
            ssh_key: Some("/k".into()),
            known_hosts: Some("/tmp/kh".into()),
            ..Default::default()
        };
        let t = build_target(&spec, &ssh).unwrap().unwrap();
        assert!(matches!(t.auth, SshAuth::Key { ref path, .. } if path == Path::new("/k")));
        assert_eq!((t.port, t.user.as_str()), (22, "root"));
        assert_eq!(t.known_hosts.app_file, Path::new("/tmp/kh"));
        assert_eq!(
            t.known_hosts.user_file, None,
            "--known-hosts is the only file"
        );
        let agent = SshArgs {
            ssh_agent: true,
            ..ssh.clone()
        };
        assert!(matches!(
            build_target(&spec, &agent).unwrap().unwrap().auth,
            SshAuth::Agent
        ));
        let by_profile = SshSpec {
            auth: Some("password".into()),
            ..spec.clone()
        };
        let pw = SshArgs {
            ssh_password: Some("secret".into()),
            ..ssh.clone()
        };
        assert!(matches!(
            build_target(&by_profile, &pw).unwrap().unwrap().auth,
            SshAuth::Password(_)
        ));
        let bad = SshSpec {
            auth: Some("kerberos".into()),
            ..spec
        };
        assert!(build_target(&bad, &ssh)
            .unwrap_err()
            .to_string()
            .contains("agent, key or password"));
    }
}
