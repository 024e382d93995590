//! The sandbox sshd (scripts/sshd-sandbox.sh) for the checks and monitoring tests: its
//! address and keys from `sshd-sandbox.sh env`, the `--ssh-*` flags for dbdyno, and a
//! lock: the test that stops sshd mid-run holds it exclusively, every other SSH test
//! holds it shared.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static SSHD: RwLock<()> = RwLock::new(());

pub fn shared() -> RwLockReadGuard<'static, ()> {
    SSHD.read().unwrap_or_else(|e| e.into_inner())
}

pub fn exclusive() -> RwLockWriteGuard<'static, ()> {
    SSHD.write().unwrap_or_else(|e| e.into_inner())
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the tests through scripts/test.sh, or `bash scripts/sshd-sandbox.sh start && eval \"$(bash scripts/sshd-sandbox.sh env)\"`")
    })
}

#[derive(Clone)]
pub struct Sshd {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub key: PathBuf,
    /// `ssh-ed25519 AAAA…`: the server's host key.
    pub host_pubkey: String,
    pub script: PathBuf,
}

impl Sshd {
    pub fn from_env() -> Sshd {
        Sshd {
            host: env("DBDYNO_TEST_SSH_HOST"),
            port: env("DBDYNO_TEST_SSH_PORT")
                .parse()
                .expect("DBDYNO_TEST_SSH_PORT is a port"),
            user: env("DBDYNO_TEST_SSH_USER"),
            key: env("DBDYNO_TEST_SSH_KEY").into(),
            host_pubkey: env("DBDYNO_TEST_SSH_HOST_PUBKEY"),
            script: env("DBDYNO_SSHD_SANDBOX").into(),
        }
    }

    /// `--ssh-host … --ssh-key …` with a known_hosts file of the test's own.
    pub fn args(&self, known_hosts: &Path) -> Vec<String> {
        vec![
            format!("--ssh-host={}", self.host),
            format!("--ssh-port={}", self.port),
            format!("--ssh-user={}", self.user),
            format!("--ssh-key={}", self.key.display()),
            format!("--known-hosts={}", known_hosts.display()),
        ]
    }

    /// The same sandbox, logged in to with a key of the test's own, made in `dir` and
    /// authorized on the sandbox; with its fingerprint (`SHA256:…`), which sshd's log
    /// names on each of its logins: a test counts its own logins among other tests'.
    pub fn with_own_key(&self, dir: &Path) -> (Sshd, String) {
        let key = dir.join("own_key");
        let made = std::process::Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", "dbdyno-test", "-f"])
            .arg(&key)
            .status()
            .expect("ssh-keygen runs");
        assert!(made.success(), "ssh-keygen failed");
        let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
        let authorized = self.state_dir().join("authorized_keys");
        // Appended in one write: other tests may append theirs at the same time.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&authorized)
            .unwrap_or_else(|e| panic!("{}: {e}", authorized.display()));
        std::io::Write::write_all(&mut file, public.as_bytes()).unwrap();
        let listed = std::process::Command::new("ssh-keygen")
            .arg("-lf")
            .arg(key.with_extension("pub"))
            .output()
            .expect("ssh-keygen -l runs");
        let fingerprint = String::from_utf8_lossy(&listed.stdout)
            .split_whitespace()
            .nth(1)
            .expect("ssh-keygen -l prints the fingerprint second")
            .to_string();
        (
            Sshd {
                key,
                ..self.clone()
            },
            fingerprint,
        )
    }

    /// Where the sandbox sshd keeps its configuration, keys and log (`DBDYNO_SSHD_DIR`
    /// from `sshd-sandbox.sh env`; the script's default without it).
    pub fn state_dir(&self) -> PathBuf {
        std::env::var_os("DBDYNO_SSHD_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.script.parent().unwrap().join("../.work/sshd"))
    }

    /// A known_hosts file in `dir` that trusts the sandbox's host key.
    pub fn trusted_known_hosts(&self, dir: &Path) -> PathBuf {
        let f = dir.join("known_hosts");
        std::fs::write(
            &f,
            format!("[{}]:{} {}\n", self.host, self.port, self.host_pubkey),
        )
        .unwrap();
        f
    }

    /// The host key's fingerprint as OpenSSH prints it.
    pub fn fingerprint(&self, dir: &Path) -> String {
        let f = dir.join("host.pub");
        std::fs::write(&f, format!("{}\n", self.host_pubkey)).unwrap();
        let out = Command::new("ssh-keygen")
            .arg("-lf")
            .arg(&f)
            .output()
            .expect("ssh-keygen");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .nth(1)
            .expect("ssh-keygen -lf prints 'bits fingerprint comment (type)'")
            .to_string()
    }

    /// `sshd-sandbox.sh ARGS`, asserting success.
    pub fn control(&self, args: &[&str]) {
        let out = Command::new("bash")
            .arg(&self.script)
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

/// Starts sshd again when dropped, so a failing test never leaves it down.
pub struct Restart<'a>(pub &'a Sshd);

impl Drop for Restart<'_> {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(&self.0.script)
            .arg("start")
            .env("DBDYNO_SSHD_PORT", self.0.port.to_string())
            .output();
    }
}
