//! Plain descriptive statistics the estimators share: mean, spread, lag-1 correlation.
//!
//! Every function here is total: empty or constant input gives 0 or `None`, never NaN.

/// The finite values of `values`, in order (a NaN or an infinity says nothing about the
/// figure and would poison every sum).
pub(crate) fn finite(values: &[f64]) -> Vec<f64> {
    values.iter().copied().filter(|v| v.is_finite()).collect()
}

/// Arithmetic mean; 0 for no values.
pub(crate) fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// Sample variance (divisor n − 1), computed around the mean in two passes so that a
/// large level (50,000 TPS) with a small spread keeps its digits; 0 for fewer than 2
/// values.
pub(crate) fn sample_variance(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return 0.0;
    }
    let m = mean(values);
    let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    ss / (values.len() - 1) as f64
}

/// Coefficient of variation of `values` in percent: sample standard deviation over the
/// mean's size. How steady a step's per-second throughput was, in one number that does
/// not depend on the level (3% is calm, 30% is a step that swings). `None` for fewer than
/// 2 finite values or a zero mean; non-finite values are left out.
pub fn coefficient_of_variation_pct(values: &[f64]) -> Option<f64> {
    let values = finite(values);
    let m = mean(&values);
    if values.len() < 2 || m == 0.0 {
        return None;
    }
    let cv = sample_variance(&values).sqrt() / m.abs() * 100.0;
    cv.is_finite().then_some(cv)
}

/// Lag-1 autocorrelation: how much each value resembles the one before it (1: the
/// series moves slowly, 0: no memory). 0 for fewer than 3 values or a constant series,
/// where there is nothing to correlate.
pub(crate) fn lag1_autocorrelation(values: &[f64]) -> f64 {
    if values.len() < 3 {
        return 0.0;
    }
    let m = mean(values);
    let denominator: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    if denominator <= 0.0 {
        return 0.0;
    }
    let numerator: f64 = values.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
    let r = numerator / denominator;
    if r.is_finite() {
        r
    } else {
        0.0
    }
}

/// Median; 0 for no values.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_variance() {
        assert_eq!(mean(&[]), 0.0);
        assert_eq!(mean(&[2.0, 4.0]), 3.0);
        assert_eq!(sample_variance(&[5.0]), 0.0);
        assert!((sample_variance(&[1.0, 2.0, 3.0, 4.0]) - 5.0 / 3.0).abs() < 1e-12);
        // A high level with a small spread keeps its digits.
        let v = [50_000.1, 50_000.2, 50_000.3];
        assert!((sample_variance(&v) - 0.01).abs() < 1e-9);
    }

    #[test]
    fn coefficient_of_variation() {
        let cv = coefficient_of_variation_pct(&[90.0, 100.0, 110.0]).unwrap();
        assert!((cv - 10.0).abs() < 1e-9, "{cv}");
        assert_eq!(coefficient_of_variation_pct(&[]), None);
        assert_eq!(coefficient_of_variation_pct(&[5.0]), None);
        assert_eq!(coefficient_of_variation_pct(&[0.0, 0.0, 0.0]), None);
        assert_eq!(coefficient_of_variation_pct(&[7.0, 7.0, 7.0]), Some(0.0));
        let with_nan = coefficient_of_variation_pct(&[90.0, f64::NAN, 100.0, 110.0]).unwrap();
        assert!((with_nan - 10.0).abs() < 1e-9);
    }

    #[test]
    fn lag1() {
        assert_eq!(lag1_autocorrelation(&[1.0, 2.0]), 0.0);
        assert_eq!(lag1_autocorrelation(&[3.0; 10]), 0.0);
        let alternating: Vec<f64> = (0..20)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        assert!(lag1_autocorrelation(&alternating) < -0.9);
        let ramp: Vec<f64> = (0..20).map(f64::from).collect();
        assert!(lag1_autocorrelation(&ramp) > 0.8);
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
