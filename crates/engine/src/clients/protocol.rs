//! The agent protocol: one JSON object per line, [`Order`]s from the coordinator on the
//! agent's stdin, [`Report`]s back on its stdout.
//!
//! The conversation: `hello` (the agent answers with its version and machine; a
//! mismatch is refused, because a share measured by another engine would not merge
//! exactly), `clock` as often as the coordinator likes (NTP-style offset and round
//! trip), `ping` (a `SELECT 1` from that machine), then per step: `step` → `ready` →
//! `start` (or `abort`) → `interval`… → `finished`. `cancel` or the end of stdin stops
//! everything: that is how no agent outlives a lost SSH connection.
//!
//! Secrets: the password travels in the order (on the SSH channel), never on a command
//! line where `ps` would show it.

use serde::{Deserialize, Serialize};

use crate::exec::{ShareHistograms, WorkerSlice};
use crate::phases::PrewarmReport;
use crate::plan::{ConnectOptions, PrewarmOptions, StepPlan};
use crate::results::{IntervalRecord, StepResult};
use crate::workload::WorkloadOptions;

/// The agent protocol's version: DB Dyno's own. Every crate of the workspace shares it.
pub const PROTOCOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// How to reach the database from the agent, password included (ConnectOptions never
/// serialises its password), and the files the options name by their content: an agent
/// on another machine has none of the coordinator's paths.
#[derive(Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentConnect {
    #[serde(flatten)]
    pub options: ConnectOptions,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// The CA certificate of `tls_ca` (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ca_pem: Option<String>,
    /// The server's RSA public key of `server_public_key_path` (PEM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_public_key_pem: Option<String>,
}

impl AgentConnect {
    /// The options and the files they name, read here. A file that cannot be read
    /// travels as its path, and the agent's connection then names it.
    pub fn new(options: &ConnectOptions) -> AgentConnect {
        let read =
            |path: &Option<String>| path.as_ref().and_then(|p| std::fs::read_to_string(p).ok());
        AgentConnect {
            password: options.password.clone(),
            tls_ca_pem: read(&options.tls_ca),
            server_public_key_pem: read(&options.server_public_key_path),
            options: options.clone(),
        }
    }

    /// The options with the password back in place and the files written on this
    /// machine ([`agent_files_dir`]), their paths in place of the coordinator's.
    pub fn to_options(&self) -> ConnectOptions {
        let mut o = self.options.clone();
        o.password = self.password.clone();
        if let Some(path) = self
            .tls_ca_pem
            .as_deref()
            .and_then(|pem| agent_file("ca.pem", pem))
        {
            o.tls_ca = Some(path);
        }
        if let Some(path) = self
            .server_public_key_pem
            .as_deref()
            .and_then(|pem| agent_file("server_public_key.pem", pem))
        {
            o.server_public_key_path = Some(path);
        }
        o
    }
}

/// Where an agent writes the files its orders carry: a directory of this process's own
/// under the temporary directory, removed by the agent when it ends.
pub fn agent_files_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("dbdyno-agent-{}", std::process::id()))
}

/// Writes `pem` as `name` in [`agent_files_dir`] (public data: a CA certificate, a
/// public key), or None when it cannot.
fn agent_file(name: &str, pem: &str) -> Option<String> {
    let dir = agent_files_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(name);
    std::fs::write(&path, pem).ok()?;
    Some(path.display().to_string())
}

impl std::fmt::Debug for AgentConnect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // ConnectOptions' own Debug hides the password; so does this one.
        f.debug_struct("AgentConnect")
            .field("options", &self.options)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// One share of a measured step, for one agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepOrder {
    pub connect: AgentConnect,
    pub workload: WorkloadOptions,
    /// The step with this client's share of threads (and of `--events`, `--rate`).
    pub step: StepPlan,
    /// Where the share's workers sit among the step's (their seeds, id slices and
    /// tables are the ones the one-machine step gives them).
    pub workers: WorkerSlice,
    pub step_index: usize,
    pub server_seen: bool,
}

/// One client's share of the prewarm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrewarmOrder {
    pub connect: AgentConnect,
    pub workload: WorkloadOptions,
    pub options: PrewarmOptions,
}

/// What the coordinator tells an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "order", rename_all = "snake_case")]
pub enum Order {
    /// The first line: the coordinator's version.
    Hello { version: String },
    /// Answer with the agent's wall clock now.
    Clock,
    /// Time a `SELECT 1` from the agent's machine.
    /// (Boxed: the connect and the files it carries are the largest order but a step's.)
    Ping { connect: Box<AgentConnect> },
    /// Open this share's connections, then say `ready`.
    Step(Box<StepOrder>),
    /// Start measuring at this instant of the agent's own clock (µs since the Unix epoch).
    Start { at_unix_us: i64 },
    /// The step is called off before it started (another client failed).
    Abort,
    /// Warm the caches with this client's share of the prewarm threads.
    Prewarm(Box<PrewarmOrder>),
    /// Stop what runs (keeping what was measured) and exit.
    Cancel,
}

/// What an agent tells the coordinator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "report", rename_all = "snake_case")]
pub enum Report {
    /// The answer to `hello`: the agent's version and machine.
    Hello {
        version: String,
        cores: u32,
        os: String,
        arch: String,
    },
    /// The coordinator's version differs from this agent's: nothing will run.
    Refused {
        reason: String,
    },
    /// The agent's wall clock, µs since the Unix epoch.
    Clock {
        unix_us: i64,
    },
    /// `SELECT 1` took this long (connect excluded), in ms.
    Pinged {
        rtt_ms: f64,
    },
    /// Every connection of the share is open: waiting for `start`.
    Ready,
    /// One interval as it was recorded, with its latency histogram (HdrHistogram V2 +
    /// DEFLATE, base64) so that per-second percentiles merge exactly.
    Interval {
        record: IntervalRecord,
        histogram: String,
    },
    /// The share's figures at the end of the step, with the histograms per statement
    /// class and TPC-C type they summarise (merged exactly by the coordinator).
    Finished {
        result: Box<StepResult>,
        #[serde(default)]
        histograms: ShareHistograms,
    },
    Prewarmed {
        prewarm: PrewarmReport,
    },
    /// The order failed (connections that would not open, a server error).
    Failed {
        error: String,
    },
    /// A non-fatal problem the engine reported on that machine.
    Warning {
        text: String,
    },
}

impl Order {
    pub fn to_line(&self) -> String {
        // Orders hold only strings, numbers and plain enums: serialising cannot fail.
        serde_json::to_string(self).expect("an order serialises")
    }
}

impl Report {
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a report serialises")
    }
}

/// An agent of another DB Dyno version.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the agent is DB Dyno {theirs} but this is {ours}: both ends must run the same version (the binary is copied again when its checksum differs)")]
pub struct VersionMismatch {
    pub ours: String,
    pub theirs: String,
}

/// Refuses an agent (or a coordinator) of another version.
pub fn check_version(theirs: &str) -> Result<(), VersionMismatch> {
    if theirs == PROTOCOL_VERSION {
        Ok(())
    } else {
        Err(VersionMismatch {
            ours: PROTOCOL_VERSION.to_string(),
            theirs: theirs.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_travels_in_the_order_and_is_never_printed() {
        let options = ConnectOptions {
            password: Some("s3cret".into()),
            ..ConnectOptions::default()
        };
        let order = Order::Ping {
            connect: Box::new(AgentConnect::new(&options)),
        };
        let line = order.to_line();
        assert!(line.contains("\"password\":\"s3cret\""), "{line}");
        assert!(!format!("{order:?}").contains("s3cret"));
        let back: Order = serde_json::from_str(&line).unwrap();
        let Order::Ping { connect } = back else {
            panic!("{back:?}")
        };
        assert_eq!(connect.to_options().password.as_deref(), Some("s3cret"));
    }

    #[test]
    fn the_files_the_options_name_travel_by_content_and_land_in_the_agents_own() {
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "-----BEGIN CERTIFICATE-----\nca\n").unwrap();
        let options = ConnectOptions {
            tls_ca: Some(ca.display().to_string()),
            server_public_key_path: Some("/nonexistent/key.pem".into()),
            ..ConnectOptions::default()
        };
        let line = Order::Ping {
            connect: Box::new(AgentConnect::new(&options)),
        }
        .to_line();
        assert!(line.contains("BEGIN CERTIFICATE"), "{line}");
        std::fs::remove_file(&ca).unwrap();
        let Order::Ping { connect } = serde_json::from_str(&line).unwrap() else {
            panic!("{line}")
        };
        let o = connect.to_options();
        let landed = o.tls_ca.unwrap();
        assert!(landed.starts_with(&agent_files_dir().display().to_string()));
        assert_eq!(
            std::fs::read_to_string(&landed).unwrap(),
            "-----BEGIN CERTIFICATE-----\nca\n"
        );
        assert_eq!(
            o.server_public_key_path.as_deref(),
            Some("/nonexistent/key.pem"),
            "an unreadable file travels as its path"
        );
        let _ = std::fs::remove_dir_all(agent_files_dir());
    }

    #[test]
    fn orders_and_reports_are_one_line_each_and_tagged() {
        let line = Order::Start { at_unix_us: 42 }.to_line();
        assert_eq!(line, r#"{"order":"start","at_unix_us":42}"#);
        let line = Report::Clock { unix_us: 7 }.to_line();
        assert_eq!(line, r#"{"report":"clock","unix_us":7}"#);
        assert!(!Report::Ready.to_line().contains('\n'));
    }

    #[test]
    fn another_version_is_refused() {
        assert!(check_version(PROTOCOL_VERSION).is_ok());
        let e = check_version("0.0.0-other").unwrap_err();
        assert!(e.to_string().contains("0.0.0-other"), "{e}");
    }
}
