//! Gathers every fact the checks and the environment snapshot need, once, before any
//! of them is judged: the MySQL side over one connection, the OS side over one SSH
//! session (or locally), and this machine's own facts.
//!
//! Failures are facts too: an unreachable server or a refused host key is recorded
//! (with the message to show) instead of returned, so the checks can say what was
//! seen. The judging happens in [`crate::checks`], on these plain structs.
//!
//! `sql` reads the MySQL side, `host` the OS side (with `ssh` classifying a failed
//! session); this module puts them together with this machine's own facts.
//!
//! Non-goals: no verdicts, no printing, no sampling.

mod host;
mod sql;
mod ssh;

use dbdyno_engine::ConnectOptions;
use dbdyno_monitor::HostAccess;

use crate::os_facts;

pub use host::{AccessKind, HostFacts, RoleDisk};
pub use sql::{
    gather_mysql, grant_pattern_matches, mysql_dirs, verify_prepared_tables, MysqlFacts,
    MysqlProblem, Privileges, VARIABLES,
};
pub use ssh::{SshOk, SshProblem, SshStage};

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
            hostname: dbdyno_monitor::host::local_hostname(),
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
    let host = host::gather_host(access, &dirs, devices);
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
