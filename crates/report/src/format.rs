//! How numbers and dates are written, the same way in every format and every sentence.
//!
//! Rates keep the precision a reader can use: 76.84 TPS, 1,536.8 QPS, 321,410 QPS.
//! Latencies keep two decimals (sysbench prints two). Deltas carry their sign.
//! Dates are UTC, written without a time-zone library (civil-from-days).

/// A rate (TPS, QPS): two decimals below 100, one below 10,000, none above; thousands
/// separated by commas.
pub fn rate(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let a = v.abs();
    let decimals = if a < 100.0 {
        2
    } else if a < 10_000.0 {
        1
    } else {
        0
    };
    grouped(v, decimals)
}

/// A number with `decimals` decimals and comma thousands separators.
pub fn grouped(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let s = format!("{:.*}", decimals, v.abs());
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (s, None),
    };
    let mut out = String::with_capacity(int.len() + int.len() / 3 + 4);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(&f);
    }
    let negative = v < 0.0 && out.chars().any(|c| c.is_ascii_digit() && c != '0');
    if negative {
        format!("−{out}")
    } else {
        out
    }
}

/// Milliseconds: two decimals (three below 0.1 ms, where two would read 0.00).
pub fn ms(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    if v.abs() < 0.1 && v != 0.0 {
        format!("{v:.3}")
    } else {
        grouped(v, 2)
    }
}

/// Milliseconds that may be unknown (an imported log printed another percentile): "—".
pub fn ms_opt(v: Option<f64>) -> String {
    v.map_or_else(|| "—".into(), ms)
}

/// A utilisation in percent: "12.9%".
pub fn pct(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    format!("{v:.1}%")
}

/// A signed change in percent: "+35.2%", "−4.0%", "±0.0%".
pub fn delta_pct(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let r = (v * 10.0).round() / 10.0;
    if r == 0.0 {
        "±0.0%".into()
    } else if r > 0.0 {
        format!("+{r:.1}%")
    } else {
        format!("−{:.1}%", -r)
    }
}

/// The 95% interval of a Δ for tables, in percent without the sign: "−13.0…−10.6",
/// "−3.1…+2.4".
pub fn delta_range(lower: f64, upper: f64) -> String {
    let end = |v: f64| delta_pct(v).trim_end_matches('%').to_string();
    format!("{}…{}", end(lower), end(upper))
}

/// A Δ with its 95% interval for tables: "−11.8% (−13.0…−10.6)"; the Δ alone when there
/// is no interval.
pub fn delta_with_range(v: f64, range: Option<(f64, f64)>) -> String {
    match range {
        Some((lo, hi)) => format!("{} ({})", delta_pct(v), delta_range(lo, hi)),
        None => delta_pct(v),
    }
}

/// A whole percentage for sentences: "35%" (one decimal below 10%: "4.5%").
pub fn pct_words(v: f64) -> String {
    let a = v.abs();
    if a < 10.0 {
        format!("{a:.1}%")
    } else {
        format!("{a:.0}%")
    }
}

/// "1 thread", "8 threads".
pub fn threads(n: u32) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

/// A sentence with "1 threads" made singular ("at 1 threads" → "at 1 thread"), leaving
/// "128 threads" and "from 1 to 8 threads" alone: the model's sentences are written once
/// for any thread count and pass through here.
pub fn singular_threads(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("1 threads") {
        let before = &rest[..i];
        let standalone = !before.ends_with(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
        out.push_str(before);
        out.push_str(if standalone { "1 thread" } else { "1 threads" });
        rest = &rest[i + "1 threads".len()..];
    }
    out.push_str(rest);
    out
}

/// Bytes in a GiB. Every size in a report is binary (GiB, MiB), as the server and the
/// kernel count memory and as `innodb_buffer_pool_size` is set, so that a 256 MiB buffer
/// pool reads "256 MiB" and size ratios are not skewed by mixing 10^9 and 2^30.
pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// A size given in GiB, in binary units: "37 GiB", "1.5 GiB", "256 MiB".
pub fn gib(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    if v >= 10.0 {
        format!("{v:.0} GiB")
    } else if v >= 1.0 {
        format!("{v:.1} GiB")
    } else if v * 1024.0 >= 1.0 {
        format!("{:.0} MiB", v * 1024.0)
    } else {
        "< 1 MiB".into()
    }
}

/// A size given in bytes, in binary units ([`gib`]).
pub fn bytes(b: f64) -> String {
    gib(b / GIB)
}

/// A ratio: "18.8×".
pub fn times(v: f64) -> String {
    if v < 0.1 {
        "< 0.1×".into()
    } else if v >= 10.0 {
        format!("{v:.0}×")
    } else {
        format!("{v:.1}×")
    }
}

/// Unix milliseconds as "2026-05-01 14:00:05 UTC".
pub fn datetime(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Unix milliseconds as "2026-05-01".
pub fn date(unix_ms: i64) -> String {
    let (y, m, d) = civil_from_days(unix_ms.div_euclid(1000).div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// A duration in seconds as "1 h 02 min", "12 min 30 s" or "45 s".
pub fn duration_s(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// Howard Hinnant's days-to-civil: days since 1970-01-01 to (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thread_is_singular() {
        assert_eq!(threads(1), "1 thread");
        assert_eq!(threads(16), "16 threads");
        assert_eq!(
            singular_threads("at 1 threads; 1 threads is the knee; 11 threads, 128 threads, 2,001 threads, from 1 to 8 threads"),
            "at 1 thread; 1 thread is the knee; 11 threads, 128 threads, 2,001 threads, from 1 to 8 threads"
        );
    }

    #[test]
    fn sizes_are_binary_throughout() {
        assert_eq!(bytes(268_435_456.0), "256 MiB");
        assert_eq!(gib(0.25), "256 MiB");
        assert_eq!(gib(1.5), "1.5 GiB");
        assert_eq!(bytes(4e10), "37 GiB");
        assert_eq!(bytes(50_331_648.0), "48 MiB");
        assert_eq!(gib(1e-6), "< 1 MiB");
    }

    #[test]
    fn rates_follow_their_size() {
        assert_eq!(rate(76.844), "76.84");
        assert_eq!(rate(1536.81), "1,536.8");
        assert_eq!(rate(321_410.4), "321,410");
        assert_eq!(rate(-12_345.0), "−12,345");
        assert_eq!(rate(0.0), "0.00");
    }

    #[test]
    fn deltas_are_signed() {
        assert_eq!(delta_pct(35.04), "+35.0%");
        assert_eq!(delta_pct(-4.0), "−4.0%");
        assert_eq!(delta_pct(0.01), "±0.0%");
        assert_eq!(delta_pct(f64::NAN), "—");
    }

    #[test]
    fn latencies_keep_small_values_readable() {
        assert_eq!(ms(0.06), "0.060");
        assert_eq!(ms(1.834), "1.83");
        assert_eq!(ms(1234.5), "1,234.50");
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(datetime(0), "1970-01-01 00:00:00 UTC");
        // 2024-02-29 12:34:56 UTC (a leap day)
        assert_eq!(datetime(1_709_210_096_000), "2024-02-29 12:34:56 UTC");
        assert_eq!(date(1_709_210_096_000), "2024-02-29");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration_s(45.2), "45 s");
        assert_eq!(duration_s(750.0), "12 min 30 s");
        assert_eq!(duration_s(3720.0), "1 h 02 min");
    }
}
