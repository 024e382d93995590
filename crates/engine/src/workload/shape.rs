//! One transaction of each scenario, as a list of statement blocks.
//!
//! sysbench picks one table per block (`execute_point_selects` draws `tnum` once and
//! runs all its point selects against it), so a block is "these classes, this many
//! times, on one randomly chosen table". Reading the Lua `event()` functions top to
//! bottom gives exactly these lists.

use super::{Scenario, StatementClass, WorkloadOptions};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Executed in this order, `repeat` times, against one table.
    pub classes: Vec<StatementClass>,
    pub repeat: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnShape {
    /// BEGIN ... COMMIT around the blocks (off with --skip-trx, and for single-statement scripts).
    pub explicit_trx: bool,
    pub blocks: Vec<Block>,
}

impl TxnShape {
    pub fn for_scenario(scenario: Scenario, o: &WorkloadOptions) -> TxnShape {
        use StatementClass::*;
        let block = |class: StatementClass, repeat: u32| Block {
            classes: vec![class],
            repeat,
        };
        let ranges = |o: &WorkloadOptions| {
            if o.range_selects {
                vec![
                    block(SimpleRange, o.simple_ranges),
                    block(SumRange, o.sum_ranges),
                    block(OrderRange, o.order_ranges),
                    block(DistinctRange, o.distinct_ranges),
                ]
            } else {
                Vec::new()
            }
        };
        let writes = |o: &WorkloadOptions| {
            vec![
                block(IndexUpdate, o.index_updates),
                block(NonIndexUpdate, o.non_index_updates),
                Block {
                    classes: vec![Delete, Insert],
                    repeat: o.delete_inserts,
                },
            ]
        };
        let (explicit_trx, mut blocks) = match scenario {
            // oltp_point_select.lua forces point_selects=1.
            Scenario::OltpPointSelect => (false, vec![block(PointSelect, 1)]),
            Scenario::OltpReadOnly => {
                let mut b = vec![block(PointSelect, o.point_selects)];
                b.extend(ranges(o));
                (!o.skip_trx, b)
            }
            Scenario::OltpReadWrite => {
                let mut b = vec![block(PointSelect, o.point_selects)];
                b.extend(ranges(o));
                b.extend(writes(o));
                (!o.skip_trx, b)
            }
            Scenario::OltpWriteOnly => (!o.skip_trx, writes(o)),
            Scenario::OltpInsert => (false, vec![block(Insert, 1)]),
            Scenario::OltpDelete => (false, vec![block(Delete, 1)]),
            Scenario::OltpUpdateIndex => (false, vec![block(IndexUpdate, o.index_updates)]),
            Scenario::OltpUpdateNonIndex => {
                (false, vec![block(NonIndexUpdate, o.non_index_updates)])
            }
            Scenario::SelectRandomPoints => (false, vec![block(RandomPoints, 1)]),
            Scenario::SelectRandomRanges => (false, vec![block(RandomRanges, 1)]),
            Scenario::BulkInsert => (false, vec![block(BulkInsert, 1)]),
            // TPC-C's transactions are not statement blocks: crate::tpcc::txn runs them.
            Scenario::Tpcc => (false, Vec::new()),
        };
        blocks.retain(|b| b.repeat > 0 && !b.classes.is_empty());
        TxnShape {
            explicit_trx,
            blocks,
        }
    }

    /// Distinct statement classes used, in first-use order (what a connection prepares per table).
    pub fn classes(&self) -> Vec<StatementClass> {
        let mut out: Vec<StatementClass> = Vec::new();
        for c in self.blocks.iter().flat_map(|b| b.classes.iter().copied()) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// Statements one transaction sends, BEGIN and COMMIT included.
    pub fn statements_per_txn(&self) -> u64 {
        let body: u64 = self
            .blocks
            .iter()
            .map(|b| b.classes.len() as u64 * b.repeat as u64)
            .sum();
        body + if self.explicit_trx { 2 } else { 0 }
    }
}

/// Server-side prepared statements one connection holds for this scenario, the way
/// sysbench prepares them: every class for every table, plus BEGIN and COMMIT.
/// This is what `max_prepared_stmt_count` must cover, times the thread count.
pub fn prepared_statements_per_connection(scenario: Scenario, o: &WorkloadOptions) -> u64 {
    if o.ps_mode == super::PsMode::Disable {
        return 0;
    }
    let shape = TxnShape::for_scenario(scenario, o);
    // oltp_insert and bulk_insert send plain queries, as their Lua scripts do.
    let per_table = shape
        .classes()
        .into_iter()
        .filter(|c| super::sql::is_prepared(scenario, *c))
        .count() as u64;
    let tables = if scenario.single_table_only() {
        1
    } else {
        o.tables as u64
    };
    per_table * tables + if shape.explicit_trx { 2 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_write_has_sysbench_statement_mix() {
        let o = WorkloadOptions::default();
        let s = TxnShape::for_scenario(Scenario::OltpReadWrite, &o);
        // 10 point + 4 ranges + 2 updates + delete + insert + BEGIN + COMMIT = 20
        assert_eq!(s.statements_per_txn(), 20);
        assert!(s.explicit_trx);
        assert_eq!(s.classes().len(), 9);
    }

    #[test]
    fn point_select_is_one_statement() {
        let o = WorkloadOptions {
            point_selects: 10,
            ..Default::default()
        };
        let s = TxnShape::for_scenario(Scenario::OltpPointSelect, &o);
        assert_eq!(s.statements_per_txn(), 1);
    }

    #[test]
    fn options_change_the_shape() {
        let o = WorkloadOptions {
            range_selects: false,
            skip_trx: true,
            delete_inserts: 0,
            ..Default::default()
        };
        let s = TxnShape::for_scenario(Scenario::OltpReadWrite, &o);
        assert_eq!(s.statements_per_txn(), 10 + 2);
        assert!(!s.explicit_trx);
    }

    #[test]
    fn prepared_statement_budget_matches_sysbench() {
        let o = WorkloadOptions {
            tables: 4,
            ..Default::default()
        };
        // 9 per table + BEGIN + COMMIT, as the checks issue states.
        assert_eq!(
            prepared_statements_per_connection(Scenario::OltpReadWrite, &o),
            9 * 4 + 2
        );
        assert_eq!(
            prepared_statements_per_connection(Scenario::OltpPointSelect, &o),
            4
        );
        assert_eq!(
            prepared_statements_per_connection(Scenario::OltpInsert, &o),
            0
        );
    }
}
