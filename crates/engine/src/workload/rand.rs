//! sysbench's random number distributions (`sb_rand.c` in sysbench 1.0.20), plus the
//! zipfian one of sysbench 1.1.
//!
//! The distribution decides which rows are hot, and so buffer-pool hit rates and lock
//! contention: `special` (sysbench's default) must behave like sysbench's, not like a
//! textbook Gaussian, for results to be comparable.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{RandOptions, RandType};

/// A per-worker generator. Workers never share one: no locks in the hot loop.
pub struct SbRand {
    rng: SmallRng,
    kind: RandType,
    iter: u32,
    pct: f64,
    res: f64,
    pareto_power: f64,
    zipf: Option<Zipfian>,
}

impl SbRand {
    /// `worker` makes each worker's stream differ when a fixed `--rand-seed` is given.
    pub fn new(o: &RandOptions, worker: u64) -> SbRand {
        let rng = if o.seed == 0 {
            SmallRng::from_entropy()
        } else {
            SmallRng::seed_from_u64(
                o.seed
                    .wrapping_add(worker.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            )
        };
        let h = o.pareto_h.clamp(1e-6, 1.0 - 1e-6);
        SbRand {
            rng,
            kind: o.rand_type,
            iter: o.spec_iter.max(1),
            pct: o.spec_pct,
            res: o.spec_res,
            pareto_power: h.ln() / (1.0 - h).ln(),
            zipf: None,
        }
        .with_zipf(o.zipfian_exp)
    }

    fn with_zipf(mut self, exp: f64) -> Self {
        if self.kind == RandType::Zipfian {
            self.zipf = Some(Zipfian::new(exp));
        }
        self
    }

    /// `sysbench.rand.uniform(a, b)`: inclusive bounds.
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

    fn gaussian(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let t = b - a + 1;
        let mut sum = 0u64;
        for _ in 0..self.iter {
            sum += self.rng.gen_range(0..t);
        }
        a + sum / self.iter as u64
    }

    /// sysbench's "special": `res`% of draws go to `pct`% of values around the middle
    /// of the range, the rest follow its Gaussian.
    fn special(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let t = b - a + 1;
        // Integer arithmetic as in sb_rand_special(): range_size = t * (100 / (100 - res)).
        let widen = (100.0 / (100.0 - self.res)).floor().max(1.0) as u64;
        let range_size = t.saturating_mul(widen);
        let r = self.rng.gen_range(0..range_size);
        if r < t {
            return self.gaussian(a, b);
        }
        let d = ((t as f64 * self.pct / 100.0) as u64).max(1);
        let offset = (t / 2).saturating_sub((t as f64 * self.pct / 200.0) as u64);
        a + (r % d + offset).min(t - 1)
    }

    fn pareto(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let u: f64 = self.rng.gen();
        let v = ((b - a + 1) as f64 * u.powf(self.pareto_power)) as u64;
        a + v.min(b - a)
    }

    fn zipfian(&mut self, a: u64, b: u64) -> u64 {
        if b <= a {
            return a;
        }
        let n = b - a + 1;
        let u: f64 = self.rng.gen();
        let z = self.zipf.as_mut().expect("zipfian state");
        a + z.sample(n, u)
    }

    /// Does now, before a step's clock starts, the set-up a draw from `a..=b` needs:
    /// zipfian's zeta(n) is O(n), tens of CPU seconds at 10M rows × 128 threads if each
    /// worker computed it on its first draw, inside the measured window.
    pub fn prime(&mut self, a: u64, b: u64) {
        if let Some(z) = self.zipf.as_mut() {
            if b > a {
                z.set_range(b - a + 1);
            }
        }
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

/// YCSB-style zipfian sampler (Gray et al.), as sysbench 1.1 implements it. zeta(n) is
/// O(n), so it is computed once per (n, theta) in the process and shared ([`zeta`]).
struct Zipfian {
    theta: f64,
    n: u64,
    zetan: f64,
    alpha: f64,
    eta: f64,
}

impl Zipfian {
    fn new(theta: f64) -> Zipfian {
        Zipfian {
            theta: theta.clamp(0.01, 0.999),
            n: 0,
            zetan: 0.0,
            alpha: 0.0,
            eta: 0.0,
        }
    }

    fn sample(&mut self, n: u64, u: f64) -> u64 {
        if n != self.n {
            self.set_range(n);
        }
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1.min(n - 1);
        }
        let v = (n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(n - 1)
    }

    fn set_range(&mut self, n: u64) {
        if n == self.n {
            return;
        }
        self.n = n;
        self.zetan = zeta(n, self.theta);
        let zeta2 = zeta(2.min(n), self.theta);
        self.alpha = 1.0 / (1.0 - self.theta);
        self.eta = (1.0 - (2.0 / n as f64).powf(1.0 - self.theta)) / (1.0 - zeta2 / self.zetan);
    }
}

/// zeta(n, theta) = sum of 1/i^theta for i in 1..=n, computed once per process for each
/// (n, theta) and shared by every worker: the first caller computes it while the others
/// wait for the value instead of computing it again.
fn zeta(n: u64, theta: f64) -> f64 {
    zeta_cached(n, theta).0
}

/// [`zeta`], and whether this call had to compute it.
fn zeta_cached(n: u64, theta: f64) -> (f64, bool) {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<(u64, u64), f64>>> = OnceLock::new();
    if n <= 2 {
        return (zeta_sum(n, theta), true);
    }
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    let mut computed = false;
    let value = *map.entry((n, theta.to_bits())).or_insert_with(|| {
        computed = true;
        zeta_sum(n, theta)
    });
    (value, computed)
}

fn zeta_sum(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeta_is_computed_once_per_range_and_shared() {
        let n = 3_000_017; // a size no other test uses
        let (first, computed) = zeta_cached(n, 0.8);
        assert!(computed);
        assert_eq!(first, zeta_sum(n, 0.8));
        // A second worker's generator finds the value in the cache: no second O(n) sum.
        assert_eq!(zeta_cached(n, 0.8), (first, false));
        let (other, computed) = zeta_cached(n, 0.9);
        assert!(computed && other != first, "theta is part of the key");
    }

    #[test]
    fn priming_sets_the_range_before_the_first_draw() {
        let mut r = SbRand::new(
            &RandOptions {
                rand_type: RandType::Zipfian,
                seed: 7,
                ..Default::default()
            },
            0,
        );
        r.prime(1, 1000);
        assert_eq!(r.zipf.as_ref().unwrap().n, 1000);
        let v = r.default_dist(1, 1000);
        assert!((1..=1000).contains(&v));
    }

    fn gen(kind: RandType) -> SbRand {
        SbRand::new(
            &RandOptions {
                rand_type: kind,
                seed: 42,
                ..Default::default()
            },
            0,
        )
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
    }

    #[test]
    fn special_concentrates_on_the_middle_percent() {
        let mut r = gen(RandType::Special);
        let n = 100_000;
        // 1% of 10_000 values around the middle: 4950..=5049.
        let hot = (0..n)
            .filter(|_| (4951..=5050).contains(&r.default_dist(1, 10_000)))
            .count();
        // 75% of draws land in the special range, plus a little Gaussian mass.
        let share = hot as f64 / n as f64;
        assert!(share > 0.70 && share < 0.85, "share {share}");
    }

    #[test]
    fn pareto_and_zipfian_favour_low_values() {
        for kind in [RandType::Pareto, RandType::Zipfian] {
            let mut r = gen(kind);
            let low = (0..50_000)
                .filter(|_| r.default_dist(1, 10_000) <= 1000)
                .count();
            assert!(low > 25_000, "{kind:?}: {low}");
        }
    }

    #[test]
    fn uniform_mean_is_central() {
        let mut r = gen(RandType::Uniform);
        let mean = (0..100_000).map(|_| r.uniform(1, 100) as f64).sum::<f64>() / 100_000.0;
        assert!((mean - 50.5).abs() < 0.5, "{mean}");
    }
}
