//! Host-key checking, authentication and small commands against the sandbox sshd.

mod common;

use common::{new_key, sandbox, ssh_keygen_fingerprint};
use dbdyno_ssh::{self as ssh, known_hosts};
use dbdyno_ssh::{KnownHostsConfig, SshAuth, SshError};
use std::process::Command;

#[test]
fn unknown_host_key_reports_fingerprint_then_accept_connects() {
    let sb = sandbox("unknown_host_key_reports_fingerprint_then_accept_connects");
    let dir = tempfile::tempdir().expect("tempdir");
    let kh = dir.path().join("data/known_hosts"); // does not exist yet
    let target = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: sb.key.clone(),
            passphrase: None,
        },
    );
    let err = ssh::connect(&target).expect_err("unknown host key must not connect");
    let SshError::UnknownHostKey(unknown) = &err else {
        panic!("expected UnknownHostKey, got {err}")
    };
    let expected = ssh_keygen_fingerprint(&sb.host_pubkey_line, dir.path());
    assert_eq!(unknown.key.fingerprint_sha256(), expected);
    assert_eq!(unknown.key.key_type, "ssh-ed25519");
    let msg = err.to_string();
    assert!(
        msg.contains(&expected)
            && msg.contains("ssh-ed25519")
            && msg.contains(&kh.display().to_string()),
        "{msg}"
    );
    assert!(!kh.exists(), "nothing is written before the user accepts");

    unknown.accept().expect("accept writes known_hosts");
    let text = std::fs::read_to_string(&kh).expect("known_hosts written");
    assert_eq!(
        text,
        format!("[{}]:{} {}\n", sb.host, sb.port, sb.host_pubkey_line)
    );
    let conn = ssh::connect(&target).expect("accepted key connects");
    assert_eq!(conn.host_key().fingerprint_sha256(), expected);
}

#[test]
fn accept_new_host_key_flag_stores_and_connects() {
    let sb = sandbox("accept_new_host_key_flag_stores_and_connects");
    let dir = tempfile::tempdir().expect("tempdir");
    let kh = dir.path().join("known_hosts");
    let mut target = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: sb.key.clone(),
            passphrase: None,
        },
    );
    target.accept_new_host_key = true;
    ssh::connect(&target).expect("TOFU connects");
    target.accept_new_host_key = false;
    ssh::connect(&target).expect("stored key is trusted afterwards");
    assert_eq!(
        std::fs::read_to_string(&kh).expect("read").lines().count(),
        1
    );
}

#[test]
fn changed_host_key_is_refused_naming_file_and_line() {
    let sb = sandbox("changed_host_key_is_refused_naming_file_and_line");
    let dir = tempfile::tempdir().expect("tempdir");
    let other = new_key(dir.path(), "impostor", "");
    let other_pub = std::fs::read_to_string(other.with_extension("pub")).expect("pub");
    let mut f = other_pub.split_whitespace();
    let (t, b) = (f.next().expect("type"), f.next().expect("key"));
    let kh = dir.path().join("known_hosts");
    std::fs::write(
        &kh,
        format!("# app hosts\n[{}]:{} {t} {b}\n", sb.host, sb.port),
    )
    .expect("write");
    let mut target = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: sb.key.clone(),
            passphrase: None,
        },
    );
    target.accept_new_host_key = true; // must not override a CHANGED key
    let err = ssh::connect(&target).expect_err("changed key must be refused");
    let SshError::HostKeyChanged {
        file,
        line,
        fingerprint,
        ..
    } = &err
    else {
        panic!("expected HostKeyChanged, got {err}")
    };
    assert_eq!((file, *line), (&kh, 2));
    assert_eq!(fingerprint, &sb.host_key.fingerprint_sha256());
    let msg = err.to_string();
    assert!(
        msg.contains("CHANGED") && msg.contains(&format!("{} line 2", kh.display())),
        "{msg}"
    );
    assert_eq!(
        std::fs::read_to_string(&kh).expect("read").lines().count(),
        2,
        "file untouched"
    );
}

#[test]
fn hashed_known_hosts_from_ssh_keygen_and_user_file() {
    let sb = sandbox("hashed_known_hosts_from_ssh_keygen_and_user_file");
    let dir = tempfile::tempdir().expect("tempdir");
    // A user's ~/.ssh/known_hosts hashed by OpenSSH itself (HashKnownHosts yes).
    let user_kh = sb.trusted_known_hosts(dir.path());
    let ok = Command::new("ssh-keygen")
        .arg("-H")
        .arg("-f")
        .arg(&user_kh)
        .output()
        .expect("ssh-keygen -H")
        .status
        .success();
    assert!(ok);
    let hashed = std::fs::read_to_string(&user_kh).expect("read");
    assert!(hashed.starts_with("|1|"), "{hashed}");
    let app_kh = dir.path().join("app_known_hosts");
    let mut target = sb.target(
        &app_kh,
        &sb.user,
        SshAuth::Key {
            path: sb.key.clone(),
            passphrase: None,
        },
    );
    target.known_hosts = KnownHostsConfig {
        app_file: app_kh.clone(),
        user_file: Some(user_kh.clone()),
    };
    ssh::connect(&target).expect("hashed entry in the user's file is trusted");
    assert!(
        !app_kh.exists(),
        "trusting via the user's file writes nothing"
    );
    assert_eq!(
        std::fs::read_to_string(&user_kh).expect("read"),
        hashed,
        "the user's file is read-only"
    );
    assert!(matches!(
        known_hosts::check(&[user_kh], &sb.host, sb.port, &sb.host_key),
        Ok(known_hosts::HostKeyStatus::Trusted { line: 1, .. })
    ));
}

#[test]
fn wrong_key_gives_actionable_error() {
    let sb = sandbox("wrong_key_gives_actionable_error");
    let dir = tempfile::tempdir().expect("tempdir");
    let stranger = new_key(dir.path(), "stranger", "");
    let kh = sb.trusted_known_hosts(dir.path());
    let target = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: stranger.clone(),
            passphrase: None,
        },
    );
    let err = ssh::connect(&target).expect_err("unknown client key must fail");
    assert!(matches!(err, SshError::AuthKey { .. }), "{err}");
    let msg = err.to_string();
    let want = format!(
        "authentication failed for user {} at {}:{} with key {}",
        sb.user,
        sb.host,
        sb.port,
        stranger.display()
    );
    assert!(msg.starts_with(&want), "{msg}");
    assert!(msg.contains("authorized_keys"), "{msg}");

    let missing = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: dir.path().join("nope"),
            passphrase: None,
        },
    );
    let err = ssh::connect(&missing).expect_err("missing key file");
    assert!(
        matches!(err, SshError::KeyFile { .. }) && err.to_string().contains("nope"),
        "{err}"
    );
}

#[test]
fn passphrase_key_works_and_wrong_passphrase_is_explained() {
    let sb = sandbox("passphrase_key_works_and_wrong_passphrase_is_explained");
    let dir = tempfile::tempdir().expect("tempdir");
    let kh = sb.trusted_known_hosts(dir.path());
    let good = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: sb.pass_key.clone(),
            passphrase: Some(sb.passphrase.clone()),
        },
    );
    let conn = ssh::connect(&good).expect("passphrase key connects");
    assert_eq!(conn.run("echo ok", None).expect("run").stdout, "ok\n");

    for (pass, hint) in [
        (Some("wrong".to_string()), "is the passphrase right?"),
        (None, "give it"),
    ] {
        let bad = sb.target(
            &kh,
            &sb.user,
            SshAuth::Key {
                path: sb.pass_key.clone(),
                passphrase: pass,
            },
        );
        let err = ssh::connect(&bad).expect_err("wrong or missing passphrase fails");
        let msg = err.to_string();
        assert!(matches!(err, SshError::KeyFile { .. }), "{msg}");
        assert!(
            msg.contains(&sb.pass_key.display().to_string()) && msg.contains(hint),
            "{msg}"
        );
    }
}

#[test]
fn password_login_and_wrong_password() {
    let sb = sandbox("password_login_and_wrong_password");
    let (Some(user), Some(pw)) = (sb.pw_user.clone(), sb.password.clone()) else {
        panic!(
            "password_login_and_wrong_password: the sandbox has no password user \
             (DBDYNO_TEST_SSH_PW_USER / DBDYNO_TEST_SSH_PASSWORD unset): start it as root \
             (`sudo bash scripts/sshd-sandbox.sh start`, it creates the account) and \
             `eval \"$(bash scripts/sshd-sandbox.sh env)\"`"
        );
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let kh = sb.trusted_known_hosts(dir.path());
    let conn = ssh::connect(&sb.target(&kh, &user, SshAuth::Password(pw))).expect("password login");
    assert_eq!(conn.run("id -un", None).expect("run").stdout.trim(), user);

    let err = ssh::connect(&sb.target(&kh, &user, SshAuth::Password("not-the-password".into())))
        .expect_err("wrong password");
    let msg = err.to_string();
    assert!(matches!(err, SshError::AuthPassword { .. }), "{msg}");
    assert_eq!(msg, format!("authentication failed for user {user} at {}:{} with password: wrong user name or password", sb.host, sb.port));
}

#[test]
fn nothing_listening_is_a_connect_error() {
    let sb = sandbox("nothing_listening_is_a_connect_error");
    let dir = tempfile::tempdir().expect("tempdir");
    let kh = sb.trusted_known_hosts(dir.path());
    let mut t = sb.target(
        &kh,
        &sb.user,
        SshAuth::Key {
            path: sb.key.clone(),
            passphrase: None,
        },
    );
    t.port = 1; // privileged, nothing listens there on loopback
    let err = ssh::connect(&t).expect_err("no server");
    assert!(
        matches!(err, SshError::Connect { .. }) && err.to_string().contains(":1:"),
        "{err}"
    );
}

#[test]
fn clock_offset_and_commands() {
    let sb = sandbox("clock_offset_and_commands");
    let dir = tempfile::tempdir().expect("tempdir");
    let conn = ssh::connect(&sb.key_target(dir.path())).expect("connect");
    let clock = conn.clock_sync(5).expect("clock sync");
    println!(
        "clock offset {:.3} ms, rtt {:.3} ms",
        clock.offset_ms, clock.rtt_ms
    );
    // Same machine, same clock: the estimate must be within its own error bar + 5 ms.
    assert!(
        clock.offset_ms.abs() <= clock.rtt_ms / 2.0 + 5.0,
        "{clock:?}"
    );
    assert!(clock.rtt_ms < 100.0, "{clock:?}");
    assert_eq!(clock.rounds, 5);

    let out = conn
        .run("echo out; echo err >&2; exit 3", None)
        .expect("run");
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str(), out.status),
        ("out\n", "err\n", 3)
    );
    let err = conn
        .run_script("echo nope >&2; exit 4")
        .expect_err("non-zero script");
    assert!(err.to_string().contains("status 4: nope"), "{err}");
    // Scripts go through stdin: quotes and $ reach sh untouched.
    assert_eq!(
        conn.run_script("x='a b'; printf '%s|\\n' \"$x\"")
            .expect("script"),
        "a b|\n"
    );
}

#[test]
fn remote_disk_resolution_matches_local() {
    let sb = sandbox("remote_disk_resolution_matches_local");
    let dir = tempfile::tempdir().expect("tempdir");
    let conn = ssh::connect(&sb.key_target(dir.path())).expect("connect");
    for path in ["/", "/tmp"] {
        let remote = dbdyno_monitor::disk::resolve_remote(&conn, path).expect("remote resolve");
        let local = dbdyno_monitor::disk::resolve_local(path).expect("local resolve");
        println!(
            "{path}: {:?}\n  {}",
            remote.devices,
            remote.chain.join("\n  ")
        );
        assert_eq!(remote, local, "same machine, same answer");
    }
}
