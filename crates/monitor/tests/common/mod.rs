//! Shared helpers for the tests against the sandbox sshd (scripts/sshd-sandbox.sh).
//!
//! Every test calls [`sandbox`] first: it returns `None`, after printing why, only when
//! DBDYNO_TEST_SSH_HOST is unset (CI always sets it through `sshd-sandbox.sh env`).
#![allow(dead_code)]

use dbdyno_ssh::{HostKey, KnownHostsConfig, SshAuth, SshTarget};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub struct Sandbox {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub key: PathBuf,
    pub pass_key: PathBuf,
    pub passphrase: String,
    pub pw_user: Option<String>,
    pub password: Option<String>,
    pub host_key: HostKey,
    pub host_pubkey_line: String,
}

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} must be set with DBDYNO_TEST_SSH_HOST (eval \"$(scripts/sshd-sandbox.sh env)\")"))
}

/// The sandbox described by the environment. A test without it fails, saying how to
/// start it (`scripts/test.sh` always does): a skipped test would pass for nothing.
pub fn sandbox(test: &str) -> Sandbox {
    let Ok(host) = std::env::var("DBDYNO_TEST_SSH_HOST") else {
        panic!(
            "{test}: DBDYNO_TEST_SSH_HOST is unset; run `scripts/sshd-sandbox.sh start && eval \"$(scripts/sshd-sandbox.sh env)\"` first"
        );
    };
    let pubkey = var("DBDYNO_TEST_SSH_HOST_PUBKEY");
    let mut parts = pubkey.split_whitespace();
    let host_key = match (parts.next(), parts.next()) {
        (Some(t), Some(b)) => HostKey::from_openssh(t, b),
        _ => None,
    }
    .expect("DBDYNO_TEST_SSH_HOST_PUBKEY is 'type base64'");
    Sandbox {
        host,
        port: var("DBDYNO_TEST_SSH_PORT")
            .parse()
            .expect("DBDYNO_TEST_SSH_PORT is a port number"),
        user: var("DBDYNO_TEST_SSH_USER"),
        key: var("DBDYNO_TEST_SSH_KEY").into(),
        pass_key: var("DBDYNO_TEST_SSH_KEY_PASSPHRASE_FILE").into(),
        passphrase: var("DBDYNO_TEST_SSH_PASSPHRASE"),
        pw_user: std::env::var("DBDYNO_TEST_SSH_PW_USER").ok(),
        password: std::env::var("DBDYNO_TEST_SSH_PASSWORD").ok(),
        host_key,
        host_pubkey_line: pubkey,
    }
}

impl Sandbox {
    /// A known_hosts file in `dir` that already trusts the sandbox.
    pub fn trusted_known_hosts(&self, dir: &Path) -> PathBuf {
        let f = dir.join("known_hosts");
        std::fs::write(
            &f,
            format!(
                "{}\n",
                self.host_key.known_hosts_line(&self.host, self.port)
            ),
        )
        .expect("write known_hosts");
        f
    }

    pub fn target(&self, known_hosts: &Path, user: &str, auth: SshAuth) -> SshTarget {
        let mut t = SshTarget::new(
            &self.host,
            self.port,
            user,
            auth,
            KnownHostsConfig::new(known_hosts),
        );
        t.connect_timeout = Duration::from_secs(5);
        t
    }

    /// Key login as the sandbox's main user, host key already trusted.
    pub fn key_target(&self, dir: &Path) -> SshTarget {
        let kh = self.trusted_known_hosts(dir);
        self.target(
            &kh,
            &self.user,
            SshAuth::Key {
                path: self.key.clone(),
                passphrase: None,
            },
        )
    }

    /// Runs `sshd-sandbox.sh ARGS` for the sandbox's port.
    pub fn control(&self, args: &[&str]) {
        let script = std::env::var("DBDYNO_SSHD_SANDBOX")
            .map(PathBuf::from)
            .unwrap_or_else(|_| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/sshd-sandbox.sh")
            });
        let out = Command::new("bash")
            .arg(&script)
            .args(args)
            .env("DBDYNO_SSHD_PORT", self.port.to_string())
            .output()
            .expect("run sshd-sandbox.sh");
        assert!(
            out.status.success(),
            "sshd-sandbox.sh {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `ssh-keygen -lf` of a public key line: OpenSSH's own fingerprint, to compare with ours.
pub fn ssh_keygen_fingerprint(pub_line: &str, dir: &Path) -> String {
    let f = dir.join("host.pub");
    std::fs::write(&f, format!("{pub_line}\n")).expect("write pub");
    let out = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(&f)
        .output()
        .expect("run ssh-keygen");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.split_whitespace()
        .nth(1)
        .expect("ssh-keygen -lf prints 'bits fingerprint comment (type)'")
        .to_string()
}

/// A fresh ed25519 key pair in `dir` (optionally with a passphrase).
pub fn new_key(dir: &Path, name: &str, passphrase: &str) -> PathBuf {
    let path = dir.join(name);
    let ok = Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-C",
            "dbdyno-test",
            "-N",
            passphrase,
            "-f",
        ])
        .arg(&path)
        .status()
        .expect("run ssh-keygen")
        .success();
    assert!(ok, "ssh-keygen failed");
    path
}
