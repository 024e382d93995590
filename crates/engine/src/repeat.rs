//! Which repeat of its step a measured step is, when a ladder runs every step several
//! times (`--repeat`): the spread between repeats is the interval that holds run-to-run
//! variation (see `dbdyno_stats::repeats_interval`).
//!
//! A plan or a result written before repeats existed has no such fields and reads as
//! repeat 1 of 1; a step that is not repeated writes none, so its JSON is unchanged.

use serde::{Deserialize, Serialize};

/// Most repeats a ladder may ask for: 20 rounds of a ladder is already a day's run, and
/// the interval hardly narrows beyond that (t(19) = 2.09 against t(∞) = 1.96).
pub const MAX_REPEATS: u32 = 20;

/// Repeat `number` of `of`, both from 1. Serialized flat beside the step's other fields
/// as `"repeat": 2, "of": 3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Repeat {
    #[serde(rename = "repeat")]
    pub number: u32,
    pub of: u32,
}

impl Default for Repeat {
    fn default() -> Self {
        Repeat::SINGLE
    }
}

impl Repeat {
    /// The only run of a step that is not repeated.
    pub const SINGLE: Repeat = Repeat { number: 1, of: 1 };

    /// True for a step that is not repeated (nothing to say about it).
    pub fn is_single(&self) -> bool {
        self.of <= 1
    }

    /// "repeat 2/3", or `None` for a step that is not repeated.
    pub fn label(&self) -> Option<String> {
        (!self.is_single()).then(|| format!("repeat {}/{}", self.number, self.of))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    struct Step {
        threads: u32,
        #[serde(flatten, skip_serializing_if = "Repeat::is_single")]
        repeat: Repeat,
    }

    #[test]
    fn flat_in_json_and_absent_means_one_of_one() {
        let s = Step {
            threads: 8,
            repeat: Repeat { number: 2, of: 3 },
        };
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"threads":8,"repeat":2,"of":3}"#);
        assert_eq!(serde_json::from_str::<Step>(&json).unwrap(), s);
        let old: Step = serde_json::from_str(r#"{"threads":8}"#).unwrap();
        assert_eq!(old.repeat, Repeat::SINGLE);
        let single = Step {
            threads: 8,
            repeat: Repeat::SINGLE,
        };
        assert_eq!(serde_json::to_string(&single).unwrap(), r#"{"threads":8}"#);
    }

    #[test]
    fn only_a_repeated_step_has_a_label() {
        assert_eq!(Repeat::SINGLE.label(), None);
        assert_eq!(
            Repeat { number: 2, of: 3 }.label().as_deref(),
            Some("repeat 2/3")
        );
    }
}
