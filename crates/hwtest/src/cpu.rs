//! `cpu`: sysbench's prime test (sb_cpu.c). Each event checks every number from 3 to
//! `--cpu-max-prime` for primality by trial division up to its square root, in 64-bit
//! integers and a double square root, exactly as sysbench's loop does, so that events
//! per second compare across the two tools.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use crate::error::HwTestError;
use crate::options::{CpuOptions, GeneralOptions};
use crate::result::{CpuResult, IntervalFigures};
use crate::runner::{self, IntervalCommon, LoopFigures, Workload};

/// One event: how many primes lie below `max_prime` (counted as sysbench counts them).
pub fn count_primes(max_prime: u64) -> u64 {
    let mut primes = 0;
    for c in 3..max_prime {
        let t = (c as f64).sqrt();
        let mut l: u64 = 2;
        while l as f64 <= t {
            if c % l == 0 {
                break;
            }
            l += 1;
        }
        if l as f64 > t {
            primes += 1;
        }
    }
    primes
}

struct Cpu {
    max_prime: u64,
}

impl Workload for Cpu {
    type State = ();
    type Event = ();

    fn thread_state(&self, _: usize) -> Result<(), HwTestError> {
        Ok(())
    }

    fn next_event(&self, _: &mut ()) -> Option<()> {
        Some(())
    }

    fn execute(&self, _: &mut (), _: ()) -> Result<(), HwTestError> {
        // black_box: the count is unused, and the loop must not be optimised away.
        black_box(count_primes(black_box(self.max_prime)));
        Ok(())
    }

    fn interval(&self, c: &IntervalCommon) -> IntervalFigures {
        IntervalFigures {
            elapsed_s: c.elapsed_s,
            threads: Some(c.threads_running),
            events_per_s: Some(c.events as f64 / c.interval_s),
            latency_pct_ms: c.latency_pct_ms,
            ..Default::default()
        }
    }
}

pub fn run(
    general: &GeneralOptions,
    o: &CpuOptions,
    on_interval: &(dyn Fn(&IntervalFigures) + Sync),
    cancel: &AtomicBool,
) -> Result<(LoopFigures, CpuResult), HwTestError> {
    let figures = runner::run(
        &Cpu {
            max_prime: o.max_prime,
        },
        general,
        on_interval,
        cancel,
    )?;
    let result = CpuResult {
        events_per_s: figures.total_events as f64 / figures.total_time_s,
        max_prime: Some(o.max_prime),
    };
    Ok((figures, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_counts_odd_primes_below_the_limit() {
        // 3, 5, 7 (2 is never tried: the loop starts at 3).
        assert_eq!(count_primes(10), 3);
        // π(10000) = 1229, less the prime 2.
        assert_eq!(count_primes(10000), 1228);
    }

    #[test]
    fn a_short_run_counts_events_per_second() {
        let general = GeneralOptions {
            events: 50,
            threads: 2,
            ..Default::default()
        };
        let (f, r) = run(
            &general,
            &CpuOptions { max_prime: 2000 },
            &|_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(f.total_events, 50);
        assert!(r.events_per_s > 0.0);
        assert_eq!(r.max_prime, Some(2000));
    }
}
