//! Two `SHOW GLOBAL STATUS` polls → one [`MysqlSample`]: per-second rates, the buffer
//! pool hit rate, row locks, fsyncs, thread gauges and aborted connections.
//!
//! Pure arithmetic, so the sampler thread and the tests share it. The sampler's own
//! footprint is taken out: its one `SHOW GLOBAL STATUS` per poll is not counted in
//! `Questions` / `Com_show_status`, and its connection is not counted in
//! `Threads_running` / `Threads_connected`.
//!
//! Row counters differ by server: MySQL has `Innodb_rows_read/inserted/updated/deleted`;
//! MariaDB dropped them (10.x), so there `Rows_read` and
//! `Handler_write/update/delete` stand in ([`RowCounters`] says which were used).
//!
//! Non-goals: no smoothing, no per-window aggregation (see [`crate::timeline`]).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

/// One poll of the server's counters.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusSnapshot {
    pub values: HashMap<String, u64>,
    /// Monotonic seconds at the middle of the poll's round trip (intervals come from this).
    pub mono_s: f64,
    /// The same instant on this machine's wall clock (Unix ms).
    pub local_unix_ms: i64,
}

impl StatusSnapshot {
    fn get(&self, k: &str) -> Option<u64> {
        self.values.get(k).copied()
    }

    /// Seconds since the server started (`Uptime`).
    pub fn uptime_s(&self) -> Option<u64> {
        self.get("Uptime")
    }
}

/// Which counters gave the row rates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RowCounters {
    /// MySQL: Innodb_rows_read / inserted / updated / deleted.
    InnodbRows,
    /// MariaDB: Rows_read and Handler_write / update / delete (all engines).
    Handler,
}

/// MySQL's side of one sampling interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MysqlSample {
    /// End of the interval on this machine's clock (Unix ms): the middle of the poll's round trip.
    pub local_unix_ms: i64,
    /// The same instant on the MySQL server's clock (local + the offset measured at connect).
    pub server_unix_ms: i64,
    pub interval_s: f64,
    /// Statements per second (`Questions`), the sampler's own excluded.
    pub questions_per_s: f64,
    /// `Com_commit + Com_rollback` per second.
    pub transactions_per_s: f64,
    /// Non-zero `Com_*` rates by command (`select`, `insert`, `begin`…), the sampler's own excluded.
    pub com_per_s: BTreeMap<String, f64>,
    pub row_counters: RowCounters,
    pub rows_read_per_s: f64,
    pub rows_inserted_per_s: f64,
    pub rows_updated_per_s: f64,
    pub rows_deleted_per_s: f64,
    /// Logical reads (`Innodb_buffer_pool_read_requests`) and reads that went to disk
    /// (`Innodb_buffer_pool_reads`) in this interval: kept as counts so a step's hit rate
    /// is exact over the whole step.
    pub bp_read_requests: u64,
    pub bp_reads: u64,
    /// 100 × (1 − reads / read_requests); `None` without logical reads.
    pub hit_rate_pct: Option<f64>,
    /// `Innodb_row_lock_waits` and `Innodb_row_lock_time` (ms) in this interval.
    pub row_lock_waits: u64,
    pub row_lock_time_ms: u64,
    pub data_fsyncs_per_s: f64,
    /// Gauges at the poll, the sampler's own connection excluded.
    pub threads_running: u64,
    pub threads_connected: u64,
    /// `Aborted_clients` and `Aborted_connects` in this interval.
    pub aborted_clients: u64,
    pub aborted_connects: u64,
}

/// True when the server restarted between the polls: its uptime went backwards.
pub fn restarted(prev: &StatusSnapshot, cur: &StatusSnapshot) -> bool {
    matches!((prev.uptime_s(), cur.uptime_s()), (Some(a), Some(b)) if b < a)
}

/// The sample for the interval between two polls of one server (no restart between
/// them; see [`restarted`]). `offset_ms` is the MySQL clock offset. `None` when no time
/// passed. A counter that went backwards (FLUSH STATUS) counts as zero.
pub fn compute(prev: &StatusSnapshot, cur: &StatusSnapshot, offset_ms: f64) -> Option<MysqlSample> {
    let dt = cur.mono_s - prev.mono_s;
    if !(dt.is_finite() && dt > 0.0) {
        return None;
    }
    let delta = |k: &str| match (prev.get(k), cur.get(k)) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => 0,
    };
    let rate = |k: &str| delta(k) as f64 / dt;
    // One SHOW GLOBAL STATUS per poll: the current poll counted itself.
    let questions = delta("Questions").saturating_sub(1);
    let mut com_per_s = BTreeMap::new();
    for k in cur.values.keys().filter(|k| k.starts_with("Com_")) {
        let own = u64::from(k == "Com_show_status");
        let d = delta(k).saturating_sub(own);
        if d > 0 {
            com_per_s.insert(k["Com_".len()..].to_string(), d as f64 / dt);
        }
    }
    let innodb_rows = cur.values.contains_key("Innodb_rows_read");
    let (row_counters, read, ins, upd, del) = if innodb_rows {
        (
            RowCounters::InnodbRows,
            "Innodb_rows_read",
            "Innodb_rows_inserted",
            "Innodb_rows_updated",
            "Innodb_rows_deleted",
        )
    } else {
        (
            RowCounters::Handler,
            "Rows_read",
            "Handler_write",
            "Handler_update",
            "Handler_delete",
        )
    };
    let bp_read_requests = delta("Innodb_buffer_pool_read_requests");
    let bp_reads = delta("Innodb_buffer_pool_reads");
    let gauge = |k: &str| cur.get(k).unwrap_or(0).saturating_sub(1);
    Some(MysqlSample {
        local_unix_ms: cur.local_unix_ms,
        server_unix_ms: cur.local_unix_ms + offset_ms.round() as i64,
        interval_s: dt,
        questions_per_s: questions as f64 / dt,
        transactions_per_s: (delta("Com_commit") + delta("Com_rollback")) as f64 / dt,
        com_per_s,
        row_counters,
        rows_read_per_s: rate(read),
        rows_inserted_per_s: rate(ins),
        rows_updated_per_s: rate(upd),
        rows_deleted_per_s: rate(del),
        bp_read_requests,
        bp_reads,
        hit_rate_pct: hit_rate(bp_reads, bp_read_requests),
        row_lock_waits: delta("Innodb_row_lock_waits"),
        row_lock_time_ms: delta("Innodb_row_lock_time"),
        data_fsyncs_per_s: rate("Innodb_data_fsyncs"),
        threads_running: gauge("Threads_running"),
        threads_connected: gauge("Threads_connected"),
        aborted_clients: delta("Aborted_clients"),
        aborted_connects: delta("Aborted_connects"),
    })
}

/// Buffer pool hit rate in percent; `None` without logical reads.
pub fn hit_rate(reads: u64, read_requests: u64) -> Option<f64> {
    (read_requests > 0)
        .then(|| 100.0 * (1.0 - reads.min(read_requests) as f64 / read_requests as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(mono_s: f64, pairs: &[(&str, u64)]) -> StatusSnapshot {
        StatusSnapshot {
            values: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            mono_s,
            local_unix_ms: (1_700_000_000.0 + mono_s * 1000.0) as i64,
        }
    }

    #[test]
    fn mariadb_rates_without_the_samplers_own_footprint() {
        let a = snap(
            10.0,
            &[
                ("Questions", 1000),
                ("Com_select", 500),
                ("Com_show_status", 7),
                ("Com_commit", 40),
                ("Com_rollback", 0),
                ("Rows_read", 100),
                ("Handler_write", 10),
                ("Innodb_buffer_pool_read_requests", 10_000),
                ("Innodb_buffer_pool_reads", 100),
                ("Innodb_row_lock_waits", 3),
                ("Innodb_row_lock_time", 50),
                ("Innodb_data_fsyncs", 20),
                ("Threads_running", 5),
                ("Threads_connected", 9),
                ("Uptime", 100),
            ],
        );
        let b = snap(
            12.0,
            &[
                ("Questions", 3001),
                ("Com_select", 2500),
                ("Com_show_status", 8),
                ("Com_commit", 140),
                ("Com_rollback", 2),
                ("Rows_read", 2100),
                ("Handler_write", 30),
                ("Innodb_buffer_pool_read_requests", 30_000),
                ("Innodb_buffer_pool_reads", 300),
                ("Innodb_row_lock_waits", 4),
                ("Innodb_row_lock_time", 70),
                ("Innodb_data_fsyncs", 60),
                ("Threads_running", 3),
                ("Threads_connected", 9),
                ("Uptime", 102),
            ],
        );
        assert!(!restarted(&a, &b));
        let s = compute(&a, &b, 250.0).unwrap();
        assert_eq!(s.interval_s, 2.0);
        assert_eq!(
            s.questions_per_s, 1000.0,
            "2000 statements in 2 s, the poll itself excluded"
        );
        assert_eq!(s.com_per_s.get("select"), Some(&1000.0));
        assert_eq!(
            s.com_per_s.get("show_status"),
            None,
            "only the sampler ran SHOW STATUS"
        );
        assert_eq!(s.transactions_per_s, 51.0);
        assert_eq!(s.row_counters, RowCounters::Handler);
        assert_eq!((s.rows_read_per_s, s.rows_inserted_per_s), (1000.0, 10.0));
        assert_eq!((s.bp_read_requests, s.bp_reads), (20_000, 200));
        assert_eq!(s.hit_rate_pct, Some(99.0));
        assert_eq!((s.row_lock_waits, s.row_lock_time_ms), (1, 20));
        assert_eq!(s.data_fsyncs_per_s, 20.0);
        assert_eq!((s.threads_running, s.threads_connected), (2, 8));
        assert_eq!(s.server_unix_ms - s.local_unix_ms, 250);
    }

    #[test]
    fn mysql_row_counters_and_resets() {
        let a = snap(
            0.0,
            &[
                ("Innodb_rows_read", 50),
                ("Rows_read", 999),
                ("Questions", 10),
                ("Uptime", 50),
            ],
        );
        let b = snap(
            1.0,
            &[
                ("Innodb_rows_read", 80),
                ("Rows_read", 5),
                ("Questions", 3),
                ("Uptime", 51),
            ],
        );
        let s = compute(&a, &b, 0.0).unwrap();
        assert_eq!(s.row_counters, RowCounters::InnodbRows);
        assert_eq!(s.rows_read_per_s, 30.0);
        assert_eq!(
            s.questions_per_s, 0.0,
            "a counter that went backwards (FLUSH STATUS) counts as zero"
        );
        assert_eq!(s.hit_rate_pct, None);
        let restarted_b = snap(2.0, &[("Uptime", 1)]);
        assert!(restarted(&b, &restarted_b));
        assert!(compute(&b, &b, 0.0).is_none(), "no time passed");
    }
}
