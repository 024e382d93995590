//! Student's t quantiles: the multiplier that turns a standard error into an interval.
//!
//! With few batches or repeats the normal 1.96 is too small (5 batches: 2.776, 3 repeats:
//! 4.303), so every interval of this crate uses the t distribution with the estimate's
//! degrees of freedom, fractional ones included (the Welch–Satterthwaite degrees of
//! freedom of a difference, in `delta`). The quantile comes from `statrs` (through the
//! inverse regularised beta function).
//!
//! Non-goal: other distributions; nothing here needs them.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The confidence level of every interval this crate makes.
pub const CONFIDENCE: f64 = 0.95;

/// Degrees of freedom above which t is taken at this value. `statrs` loses precision far
/// beyond it (at 10⁷ it answers 1.83 for the 97.5% quantile instead of 1.96), while at
/// 10⁵ t already equals the normal quantile to four decimals.
const MAX_DF: f64 = 1e5;

/// The `p` quantile of Student's t with `df` degrees of freedom: the value that a t
/// variable stays below with probability `p`. `None` when `p` is not strictly between 0
/// and 1 or `df` is not a positive number.
pub fn t_quantile(p: f64, df: f64) -> Option<f64> {
    // Written so that NaN fails every comparison and lands here.
    let usable = p > 0.0 && p < 1.0 && df > 0.0;
    if !usable {
        return None;
    }
    let dist = StudentsT::new(0.0, 1.0, df.min(MAX_DF)).ok()?;
    let q = dist.inverse_cdf(p);
    q.is_finite().then_some(q)
}

/// The two-sided critical value of a `confidence` interval (0.95 → the 97.5% quantile).
pub fn t_critical(confidence: f64, df: f64) -> Option<f64> {
    let usable = confidence > 0.0 && confidence < 1.0;
    if !usable {
        return None;
    }
    t_quantile(0.5 + confidence / 2.0, df)
}

/// The two-sided p-value of a t statistic with `df` degrees of freedom: how often a t
/// variable lies at least as far from 0. `None` when `t` is not finite or `df` is not a
/// positive number.
pub fn t_two_sided_p(t: f64, df: f64) -> Option<f64> {
    if !t.is_finite() || df.is_nan() || df <= 0.0 {
        return None;
    }
    let dist = StudentsT::new(0.0, 1.0, df.min(MAX_DF)).ok()?;
    Some((2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sided_p_values_match_the_tables() {
        // The 95% and 99% critical values give p = 0.05 and 0.01.
        assert!((t_two_sided_p(2.2622, 9.0).unwrap() - 0.05).abs() < 1e-4);
        assert!((t_two_sided_p(-3.2498, 9.0).unwrap() - 0.01).abs() < 1e-4);
        assert_eq!(t_two_sided_p(0.0, 4.0), Some(1.0));
        assert_eq!(t_two_sided_p(f64::NAN, 4.0), None);
        assert_eq!(t_two_sided_p(1.0, 0.0), None);
    }

    /// Two-sided 95% critical values from printed t tables (4 decimals).
    const TABLE_975: [(f64, f64); 12] = [
        (1.0, 12.7062),
        (2.0, 4.3027),
        (3.0, 3.1824),
        (4.0, 2.7764),
        (5.0, 2.5706),
        (7.0, 2.3646),
        (9.0, 2.2622),
        (14.0, 2.1448),
        (19.0, 2.0930),
        (29.0, 2.0452),
        (60.0, 2.0003),
        (120.0, 1.9799),
    ];

    #[test]
    fn matches_printed_tables() {
        for (df, want) in TABLE_975 {
            let got = t_critical(0.95, df).unwrap();
            assert!((got - want).abs() < 1e-4, "df {df}: {got} vs {want}");
        }
        // One-sided 95% (the 0.95 quantile) and the 99.5% quantile.
        assert!((t_quantile(0.95, 10.0).unwrap() - 1.8125).abs() < 1e-4);
        assert!((t_quantile(0.995, 10.0).unwrap() - 3.1693).abs() < 1e-4);
        // Symmetry.
        assert!((t_quantile(0.025, 9.0).unwrap() + 2.2622).abs() < 1e-4);
    }

    #[test]
    fn fractional_and_huge_degrees_of_freedom() {
        let t = t_critical(0.95, 9.5).unwrap();
        assert!(t < 2.2622 && t > 2.2281, "{t}");
        for df in [1e5, 1e7, 1e12, f64::INFINITY] {
            let t = t_critical(0.95, df).unwrap();
            assert!((t - 1.95996).abs() < 1e-4, "df {df}: {t}");
        }
    }

    #[test]
    fn nonsense_gives_none() {
        assert_eq!(t_quantile(0.0, 5.0), None);
        assert_eq!(t_quantile(1.0, 5.0), None);
        assert_eq!(t_quantile(f64::NAN, 5.0), None);
        assert_eq!(t_quantile(0.9, 0.0), None);
        assert_eq!(t_quantile(0.9, -3.0), None);
        assert_eq!(t_quantile(0.9, f64::NAN), None);
        assert_eq!(t_critical(1.5, 5.0), None);
    }
}
