//! The latencies one per-second record carries, read from the interval's histogram (the
//! one the controller drains from the workers' cells every interval).
//!
//! Why three figures: sysbench's interval line prints the `--percentile` latency only,
//! and that line must stay byte-identical; the step's confidence needs a per-second
//! series of p95 and of p99 whatever `--percentile` is, so both ride along.

use crate::stats::LatencyHistogram;

/// Transaction latencies of one interval, in milliseconds; 0 when no event completed
/// (as sysbench prints it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct IntervalLatency {
    /// At the step's `--percentile`: what the interval line prints.
    pub at_percentile_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

impl IntervalLatency {
    pub(super) fn of(latency: &LatencyHistogram, percentile: f64) -> IntervalLatency {
        IntervalLatency {
            at_percentile_ms: latency.value_at_percentile_ms(percentile),
            p95_ms: latency.value_at_percentile_ms(95.0),
            p99_ms: latency.value_at_percentile_ms(99.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 ms … 100 ms, one transaction each: the p-th percentile is p ms.
    fn one_to_a_hundred_ms() -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        for ms in 1..=100 {
            h.record_us(ms * 1000);
        }
        h
    }

    #[test]
    fn p95_and_p99_come_from_the_interval_histogram_whatever_the_percentile() {
        let h = one_to_a_hundred_ms();
        let l = IntervalLatency::of(&h, 90.0);
        // HDR keeps 3 significant digits: within 0.1 % of the exact value.
        let near = |got: f64, want: f64| (got - want).abs() <= want * 1e-3;
        assert!(near(l.at_percentile_ms, 90.0), "{l:?}");
        assert!(near(l.p95_ms, 95.0), "{l:?}");
        assert!(near(l.p99_ms, 99.0), "{l:?}");
        // At --percentile 95 the printed figure and p95 are one and the same.
        let at95 = IntervalLatency::of(&h, 95.0);
        assert_eq!(at95.at_percentile_ms, at95.p95_ms);
    }

    #[test]
    fn a_slow_tail_moves_p99_and_not_p95() {
        // 97 fast transactions and 3 slow ones: p95 is fast, p99 is slow.
        let mut h = LatencyHistogram::new();
        for _ in 0..97 {
            h.record_us(2_000);
        }
        for _ in 0..3 {
            h.record_us(250_000);
        }
        let l = IntervalLatency::of(&h, 95.0);
        assert!((l.p95_ms - 2.0).abs() < 0.01, "{l:?}");
        assert!((l.p99_ms - 250.0).abs() < 0.25, "{l:?}");
    }

    #[test]
    fn an_interval_without_a_completed_event_reads_zero() {
        let l = IntervalLatency::of(&LatencyHistogram::new(), 95.0);
        assert_eq!(
            l,
            IntervalLatency {
                at_percentile_ms: 0.0,
                p95_ms: 0.0,
                p99_ms: 0.0
            }
        );
    }
}
