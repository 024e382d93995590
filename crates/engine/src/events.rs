//! What the engine tells its consumers while it runs. The CLI prints these, the GUI
//! draws them, the history writer stores them; the engine does not know which.

use serde::{Deserialize, Serialize};

use crate::phases::{PrepareReport, PrewarmReport};
use crate::results::{IntervalRecord, StepResult};
use crate::workload::Scenario;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EngineEvent {
    /// A phase of the plan begins. `index` counts phases from 0, `of` is their number.
    PhaseStarted {
        index: usize,
        of: usize,
        label: String,
    },
    /// A line sysbench would print ("Creating table 'sbtest1'...").
    Message {
        text: String,
    },
    /// A non-fatal problem worth showing (errors ignored, a reconnect, a slow prewarm).
    Warning {
        text: String,
    },
    /// Rows loaded so far during prepare.
    PrepareProgress {
        rows_done: u64,
        rows_total: u64,
    },
    PrepareFinished(PrepareReport),
    PrewarmFinished(PrewarmReport),
    /// A step's connections are opening (every quarter second while it lasts, and once
    /// with `done` when every worker answered), so a slow ramp is never taken for a hang.
    Connecting(ConnectionsOpening),
    /// A measured step is starting: warmup (if any) has ended, the clock runs.
    StepStarted {
        step: usize,
        scenario: Scenario,
        threads: u32,
        warmup_s: u64,
        planned_s: u64,
    },
    /// One interval of a step (sysbench's `[ 1s ] thds: ...` line).
    Interval {
        step: usize,
        record: IntervalRecord,
    },
    StepFinished {
        step: usize,
        result: Box<StepResult>,
    },
    Cooldown {
        seconds: u64,
    },
    /// The server answers no connection of the step ([`crate::exec`]'s silence watch):
    /// said when the silence has lasted long enough to notice, when it ends, and when
    /// it reached the stall timeout.
    ServerSilent(ServerSilence),
    /// A measured step failed and the ladder goes on (`--on-step-error=continue`): it
    /// has no figures, and `error` says why (for connections that could not all open,
    /// how many did). `step` is its number, as [`EngineEvent::StepStarted`] would give it.
    StepFailed {
        step: usize,
        label: String,
        error: String,
    },
}

/// A time during a step when the server answered no connection that waited for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServerSilence {
    pub step: usize,
    /// When the silence began: the server's last answer, or the oldest wait still open
    /// when that came later (Unix ms, this machine's clock).
    pub since_unix_ms: i64,
    /// How long it has lasted (or lasted, once it ended).
    pub seconds: f64,
    /// The step's stall timeout (`--stall-timeout`), at which the step fails.
    pub stall_timeout_s: u64,
    pub state: SilenceState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SilenceState {
    /// Going on.
    Silent,
    /// Over: the server answered again, the step goes on.
    Answered,
    /// It reached the stall timeout: the step fails.
    StallTimeout,
}

impl ServerSilence {
    /// One line about it, the same in the CLI, the app's log and the history:
    /// "server silent for 4.2 s from 02:10:03.412 UTC, then it answered again".
    pub fn describe(&self) -> String {
        let since = crate::utc::clock_text(self.since_unix_ms);
        match self.state {
            SilenceState::Silent => format!(
                "server silent since {since}: no answer for {:.0} s (the step fails after {} s of silence, --stall-timeout)",
                self.seconds, self.stall_timeout_s
            ),
            SilenceState::Answered => format!(
                "server silent for {:.1} s from {since}, then it answered again",
                self.seconds
            ),
            SilenceState::StallTimeout => format!(
                "server silent for {:.0} s from {since}: the stall timeout (--stall-timeout={}) ends the step",
                self.seconds, self.stall_timeout_s
            ),
        }
    }
}

/// How far a step's connections got while they open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionsOpening {
    pub step: usize,
    pub scenario: Scenario,
    pub threads: u32,
    pub opened: u32,
    /// Attempts that failed and were tried again (server restarting, queue full).
    pub retries: u64,
    pub elapsed_s: f64,
    /// Every worker answered: connected, or failed for good.
    pub done: bool,
}

impl ConnectionsOpening {
    /// Once the opening is over, one line about it when it was slow enough (a second
    /// or more) or bumpy enough (retries) to be worth a reader's notice; the CLI and
    /// the app's log print the same words.
    pub fn notable_summary(&self) -> Option<String> {
        if !self.done || (self.elapsed_s < 1.0 && self.retries == 0) {
            return None;
        }
        let retried = if self.retries > 0 {
            format!(
                ", {} retried",
                crate::wording::count(self.retries as f64, "attempt")
            )
        } else {
            String::new()
        };
        Some(format!(
            "{} of {} connections opened in {:.1}s{retried}",
            self.opened, self.threads, self.elapsed_s
        ))
    }
}

/// The sending half given to the engine. Sending never fails the run: a consumer that
/// went away simply stops receiving.
#[derive(Debug, Clone)]
pub struct EventSink(Option<crossbeam_channel::Sender<EngineEvent>>);

impl EventSink {
    pub fn new(tx: crossbeam_channel::Sender<EngineEvent>) -> Self {
        EventSink(Some(tx))
    }

    /// A sink that drops everything (tests, one-shot library calls).
    pub fn none() -> Self {
        EventSink(None)
    }

    pub fn send(&self, e: EngineEvent) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(e);
        }
    }

    pub fn message(&self, text: impl Into<String>) {
        self.send(EngineEvent::Message { text: text.into() });
    }

    pub fn warning(&self, text: impl Into<String>) {
        self.send(EngineEvent::Warning { text: text.into() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_slow_or_retried_opening_is_summarised_once_done() {
        let o = |elapsed_s: f64, retries: u64, done: bool| ConnectionsOpening {
            step: 0,
            scenario: Scenario::OltpPointSelect,
            threads: 1024,
            opened: 1024,
            retries,
            elapsed_s,
            done,
        };
        assert_eq!(o(0.3, 0, true).notable_summary(), None);
        assert_eq!(o(2.0, 0, false).notable_summary(), None);
        assert_eq!(
            o(2.04, 0, true).notable_summary().as_deref(),
            Some("1024 of 1024 connections opened in 2.0s")
        );
        assert_eq!(
            o(0.2, 3, true).notable_summary().as_deref(),
            Some("1024 of 1024 connections opened in 0.2s, 3 attempts retried")
        );
    }
}
