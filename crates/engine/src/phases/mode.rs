//! What a plan asks of prepare: load the tables always, only when they are missing, or
//! never.
//!
//! Profiles written before the modes said `prepare = true` / `false`; both spellings are
//! read, and the modes are what is written back.

use serde::{Deserialize, Deserializer, Serialize};

/// What prepare does with the benchmark tables it finds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PrepareMode {
    /// Drop DB Dyno's own tables (never anyone else's) and load them again.
    Always,
    /// Reuse the tables when DB Dyno made them in the plan's shape; load them when none
    /// is there. `prepare = true` and `--prepare` mean this.
    #[default]
    IfMissing,
    /// No prepare: the run reads the tables as they are. `prepare = false` means this.
    Never,
    /// Continue a prepare that was cut short: keep the tables that are complete and
    /// verified, build an index that is missing, drop and load again the ones DB Dyno
    /// left incomplete, load the missing ones. `--resume` means this.
    Resume,
}

impl PrepareMode {
    pub const ALL: [PrepareMode; 4] = [
        PrepareMode::IfMissing,
        PrepareMode::Always,
        PrepareMode::Never,
        PrepareMode::Resume,
    ];

    /// Whether the plan has a prepare phase.
    pub fn prepares(self) -> bool {
        self != PrepareMode::Never
    }

    pub fn name(self) -> &'static str {
        match self {
            PrepareMode::Always => "always",
            PrepareMode::IfMissing => "if-missing",
            PrepareMode::Never => "never",
            PrepareMode::Resume => "resume",
        }
    }
}

impl std::fmt::Display for PrepareMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PrepareMode {
    type Err = String;

    /// The modes, and the switch's older on/off spellings (`--prepare=on`).
    fn from_str(s: &str) -> Result<PrepareMode, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "always" => Ok(PrepareMode::Always),
            "if-missing" | "if_missing" | "on" | "true" | "yes" | "1" | "" => {
                Ok(PrepareMode::IfMissing)
            }
            "never" | "off" | "false" | "no" | "0" => Ok(PrepareMode::Never),
            "resume" => Ok(PrepareMode::Resume),
            other => Err(format!(
                "'{other}' is not a prepare mode (expected always, if-missing, never or resume; true means if-missing, false never)"
            )),
        }
    }
}

impl From<bool> for PrepareMode {
    fn from(prepare: bool) -> PrepareMode {
        if prepare {
            PrepareMode::IfMissing
        } else {
            PrepareMode::Never
        }
    }
}

impl<'de> Deserialize<'de> for PrepareMode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PrepareMode, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Switch(bool),
            Mode(String),
        }
        match Written::deserialize(d)? {
            Written::Switch(b) => Ok(b.into()),
            Written::Mode(s) => match s.as_str() {
                "always" | "if-missing" | "never" | "resume" => {
                    s.parse().map_err(serde::de::Error::custom)
                }
                other => Err(serde::de::Error::custom(format!(
                    "unknown value `{other}` (expected one of `always`, `if-missing`, `never`, `resume`, or true / false)"
                ))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_switch_and_the_modes_read_alike() {
        let read = |json: &str| serde_json::from_str::<PrepareMode>(json);
        assert_eq!(read("true").unwrap(), PrepareMode::IfMissing);
        assert_eq!(read("false").unwrap(), PrepareMode::Never);
        assert_eq!(read("\"always\"").unwrap(), PrepareMode::Always);
        assert_eq!(read("\"if-missing\"").unwrap(), PrepareMode::IfMissing);
        assert_eq!(read("\"never\"").unwrap(), PrepareMode::Never);
        assert_eq!(read("\"resume\"").unwrap(), PrepareMode::Resume);
        let e = read("\"sometimes\"").unwrap_err().to_string();
        assert!(e.contains("unknown value `sometimes`"), "{e}");
        for m in PrepareMode::ALL {
            let text = serde_json::to_string(&m).unwrap();
            assert_eq!(text, format!("\"{m}\""));
            assert_eq!(read(&text).unwrap(), m);
            assert_eq!(m.name().parse::<PrepareMode>().unwrap(), m);
        }
        assert_eq!("on".parse::<PrepareMode>().unwrap(), PrepareMode::IfMissing);
        assert_eq!("off".parse::<PrepareMode>().unwrap(), PrepareMode::Never);
        assert!("maybe".parse::<PrepareMode>().is_err());
    }
}
