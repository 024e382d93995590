//! sysbench's random number distributions: uniform, gaussian, special and pareto as
//! sysbench 1.0.20's `src/sb_rand.c` computes them, and zipfian as sysbench 1.1 (its
//! master) does, by rejection-inversion (1.0.20 has no zipfian).
//!
//! The distribution decides which rows are hot, and so buffer-pool hit rates and lock
//! contention: `special` (sysbench's default) must draw the keys sysbench's draws, not
//! those of its pre-1.0 integer version nor a textbook Gaussian, for results to be
//! comparable. The formulas below are 1.0.20's, down to its floating-point
//! truncations; only the uniform source differs (sysbench's xoroshiro128+, here
//! `SmallRng`), so the draws follow the same distributions, not the same sequences.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{RandOptions, RandType};

/// A per-worker generator. Workers never share one: no locks in the hot loop.
pub struct SbRand {
    rng: SmallRng,
    kind: RandType,
    /// `--rand-spec-iter`, and sysbench's multipliers precomputed from the options as
    /// `sb_rand_init` does, used as it uses them: `1 / iter`, `pct / 100`, `pct / 200`,
    /// `100 / (100 - res)` and pareto's `ln h / ln(1 - h)`.
    iter: u32,
    iter_mult: f64,
    pct_mult: f64,
    pct_2_mult: f64,
    res_mult: f64,
    pareto_power: f64,
    zipf: Zipfian,
}

impl SbRand {
    /// `worker` makes each worker's stream differ when a fixed `--rand-seed` is given.
    /// Seed 0 seeds from the clock, as sysbench does (`srandom(time(NULL))`), in
    /// nanoseconds rather than its seconds, and with a count of the generators this
    /// process made, so that two made in the same instant still differ.
    pub fn new(o: &RandOptions, worker: u64) -> SbRand {
        let seed = seed_or_clock(o.seed);
        let rng =
            SmallRng::seed_from_u64(seed.wrapping_add(worker.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        // The plan refuses an h outside (0, 1); a generator made without a plan's check
        // stays defined instead of drawing NaN.
        let h = o.pareto_h.clamp(1e-6, 1.0 - 1e-6);
        let iter = o.spec_iter.max(1);
        SbRand {
            rng,
            kind: o.rand_type,
            iter,
            iter_mult: 1.0 / f64::from(iter),
            pct_mult: o.spec_pct / 100.0,
            pct_2_mult: o.spec_pct / 200.0,
            res_mult: 100.0 / (100.0 - o.spec_res),
            pareto_power: h.ln() / (1.0 - h).ln(),
            zipf: Zipfian::new(o.zipfian_exp),
        }
    }

    /// `sb_rand_uniform_double()`: uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        self.rng.gen::<f64>()
    }

    /// `sysbench.rand.uniform(a, b)`: inclusive bounds. sysbench computes
    /// `a + u * (b - a + 1)`; an integer draw over the same range is the same
    /// distribution, exactly uniform where the double's 52 bits would not be.
    pub fn uniform(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        a + self.rng.gen_range(0..=(b - a))
    }

    /// `sysbench.rand.default(a, b)` (`sb_rand` in Lua): the configured distribution.
    pub fn default_dist(&mut self, a: u64, b: u64) -> u64 {
        match self.kind {
            RandType::Uniform => self.uniform(a, b),
            RandType::Gaussian => self.gaussian(a, b),
            RandType::Special => self.special(a, b),
            RandType::Pareto => self.pareto(a, b),
            RandType::Zipfian => self.zipfian(a, b),
        }
    }

    /// `sb_rand_gaussian`: the mean of `--rand-spec-iter` uniform doubles over
    /// `[0, b - a + 1)`, truncated once at the end (not a mean of truncated draws,
    /// which over a small range is a different distribution: over 1..=2 it would
    /// almost never give 2, sysbench gives it half the time).
    pub fn gaussian(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let t = (b - a + 1) as f64;
        let mut sum = 0.0;
        for _ in 0..self.iter {
            sum += self.unit() * t;
        }
        a + (sum * self.iter_mult) as u64
    }

    /// `sb_rand_special` of sysbench 1.0.20: with `t = b - a`, one uniform `rnd`
    /// picks the branch. For `rnd < (100 - res) / 100` (`100 - res` percent of the
    /// draws), a Gaussian over `[a, a + t)` (sysbench's own, with `t = b - a`, not its
    /// `gaussian`'s `b - a + 1`). Otherwise the same `rnd`, which is then at least
    /// `(100 - res) / 100`, is mapped onto the `pct` percent window around the
    /// middle: so the hot values cover only the window's top `res` percent (about 76 of a
    /// 10,000-value range's 100 at the defaults), the concentration sysbench has.
    pub fn special(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let t = (b - a) as f64;
        let range_size = t * self.res_mult;
        let rnd = self.unit();
        if rnd * range_size < t {
            let mut sum = 0.0;
            for _ in 0..self.iter {
                sum += self.unit();
            }
            // sysbench adds in double then truncates: the same as adding the
            // truncated offset to an integer `a`.
            return a + (sum * t * self.iter_mult) as u64;
        }
        let d = t * self.pct_mult;
        let res = rnd * (d + 1.0) + (t / 2.0 - t * self.pct_2_mult);
        a + res as u64
    }

    /// `sb_rand_pareto`: `a + (b - a + 1) * u^power`, power = ln h / ln(1 - h).
    pub fn pareto(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let u = self.unit();
        let v = ((b - a + 1) as f64 * u.powf(self.pareto_power)) as u64;
        // u^power rounds to 1.0 only for u within an ulp of 1; sysbench would then
        // return b + 1, here the bound.
        a + v.min(b - a)
    }

    /// sysbench 1.1's `sb_rand_zipfian`: value `a + k - 1` with probability
    /// proportional to `1 / k^exp`, k in 1..=b - a + 1.
    pub fn zipfian(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let z = self.zipf;
        a + z.sample(b - a + 1, || self.unit()) - 1
    }

    /// A random decimal digit, for `#` in sysbench's string templates.
    pub fn digit(&mut self) -> u8 {
        b'0' + self.rng.gen_range(0..10u8)
    }

    /// A random lower-case letter, for `@` in templates.
    pub fn letter(&mut self) -> u8 {
        b'a' + self.rng.gen_range(0..26u8)
    }

    pub fn next_u32(&mut self) -> u32 {
        self.rng.gen()
    }
}

/// `--rand-seed` as a generator's seed: a fixed seed as given; 0, a seed from the
/// clock, apart for every generator of the process.
pub fn seed_or_clock(seed: u64) -> u64 {
    if seed != 0 {
        return seed;
    }
    clock_seed()
}

fn clock_seed() -> u64 {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let made = MADE.fetch_add(1, Ordering::Relaxed);
    nanos ^ made.wrapping_mul(0xD1B5_4A32_D192_ED03)
}

/// The Zipf sampler of sysbench 1.1 (`sb_rand_zipfian_int`, after Apache Commons
/// RNG's RejectionInversionZipfSampler): Hörmann and Derflinger's rejection-inversion,
/// exact for any exponent and O(1) per draw with no O(n) set-up, whatever the range.
#[derive(Clone, Copy)]
struct Zipfian {
    exp: f64,
    /// sysbench's `zipf_s` and `zipf_hIntegralX1`, fixed by the exponent.
    s: f64,
    h_integral_x1: f64,
}

impl Zipfian {
    fn new(exp: f64) -> Zipfian {
        let exp = exp.max(0.0);
        Zipfian {
            exp,
            s: 2.0 - h_integral_inverse(h_integral(2.5, exp) - h(2.0, exp), exp),
            h_integral_x1: h_integral(1.5, exp) - 1.0,
        }
    }

    /// k in 1..=n with probability proportional to 1 / k^exp; `unit` draws in [0, 1).
    fn sample(&self, n: u64, mut unit: impl FnMut() -> f64) -> u64 {
        let e = self.exp;
        let h_integral_n = h_integral(n as f64 + 0.5, e);
        loop {
            let u = h_integral_n + unit() * (self.h_integral_x1 - h_integral_n);
            let x = h_integral_inverse(u, e);
            // Rounding may put k just outside 1..=n.
            let k = ((x + 0.5) as u64).clamp(1, n);
            if k as f64 - x <= self.s || u >= h_integral(k as f64 + 0.5, e) - h(k as f64, e) {
                return k;
            }
        }
    }
}

/// H(x) = (x^(1 - e) - 1) / (1 - e), or ln x for e = 1: the integral of [`h`].
fn h_integral(x: f64, e: f64) -> f64 {
    let log_x = x.ln();
    helper2((1.0 - e) * log_x) * log_x
}

/// h(x) = 1 / x^e.
fn h(x: f64, e: f64) -> f64 {
    (-e * x.ln()).exp()
}

/// The inverse of [`h_integral`].
fn h_integral_inverse(x: f64, e: f64) -> f64 {
    // Kept at -1 or above: numerical error can push it just below.
    let t = (x * (1.0 - e)).max(-1.0);
    (helper1(t) * x).exp()
}

/// ln(1 + x) / x, by its Taylor series near 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * ((1.0 / 3.0) - 0.25 * x))
    }
}

/// (e^x - 1) / x, by its Taylor series near 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen_with(kind: RandType, change: impl FnOnce(&mut RandOptions)) -> SbRand {
        let mut o = RandOptions {
            rand_type: kind,
            seed: 42,
            ..Default::default()
        };
        change(&mut o);
        SbRand::new(&o, 0)
    }

    fn gen(kind: RandType) -> SbRand {
        gen_with(kind, |_| {})
    }

    #[test]
    fn every_distribution_stays_in_bounds() {
        for kind in [
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Special,
            RandType::Pareto,
            RandType::Zipfian,
        ] {
            let mut r = gen(kind);
            for _ in 0..20_000 {
                let v = r.default_dist(1, 1000);
                assert!((1..=1000).contains(&v), "{kind:?} gave {v}");
            }
            assert_eq!(r.default_dist(7, 7), 7);
        }
        // The widest window: every draw of special is in the window.
        let mut r = gen_with(RandType::Special, |o| {
            o.spec_pct = 100.0;
            o.spec_res = 99.0;
        });
        assert!((0..20_000).all(|_| (1..=10).contains(&r.default_dist(1, 10))));
    }

    /// sysbench 1.0.20's special over 1..=10,000 (t = 9,999) puts its hot draws on
    /// a + trunc(rnd * 100.99 + 4949.505) with rnd in [0.25, 1): 4975..=5051. The
    /// pre-1.0 integer formula put them on 4951..=5050, a quarter of them below 4975.
    #[test]
    fn special_puts_its_hot_draws_where_sysbench_1_0_20_does() {
        let mut r = gen(RandType::Special);
        let n = 200_000;
        let draws: Vec<u64> = (0..n).map(|_| r.default_dist(1, 10_000)).collect();
        let share = |lo: u64, hi: u64| {
            draws.iter().filter(|v| (lo..=hi).contains(*v)).count() as f64 / n as f64
        };
        // 75% hot, plus the Gaussian's 25% × 77 values × ~4.8e-4 per value.
        let hot = share(4975, 5051);
        assert!((0.75..0.77).contains(&hot), "hot share {hot}");
        // Below the hot values only the Gaussian: 25% × 24 × ~4.8e-4 = 0.3%.
        let below = share(4951, 4974);
        assert!(below < 0.006, "share just below the hot values {below}");
        let above = share(5052, 5075);
        assert!(above < 0.006, "share just above the hot values {above}");
        // Each whole hot value gets 1 / 75.74 of the hot draws, ~0.99% of all.
        let one = share(5000, 5000);
        assert!((0.0090..0.0110).contains(&one), "one hot value {one}");
    }

    /// The Gaussian's mean of doubles is truncated once: over 1..=2 it gives 2 when
    /// the mean of the 12 doubles is at least 0.5, half the time (a mean of
    /// truncated integer draws would give it 1 time in 4,096).
    #[test]
    fn gaussian_truncates_the_mean_not_each_draw() {
        let mut r = gen(RandType::Gaussian);
        let twos = (0..20_000).filter(|_| r.default_dist(1, 2) == 2).count();
        assert!((9_400..10_600).contains(&twos), "{twos} of 20000");
    }

    /// Pareto puts a value in the lowest tenth when u^power < 0.1: with probability
    /// 0.1^(1 / power), power = ln h / ln(1 - h) (0.727 at h = 0.2).
    #[test]
    fn pareto_share_of_the_lowest_tenth_is_the_formula_s() {
        let mut r = gen(RandType::Pareto);
        let low = (0..100_000)
            .filter(|_| r.default_dist(1, 10_000) <= 1000)
            .count() as f64
            / 100_000.0;
        let power = 0.2f64.ln() / 0.8f64.ln();
        let expected = 0.1f64.powf(1.0 / power);
        assert!((low - expected).abs() < 0.01, "{low} vs {expected}");
    }

    /// Zipfian goodness of fit against the exact pmf 1/k^e / sum 1/i^e, with a
    /// chi-square over the first values and the tail as one bucket, for exponents
    /// below, at and above 1 (seeds fixed; the bound is the 0.1% quantile).
    #[test]
    fn zipfian_draws_follow_the_exact_zipf_law() {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        for (exp, n) in [(0.8, 10_000u64), (0.5, 100), (1.0, 1000), (1.5, 50_000)] {
            let mut r = gen_with(RandType::Zipfian, |o| o.zipfian_exp = exp);
            let draws = 200_000;
            let head = 50usize;
            let mut counts = vec![0u64; head + 1];
            for _ in 0..draws {
                let v = r.default_dist(1, n) as usize;
                counts[(v - 1).min(head)] += 1;
            }
            let norm: f64 = (1..=n).map(|k| (k as f64).powf(-exp)).sum();
            let p = |k: usize| (k as f64).powf(-exp) / norm;
            let mut chi2 = 0.0;
            let mut head_p = 0.0;
            for (i, &c) in counts.iter().take(head).enumerate() {
                let e = p(i + 1) * draws as f64;
                head_p += p(i + 1);
                chi2 += (c as f64 - e).powi(2) / e;
            }
            let e_tail = (1.0 - head_p) * draws as f64;
            chi2 += (counts[head] as f64 - e_tail).powi(2) / e_tail;
            let pval = 1.0 - ChiSquared::new(head as f64).unwrap().cdf(chi2);
            assert!(pval > 0.001, "exp {exp} n {n}: chi2 {chi2}, p {pval}");
        }
    }

    #[test]
    fn uniform_mean_is_central() {
        let mut r = gen(RandType::Uniform);
        let mean = (0..100_000).map(|_| r.uniform(1, 100) as f64).sum::<f64>() / 100_000.0;
        assert!((mean - 50.5).abs() < 0.5, "{mean}");
    }

    #[test]
    fn a_zero_seed_draws_a_different_stream_every_time() {
        let o = RandOptions::default();
        let (mut a, mut b) = (SbRand::new(&o, 0), SbRand::new(&o, 0));
        let first: Vec<u32> = (0..4).map(|_| a.next_u32()).collect();
        let second: Vec<u32> = (0..4).map(|_| b.next_u32()).collect();
        assert_ne!(first, second);
        // A fixed seed repeats.
        let o = RandOptions { seed: 9, ..o };
        let (mut a, mut b) = (SbRand::new(&o, 3), SbRand::new(&o, 3));
        assert_eq!(a.next_u32(), b.next_u32());
    }
}
