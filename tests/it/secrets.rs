//! Secrets of a profile against the real keyring (keyutils on headless Linux), sshd and
//! MariaDB: found under the profile's own name when `--env` renames the run, handed to
//! the SSH login without the process environment, and a key passphrase asked for on a
//! terminal.

use std::io::Write;
use std::process::{Command, Stdio};

use dbdyno_profile::{SecretKind, SecretStore};
use dbdyno_tests::*;

use crate::sshd::{self, Sshd};

/// Deletes the profile's keyring entries even when an assertion fails.
struct Entries(String);

impl Drop for Entries {
    fn drop(&mut self) {
        let store = SecretStore::new();
        for k in [
            SecretKind::MysqlPassword,
            SecretKind::SshPassword,
            SecretKind::SshPassphrase,
        ] {
            let _ = store.delete(&self.0, k);
        }
    }
}

fn env_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: `eval \"$(bash scripts/sshd-sandbox.sh env)\"` first")
    })
}

#[test]
fn keyring_secrets_are_found_under_the_profiles_name_when_env_renames_the_run() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let s = TestSchema::new("sec_env");
    let root = tempfile::tempdir().unwrap();
    let (data, config) = (root.path().join("data"), root.path().join("config"));
    std::fs::create_dir_all(config.join("profiles")).unwrap();
    let kh = sb.trusted_known_hosts(root.path());
    let name = format!("secenv-{}", std::process::id());
    let _cleanup = Entries(name.clone());
    let pw_user = env_var("DBDYNO_TEST_SSH_PW_USER");
    std::fs::write(
        config.join(format!("profiles/{name}.toml")),
        format!(
            "schema_version = 1\nname = \"{name}\"\n\n[mysql]\nhost = \"{}\"\nport = {}\nuser = \"{}\"\ndb = \"{}\"\npassword_from = \"keyring\"\n\n\
             [ssh]\nhost = \"{}\"\nport = {}\nuser = \"{pw_user}\"\nauth = \"password\"\n\n\
             [plan]\nscenarios = [\"oltp_point_select\"]\nthreads = [1]\ntime = 1\nprepare = true\ncleanup = true\n\n\
             [workload]\ntables = 1\ntable_size = 100\n",
            s.sandbox.host, s.sandbox.port, s.sandbox.user, s.name, sb.host, sb.port
        ),
    )
    .unwrap();
    let cmd = || {
        let mut c = dbdyno_cmd();
        c.env("DBDYNO_DATA_DIR", &data)
            .env("DBDYNO_CONFIG_DIR", &config)
            .env_remove("DBDYNO_SSH_PASSWORD")
            .env_remove("DBDYNO_SSH_PASSPHRASE");
        c
    };
    for (kind, secret) in [
        ("mysql", s.sandbox.password.clone()),
        ("ssh-password", env_var("DBDYNO_TEST_SSH_PASSWORD")),
    ] {
        let mut set = cmd()
            .args(["profile", "secret", "set", &name, kind])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        writeln!(set.stdin.take().unwrap(), "{secret}").unwrap();
        ok(&set.wait_with_output().unwrap());
    }
    let o = cmd()
        .args([
            "ladder",
            &format!("--profile={name}"),
            "--env=renamed",
            &format!("--known-hosts={}", kh.display()),
        ])
        .output()
        .unwrap();
    let out = ok(&o);
    assert!(
        out.contains("=== [1/") && !stderr(&o).contains("Access denied"),
        "{out}\n{}",
        stderr(&o)
    );
    assert!(
        out.contains("Machine: "),
        "the server was read over SSH with the keyring's password: {out}"
    );
    let list = ok(&cmd().args(["runs", "list", "--json"]).output().unwrap());
    assert!(list.contains("\"renamed\""), "filed under --env: {list}");
}

#[test]
fn a_protected_key_asks_for_its_passphrase_on_a_terminal() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let key = format!("{}_passphrase", sb.key.display());
    let passphrase = env_var("DBDYNO_TEST_SSH_PASSPHRASE");
    let mut args = sb.args(&kh);
    args.retain(|a| !a.starts_with("--ssh-key="));
    args.extend([format!("--ssh-key={key}"), "--duration=1".into()]);
    let line = [dbdyno_path().display().to_string(), "monitor".into()]
        .into_iter()
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ");
    // util-linux `script` gives the command a terminal; the passphrase is typed into it.
    let mut c = Command::new("script");
    c.args(["-qec", &line, "/dev/null"])
        .env_remove("DBDYNO_SSH_PASSPHRASE")
        .env_remove("DBDYNO_SSH_PASSWORD")
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in dbdyno_cmd().get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let mut child = c.spawn().expect("util-linux script");
    // Typed only once the prompt is shown, so the echo is off by then (the terminal
    // echoes earlier input): the terminal's output is read until the prompt appears.
    let mut out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut out, &mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !String::from_utf8_lossy(&seen).contains("Passphrase for key") {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => seen.extend(chunk),
            Err(_) => panic!("no passphrase prompt: {}", String::from_utf8_lossy(&seen)),
        }
    }
    writeln!(child.stdin.take().unwrap(), "{passphrase}").unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    seen.extend(rx.try_iter().flatten());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    let all = format!("{}{err}", String::from_utf8_lossy(&seen));
    assert!(status.success(), "{all}");
    assert!(all.contains("Passphrase for key"), "{all}");
    assert!(!all.contains(&passphrase), "no echo: {all}");
}
