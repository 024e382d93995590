//! Gathers every fact the checks and the environment snapshot need, once, before any
//! of them is judged: the MySQL side over one connection, the OS side over one SSH
//! session (or locally), and this machine's own facts.
//!
//! Failures are facts too: an unreachable server or a refused host key is recorded
//! (with the message to show) instead of returned, so the checks can say what was
//! seen. The judging happens in [`crate::checks`], on these plain structs.
//!
//! Non-goals: no verdicts, no printing, no sampling.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use dbdyno_engine::phases::schema::{self, TableInfo};
use dbdyno_engine::{driver, ConnectOptions};
use dbdyno_monitor::{ClockSync, DataDisk, SshError};
use mysql::prelude::Queryable;
use mysql::Conn;

use crate::host::{HostAccess, HostShell};
use crate::os_facts::{self, OsFacts};
use crate::sql::{self, MysqlClock, RoundTrip, ServerVersion};

/// Variables recorded with every run and read by the checks. Names a server does not
/// know are simply absent (MariaDB has no innodb_redo_log_capacity, MySQL 8 no tx_isolation).
pub const VARIABLES: &[&str] = &[
    "innodb_buffer_pool_size",
    "innodb_buffer_pool_instances",
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "log_bin",
    "binlog_format",
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_log_file_size",
    "innodb_log_files_in_group",
    "innodb_redo_log_capacity",
    "innodb_log_buffer_size",
    "innodb_flush_method",
    "innodb_doublewrite",
    "innodb_page_size",
    "innodb_file_per_table",
    "innodb_adaptive_hash_index",
    "innodb_thread_concurrency",
    "innodb_read_io_threads",
    "innodb_write_io_threads",
    "innodb_flush_neighbors",
    "max_connections",
    "max_user_connections",
    "max_prepared_stmt_count",
    "transaction_isolation",
    "tx_isolation",
    "thread_handling",
    "thread_pool_size",
    "table_open_cache",
    "thread_cache_size",
    "performance_schema",
    "query_cache_type",
    "query_cache_size",
    "character_set_server",
    "default_storage_engine",
    "datadir",
    "innodb_data_home_dir",
    "innodb_log_group_home_dir",
    "innodb_undo_directory",
    "log_bin_basename",
    "version",
    "version_comment",
    "version_compile_machine",
    "hostname",
    "port",
];

/// Everything gathered.
#[derive(Debug, Clone)]
pub struct Facts {
    /// Where and as whom (the password is never kept in messages).
    pub endpoint: String,
    pub user: String,
    pub schema: String,
    pub mysql: Result<MysqlFacts, MysqlProblem>,
    pub host: HostFacts,
    pub client: ClientFacts,
    pub taken_unix_ms: i64,
}

/// Why the MySQL side could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct MysqlProblem {
    pub message: String,
    pub code: Option<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MysqlFacts {
    /// `CURRENT_USER()`: the account the server matched ("sbtest@127.0.0.1").
    pub current_user: String,
    pub version: ServerVersion,
    pub variables: BTreeMap<String, String>,
    pub status: HashMap<String, u64>,
    pub privileges: Privileges,
    pub schema_exists: bool,
    /// Base tables of the target schema (empty when it does not exist).
    pub tables: BTreeMap<String, TableInfo>,
    /// DATA_LENGTH + INDEX_LENGTH and TABLE_ROWS (an estimate) of the sbtestN tables.
    pub benchmark_bytes: u64,
    pub benchmark_rows: u64,
    pub clock: Option<MysqlClock>,
    pub round_trip: Option<RoundTrip>,
    pub connect_ms: f64,
}

impl MysqlFacts {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    pub fn var_u64(&self, name: &str) -> Option<u64> {
        self.var(name).and_then(|v| v.parse().ok())
    }

    pub fn status(&self, name: &str) -> Option<u64> {
        self.status.get(name).copied()
    }
}

/// The account's privileges that matter here, from information_schema (privileges
/// that come through roles are not listed there; `roles` flags that case).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Privileges {
    pub global: BTreeSet<String>,
    /// Granted on a pattern that matches the target schema.
    pub on_schema: BTreeSet<String>,
    /// The account has a role active: privileges may come from it and not be listed.
    pub roles: bool,
}

impl Privileges {
    pub fn has(&self, p: &str) -> bool {
        self.global.contains(p) || self.on_schema.contains(p)
    }

    /// May run SET GLOBAL on the variables the fixes touch.
    pub fn can_set_global(&self) -> bool {
        self.global.contains("SUPER") || self.global.contains("SYSTEM_VARIABLES_ADMIN")
    }
}

/// The OS side.
#[derive(Debug, Clone)]
pub struct HostFacts {
    /// "ssh root@db1:22", "this machine (/proc)" or "none".
    pub access: String,
    pub kind: AccessKind,
    /// Why there is no OS access (for `AccessKind::None`).
    pub none_why: Option<String>,
    /// The SSH session's outcome (for `AccessKind::Ssh`).
    pub ssh: Option<Result<SshOk, SshProblem>>,
    pub os: Option<OsFacts>,
    /// Why `os` is missing although access was possible.
    pub os_error: Option<String>,
    pub data_disks: Vec<RoleDisk>,
    pub disk_error: Option<String>,
    /// `--device` named something that is not a block device on the server.
    pub device_error: Option<String>,
    /// `--device` choices worth a warning (a partition instead of its disk).
    pub device_warnings: Vec<String>,
    pub clock: Option<ClockSync>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    Ssh,
    Local,
    None,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SshOk {
    pub fingerprint: String,
    pub connect_ms: f64,
}

/// Where an SSH connection stopped, and the monitor crate's message for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SshProblem {
    pub stage: SshStage,
    pub message: String,
    /// The key's fingerprint when the host key was the problem.
    pub fingerprint: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SshStage {
    /// Name, TCP or handshake.
    Reach,
    HostKey,
    Auth,
    /// After login (a command failed).
    Session,
}

impl SshProblem {
    pub fn from_error(e: &SshError) -> SshProblem {
        let (stage, fingerprint) = match e {
            SshError::Resolve { .. }
            | SshError::Connect { .. }
            | SshError::Handshake { .. }
            | SshError::NoHostKey { .. } => (SshStage::Reach, None),
            SshError::UnknownHostKey(u) => (SshStage::HostKey, Some(u.key.fingerprint_sha256())),
            SshError::HostKeyChanged { fingerprint, .. }
            | SshError::HostKeyRevoked { fingerprint, .. }
            | SshError::HostKeyPinMismatch { fingerprint, .. } => {
                (SshStage::HostKey, Some(fingerprint.clone()))
            }
            SshError::HostKeyOtherTypesKnown { key, .. } => (
                SshStage::HostKey,
                key.rsplit(' ').next().map(str::to_string),
            ),
            SshError::KnownHostsRead(_) | SshError::KnownHostsWrite { .. } => {
                (SshStage::HostKey, None)
            }
            SshError::KeyFile { .. }
            | SshError::AuthKey { .. }
            | SshError::AuthPassword { .. }
            | SshError::AuthAgent { .. } => (SshStage::Auth, None),
            _ => (SshStage::Session, None),
        };
        SshProblem {
            stage,
            message: e.to_string(),
            fingerprint,
        }
    }
}

/// A directory MySQL writes to and the disk under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleDisk {
    /// "data directory", "redo log", "binary log"…
    pub role: String,
    pub disk: DataDisk,
}

/// This machine (the load generator).
#[derive(Debug, Clone, PartialEq)]
pub struct ClientFacts {
    pub hostname: Option<String>,
    pub cores: u32,
    pub boot_id: Option<String>,
}

impl ClientFacts {
    pub fn here() -> ClientFacts {
        ClientFacts {
            hostname: os_facts::local_hostname(),
            cores: dbdyno_engine::exec::client_cores(),
            boot_id: os_facts::local_boot_id(),
        }
    }
}

/// Gathers all facts. `devices` overrides the resolved data disk (`--device`).
pub fn gather(connect: &ConnectOptions, access: &HostAccess, devices: &[String]) -> Facts {
    let mysql = gather_mysql(connect);
    let dirs = match &mysql {
        Ok(m) => mysql_dirs(&m.variables),
        Err(_) => Vec::new(),
    };
    let host = gather_host(access, &dirs, devices);
    Facts {
        endpoint: connect.endpoint(),
        user: connect.user.clone(),
        schema: connect.database.clone(),
        mysql,
        host,
        client: ClientFacts::here(),
        taken_unix_ms: dbdyno_monitor::local::unix_ms_now(),
    }
}

fn problem(e: &mysql::Error) -> MysqlProblem {
    let (code, message) = match e {
        mysql::Error::MySqlError(me) => (Some(me.code), me.message.clone()),
        other => (None, other.to_string()),
    };
    MysqlProblem { message, code }
}

/// The MySQL side. Only the connection itself is fatal; a query the account may not
/// run leaves its field empty.
pub fn gather_mysql(c: &ConnectOptions) -> Result<MysqlFacts, MysqlProblem> {
    let t = Instant::now();
    let mut conn = sql::connect_server(c).map_err(|e| MysqlProblem {
        code: e.server_code(),
        message: e.to_string(),
    })?;
    let connect_ms = t.elapsed().as_secs_f64() * 1000.0;
    let variables = sql::variables(&mut conn, VARIABLES).map_err(|e| problem(&e))?;
    let version = ServerVersion::parse(
        variables.get("version").map(String::as_str).unwrap_or(""),
        variables
            .get("version_comment")
            .map(String::as_str)
            .unwrap_or(""),
    );
    let status = driver::global_status(&mut conn).unwrap_or_default();
    let current_user: String = conn
        .query_first("SELECT CURRENT_USER()")
        .ok()
        .flatten()
        .unwrap_or_else(|| c.user.clone());
    let privileges = privileges(&mut conn, &current_user, &c.database);
    let schema_exists = conn
        .exec_first::<String, _, _>(
            "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
            (c.database.as_str(),),
        )
        .ok()
        .flatten()
        .is_some();
    let mut tables = BTreeMap::new();
    let (mut benchmark_bytes, mut benchmark_rows) = (0, 0);
    if schema_exists && conn.select_db(&c.database).is_ok() {
        tables = schema::list_tables(&mut conn).unwrap_or_default();
        let sizes: Option<(Option<u64>, Option<u64>)> = conn
            .exec_first(
                "SELECT SUM(DATA_LENGTH + INDEX_LENGTH), SUM(TABLE_ROWS) FROM information_schema.TABLES \
                 WHERE TABLE_SCHEMA = ? AND TABLE_NAME REGEXP '^sbtest[1-9][0-9]*$'",
                (c.database.as_str(),),
            )
            .ok()
            .flatten();
        if let Some((bytes, rows)) = sizes {
            benchmark_bytes = bytes.unwrap_or(0);
            benchmark_rows = rows.unwrap_or(0);
        }
    }
    let clock = sql::measure_clock(&mut conn, 5).ok().flatten();
    let round_trip = sql::measure_round_trip(&mut conn, 10).ok();
    Ok(MysqlFacts {
        current_user,
        version,
        variables,
        status,
        privileges,
        schema_exists,
        tables,
        benchmark_bytes,
        benchmark_rows,
        clock,
        round_trip,
        connect_ms,
    })
}

/// `'user'@'host'` as information_schema writes grantees, from CURRENT_USER()'s `user@host`.
fn grantee(current_user: &str) -> String {
    let (user, host) = current_user.rsplit_once('@').unwrap_or((current_user, "%"));
    format!("'{user}'@'{host}'")
}

fn privileges(conn: &mut Conn, current_user: &str, schema: &str) -> Privileges {
    let g = grantee(current_user);
    let global: BTreeSet<String> = conn
        .exec::<String, _, _>(
            "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?",
            (g.as_str(),),
        )
        .unwrap_or_default()
        .into_iter()
        .collect();
    let on_schema = conn
        .exec::<(String, String), _, _>(
            "SELECT TABLE_SCHEMA, PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ?",
            (g.as_str(),),
        )
        .unwrap_or_default()
        .into_iter()
        .filter(|(pattern, _)| grant_pattern_matches(pattern, schema))
        .map(|(_, p)| p)
        .collect();
    let roles = conn
        .query_first::<Option<String>, _>("SELECT CURRENT_ROLE()")
        .ok()
        .flatten()
        .flatten()
        .is_some_and(|r| !r.is_empty() && r != "NONE");
    Privileges {
        global,
        on_schema,
        roles,
    }
}

/// GRANT's schema patterns: `%` and `_` are wildcards, `\_` and `\%` literal.
pub fn grant_pattern_matches(pattern: &str, name: &str) -> bool {
    fn m(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('%') => (0..=n.len()).any(|i| m(&p[1..], &n[i..])),
            Some('_') => !n.is_empty() && m(&p[1..], &n[1..]),
            Some('\\') if p.len() > 1 => n.first() == Some(&p[1]) && m(&p[2..], &n[1..]),
            Some(c) => n.first() == Some(c) && m(&p[1..], &n[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    m(&p, &n)
}

/// The directories MySQL writes to, by role: the datadir first, then redo, undo,
/// system tablespace and binary log directories when they are elsewhere.
pub fn mysql_dirs(vars: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let norm = |p: &str| {
        let t = p.trim_end_matches('/');
        if t.is_empty() {
            "/".to_string()
        } else {
            t.to_string()
        }
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let Some(datadir) = vars.get("datadir").filter(|d| d.starts_with('/')) else {
        return out;
    };
    out.push(("data directory".into(), norm(datadir)));
    let mut add = |role: &str, path: Option<String>| {
        if let Some(p) = path.filter(|p| p.starts_with('/')).map(|p| norm(&p)) {
            if !out.iter().any(|(_, q)| *q == p) {
                out.push((role.to_string(), p));
            }
        }
    };
    add("redo log", vars.get("innodb_log_group_home_dir").cloned());
    add("undo log", vars.get("innodb_undo_directory").cloned());
    add(
        "system tablespace",
        vars.get("innodb_data_home_dir").cloned(),
    );
    let binlog_on = vars
        .get("log_bin")
        .is_some_and(|v| v.eq_ignore_ascii_case("ON") || v == "1");
    if binlog_on {
        let dir = vars
            .get("log_bin_basename")
            .and_then(|b| b.rsplit_once('/').map(|(d, _)| d.to_string()));
        add("binary log", dir);
    }
    out
}

fn gather_host(access: &HostAccess, dirs: &[(String, String)], devices: &[String]) -> HostFacts {
    let kind = match access {
        HostAccess::Ssh(_) => AccessKind::Ssh,
        HostAccess::Local => AccessKind::Local,
        HostAccess::None { .. } => AccessKind::None,
    };
    let mut facts = HostFacts {
        access: access.describe(),
        kind,
        none_why: match access {
            HostAccess::None { why } => Some(why.clone()),
            _ => None,
        },
        ssh: None,
        os: None,
        os_error: None,
        data_disks: Vec::new(),
        disk_error: None,
        device_error: None,
        device_warnings: Vec::new(),
        clock: None,
    };
    let t = Instant::now();
    let shell = match HostShell::open(access) {
        Ok(Some(s)) => s,
        Ok(None) => return facts,
        Err(e) => {
            facts.ssh = Some(Err(SshProblem::from_error(&e)));
            return facts;
        }
    };
    if let Some(c) = shell.ssh() {
        facts.ssh = Some(Ok(SshOk {
            fingerprint: c.host_key().fingerprint_sha256(),
            connect_ms: t.elapsed().as_secs_f64() * 1000.0,
        }));
        facts.clock = c.clock_sync(5).ok();
    }
    let paths: Vec<String> = dirs.iter().map(|(_, p)| p.clone()).collect();
    match shell.run_script(&os_facts::os_facts_script(&paths)) {
        Ok(out) => facts.os = Some(OsFacts::parse(&out)),
        Err(e) => facts.os_error = Some(e.to_string()),
    }
    let mut errors = Vec::new();
    for (role, path) in dirs {
        match shell.resolve_disk(path) {
            Ok(disk) => facts.data_disks.push(RoleDisk {
                role: role.clone(),
                disk,
            }),
            Err(e) => errors.push(format!("{role} {path}: {e}")),
        }
    }
    if dirs.is_empty() {
        errors.push("the data directory is unknown (MySQL was not reachable or @@datadir is not an absolute path)".into());
    }
    if !devices.is_empty() {
        match shell.check_devices(devices) {
            Ok(checked) => {
                apply_device_override(&mut facts.data_disks, dirs, &checked.devices);
                facts.device_warnings = checked.warnings;
            }
            Err(e) => facts.device_error = Some(e.to_string()),
        }
    }
    if !errors.is_empty() {
        facts.disk_error = Some(errors.join("; "));
    }
    shell.close();
    facts
}

/// `--device` replaces the resolver's answer: on the datadir's entry (kept for its
/// reasoning), or on a new one when the resolver found nothing.
fn apply_device_override(disks: &mut Vec<RoleDisk>, dirs: &[(String, String)], devices: &[String]) {
    if let Some(first) = disks.first_mut() {
        first.disk = first.disk.clone().with_device_override(devices.to_vec());
        disks.truncate(1);
    } else {
        disks.push(RoleDisk {
            role: "data directory".into(),
            disk: DataDisk {
                path: dirs.first().map(|(_, p)| p.clone()).unwrap_or_default(),
                mount_point: String::new(),
                fs_type: String::new(),
                source: String::new(),
                devices: devices.to_vec(),
                chain: vec![format!(
                    "devices set by the user (--device): {}",
                    devices.join(", ")
                )],
                overridden: true,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_patterns() {
        assert!(grant_pattern_matches("sbtest", "sbtest"));
        assert!(grant_pattern_matches("sb%", "sbtest"));
        assert!(grant_pattern_matches("dbdyno\\_t\\_%", "dbdyno_t_x"));
        assert!(!grant_pattern_matches("dbdyno\\_t\\_%", "dbdynoXtXx"));
        assert!(grant_pattern_matches("sbtes_", "sbtest"));
        assert!(!grant_pattern_matches("sbtest", "sbtest2"));
        assert_eq!(grantee("sbtest@127.0.0.1"), "'sbtest'@'127.0.0.1'");
        assert_eq!(grantee("a@b@%"), "'a@b'@'%'");
    }

    #[test]
    fn mysql_directories_by_role() {
        let vars: BTreeMap<String, String> = [
            ("datadir", "/var/lib/mysql/"),
            ("innodb_log_group_home_dir", "./"),
            ("innodb_undo_directory", "/undo/"),
            ("innodb_data_home_dir", ""),
            ("log_bin", "ON"),
            ("log_bin_basename", "/binlog/mysql-bin"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(
            mysql_dirs(&vars),
            [
                ("data directory".to_string(), "/var/lib/mysql".to_string()),
                ("undo log".to_string(), "/undo".to_string()),
                ("binary log".to_string(), "/binlog".to_string()),
            ]
        );
    }

    #[test]
    fn device_override_replaces_the_resolver() {
        let dirs = vec![("data directory".to_string(), "/d".to_string())];
        let mut none = Vec::new();
        apply_device_override(&mut none, &dirs, &["nvme0n1".into()]);
        assert_eq!(none[0].disk.devices, ["nvme0n1"]);
        assert!(none[0].disk.overridden);
    }
}
