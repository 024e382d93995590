//! `/proc/loadavg`: "0.10 0.20 0.30 2/345 6789".

use super::ParseError;
use serde::{Deserialize, Serialize};

/// Load averages and the running/total scheduling entities.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoadAvg {
    pub one: f64,
    pub five: f64,
    pub fifteen: f64,
    pub running: u32,
    pub total: u32,
}

pub fn parse_loadavg(text: &str) -> Result<LoadAvg, ParseError> {
    let err = || {
        ParseError::new(
            "/proc/loadavg",
            format!("unexpected text: {:.80}", text.trim()),
        )
    };
    let f: Vec<&str> = text.split_whitespace().collect();
    if f.len() < 4 {
        return Err(err());
    }
    let (running, total) = f[3].split_once('/').ok_or_else(err)?;
    Ok(LoadAvg {
        one: f[0].parse().map_err(|_| err())?,
        five: f[1].parse().map_err(|_| err())?,
        fifteen: f[2].parse().map_err(|_| err())?,
        running: running.parse().map_err(|_| err())?,
        total: total.parse().map_err(|_| err())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_captured_loadavg() {
        let l = parse_loadavg(include_str!("../../testdata/proc/a/loadavg")).expect("parses");
        assert!(l.total > 0 && l.one >= 0.0);
    }

    #[test]
    fn parses_and_rejects() {
        let l = parse_loadavg("1.50 0.61 0.24 8/117 6436\n").expect("parses");
        assert_eq!((l.one, l.running, l.total), (1.5, 8, 117));
        assert!(parse_loadavg("1.50 0.61").is_err());
        assert!(parse_loadavg("a b c 1/2 3").is_err());
    }
}
