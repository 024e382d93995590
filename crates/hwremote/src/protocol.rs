//! The line channel between this machine and the agent on the host: one JSON [`Job`]
//! line down, JSON [`Event`] lines up.

use dbdyno_hwtest::{HwTestResult, IntervalFigures, TestKind};
use serde::{Deserialize, Serialize};

/// What the agent is asked to do: create `work_dir`, run the tests in order there, and
/// remove it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// An absolute path that must not exist yet: the agent creates it, so it only ever
    /// removes a directory of its own making.
    pub work_dir: String,
    pub tests: Vec<TestJob>,
}

/// One test with its sysbench options, `(name, value)` without dashes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestJob {
    pub test: String,
    pub options: Vec<(String, String)>,
}

impl TestJob {
    pub fn kind(&self) -> Option<TestKind> {
        TestKind::from_name(&self.test)
    }
}

/// A step of a test, for progress lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Prepare,
    Run,
    Cleanup,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Prepare => "prepare",
            Stage::Run => "run",
            Stage::Cleanup => "cleanup",
        }
    }
}

/// What the agent says, one JSON object a line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The work directory exists; every file from now on is inside it.
    Started {
        work_dir: String,
    },
    Stage {
        test: String,
        stage: Stage,
    },
    Interval {
        test: String,
        figures: IntervalFigures,
    },
    Result {
        result: Box<HwTestResult>,
    },
    /// Every test ran and the work directory is gone.
    Done,
    /// A test failed; the work directory is gone.
    Failed {
        message: String,
    },
    /// Stopped (cancel, end of input, a signal); the work directory is gone.
    Cancelled {
        why: String,
    },
}

/// The line the agent reads as "stop now".
pub const CANCEL_LINE: &str = "cancel";

/// The hidden command that runs the agent (`dbdyno hwtest-agent`).
pub const AGENT_COMMAND: &str = "hwtest-agent";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_tagged_one_line_objects() {
        let line = serde_json::to_string(&Event::Stage {
            test: "fileio".into(),
            stage: Stage::Prepare,
        })
        .unwrap();
        assert_eq!(
            line,
            r#"{"event":"stage","test":"fileio","stage":"prepare"}"#
        );
        let back: Event = serde_json::from_str(r#"{"event":"done"}"#).unwrap();
        assert_eq!(back, Event::Done);
    }
}
