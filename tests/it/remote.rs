//! DB Dyno's binary on another host (crates/remote), against the sandbox sshd: installed
//! by copy and reused, started with a line channel, stopped without leftovers.
//!
//! Each test installs into a cache directory of its own (`with_cache_dir`), so what one
//! test copies never makes another's first install a reuse.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dbdyno_remote::{
    sha256_file, Installed, Platform, RemoteError, RemoteHost, Transfer, KEEP_VERSIONS,
};
use dbdyno_ssh::{KnownHostsConfig, SshAuth, SshTarget};
use dbdyno_tests::{dbdyno_path, shared_server, shared_server_long};

use crate::sshd::{self, Sshd};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: `eval \"$(bash scripts/sshd-sandbox.sh env)\"` (scripts/test.sh does)")
    })
}

/// A login to the sandbox at `host:port` (`DBDYNO_TEST_SSH_HOST2` names the same
/// server as a second host), trusting its host key through a known_hosts file in `dir`.
pub fn target(sshd: &Sshd, host: &str, port: u16, dir: &Path) -> SshTarget {
    let known = dir.join(format!("known_hosts-{host}-{port}"));
    std::fs::write(&known, format!("[{host}]:{port} {}\n", sshd.host_pubkey)).unwrap();
    SshTarget::new(
        host,
        port,
        &sshd.user,
        SshAuth::Key {
            path: sshd.key.clone(),
            passphrase: None,
        },
        KnownHostsConfig::new(known),
    )
}

struct Setup {
    sshd: Sshd,
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            sshd: Sshd::from_env(),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A copy of the `dbdyno` binary taken now: a build running meanwhile may replace
    /// the original under the test, which would change its checksum halfway.
    fn dbdyno(&self) -> PathBuf {
        let copy = self.dir.path().join("dbdyno");
        if !copy.exists() {
            std::fs::copy(dbdyno_path(), &copy).expect("copy the dbdyno binary");
        }
        copy
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// The sandbox on its main address, installing into this test's cache.
    fn host(&self) -> RemoteHost {
        self.host_at(&self.sshd.host.clone(), self.sshd.port)
    }

    fn host_at(&self, host: &str, port: u16) -> RemoteHost {
        RemoteHost::connect(&target(&self.sshd, host, port, self.dir.path()))
            .expect("connect to the sandbox sshd")
            .with_cache_dir(self.cache().to_str().unwrap())
    }
}

/// A system program copied into the test's cache, standing in for DB Dyno's agent.
fn install_program(host: &RemoteHost, name: &str) -> Installed {
    let local = ["/bin", "/usr/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} not found in /bin or /usr/bin"));
    host.install(&local).expect("install")
}

fn remote_sum(host: &RemoteHost, path: &str) -> String {
    let out = host.run(&format!("sha256sum '{path}'")).unwrap();
    assert_eq!(out.status, 0, "{}", out.stderr);
    out.stdout.split_whitespace().next().unwrap().to_string()
}

/// Polls `processes_of` until it is empty; the PIDs still there after `limit`.
fn wait_until_gone(host: &RemoteHost, installed: &Installed, limit: Duration) -> Vec<u32> {
    let deadline = Instant::now() + limit;
    loop {
        let left = host.processes_of(installed).unwrap();
        if left.is_empty() || Instant::now() >= deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn remote_install_copies_then_reuses_and_replaces_a_damaged_copy() {
    let _ssh = sshd::shared();
    let _g = shared_server_long();
    let setup = Setup::new();
    let host = setup.host();
    let local = setup.dbdyno();
    let sha = sha256_file(&local).unwrap();

    let first = host.install(&local).expect("first install");
    assert!(first.copied, "{first:?}");
    assert_eq!(first.via, Some(Transfer::Sftp));
    assert_eq!(first.sha256, sha);
    assert_eq!(
        first.path,
        format!("{}/{sha}/dbdyno", setup.cache().display())
    );
    assert_eq!(remote_sum(&host, &first.path), sha);

    let again = host.install(&local).expect("second install");
    assert!(!again.copied, "the same checksum is reused: {again:?}");
    assert_eq!(
        (again.path.as_str(), again.via),
        (first.path.as_str(), None)
    );

    // A damaged cached copy (same name, other content) is found and replaced.
    let mut bytes = std::fs::read(&first.path).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&first.path, &bytes).unwrap();
    let repaired = host.install(&local).expect("install over a damaged copy");
    assert!(repaired.copied, "{repaired:?}");
    assert_eq!(remote_sum(&host, &repaired.path), sha);
    let leftovers: Vec<_> = std::fs::read_dir(Path::new(&first.path).parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec!["dbdyno"], "no temporary copies are left");

    // The installed binary runs there, its output coming back line by line.
    let mut version = host
        .spawn(&repaired, &["--version".into()], &[])
        .expect("spawn");
    let line = version.recv_line(Duration::from_secs(10)).unwrap();
    assert_eq!(line.as_deref(), Some("dbdyno 0.1.0"));
    match version.recv_line(Duration::from_secs(10)) {
        Err(RemoteError::Closed { status, .. }) => assert_eq!(status, Some(0)),
        other => panic!("expected the end of the process, got {other:?}"),
    }
    assert_eq!(version.exit_status(), Some(0));
}

#[test]
fn remote_cache_keeps_the_newest_versions_only() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let host = setup.host();
    // Small stand-ins for successive builds: each a program of its own checksum that
    // answers `--version`, as the install's trial run asks.
    let mut installed = Vec::new();
    for version in 1..=KEEP_VERSIONS + 2 {
        let program = setup.dir.path().join(format!("build{version}"));
        std::fs::write(
            &program,
            format!("#!/bin/sh\necho dbdyno build {version}\n"),
        )
        .unwrap();
        installed.push(host.install(&program).expect("install"));
        // Directory times have a one-second grain on some filesystems.
        std::thread::sleep(Duration::from_millis(1100));
    }
    // Something else in the cache directory is never touched.
    let other = setup.cache().join("notes");
    std::fs::create_dir_all(&other).unwrap();
    let program = setup.dir.path().join("last");
    std::fs::write(&program, "#!/bin/sh\necho dbdyno last\n").unwrap();
    installed.push(host.install(&program).expect("install"));

    let mut kept: Vec<String> = std::fs::read_dir(setup.cache())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    let mut newest: Vec<String> = installed[installed.len() - KEEP_VERSIONS..]
        .iter()
        .map(|i| i.sha256.clone())
        .chain(["notes".to_string()])
        .collect();
    newest.sort();
    assert_eq!(
        kept, newest,
        "the {KEEP_VERSIONS} newest versions and the rest"
    );
}

#[test]
fn remote_install_without_sftp_copies_over_ssh_exec() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let port: u16 = env("DBDYNO_TEST_SSH_NOSFTP_PORT").parse().unwrap();
    let host = setup.host_at(&setup.sshd.host.clone(), port);
    let local = setup.dbdyno();
    let installed = host.install(&local).expect("install without SFTP");
    assert_eq!(installed.via, Some(Transfer::Exec));
    assert!(installed.copied);
    assert_eq!(
        remote_sum(&host, &installed.path),
        sha256_file(&local).unwrap()
    );
}

#[test]
fn remote_installs_at_once_from_two_hosts_into_one_home_agree() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let local = setup.dbdyno();
    // The same machine under two names: two logins writing into one home.
    let hosts = [
        setup.host(),
        setup.host_at(&env("DBDYNO_TEST_SSH_HOST2"), setup.sshd.port),
    ];
    assert_ne!(hosts[0].name(), hosts[1].name());
    let results: Vec<Installed> = std::thread::scope(|s| {
        let running: Vec<_> = hosts
            .iter()
            .map(|h| s.spawn(|| h.install(&local)))
            .collect();
        running
            .into_iter()
            .map(|t| t.join().unwrap().expect("concurrent install"))
            .collect()
    });
    assert_eq!(results[0].path, results[1].path);
    let sha = sha256_file(&local).unwrap();
    assert_eq!(remote_sum(&hosts[0], &results[0].path), sha);
    let dir = Path::new(&results[0].path).parent().unwrap();
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec!["dbdyno"], "no temporary copies are left");
}

#[test]
fn remote_process_talks_in_lines_and_keeps_its_environment_out_of_ps() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let host = setup.host();
    let cat = install_program(&host, "cat");
    let secret = "s3cret-'pw' \"$HOME\"";
    let mut p = host
        .spawn(&cat, &[], &[("DBDYNO_T_SECRET".into(), secret.into())])
        .expect("spawn");
    assert!(p.pid() > 0);

    for line in ["{\"hello\":1}", "", "third line, with spaces"] {
        p.send_line(line).unwrap();
        assert_eq!(
            p.recv_line(Duration::from_secs(10)).unwrap().as_deref(),
            Some(line)
        );
    }
    let start = Instant::now();
    assert_eq!(p.recv_line(Duration::from_millis(200)).unwrap(), None);
    assert!(start.elapsed() >= Duration::from_millis(190));

    assert_eq!(host.processes_of(&cat).unwrap(), vec![p.pid()]);
    let ps = host.run("ps -eo args=").unwrap().stdout;
    assert!(!ps.contains("s3cret"), "the secret shows in ps:\n{ps}");
    let environ = host
        .run(&format!("cat /proc/{}/environ", p.pid()))
        .unwrap()
        .stdout;
    let expected = format!("DBDYNO_T_SECRET={secret}");
    assert!(
        environ.split('\0').any(|v| v == expected),
        "the process has its environment: {environ:?}"
    );

    p.kill().unwrap();
    assert_eq!(host.processes_of(&cat).unwrap(), Vec::<u32>::new());
    p.kill().expect("kill twice is fine");
}

#[test]
fn remote_stderr_that_outgrows_the_ssh_window_does_not_stall_stdout() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let host = setup.host();
    let bash = install_program(&host, "bash");
    // 3 MB of stderr, more than libssh2's 2 MB channel window, before the one line.
    let script = "head -c 3000000 /dev/zero | tr '\\0' x >&2; echo done; echo last words >&2";
    let mut p = host
        .spawn(&bash, &["-c".into(), script.into()], &[])
        .expect("spawn");
    assert_eq!(
        p.recv_line(Duration::from_secs(20)).unwrap().as_deref(),
        Some("done")
    );
    match p.recv_line(Duration::from_secs(10)) {
        Err(RemoteError::Closed { status, stderr, .. }) => {
            assert_eq!(status, Some(0));
            assert!(
                stderr.ends_with("xxxlast words\n"),
                "{:?}",
                &stderr[stderr.len().saturating_sub(40)..]
            );
            assert!(
                stderr.len() <= 4096,
                "only the tail is kept: {}",
                stderr.len()
            );
        }
        other => panic!("expected the end of the process, got {other:?}"),
    }
}

#[test]
fn remote_kill_ends_a_process_that_ignores_its_stdin() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let host = setup.host();
    let sleep = install_program(&host, "sleep");
    let mut p = host.spawn(&sleep, &["300".into()], &[]).expect("spawn");
    assert_eq!(host.processes_of(&sleep).unwrap(), vec![p.pid()]);
    let start = Instant::now();
    p.kill().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(host.processes_of(&sleep).unwrap(), Vec::<u32>::new());
    assert_eq!(p.exit_status(), Some(128 + 15), "ended by TERM");
}

#[test]
fn remote_dropped_process_and_lost_connection_leave_nothing_behind() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let host = setup.host();
    let cat = install_program(&host, "cat");

    let dropped = host.spawn(&cat, &[], &[]).expect("spawn");
    let mut severed = host.spawn(&cat, &[], &[]).expect("spawn");
    let mut both = vec![dropped.pid(), severed.pid()];
    both.sort();
    let mut seen = host.processes_of(&cat).unwrap();
    seen.sort();
    assert_eq!(seen, both);

    drop(dropped);
    // As a network failure would: the process is not told, its stdin simply ends.
    severed.sever_connection();
    let left = wait_until_gone(&host, &cat, Duration::from_secs(5));
    assert!(left.is_empty(), "still running: {left:?}");
    match severed.recv_line(Duration::from_secs(1)) {
        Err(RemoteError::Closed { lost: Some(_), .. }) => {}
        other => panic!("expected a lost connection, got {other:?}"),
    }
}

#[test]
fn remote_process_that_cannot_start_says_why() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let host = setup.host();
    let missing = Installed {
        path: setup
            .dir
            .path()
            .join("no-such-dbdyno")
            .display()
            .to_string(),
        sha256: String::new(),
        copied: false,
        via: None,
    };
    let mut p = host.spawn(&missing, &[], &[]).expect("the wrapper starts");
    match p.recv_line(Duration::from_secs(10)) {
        Err(e @ RemoteError::Closed { .. }) => {
            let RemoteError::Closed { status, stderr, .. } = &e else {
                unreachable!()
            };
            assert_eq!(*status, Some(127), "{e}");
            assert!(stderr.contains("no-such-dbdyno"), "{e}");
        }
        other => panic!("expected the end of the process, got {other:?}"),
    }
}

#[test]
fn remote_refuses_a_host_of_another_platform_before_copying() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let setup = Setup::new();
    let real = setup.host().platform().unwrap();
    assert_eq!(real, Platform::local());
    let pretend = Platform::new("linux", "riscv64");
    let host = setup.host().with_local_platform(pretend);
    let err = host.install(&dbdyno_path()).expect_err("refused");
    let msg = err.to_string();
    assert!(matches!(err, RemoteError::Platform { .. }), "{msg}");
    assert!(msg.contains("linux/riscv64"), "{msg}");
    assert!(msg.contains(&real.to_string()), "{msg}");
    assert!(msg.contains(host.name()), "{msg}");
    assert!(!setup.cache().exists(), "nothing was copied");
}

#[test]
fn remote_default_cache_is_in_the_users_home() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sshd = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let host =
        RemoteHost::connect(&target(&sshd, &sshd.host.clone(), sshd.port, dir.path())).unwrap();
    let home = host.run("echo \"$HOME\"").unwrap().stdout;
    let xdg = host.run("echo \"$XDG_CACHE_HOME\"").unwrap().stdout;
    let base = if xdg.trim().starts_with('/') {
        xdg.trim().to_string()
    } else {
        format!("{}/.cache", home.trim())
    };
    assert_eq!(host.cache_dir().unwrap(), format!("{base}/dbdyno/bin"));
    assert_eq!(
        host.name(),
        format!("{}@{}:{}", sshd.user, sshd.host, sshd.port)
    );
}
