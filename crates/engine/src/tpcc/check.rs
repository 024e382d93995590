//! `tpcc check`: tpcc_check.lua's consistency checks, every one of them (the reference
//! numbers them 1-5, 7-10 and 12), per warehouse and set of tables.
//!
//! Each check is the reference's query, wrapped where needed so that it returns the
//! number of offending rows (warehouses, districts, orders, lines or customers) rather
//! than rows the caller compares: a check passes when that number is 0. A NULL where
//! the reference compares numbers counts as a mismatch, as it does in the reference
//! (Lua's `nil ~= n`).

use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};

use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::plan::ConnectOptions;

use super::options::TpccOptions;

/// One check: the reference's number and what it holds.
#[derive(Debug, Clone, Copy)]
pub struct CheckDef {
    pub number: u8,
    pub what: &'static str,
    /// What the offending count counts.
    pub counts: &'static str,
    /// The query for table set `{t}` and warehouse `{w}`: one row, one count.
    sql: &'static str,
}

pub const CHECKS: [CheckDef; 10] = [
    CheckDef {
        number: 1,
        what: "a warehouse's w_ytd is the sum of its districts' d_ytd",
        counts: "warehouses",
        sql: "SELECT COUNT(*) FROM (SELECT d_w_id, SUM(d_ytd) - MAX(w_ytd) diff \
              FROM district{t}, warehouse{t} WHERE d_w_id = w_id AND w_id = {w} \
              GROUP BY d_w_id) c WHERE NOT (diff <=> 0)",
    },
    CheckDef {
        number: 2,
        what: "a district's d_next_o_id - 1 is its highest order id and highest new-order id",
        counts: "districts",
        sql: "SELECT COUNT(*) FROM (SELECT dis.d_id, d_next_o_id - 1 d1, mo, mno \
              FROM district{t} dis, \
              (SELECT o_d_id, MAX(o_id) mo FROM orders{t} WHERE o_w_id = {w} GROUP BY o_d_id) q, \
              (SELECT no_d_id, MAX(no_o_id) mno FROM new_orders{t} WHERE no_w_id = {w} GROUP BY no_d_id) no \
              WHERE d_w_id = {w} AND q.o_d_id = dis.d_id AND no.no_d_id = dis.d_id) c \
              WHERE NOT (d1 <=> mo) OR NOT (d1 <=> mno)",
    },
    CheckDef {
        number: 3,
        what: "a district's new orders have no gaps (max - min + 1 = count)",
        counts: "districts",
        sql: "SELECT COUNT(*) FROM (SELECT no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1 span, COUNT(*) n \
              FROM new_orders{t} WHERE no_w_id = {w} GROUP BY no_d_id) c WHERE NOT (span <=> n)",
    },
    CheckDef {
        number: 4,
        what: "a district's orders' o_ol_cnt add up to its order lines",
        counts: "districts",
        sql: "SELECT COUNT(*) FROM (SELECT o_d_id, SUM(o_ol_cnt) sm1, MAX(cn) AS cn \
              FROM orders{t}, (SELECT ol_d_id, COUNT(*) cn FROM order_line{t} \
              WHERE ol_w_id = {w} GROUP BY ol_d_id) ol \
              WHERE o_w_id = {w} AND ol_d_id = o_d_id GROUP BY o_d_id) t1 WHERE sm1 <> cn",
    },
    CheckDef {
        number: 5,
        what: "an order has a carrier exactly when it is not a new order",
        counts: "orders",
        sql: "SELECT COUNT(*) FROM orders{t} LEFT JOIN new_orders{t} \
              ON (no_w_id = o_w_id AND o_d_id = no_d_id AND o_id = no_o_id) \
              WHERE o_w_id = {w} AND ((o_carrier_id IS NULL AND no_o_id IS NULL) \
              OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL))",
    },
    CheckDef {
        number: 7,
        what: "an order line has a delivery date exactly when its order has a carrier",
        counts: "order lines",
        sql: "SELECT COUNT(*) FROM orders{t}, order_line{t} \
              WHERE o_id = ol_o_id AND o_d_id = ol_d_id AND ol_w_id = o_w_id AND o_w_id = {w} \
              AND ((ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) \
              OR (o_carrier_id IS NULL AND ol_delivery_d IS NOT NULL))",
    },
    CheckDef {
        number: 8,
        what: "a warehouse's w_ytd is the sum of its history's h_amount",
        counts: "warehouses",
        sql: "SELECT COUNT(*) cn FROM (SELECT w_id, w_ytd, SUM(h_amount) sm \
              FROM history{t}, warehouse{t} WHERE h_w_id = w_id AND w_id = {w} GROUP BY w_id) t1 \
              WHERE w_ytd <> sm",
    },
    CheckDef {
        number: 9,
        what: "a district's d_ytd is the sum of its history's h_amount",
        counts: "districts",
        sql: "SELECT COUNT(*) FROM (SELECT d_id, d_w_id, SUM(d_ytd) s1 FROM district{t} \
              GROUP BY d_id, d_w_id) d, (SELECT h_d_id, h_w_id, SUM(h_amount) s2 FROM history{t} \
              WHERE h_w_id = {w} GROUP BY h_d_id, h_w_id) h \
              WHERE h_d_id = d_id AND d_w_id = h_w_id AND d_w_id = {w} AND s1 <> s2",
    },
    CheckDef {
        number: 10,
        what: "a customer's c_balance is its delivered order lines' amount less its payments",
        counts: "customers",
        sql: "SELECT COUNT(*) FROM (SELECT c.c_id, c.c_d_id, c.c_w_id, c.c_balance c1, \
              (SELECT SUM(ol_amount) FROM orders{t} STRAIGHT_JOIN order_line{t} \
              WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
              AND ol_delivery_d IS NOT NULL AND o_w_id = c.c_w_id AND o_d_id = c.c_d_id \
              AND o_c_id = c.c_id) sm, \
              (SELECT SUM(h_amount) FROM history{t} WHERE h_c_w_id = c.c_w_id \
              AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id) smh \
              FROM customer{t} c WHERE c.c_w_id = {w}) t WHERE c1 <> sm - smh",
    },
    CheckDef {
        number: 12,
        what: "a customer's c_balance + c_ytd_payment is its delivered order lines' amount",
        counts: "customers",
        sql: "SELECT COUNT(*) FROM (SELECT c.c_id, c.c_d_id, c.c_balance c1, c_ytd_payment, \
              (SELECT SUM(ol_amount) FROM orders{t} STRAIGHT_JOIN order_line{t} \
              WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id \
              AND ol_delivery_d IS NOT NULL AND o_w_id = c.c_w_id AND o_d_id = c.c_d_id \
              AND o_c_id = c.c_id) sm FROM customer{t} c WHERE c.c_w_id = {w}) t1 \
              WHERE c1 + c_ytd_payment <> sm",
    },
];

impl CheckDef {
    pub fn sql(&self, set: u32, warehouse: u32) -> String {
        self.sql
            .replace("{t}", &set.to_string())
            .replace("{w}", &warehouse.to_string())
    }
}

/// One check of one warehouse in one set of tables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckOutcome {
    pub check: u8,
    pub set: u32,
    pub warehouse: u32,
    /// Rows that break the rule (what they are: [`CheckDef::counts`]); 0 passes.
    pub offending: u64,
}

impl CheckOutcome {
    pub fn passed(&self) -> bool {
        self.offending == 0
    }

    pub fn def(&self) -> &'static CheckDef {
        CHECKS
            .iter()
            .find(|c| c.number == self.check)
            .expect("an outcome of a known check")
    }
}

/// Every outcome, ordered by check, set and warehouse.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckReport {
    pub outcomes: Vec<CheckOutcome>,
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(CheckOutcome::passed)
    }

    pub fn failures(&self) -> impl Iterator<Item = &CheckOutcome> {
        self.outcomes.iter().filter(|o| !o.passed())
    }

    /// The reference's lines (`Check 2, warehouse: 1 PASSED` / `FAILED!!!`, one per
    /// warehouse and check, the sets taken together), each failure followed by what
    /// broke the rule where; then one summary line.
    pub fn lines(&self) -> Vec<String> {
        let mut warehouses: Vec<u32> = self.outcomes.iter().map(|o| o.warehouse).collect();
        warehouses.sort_unstable();
        warehouses.dedup();
        let mut lines = Vec::new();
        for w in warehouses {
            for c in &CHECKS {
                let mine: Vec<&CheckOutcome> = self
                    .outcomes
                    .iter()
                    .filter(|o| o.warehouse == w && o.check == c.number)
                    .collect();
                if mine.iter().all(|o| o.passed()) {
                    lines.push(format!("Check {}, warehouse: {w} PASSED", c.number));
                    continue;
                }
                lines.push(format!("Check {}, warehouse: {w} FAILED!!!", c.number));
                for o in mine.iter().filter(|o| !o.passed()) {
                    lines.push(format!(
                        "  tables {}: {} {} break the rule: {}",
                        o.set, o.offending, c.counts, c.what
                    ));
                }
            }
        }
        let failed = self.failures().count();
        lines.push(if failed == 0 {
            format!("All {} consistency checks passed", self.outcomes.len())
        } else {
            format!(
                "{failed} of {} consistency checks FAILED",
                self.outcomes.len()
            )
        });
        lines
    }
}

/// Runs every check on warehouses 1..=scale of sets 1..=tables, warehouses spread
/// over `threads` connections as the reference spreads them.
pub fn check(
    connect: &ConnectOptions,
    o: &TpccOptions,
    threads: u32,
    cancel: &CancelToken,
) -> Result<CheckReport, EngineError> {
    let (tx, rx) = crossbeam_channel::unbounded();
    for w in 1..=o.scale {
        let _ = tx.send(w);
    }
    drop(tx);
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.clamp(1, o.scale.max(1)))
            .map(|_| {
                let rx = rx.clone();
                scope.spawn(move || -> Result<Vec<CheckOutcome>, EngineError> {
                    let mut conn = driver::connect(connect)?;
                    let mut out = Vec::new();
                    while let Ok(w) = rx.recv() {
                        if cancel.is_cancelled() {
                            break;
                        }
                        for set in 1..=o.tables {
                            for c in &CHECKS {
                                let offending: Option<u64> =
                                    conn.query_first(c.sql(set, w)).map_err(|e| {
                                        driver::query_error(
                                            &format!(
                                                "check {} (set {set}, warehouse {w})",
                                                c.number
                                            ),
                                            &e,
                                        )
                                    })?;
                                out.push(CheckOutcome {
                                    check: c.number,
                                    set,
                                    warehouse: w,
                                    offending: offending.unwrap_or(0),
                                });
                            }
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        let mut all = Vec::new();
        let mut first_err = None;
        for h in handles {
            match h.join() {
                Ok(Ok(v)) => all.extend(v),
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err
                        .get_or_insert(EngineError::Internal("a check thread panicked".into()));
                }
            }
        }
        first_err.map_or(Ok(all), Err)
    })?;
    let mut outcomes = results;
    outcomes.sort_by_key(|o| (o.check, o.set, o.warehouse));
    Ok(CheckReport { outcomes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_of_the_reference_is_here_once() {
        let numbers: Vec<u8> = CHECKS.iter().map(|c| c.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 7, 8, 9, 10, 12]);
    }

    #[test]
    fn queries_name_the_set_and_warehouse_and_count() {
        for c in &CHECKS {
            let sql = c.sql(3, 17);
            assert!(
                sql.starts_with("SELECT COUNT(*)"),
                "check {}: {sql}",
                c.number
            );
            assert!(!sql.contains('{'), "check {}: {sql}", c.number);
            assert!(sql.contains("= 17"), "check {}: {sql}", c.number);
            assert!(!sql.contains("{t}") && sql.contains('3'));
        }
        assert!(CHECKS[0].sql(2, 1).contains("district2, warehouse2"));
    }

    #[test]
    fn a_report_fails_when_one_outcome_has_offenders() {
        let ok = CheckOutcome {
            check: 1,
            set: 1,
            warehouse: 1,
            offending: 0,
        };
        let bad = CheckOutcome {
            check: 2,
            offending: 3,
            ..ok.clone()
        };
        assert!(CheckReport {
            outcomes: vec![ok.clone()]
        }
        .passed());
        let r = CheckReport {
            outcomes: vec![ok, bad.clone()],
        };
        assert!(!r.passed());
        assert_eq!(r.failures().collect::<Vec<_>>(), [&bad]);
        assert_eq!(bad.def().counts, "districts");
        let lines = r.lines();
        assert_eq!(lines[0], "Check 1, warehouse: 1 PASSED");
        assert_eq!(lines[1], "Check 2, warehouse: 1 FAILED!!!");
        assert!(lines[2].contains("3 districts break the rule"), "{lines:?}");
        assert_eq!(lines.last().unwrap(), "1 of 2 consistency checks FAILED");
    }
}
