//! Unix milliseconds as RFC 3339 UTC text and back, without a date library: the
//! history's timestamps, the reports' dates and the mark on the tables prepare makes.
//! In the engine, the lowest crate, so that every crate above writes dates one way.
//! A leaf (it imports only `std`): the events and the step's silence watch both word a
//! time of day with [`clock_text`], and the step takes its wall clock from [`now_ms`].

use std::time::{SystemTime, UNIX_EPOCH};

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `2026-11-29T23:25:33Z` (whole seconds, UTC).
pub fn rfc3339(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// "02:10:03.412 UTC": when a silence began, to the millisecond.
pub fn clock_text(unix_ms: i64) -> String {
    let ms_of_day = unix_ms.rem_euclid(86_400_000);
    let (h, m, s, ms) = (
        ms_of_day / 3_600_000,
        ms_of_day / 60_000 % 60,
        ms_of_day / 1000 % 60,
        ms_of_day % 1000,
    );
    format!("{h:02}:{m:02}:{s:02}.{ms:03} UTC")
}

/// Days since 1970-01-01 → (year, month, day): Howard Hinnant's days-to-civil
/// algorithm (proleptic Gregorian calendar). Shared with the CLI's tsar-style clock.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// (year, month, day) → days since 1970-01-01: the inverse of [`civil_from_days`].
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Unix ms of `2026-11-29T23:25:33Z`, `2026-11-29T23:25:33.5+08:00` (RFC 3339) or
/// `2026-11-29 23:25:33` (taken as UTC, the layout of sysbench wrappers' logs).
pub fn parse_datetime(text: &str) -> Result<i64, String> {
    let bad = || {
        format!("'{text}' is not a date and time: expected RFC 3339 (2026-11-29T23:25:33Z) or 'YYYY-MM-DD HH:MM:SS' (UTC)")
    };
    let t = text.trim();
    if t.len() < 19 || !t.is_char_boundary(19) {
        return Err(bad());
    }
    let (main, rest) = t.split_at(19);
    let b = main.as_bytes();
    let sep_ok = b[4] == b'-' && b[7] == b'-' && b[13] == b':' && b[16] == b':';
    let t_ok = matches!(b[10], b'T' | b't' | b' ');
    if !sep_ok || !t_ok {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| -> Result<i64, String> {
        let s = &main[r];
        if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let days_in_month = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => return Err(bad()),
    };
    if d < 1 || d > days_in_month || h > 23 || mi > 59 || se > 60 {
        return Err(bad());
    }
    // Fraction of a second, then the zone (none: UTC).
    let (frac_ms, zone) = match rest.strip_prefix('.') {
        Some(f) => {
            let digits: String = f.chars().take_while(|c| c.is_ascii_digit()).collect();
            if digits.is_empty() {
                return Err(bad());
            }
            let ms = format!("{digits:0<3}")[..3]
                .parse::<i64>()
                .map_err(|_| bad())?;
            (ms, &f[digits.len()..])
        }
        None => (0, rest),
    };
    let offset_s = match zone {
        "" | "Z" | "z" => 0,
        // Checked byte by byte before slicing: a non-ASCII character there must be an
        // error, not a panic on a char boundary.
        z if z.len() == 6
            && matches!(z.as_bytes()[0], b'+' | b'-')
            && z.as_bytes()[3] == b':'
            && [1, 2, 4, 5]
                .iter()
                .all(|&i| z.as_bytes()[i].is_ascii_digit()) =>
        {
            let hh: i64 = z[1..3].parse().map_err(|_| bad())?;
            let mm: i64 = z[4..6].parse().map_err(|_| bad())?;
            let s = hh * 3600 + mm * 60;
            if z.starts_with('-') {
                -s
            } else {
                s
            }
        }
        _ => return Err(bad()),
    };
    let secs =
        days_from_civil(y, mo as u32, d as u32) * 86_400 + h * 3600 + mi * 60 + se - offset_s;
    Ok(secs * 1000 + frac_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_in_both_layouts() {
        assert_eq!(
            parse_datetime("2026-11-29T23:25:33Z"),
            Ok(1_795_994_733_000)
        );
        assert_eq!(parse_datetime("2026-11-29 23:25:33"), Ok(1_795_994_733_000));
        assert_eq!(
            parse_datetime("2026-11-30T07:25:33.25+08:00"),
            Ok(1_795_994_733_250)
        );
        assert_eq!(parse_datetime("2000-02-29 00:00:00"), Ok(951_782_400_000));
        for bad in [
            "2026-02-30 00:00:00",
            "2026-11-29",
            "yesterday",
            "2026-11-29T23:25:33+8",
            "2026-13-01 00:00:00",
            "2026-11-29T23:25:33+0é00",
            "2026-11-29T23:25:33+ab:cd",
            "2026-11-29T23:25:3é",
            "é026-11-29T23:25:33Z",
        ] {
            let e = parse_datetime(bad).unwrap_err();
            assert!(e.contains("RFC 3339"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_start_is_named_to_the_millisecond() {
        assert_eq!(clock_text(86_400_000 + 7_803_412), "02:10:03.412 UTC");
    }

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_994_733_999), "2026-11-29T23:25:33Z");
        assert_eq!(rfc3339(-1000), "1969-12-31T23:59:59Z");
    }
}
