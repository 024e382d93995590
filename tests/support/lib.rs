//! Shared helpers for the integration tests: a private schema per test on the sandbox
//! MariaDB, the `dbdyno` binary, and the gate every test passes (`gate.rs`): shared with
//! others, or alone for tests that measure. A test that restarts a server or changes
//! its settings does it on a [`PrivateSandbox`] of its own and shares.
//!
//! The tests need the real server: `scripts/test.sh` starts the sandbox and exports
//! `DBDYNO_TEST_MYSQL_*`. Without them a test fails with a message saying so; nothing
//! is skipped silently.

use std::path::PathBuf;
use std::process::{Command, Output};

use dbdyno_engine::ConnectOptions;
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the integration tests through scripts/test.sh (it starts the sandbox MariaDB and exports DBDYNO_TEST_MYSQL_*)")
    })
}

mod gate;
pub mod netns;

pub use gate::{shared_limit, Announced, Gate, MachineLock, ServerGuard};

/// The test binary's one gate: its tests alone also wait for the suites that
/// scripts/test.sh runs beside the binary (`DBDYNO_MACHINE_LOCK`).
static GATE: gate::Gate = gate::Gate::with_machine_lock(gate::MachineLock::FromEnv);

/// Every test's last lock, unless it must run alone: it runs beside other shared tests
/// (at most [`shared_limit`] at once), never beside a test alone.
pub fn shared_server() -> ServerGuard {
    GATE.share(shared_limit(), false)
}

/// [`shared_server`] for the few shared tests that take a minute or so: they get a
/// place before the other shared tests waiting for one, so that none of them starts
/// last and runs on alone while the tests that must run alone wait behind it
/// (`DBDYNO_TEST_TIMES` says which tests are long). Needs as many libtest threads as
/// tests, so that every test waits at the gate from the start (scripts/test.sh).
pub fn shared_server_long() -> ServerGuard {
    GATE.share(shared_limit(), true)
}

/// Said first by a shared test that waits for another lock before [`shared_server`]
/// (`Gate::announce_shared`): the tests alone wait for it, as for a test waiting at the
/// gate. Held to the test's end.
pub fn will_share() -> Announced {
    GATE.announce_shared()
}

/// For a test that measures timings, rates or CPU, or whose load the tests beside it
/// would measure: it runs with no other test of this binary beside it, and once what
/// the tests before it left running has calmed down (`gate::wait_for_a_quiet_machine`).
/// (A test that restarts the server or sets its globals uses a [`PrivateSandbox`].)
pub fn exclusive_server() -> ServerGuard {
    let guard = GATE.alone();
    gate::wait_for_a_quiet_machine();
    guard
}

pub struct Sandbox {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub admin_user: String,
    pub admin_password: String,
}

impl Sandbox {
    pub fn from_env() -> Sandbox {
        Sandbox {
            host: env("DBDYNO_TEST_MYSQL_HOST"),
            port: env("DBDYNO_TEST_MYSQL_PORT")
                .parse()
                .expect("DBDYNO_TEST_MYSQL_PORT is a port"),
            user: env("DBDYNO_TEST_MYSQL_USER"),
            password: env("DBDYNO_TEST_MYSQL_PASSWORD"),
            admin_user: env("DBDYNO_TEST_MYSQL_ADMIN_USER"),
            admin_password: env("DBDYNO_TEST_MYSQL_ADMIN_PASSWORD"),
        }
    }

    pub fn admin(&self) -> Conn {
        let opts = OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .user(Some(self.admin_user.clone()))
            .pass(Some(self.admin_password.clone()))
            .prefer_socket(false);
        Conn::new(opts).expect("admin connection to the sandbox MariaDB")
    }
}

/// A schema of its own for one test, dropped when the test ends.
pub struct TestSchema {
    pub name: String,
    pub sandbox: Sandbox,
}

impl TestSchema {
    pub fn new(tag: &str) -> TestSchema {
        TestSchema::on(Sandbox::from_env(), tag)
    }

    /// A schema on another server than the shared sandbox (a [`PrivateSandbox`]).
    pub fn on(sandbox: Sandbox, tag: &str) -> TestSchema {
        // The pid keeps two test runs against one sandbox out of each other's way.
        let name = format!("dbdyno_t_{tag}_{}", std::process::id());
        let mut admin = sandbox.admin();
        admin
            .query_drop(format!("DROP DATABASE IF EXISTS `{name}`"))
            .unwrap();
        admin
            .query_drop(format!("CREATE DATABASE `{name}`"))
            .unwrap();
        for host in ["127.0.0.1", "localhost"] {
            admin
                .query_drop(format!(
                    "GRANT ALL ON `{name}`.* TO '{}'@'{host}'",
                    sandbox.user
                ))
                .unwrap();
        }
        TestSchema { name, sandbox }
    }

    pub fn connect_options(&self) -> ConnectOptions {
        ConnectOptions {
            host: self.sandbox.host.clone(),
            port: self.sandbox.port,
            user: self.sandbox.user.clone(),
            password: Some(self.sandbox.password.clone()),
            database: self.name.clone(),
            ..Default::default()
        }
    }

    /// The connection flags every dbdyno and sysbench command of this test needs
    /// (the password goes through MYSQL_PWD for dbdyno).
    pub fn mysql_args(&self) -> Vec<String> {
        vec![
            format!("--mysql-host={}", self.sandbox.host),
            format!("--mysql-port={}", self.sandbox.port),
            format!("--mysql-user={}", self.sandbox.user),
            format!("--mysql-db={}", self.name),
        ]
    }

    pub fn conn(&self) -> Conn {
        let mut c = self.sandbox.admin();
        c.query_drop(format!("USE `{}`", self.name)).unwrap();
        c
    }

    pub fn tables(&self) -> Vec<String> {
        self.conn()
            .query(format!(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA='{}' ORDER BY TABLE_NAME",
                self.name
            ))
            .unwrap()
    }

    pub fn count(&self, table: &str) -> u64 {
        self.conn()
            .query_first(format!("SELECT COUNT(*) FROM `{table}`"))
            .unwrap()
            .unwrap()
    }

    /// Starts `dbdyno` in the background (for tests that interrupt it), with the
    /// schema's connection flags and `--json=json_file`, output captured.
    pub fn spawn_dbdyno(&self, args: &[&str], json_file: &std::path::Path) -> std::process::Child {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(self.mysql_args());
        all.push(format!("--json={}", json_file.display()));
        dbdyno_cmd()
            .args(&all)
            .env("MYSQL_PWD", &self.sandbox.password)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start dbdyno")
    }

    /// A ladder of oltp_point_select steps at `threads`, `time_s` seconds each, with
    /// one-second records, on one table of 1,000 rows prepared first and dropped last:
    /// the smallest whole run, for tests of what happens around the load.
    pub fn point_select_ladder(&self, threads: Vec<u32>, time_s: u64) -> dbdyno_engine::Plan {
        use dbdyno_engine::{LadderSpec, RunSettings, Scenario, WorkloadOptions};
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            threads,
            settings: RunSettings {
                time_s,
                report_interval_s: 1,
                ..Default::default()
            },
            prepare: dbdyno_engine::PrepareMode::IfMissing,
            cleanup: true,
            ..Default::default()
        };
        dbdyno_engine::Plan {
            connect: self.connect_options(),
            workload: WorkloadOptions {
                tables: 1,
                table_size: 1000,
                ..Default::default()
            },
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        }
    }

    /// Prepares one table of `rows` rows for `workload` (sbtest1), asserting success.
    pub fn prepare_one_table(&self, workload: &str, rows: u64) {
        let size = format!("--table-size={rows}");
        ok(&self.dbdyno(&[workload, "--tables=1", &size, "prepare"]));
    }

    /// Runs `dbdyno` with these arguments and the schema's connection flags.
    pub fn dbdyno(&self, args: &[&str]) -> Output {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(self.mysql_args());
        dbdyno_cmd()
            .args(&all)
            .env("MYSQL_PWD", &self.sandbox.password)
            .output()
            .expect("run dbdyno")
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        if let Ok(mut admin) = std::panic::catch_unwind(|| self.sandbox.admin()) {
            let _ = admin.query_drop(format!("DROP DATABASE IF EXISTS `{}`", self.name));
        }
    }
}

/// The `dbdyno` binary that `cargo test --workspace` built next to this test.
pub fn dbdyno_path() -> PathBuf {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop(); // the test binary
    if dir.ends_with("deps") {
        dir.pop();
    }
    let bin = dir.join("dbdyno");
    assert!(
        bin.exists(),
        "{} is missing: build it with `cargo build -p dbdyno-cli` (cargo test --workspace does)",
        bin.display()
    );
    bin
}

pub fn dbdyno_cmd() -> Command {
    let mut c = Command::new(dbdyno_path());
    c.env_remove("MYSQL_PWD");
    // No test writes into the user's real history or profiles: every dbdyno this test
    // binary starts uses a private data and config directory unless the test gives its own.
    let dirs = private_dirs();
    c.env("DBDYNO_DATA_DIR", dirs.join("data"));
    c.env("DBDYNO_CONFIG_DIR", dirs.join("config"));
    c
}

/// The data and config directories of this test process's dbdyno runs: under the target
/// directory (a static is never dropped, so a temp dir would outlive every run in /tmp).
fn private_dirs() -> PathBuf {
    let mut dir = dbdyno_path();
    dir.pop();
    dir.join("it-home").join(std::process::id().to_string())
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts success and returns stdout, showing both streams on failure.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "command failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// `--data-dir=<dir>`: a test's own run history.
pub fn data_dir_arg(dir: &std::path::Path) -> String {
    format!("--data-dir={}", dir.display())
}

/// The id in a recording command's `Run id: N` line.
pub fn run_id(output: &str) -> i64 {
    let line = output
        .lines()
        .find(|l| l.starts_with("Run id: "))
        .unwrap_or_else(|| panic!("no run id: {output}"));
    line["Run id: ".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// A recorded run as `runs show --json` gives it, from the history in `dir`.
pub fn runs_show(dir: &std::path::Path, id: i64) -> serde_json::Value {
    let text = ok(&dbdyno_cmd()
        .args([
            "runs",
            "show",
            &id.to_string(),
            "--json",
            &data_dir_arg(dir),
        ])
        .output()
        .unwrap());
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Renders run `id` of the history in `data_dir` in every report format, as `r.html`,
/// `r.md`, `r.pdf`, `r.csv` and `r.json` in the directory returned.
pub fn report_every_format(id: i64, data_dir: &std::path::Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let f = |name: &str| dir.path().join(name);
    ok(&dbdyno_cmd()
        .args([
            "report".to_string(),
            format!("--runs={id}"),
            format!("--html={}", f("r.html").display()),
            format!("--md={}", f("r.md").display()),
            format!("--pdf={}", f("r.pdf").display()),
            format!("--csv={}", f("r.csv").display()),
            format!("--json={}", f("r.json").display()),
            data_dir_arg(data_dir),
        ])
        .output()
        .unwrap());
    dir
}

/// `SHOW GLOBAL STATUS` as numbers.
pub fn global_status(c: &mut Conn) -> std::collections::HashMap<String, f64> {
    let rows: Vec<(String, String)> = c.query("SHOW GLOBAL STATUS").unwrap();
    rows.into_iter()
        .filter_map(|(k, v)| v.parse::<f64>().ok().map(|n| (k, n)))
        .collect()
}

/// The sandbox control script, for tests that restart the server.
pub fn sandbox_script() -> PathBuf {
    PathBuf::from(env("DBDYNO_SANDBOX_SCRIPT"))
}

/// A loopback port nothing listens on now: bound, then given back.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// A MariaDB of a test's own, with settings the shared sandbox must not have (a tiny
/// accept queue, more connections): `scripts/sandbox.sh` in a private directory on a
/// free port, with `extra_cnf` appended to its config. Stopped and deleted on drop.
pub struct PrivateSandbox {
    dir: PathBuf,
    pub port: u16,
    /// Given to every `sandbox.sh` call: it writes the config at each start, so a
    /// restart without it would lose the test's settings.
    extra_cnf: String,
    /// The network namespace the server runs in (`ip netns exec`), if not this one.
    netns: Option<String>,
}

impl PrivateSandbox {
    pub fn start(tag: &str, extra_cnf: &str) -> PrivateSandbox {
        Self::start_in(tag, extra_cnf, None)
    }

    /// [`Self::start`] inside the network namespace `netns` (a test's own, made with
    /// `ip netns add`): `extra_cnf` then names the address it listens on.
    pub fn start_in(tag: &str, extra_cnf: &str, netns: Option<&str>) -> PrivateSandbox {
        // A short path: the server's unix socket lives in it (108 bytes at most).
        let dir = std::env::temp_dir().join(format!("dbdyno-{tag}-{}", std::process::id()));
        let port = free_port();
        let sandbox = PrivateSandbox {
            dir,
            port,
            extra_cnf: extra_cnf.to_string(),
            netns: netns.map(str::to_string),
        };
        sandbox.control("start");
        sandbox
    }

    /// The private server's accounts (the shared sandbox's, on its own port).
    pub fn sandbox(&self) -> Sandbox {
        Sandbox {
            port: self.port,
            ..Sandbox::from_env()
        }
    }

    /// The server's process id (from its pid file).
    pub fn pid(&self) -> u32 {
        let file = self.dir.join("mysqld.pid");
        std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .trim()
            .parse()
            .expect("a pid in mysqld.pid")
    }

    /// `scripts/sandbox.sh VERB` on this server (`stop`, `start`, `restart`), which must
    /// succeed.
    pub fn control(&self, verb: &str) {
        let out = self.script().arg(verb).output().expect("run sandbox.sh");
        assert!(
            out.status.success(),
            "private sandbox {verb} failed:\n{}{}",
            stdout(&out),
            stderr(&out)
        );
    }

    /// Runs SQL as the server's admin, through its socket (`sandbox.sh sql -e`).
    pub fn sql(&self, sql: &str) {
        let out = self.script().args(["sql", "-e", sql]).output().unwrap();
        assert!(out.status.success(), "{sql}: {}", stderr(&out));
    }

    fn script(&self) -> Command {
        let mut c = match &self.netns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, "bash"]);
                c
            }
            None => Command::new("bash"),
        };
        c.arg(sandbox_script())
            .env("DBDYNO_SANDBOX_DIR", &self.dir)
            .env("DBDYNO_SANDBOX_PORT", self.port.to_string())
            .env("DBDYNO_SANDBOX_EXTRA_CNF", &self.extra_cnf);
        c
    }

    /// The connection flags for `dbdyno` (password through MYSQL_PWD, as for [`TestSchema`]).
    pub fn mysql_args(&self) -> Vec<String> {
        let s = Sandbox::from_env();
        vec![
            format!("--mysql-host={}", s.host),
            format!("--mysql-port={}", self.port),
            format!("--mysql-user={}", s.user),
            "--mysql-db=sbtest".to_string(),
        ]
    }

    pub fn dbdyno(&self, args: &[&str]) -> Output {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(self.mysql_args());
        dbdyno_cmd()
            .args(&all)
            .env("MYSQL_PWD", Sandbox::from_env().password)
            .output()
            .expect("run dbdyno")
    }
}

impl Drop for PrivateSandbox {
    fn drop(&mut self) {
        let _ = self.script().arg("reset").output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Percona's sysbench-tpcc, the yardstick the `tpcc` workload is compared with: from
/// `DBDYNO_SYSBENCH_TPCC_DIR`, or `shared/reference/sysbench-tpcc` beside the project's
/// directory (where the team keeps its reference implementations, unchanged; it is not
/// part of this repository and no registry offers it). `None`, said on stderr, when it
/// is not there: the comparison is then skipped, unless `DBDYNO_REQUIRE_REFERENCE=1`
/// (set by scripts/test.sh when it found the reference) makes its absence a failure.
pub fn sysbench_tpcc_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("DBDYNO_SYSBENCH_TPCC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/reference/sysbench-tpcc")
        });
    if dir.join("tpcc.lua").exists() {
        return Some(dir);
    }
    assert!(
        std::env::var("DBDYNO_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "sysbench-tpcc is not in {}: set DBDYNO_SYSBENCH_TPCC_DIR to its directory",
        dir.display()
    );
    eprintln!(
        "SKIPPED: the comparison with sysbench-tpcc (not found in {}; set DBDYNO_SYSBENCH_TPCC_DIR)",
        dir.display()
    );
    None
}

/// `sysbench` to run sysbench-tpcc's scripts from `dir` (they `require` each other from
/// there), with a `sleep` that returns at once first on PATH. The reference's prepare
/// sleeps 30 s (`os.execute("sleep 30")`) so that other threads' tables exist before
/// they load; with one thread there are none to wait for, and a prepare with
/// `--threads=1` keeps to seconds.
pub fn sysbench_tpcc_command(dir: &std::path::Path) -> Command {
    let mut c = Command::new("sysbench");
    c.current_dir(dir).env("PATH", path_with_an_instant_sleep());
    c
}

/// PATH with a directory of this test process's own first, holding a `sleep` that exits 0.
fn path_with_an_instant_sleep() -> std::ffi::OsString {
    static SHIM: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let shim = SHIM.get_or_init(|| {
        let dir = private_dirs().join("instant-sleep");
        std::fs::create_dir_all(&dir).expect("create the sleep shim's directory");
        let sleep = dir.join("sleep");
        std::fs::write(&sleep, "#!/bin/sh\nexit 0\n").expect("write the sleep shim");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&sleep, std::fs::Permissions::from_mode(0o755))
                .expect("make the sleep shim executable");
        }
        dir
    });
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(shim.clone()).chain(std::env::split_paths(&path)))
        .expect("PATH entries without separators")
}

/// A server of the test's own with `local_infile` off (set in its config, so the test
/// changes nothing the other tests' server has).
pub fn server_without_local_infile(tag: &str) -> PrivateSandbox {
    PrivateSandbox::start(tag, "local_infile = 0")
}

/// Reads a child's stdout line by line on a thread, so that a test can wait for a line
/// while the command runs (the sender goes away when stdout closes).
pub fn lines_of(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let stdout = child.stdout.take().expect("the child's stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
