//! Aligning server samples to each step's exact window, and the per-step figures the
//! history and the reports store.
//!
//! Everything is put on this machine's clock first: an OS sample's end is its
//! `server_unix_ms` minus the SSH clock offset measured at connect (the server's own
//! clock stamps it, so network jitter does not move it); a MySQL sample's end is already
//! local. A sample belongs to a step when the middle of its interval falls inside the
//! step's half-open window `[started, ended)`: with one-second samples and an N-second
//! step that is exactly N samples, whichever way the two clocks' seconds are phased.
//!
//! The seed's "Sample Count" rule: a step of N seconds should have N samples; fewer
//! means the averages miss part of the step, so the step is flagged (with the gaps that
//! explain it, when there are any). Unlike tsar's lines, each of our samples is a delta
//! between two readings, so a late reading (a saturated server answers SHOW GLOBAL
//! STATUS late) loses nothing: its sample simply spans more than a second. The rule is
//! therefore applied to what matters, the seconds of the step the samples cover
//! (`covered_s`); the literal count is kept too, and a count more than one short of the
//! seconds is still flagged, because the maxima are then coarse.
//!
//! `window` holds a step's window, `gaps` the times without samples and the
//! sample-count rule, `aggregate` the figures a window's samples reduce to.
//!
//! Non-goals: no I/O, no printing; nothing here knows where the samples came from.

mod aggregate;
mod gaps;
mod window;

use std::time::Duration;

use crate::mysql_status::MysqlSample;
use crate::ServerSample;

pub use aggregate::{DiskFigures, MysqlFigures, OsFigures, StepServerFigures};
pub use gaps::{SampleGap, Source};
pub use window::StepWindow;

/// An OS sample with its end moved onto this machine's clock.
#[derive(Debug, Clone, PartialEq)]
struct OsPoint {
    end_ms: f64,
    sample: ServerSample,
}

impl OsPoint {
    fn mid_ms(&self) -> f64 {
        self.end_ms - self.sample.interval_s * 500.0
    }
}

/// Every sample of a run, ready to be cut into step windows.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    interval: Duration,
    os: Vec<OsPoint>,
    mysql: Vec<MysqlSample>,
    gaps: Vec<SampleGap>,
    os_missing: Option<String>,
    mysql_missing: Option<String>,
    os_offset_ms: Option<f64>,
}

impl Timeline {
    /// `interval` is the samplers' period (one second in practice).
    pub fn new(interval: Duration) -> Timeline {
        Timeline {
            interval,
            os: Vec::new(),
            mysql: Vec::new(),
            gaps: Vec::new(),
            os_missing: None,
            mysql_missing: None,
            os_offset_ms: None,
        }
    }

    /// The OS metrics will not come, and why (managed database, --no-monitor…).
    pub fn set_os_missing(&mut self, why: impl Into<String>) {
        self.os_missing = Some(why.into());
    }

    pub fn set_mysql_missing(&mut self, why: impl Into<String>) {
        self.mysql_missing = Some(why.into());
    }

    /// Adds an OS sample. `clock_offset_ms` is server − local as measured at (re)connect;
    /// `None` when unknown: the receive time is then used instead of the server's stamp.
    pub fn push_os(&mut self, sample: ServerSample, clock_offset_ms: Option<f64>) {
        let end_ms = match clock_offset_ms {
            Some(o) => sample.server_unix_ms as f64 - o,
            None => sample.local_unix_ms as f64,
        };
        if clock_offset_ms.is_some() {
            self.os_offset_ms = clock_offset_ms;
        }
        self.os.push(OsPoint { end_ms, sample });
    }

    pub fn push_mysql(&mut self, sample: MysqlSample) {
        self.mysql.push(sample);
    }

    pub fn push_gap(&mut self, gap: SampleGap) {
        self.gaps.push(gap);
    }

    pub fn os_samples(&self) -> usize {
        self.os.len()
    }

    pub fn mysql_samples(&self) -> usize {
        self.mysql.len()
    }

    pub fn gaps(&self) -> &[SampleGap] {
        &self.gaps
    }

    /// True once every active sampler has delivered the sample that ends the window
    /// (so its figures are final), judged on this machine's clock.
    pub fn covers(&self, w: &StepWindow) -> bool {
        let needed = w.ended_unix_ms as f64 + self.interval.as_millis() as f64 / 2.0;
        let os_done =
            self.os_missing.is_some() || self.os.last().is_some_and(|p| p.end_ms >= needed);
        let my_done = self.mysql_missing.is_some()
            || self
                .mysql
                .last()
                .is_some_and(|s| s.local_unix_ms as f64 >= needed);
        os_done && my_done
    }

    /// The step's aggregates.
    pub fn figures(&self, w: &StepWindow) -> StepServerFigures {
        let interval_ms = self.interval.as_millis().max(1) as f64;
        let expected = (w.duration_ms() as f64 / interval_ms).round() as u32;
        let duration_s = w.duration_ms() as f64 / 1000.0;
        let gaps = gaps::clip(&self.gaps, w);
        let os = (self.os_missing.is_none()).then(|| self.os_figures(w, duration_s));
        let mysql = (self.mysql_missing.is_none()).then(|| self.mysql_figures(w, duration_s));
        let flags = gaps::sample_count_flags(
            &[
                (Source::Os, os.as_ref().map(|o| (o.samples, o.covered_s))),
                (
                    Source::Mysql,
                    mysql.as_ref().map(|m| (m.samples, m.covered_s)),
                ),
            ],
            &gaps,
            expected,
            duration_s,
        );
        StepServerFigures {
            step: w.step,
            label: w.label.clone(),
            started_unix_ms: w.started_unix_ms,
            ended_unix_ms: w.ended_unix_ms,
            expected_samples: expected,
            os,
            os_missing: self.os_missing.clone(),
            mysql,
            mysql_missing: self.mysql_missing.clone(),
            gaps,
            flags,
        }
    }

    /// The OS samples whose interval's middle falls in the window; the seconds covered
    /// count every sample's overlap, capped at the step's length.
    fn os_figures(&self, w: &StepWindow, duration_s: f64) -> OsFigures {
        let points: Vec<&OsPoint> = self.os.iter().filter(|p| w.contains(p.mid_ms())).collect();
        let covered: f64 = self
            .os
            .iter()
            .map(|p| w.overlap_s(p.end_ms, p.sample.interval_s))
            .sum();
        aggregate::os_figures(&points, self.os_offset_ms, covered.min(duration_s))
    }

    /// The MySQL side, by the same rule as [`Self::os_figures`].
    fn mysql_figures(&self, w: &StepWindow, duration_s: f64) -> MysqlFigures {
        let points: Vec<&MysqlSample> = self
            .mysql
            .iter()
            .filter(|s| w.contains(s.local_unix_ms as f64 - s.interval_s * 500.0))
            .collect();
        let covered: f64 = self
            .mysql
            .iter()
            .map(|s| w.overlap_s(s.local_unix_ms as f64, s.interval_s))
            .sum();
        aggregate::mysql_figures(&points, covered.min(duration_s))
    }
}

#[cfg(test)]
mod tests;
