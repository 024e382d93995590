//! Whom the SSH monitor trusts: unknown and changed host keys refused before anything
//! runs (and bad credentials with them), pinned fingerprints, `--accept-new-host-key`'s
//! limits, and the user's own known_hosts read but never written. Logging in once trusted
//! is `ssh_login.rs`.

use std::process::{Command, Stdio};

use dbdyno_tests::*;

use super::ladder_args;
use crate::sshd::{self, Sshd};

#[test]
fn unknown_and_changed_host_keys_and_bad_credentials_stop_before_anything_runs() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let fp = sb.fingerprint(dir.path());
    let empty = dir.path().join("empty_known_hosts");

    // Unknown key, nobody at a terminal: refused with the fingerprint and the way to accept.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&empty))
        .arg("--duration=1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&fp) && err.contains("--accept-new-host-key") && err.contains("is not known"),
        "{err}"
    );

    // The same for a ladder: nothing runs.
    let s = TestSchema::new("mon_keys");
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-history",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sb.args(&empty));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = s.dbdyno(&refs);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains(&fp), "{}", stderr(&o));
    assert!(
        !stdout(&o).contains("=== [1/"),
        "no step ran: {}",
        stdout(&o)
    );

    // Changed key: refused even with --accept-new-host-key.
    let changed = dir.path().join("changed_known_hosts");
    let key = dir.path().join("otherkey");
    assert!(Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(&key)
        .status()
        .unwrap()
        .success());
    let other = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let other: Vec<&str> = other.split_whitespace().take(2).collect();
    std::fs::write(
        &changed,
        format!("[{}]:{} {}\n", sb.host, sb.port, other.join(" ")),
    )
    .unwrap();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&changed))
        .args(["--duration=1", "--accept-new-host-key"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("REFUSED: the host key of") && stderr(&o).contains("has CHANGED"),
        "{}",
        stderr(&o)
    );

    // Wrong key, and (where the sandbox has a password user) a wrong password.
    let trusted = sb.trusted_known_hosts(dir.path());
    let mut wrong_key = sb.args(&trusted);
    wrong_key.retain(|a| !a.starts_with("--ssh-key="));
    wrong_key.push(format!("--ssh-key={}", key.display()));
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(&wrong_key)
        .arg("--duration=1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("authentication failed") && stderr(&o).contains("refused the key"),
        "{}",
        stderr(&o)
    );
    if let Ok(pw_user) = std::env::var("DBDYNO_TEST_SSH_PW_USER") {
        let mut pw = sb.args(&trusted);
        pw.retain(|a| !a.starts_with("--ssh-key=") && !a.starts_with("--ssh-user="));
        pw.extend([
            format!("--ssh-user={pw_user}"),
            "--ssh-password=not-the-password".into(),
        ]);
        let o = dbdyno_cmd()
            .arg("monitor")
            .args(&pw)
            .arg("--duration=1")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stderr(&o).contains("wrong user name or password"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_pinned_host_key_is_compared_even_when_known_hosts_trusts_the_server() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let fp = sb.fingerprint(dir.path());
    let s = TestSchema::new("mon_pin");
    let wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let args = ladder_args(&sb, &kh, &[&format!("--ssh-host-key-fingerprint={wrong}")]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = s.dbdyno(&refs);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("REFUSED") && err.contains(&fp) && err.contains(wrong),
        "{err}"
    );
    assert!(
        !stdout(&o).contains("=== [1/"),
        "no step ran: {}",
        stdout(&o)
    );
    let args = ladder_args(&sb, &kh, &[&format!("--ssh-host-key-fingerprint={fp}")]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&s.dbdyno(&refs));
}

/// First contact with a pinned target: a key that matches the pin is stored without a
/// question; one that does not is refused and nothing is stored.
#[test]
fn a_pinned_fingerprint_stores_a_matching_key_on_first_contact_and_refuses_another() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    std::fs::write(&kh, "").unwrap();
    let fp = sb.fingerprint(dir.path());
    let monitor = |pin: &str| {
        let mut args = vec!["monitor".to_string(), "--duration=1".into()];
        args.extend(sb.args(&kh));
        args.push(format!("--ssh-host-key-fingerprint={pin}"));
        dbdyno_cmd().args(&args).output().unwrap()
    };
    let wrong = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let o = monitor(wrong);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("REFUSED"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&kh).unwrap(), "", "nothing stored");

    let o = monitor(&fp);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the profile's fingerprint"),
        "{}",
        stderr(&o)
    );
    let stored = std::fs::read_to_string(&kh).unwrap();
    assert!(
        stored.contains(sb.host_pubkey.split_whitespace().nth(1).unwrap()),
        "{stored}"
    );
}

#[test]
fn accept_new_host_key_refuses_a_key_of_another_type_than_the_known_ones() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    // known_hosts lists an RSA key for the host; the server presents its ed25519 key.
    let key = dir.path().join("rsakey");
    assert!(Command::new("ssh-keygen")
        .args(["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f"])
        .arg(&key)
        .status()
        .unwrap()
        .success());
    let rsa = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let rsa: Vec<&str> = rsa.split_whitespace().take(2).collect();
    let kh = dir.path().join("known_hosts");
    let before = format!("[{}]:{} {}\n", sb.host, sb.port, rsa.join(" "));
    std::fs::write(&kh, &before).unwrap();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args(["--duration=1", "--accept-new-host-key"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("REFUSED: --accept-new-host-key does not store")
            && err.contains("already lists keys of type ssh-rsa"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&kh).unwrap(),
        before,
        "nothing was added"
    );
}

#[test]
fn keys_trusted_in_the_users_known_hosts_are_trusted_and_never_written() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
    let user_file = home.path().join(".ssh/known_hosts");
    let line = format!("[{}]:{} {}\n", sb.host, sb.port, sb.host_pubkey);
    std::fs::write(&user_file, &line).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut args = sb.args(std::path::Path::new("unused"));
    args.retain(|a| !a.starts_with("--known-hosts="));
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(&args)
        .arg("--duration=1")
        .env("HOME", home.path())
        .env("DBDYNO_DATA_DIR", data.path())
        .env_remove("DBDYNO_KNOWN_HOSTS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&user_file).unwrap(), line);
    // Without that line the key is unknown again: the user's file was what trusted it.
    std::fs::write(&user_file, "").unwrap();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(&args)
        .arg("--duration=1")
        .env("HOME", home.path())
        .env("DBDYNO_DATA_DIR", data.path())
        .env_remove("DBDYNO_KNOWN_HOSTS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not known"), "{}", stderr(&o));
}
