//! No byte of a secret reaches a file the application writes, nor anything it prints.
//!
//! One scenario runs once for this test binary: ladders monitored over SSH with the
//! keyring's passwords and with a passphrase-protected key, the password on the command
//! line and in MYSQL_PWD, a run that fails at its first connection, an imported seed
//! config, reports of JSON files and of the history, and every `runs` and `profile`
//! command reading it all back. Each test then scans one part of what it left behind
//! (the history database, the JSON results, the reports, the saved settings, every other
//! file, the commands' output) for each secret (the MySQL password, the SSH password,
//! the key passphrase) and its common encodings.
//!
//! Non-goal: where secrets are taken from (keyring, environment, terminal), which
//! `secrets.rs` covers.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;
use std::time::Duration;

use dbdyno_profile::{SecretKind, SecretStore};
use dbdyno_tests::*;
use mysql::prelude::Queryable;
use serde_json::Value;

use crate::sshd::{self, Sshd};

/// The scenario runs at the first test that needs it; the others wait for it. A panic
/// while it runs fails every test here. The tests read it before they take the gate's
/// guard: the scenario takes its own, and a test waiting for it must hold none.
static SCENE: LazyLock<Scene> = LazyLock::new(run_scenario);

/// What the scenario left behind, read into memory: its temporary directory is deleted
/// before any test scans (a static is never dropped, so the directory would outlive the
/// run), and its keyring entries and MySQL user are gone too.
struct Scene {
    /// Every file under the scenario's directory, by its path relative to it.
    files: Vec<(PathBuf, Vec<u8>)>,
    /// Every command's stdout and stderr, in the order they ran.
    outputs: Vec<Vec<u8>>,
    /// Each secret as it is, reversed, and in hex.
    needles: Vec<Vec<u8>>,
    /// The MySQL user, which sits in the files right where a password would.
    user: String,
    /// Copies of the history's write-ahead log taken while the first ladder wrote it.
    wal_copies: usize,
    first_ladder_pid: u32,
    /// How many entries each report directory holds.
    report_entries: Vec<(&'static str, usize)>,
    /// The keyring held the profile's MySQL password once every command had run.
    keyring_had_the_password: bool,
}

/// The part of the application a file under the scenario's directory comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    /// The data directory (the history database, its WAL) and the WAL's copies.
    History,
    /// The results written by `--json` and `runs export --json`.
    Json,
    /// The report directories of `--report` and `report`.
    Reports,
    /// The profiles, known_hosts and the profile an imported config became.
    Settings,
    /// Anything else the scenario's commands wrote.
    Other,
}

const REPORT_DIRS: [&str; 3] = ["ladder-report", "report", "report-runs"];

fn part_of(rel: &Path) -> Part {
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    match first.as_str() {
        "data" => Part::History,
        f if f.starts_with("wal-copy-") => Part::History,
        f if REPORT_DIRS.contains(&f) => Part::Reports,
        "config" | "known_hosts" => Part::Settings,
        f if f.ends_with(".toml") => Part::Settings,
        f if f.ends_with(".json") => Part::Json,
        _ => Part::Other,
    }
}

impl Scene {
    fn files_of(&self, part: Part) -> impl Iterator<Item = &(PathBuf, Vec<u8>)> {
        self.files.iter().filter(move |(f, _)| part_of(f) == part)
    }

    fn assert_no_secret_in(&self, part: Part) {
        for (f, bytes) in self.files_of(part) {
            for n in &self.needles {
                assert!(!contains(bytes, n), "the secret is in {}", f.display());
            }
        }
    }

    /// Guards a test against scanning nothing because the files moved elsewhere.
    fn assert_has_files(&self, part: Part) {
        let paths: Vec<&PathBuf> = self.files.iter().map(|(f, _)| f).collect();
        assert!(
            self.files_of(part).next().is_some(),
            "no {part:?} file in {paths:?}"
        );
    }
}

#[test]
fn the_history_database_and_its_write_ahead_log_hold_no_secret() {
    let scene = &*SCENE;
    let _g = shared_server();
    assert!(
        scene.wal_copies > 0,
        "the WAL of ladder {} was seen",
        scene.first_ladder_pid
    );
    let paths: Vec<&PathBuf> = scene.files.iter().map(|(f, _)| f).collect();
    assert!(
        paths
            .iter()
            .any(|f| f.ends_with(dbdyno_history::DB_FILE_NAME)),
        "{paths:?}"
    );
    scene.assert_has_files(Part::History);
    scene.assert_no_secret_in(Part::History);
}

#[test]
fn the_json_results_and_exports_hold_no_secret() {
    let scene = &*SCENE;
    let _g = shared_server();
    scene.assert_has_files(Part::Json);
    scene.assert_no_secret_in(Part::Json);
}

#[test]
fn the_reports_hold_no_secret() {
    let scene = &*SCENE;
    let _g = shared_server();
    scene.assert_has_files(Part::Reports);
    scene.assert_no_secret_in(Part::Reports);
    for (dir, n) in &scene.report_entries {
        assert!(*n >= 3, "{dir} holds the report formats ({n} files)");
    }
}

#[test]
fn the_profiles_known_hosts_and_imported_config_hold_no_secret() {
    let scene = &*SCENE;
    let _g = shared_server();
    scene.assert_has_files(Part::Settings);
    scene.assert_no_secret_in(Part::Settings);
    assert!(
        scene.keyring_had_the_password,
        "the ladder's password came from the keyring"
    );
}

#[test]
fn no_other_file_the_commands_write_holds_a_secret() {
    let scene = &*SCENE;
    let _g = shared_server();
    scene.assert_no_secret_in(Part::Other);
}

#[test]
fn no_command_prints_a_secret() {
    let scene = &*SCENE;
    let _g = shared_server();
    for (i, o) in scene.outputs.iter().enumerate() {
        for n in &scene.needles {
            assert!(
                !contains(o, n),
                "the secret is in captured output #{i}: {}",
                String::from_utf8_lossy(o)
            );
        }
    }
}

/// Positive control: the scan does read the files that hold the connection settings.
#[test]
fn the_scan_finds_the_user_name_where_a_password_would_be() {
    let scene = &*SCENE;
    let _g = shared_server();
    assert!(
        scene
            .files
            .iter()
            .any(|(_, bytes)| contains(bytes, scene.user.as_bytes())),
        "the user name is found, so a password would be too"
    );
}

fn run_scenario() -> Scene {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let mut w = World::new();
    w.store_passwords();
    let (json1, wal_copies, first_ladder_pid) = w.monitored_ladder_copying_the_wal();
    w.ladder_with_a_protected_key();
    let (json2, json3) = w.passwords_on_the_command_line_and_in_mysql_pwd();
    w.run_failing_at_its_first_connection();
    w.import_a_seed_config();
    w.report_of_json_files(&[&json1, &json2, &json3]);
    w.read_everything_back();
    let keyring_had_the_password = SecretStore::new()
        .get(&w.profile, SecretKind::MysqlPassword)
        .unwrap()
        .is_some();
    let report_entries = ["ladder-report", "report-runs"]
        .into_iter()
        .map(|d| (d, std::fs::read_dir(w.path(d)).unwrap().count()))
        .collect();
    let scene = Scene {
        files: read_files_under(w.root.path()),
        needles: needles(&[&w.secret, &w.ssh_password, &w.passphrase]),
        outputs: std::mem::take(&mut w.outputs),
        user: w.user.clone(),
        wal_copies,
        first_ladder_pid,
        report_entries,
        keyring_had_the_password,
    };
    eprintln!(
        "secret-leak scan: {} files, {} bytes, {} outputs",
        scene.files.len(),
        scene.files.iter().map(|(_, b)| b.len()).sum::<usize>(),
        scene.outputs.len()
    );
    scene
}

/// Each secret, as it is and in its common encodings.
fn needles(secrets: &[&str]) -> Vec<Vec<u8>> {
    secrets
        .iter()
        .flat_map(|s| {
            [
                s.as_bytes().to_vec(),
                s.chars().rev().collect::<String>().into_bytes(),
                s.bytes()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
                    .into_bytes(),
            ]
        })
        .collect()
}

/// Every file under `root`, recursively, with its bytes.
fn read_files_under(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    files_under(root, &mut files);
    files
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            (f.strip_prefix(root).unwrap().to_path_buf(), bytes)
        })
        .collect()
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The scenario's world: a MySQL user whose password is the secret, the sshd sandbox's
/// password account and passphrase-protected key, a profile that uses them, and the
/// data and config directories every command shares.
struct World {
    s: TestSchema,
    sb: Sshd,
    root: tempfile::TempDir,
    data: PathBuf,
    config: PathBuf,
    known_hosts: PathBuf,
    profile: String,
    conf_name: String,
    user: String,
    secret: String,
    ssh_pw_user: String,
    ssh_password: String,
    passphrase: String,
    /// Every stdout and stderr, for the scan.
    outputs: Vec<Vec<u8>>,
    /// Keyring entries and the MySQL user go away even when an assertion fails.
    _cleanup: LeakCleanup,
}

impl World {
    fn new() -> World {
        let sb = Sshd::from_env();
        let s = TestSchema::new("leak");
        // The sshd sandbox's secrets: a password account, and a key protected by a passphrase.
        let env = |k: &str| {
            std::env::var(k).unwrap_or_else(|_| panic!("{k}: see scripts/sshd-sandbox.sh"))
        };
        let (ssh_pw_user, ssh_password) = (
            env("DBDYNO_TEST_SSH_PW_USER"),
            env("DBDYNO_TEST_SSH_PASSWORD"),
        );
        let passphrase = env("DBDYNO_TEST_SSH_PASSPHRASE");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let secret = format!("Sekr1t-{}-{nanos}-unique", std::process::id());
        // A user of this process's own: parallel runs of the suite never share it.
        let user = format!("leaktest_{}", std::process::id());
        create_user(&s, &user, &secret);
        let root = tempfile::tempdir().unwrap();
        let (data, config) = (root.path().join("data"), root.path().join("config"));
        std::fs::create_dir_all(config.join("profiles")).unwrap();
        let known_hosts = sb.trusted_known_hosts(root.path());
        let profile = format!("leak-{}", std::process::id());
        let conf_name = format!("leakconf-{}", std::process::id());
        let cleanup = LeakCleanup {
            accounts: vec![profile.clone(), conf_name.clone()],
            user: user.clone(),
            sandbox: Sandbox::from_env(),
        };
        let w = World {
            s,
            sb,
            root,
            data,
            config,
            known_hosts,
            profile,
            conf_name,
            user,
            secret,
            ssh_pw_user,
            ssh_password,
            passphrase,
            outputs: Vec::new(),
            _cleanup: cleanup,
        };
        w.write_profile();
        w
    }

    fn write_profile(&self) {
        let (s, sb, profile, user) = (&self.s, &self.sb, &self.profile, &self.user);
        let ssh_pw_user = &self.ssh_pw_user;
        std::fs::write(
            self.config.join(format!("profiles/{profile}.toml")),
            format!(
                "schema_version = 1\nname = \"{profile}\"\n\n[mysql]\nhost = \"{}\"\nport = {}\nuser = \"{user}\"\ndb = \"{}\"\n\n\
                 [ssh]\nhost = \"{}\"\nport = {}\nuser = \"{ssh_pw_user}\"\nauth = \"password\"\n\n\
                 [plan]\nscenarios = [\"oltp_read_write\"]\nthreads = [1, 2]\ntime = 1\nprepare = true\ncleanup = true\n\n\
                 [workload]\ntables = 1\ntable_size = 500\n",
                s.sandbox.host, s.sandbox.port, s.name, sb.host, sb.port
            ),
        )
        .unwrap();
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    fn cmd(&self) -> Command {
        let mut c = dbdyno_cmd();
        c.env("DBDYNO_DATA_DIR", &self.data)
            .env("DBDYNO_CONFIG_DIR", &self.config)
            .env("DBDYNO_KNOWN_HOSTS", &self.known_hosts)
            .env_remove("DBDYNO_SSH_PASSWORD")
            .env_remove("DBDYNO_SSH_PASSPHRASE")
            .env_remove("SSH_AUTH_SOCK");
        c
    }

    /// Runs the command and keeps its output for the scan.
    fn keep(&mut self, c: &mut Command) -> Output {
        let o = c.output().unwrap();
        self.keep_output(o)
    }

    fn keep_output(&mut self, o: Output) -> Output {
        self.outputs.push(o.stdout.clone());
        self.outputs.push(o.stderr.clone());
        o
    }

    /// The passwords go into the keyring through stdin, never through a file.
    fn store_passwords(&mut self) {
        for (kind, value) in [
            ("mysql", self.secret.clone()),
            ("ssh-password", self.ssh_password.clone()),
        ] {
            let mut set = self
                .cmd()
                .args(["profile", "secret", "set", &self.profile, kind])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            writeln!(set.stdin.take().unwrap(), "{value}").unwrap();
            let o = set.wait_with_output().unwrap();
            ok(&self.keep_output(o));
        }
    }

    /// A full ladder with prepare and cleanup, monitored over SSH with the keyring's SSH
    /// password, writing its report; the MySQL password comes from the keyring. The
    /// history's write-ahead log is copied while the ladder writes (it is folded into the
    /// database when the last connection closes), so it is scanned too. Returns the
    /// ladder's JSON file, the number of copies and the ladder's process id.
    fn monitored_ladder_copying_the_wal(&mut self) -> (PathBuf, usize, u32) {
        let json1 = self.path("ladder.json");
        let wal = self
            .data
            .join(format!("{}-wal", dbdyno_history::DB_FILE_NAME));
        let child = self
            .cmd()
            .args([
                "ladder",
                &format!("--profile={}", self.profile),
                &format!("--json={}", json1.display()),
                &format!("--report={}", self.path("ladder-report").display()),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let child_id = child.id();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let o = child.wait_with_output().unwrap();
            let _ = done_tx.send(());
            o
        });
        let mut wal_copies = 0;
        while done_rx.recv_timeout(Duration::from_millis(100)).is_err() {
            if let Ok(bytes) = std::fs::read(&wal) {
                if !bytes.is_empty() {
                    std::fs::write(self.path(&format!("wal-copy-{wal_copies}")), bytes).unwrap();
                    wal_copies += 1;
                }
            }
        }
        let o = waiter.join().unwrap();
        let out = ok(&self.keep_output(o));
        assert!(out.contains("Machine: "), "monitored over SSH: {out}");
        (json1, wal_copies, child_id)
    }

    /// The same over SSH with a passphrase-protected key (passphrase in the environment,
    /// as DBDYNO_SSH_PASSPHRASE documents).
    fn ladder_with_a_protected_key(&mut self) {
        let protected_key = format!("{}_passphrase", self.sb.key.display());
        let mut c = self.cmd();
        c.args([
            "ladder",
            &format!("--profile={}", self.profile),
            "--threads=1",
            "--ssh-user=root",
            "--ssh-auth=key",
            &format!("--ssh-key-path={protected_key}"),
        ])
        .env("DBDYNO_SSH_PASSPHRASE", &self.passphrase);
        ok(&self.keep(&mut c));
    }

    /// The password on the command line, then in MYSQL_PWD with the sysbench form.
    /// Returns the two runs' JSON files.
    fn passwords_on_the_command_line_and_in_mysql_pwd(&mut self) -> (PathBuf, PathBuf) {
        let (secret, user) = (self.secret.clone(), self.user.clone());
        let json2 = self.path("ladder2.json");
        let mut c = self.cmd();
        c.args([
            "ladder",
            &format!("--profile={}", self.profile),
            &format!("--mysql-password={secret}"),
            "--mysql-password-from=env",
            "--threads=1",
            &format!("--json={}", json2.display()),
        ]);
        ok(&self.keep(&mut c));
        let conn: Vec<String> = vec![
            format!("--mysql-host={}", self.s.sandbox.host),
            format!("--mysql-port={}", self.s.sandbox.port),
            format!("--mysql-user={user}"),
            format!("--mysql-db={}", self.s.name),
        ];
        let mut a: Vec<String> = ["oltp_point_select", "--tables=1", "--table-size=200"]
            .iter()
            .map(|x| x.to_string())
            .collect();
        a.extend(conn.iter().cloned());
        let mut c = self.cmd();
        c.args(&a).arg("prepare").env("MYSQL_PWD", &secret);
        ok(&self.keep(&mut c));
        let json3 = self.path("run.json");
        let mut c = self.cmd();
        c.args(&a)
            .args([
                "--time=1",
                "--report-interval=1",
                "--histogram",
                &format!("--json={}", json3.display()),
                "run",
            ])
            .env("MYSQL_PWD", &secret);
        ok(&self.keep(&mut c));
        (json2, json3)
    }

    /// A wrong schema: the run's error is printed, the run is not kept.
    fn run_failing_at_its_first_connection(&mut self) {
        let mut c = self.cmd();
        c.args([
            "ladder",
            &format!("--profile={}", self.profile),
            "--mysql-db=no_such_db_leak",
            "--prepare=off",
            "--cleanup=off",
            "--skip-checks",
        ]);
        self.keep(&mut c);
    }

    /// A seed config with the password, imported.
    fn import_a_seed_config(&mut self) {
        let conf = self.path("benchmark_config.conf");
        std::fs::write(
            &conf,
            format!(
                "MYSQL_HOST=127.0.0.1\nMYSQL_PASSWORD={}\nTABLES=1\n",
                self.secret
            ),
        )
        .unwrap();
        let out = self.path(&format!("{}.toml", self.conf_name));
        let mut c = self.cmd();
        c.args([
            "import",
            "config",
            conf.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        ok(&self.keep(&mut c));
        std::fs::remove_file(&conf).unwrap(); // the user's own file, not one we wrote
    }

    /// A report of the runs' JSON files (every format).
    fn report_of_json_files(&mut self, json: &[&Path]) {
        let inputs: Vec<String> = json.iter().map(|j| j.display().to_string()).collect();
        let mut c = self.cmd();
        c.args([
            "report",
            &format!("--input={}", inputs.join(",")),
            &format!("--out-dir={}", self.path("report").display()),
        ]);
        ok(&self.keep(&mut c));
    }

    /// Everything read back out: the runs listed, reported straight from the history
    /// (every format), shown and exported one by one, and the profiles listed.
    fn read_everything_back(&mut self) {
        let list = self.keep(self.cmd().args(["runs", "list", "--json"]));
        let listed: Value = serde_json::from_str(&ok(&list)).unwrap();
        let rows = listed.as_array().unwrap();
        assert!(rows.len() >= 4, "{listed}");
        let states: Vec<&str> = rows.iter().map(|r| r["state"].as_str().unwrap()).collect();
        // The wrong schema stopped the run at its first connection: nothing is kept.
        assert!(!states.contains(&"failed"), "{states:?}");
        let with_steps: Vec<String> = rows
            .iter()
            .filter(|r| r["steps"].as_u64().unwrap_or(0) > 0)
            .map(|r| r["id"].to_string())
            .collect();
        assert!(with_steps.len() >= 3, "{listed}");
        let mut c = self.cmd();
        c.args([
            "report",
            &format!("--runs={}", with_steps.join(",")),
            &format!("--out-dir={}", self.path("report-runs").display()),
        ]);
        ok(&self.keep(&mut c));
        for r in rows {
            let id = r["id"].to_string();
            ok(&self.keep(self.cmd().args(["runs", "show", &id])));
            ok(&self.keep(self.cmd().args(["runs", "show", &id, "--json"])));
            let export = self.path(&format!("export-{id}.json"));
            let mut c = self.cmd();
            c.args(["runs", "export", &id, "--json", "-o"]).arg(&export);
            ok(&self.keep(&mut c));
        }
        ok(&self.keep(self.cmd().args(["profile", "list", "--json"])));
        let mut c = self.cmd();
        c.args(["profile", "secret", "status", &self.profile]);
        ok(&self.keep(&mut c));
    }
}

fn create_user(s: &TestSchema, user: &str, secret: &str) {
    let mut admin = s.sandbox.admin();
    admin
        .query_drop(format!("DROP USER IF EXISTS '{user}'@'127.0.0.1'"))
        .unwrap();
    admin
        .query_drop(format!(
            "CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{secret}'"
        ))
        .unwrap();
    admin
        .query_drop(format!(
            "GRANT ALL ON `{}`.* TO '{user}'@'127.0.0.1'",
            s.name
        ))
        .unwrap();
}

struct LeakCleanup {
    accounts: Vec<String>,
    user: String,
    sandbox: Sandbox,
}

impl Drop for LeakCleanup {
    fn drop(&mut self) {
        let store = SecretStore::new();
        for a in &self.accounts {
            let _ = store.delete(a, SecretKind::MysqlPassword);
            let _ = store.delete(a, SecretKind::SshPassword);
        }
        let user = &self.user;
        let _ = self
            .sandbox
            .admin()
            .query_drop(format!("DROP USER IF EXISTS '{user}'@'127.0.0.1'"));
    }
}
