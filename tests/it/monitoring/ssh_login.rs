//! Logging in to the monitored server: the command line's login options win over the
//! environment and exclude each other, a refused connection names its cause once, and a
//! command logs in as few times as it needs. Host keys are `host_keys.rs`.

use dbdyno_tests::*;

use super::ladder_args;
use crate::sshd::{self, Sshd};

#[test]
fn login_options_on_the_command_line_win_and_conflicting_ones_are_refused() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    // A stale exported password does not beat an explicit key.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .arg("--duration=1")
        .env("DBDYNO_SSH_PASSWORD", "stale")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // Two ways of logging in on one command line: clap refuses the pair.
    for other in ["--ssh-password=x", "--ssh-agent"] {
        let o = dbdyno_cmd()
            .arg("monitor")
            .args(sb.args(&kh))
            .args([other, "--duration=1"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{other}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot be used with"),
            "{other}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_refused_ssh_connection_names_its_cause_once() {
    let _g = shared_server();
    let o = dbdyno_cmd()
        .args([
            "monitor",
            "--ssh-host=127.0.0.1",
            "--ssh-port=1",
            "--ssh-key=/dev/null",
            "--duration=1",
        ])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("Connection refused").count(), 1, "{err}");
}

#[test]
fn monitor_logs_in_once() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    // Logins with a key of this test's own: other tests log in to the same sshd.
    let (sb, fingerprint) = Sshd::from_env().with_own_key(dir.path());
    let kh = sb.trusted_known_hosts(dir.path());
    let log = sb.dir.join("sshd.log");
    let logins = || {
        std::fs::read_to_string(&log)
            .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
            .lines()
            .filter(|l| l.contains("Accepted publickey") && l.contains(&fingerprint))
            .count()
    };
    let before = logins();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .arg("--duration=1")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // The host key check, the disk and the sampler share one session.
    assert_eq!(logins() - before, 1);

    // A ladder: the host key check's session carries the sampler; the facts for the
    // checks and the snapshot take one more.
    let s = TestSchema::new("mon_logins");
    let args = ladder_args(&sb, &kh, &[]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let before = logins();
    let out = ok(&s.dbdyno(&refs));
    assert!(out.contains("Machine: "), "{out}");
    assert_eq!(logins() - before, 2, "{out}");
}
