//! Is MySQL busy? A test that saturates the disk would slow the server's clients and
//! read low figures: above a few running threads the user is told so.

use serde::{Deserialize, Serialize};

/// Running threads above which the server counts as busy (the query that reads the
/// figure is one of them).
pub const BUSY_THREADS_RUNNING: u64 = 2;

/// What is read from the server before measuring it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerState {
    /// `@@datadir`.
    pub datadir: String,
    /// `Threads_running`.
    pub threads_running: u64,
}

/// Reads `@@datadir` and `Threads_running`.
pub fn server_state(conn: &mut mysql::Conn) -> Result<ServerState, mysql::Error> {
    use mysql::prelude::Queryable;
    let datadir: Option<String> = conn.query_first("SELECT @@datadir")?;
    let running: Option<(String, String)> =
        conn.query_first("SHOW GLOBAL STATUS LIKE 'Threads_running'")?;
    Ok(ServerState {
        datadir: datadir.unwrap_or_default(),
        threads_running: running.and_then(|(_, v)| v.parse().ok()).unwrap_or(0),
    })
}

/// The warning to show, if any.
pub fn busy_warning(threads_running: u64) -> Option<String> {
    (threads_running > BUSY_THREADS_RUNNING).then(|| {
        format!(
            "MySQL is busy ({threads_running} threads running): the tests will compete with its clients, slow them down and read lower figures"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warns_above_the_threshold_only() {
        assert_eq!(busy_warning(1), None);
        assert_eq!(busy_warning(BUSY_THREADS_RUNNING), None);
        assert!(busy_warning(9).unwrap().contains("9 threads running"));
    }
}
