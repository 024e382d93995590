//! sysbench's `--histogram` block: 1024 logarithmic buckets from 0.001 ms to 100 s
//! (`OPER_LOG_*` in sb_logger.c, printing in sb_histogram.c).
//!
//! We keep latency in an HDR histogram, and re-bucket it into sysbench's buckets only
//! to print, so that a user's eye (and diff) sees the same bucket values as sysbench's.
//! Our values have microsecond resolution, so below ~0.06 ms, where sysbench's buckets
//! are narrower than 1 µs, some of its buckets stay empty in ours.

use super::numbers::{parse_f64, parse_u64};
use super::ParseError;
use dbdyno_engine::stats::LatencyHistogram;

const SIZE: usize = 1024;
const MIN_MS: f64 = 1e-3;
const MAX_MS: f64 = 1e5;
const BAR: &str = "****************************************";

/// One printed histogram row: the bucket's value and how many events fell into it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistogramBucket {
    pub value_ms: f64,
    pub count: u64,
}

fn range_mult() -> f64 {
    (SIZE - 1) as f64 / (MAX_MS.ln() - MIN_MS.ln())
}

/// sysbench's `sb_histogram_update`: the bucket index of a latency in ms.
fn index_of(ms: f64) -> usize {
    let i = ((ms.ln() - MIN_MS.ln()) * range_mult() + 0.5).floor();
    if i.is_nan() || i < 0.0 {
        0
    } else {
        (i as usize).min(SIZE - 1)
    }
}

/// The value sysbench prints for bucket `i`.
fn value_of(i: usize) -> f64 {
    (i as f64 / range_mult() + MIN_MS.ln()).exp()
}

/// Our histogram in sysbench's buckets, lowest first, empty buckets left out.
pub(crate) fn sysbench_buckets(h: &LatencyHistogram) -> Vec<HistogramBucket> {
    let mut counts = vec![0u64; SIZE];
    for (us, n) in h.recorded_us() {
        counts[index_of(us as f64 / 1000.0)] += n;
    }
    counts
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(i, &c)| HistogramBucket {
            value_ms: value_of(i),
            count: c,
        })
        .collect()
}

/// "Latency histogram (values are in milliseconds)", the column header, one
/// `%12.3f |%-40.*s %lu` row per bucket, then the line with a single space that
/// sysbench prints before the summary.
pub(crate) fn format_histogram_block(h: &LatencyHistogram) -> String {
    let buckets = sysbench_buckets(h);
    let mut out = String::from("Latency histogram (values are in milliseconds)\n");
    let max = buckets.iter().map(|b| b.count).max().unwrap_or(0);
    // sysbench prints the column header only when something was recorded.
    if max > 0 {
        out.push_str("       value  ------------- distribution ------------- count\n");
        for b in &buckets {
            let width = (b.count as f64 * 40.0 / max as f64 + 0.5).floor() as usize;
            out.push_str(&format!(
                "{:12.3} |{:<40} {}\n",
                b.value_ms,
                &BAR[..width.min(40)],
                b.count
            ));
        }
    }
    out.push_str(" \n");
    out
}

/// The column header row of the block ("value --- distribution --- count").
pub(crate) fn is_column_header(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("value") && t.contains("distribution") && t.ends_with("count")
}

/// Reads one `      0.024 |*******       9556` row.
pub(crate) fn parse_row(line_no: usize, line: &str) -> Result<HistogramBucket, ParseError> {
    let expected = "a histogram row like '      0.024 |*******     9556'";
    let (value, rest) = line
        .split_once('|')
        .ok_or_else(|| ParseError::malformed(line_no, expected, line))?;
    let count = rest.trim().trim_start_matches('*').trim();
    match (parse_f64(value), parse_u64(count)) {
        (Some(value_ms), Some(count)) => Ok(HistogramBucket { value_ms, count }),
        _ => Err(ParseError::malformed(line_no, expected, line)),
    }
}

/// Latency at `p` percent the way sysbench computes it from its buckets
/// (`sb_histogram_snapshot_get_pct`): the first bucket where the running count reaches
/// round(n × p / 100).
pub(crate) fn percentile_of(buckets: &[HistogramBucket], p: f64) -> f64 {
    let n: u64 = buckets.iter().map(|b| b.count).sum();
    if n == 0 {
        return 0.0;
    }
    let target = (n as f64 * p / 100.0 + 0.5).floor() as u64;
    let mut seen = 0;
    for b in buckets {
        seen += b.count;
        if seen >= target {
            return b.value_ms;
        }
    }
    buckets.last().map_or(0.0, |b| b.value_ms)
}

/// Rebuilds an HDR histogram from printed buckets (importing a log's `--histogram`).
pub(crate) fn to_latency_histogram(buckets: &[HistogramBucket]) -> LatencyHistogram {
    let mut h = LatencyHistogram::new();
    for b in buckets {
        h.record_n_us((b.value_ms * 1000.0).round() as u64, b.count);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_values_are_sysbench_values() {
        // Values printed by Debian's sysbench 1.0.20 (fixtures/point_select_histogram.txt).
        for printed in [0.024, 0.030, 2.615, 10.274, 10.651] {
            let v = value_of(index_of(printed));
            assert!(
                (v - printed).abs() < 0.0006 * printed.max(1.0),
                "{printed} -> {v}"
            );
        }
        assert_eq!(format!("{:.3}", value_of(index_of(10.651))), "10.651");
        assert_eq!(index_of(0.0), 0);
        assert_eq!(index_of(1e9), SIZE - 1);
    }

    #[test]
    fn block_rows_have_sysbench_widths() {
        let mut h = LatencyHistogram::new();
        for _ in 0..40 {
            h.record_us(1000);
        }
        for _ in 0..10 {
            h.record_us(5000);
        }
        let text = format_histogram_block(&h);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Latency histogram (values are in milliseconds)");
        assert_eq!(
            lines[1],
            "       value  ------------- distribution ------------- count"
        );
        // Bucket values are sysbench's, near but not at 1 ms and 5 ms.
        let (one, five) = (value_of(index_of(1.0)), value_of(index_of(5.0)));
        assert!((one - 1.0).abs() < 0.01 && (five - 5.0).abs() < 0.05);
        assert_eq!(lines[2], format!("{one:12.3} |{} 40", "*".repeat(40)));
        assert_eq!(
            lines[3],
            format!("{five:12.3} |{}{} 10", "*".repeat(10), " ".repeat(30))
        );
        assert_eq!(lines[2].find('|'), Some(13));
        assert_eq!(lines[4], " ");
        assert_eq!(lines.len(), 5);
        let row = parse_row(3, lines[3]).unwrap();
        assert_eq!(row.count, 10);
        assert_eq!(format!("{:.3}", row.value_ms), format!("{five:.3}"));
    }

    #[test]
    fn empty_histogram_prints_only_the_title() {
        let text = format_histogram_block(&LatencyHistogram::new());
        assert_eq!(text, "Latency histogram (values are in milliseconds)\n \n");
    }

    #[test]
    fn percentile_follows_sysbench_rule() {
        let b = [
            HistogramBucket {
                value_ms: 1.0,
                count: 90,
            },
            HistogramBucket {
                value_ms: 2.0,
                count: 9,
            },
            HistogramBucket {
                value_ms: 9.0,
                count: 1,
            },
        ];
        assert_eq!(percentile_of(&b, 50.0), 1.0);
        assert_eq!(percentile_of(&b, 90.0), 1.0);
        assert_eq!(percentile_of(&b, 95.0), 2.0);
        assert_eq!(percentile_of(&b, 99.5), 9.0);
        assert_eq!(percentile_of(&[], 95.0), 0.0);
        assert_eq!(to_latency_histogram(&b).count(), 100);
    }

    #[test]
    fn bad_row_is_reported_with_its_line() {
        let e = parse_row(40, "   0.024 |***   many").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 40: expected a histogram row"),
            "{e}"
        );
    }
}
