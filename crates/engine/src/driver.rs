//! The engine's connections: dbdyno-mysql's helpers, with their errors as
//! [`EngineError`] so the workers, phases and shells keep one error type.
//!
//! The helpers themselves live in dbdyno-mysql because the monitor opens connections
//! the same way and must not depend on the engine for it (docs/development.md).

use std::collections::HashMap;

use mysql::Conn;

pub use dbdyno_mysql::{
    classify, connect_raw, hit_rate_pct, is_handshake_timeout, is_transient_connect_error, opts,
    ErrorKind, HANDSHAKE_TIMEOUT, TCP_CONNECT_TIMEOUT,
};

use crate::error::EngineError;
use crate::plan::ConnectOptions;

/// Opens one connection, turning failures into a message that names the endpoint and user.
pub fn connect(c: &ConnectOptions) -> Result<Conn, EngineError> {
    Ok(dbdyno_mysql::connect(c)?)
}

pub fn connect_with_cache(c: &ConnectOptions, stmt_cache: usize) -> Result<Conn, EngineError> {
    Ok(dbdyno_mysql::connect_with_cache(c, stmt_cache)?)
}

pub fn connect_error(c: &ConnectOptions, e: &mysql::Error) -> EngineError {
    dbdyno_mysql::connect_error(c, e).into()
}

/// Runs an administrative statement, turning errors into `EngineError::Mysql` (`MysqlError::Query`).
pub fn admin_exec(conn: &mut Conn, context: &str, sql: &str) -> Result<(), EngineError> {
    Ok(dbdyno_mysql::admin_exec(conn, context, sql)?)
}

pub fn query_error(context: &str, e: &mysql::Error) -> EngineError {
    dbdyno_mysql::query_error(context, e).into()
}

/// `SHOW GLOBAL STATUS` as numbers (non-numeric values are skipped).
pub fn global_status(conn: &mut Conn) -> Result<HashMap<String, u64>, EngineError> {
    Ok(dbdyno_mysql::global_status(conn)?)
}

/// The server's CPUs as MariaDB gives them: `thread_pool_size` defaults to the number of
/// processors (whatever `thread_handling` is). None when the server does not say (MySQL
/// has no such variable) or says 0.
pub fn server_cpus(conn: &mut Conn) -> Option<u32> {
    use mysql::prelude::Queryable;
    conn.query_first::<u32, _>("SELECT @@thread_pool_size")
        .ok()
        .flatten()
        .filter(|n| *n > 0)
}
