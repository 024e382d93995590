//! Δ% between two figures with intervals — a baseline and a candidate — with its own
//! 95% interval, by Fieller's method.
//!
//! Δ% = (candidate / baseline − 1) × 100, so its interval is the interval of a ratio of two
//! means. Fieller's method finds every ratio ρ that the data cannot reject: those for which
//! candidate − ρ × baseline is within t standard errors of 0. That is one quadratic
//! inequality in ρ; its roots are the interval's ends.
//!
//! Why Fieller and not the delta method (ρ ± t × ρ √(cv_b² + cv_c²)):
//!
//! - it is exact for a ratio of two normally distributed means instead of a first-order
//!   approximation, and gives the asymmetric interval a ratio really has (a baseline
//!   that could be lower raises the ratio more than one that could be higher lowers it:
//!   a candidate of 100 ± 8 against a baseline of 200 ± 30, as standard errors of 5
//!   values each, reads −66% … −19%, where the delta method says −50% ± 21%);
//! - it says plainly when no finite interval exists: when the baseline's own interval
//!   reaches zero, any ratio is compatible with the data and the result is
//!   [`DeltaRange::Unbounded`], where the delta method would still print a finite,
//!   misleading range;
//! - when both intervals are narrow (the usual case: a few percent), the two agree to a
//!   fraction of a percentage point (a test checks it), so nothing is lost.
//!
//! The two figures come from different runs, so they are independent (no covariance
//! term). Their degrees of freedom differ; the t quantile uses the Welch–Satterthwaite
//! degrees of freedom of candidate − ρ × baseline.
//!
//! Non-goal: paired comparisons (the same seconds measured twice do not exist here).

use serde::{Deserialize, Serialize};

use crate::estimate::{Estimate, Method};
use crate::tdist::{t_critical, CONFIDENCE};
use crate::wording::count;

/// The relative difference between a baseline and a candidate figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Delta {
    /// The two figures compared.
    pub baseline: f64,
    pub candidate: f64,
    /// (candidate / baseline − 1) × 100; `None` when the baseline is 0.
    pub pct: Option<f64>,
    /// How far Δ could be, given both figures' noise.
    pub range: DeltaRange,
}

/// The 95% interval of Δ%, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DeltaRange {
    /// Δ lies between these, in percent (not symmetric around `pct` in general).
    Interval {
        lower_pct: f64,
        upper_pct: f64,
        /// Welch–Satterthwaite degrees of freedom of the t quantile used.
        df: f64,
    },
    /// The data cannot bound Δ: the baseline cannot be told apart from zero.
    Unbounded { reason: String },
    /// One figure has no interval (too short), so Δ has none either.
    Unknown { reason: String },
}

impl Delta {
    /// The interval's ends in percent, when it has finite ones.
    pub fn bounds_pct(&self) -> Option<(f64, f64)> {
        match self.range {
            DeltaRange::Interval {
                lower_pct,
                upper_pct,
                ..
            } => Some((lower_pct, upper_pct)),
            _ => None,
        }
    }

    /// Half the interval's width in percentage points: how far from Δ the truth could
    /// be, and the smallest difference these two figures can tell from none.
    pub fn half_width_pct(&self) -> Option<f64> {
        self.bounds_pct().map(|(lo, hi)| (hi - lo) / 2.0)
    }
}

/// Δ% of `candidate` against `baseline`, with its 95% interval (Fieller's method; see
/// the module documentation). Never NaN: a zero baseline gives `pct: None` and an
/// unbounded range, a figure without an interval an unknown one.
pub fn relative_difference(baseline: &Estimate, candidate: &Estimate) -> Delta {
    let (b, c) = (baseline.mean, candidate.mean);
    let pct = Some((c / b - 1.0) * 100.0).filter(|p| b != 0.0 && p.is_finite());
    let range = match (baseline.interval, candidate.interval) {
        (Some(ib), Some(ic)) if b != 0.0 => fieller(b, ib.std_error, ib.df, c, ic.std_error, ic.df),
        (Some(_), Some(_)) => DeltaRange::Unbounded {
            reason: "the baseline is zero, so a relative difference has no meaning".into(),
        },
        (None, _) => DeltaRange::Unknown {
            reason: format!("the baseline has no interval ({})", why_none(baseline)),
        },
        (_, None) => DeltaRange::Unknown {
            reason: format!("the candidate has no interval ({})", why_none(candidate)),
        },
    };
    Delta {
        baseline: b,
        candidate: c,
        pct,
        range,
    }
}

fn why_none(e: &Estimate) -> String {
    match e.method {
        Method::TooShort { needed } => {
            format!(
                "{}, at least {needed} needed",
                count(e.values as u32, "value")
            )
        }
        _ => e.note.clone(),
    }
}

/// Fieller's interval of c / b as Δ%: the ρ with (c − ρb)² ≤ t²(se_c² + ρ² se_b²).
fn fieller(b: f64, se_b: f64, df_b: f64, c: f64, se_c: f64, df_c: f64) -> DeltaRange {
    let ratio = c / b;
    let (vb, vc) = (se_b * se_b, se_c * se_c);
    let v = vc + ratio * ratio * vb;
    if v == 0.0 {
        // Both figures without spread (constant series): Δ is exactly known.
        let pct = (ratio - 1.0) * 100.0;
        return DeltaRange::Interval {
            lower_pct: pct,
            upper_pct: pct,
            df: df_b.min(df_c),
        };
    }
    let df = v * v / (vc * vc / df_c + ratio.powi(4) * vb * vb / df_b);
    let Some(t) = t_critical(CONFIDENCE, df) else {
        return DeltaRange::Unknown {
            reason: format!("no t quantile for {df} degrees of freedom"),
        };
    };
    let t2 = t * t;
    let a = b * b - t2 * vb;
    if a <= 0.0 {
        return DeltaRange::Unbounded {
            reason: format!(
                "the baseline's interval ({:.4} ± {:.4}) reaches zero, so any ratio fits",
                b,
                t * se_b
            ),
        };
    }
    // The discriminant B² − AC in a form without cancellation; ≥ 0 whenever a > 0.
    let disc = (t2 * (b * b * vc + c * c * vb - t2 * vb * vc)).max(0.0);
    let (lo, hi) = ((b * c - disc.sqrt()) / a, (b * c + disc.sqrt()) / a);
    // Throughput and latency are never negative, so neither is their ratio: a
    // candidate whose own interval reaches zero gives "down by up to 100%", not more.
    let lo = lo.max(0.0);
    DeltaRange::Interval {
        lower_pct: (lo - 1.0) * 100.0,
        upper_pct: (hi - 1.0) * 100.0,
        df,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::Interval;

    pub(crate) fn estimate(mean: f64, std_error: f64, df: f64) -> Estimate {
        Estimate {
            mean,
            interval: Interval::around(mean, std_error, df),
            method: Method::Repeats {
                repeats: df as usize + 1,
            },
            values: df as usize + 1,
            cv_pct: None,
            note: String::new(),
        }
    }

    #[test]
    fn narrow_intervals_agree_with_the_delta_method() {
        let d = relative_difference(&estimate(1000.0, 10.0, 29.0), &estimate(850.0, 10.0, 29.0));
        let pct = d.pct.unwrap();
        assert!((pct + 15.0).abs() < 1e-9);
        let (lo, hi) = d.bounds_pct().unwrap();
        assert!(lo < pct && pct < hi);
        // Delta method: ρ ± t ρ √((se_b/b)² + (se_c/c)²), Welch df for equal df and se.
        let ratio: f64 = 0.85;
        let se = ratio * ((0.01f64).powi(2) + (10.0f64 / 850.0).powi(2)).sqrt();
        let DeltaRange::Interval { df, .. } = d.range else {
            panic!("{d:?}")
        };
        let t = t_critical(0.95, df).unwrap();
        assert!(df > 29.0 && df < 58.0, "{df}");
        assert!(((ratio - t * se - 1.0) * 100.0 - lo).abs() < 0.1, "{lo}");
        assert!(((ratio + t * se - 1.0) * 100.0 - hi).abs() < 0.1, "{hi}");
    }

    #[test]
    fn ends_satisfy_fiellers_equation() {
        let (b, sb, c, sc) = (200.0, 30.0, 100.0, 8.0);
        let d = relative_difference(&estimate(b, sb, 4.0), &estimate(c, sc, 4.0));
        let DeltaRange::Interval {
            lower_pct,
            upper_pct,
            df,
        } = d.range
        else {
            panic!("{d:?}")
        };
        let t = t_critical(0.95, df).unwrap();
        for pct in [lower_pct, upper_pct] {
            let rho = 1.0 + pct / 100.0;
            let lhs = (c - rho * b).powi(2);
            let rhs = t * t * (sc * sc + rho * rho * sb * sb);
            assert!((lhs - rhs).abs() < 1e-6 * rhs, "{lhs} vs {rhs}");
        }
        // Asymmetric: a baseline that could be lower stretches the interval upward.
        assert!(
            upper_pct + 50.0 > -50.0 - lower_pct,
            "{lower_pct} {upper_pct}"
        );
        assert!((lower_pct + 65.9).abs() < 0.5 && (upper_pct + 18.7).abs() < 0.5);
    }

    #[test]
    fn baseline_touching_zero_is_unbounded() {
        let d = relative_difference(&estimate(5.0, 4.0, 4.0), &estimate(100.0, 1.0, 4.0));
        assert!(matches!(d.range, DeltaRange::Unbounded { .. }), "{d:?}");
        assert_eq!(d.half_width_pct(), None);
        assert!(d.pct.is_some());
    }

    #[test]
    fn zero_baseline_and_missing_intervals() {
        let zero = relative_difference(&estimate(0.0, 0.0, 9.0), &estimate(10.0, 1.0, 9.0));
        assert_eq!(zero.pct, None);
        assert!(
            matches!(zero.range, DeltaRange::Unbounded { .. }),
            "{zero:?}"
        );
        let short = Estimate::too_short(&[1.0, 2.0], 10, "too short".into());
        let d = relative_difference(&short, &estimate(10.0, 1.0, 9.0));
        assert!((d.pct.unwrap() - 566.666_666).abs() < 1e-3);
        let DeltaRange::Unknown { reason } = &d.range else {
            panic!("{d:?}")
        };
        assert!(
            reason.contains("baseline") && reason.contains("2 values"),
            "{reason}"
        );
        let d = relative_difference(&estimate(10.0, 1.0, 9.0), &short);
        assert!(matches!(&d.range, DeltaRange::Unknown { reason } if reason.contains("candidate")));
        let empty = Estimate::too_short(&[], 10, String::new());
        let d = relative_difference(&empty, &empty);
        assert_eq!(d.pct, None);
        let json = serde_json::to_string(&d).unwrap();
        assert!(
            !json.contains("NaN") && !json.contains("null,\"range\":null"),
            "{json}"
        );
    }

    #[test]
    fn constant_figures_give_an_exact_delta() {
        let d = relative_difference(&estimate(100.0, 0.0, 9.0), &estimate(110.0, 0.0, 9.0));
        let (lo, hi) = d.bounds_pct().unwrap();
        assert!((lo - 10.0).abs() < 1e-9 && (hi - 10.0).abs() < 1e-9);
        // One side without spread: the other's noise alone sets the width.
        let d = relative_difference(&estimate(100.0, 0.0, 9.0), &estimate(110.0, 2.0, 9.0));
        let DeltaRange::Interval { df, .. } = d.range else {
            panic!("{d:?}")
        };
        assert!((df - 9.0).abs() < 1e-9);
        assert!((d.half_width_pct().unwrap() - 2.2622 * 2.0).abs() < 1e-3);
    }

    #[test]
    fn a_ratio_of_figures_that_cannot_be_negative_is_never_below_minus_100_percent() {
        // A steady baseline against a candidate whose interval reaches down to zero.
        let r = fieller(100.0, 1.0, 30.0, 20.0, 15.0, 30.0);
        let DeltaRange::Interval {
            lower_pct,
            upper_pct,
            ..
        } = r
        else {
            panic!("{r:?}")
        };
        assert!(lower_pct >= -100.0, "{lower_pct}");
        assert!(upper_pct > -80.0 && upper_pct < 0.0, "{upper_pct}");
    }
}
