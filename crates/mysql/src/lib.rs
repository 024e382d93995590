//! DB Dyno's MySQL connections: where to connect ([`ConnectOptions`]), opening one,
//! and what the server's errors mean for a benchmark.
//!
//! A crate of its own because the engine (its workers and phases) and the monitor (its
//! status sampler, and the checks through it) both open connections the same way, and
//! the monitor must not depend on the whole load generator for that. The engine's
//! `driver` module wraps these functions with its own error type.
//!
//! The hot path uses the synchronous `mysql` crate with one OS thread per connection.
//! Measured on a 2-core box against MariaDB 10.11 on loopback (oltp_point_select,
//! 8 threads): sysbench 48.6k QPS at 12.6 µs client CPU per query; a sqlx/tokio
//! prototype 33.6k QPS at 20.5 µs; the sync `mysql` crate 63.9k QPS at 7.8 µs. A
//! benchmark client must cost the server as little CPU as possible, so the sync driver
//! wins here; sqlx stays the right tool for the SQLite history.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, SslOpts};

pub mod dialect;
mod error;
mod flavour;
mod options;

pub use dialect::{dialect, Dialect};
pub use error::MysqlError;
pub use flavour::{Flavour, ServerVersion};
pub use options::{ConnectOptions, TlsMode};

/// How long a TCP connect may take before it is abandoned.
pub const TCP_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the server may take to send its greeting and answer the login. A server
/// whose accept queue (`back_log`) overflowed can leave a connection established but
/// never greeted; without this bound the client waits forever in the handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Builds connection options. `stmt_cache` must cover every statement a worker
/// prepares, or the driver would close and re-prepare statements mid-run.
///
/// The read and write timeouts set here bound the handshake only: [`connect_raw`]
/// lifts them once the login succeeded, because a statement may rightly wait longer
/// (a lock wait, a long range scan, an index build in prepare), and libmysqlclient,
/// hence sysbench, has no statement timeout either.
pub fn opts(c: &ConnectOptions, stmt_cache: usize) -> Opts {
    let mut b = OptsBuilder::new()
        .user(Some(c.user.clone()))
        .pass(c.password.clone())
        .db_name(Some(c.database.clone()))
        .stmt_cache_size(Some(stmt_cache.max(16)))
        .tcp_nodelay(true)
        // libmysqlclient (and so sysbench) takes host "localhost" to mean the server's
        // Unix socket; any other host, 127.0.0.1 included, means TCP. The driver would
        // otherwise switch 127.0.0.1 to the socket too, and a benchmark must use the
        // transport it was asked for.
        .prefer_socket(c.host == "localhost")
        .tcp_connect_timeout(Some(TCP_CONNECT_TIMEOUT))
        .server_key_path(c.server_public_key_path.as_ref().map(PathBuf::from))
        .get_server_public_key(c.get_server_public_key)
        .read_timeout(HANDSHAKE_BOUND)
        .write_timeout(HANDSHAKE_BOUND);
    match &c.socket {
        Some(sock) => b = b.socket(Some(sock.clone())),
        None => {
            let host = if c.host.contains(':') && !c.host.starts_with('[') {
                format!("[{}]", c.host)
            } else {
                c.host.clone()
            };
            b = b.ip_or_hostname(Some(host)).tcp_port(c.port);
        }
    }
    if let Some(ssl) = ssl_opts(c) {
        b = b.ssl_opts(Some(ssl));
    }
    Opts::from(b)
}

fn ssl_opts(c: &ConnectOptions) -> Option<SslOpts> {
    let mut ssl = SslOpts::default();
    if let Some(ca) = &c.tls_ca {
        ssl = ssl.with_root_cert_path(Some(PathBuf::from(ca)));
    }
    match c.tls {
        TlsMode::Disabled => None,
        TlsMode::Required => Some(
            ssl.with_danger_accept_invalid_certs(true)
                .with_danger_skip_domain_validation(true),
        ),
        TlsMode::VerifyCa => Some(ssl.with_danger_skip_domain_validation(true)),
        TlsMode::VerifyIdentity => Some(ssl),
    }
}

/// Opens one connection, turning failures into a message that names the endpoint and user.
pub fn connect(c: &ConnectOptions) -> Result<Conn, MysqlError> {
    connect_with_cache(c, 16)
}

pub fn connect_with_cache(c: &ConnectOptions, stmt_cache: usize) -> Result<Conn, MysqlError> {
    connect_raw(c, stmt_cache).map_err(|e| connect_error(c, &e))
}

/// Opens one connection and keeps the driver's error, for callers that decide
/// whether to retry ([`is_transient_connect_error`]).
pub fn connect_raw(c: &ConnectOptions, stmt_cache: usize) -> Result<Conn, mysql::Error> {
    let mut conn = Conn::new(opts(c, stmt_cache))?;
    lift_handshake_timeouts(&mut conn)?;
    Ok(conn)
}

/// After the login, statements wait as long as the server takes (see [`opts`]).
/// Through the driver, not on the descriptor: on a Unix socket the driver's reads wait
/// in `poll` for the timeout it knows, and with none that wait arms no kernel timer
/// per query (vendor/mysql/PATCH.md).
#[cfg(unix)]
fn lift_handshake_timeouts(conn: &mut Conn) -> Result<(), mysql::Error> {
    conn.set_read_timeout(None)?;
    conn.set_write_timeout(None)
}

/// The handshake is bounded only where the bound can be lifted afterwards.
#[cfg(unix)]
const HANDSHAKE_BOUND: Option<Duration> = Some(HANDSHAKE_TIMEOUT);
#[cfg(not(unix))]
const HANDSHAKE_BOUND: Option<Duration> = None;

#[cfg(not(unix))]
fn lift_handshake_timeouts(_conn: &mut Conn) -> Result<(), mysql::Error> {
    Ok(())
}

/// True when a failed connect may succeed if tried again: the server is restarting,
/// overloaded, out of connections or slow to greet. Wrong credentials, an unknown
/// schema or a TLS mismatch will fail the same way every time.
pub fn is_transient_connect_error(e: &mysql::Error) -> bool {
    // 1040 "too many connections" passes as others disconnect; everything else that
    // may pass is what [`classify`] already calls a lost connection.
    matches!(e, mysql::Error::MySqlError(me) if me.code == 1040)
        || matches!(classify(e), ErrorKind::ConnectionLost(_))
}

/// True when the error is the handshake timing out: the TCP connection was accepted
/// (or the socket opened) but no greeting or login answer came within [`HANDSHAKE_TIMEOUT`].
pub fn is_handshake_timeout(e: &mysql::Error) -> bool {
    let timed_out = |io: &io::Error| {
        matches!(
            io.kind(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
        )
    };
    match e {
        mysql::Error::IoError(io) => timed_out(io),
        // The driver reads the greeting through its packet codec, whose error holds
        // the socket's (the codec type itself is not exported by the driver).
        mysql::Error::CodecError(codec) => std::error::Error::source(codec)
            .and_then(|s| s.downcast_ref::<io::Error>())
            .is_some_and(timed_out),
        mysql::Error::DriverError(mysql::DriverError::Timeout) => true,
        _ => false,
    }
}

pub fn connect_error(c: &ConnectOptions, e: &mysql::Error) -> MysqlError {
    let (code, message) = match e {
        mysql::Error::MySqlError(me) => (Some(me.code), me.message.clone()),
        other => (None, other.to_string()),
    };
    let hint = match code {
        // No password sent: often a profile whose keyring entry was never set.
        Some(1045) if message.contains("using password: NO") => {
            " — no password was sent: store it with `dbdyno profile secret set NAME mysql` (NAME: the profile), or give MYSQL_PWD or --mysql-password"
        }
        Some(1045) => " — check --mysql-user and the password (MYSQL_PWD, --mysql-password, or the profile's keyring entry: `dbdyno profile secret set NAME mysql`)",
        Some(1049) => " — create the schema first (CREATE DATABASE …) or fix --mysql-db",
        Some(1044) => " — grant the user privileges on this schema",
        _ if message.contains("refused") => {
            " — is the server running and listening on this host and port?"
        }
        _ => "",
    };
    // MariaDB refuses a plain connection to a server with require_secure_transport with
    // this very error (1045), not with MySQL's 3159: say so when the connection was plain.
    let plain_denied = code == Some(1045) && c.tls == TlsMode::Disabled;
    let hint = if plain_denied {
        format!("{hint}; or, if the server accepts only TLS connections (require_secure_transport; MariaDB refuses a plain one with this same error), set the profile's ssl_mode = \"required\" (--mysql-ssl-mode=required)")
    } else {
        hint.to_string()
    };
    let tls_missing = matches!(
        e,
        mysql::Error::DriverError(mysql::DriverError::TlsNotSupported)
    );
    // The server's own refusal of a plain connection (MySQL 3159, MariaDB 4036), and
    // rustls' verdicts on the certificate, said as what to change.
    let tls_only =
        matches!(code, Some(3159) | Some(4036)) || message.contains("insecure transport");
    let certificate = if message.contains("UnknownIssuer") {
        Some(match &c.tls_ca {
            Some(ca) => format!(
                "the server's certificate is not signed by the CA in --mysql-ssl-ca ({ca}; the profile's ssl_ca): give the CA that signed it"
            ),
            None => "the server's certificate is not signed by a CA this machine trusts: give its CA with --mysql-ssl-ca (the profile's ssl_ca)".to_string(),
        })
    } else if message.contains("NotValidForName") || message.contains("not valid for name") {
        Some(format!(
            "the server's certificate does not name {}: connect by a name it holds (--mysql-host), or check the CA only with --mysql-ssl-mode=verify_ca",
            c.host
        ))
    } else {
        None
    };
    let message = if tls_only {
        format!(
            "{message} — the server accepts only TLS connections (require_secure_transport): set the profile's ssl_mode = \"required\" (--mysql-ssl-mode=required), or verify_ca / verify_identity with its CA (--mysql-ssl-ca)"
        )
    } else if let Some(why) = certificate {
        format!("{why} ({message})")
    } else if tls_missing {
        format!(
            "the server offers no TLS, and this connection's TLS mode ({}) does not go on without it — enable TLS on the server (ssl_cert and ssl_key in my.cnf), or, where an unencrypted connection is acceptable, set the profile's ssl_mode = \"disabled\" (--mysql-ssl-mode=disabled)",
            c.tls.name()
        )
    } else if is_handshake_timeout(e) {
        format!(
            "no MySQL handshake within {}s: the server accepted the connection but did not greet or answer the login ({message}) — is this a MySQL port? An overloaded server, or one whose accept queue (back_log) overflowed, answers late",
            HANDSHAKE_TIMEOUT.as_secs()
        )
    } else if matches!(
        e,
        mysql::Error::DriverError(mysql::DriverError::ServerPublicKeyNotAllowed)
    ) {
        "the account logs in with caching_sha2_password (MySQL 8's default) and the server has not cached its password, so over a plain TCP connection the password must go encrypted with the server's RSA public key, and DB Dyno does not take that key from the server unasked (over plain TCP it is not authenticated) — connect over TLS (--mysql-ssl-mode=required; the profile's ssl_mode), give the key file (--mysql-server-public-key-path: the server's public_key.pem), or allow asking for it (--mysql-get-server-public-key; the profile's get_server_public_key = true)".to_string()
    } else if matches!(
        e,
        mysql::Error::DriverError(mysql::DriverError::ConnectTimeout)
    ) {
        format!(
            "no TCP connection within {}s ({message}) — is the host reachable and the port open?",
            TCP_CONNECT_TIMEOUT.as_secs()
        )
    } else {
        message
    };
    MysqlError::Connect {
        endpoint: c.endpoint(),
        user: c.user.clone(),
        code,
        message: format!("{message}{hint}"),
        tls_missing,
    }
}

/// What an error means for the transaction that hit it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The server answered with an error code.
    Server { code: u16, message: String },
    /// The connection is gone (server restart, network drop, killed connection).
    ConnectionLost(String),
    /// Anything else the driver reports.
    Other(String),
}

/// Client error codes and server codes that mean "this connection is dead".
const CONNECTION_LOST_CODES: [u16; 8] = [2006, 2013, 2055, 2011, 1053, 1927, 4031, 1077];

pub fn classify(e: &mysql::Error) -> ErrorKind {
    match e {
        mysql::Error::MySqlError(me) if CONNECTION_LOST_CODES.contains(&me.code) => {
            ErrorKind::ConnectionLost(me.message.clone())
        }
        mysql::Error::MySqlError(me) => ErrorKind::Server {
            code: me.code,
            message: me.message.clone(),
        },
        mysql::Error::IoError(io) => ErrorKind::ConnectionLost(io.to_string()),
        mysql::Error::CodecError(c) => ErrorKind::ConnectionLost(c.to_string()),
        mysql::Error::DriverError(d) => {
            let text = d.to_string();
            // The driver reports a dead socket as a DriverError in some paths.
            if matches!(
                d,
                mysql::DriverError::ConnectTimeout
                    | mysql::DriverError::CouldNotConnect(_)
                    | mysql::DriverError::PacketOutOfSync
                    | mysql::DriverError::Timeout
            ) || text.contains("closed")
                || text.contains("broken")
            {
                ErrorKind::ConnectionLost(text)
            } else {
                ErrorKind::Other(text)
            }
        }
        other => ErrorKind::Other(other.to_string()),
    }
}

/// Runs an administrative statement, turning errors into [`MysqlError::Query`].
pub fn admin_exec(conn: &mut Conn, context: &str, sql: &str) -> Result<(), MysqlError> {
    conn.query_drop(sql).map_err(|e| query_error(context, &e))
}

pub fn query_error(context: &str, e: &mysql::Error) -> MysqlError {
    let (code, message) = match e {
        mysql::Error::MySqlError(me) => (Some(me.code), me.message.clone()),
        other => (None, other.to_string()),
    };
    MysqlError::Query {
        context: context.to_string(),
        code,
        message,
    }
}

/// `SHOW GLOBAL STATUS` as numbers (non-numeric values are skipped).
pub fn global_status(conn: &mut Conn) -> Result<HashMap<String, u64>, MysqlError> {
    let rows: Vec<(String, String)> = conn
        .query("SHOW GLOBAL STATUS")
        .map_err(|e| query_error("SHOW GLOBAL STATUS", &e))?;
    Ok(rows
        .into_iter()
        .filter_map(|(k, v)| v.parse::<u64>().ok().map(|n| (k, n)))
        .collect())
}

/// Buffer pool hit rate in percent from two status snapshots (or one, against zero).
pub fn hit_rate_pct(
    before: Option<&HashMap<String, u64>>,
    after: &HashMap<String, u64>,
) -> Option<f64> {
    let get = |m: &HashMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    let reads = get(after, "Innodb_buffer_pool_reads")
        .saturating_sub(before.map_or(0, |b| get(b, "Innodb_buffer_pool_reads")));
    let requests = get(after, "Innodb_buffer_pool_read_requests")
        .saturating_sub(before.map_or(0, |b| get(b, "Innodb_buffer_pool_read_requests")));
    if requests == 0 {
        None
    } else {
        Some(100.0 * (1.0 - reads as f64 / requests as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_rate_from_status() {
        let mut a = HashMap::new();
        a.insert("Innodb_buffer_pool_reads".to_string(), 10);
        a.insert("Innodb_buffer_pool_read_requests".to_string(), 1000);
        assert_eq!(hit_rate_pct(None, &a), Some(99.0));
        let mut b = a.clone();
        b.insert("Innodb_buffer_pool_reads".to_string(), 10);
        b.insert("Innodb_buffer_pool_read_requests".to_string(), 2000);
        assert_eq!(hit_rate_pct(Some(&a), &b), Some(100.0));
        assert_eq!(hit_rate_pct(Some(&b), &b), None);
    }

    #[test]
    fn a_silent_server_is_named_as_a_handshake_timeout() {
        // (The driver's codec error wraps the same io::Error; the integration test
        // against a silent listener covers that path.)
        let e = mysql::Error::IoError(io::Error::from(io::ErrorKind::WouldBlock));
        assert!(is_handshake_timeout(&e) && is_transient_connect_error(&e));
        let text = connect_error(&ConnectOptions::default(), &e).to_string();
        assert!(text.contains("no MySQL handshake within 10s"), "{text}");
        let refused = mysql::Error::IoError(io::Error::from(io::ErrorKind::ConnectionRefused));
        assert!(!is_handshake_timeout(&refused) && is_transient_connect_error(&refused));
    }

    #[test]
    fn ipv6_endpoint_is_bracketed() {
        let c = ConnectOptions {
            host: "::1".into(),
            port: 3307,
            ..Default::default()
        };
        assert_eq!(c.endpoint(), "[::1]:3307");
    }
}
