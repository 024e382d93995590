//! The Benchmark tables check's TPC-C side: what TPC-C's prepare will do with the sets
//! it finds (the sizes of a TPC-C dataset are in `size`).

use dbdyno_engine::tpcc::schema::{table_name, TABLES};
use dbdyno_engine::{Plan, PrepareMode};

use super::found::{judged, Dataset};
use super::pasted::connection_args;
use super::size::{prepare_mode_where, sets_of_tables};
use crate::check::{Check, CheckStatus};
use crate::probe::MysqlFacts;

/// What TPC-C's prepare will do with the sets it finds, as the engine's verifier
/// decided (`m.tpcc_tables`), worded by `found::judged`: None when none is there,
/// else a check made by `check` (the Benchmark tables check's id, title and why, which
/// `tables` owns).
pub(super) fn before_prepare(
    m: &MysqlFacts,
    plan: &Plan,
    check: impl Fn(CheckStatus, String) -> Check,
) -> Option<Check> {
    let o = &plan.workload.tpcc;
    let cleanup = format!(
        "dbdyno tpcc {} --scale={} --tables={} cleanup",
        connection_args(plan),
        o.scale,
        o.tables
    );
    let Some(found) = &m.tpcc_tables else {
        return unverified(m, plan, cleanup, check);
    };
    let d = Dataset {
        ours: "DB Dyno's TPC-C tables",
        dropped: "the TPC-C sets".into(),
        always: prepare_mode_where(plan, |s| s.is_tpcc()) == PrepareMode::Always,
        resumes: false,
        cleanup,
    };
    judged(found, d, check)
}

/// Without the verifier's word (it could not read the tables), the names alone:
/// prepare would refuse over tables it cannot judge.
fn unverified(
    m: &MysqlFacts,
    plan: &Plan,
    cleanup: String,
    check: impl Fn(CheckStatus, String) -> Check,
) -> Option<Check> {
    let o = &plan.workload.tpcc;
    let taken: Vec<String> = (1..=o.tables)
        .flat_map(|set| TABLES.iter().map(move |t| table_name(t.name, set)))
        .filter(|name| m.tables.keys().any(|k| k.eq_ignore_ascii_case(name)))
        .collect();
    let first = taken.first()?;
    let more = match taken.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Some(
                check(
                    CheckStatus::Fail,
                    format!(
                        "tpcc's prepare will create its {}, but {first} already exists{more} and could not be verified as DB Dyno's: prepare refuses rather than load twice",
                        sets_of_tables(o.tables)
                    ),
                )
                .with_fix(
                    "drop the old tables first, or run without --prepare to reuse them",
                    Some(cleanup),
                ),
            )
}
