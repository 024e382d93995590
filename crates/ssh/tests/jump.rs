//! Jump hosts against real sshd: a database host that only the bastion can reach.
//!
//! Three network namespaces made by the test (`dbdyno_tests::netns`): the client's, the
//! bastion's and the database host's; the client has no way to the database host but
//! through the bastion's sshd. The connecting thread enters the client's namespace with
//! setns(2), which moves that thread alone.
//!
//! Needs root, `ip` (iproute2) and sshd; skips without them, fails without them under CI.

use std::fs;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::Duration;

use dbdyno_ssh::{connect, KnownHostsConfig, SshAuth, SshError, SshTarget};
use dbdyno_tests::netns::{keygen, Namespaces, Sshd, BASTION_ADDR, BASTION_INNER_ADDR, DB_ADDR};

/// Runs `f` on a thread that has entered the namespace `netns` (the rest of the test
/// process stays where it is).
fn in_namespace<T: Send + 'static>(netns: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let file = fs::File::open(format!("/run/netns/{netns}")).expect("the namespace's file");
    std::thread::spawn(move || {
        // SAFETY: setns with a valid namespace fd; it changes only this thread.
        let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(rc, 0, "setns: {}", std::io::Error::last_os_error());
        f()
    })
    .join()
    .expect("the thread in the namespace")
}

fn target(dir: &Path, host: &str) -> SshTarget {
    let mut t = SshTarget::new(
        host,
        22,
        "root",
        SshAuth::Key {
            path: dir.join("client_key"),
            passphrase: None,
        },
        KnownHostsConfig::new(dir.join("known_hosts")),
    );
    t.accept_new_host_key = true;
    t.connect_timeout = Duration::from_secs(5);
    t
}

#[test]
fn a_host_only_the_bastion_reaches_is_reached_through_it_over_one_hop_or_two() {
    if unsafe { libc::geteuid() } != 0 {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the jump-host test as root"
        );
        eprintln!("SKIPPED: the jump-host test needs root (network namespaces)");
        return;
    }
    let Some(ns) = Namespaces::create() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_path_buf();
    keygen(&dir.join("client_key"));
    fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
    let bastion = Sshd::start(
        &dir,
        "bastion",
        &ns.bastion,
        &[BASTION_ADDR, "127.0.0.1"],
        true,
    );
    let db = Sshd::start(&dir, "db", &ns.db, &[DB_ADDR], false);

    let d = dir.clone();
    let direct = in_namespace(&ns.client, move || {
        connect(&target(&d, DB_ADDR)).map(|_| ()).unwrap_err()
    });
    assert!(
        matches!(direct, SshError::Connect { .. }),
        "the client has no route of its own: {direct}"
    );

    // One hop: the bastion forwards to the database host.
    let d = dir.clone();
    let seen = in_namespace(&ns.client, move || {
        let mut t = target(&d, DB_ADDR);
        t.jumps = vec![target(&d, BASTION_ADDR)];
        let conn = connect(&t).expect("through the bastion");
        let out = conn.run("ip -o -4 addr show", None).unwrap();
        conn.close();
        out.stdout
    });
    assert!(
        seen.contains(DB_ADDR),
        "the command ran on the database host: {seen}"
    );
    assert!(
        bastion.log().contains(&format!("target {DB_ADDR} port 22")),
        "the bastion carried it: {}",
        bastion.log()
    );

    // Two hops: the bastion, the bastion again by its own loopback name, then the host.
    let d = dir.clone();
    let seen = in_namespace(&ns.client, move || {
        let mut t = target(&d, DB_ADDR);
        t.jumps = vec![target(&d, BASTION_ADDR), target(&d, "127.0.0.1")];
        let conn = connect(&t).expect("through two hops");
        let out = conn.run("ip -o -4 addr show", None).unwrap();
        conn.close();
        out.stdout
    });
    assert!(seen.contains(DB_ADDR), "two hops: {seen}");
    let known = fs::read_to_string(dir.join("known_hosts")).unwrap();
    for host in [BASTION_ADDR, "127.0.0.1", DB_ADDR] {
        assert!(
            known
                .lines()
                .any(|l| l.starts_with(host) || l.starts_with(&format!("[{host}]"))),
            "every hop's key was checked and stored: {host} in {known}"
        );
    }

    // A hop that may not forward says so, naming both ends.
    let d = dir.clone();
    let refused = in_namespace(&ns.client, move || {
        let mut t = target(&d, BASTION_INNER_ADDR);
        t.jumps = vec![target(&d, BASTION_ADDR), target(&d, DB_ADDR)];
        connect(&t).map(|_| ()).unwrap_err()
    });
    let text = refused.to_string();
    assert!(
        matches!(refused, SshError::Forward { .. })
            && text.contains(&format!("the jump host {DB_ADDR}:22"))
            && text.contains("AllowTcpForwarding"),
        "{text}\n{}",
        db.log()
    );
}
