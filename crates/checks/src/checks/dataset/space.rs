//! Whether the data directory's filesystem has room for what a prepare loads. The
//! figure is owned here, once: [`disk_fit`] gives the bytes needed (more with the binary
//! log on) and the verdict, for this check and for the Plan screen's preview alike.
//!
//! Non-goals: no reading of free space (the probe's `df` gives it), no cleanup advice
//! beyond the command to look by hand.

use dbdyno_engine::Plan;

use super::size::{estimate_bytes, prepares};
use crate::check::{Check, CheckStatus};
use crate::probe::{AccessKind, Facts, MysqlFacts};
use crate::sql::binlog_on;
use crate::text::human_bytes;

/// Free space wanted per byte of data loaded: files grow in extents, and the load
/// writes redo and undo on the same filesystem.
pub const SPACE_SAFETY_FACTOR: f64 = 1.5;

const ID: &str = "dataset.free_space";
const TITLE: &str = "Free space for the data";
pub(super) const SPACE_WHY: &str =
    "a prepare that fills the disk fails half-way and can stop the server for everyone";

/// What a prepare needs on the data directory's filesystem, and whether it is there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiskFit {
    /// Bytes the prepare loads (see [`estimate_bytes`]).
    pub data_bytes: u64,
    /// `data_bytes` × `factor`: what should be free.
    pub needed_bytes: u64,
    /// See [`space_factor`].
    pub factor: f64,
    pub binlog: bool,
    pub verdict: FitVerdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitVerdict {
    /// The data and the room it grows into fit.
    Fits,
    /// The data fits, but not with the room it grows into.
    Tight,
    /// Not even the data fits.
    TooBig,
}

impl DiskFit {
    pub fn fits(&self) -> bool {
        self.verdict == FitVerdict::Fits
    }
}

/// Free space wanted per byte loaded: [`SPACE_SAFETY_FACTOR`], and one more when the
/// binary log is on, since it keeps a second copy of every loaded row.
pub fn space_factor(binlog: bool) -> f64 {
    SPACE_SAFETY_FACTOR + if binlog { 1.0 } else { 0.0 }
}

/// The disk-fit figure of `plan` on a filesystem with `avail_bytes` free, with the
/// server's binary log on or off (see [`binlog_on`]); `None` when the plan loads no
/// data (no prepare).
pub fn disk_fit(plan: &Plan, binlog: bool, avail_bytes: u64) -> Option<DiskFit> {
    if !prepares(plan) {
        return None;
    }
    let data_bytes = estimate_bytes(plan);
    let factor = space_factor(binlog);
    let needed_bytes = (data_bytes as f64 * factor) as u64;
    let verdict = if avail_bytes < data_bytes {
        FitVerdict::TooBig
    } else if avail_bytes < needed_bytes {
        FitVerdict::Tight
    } else {
        FitVerdict::Fits
    };
    Some(DiskFit {
        data_bytes,
        needed_bytes,
        factor,
        binlog,
        verdict,
    })
}

pub(super) fn free_space(f: &Facts, m: &MysqlFacts, plan: &Plan) -> Check {
    let datadir = m
        .var("datadir")
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string();
    let by_hand = format!(
        "df -h {}",
        if datadir.is_empty() {
            "<datadir>"
        } else {
            &datadir
        }
    );
    let fs = f
        .host
        .os
        .as_ref()
        .and_then(|o| o.filesystem(&datadir).or_else(|| o.filesystems.first()));
    let Some(fs) = fs else {
        return Check::skipped(
            ID,
            TITLE,
            format!("free space unknown: {}", why_unknown(f)),
            SPACE_WHY,
        )
        .with_fix("check it on the server by hand", Some(by_hand));
    };
    let free = format!(
        "{} free of {} on {}",
        human_bytes(fs.avail_bytes),
        human_bytes(fs.total_bytes),
        fs.mount_point
    );
    let Some(fit) = disk_fit(plan, binlog_on(&m.variables), fs.avail_bytes) else {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            format!("the plan loads no data (no prepare); {free}"),
            SPACE_WHY,
        );
    };
    let seen = format!(
        "prepare loads about {} ({} needed with a safety factor of {}{}); {free}",
        human_bytes(fit.data_bytes),
        human_bytes(fit.needed_bytes),
        fit.factor,
        if fit.binlog { ", binary log on" } else { "" }
    );
    let status = match fit.verdict {
        FitVerdict::Fits => return Check::new(ID, TITLE, CheckStatus::Pass, seen, SPACE_WHY),
        FitVerdict::Tight => CheckStatus::Warn,
        FitVerdict::TooBig => CheckStatus::Fail,
    };
    Check::new(ID, TITLE, status, seen, SPACE_WHY).with_fix(
        "free space on the data disk, or use fewer/smaller tables (--tables, --table-size)",
        Some(by_hand),
    )
}

/// Why `df` gave nothing: no OS access, a failed fact script or SSH session, or no line
/// for the data directory.
fn why_unknown(f: &Facts) -> String {
    match f.host.kind {
        AccessKind::None => f.host.none_why.clone().unwrap_or_default(),
        _ => f
            .host
            .os_error
            .clone()
            .or_else(|| {
                f.host
                    .ssh
                    .as_ref()
                    .and_then(|s| s.as_ref().err())
                    .map(|p| p.message.clone())
            })
            .unwrap_or_else(|| "df gave no answer for the data directory".into()),
    }
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::Scenario;

    use super::*;
    use crate::checks::dataset::checks;
    use crate::checks::testing::{facts, find, plan, set_var, GIB};

    #[test]
    fn free_space_with_safety_factor_and_binlog() {
        let mut f = facts(); // 20 GiB free
        let fits = plan(&[Scenario::OltpReadWrite], &[8], 10, 1_000_000, true); // ~2.3 GiB
        assert_eq!(
            find(&checks(&f, &fits), "dataset.free_space").status,
            CheckStatus::Pass
        );
        let tight = plan(&[Scenario::OltpReadWrite], &[8], 16, 4_500_000, true); // ~16.2 GiB
        assert_eq!(
            find(&checks(&f, &tight), "dataset.free_space").status,
            CheckStatus::Warn
        );
        let too_big = plan(&[Scenario::OltpReadWrite], &[8], 16, 10_000_000, true);
        assert_eq!(
            find(&checks(&f, &too_big), "dataset.free_space").status,
            CheckStatus::Fail
        );
        set_var(&mut f, "log_bin", "ON");
        let c = find(&checks(&f, &fits), "dataset.free_space").clone();
        assert!(
            c.seen.contains("safety factor of 2.5, binary log on"),
            "{}",
            c.seen
        );
        // Without OS access: skipped, with the reason and the command to run by hand.
        f.host.os = None;
        f.host.kind = AccessKind::None;
        f.host.none_why = Some("managed database".into());
        let c = find(&checks(&f, &fits), "dataset.free_space").clone();
        assert_eq!(c.status, CheckStatus::Skipped);
        assert!(c.seen.contains("managed database"));
        assert_eq!(
            c.fix.unwrap().sql_or_command.as_deref(),
            Some("df -h /var/lib/mysql")
        );
        assert!(human_bytes(20 * GIB).starts_with("20.0 GiB"));
    }

    #[test]
    fn the_binary_log_raises_what_a_load_needs() {
        let p = plan(&[Scenario::OltpReadWrite], &[8], 10, 1_000_000, true);
        let data = estimate_bytes(&p);
        // Room for 2× the data: enough without the binary log, tight with it.
        let off = disk_fit(&p, false, 2 * data).unwrap();
        let on = disk_fit(&p, true, 2 * data).unwrap();
        assert_eq!((off.factor, on.factor), (1.5, 2.5));
        assert_eq!(off.needed_bytes, (data as f64 * 1.5) as u64);
        assert_eq!(on.needed_bytes, (data as f64 * 2.5) as u64);
        assert_eq!(
            (off.verdict, on.verdict),
            (FitVerdict::Fits, FitVerdict::Tight)
        );
        assert_eq!(
            disk_fit(&p, true, data - 1).unwrap().verdict,
            FitVerdict::TooBig
        );
        let no_prepare = plan(&[Scenario::OltpReadWrite], &[8], 10, 1_000_000, false);
        assert_eq!(disk_fit(&no_prepare, true, 0), None);
    }
}
