//! Transaction latency as an HDR histogram of microseconds.
//!
//! Why HDR and not sysbench's own 1024 log buckets: an HDR histogram with 3 significant
//! digits keeps every percentile within 0.1 %, merges exactly across workers and
//! serialises to a few kilobytes, so the stored run can answer "what was p99.9?" years
//! later. sysbench's bucket layout is reproduced only for printing (the `dbdyno-sysbench-text` crate).
//!
//! min, max and the sum are kept exactly beside the histogram, because sysbench prints
//! them from exact timers and a bucketed max would disagree with it by up to 0.1 %.

use std::io::Cursor;

use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2DeflateSerializer};
use hdrhistogram::Histogram;

use super::StatsError;
use crate::results::LatencySummary;

/// Largest latency we record, in microseconds (one hour). Anything longer is a hung
/// connection or a clock jump; clamping keeps the histogram small and never panics.
const MAX_RECORDABLE_US: u64 = 3_600_000_000;

const SIGNIFICANT_DIGITS: u8 = 3;

/// Transaction (or statement) latency of one worker or one step, in microseconds.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    /// Exact figures of the recorded values (the histogram only has bucket precision).
    sum_us: u128,
    min_us: u64,
    max_us: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        Self::with_digits(SIGNIFICANT_DIGITS)
    }

    /// Two significant digits: every percentile within 1 % (sysbench's own histogram
    /// buckets are about 1.8 % wide) in an eighth of the memory. For the per-statement
    /// breakdown, kept per worker and per class: at 1,024 threads the 3-digit ones were
    /// tens of MB.
    pub fn coarse() -> Self {
        Self::with_digits(2)
    }

    fn with_digits(digits: u8) -> Self {
        LatencyHistogram {
            // 2 and 3 significant digits are valid HDR settings; new() fails above 5.
            hist: Histogram::new(digits).expect("a valid HDR precision"),
            sum_us: 0,
            min_us: u64::MAX,
            max_us: 0,
        }
    }

    /// Records one latency. 0 becomes 1 µs (a completed event took *some* time and
    /// HDR's lowest discernible value is 1); values above one hour are clamped to it.
    pub fn record_us(&mut self, us: u64) {
        let us = us.clamp(1, MAX_RECORDABLE_US);
        if self.hist.record(us).is_err() {
            // Cannot happen with auto-resize below the clamp, but never panic in the hot path.
            self.hist.saturating_record(us);
        }
        self.sum_us += us as u128;
        self.min_us = self.min_us.min(us);
        self.max_us = self.max_us.max(us);
    }

    /// Merges another histogram into this one (per-worker histograms into the step's).
    pub fn add(&mut self, other: &LatencyHistogram) {
        if other.count() == 0 {
            return;
        }
        if self.hist.add(&other.hist).is_err() {
            // Same reasoning as in record_us: fall back to value-by-value saturation.
            for v in other.hist.iter_recorded() {
                self.hist
                    .saturating_record_n(v.value_iterated_to(), v.count_at_value());
            }
        }
        self.sum_us += other.sum_us;
        self.min_us = self.min_us.min(other.min_us);
        self.max_us = self.max_us.max(other.max_us);
    }

    pub fn reset(&mut self) {
        self.hist.reset();
        self.sum_us = 0;
        self.min_us = u64::MAX;
        self.max_us = 0;
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Latency at percentile `p` (0–100) in milliseconds; 0.0 when nothing was recorded.
    pub fn value_at_percentile_ms(&self, p: f64) -> f64 {
        if self.count() == 0 {
            return 0.0;
        }
        let p = if p.is_finite() {
            p.clamp(0.0, 100.0)
        } else {
            100.0
        };
        // The top bucket's upper edge can exceed the exact max; never report more than it.
        let us = self.hist.value_at_percentile(p).min(self.max_us);
        us as f64 / 1000.0
    }

    /// The figures people compare, in milliseconds. Zeros when nothing was recorded.
    pub fn summary(&self) -> LatencySummary {
        let count = self.count();
        if count == 0 {
            return LatencySummary::default();
        }
        let sum_ms = self.sum_us as f64 / 1000.0;
        LatencySummary {
            count,
            min_ms: self.min_us as f64 / 1000.0,
            avg_ms: sum_ms / count as f64,
            max_ms: self.max_us as f64 / 1000.0,
            p50_ms: Some(self.value_at_percentile_ms(50.0)),
            p90_ms: Some(self.value_at_percentile_ms(90.0)),
            p95_ms: Some(self.value_at_percentile_ms(95.0)),
            p99_ms: Some(self.value_at_percentile_ms(99.0)),
            p999_ms: Some(self.value_at_percentile_ms(99.9)),
            sum_ms,
        }
    }

    /// Buckets as (value in µs, count), lowest first: what `dbdyno-sysbench-text` re-buckets
    /// into sysbench's `--histogram` layout. The value is the middle of each HDR bucket.
    pub fn recorded_us(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.hist.iter_recorded().map(|v| {
            (
                self.hist.median_equivalent(v.value_iterated_to()),
                v.count_at_value(),
            )
        })
    }

    /// Adds `count` values of `us` at once (importing sysbench's printed buckets).
    pub fn record_n_us(&mut self, us: u64, count: u64) {
        if count == 0 {
            return;
        }
        let us = us.clamp(1, MAX_RECORDABLE_US);
        if self.hist.record_n(us, count).is_err() {
            self.hist.saturating_record_n(us, count);
        }
        self.sum_us += us as u128 * count as u128;
        self.min_us = self.min_us.min(us);
        self.max_us = self.max_us.max(us);
    }

    /// HdrHistogram V2 + DEFLATE, base64 (standard alphabet): the form stored with a run.
    /// Readable by any HdrHistogram implementation (Java, Go, Python's `hdrh`).
    pub fn to_base64(&self) -> String {
        let mut bytes = Vec::new();
        // Serialising into a Vec cannot fail on I/O; a failure would be a library bug,
        // and an empty string then reads back as "no histogram" rather than aborting a run.
        if V2DeflateSerializer::new()
            .serialize(&self.hist, &mut bytes)
            .is_err()
        {
            return String::new();
        }
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// Reads a histogram written by [`to_base64`](Self::to_base64). An empty string is an
    /// empty histogram (runs imported without latency buckets store none).
    ///
    /// The format carries only the buckets, so min, max and sum come back at bucket
    /// precision (sum = mean × count), not as the exact figures recorded.
    pub fn from_base64(s: &str) -> Result<Self, StatsError> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(Self::new());
        }
        let bytes = base64::engine::general_purpose::STANDARD.decode(s)?;
        let mut hist: Histogram<u64> = Deserializer::new()
            .deserialize(&mut Cursor::new(bytes))
            .map_err(StatsError::Decode)?;
        hist.auto(true);
        let count = hist.len();
        let (sum_us, min_us, max_us) = if count == 0 {
            (0, u64::MAX, 0)
        } else {
            let sum = (hist.mean() * count as f64).round() as u128;
            (sum, hist.min_nz(), hist.max())
        };
        Ok(LatencyHistogram {
            hist,
            sum_us,
            min_us,
            max_us,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_histogram_reports_zeros() {
        let h = LatencyHistogram::new();
        assert_eq!(h.count(), 0);
        assert_eq!(h.value_at_percentile_ms(95.0), 0.0);
        assert_eq!(h.summary(), LatencySummary::default());
    }

    #[test]
    fn coarse_histograms_stay_within_one_percent_and_merge() {
        let mut a = LatencyHistogram::coarse();
        let mut b = LatencyHistogram::coarse();
        for us in 1..=10_000u64 {
            a.record_us(us);
            b.record_us(us * 3);
        }
        let p95 = a.value_at_percentile_ms(95.0);
        assert!((p95 - 9.5).abs() / 9.5 < 0.01, "{p95}");
        let mut all = LatencyHistogram::coarse();
        all.add(&a);
        all.add(&b);
        assert_eq!(all.count(), 20_000);
        assert_eq!(all.summary().max_ms, 30.0, "max stays exact");
    }

    #[test]
    fn summary_uses_exact_min_max_sum() {
        let mut h = LatencyHistogram::new();
        // 838_690 µs lands in a 512 µs wide HDR bucket; the exact max must survive.
        for us in [5_610, 26_010, 838_690] {
            h.record_us(us);
        }
        let s = h.summary();
        assert_eq!(s.count, 3);
        assert_eq!(s.min_ms, 5.61);
        assert_eq!(s.max_ms, 838.69);
        assert!((s.sum_ms - 870.31).abs() < 1e-9, "{}", s.sum_ms);
        assert!((s.avg_ms - 290.103_333).abs() < 1e-3, "{}", s.avg_ms);
        assert!(s.p999_ms.unwrap() <= s.max_ms);
    }

    #[test]
    fn percentiles_within_hdr_precision() {
        let mut h = LatencyHistogram::new();
        for us in 1..=100_000u64 {
            h.record_us(us);
        }
        for (p, want_ms) in [
            (50.0, 50.0),
            (90.0, 90.0),
            (95.0, 95.0),
            (99.0, 99.0),
            (99.9, 99.9),
        ] {
            let got = h.value_at_percentile_ms(p);
            assert!(
                (got - want_ms).abs() / want_ms < 0.001,
                "p{p}: {got} vs {want_ms}"
            );
        }
        let s = h.summary();
        assert!((s.p50_ms.unwrap() - 50.0).abs() < 0.05);
        assert_eq!(s.min_ms, 0.001);
        assert_eq!(s.max_ms, 100.0);
    }

    #[test]
    fn zero_is_clamped_to_one_and_huge_values_do_not_panic() {
        let mut h = LatencyHistogram::new();
        h.record_us(0);
        h.record_us(u64::MAX);
        assert_eq!(h.count(), 2);
        let s = h.summary();
        assert_eq!(s.min_ms, 0.001);
        assert_eq!(s.max_ms, MAX_RECORDABLE_US as f64 / 1000.0);
        assert!(h.value_at_percentile_ms(100.0) <= s.max_ms);
    }

    #[test]
    fn add_merges_counts_and_exact_figures() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        for us in [100, 200, 300] {
            a.record_us(us);
        }
        for us in [50, 10_000_000] {
            b.record_us(us);
        }
        a.add(&b);
        let s = a.summary();
        assert_eq!(s.count, 5);
        assert_eq!(s.min_ms, 0.05);
        assert_eq!(s.max_ms, 10_000.0);
        assert!((s.sum_ms - 10_000.65).abs() < 1e-9);
        // Adding an empty histogram changes nothing.
        a.add(&LatencyHistogram::new());
        assert_eq!(a.summary(), s);
    }

    #[test]
    fn reset_forgets_everything() {
        let mut h = LatencyHistogram::new();
        h.record_us(1234);
        h.reset();
        assert_eq!(h.count(), 0);
        assert_eq!(h.summary(), LatencySummary::default());
        h.record_us(10);
        assert_eq!(h.summary().min_ms, 0.01);
    }

    #[test]
    fn base64_round_trip_keeps_buckets() {
        let mut h = LatencyHistogram::new();
        for i in 0..10_000u64 {
            h.record_us(200 + (i * 7919) % 50_000);
        }
        let text = h.to_base64();
        assert!(!text.is_empty());
        let back = LatencyHistogram::from_base64(&text).unwrap();
        assert_eq!(back.count(), h.count());
        for p in [50.0, 95.0, 99.0, 99.9] {
            assert_eq!(
                back.value_at_percentile_ms(p),
                h.value_at_percentile_ms(p),
                "p{p}"
            );
        }
        // Exact figures come back at bucket precision only.
        let (a, b) = (h.summary(), back.summary());
        assert!((a.sum_ms - b.sum_ms).abs() / a.sum_ms < 0.001);
        assert!((a.max_ms - b.max_ms).abs() / a.max_ms < 0.001);
        // The restored histogram still grows.
        let mut back = back;
        back.record_us(3_000_000_000);
        assert_eq!(back.summary().max_ms, 3_000_000.0);
    }

    #[test]
    fn from_base64_rejects_garbage_and_accepts_empty() {
        assert!(matches!(
            LatencyHistogram::from_base64("not base64!"),
            Err(StatsError::Base64(_))
        ));
        assert!(matches!(
            LatencyHistogram::from_base64("AAAAAAAA"),
            Err(StatsError::Decode(_))
        ));
        assert_eq!(LatencyHistogram::from_base64("").unwrap().count(), 0);
        let msg = LatencyHistogram::from_base64("AAAAAAAA")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("HdrHistogram"), "{msg}");
    }
}
