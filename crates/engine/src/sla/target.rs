//! A latency target: "the p95 of a step must stay at or under 20 ms" (`p95<=20ms`).
//!
//! Written the way people say it on a command line or in a profile: `p95<=20ms`,
//! `p99<=5ms`, `p99.9<=100ms`, `p95<=1.5s`, `p99<=800us` (`≤` is read as `<=`, spaces
//! are ignored). Stored as that text (profiles, plans in the history, reports' JSON), so
//! a target reads the same wherever it is found.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A percentile that must stay at or under a latency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "String", into = "String")]
pub struct SlaTarget {
    /// The percentile, above 0 and at most 100 (95, 99, 99.9).
    pub percentile: f64,
    /// The most the percentile may be, in milliseconds (above 0).
    pub limit_ms: f64,
}

/// Why a text is not a latency target, in words that show the expected form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlaParseError {
    #[error("give a latency target such as p95<=20ms")]
    Empty,
    #[error("'{0}' is not a latency target: write a percentile, <= and a time, such as p95<=20ms, p99.9<=100ms or p95<=1.5s")]
    Shape(String),
    #[error("the percentile '{0}' must be a number above 0 and at most 100 (p95, p99, p99.9)")]
    Percentile(String),
    #[error("the latency '{0}' must be a number above 0 followed by ms, s or us (20ms, 1.5s)")]
    Limit(String),
    #[error("the latency '{0}' needs a unit: ms, s or us (p95<=20ms)")]
    NoUnit(String),
    #[error("unknown time unit '{0}' (ms, s or us)")]
    Unit(String),
}

impl SlaTarget {
    /// For reports and sentences: "p95 ≤ 20 ms".
    pub fn describe(&self) -> String {
        let (value, unit) = self.limit_in_unit();
        format!(
            "p{} ≤ {} {unit}",
            trim_number(self.percentile),
            trim_number(value)
        )
    }

    /// For one-line step results: "p95≤20ms".
    pub fn compact(&self) -> String {
        let (value, unit) = self.limit_in_unit();
        format!(
            "p{}≤{}{unit}",
            trim_number(self.percentile),
            trim_number(value)
        )
    }

    /// "p95": the percentile's short name.
    pub fn percentile_name(&self) -> String {
        format!("p{}", trim_number(self.percentile))
    }

    /// The limit in the unit that reads best: seconds from 1 s, microseconds under 1 ms.
    fn limit_in_unit(&self) -> (f64, &'static str) {
        if self.limit_ms >= 1000.0 {
            (self.limit_ms / 1000.0, "s")
        } else if self.limit_ms < 1.0 {
            (self.limit_ms * 1000.0, "us")
        } else {
            (self.limit_ms, "ms")
        }
    }
}

/// 95 rather than 95.0, 99.9 as it is, and no float dust (1.5000000000000002).
pub(crate) fn trim_number(v: f64) -> String {
    let rounded = (v * 1e6).round() / 1e6;
    if rounded.fract() == 0.0 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded}")
    }
}

impl fmt::Display for SlaTarget {
    /// The text form it is parsed from: `p95<=20ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (value, unit) = self.limit_in_unit();
        write!(
            f,
            "p{}<={}{unit}",
            trim_number(self.percentile),
            trim_number(value)
        )
    }
}

impl FromStr for SlaTarget {
    type Err = SlaParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        if text.is_empty() {
            return Err(SlaParseError::Empty);
        }
        let text = text.replace('≤', "<=");
        let shape = || SlaParseError::Shape(s.trim().to_string());
        let (left, right) = text.split_once("<=").ok_or_else(shape)?;
        let percentile_text = left
            .strip_prefix('p')
            .or_else(|| left.strip_prefix('P'))
            .ok_or_else(shape)?;
        let percentile = percentile_text
            .parse::<f64>()
            .ok()
            .filter(|p| p.is_finite() && *p > 0.0 && *p <= 100.0)
            .ok_or_else(|| SlaParseError::Percentile(percentile_text.to_string()))?;
        Ok(SlaTarget {
            percentile,
            limit_ms: parse_limit_ms(right)?,
        })
    }
}

/// "20ms", "1.5s", "800us" in milliseconds.
fn parse_limit_ms(text: &str) -> Result<f64, SlaParseError> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value = number
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| SlaParseError::Limit(text.to_string()))?;
    let factor = match unit.to_ascii_lowercase().as_str() {
        "" => return Err(SlaParseError::NoUnit(text.to_string())),
        "ms" => 1.0,
        "s" => 1000.0,
        "us" | "µs" | "μs" => 0.001,
        other => return Err(SlaParseError::Unit(other.to_string())),
    };
    Ok(value * factor)
}

impl TryFrom<String> for SlaTarget {
    type Error = SlaParseError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<SlaTarget> for String {
    fn from(t: SlaTarget) -> String {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> SlaTarget {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn the_documented_forms_parse() {
        assert_eq!(
            parse("p95<=20ms"),
            SlaTarget {
                percentile: 95.0,
                limit_ms: 20.0
            }
        );
        assert_eq!(parse("p99<=5ms").percentile, 99.0);
        let t = parse("p99.9<=100ms");
        assert_eq!((t.percentile, t.limit_ms), (99.9, 100.0));
        assert_eq!(parse("p95<=1.5s").limit_ms, 1500.0);
        assert!((parse("P99 ≤ 800 us").limit_ms - 0.8).abs() < 1e-12);
    }

    #[test]
    fn text_round_trips_and_reads_well() {
        for s in ["p95<=20ms", "p99.9<=100ms", "p95<=1.5s", "p99<=800us"] {
            assert_eq!(parse(s).to_string(), s);
            assert_eq!(parse(&parse(s).to_string()), parse(s));
        }
        assert_eq!(parse("p95<=20ms").describe(), "p95 ≤ 20 ms");
        assert_eq!(parse("p99.9<=1.5s").compact(), "p99.9≤1.5s");
        let json = serde_json::to_string(&parse("p95<=20ms")).unwrap();
        assert_eq!(json, "\"p95<=20ms\"");
        assert!(serde_json::from_str::<SlaTarget>("\"p95<20ms\"").is_err());
    }

    #[test]
    fn anything_else_is_refused_with_the_reason() {
        let err = |s: &str| s.parse::<SlaTarget>().unwrap_err();
        assert_eq!(err(""), SlaParseError::Empty);
        assert!(matches!(err("p95<20ms"), SlaParseError::Shape(_)));
        assert!(matches!(err("95<=20ms"), SlaParseError::Shape(_)));
        assert!(matches!(err("p0<=20ms"), SlaParseError::Percentile(_)));
        assert!(matches!(err("p101<=20ms"), SlaParseError::Percentile(_)));
        assert!(matches!(err("pxx<=20ms"), SlaParseError::Percentile(_)));
        assert!(matches!(err("p95<=0ms"), SlaParseError::Limit(_)));
        assert!(matches!(err("p95<=fast"), SlaParseError::Limit(_)));
        assert!(matches!(err("p95<=20"), SlaParseError::NoUnit(_)));
        assert!(matches!(err("p95<=20min"), SlaParseError::Unit(_)));
        assert!(err("p95<20ms").to_string().contains("such as p95<=20ms"));
    }
}
