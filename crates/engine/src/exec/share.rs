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
//!
//! Records only, a leaf of `exec`: the shared state and the workers name them, and the
//! workers' histograms are added up into [`ShareHistograms`] where the workers' totals
//! live (`worker`).

use serde::{Deserialize, Serialize};

use crate::tpcc::TxnKind;
use crate::workload::StatementClass;

/// This share's workers are `first..first + threads` of the step's `of` workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ShareHistograms {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_class: Vec<(StatementClass, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tpcc: Vec<(TxnKind, String)>,
}
