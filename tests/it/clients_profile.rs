//! A profile's `[[clients]]` drive a ladder with no `--clients` flag: the profile alone
//! names the SSH client, how it logs in (a password, from the environment as a profile
//! without keyring entries gives it) and its pinned host key; the history keeps a row
//! per client, which `runs show` prints.
//!
//! The client is the sandbox sshd's password user at its second address: its home
//! holds the copied binary, so the test never writes into the test runner's own cache.

use std::path::Path;

use dbdyno_tests::{shared_server, stderr, stdout, TestSchema};

use crate::sshd::{self, Sshd};

pub(crate) fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: `eval \"$(bash scripts/sshd-sandbox.sh env)\"` (as root, for its password user)")
    })
}

/// `SHA256:…` of an OpenSSH public key line, as `ssh-keygen -lf` prints it.
pub(crate) fn fingerprint(pubkey: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("host.pub");
    std::fs::write(&file, format!("{pubkey}\n")).unwrap();
    let out = std::process::Command::new("ssh-keygen")
        .arg("-lf")
        .arg(&file)
        .output()
        .expect("ssh-keygen");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.split_whitespace()
        .find(|w| w.starts_with("SHA256:"))
        .unwrap_or_else(|| panic!("no fingerprint in {text}"))
        .to_string()
}

fn write_profile(dir: &Path, client_url: &str, host_key: &str) -> std::path::PathBuf {
    let file = dir.join("with-clients.toml");
    let text = format!(
        "schema_version = 1\nname = \"with-clients\"\n\n\
         [mysql]\nhost = \"127.0.0.1\"\n\n\
         [[clients]]\nurl = \"{client_url}\"\nauth = \"password\"\nhost_key_fingerprint = \"{host_key}\"\n"
    );
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn a_profile_with_a_client_runs_on_it_and_the_history_shows_its_rows() {
    let _sshd = sshd::shared();
    let _g = shared_server();
    let sshd = Sshd::from_env();
    let host2 = env("DBDYNO_TEST_SSH_HOST2");
    let user = env("DBDYNO_TEST_SSH_PW_USER");
    let password = env("DBDYNO_TEST_SSH_PASSWORD");
    let schema = TestSchema::new("clients_profile");
    schema.prepare_one_table("oltp_point_select", 1000);
    let dir = tempfile::tempdir().unwrap();
    let client_url = format!("ssh://{user}@{host2}:{}", sshd.port);
    let profile = write_profile(dir.path(), &client_url, &fingerprint(&sshd.host_pubkey));
    let data = format!("--data-dir={}", dir.path().join("data").display());
    let mut args: Vec<String> = [
        "ladder",
        &format!("--profile={}", profile.display()),
        "--scenarios=oltp_point_select",
        "--tables=1",
        "--threads=3",
        "--time=2",
        &data,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(schema.mysql_args());
    let out = dbdyno_tests::dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", &schema.sandbox.password)
        // No keyring entry for the client: the environment variable gives its password.
        .env("DBDYNO_SSH_PASSWORD", &password)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    // 3 threads over this machine and the profile's client: 2 + 1.
    assert!(text.contains(&format!("local 2, {client_url} 1")), "{text}");
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("Run id: "))
        .and_then(|l| l.split(|c: char| !c.is_ascii_digit()).next())
        .unwrap_or_else(|| panic!("no run id: {text}"))
        .to_string();

    let shown = dbdyno_tests::dbdyno_cmd()
        .args(["runs", "show", &id, &data])
        .output()
        .unwrap();
    let shown = stdout(&shown);
    assert!(shown.contains("Load clients (2, merged above):"), "{shown}");
    let row = |name: &str| {
        shown
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {shown}"))
            .split_whitespace()
            .nth(1)
            .map(str::to_string)
    };
    assert_eq!(row("local").as_deref(), Some("2"), "{shown}");
    assert_eq!(row(&client_url).as_deref(), Some("1"), "{shown}");
}
