//! The TPC-C run inside the engine's load loop: a worker's per-transaction-type totals
//! ([`TpccTotals`]) and the step's TPC-C figures ([`TpccResult`]): tpmC, NOPM, per-type
//! throughput and latency, rollbacks and the errors retried.

use serde::{Deserialize, Serialize};

use super::txn::{Outcome, TxnKind};
use crate::results::LatencySummary;
use crate::stats::LatencyHistogram;

/// Server errors that end a TPC-C transaction early and restart the event, as
/// sysbench's `--mysql-ignore-errors` (by default 1213, 1020, 1205) makes it do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retried {
    /// 1213: the server chose this transaction as a deadlock's victim.
    Deadlock,
    /// 1205: a lock wait timed out.
    LockWaitTimeout,
    /// Any other ignored code (1020 "record changed", or what `--mysql-ignore-errors` adds).
    Other,
}

impl Retried {
    pub fn of_code(code: u16) -> Retried {
        match code {
            1213 => Retried::Deadlock,
            1205 => Retried::LockWaitTimeout,
            _ => Retried::Other,
        }
    }
}

/// One transaction type's totals in one worker.
#[derive(Default)]
pub struct KindTotals {
    pub committed: u64,
    pub rolled_back: u64,
    pub deadlocks: u64,
    pub lock_wait_timeouts: u64,
    pub other_errors: u64,
    /// Created on the type's first measured transaction (HDR, 3 digits).
    pub latency: Option<LatencyHistogram>,
}

/// A worker's TPC-C figures, by [`TxnKind::index`].
pub struct TpccTotals {
    pub kinds: Vec<KindTotals>,
}

impl Default for TpccTotals {
    fn default() -> Self {
        TpccTotals {
            kinds: (0..TxnKind::COUNT).map(|_| KindTotals::default()).collect(),
        }
    }
}

impl TpccTotals {
    pub fn record(&mut self, kind: TxnKind, outcome: Outcome, latency_us: u64) {
        let k = &mut self.kinds[kind.index()];
        match outcome {
            Outcome::Committed => k.committed += 1,
            Outcome::RolledBack => k.rolled_back += 1,
        }
        k.latency
            .get_or_insert_with(LatencyHistogram::new)
            .record_us(latency_us);
    }

    pub fn retried(&mut self, kind: TxnKind, why: Retried) {
        let k = &mut self.kinds[kind.index()];
        match why {
            Retried::Deadlock => k.deadlocks += 1,
            Retried::LockWaitTimeout => k.lock_wait_timeouts += 1,
            Retried::Other => k.other_errors += 1,
        }
    }

    pub fn merge(&mut self, other: &TpccTotals) {
        for (a, b) in self.kinds.iter_mut().zip(&other.kinds) {
            a.committed += b.committed;
            a.rolled_back += b.rolled_back;
            a.deadlocks += b.deadlocks;
            a.lock_wait_timeouts += b.lock_wait_timeouts;
            a.other_errors += b.other_errors;
            if let Some(h) = &b.latency {
                a.latency.get_or_insert_with(LatencyHistogram::new).add(h);
            }
        }
    }

    /// The step's figures over `seconds` of measurement.
    pub fn result(&self, seconds: f64) -> TpccResult {
        let per_min = |n: u64| {
            if seconds > 0.0 {
                n as f64 * 60.0 / seconds
            } else {
                0.0
            }
        };
        let new_order = &self.kinds[TxnKind::NewOrder.index()];
        let transactions = TxnKind::ALL
            .into_iter()
            .zip(&self.kinds)
            .filter(|(_, k)| {
                k.committed + k.rolled_back + k.deadlocks + k.lock_wait_timeouts + k.other_errors
                    > 0
            })
            .map(|(kind, k)| {
                let done = k.committed + k.rolled_back;
                TpccTxnResult {
                    kind,
                    count: done,
                    rolled_back: k.rolled_back,
                    deadlocks: k.deadlocks,
                    lock_wait_timeouts: k.lock_wait_timeouts,
                    other_errors: k.other_errors,
                    per_s: if seconds > 0.0 {
                        done as f64 / seconds
                    } else {
                        0.0
                    },
                    latency: k.latency.as_ref().map(LatencyHistogram::summary),
                }
            })
            .collect::<Vec<_>>();
        let sum = |f: fn(&TpccTxnResult) -> u64| transactions.iter().map(f).sum::<u64>();
        TpccResult {
            tpmc: per_min(new_order.committed + new_order.rolled_back),
            nopm: per_min(new_order.committed),
            rollbacks: sum(|t| t.rolled_back),
            deadlocks: sum(|t| t.deadlocks),
            lock_wait_timeouts: sum(|t| t.lock_wait_timeouts),
            transactions,
        }
    }
}

/// A TPC-C step's figures in the language TPC-C users expect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TpccResult {
    /// New-Order transactions completed per minute, the 1% rolled back by design
    /// included (TPC-C counts them as completed business transactions).
    pub tpmc: f64,
    /// New Orders Per Minute: committed New-Orders only (HammerDB's NOPM).
    pub nopm: f64,
    /// New-Orders rolled back by design (an unused item id).
    pub rollbacks: u64,
    /// Transactions restarted after a deadlock (1213) or a lock wait timeout (1205).
    pub deadlocks: u64,
    pub lock_wait_timeouts: u64,
    /// Per transaction type, in the mix's order; types that never ran are left out.
    pub transactions: Vec<TpccTxnResult>,
}

/// One transaction type within a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TpccTxnResult {
    pub kind: TxnKind,
    /// Completed: committed plus rolled back by design.
    pub count: u64,
    pub rolled_back: u64,
    pub deadlocks: u64,
    pub lock_wait_timeouts: u64,
    pub other_errors: u64,
    pub per_s: f64,
    pub latency: Option<LatencySummary>,
}

impl TpccResult {
    /// The lines printed after sysbench's summary.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "TPC-C:");
        let _ = writeln!(
            s,
            "    tpmC (New-Order/min):                {:.2}",
            self.tpmc
        );
        let _ = writeln!(
            s,
            "    NOPM (committed New-Order/min):      {:.2}",
            self.nopm
        );
        let _ = writeln!(
            s,
            "    New-Order rollbacks (by design):     {}",
            self.rollbacks
        );
        let _ = writeln!(
            s,
            "    deadlocks (retried):                 {}",
            self.deadlocks
        );
        let _ = writeln!(
            s,
            "    lock wait timeouts (retried):        {}",
            self.lock_wait_timeouts
        );
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "    {:<14}{:>10} {:>10} {:>9} {:>9} {:>9} {:>9}",
            "transaction", "count", "per sec.", "avg ms", "p95 ms", "p99 ms", "max ms"
        );
        for t in &self.transactions {
            let l = t.latency.as_ref();
            let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
            let _ = writeln!(
                s,
                "    {:<14}{:>10} {:>10.2} {:>9} {:>9} {:>9} {:>9}",
                t.kind.label(),
                t.count,
                t.per_s,
                ms(l.map(|l| l.avg_ms)),
                ms(l.and_then(|l| l.p95_ms)),
                ms(l.and_then(|l| l.p99_ms)),
                ms(l.map(|l| l.max_ms)),
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpmc_counts_new_orders_per_minute() {
        let mut t = TpccTotals::default();
        for _ in 0..99 {
            t.record(TxnKind::NewOrder, Outcome::Committed, 1_000);
        }
        t.record(TxnKind::NewOrder, Outcome::RolledBack, 1_000);
        for _ in 0..100 {
            t.record(TxnKind::Payment, Outcome::Committed, 500);
        }
        t.retried(TxnKind::Payment, Retried::of_code(1213));
        t.retried(TxnKind::Delivery, Retried::of_code(1205));
        let mut all = TpccTotals::default();
        all.merge(&t);
        let r = all.result(30.0);
        assert_eq!(r.tpmc, 200.0);
        assert_eq!(r.nopm, 198.0);
        assert_eq!((r.rollbacks, r.deadlocks, r.lock_wait_timeouts), (1, 1, 1));
        let kinds: Vec<_> = r.transactions.iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            [TxnKind::NewOrder, TxnKind::Payment, TxnKind::Delivery]
        );
        assert_eq!(r.transactions[1].count, 100);
        assert!(r
            .text()
            .contains("tpmC (New-Order/min):                200.00"));
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<TpccResult>(&json).unwrap(), r);
    }
}
