//! What the server says about itself over SQL: version and flavour, variables and the
//! round trip from this machine.
//!
//! Non-goals: no workload SQL (the engine owns it); the connection and the clock offset
//! are the monitor crate's ([`dbdyno_monitor::mysql_status::conn`]), shared with its
//! status sampler.

use std::collections::BTreeMap;
use std::time::Instant;

use mysql::prelude::Queryable;
use mysql::Conn;
use serde::{Deserialize, Serialize};

/// Which server family answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flavour {
    Mysql,
    Percona,
    Mariadb,
    /// Something that speaks the protocol but is neither (TiDB, a proxy…).
    Other,
}

impl std::fmt::Display for Flavour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Flavour::Mysql => "MySQL",
            Flavour::Percona => "Percona Server",
            Flavour::Mariadb => "MariaDB",
            Flavour::Other => "unknown server",
        })
    }
}

/// `@@version` and `@@version_comment`, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerVersion {
    pub text: String,
    pub comment: String,
    pub flavour: Flavour,
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl ServerVersion {
    pub fn parse(version: &str, comment: &str) -> ServerVersion {
        let lower = format!("{version} {comment}").to_ascii_lowercase();
        let flavour = if lower.contains("mariadb") {
            Flavour::Mariadb
        } else if lower.contains("tidb") || lower.contains("vitess") {
            Flavour::Other
        } else if lower.contains("percona") {
            Flavour::Percona
        } else if version.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            Flavour::Mysql
        } else {
            Flavour::Other
        };
        // MariaDB behind old replication code reports "5.5.5-10.x": the real version follows.
        let core = version.strip_prefix("5.5.5-").unwrap_or(version);
        let mut nums = core
            .split(|c: char| !c.is_ascii_digit())
            .take(3)
            .map(|n| n.parse::<u32>().unwrap_or(0));
        ServerVersion {
            text: version.to_string(),
            comment: comment.to_string(),
            flavour,
            major: nums.next().unwrap_or(0),
            minor: nums.next().unwrap_or(0),
            patch: nums.next().unwrap_or(0),
        }
    }

    /// `Ok(note)` when supported (the note flags versions newer than tested), `Err(why)`
    /// when not: MySQL and Percona 5.7+, MariaDB 10.3+.
    pub fn support(&self) -> Result<Option<String>, String> {
        let v = (self.major, self.minor);
        match self.flavour {
            Flavour::Mysql | Flavour::Percona if v < (5, 7) => Err(format!(
                "{} {} is older than 5.7, the oldest supported {}",
                self.flavour, self.text, self.flavour
            )),
            Flavour::Mysql | Flavour::Percona if self.major > 8 => Ok(Some(format!(
                "{} {} is newer than the 8.x series DB Dyno is tested with",
                self.flavour, self.text
            ))),
            Flavour::Mariadb if v < (10, 3) => Err(format!(
                "MariaDB {} is older than 10.3, the oldest supported MariaDB",
                self.text
            )),
            Flavour::Other => Ok(Some(format!(
                "'{}' ({}) is neither MySQL nor MariaDB: sysbench workloads may behave differently",
                self.text, self.comment
            ))),
            _ => Ok(None),
        }
    }
}

/// Round trip of a protocol ping (no SQL parsing on the server), over `n` pings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flavours_and_versions() {
        let m = ServerVersion::parse("10.11.19-MariaDB-0+deb12u1", "Debian 12");
        assert_eq!(
            (m.flavour, m.major, m.minor, m.patch),
            (Flavour::Mariadb, 10, 11, 19)
        );
        assert_eq!(m.support(), Ok(None));
        let old = ServerVersion::parse("5.5.5-10.1.48-MariaDB", "mariadb.org binary distribution");
        assert_eq!((old.major, old.minor), (10, 1));
        assert!(old.support().unwrap_err().contains("older than 10.3"));
        let my = ServerVersion::parse("8.0.36", "MySQL Community Server - GPL");
        assert_eq!(my.flavour, Flavour::Mysql);
        assert_eq!(my.support(), Ok(None));
        let p = ServerVersion::parse("5.7.44-48", "Percona Server (GPL), Release 48");
        assert_eq!(p.flavour, Flavour::Percona);
        assert!(p.support().is_ok());
        assert!(
            ServerVersion::parse("5.6.51", "MySQL Community Server (GPL)")
                .support()
                .is_err()
        );
        assert!(
            ServerVersion::parse("9.1.0", "MySQL Community Server - GPL")
                .support()
                .unwrap()
                .is_some()
        );
        let tidb = ServerVersion::parse("5.7.25-TiDB-v7.1.0", "");
        assert_eq!(tidb.flavour, Flavour::Other);
        assert!(tidb.support().unwrap().unwrap().contains("neither"));
    }
}
