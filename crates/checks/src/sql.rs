//! What the server says about itself over SQL: version and flavour (the MySQL crate's
//! flavour table, re-exported), variables and the round trip from this machine.
//!
//! Non-goals: no workload SQL (the engine owns it); the connection and the clock offset
//! are the monitor crate's ([`dbdyno_monitor::mysql_status::conn`]), shared with its
//! status sampler.

use std::collections::BTreeMap;
use std::time::Instant;

use mysql::prelude::Queryable;
use mysql::Conn;
use serde::{Deserialize, Serialize};

pub use dbdyno_mysql::{Flavour, ServerVersion};

/// Round trip of a protocol ping (no SQL parsing on the server), over `n` pings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RoundTrip {
    pub min_ms: f64,
    pub median_ms: f64,
    pub pings: u32,
}

pub fn measure_round_trip(conn: &mut Conn, n: u32) -> Result<RoundTrip, mysql::Error> {
    let mut times = Vec::with_capacity(n.max(1) as usize);
    for _ in 0..n.max(1) {
        let t = Instant::now();
        conn.ping()?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok(RoundTrip {
        min_ms: times[0],
        median_ms: times[times.len() / 2],
        pings: times.len() as u32,
    })
}

/// The named global variables the server has (names it does not know are left out).
pub fn variables(
    conn: &mut Conn,
    names: &[&str],
) -> Result<BTreeMap<String, String>, mysql::Error> {
    let list = names
        .iter()
        .map(|n| format!("'{}'", n.replace('\'', "")))
        .collect::<Vec<_>>()
        .join(",");
    let rows: Vec<(String, Option<String>)> = conn.query(format!(
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})"
    ))?;
    Ok(rows
        .into_iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.unwrap_or_default()))
        .collect())
}

/// True when the binary log is on (`log_bin` reads ON or 1): it then keeps a second copy
/// of every row written.
pub fn binlog_on(variables: &BTreeMap<String, String>) -> bool {
    variables
        .get("log_bin")
        .is_some_and(|v| v.eq_ignore_ascii_case("ON") || v == "1")
}
