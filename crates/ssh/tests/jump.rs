//! Jump hosts against real sshd: a database host that only the bastion can reach.
//!
//! Three network namespaces made by the test: the client's, the bastion's and the
//! database host's, with a veth pair between client and bastion and one between bastion
//! and database host. A new namespace does not forward (ip_forward is 0), so the client
//! has no way to the database host but through the bastion's sshd. The connecting thread
//! enters the client's namespace with setns(2), which moves that thread alone.
//!
//! Needs root, `ip` (iproute2) and sshd; skips without them, fails without them under CI.

use std::fs;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dbdyno_ssh::{connect, KnownHostsConfig, SshAuth, SshError, SshTarget};

const BASTION_ADDR: &str = "10.254.28.1";
const BASTION_INNER_ADDR: &str = "10.254.29.1";
const DB_ADDR: &str = "10.254.29.2";

struct Namespaces {
    client: String,
    bastion: String,
    db: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Namespaces {
    fn create() -> Option<Namespaces> {
        let id = std::process::id();
        let ns = Namespaces {
            client: format!("dd-jc{id}"),
            bastion: format!("dd-jb{id}"),
            db: format!("dd-jd{id}"),
        };
        let made = ip(&["netns", "add", &ns.client])
            .and_then(|()| ip(&["netns", "add", &ns.bastion]))
            .and_then(|()| ip(&["netns", "add", &ns.db]));
        if let Err(why) = made {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the jump-host test (as root, with iproute2): {why}"
            );
            eprintln!("SKIPPED: network namespaces are not available here (root and `ip netns` needed): {why}");
            return None;
        }
        let (c, b, d) = (&ns.client, &ns.bastion, &ns.db);
        let steps: &[&[&str]] = &[
            &[
                "-n", c, "link", "add", "dd-c", "type", "veth", "peer", "name", "dd-bc", "netns", b,
            ],
            &[
                "-n", b, "link", "add", "dd-bd", "type", "veth", "peer", "name", "dd-d", "netns", d,
            ],
            &["-n", c, "addr", "add", "10.254.28.2/24", "dev", "dd-c"],
            &["-n", b, "addr", "add", "10.254.28.1/24", "dev", "dd-bc"],
            &["-n", b, "addr", "add", "10.254.29.1/24", "dev", "dd-bd"],
            &["-n", d, "addr", "add", "10.254.29.2/24", "dev", "dd-d"],
            &["-n", c, "link", "set", "dd-c", "up"],
            &["-n", b, "link", "set", "dd-bc", "up"],
            &["-n", b, "link", "set", "dd-bd", "up"],
            &["-n", d, "link", "set", "dd-d", "up"],
            &["-n", c, "link", "set", "lo", "up"],
            &["-n", b, "link", "set", "lo", "up"],
            &["-n", d, "link", "set", "lo", "up"],
        ];
        for args in steps {
            ip(args).unwrap_or_else(|why| panic!("setting up the namespaces: {why}"));
        }
        Some(ns)
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for ns in [&self.client, &self.bastion, &self.db] {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

/// An sshd of the test's own inside a namespace, stopped on drop.
struct Sshd {
    child: Child,
    log: PathBuf,
}

impl Sshd {
    fn start(dir: &Path, name: &str, netns: &str, listen: &[&str], forwarding: bool) -> Sshd {
        let sshd = std::env::var("DBDYNO_SSHD_BIN").unwrap_or_else(|_| "/usr/sbin/sshd".into());
        let host_key = dir.join(format!("{name}_host_key"));
        keygen(&host_key);
        let config = dir.join(format!("{name}_sshd_config"));
        let listen: String = listen
            .iter()
            .map(|a| format!("ListenAddress {a}:22\n"))
            .collect();
        fs::write(
            &config,
            format!(
                "{listen}HostKey {}\nPidFile none\nAuthorizedKeysFile {}\nStrictModes no\nUsePAM no\n\
                 PermitRootLogin prohibit-password\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nAllowTcpForwarding {}\nLogLevel DEBUG1\n",
                host_key.display(),
                dir.join("authorized_keys").display(),
                if forwarding { "yes" } else { "no" },
            ),
        )
        .unwrap();
        fs::create_dir_all("/run/sshd").unwrap();
        let log = dir.join(format!("{name}_sshd.log"));
        let child = Command::new("ip")
            .args(["netns", "exec", netns, &sshd, "-D", "-f"])
            .arg(&config)
            .arg("-E")
            .arg(&log)
            .stdin(Stdio::null())
            .spawn()
            .expect("ip netns exec sshd");
        let server = Sshd { child, log };
        // Listening when its log says so (the namespace's ports are not ours to probe).
        let deadline = Instant::now() + Duration::from_secs(10);
        while !server.log().contains("Server listening on") {
            assert!(
                Instant::now() < deadline,
                "{name} sshd did not start: {}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (openssh-client)");
    assert!(ok.success());
}

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
