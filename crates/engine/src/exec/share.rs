//! One share of a step run from several load clients: where its workers sit among the
//! whole step's, and the histograms it hands back beside its result so that the
//! coordinator merges every percentile exactly.
//!
//! Why workers need a place among the step's: a worker's number seeds its random
//! stream (`--rand-seed`), picks its id slice (select_random_points/ranges), its
//! bulk_insert table and its unique insert ids. Numbered from 0 on every client, two
//! clients would draw the same rows in the same order and write into the same
//! bulk_insert table; numbered as one machine numbers them, the split step runs the
//! transactions the one-machine step runs.

use serde::{Deserialize, Serialize};

use super::worker::WorkerTotals;
use crate::stats::LatencyHistogram;
use crate::tpcc::TxnKind;
use crate::workload::StatementClass;

/// This share's workers are `first..first + threads` of the step's `of` workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerSlice {
    pub first: u32,
    /// Every worker of the step, on every client.
    pub of: u32,
}

impl WorkerSlice {
    /// A step run from this machine alone: its `threads` workers are all of them.
    pub fn whole(threads: u32) -> WorkerSlice {
        WorkerSlice {
            first: 0,
            of: threads,
        }
    }
}

/// The latency histograms a share's result summarises but does not carry: one per
/// statement class and one per TPC-C transaction type that ran (HdrHistogram V2 +
/// DEFLATE, base64, as [`crate::StepResult::histogram`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShareHistograms {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_class: Vec<(StatementClass, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tpcc: Vec<(TxnKind, String)>,
}

impl ShareHistograms {
    /// Every worker's histograms added up, per class and per transaction type.
    pub(super) fn of(totals: &[WorkerTotals]) -> ShareHistograms {
        let mut classes: Vec<Option<LatencyHistogram>> =
            (0..StatementClass::COUNT).map(|_| None).collect();
        let mut kinds: Vec<Option<LatencyHistogram>> = (0..TxnKind::COUNT).map(|_| None).collect();
        for t in totals {
            for (acc, h) in classes.iter_mut().zip(&t.per_class) {
                if let Some(h) = h {
                    acc.get_or_insert_with(LatencyHistogram::coarse).add(h);
                }
            }
            for (acc, k) in kinds.iter_mut().zip(t.tpcc.iter().flat_map(|t| &t.kinds)) {
                if let Some(h) = &k.latency {
                    acc.get_or_insert_with(LatencyHistogram::new).add(h);
                }
            }
        }
        ShareHistograms {
            per_class: StatementClass::all()
                .into_iter()
                .zip(classes)
                .filter_map(|(c, h)| Some((c, h.filter(|h| h.count() > 0)?.to_base64())))
                .collect(),
            tpcc: TxnKind::ALL
                .into_iter()
                .zip(kinds)
                .filter_map(|(k, h)| Some((k, h.filter(|h| h.count() > 0)?.to_base64())))
                .collect(),
        }
    }
}
