//! The sandbox sshd (scripts/sshd-sandbox.sh) for the checks and monitoring tests: its
//! address and keys from `sshd-sandbox.sh env`, the `--ssh-*` flags for dbdyno, and a
//! lock: the test that stops sshd mid-run holds it exclusively, every other SSH test
//! holds it shared. A test module whose tests count what runs on the host, or cut its
//! connections, starts a [`PrivateSshd`] instead and holds neither.

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
    /// Where it keeps its configuration, keys and log (`DBDYNO_SSHD_DIR` from
    /// `sshd-sandbox.sh env`; the script's default without it), and its port without
    /// SFTP: what `sshd-sandbox.sh` needs to find this sshd and no other.
    pub dir: PathBuf,
    pub nosftp_port: u16,
}

impl Sshd {
    pub fn from_env() -> Sshd {
        let script = PathBuf::from(env("DBDYNO_SSHD_SANDBOX"));
        let dir = std::env::var_os("DBDYNO_SSHD_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| script.parent().unwrap().join("../.work/sshd"));
        Sshd {
            host: env("DBDYNO_TEST_SSH_HOST"),
            port: env("DBDYNO_TEST_SSH_PORT")
                .parse()
                .expect("DBDYNO_TEST_SSH_PORT is a port"),
            user: env("DBDYNO_TEST_SSH_USER"),
            key: env("DBDYNO_TEST_SSH_KEY").into(),
            host_pubkey: env("DBDYNO_TEST_SSH_HOST_PUBKEY"),
            nosftp_port: env("DBDYNO_TEST_SSH_NOSFTP_PORT")
                .parse()
                .expect("DBDYNO_TEST_SSH_NOSFTP_PORT is a port"),
            script,
            dir,
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
        let authorized = self.dir.join("authorized_keys");
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

    /// `sshd-sandbox.sh ARGS` on this sshd.
    fn script(&self) -> Command {
        let mut c = Command::new("bash");
        c.arg(&self.script)
            .env("DBDYNO_SSHD_DIR", &self.dir)
            .env("DBDYNO_SSHD_PORT", self.port.to_string())
            .env("DBDYNO_SSHD_NOSFTP_PORT", self.nosftp_port.to_string());
        c
    }

    /// `sshd-sandbox.sh ARGS`, asserting success.
    pub fn control(&self, args: &[&str]) {
        self.control_with(args, &[]);
    }

    /// `sshd-sandbox.sh ARGS` with more variables, asserting success; its stdout.
    fn control_with(&self, args: &[&str], vars: &[(&str, String)]) -> String {
        let out = self
            .script()
            .args(args)
            .envs(vars.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("run sshd-sandbox.sh");
        assert!(
            out.status.success(),
            "sshd-sandbox.sh {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Starts sshd again when dropped, so a failing test never leaves it down.
pub struct Restart<'a>(pub &'a Sshd);

impl Drop for Restart<'_> {
    fn drop(&mut self) {
        let _ = self.0.script().arg("start").output();
    }
}

/// An sshd of the test's own: `sshd-sandbox.sh` in a scratch directory, on free ports,
/// stopped with its sessions when dropped. Its logins' `XDG_CACHE_HOME` is `cache` (the
/// agents' binary cache, `crates/remote`): what runs from there was started through this
/// sshd, so a test can count its agents and cut its sessions beside other SSH tests.
pub struct PrivateSshd {
    pub sshd: Sshd,
    _dir: tempfile::TempDir,
}

impl PrivateSshd {
    pub fn start(cache: &Path) -> PrivateSshd {
        let main = Sshd::from_env();
        let dir = tempfile::tempdir().expect("a scratch directory for sshd");
        let [port, nosftp_port] = free_ports();
        let sshd = Sshd {
            port,
            nosftp_port,
            dir: dir.path().to_path_buf(),
            ..main
        };
        let session_env = format!("XDG_CACHE_HOME={}", cache.display());
        sshd.control_with(&["start"], &[("DBDYNO_SSHD_SESSION_ENV", session_env)]);
        // Stopped by its drop from here on, whatever fails next.
        let mut private = PrivateSshd { sshd, _dir: dir };
        // Its own keys: the client key and the host key are made in its directory.
        let env = private.sshd.control_with(&["env"], &[]);
        let value = |name: &str| {
            env.lines()
                .find_map(|l| l.strip_prefix(&format!("export {name}=")))
                .map(|v| v.trim_matches('\'').to_string())
                .unwrap_or_else(|| panic!("sshd-sandbox.sh env prints no {name}: {env}"))
        };
        private.sshd.key = value("DBDYNO_TEST_SSH_KEY").into();
        private.sshd.host_pubkey = value("DBDYNO_TEST_SSH_HOST_PUBKEY");
        private
    }
}

impl Drop for PrivateSshd {
    fn drop(&mut self) {
        let _ = self.sshd.script().arg("stop").output();
    }
}

/// Two free loopback ports, told apart by holding both listeners at once.
fn free_ports() -> [u16; 2] {
    let listen = || std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    let (a, b) = (listen(), listen());
    [a, b].map(|l| l.local_addr().unwrap().port())
}
