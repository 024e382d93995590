//! sysbench's SIZE values: `2G` in (`sb_opt_to_size`), `2GiB` out (`sb_print_value_size`).

/// sysbench's size suffixes, each 1024 times the one before.
const SUFFIXES: [char; 4] = ['K', 'M', 'G', 'T'];

/// Parses a SIZE as sysbench does: digits, then an optional K, M, G or T (any case),
/// each a power of 1024. `None` for anything else (sysbench silently reads those as 0).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let number: u64 = text[..digits_end].parse().ok()?;
    let suffix = &text[digits_end..];
    let mut chars = suffix.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Some(number),
        (Some(c), None) => {
            let power = SUFFIXES.iter().position(|s| *s == c.to_ascii_uppercase())?;
            number.checked_mul(1024u64.checked_pow(power as u32 + 1)?)
        }
        _ => None,
    }
}

/// A size the way sysbench prints it: `%.5g` of the value in the largest unit it
/// reaches, then `Ki`, `Mi`, `Gi` or `Ti` (`16MiB` once the caller adds the `B`).
pub fn format_size(bytes: u64) -> String {
    let mut value = bytes as f64;
    let mut unit = 0;
    while unit < SUFFIXES.len() && value >= 1024.0 {
        value /= 1024.0;
        unit += 1;
    }
    let number = format_g5(value);
    if unit == 0 {
        number
    } else {
        format!("{number}{}i", SUFFIXES[unit - 1])
    }
}

/// C's `%.5g` for values in [0, 1024): five significant digits, trailing zeros gone.
fn format_g5(value: f64) -> String {
    let int_digits = if value < 1.0 {
        1
    } else {
        value.log10().floor() as usize + 1
    };
    let decimals = 5usize.saturating_sub(int_digits);
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// The inverse of [`format_size`] with a trailing `B` (`16MiB`, `1.5GiB`, `512B`), for
/// reading sysbench's headers back. Exact when sysbench printed the size exactly.
pub fn parse_printed_size(text: &str) -> Option<u64> {
    let text = text.trim().strip_suffix('B')?;
    let (number, multiplier) = match text.strip_suffix('i') {
        Some(rest) => {
            let unit = rest.chars().last()?;
            let power = SUFFIXES.iter().position(|s| *s == unit)? as u32 + 1;
            (&rest[..rest.len() - 1], 1024f64.powi(power as i32))
        }
        None => (text, 1.0),
    };
    let value: f64 = number.parse().ok()?;
    Some((value * multiplier).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysbench_reads_them() {
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("16384"), Some(16384));
        assert_eq!(parse_size("100G"), Some(100 << 30));
        assert_eq!(parse_size("8X"), None);
        assert_eq!(parse_size("G"), None);
        assert_eq!(parse_size("8GB"), None);
    }

    #[test]
    fn sizes_print_as_sysbench_prints_them() {
        assert_eq!(format_size(16 << 20), "16Mi");
        assert_eq!(format_size(2 << 30), "2Gi");
        assert_eq!(format_size(16384), "16Ki");
        assert_eq!(format_size(512), "512");
        // 2G over 128 files: 16 MiB each; 1G over 3 files: 341.33 MiB each.
        assert_eq!(format_size((1 << 30) / 3), "341.33Mi");
        assert_eq!(format_size(1536), "1.5Ki");
    }

    #[test]
    fn printed_sizes_read_back() {
        assert_eq!(parse_printed_size("8MiB"), Some(8 << 20));
        assert_eq!(parse_printed_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_printed_size("512B"), Some(512));
        assert_eq!(parse_printed_size("16Ki"), None);
    }
}
