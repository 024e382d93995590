//! sysbench's latency histogram (sb_histogram.c): 1024 logarithmic buckets from
//! 0.001 ms to 100 s. Percentiles are read from these buckets, as sysbench does, so a
//! "95th percentile" is the same bucket value sysbench would print for the same events.

pub const BUCKETS: usize = 1024;
const MIN_MS: f64 = 1e-3;
const MAX_MS: f64 = 1e5;
const BAR: &str = "****************************************";

fn range_mult() -> f64 {
    (BUCKETS - 1) as f64 / (MAX_MS.ln() - MIN_MS.ln())
}

/// `sb_histogram_update`'s bucket for a latency in milliseconds.
pub fn bucket_of(ms: f64) -> usize {
    let i = ((ms.ln() - MIN_MS.ln()) * range_mult() + 0.5).floor();
    if i.is_nan() || i < 0.0 {
        0
    } else {
        (i as usize).min(BUCKETS - 1)
    }
}

/// The latency (ms) sysbench reports for bucket `i`.
pub fn bucket_value(i: usize) -> f64 {
    (i as f64 / range_mult() + MIN_MS.ln()).exp()
}

/// Event counts per bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    pub counts: Vec<u64>,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
        }
    }
}

impl Histogram {
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `get_pct_cumulative`: the first bucket where the running count reaches
    /// round(events × rank / 100). 0 events gives the first bucket, as in sysbench.
    pub fn percentile_ms(&self, rank: u32) -> f64 {
        let target = (self.total() as f64 * f64::from(rank) / 100.0 + 0.5).floor() as u64;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return bucket_value(i);
            }
        }
        bucket_value(BUCKETS - 1)
    }

    /// `self - earlier`, bucket by bucket (an interval from two running totals).
    pub fn minus(&self, earlier: &Histogram) -> Histogram {
        Histogram {
            counts: self
                .counts
                .iter()
                .zip(&earlier.counts)
                .map(|(a, b)| a.saturating_sub(*b))
                .collect(),
        }
    }

    /// sysbench's `--histogram` block (`sb_histogram_print`), with its title line.
    pub fn format_block(&self) -> String {
        let max = self.counts.iter().copied().max().unwrap_or(0);
        let mut out = String::from("Latency histogram (values are in milliseconds)\n");
        if max > 0 {
            out.push_str("       value  ------------- distribution ------------- count\n");
            for (i, &c) in self.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
                let width = (c as f64 * 40.0 / max as f64 + 0.5).floor() as usize;
                out.push_str(&format!(
                    "{:12.3} |{:<40} {c}\n",
                    bucket_value(i),
                    &BAR[..width]
                ));
            }
        }
        out.push_str(" \n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_trip_their_own_values() {
        for i in [0, 1, 100, 511, 1023] {
            assert_eq!(bucket_of(bucket_value(i)), i);
        }
        assert_eq!(bucket_of(0.0), 0);
        assert_eq!(bucket_of(1e9), BUCKETS - 1);
    }

    #[test]
    fn percentile_is_the_bucket_where_the_rank_is_reached() {
        let mut h = Histogram::default();
        h.counts[bucket_of(1.0)] = 95;
        h.counts[bucket_of(10.0)] = 5;
        let p95 = h.percentile_ms(95);
        assert!((p95 - 1.0).abs() < 0.02, "{p95}");
        let p99 = h.percentile_ms(99);
        assert!((p99 - 10.0).abs() < 0.2, "{p99}");
    }

    #[test]
    fn the_block_draws_the_fullest_bucket_full_width() {
        let mut h = Histogram::default();
        h.counts[bucket_of(1.0)] = 4;
        h.counts[bucket_of(2.0)] = 2;
        let block = h.format_block();
        assert!(block.contains(&format!("|{} 4", BAR)), "{block}");
        assert!(block.contains(&format!("|{:<40} 2", &BAR[..20])), "{block}");
    }
}
