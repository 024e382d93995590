//! What prepare will do with the benchmark tables it finds, in the Benchmark tables
//! check's words: one wording for the OLTP tables (`tables`) and TPC-C's sets (`tpcc`),
//! from the engine's verdict on them ([`FoundTables`], the very verifier prepare asks).
//! A leaf of the dataset checks: its callers make the Check (id, title, why).

use dbdyno_engine::phases::FoundTables;
use dbdyno_engine::PrepareMode;

use crate::check::{Check, CheckStatus};

/// The dataset a verdict is about, as the sentences name it.
pub(super) struct Dataset<'a> {
    /// "DB Dyno's tables", "DB Dyno's TPC-C tables".
    pub ours: &'a str,
    /// What `prepare = "always"` drops: "sbtest1..4", "the TPC-C sets".
    pub dropped: String,
    /// The plan's prepare mode is `always`.
    pub always: bool,
    /// The plan's prepare mode is `resume`, and this dataset can be resumed table by
    /// table (the OLTP tables; a TPC-C set is marked only once it is complete).
    pub resumes: bool,
    /// The command that drops them by hand.
    pub cleanup: String,
}

/// None when nothing is there (prepare loads the tables), else a passing check (reused,
/// or loaded again under `prepare = "always"`) or a failing one with its fixes, each
/// made by `check`.
pub(super) fn judged(
    found: &FoundTables,
    d: Dataset,
    check: impl Fn(CheckStatus, String) -> Check,
) -> Option<Check> {
    let ours = d.ours;
    Some(match found {
        FoundTables::Absent => return None,
        FoundTables::Reusable(r) if d.always => check(
            CheckStatus::Pass,
            format!(
                "prepare = \"always\": drops {} (made by DB Dyno on {}) and loads them again",
                d.dropped, r.made
            ),
        ),
        FoundTables::Reusable(r) => check(
            CheckStatus::Pass,
            format!("prepare will find {ours} in the plan's shape: {}", r.summary()),
        ),
        FoundTables::OursOtherShape { why } if d.always => check(
            CheckStatus::Pass,
            format!("prepare = \"always\": {why}; prepare drops {ours} and loads them again"),
        ),
        FoundTables::OursOtherShape { why } if d.resumes => check(
            CheckStatus::Pass,
            format!("prepare = \"resume\": {why}; prepare keeps the tables that are complete and verified, and loads the others again"),
        ),
        FoundTables::OursOtherShape { why } => check(
            CheckStatus::Fail,
            format!("{why}: prepare reuses {ours} only in the plan's shape, and refuses"),
        )
        .with_fix(
            format!("drop {ours} and prepare again (prepare = \"always\", --prepare=always), or clean them up first"),
            Some(d.cleanup),
        )
        .with_prepare_fix(PrepareMode::Always),
        FoundTables::Foreign { why, .. } => check(
            CheckStatus::Fail,
            format!("{why}: prepare neither reuses nor drops it, and refuses"),
        )
        .with_fix(
            "read the tables as they are (prepare = \"never\", run without --prepare), or drop them first if nobody needs them",
            Some(d.cleanup),
        )
        .with_prepare_fix(PrepareMode::Never),
    })
}
