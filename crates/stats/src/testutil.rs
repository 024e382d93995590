//! Deterministic random series for the tests: a SplitMix64 generator (a few lines, the
//! same numbers on every platform and version) and AR(1) series.

pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// Uniform in (0, 1), never 0 (so that `ln` is finite).
    pub(crate) fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub(crate) fn normal(&mut self) -> f64 {
        let (a, b) = (self.uniform(), self.uniform());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    }

    /// `n` values of `mean + X_t`, where X_t = phi·X_{t−1} + sigma·e_t starts in its
    /// stationary distribution: a per-second series whose seconds remember `phi` of the
    /// previous one's deviation.
    pub(crate) fn ar1(&mut self, n: usize, mean: f64, phi: f64, sigma: f64) -> Vec<f64> {
        let mut x = sigma * self.normal() / (1.0 - phi * phi).sqrt();
        (0..n)
            .map(|_| {
                x = phi * x + sigma * self.normal();
                mean + x
            })
            .collect()
    }
}
