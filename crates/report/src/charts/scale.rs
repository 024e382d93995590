//! Axis ranges and ticks: "nice" steps (1, 2, 2.5, 5 × 10ⁿ) and short tick labels.

/// Ticks from 0 (or `min`) to a nice maximum at or above `max`, about `target` of them.
pub fn nice_ticks(min: f64, max: f64, target: usize) -> Vec<f64> {
    let (min, max) = if max > min {
        (min, max)
    } else {
        (min, min + 1.0)
    };
    let raw = (max - min) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let start = (min / step).floor() * step;
    let mut ticks = Vec::new();
    let mut v = start;
    while v < max + step * 0.999 {
        ticks.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
        v += step;
        if ticks.len() > 50 {
            break;
        }
    }
    ticks
}

/// Tick labels: "0", "2.5", "150", "12k", "1.5M".
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    // Three decimals at most, trailing zeros dropped: 0.6 stays "0.6", not "0.60".
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    let s = if s == "-0" { "0" } else { s };
    format!("{s}{suffix}")
}

/// Decade ticks for a log axis between `min` and `max` (both > 0): 0.01, 0.1, 1, 10, ...
pub fn log_ticks(min: f64, max: f64) -> Vec<f64> {
    let lo = min.max(1e-6).log10().floor() as i32;
    let hi = max.max(min * 10.0).log10().ceil() as i32;
    (lo..=hi).map(|k| 10f64.powi(k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_cover_the_range_with_nice_steps() {
        assert_eq!(
            nice_ticks(0.0, 321_410.0, 5),
            vec![0.0, 100_000.0, 200_000.0, 300_000.0, 400_000.0]
        );
        assert_eq!(nice_ticks(0.0, 1.83, 4), vec![0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(nice_ticks(0.0, 0.0, 4), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(tick_label(100_000.0), "100k");
        assert_eq!(tick_label(1_500_000.0), "1.5M");
        assert_eq!(tick_label(2.5), "2.5");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(150.0), "150");
    }

    #[test]
    fn log_ticks_are_decades() {
        assert_eq!(log_ticks(0.06, 45.0), vec![0.01, 0.1, 1.0, 10.0, 100.0]);
    }
}
