//! Whether the history's directory can take the planned run: writable, and with room
//! for what the run stores (estimated from the plan: steps × seconds × per-second
//! records and samples, one histogram and result per step). A run whose history fills
//! up is not lost (its steps go to the spill file, docs/history.md "What is never
//! lost"), so too little room warns; a directory nothing can be written to fails, since
//! the run would be refused anyway, unless the spill directory takes the results.
//!
//! Non-goals: looking at the directory (the caller probes it on this machine and hands
//! the facts in: [`HistoryDirFacts`]); the server's data disk (`dataset/space.rs`).

use std::path::{Path, PathBuf};

use dbdyno_engine::Plan;

use crate::check::{Check, CheckStatus};
use crate::text::human_bytes;

pub const CHECK_ID: &str = "history.directory";
const TITLE: &str = "History directory writable, with room for the run";
const WHY: &str = "a run the history cannot take is measured and then has to be imported from its spill file by hand";

/// What the history keeps per second of a measured step. Measured: a monitored ladder
/// of 2 point_select steps × 20 s on the sandbox grew the database by 35 pages of 4 KiB
/// (143 KB): per second an OS sample (1.1 KB of JSON), a MySQL status sample (0.6 KB)
/// and an interval row, about 3 KiB with SQLite's pages and indexes. Twice that here:
/// an OS sample grows with the number of disks and interfaces.
pub const BYTES_PER_SECOND: u64 = 6 * 1024;
/// Per step: its result JSON (5 KB measured), the HDR histogram text (2.7 KB measured,
/// more for a wide latency spread) and the monitoring record's step, with room.
pub const BYTES_PER_STEP: u64 = 64 * 1024;
/// Per run: the run row with its plan, profile and environment snapshot, and the room
/// SQLite's WAL takes before a checkpoint folds it back (1000 pages of 4 KiB).
pub const BYTES_PER_RUN: u64 = 4 * 1024 * 1024 + 256 * 1024;

/// The history's directory as this machine sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryDirFacts {
    pub dir: PathBuf,
    /// Err: why a file cannot be written and synced there.
    pub writable: Result<(), String>,
    /// Free bytes for this user on its file system; None: unknown.
    pub avail_bytes: Option<u64>,
}

/// What `plan` stores in the history, at most (a capacity search's extra steps are not
/// counted: how many run depends on the results).
pub fn planned_bytes(plan: &Plan) -> u64 {
    let (steps, seconds) = plan.steps().fold((0u64, 0u64), |(n, s), step| {
        (n + 1, s + step.settings.time_s.max(1))
    });
    BYTES_PER_RUN + steps * BYTES_PER_STEP + seconds * BYTES_PER_SECOND
}

/// The check row: `facts` of the directory, the plan's [`planned_bytes`], and the spill
/// directory the run was given (`--spill-dir`), which lets a run go on without its
/// history.
pub fn check(facts: &HistoryDirFacts, needed_bytes: u64, spill_dir: Option<&Path>) -> Check {
    let dir = facts.dir.display();
    let room = facts.avail_bytes.map_or_else(
        || "free space unknown".to_string(),
        |b| format!("{} free", human_bytes(b)),
    );
    let fix_space = format!(
        "free space there (`df -h {dir}`), give --data-dir=DIR on a disk with room, or --spill-dir=DIR to keep the results in a file if it fills (`dbdyno import results FILE` brings them in later)"
    );
    match (&facts.writable, facts.avail_bytes) {
        (Err(e), _) => {
            let seen = format!("{dir}: cannot write there: {e} ({room})");
            match spill_dir {
                Some(s) => Check::new(
                    CHECK_ID,
                    TITLE,
                    CheckStatus::Warn,
                    format!(
                        "{seen}; the results go to the spill directory {}",
                        s.display()
                    ),
                    WHY,
                )
                .with_fix(fix_space, None),
                None => Check::new(CHECK_ID, TITLE, CheckStatus::Fail, seen, WHY).with_fix(
                    format!("{fix_space}; or --no-history"),
                    Some(format!("df -h {dir}; ls -ld {dir}")),
                ),
            }
        }
        (Ok(()), Some(avail)) if avail < needed_bytes => Check::new(
            CHECK_ID,
            TITLE,
            CheckStatus::Warn,
            format!(
                "{dir}: writable, {room}; the planned run stores up to {}",
                human_bytes(needed_bytes)
            ),
            WHY,
        )
        .with_fix(fix_space, Some(format!("df -h {dir}"))),
        (Ok(()), _) => Check::new(
            CHECK_ID,
            TITLE,
            CheckStatus::Pass,
            format!(
                "{dir}: writable, {room}; the planned run stores up to {}",
                human_bytes(needed_bytes)
            ),
            WHY,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::plan;
    use dbdyno_engine::Scenario;

    fn facts(writable: Result<(), String>, avail: Option<u64>) -> HistoryDirFacts {
        HistoryDirFacts {
            dir: "/data/dbdyno".into(),
            writable,
            avail_bytes: avail,
        }
    }

    #[test]
    fn the_estimate_grows_with_steps_and_seconds() {
        let one = plan(&[Scenario::OltpPointSelect], &[1], 1, 1000, false);
        let four = plan(&[Scenario::OltpPointSelect], &[1, 2, 4, 8], 1, 1000, false);
        let steps = |p: &Plan| p.steps().count() as u64;
        let secs = |p: &Plan| p.steps().map(|s| s.settings.time_s).sum::<u64>();
        assert_eq!(
            planned_bytes(&one),
            BYTES_PER_RUN + BYTES_PER_STEP + secs(&one) * BYTES_PER_SECOND
        );
        assert_eq!(
            planned_bytes(&four) - planned_bytes(&one),
            (steps(&four) - 1) * BYTES_PER_STEP + (secs(&four) - secs(&one)) * BYTES_PER_SECOND
        );
    }

    #[test]
    fn unwritable_fails_unless_a_spill_directory_takes_the_results() {
        let f = facts(Err("Read-only file system (os error 30)".into()), Some(0));
        let c = check(&f, 1 << 20, None);
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("Read-only file system"), "{}", c.seen);
        let fix = c.fix.unwrap().text;
        assert!(
            fix.contains("--spill-dir") && fix.contains("--no-history"),
            "{fix}"
        );
        let c = check(&f, 1 << 20, Some(Path::new("/mnt/spill")));
        assert_eq!(c.status, CheckStatus::Warn);
        assert!(c.seen.contains("/mnt/spill"), "{}", c.seen);
    }

    #[test]
    fn too_little_room_warns_and_enough_passes() {
        let c = check(&facts(Ok(()), Some(1 << 20)), 5 << 20, None);
        assert_eq!(c.status, CheckStatus::Warn);
        assert!(
            c.seen.contains("1.0 MiB free") || c.seen.contains("MiB free"),
            "{}",
            c.seen
        );
        assert!(c.fix.unwrap().text.contains("import results"));
        assert_eq!(
            check(&facts(Ok(()), Some(1 << 30)), 5 << 20, None).status,
            CheckStatus::Pass
        );
        assert_eq!(
            check(&facts(Ok(()), None), 5 << 20, None).status,
            CheckStatus::Pass
        );
    }
}
