//! The `monitoring` object: what the samplers recorded about the server during a run.
//! The history stores it as its run's monitoring record (without the per-second
//! samples, which go to tables of their own); `--json` carries the samples inline.

use dbdyno_checks::{EnvironmentSnapshot, Missing};
use dbdyno_monitor::timeline::SampleGap;
use dbdyno_monitor::{MysqlSample, ServerSample, StepServerFigures};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// Everything monitoring recorded about one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Monitoring {
    /// The server (and client) as found before the first step.
    pub environment: EnvironmentSnapshot,
    /// "ssh root@db1:22", "this machine (/proc)" or "none".
    pub os_access: String,
    /// The devices sampled as the data disk (empty: every active device).
    #[serde(default)]
    pub devices: Vec<String>,
    /// What the server did during each step, in step order (`step` is its index).
    #[serde(default)]
    pub steps: Vec<StepServerFigures>,
    /// Times a sampler delivered nothing, and why.
    #[serde(default)]
    pub gaps: Vec<SampleGap>,
    /// Metrics this run does not have, and why.
    #[serde(default)]
    pub missing: Vec<Missing>,
    /// How many OS samples the run took.
    #[serde(default)]
    pub os_samples: usize,
    /// Per-second OS samples of the server (in `--json`; the history keeps them in a
    /// table of its own and leaves this empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_samples: Vec<Sampled<ServerSample>>,
    /// Per-second MySQL status samples, likewise.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "samples_or_their_count"
    )]
    pub mysql_samples: Vec<Sampled<MysqlSample>>,
}

/// One per-second sample, stamped with the end of its interval on this machine's clock
/// and the step whose window holds it (none: between steps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sampled<T> {
    pub step_index: Option<u32>,
    pub unix_ms: i64,
    pub sample: T,
}

/// Monitoring records stored by earlier versions hold the number of MySQL samples under
/// `mysql_samples` (the samples themselves are in the history's table): read as none.
fn samples_or_their_count<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<Sampled<MysqlSample>>, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(_) => Ok(Vec::new()),
        samples => serde_json::from_value(samples).map_err(serde::de::Error::custom),
    }
}

impl Monitoring {
    /// The record without its per-second samples: what the history stores as the run's
    /// monitoring record (the samples go to tables of their own).
    pub fn without_samples(&self) -> Monitoring {
        Monitoring {
            server_samples: Vec::new(),
            mysql_samples: Vec::new(),
            ..self.clone()
        }
    }
}
