//! Network namespaces and sshd of a test's own: for the tests of hosts behind a bastion
//! (the SSH crate's jump-host test and the command line's `~/.ssh/config` test), and a
//! client/server [`Pair`] for the tests that cut or slow the server's link.
//!
//! Three namespaces: the client's, the bastion's and the database host's, with a veth
//! pair between client and bastion and one between bastion and database host. A new
//! namespace does not forward (ip_forward is 0), so the client has no way to the
//! database host but through the bastion's sshd.
//!
//! Needs root, `ip` (iproute2) and sshd: [`Namespaces::create`] returns None (the test
//! skips) without them, and fails under CI.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BASTION_ADDR: &str = "10.254.28.1";
pub const BASTION_INNER_ADDR: &str = "10.254.29.1";
pub const DB_ADDR: &str = "10.254.29.2";

pub struct Namespaces {
    pub client: String,
    pub bastion: String,
    pub db: String,
}

/// `ip ARGS`, its error output as the error.
pub fn ip(args: &[&str]) -> Result<(), String> {
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

/// `ip netns add` each of `names`: false (the test skips, saying why) where this machine
/// cannot (not root, no iproute2, a sandbox that forbids namespaces); under CI=true
/// that is a failure instead.
fn add_namespaces(names: &[&str]) -> bool {
    let made = names
        .iter()
        .try_for_each(|name| ip(&["netns", "add", name]));
    match made {
        Ok(()) => true,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the network-namespace tests (as root, with iproute2): {why}"
            );
            eprintln!("SKIPPED: network namespaces are not available here (root and `ip netns` needed): {why}");
            false
        }
    }
}

impl Namespaces {
    /// The three namespaces, or None when this machine cannot make them (not under CI).
    pub fn create() -> Option<Namespaces> {
        let id = std::process::id();
        let ns = Namespaces {
            client: format!("dd-jc{id}"),
            bastion: format!("dd-jb{id}"),
            db: format!("dd-jd{id}"),
        };
        if !add_namespaces(&[&ns.client, &ns.bastion, &ns.db]) {
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

/// Two namespaces, a client's and a database server's, with one veth pair between them:
/// for the tests that cut the server's link or slow it down. Private addresses, only
/// inside them: the host's namespace gets no address and no route.
pub struct Pair {
    pub client: String,
    pub server: String,
}

pub const PAIR_SERVER_ADDR: &str = "10.254.27.1";
pub const PAIR_CLIENT_ADDR: &str = "10.254.27.2";
/// The server's end of the veth pair (inside its namespace).
pub const PAIR_SERVER_LINK: &str = "dd-srv";

impl Pair {
    /// The two namespaces, or None (with the reason printed) where namespaces cannot be
    /// made: not root, no `ip`, a sandbox that forbids them. Under CI=true that is a
    /// failure instead.
    pub fn create(tag: &str) -> Option<Pair> {
        let id = std::process::id();
        let ns = Pair {
            client: format!("dd-{tag}-c{id}"),
            server: format!("dd-{tag}-s{id}"),
        };
        if !add_namespaces(&[&ns.client, &ns.server]) {
            return None;
        }
        let (c, s) = (&ns.client, &ns.server);
        let steps: &[&[&str]] = &[
            &[
                "-n",
                c,
                "link",
                "add",
                "dd-cli",
                "type",
                "veth",
                "peer",
                "name",
                PAIR_SERVER_LINK,
                "netns",
                s,
            ],
            &["-n", c, "addr", "add", "10.254.27.2/24", "dev", "dd-cli"],
            &[
                "-n",
                s,
                "addr",
                "add",
                "10.254.27.1/24",
                "dev",
                PAIR_SERVER_LINK,
            ],
            &["-n", c, "link", "set", "dd-cli", "up"],
            &["-n", s, "link", "set", PAIR_SERVER_LINK, "up"],
            &["-n", c, "link", "set", "lo", "up"],
            &["-n", s, "link", "set", "lo", "up"],
        ];
        for args in steps {
            ip(args).unwrap_or_else(|why| panic!("setting up the namespaces: {why}"));
        }
        Some(ns)
    }

    /// A private sandbox listening on the server's address in its namespace, its
    /// `sbtest` account open to the client's address (the sandbox's are for loopback).
    pub fn start_server(&self, tag: &str, extra_cnf: &str) -> crate::PrivateSandbox {
        let server = crate::PrivateSandbox::start_in(
            tag,
            &format!("bind-address = {PAIR_SERVER_ADDR}\n{extra_cnf}"),
            Some(&self.server),
        );
        server.sql(&format!(
            "CREATE USER 'sbtest'@'{PAIR_CLIENT_ADDR}' IDENTIFIED BY 'sbtest'; \
             GRANT ALL ON sbtest.* TO 'sbtest'@'{PAIR_CLIENT_ADDR}'; \
             GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'sbtest'@'{PAIR_CLIENT_ADDR}'"
        ));
        server
    }

    /// The server's end of the link "up" or "down".
    pub fn server_link(&self, state: &str) {
        ip(&["-n", &self.server, "link", "set", PAIR_SERVER_LINK, state]).unwrap();
    }

    /// `tc ARGS` inside the server's namespace (a qdisc on its end of the link).
    pub fn server_tc(&self, args: &[&str]) {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.server, "tc"])
            .args(args)
            .output()
            .expect("tc runs (iproute2)");
        assert!(
            out.status.success(),
            "tc {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }

    /// Caps the server's end of the link with a token bucket: `rate` on average (as `tc`
    /// reads it, "1mbit"), a burst of 4 KiB. Its queue (100 ms of the rate) outlasts a
    /// few threads' answers in flight, so it delays and never drops. `verb` is "add" the
    /// first time, "change" after.
    pub fn cap_server_link(&self, verb: &str, rate: &str) {
        self.server_tc(&[
            "qdisc",
            verb,
            "dev",
            PAIR_SERVER_LINK,
            "root",
            "tbf",
            "rate",
            rate,
            "burst",
            "4kb",
            "latency",
            "100ms",
        ]);
    }

    /// `dbdyno ARGS` inside the client's namespace, connected to the server's address.
    pub fn dbdyno(&self, server: &crate::PrivateSandbox, args: &[&str]) -> Command {
        let mut c = dbdyno_in(&self.client);
        c.args(args)
            .args([
                format!("--mysql-host={PAIR_SERVER_ADDR}"),
                format!("--mysql-port={}", server.port),
                "--mysql-user=sbtest".to_string(),
                "--mysql-db=sbtest".to_string(),
            ])
            .env("MYSQL_PWD", "sbtest");
        c
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        // Deleting a namespace deletes the veth pair in it (both ends).
        let _ = ip(&["netns", "del", &self.client]);
        let _ = ip(&["netns", "del", &self.server]);
    }
}

/// An sshd of the test's own inside a namespace, stopped on drop.
pub struct Sshd {
    child: Child,
    log: PathBuf,
}

impl Sshd {
    /// An sshd listening on `listen` (port 22) inside `netns`, logging in by the keys in
    /// `dir/authorized_keys`, forwarding TCP or not.
    pub fn start(dir: &Path, name: &str, netns: &str, listen: &[&str], forwarding: bool) -> Sshd {
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

    /// Its log so far.
    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A passphrase-less ed25519 key pair at `path` and `path.pub`.
pub fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (openssh-client)");
    assert!(ok.success());
}

/// The `dbdyno` of [`crate::dbdyno_cmd`] (its private directories), run inside the
/// namespace `netns` by `ip netns exec`.
pub fn dbdyno_in(netns: &str) -> Command {
    let base = crate::dbdyno_cmd();
    let mut c = Command::new("ip");
    c.args(["netns", "exec", netns]).arg(base.get_program());
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c
}
