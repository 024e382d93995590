//! The status sampler's connection to the server, shared with the checks: no default
//! schema, bounded read and write times, and the MySQL clock against this machine's.
//!
//! Non-goals: no queries beyond the clock's (the sampler and the checks own theirs).

use std::time::{Duration, Instant};

use dbdyno_mysql::{self as driver, ConnectOptions, MysqlError};
use mysql::prelude::Queryable;
use mysql::{Conn, OptsBuilder};
use serde::{Deserialize, Serialize};

use crate::local::unix_ms_now;

/// How long one status or fact query may take before the connection counts as dead.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection for checks and sampling: no default schema (it may not exist yet, which
/// is one of the things the checks report), and read/write timeouts so that a hung
/// server cannot hang the caller.
pub fn connect_server(c: &ConnectOptions) -> Result<Conn, MysqlError> {
    connect_server_within(c, QUERY_TIMEOUT)
}

/// [`connect_server`] whose connect, login and queries each wait at most `timeout`
/// (the status sampler gives up on a silent server after the plan's stall timeout).
pub fn connect_server_within(c: &ConnectOptions, timeout: Duration) -> Result<Conn, MysqlError> {
    let opts = OptsBuilder::from_opts(driver::opts(c, 16))
        .db_name(None::<String>)
        .tcp_connect_timeout(Some(timeout.min(driver::TCP_CONNECT_TIMEOUT)))
        .read_timeout(Some(timeout))
        .write_timeout(Some(timeout));
    Conn::new(opts).map_err(|e| driver::connect_error(c, &e))
}

/// The MySQL server's clock against ours, from `SELECT UNIX_TIMESTAMP(NOW(6))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MysqlClock {
    /// server clock − local clock, in ms (positive: the server is ahead).
    pub offset_ms: f64,
    /// Round trip of the best exchange: the offset's uncertainty is half of it.
    pub rtt_ms: f64,
    pub rounds: u32,
}

/// Best of `rounds` exchanges (smallest round trip), assuming the server read its clock
/// in the middle of the round trip, as NTP does.
/// `None` when the server's answer was not a number (a proxy rewriting the query).
pub fn measure_clock(conn: &mut Conn, rounds: u32) -> Result<Option<MysqlClock>, mysql::Error> {
    let mut best: Option<MysqlClock> = None;
    for _ in 0..rounds.max(1) {
        let sent_ms = unix_ms_f64();
        let sent = Instant::now();
        let server: Option<String> = conn.query_first("SELECT UNIX_TIMESTAMP(NOW(6))")?;
        let rtt_ms = sent.elapsed().as_secs_f64() * 1000.0;
        let Some(server_s) = server.and_then(|s| s.parse::<f64>().ok()) else {
            continue;
        };
        let offset_ms = server_s * 1000.0 - (sent_ms + rtt_ms / 2.0);
        match best {
            Some(b) if b.rtt_ms <= rtt_ms => {}
            _ => {
                best = Some(MysqlClock {
                    offset_ms,
                    rtt_ms,
                    rounds: rounds.max(1),
                })
            }
        }
    }
    Ok(best)
}

/// Milliseconds since the Unix epoch, with sub-millisecond precision.
fn unix_ms_f64() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_else(|_| unix_ms_now() as f64)
}
