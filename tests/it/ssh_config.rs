//! The command line reaches a database host the way `ssh` would: by an alias of the
//! user's OpenSSH config, whose entry names the real address, the account, the key and
//! the bastion (ProxyJump, itself an alias with its own entry). The database host is in
//! a network namespace only the bastion reaches (`dbdyno_tests::netns`), and `dbdyno
//! monitor` runs in the client's namespace: its samples can come from nowhere else.
//!
//! Needs root, iproute2 and sshd: skips without them, fails without them under CI.

use dbdyno_tests::netns::{dbdyno_in, keygen, Namespaces, Sshd, BASTION_ADDR, DB_ADDR};
use dbdyno_tests::*;
use std::fs;

#[test]
fn monitor_reaches_a_host_behind_a_bastion_by_its_ssh_config_alias() {
    let _g = shared_server();
    let Some(ns) = Namespaces::create() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keygen(&d.join("client_key"));
    fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
    let bastion = Sshd::start(d, "bastion", &ns.bastion, &[BASTION_ADDR], true);
    let db = Sshd::start(d, "db", &ns.db, &[DB_ADDR], false);
    // Nothing on the command line or in a profile but the alias: the rest is the
    // config's. HOME has no keys, and no agent is reachable.
    let config = d.join("ssh_config");
    fs::write(
        &config,
        format!(
            "Host db-behind\n  HostName {DB_ADDR}\n  User root\n  IdentityFile {key}\n  ProxyJump jump\n\n\
             Host jump\n  HostName {BASTION_ADDR}\n  IdentityFile {key}\n",
            key = d.join("client_key").display()
        ),
    )
    .unwrap();

    let mut cmd = dbdyno_in(&ns.client);
    cmd.args(["monitor", "--ssh-host=db-behind", "--duration=2", "--json"])
        .arg(format!("--ssh-config={}", config.display()))
        .arg(format!("--known-hosts={}", d.join("known_hosts").display()))
        .args(["--accept-new-host-key", "--datadir=/"])
        .env("HOME", d)
        .env_remove("SSH_AUTH_SOCK");
    let out = cmd.output().unwrap();
    let text = ok(&out);
    assert!(
        text.lines()
            .any(|l| l.contains(r#""type":"sample""#) && l.contains(r#""dd-d""#)),
        "server samples from the host behind the bastion (its network namespace's interface dd-d):\n{text}\n{}",
        stderr(&out)
    );
    assert!(
        bastion.log().contains(&format!("target {DB_ADDR} port 22")),
        "the bastion carried the connection: {}",
        bastion.log()
    );
    assert!(
        db.log().contains("Accepted publickey for root"),
        "logged in to the host with the config's key and user: {}",
        db.log()
    );
    let known = fs::read_to_string(d.join("known_hosts")).unwrap();
    for host in [BASTION_ADDR, DB_ADDR] {
        assert!(
            known.lines().any(|l| l.starts_with(host)),
            "{host}'s key was checked and stored under its real address: {known}"
        );
    }
}
