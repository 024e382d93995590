//! ssh-agent authentication. Alone in its binary: it sets SSH_AUTH_SOCK for the whole
//! process, which libssh2 reads.

mod common;

use common::sandbox;
use dbdyno_ssh as ssh;
use dbdyno_ssh::{SshAuth, SshError};
use std::process::Command;

/// An ssh-agent started for this test and killed (by its own pid) on drop.
struct Agent {
    pid: String,
    sock: std::path::PathBuf,
}

impl Agent {
    fn start(dir: &std::path::Path) -> Agent {
        let sock = dir.join("agent.sock");
        let out = Command::new("ssh-agent")
            .arg("-s")
            .arg("-a")
            .arg(&sock)
            .output()
            .expect("run ssh-agent");
        let text = String::from_utf8_lossy(&out.stdout);
        // "SSH_AGENT_PID=1234; export SSH_AGENT_PID;"
        let pid = text
            .split(';')
            .find_map(|p| p.trim().strip_prefix("SSH_AGENT_PID="))
            .expect("ssh-agent prints its pid")
            .to_string();
        Agent { pid, sock }
    }

    fn add(&self, key: &std::path::Path) {
        let ok = Command::new("ssh-add")
            .arg("-q")
            .arg(key)
            .env("SSH_AUTH_SOCK", &self.sock)
            .status()
            .expect("ssh-add")
            .success();
        assert!(ok, "ssh-add failed");
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(&self.pid).status();
    }
}

#[test]
fn agent_auth_with_and_without_a_usable_identity() {
    let sb = sandbox("agent_auth_with_and_without_a_usable_identity");
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = Agent::start(dir.path());
    std::env::set_var("SSH_AUTH_SOCK", &agent.sock);
    let kh = sb.trusted_known_hosts(dir.path());
    let target = sb.target(&kh, &sb.user, SshAuth::Agent);

    let err = ssh::connect(&target).expect_err("empty agent cannot log in");
    assert!(matches!(err, SshError::AuthAgent { .. }), "{err}");
    assert!(
        err.to_string().contains("through ssh-agent") && err.to_string().contains("ssh-add -l"),
        "{err}"
    );

    agent.add(&sb.key);
    let conn = ssh::connect(&target).expect("agent identity logs in");
    assert_eq!(
        conn.run("echo agent-ok", None).expect("run").stdout,
        "agent-ok\n"
    );
}
