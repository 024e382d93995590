//! Small number formatting and parsing helpers shared by the writer and the reader.

/// A percentile or rate as sysbench prints it: an integer when whole ("95"), otherwise
/// the shortest decimal that reads back to the same value ("99.9"). sysbench itself
/// only knows whole percentiles; ours may be fractional.
pub(crate) fn whole_or_decimal(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Parses a printed figure, ignoring a unit suffix ("57.87ms", "60.0580s") and a
/// trailing comma (sysbench 0.5 separated its interval fields with ", ").
pub(crate) fn parse_f64(s: &str) -> Option<f64> {
    let s = s.trim().trim_end_matches(',');
    let s = s
        .strip_suffix("ms")
        .or_else(|| s.strip_suffix('s'))
        .unwrap_or(s);
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    s.trim().trim_end_matches(',').parse::<u64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_percentiles_print_as_integers() {
        assert_eq!(whole_or_decimal(95.0), "95");
        assert_eq!(whole_or_decimal(99.9), "99.9");
        assert_eq!(whole_or_decimal(0.0), "0");
    }

    #[test]
    fn figures_parse_with_units() {
        assert_eq!(parse_f64("57.87ms"), Some(57.87));
        assert_eq!(parse_f64("60.0580s"), Some(60.058));
        assert_eq!(parse_f64("7645.01,"), Some(7645.01));
        assert_eq!(parse_f64("abc"), None);
        assert_eq!(parse_u64("4615"), Some(4615));
        assert_eq!(parse_u64("-1"), None);
    }
}
