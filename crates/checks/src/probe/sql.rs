//! The MySQL side of the facts: the variables, status, account and privileges, the
//! target schema's tables, the clock and the round trip, over one connection; and the
//! directories MySQL writes to, from its variables.
//!
//! Non-goals: no OS facts (see the host module next to this one), no verdicts.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use dbdyno_engine::driver;
use dbdyno_engine::phases::schema::{self, TableInfo};
use dbdyno_engine::phases::{verify_oltp_tables, FoundTables};
use dbdyno_engine::tpcc::verify_tpcc_tables;
use dbdyno_engine::{ConnectOptions, Plan};
use dbdyno_monitor::mysql_status::conn::{connect_server, measure_clock};
use dbdyno_monitor::MysqlClock;
use mysql::prelude::Queryable;
use mysql::Conn;

use crate::sql::{self, binlog_on, RoundTrip, ServerVersion};

/// Variables recorded with every run and read by the checks, besides those whose
/// defaults MySQL 8.4 changed ([`dbdyno_mysql::dialect::CHANGED_DEFAULTS_IN_8_4`]),
/// recorded too. Names a server does not know are simply absent (MariaDB has no
/// innodb_redo_log_capacity, MySQL 8 no tx_isolation: the flavour table's
/// `absent_variables`).
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
    "open_files_limit",
    "thread_stack",
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

/// Why the MySQL side could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct MysqlProblem {
    pub message: String,
    pub code: Option<u16>,
    /// The TLS mode demands TLS and the server offers none.
    pub tls_missing: bool,
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
    /// The engine's verdict on the OLTP tables the plan prepares (absent, DB Dyno's to
    /// reuse, ...): the very verifier prepare asks. None when the plan prepares none,
    /// or before [`verify_prepared_tables`] ran.
    pub oltp_tables: Option<FoundTables>,
    /// The same for the TPC-C sets the plan prepares (`tpcc::verify`).
    pub tpcc_tables: Option<FoundTables>,
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

fn problem(e: &mysql::Error) -> MysqlProblem {
    let (code, message) = match e {
        mysql::Error::MySqlError(me) => (Some(me.code), me.message.clone()),
        other => (None, other.to_string()),
    };
    MysqlProblem {
        message,
        code,
        tls_missing: false,
    }
}

/// The MySQL side. Only the connection itself is fatal; a query the account may not
/// run leaves its field empty.
pub fn gather_mysql(c: &ConnectOptions) -> Result<MysqlFacts, MysqlProblem> {
    let t = Instant::now();
    let mut conn = connect_server(c).map_err(|e| MysqlProblem {
        code: e.server_code(),
        tls_missing: e.tls_missing(),
        message: e.to_string(),
    })?;
    let connect_ms = t.elapsed().as_secs_f64() * 1000.0;
    let names: Vec<&str> = VARIABLES
        .iter()
        .copied()
        .chain(dbdyno_mysql::dialect::changed_in_8_4())
        .collect();
    let variables = sql::variables(&mut conn, &names).map_err(|e| problem(&e))?;
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
    let (tables, benchmark_bytes, benchmark_rows) =
        if schema_exists && conn.select_db(&c.database).is_ok() {
            schema_contents(&mut conn, &c.database)
        } else {
            (BTreeMap::new(), 0, 0)
        };
    let clock = measure_clock(&mut conn, 5).ok().flatten();
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
        oltp_tables: None,
        tpcc_tables: None,
        clock,
        round_trip,
        connect_ms,
    })
}

/// Asks the engine's verifiers about the OLTP tables and the TPC-C sets `plan`
/// prepares, as its prepare will: the Checks screen then promises what prepare does.
/// Leaves `oltp_tables` / `tpcc_tables` None when the plan prepares none or the verifier
/// could not read them (the check then judges from the table list alone).
pub fn verify_prepared_tables(c: &ConnectOptions, m: &mut MysqlFacts, plan: &Plan) {
    let oltp = plan
        .prepare_mode_of(|s| !s.is_tpcc() && !s.uses_bulk_tables())
        .is_some();
    let tpcc = plan.prepare_mode_of(|s| s.is_tpcc()).is_some();
    if !(oltp || tpcc) || !m.schema_exists {
        return;
    }
    let Some(mut conn) = connect_server(c).ok() else {
        return;
    };
    if conn.select_db(&c.database).is_err() {
        return;
    }
    if oltp {
        m.oltp_tables = verify_oltp_tables(&mut conn, &m.tables, &plan.workload).ok();
    }
    if tpcc {
        m.tpcc_tables = verify_tpcc_tables(&mut conn, &m.tables, &plan.workload.tpcc).ok();
    }
}

/// The schema's base tables, and the size and rows of its sbtestN tables (0 when
/// information_schema does not say).
fn schema_contents(conn: &mut Conn, schema: &str) -> (BTreeMap<String, TableInfo>, u64, u64) {
    let tables = schema::list_tables(conn).unwrap_or_default();
    let sizes: Option<(Option<u64>, Option<u64>)> = conn
        .exec_first(
            "SELECT SUM(DATA_LENGTH + INDEX_LENGTH), SUM(TABLE_ROWS) FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME REGEXP '^sbtest[1-9][0-9]*$'",
            (schema,),
        )
        .ok()
        .flatten();
    let (bytes, rows) = sizes.unwrap_or((None, None));
    (tables, bytes.unwrap_or(0), rows.unwrap_or(0))
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
    if binlog_on(vars) {
        let dir = vars
            .get("log_bin_basename")
            .and_then(|b| b.rsplit_once('/').map(|(d, _)| d.to_string()));
        add("binary log", dir);
    }
    out
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
}
