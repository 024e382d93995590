//! `/proc/uptime` and the CPU-time fields of `/proc/<pid>/stat`, used to time samples
//! on the server's clock and to measure what the sampler itself costs.

use super::ParseError;

/// Seconds since boot, from "12345.67 23456.78".
pub fn parse_uptime(text: &str) -> Result<f64, ParseError> {
    text.split_whitespace()
        .next()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| {
            ParseError::new(
                "/proc/uptime",
                format!("unexpected text: {:.40}", text.trim()),
            )
        })
}

/// utime+stime (and cutime+cstime when `with_children`) in clock ticks.
///
/// The command name in field 2 may contain spaces and parentheses, so fields are
/// counted from the last ')'. Children's time matters for the shell loop because its
/// `head` and `sleep` run as children and are only counted once reaped.
pub fn parse_pid_stat_ticks(text: &str, with_children: bool) -> Result<u64, ParseError> {
    let err =
        |why: &str| ParseError::new("/proc/<pid>/stat", format!("{why}: {:.60}", text.trim()));
    let after = text
        .rfind(')')
        .map(|i| &text[i + 1..])
        .ok_or_else(|| err("no command name"))?;
    // After ")" come field 3 (state) onwards; utime is field 14 → index 11 here.
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| -> Result<u64, ParseError> {
        f.get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| err("missing cpu time field"))
    };
    let own = tick(11)? + tick(12)?;
    if with_children {
        // cutime/cstime are signed in the kernel ABI; negative never happens in practice.
        Ok(own + tick(13)? + tick(14)?)
    } else {
        Ok(own)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptime() {
        assert_eq!(
            parse_uptime(include_str!("../../testdata/proc/a/uptime")).ok(),
            Some(530.43)
        );
        assert!(parse_uptime("").is_err());
    }

    #[test]
    fn pid_stat_with_odd_name() {
        // Real layout from a shell whose comm contains ") (" to defeat naive splitting.
        let line = "4242 (we ) ird) S 4200 4242 4200 0 -1 4194304 250 1200 0 0 7 3 11 5 20 0 1 0 53070 2654208 214 18446744073709551615 1 1 0 0 0 0 0 0 65538 0 0 0 17 1 0 0 0 0 0";
        assert_eq!(parse_pid_stat_ticks(line, false).ok(), Some(10));
        assert_eq!(parse_pid_stat_ticks(line, true).ok(), Some(26));
        assert!(parse_pid_stat_ticks("4242 (sh) S 1 2", true).is_err());
    }
}
