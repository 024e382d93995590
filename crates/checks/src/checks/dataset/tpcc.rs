//! The Benchmark tables check's TPC-C side: what TPC-C's prepare will do with the sets
//! it finds (the sizes of a TPC-C dataset are in `size`).

use dbdyno_engine::phases::FoundTables;
use dbdyno_engine::tpcc::schema::{table_name, TABLES};
use dbdyno_engine::{Phase, Plan, PrepareMode};

use super::pasted::connection_args;
use super::size::count;
use crate::check::{Check, CheckStatus};
use crate::probe::MysqlFacts;

/// What TPC-C's prepare will do with the sets it finds, as the engine's verifier
/// decided (`m.tpcc_tables`, the very verifier prepare asks): None when none is there
/// (prepare loads them), else a passing check (reused, or loaded again under
/// `prepare = "always"`) or a failing one with its fixes, each made by `check` (the
/// Benchmark tables check's id, title and why, which `tables` owns).
pub(super) fn before_prepare(
    m: &MysqlFacts,
    plan: &Plan,
    check: impl Fn(CheckStatus, String) -> Check,
) -> Option<Check> {
    let o = &plan.workload.tpcc;
    let always = prepare_mode(plan) == PrepareMode::Always;
    let cleanup = format!(
        "dbdyno tpcc {} --scale={} --tables={} cleanup",
        connection_args(plan),
        o.scale,
        o.tables
    );
    match &m.tpcc_tables {
        Some(FoundTables::Absent) => None,
        Some(FoundTables::Reusable(r)) if always => Some(check(
            CheckStatus::Pass,
            format!(
                "prepare = \"always\": drops DB Dyno's TPC-C tables (made on {}) and loads them again",
                r.made
            ),
        )),
        Some(FoundTables::Reusable(r)) => Some(check(
            CheckStatus::Pass,
            format!("prepare will find DB Dyno's TPC-C tables in the plan's shape: {}", r.summary()),
        )),
        Some(FoundTables::OursOtherShape { why }) if always => Some(check(
            CheckStatus::Pass,
            format!("prepare = \"always\": {why}; prepare drops DB Dyno's TPC-C tables and loads them again"),
        )),
        Some(FoundTables::OursOtherShape { why }) => Some(
            check(
                CheckStatus::Fail,
                format!("{why}: prepare reuses DB Dyno's TPC-C tables only in the plan's shape, and refuses"),
            )
            .with_fix(
                "drop DB Dyno's TPC-C tables and prepare again (prepare = \"always\", --prepare=always), or clean them up first",
                Some(cleanup),
            )
            .with_prepare_fix(PrepareMode::Always),
        ),
        Some(FoundTables::Foreign { why, .. }) => Some(
            check(
                CheckStatus::Fail,
                format!("{why}: prepare neither reuses nor drops it, and refuses"),
            )
            .with_fix(
                "read the tables as they are (prepare = \"never\", run without --prepare), or drop them first if nobody needs them",
                Some(cleanup),
            )
            .with_prepare_fix(PrepareMode::Never),
        ),
        // Without the verifier's word (it could not read the tables), the names alone:
        // prepare would refuse over tables it cannot judge.
        None => {
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
                        count(o.tables, "set of tables", "sets of tables")
                    ),
                )
                .with_fix(
                    "drop the old tables first, or run without --prepare to reuse them",
                    Some(cleanup),
                ),
            )
        }
    }
}

/// The plan's prepare mode of its TPC-C dataset.
fn prepare_mode(plan: &Plan) -> PrepareMode {
    plan.phases
        .iter()
        .find_map(|p| match p {
            Phase::Prepare { scenario, mode, .. } if scenario.is_tpcc() => Some(*mode),
            _ => None,
        })
        .unwrap_or_default()
}
