//! A ladder's results as text: the one line after each step and the closing table (the
//! seed report's matrix), as `dbdyno ladder` prints them. sysbench's own layout, for a
//! single command, is the `dbdyno-sysbench-text` crate.

use crate::stats::Spread;
use crate::StepResult;

/// `oltp_read_only threads=8 tps=812.31 qps=12997.00 p95=11.87ms p99=14.21ms errors=0 ...`,
/// with `(repeat 2/3)` after the thread count when the ladder repeats its steps.
pub fn step_line(r: &StepResult) -> String {
    let repeat = r
        .repeat
        .label()
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    format!(
        "{} threads={}{repeat} tps={:.2} qps={:.2} p{}={:.2}ms p99={}ms errors={} reconnects={} client_cpu={:.0}%{}",
        r.scenario,
        r.threads,
        r.tps(),
        r.qps(),
        trim_pct(r.percentile),
        r.latency_pct_ms,
        opt_ms(r.latency.p99_ms),
        r.ignored_errors,
        r.reconnects,
        r.client_cpu.percent_of_machine,
        if r.cancelled { " (cancelled)" } else { "" }
    )
}

/// The lines under [`step_line`]: the 95% intervals of TPS and of the latency
/// percentiles that have a per-second series, the CV, and a line when the step never
/// settled. Empty for a step without per-second records.
///
/// `  tps 812.31 (95% CI 800.10 … 824.52, batch means of 4 s); p95 11.87 ms (95% CI …); cv 2.10%`
pub fn confidence_lines(r: &StepResult) -> Vec<String> {
    let Some(c) = r.confidence_or_computed() else {
        return Vec::new();
    };
    if c.window.len == 0 {
        return Vec::new();
    }
    let mut parts = vec![format!("tps {}", c.phrase(&c.spreads.tps, 2))];
    for (name, spread) in [("p95", &c.spreads.p95), ("p99", &c.spreads.p99)] {
        if let Spread::Estimated(_) = spread {
            parts.push(format!("{name} ms {}", c.phrase(spread, 2)));
        }
    }
    if let Some(cv) = c.cv_pct {
        parts.push(format!("cv {cv:.2}%"));
    }
    let mut out = vec![format!("  {}", parts.join("; "))];
    if let Some(note) = c.unsettled_note() {
        out.push(format!("  {note}"));
    }
    out
}

/// The closing table: a header and one line per step. `±tps` is half the width of the
/// TPS interval in percent, `cv` the coefficient of variation of per-second TPS, and a
/// step that never settled is marked `unsettled`.
pub fn table(rows: &[StepResult]) -> Vec<String> {
    let mut out = vec![format!(
        "{:<24} {:>7} {:>12} {:>12} {:>10} {:>10} {:>8} {:>7} {:>7}",
        "scenario", "threads", "tps", "qps", "p95 ms", "p99 ms", "errors", "±tps %", "cv %"
    )];
    out.extend(rows.iter().map(|r| {
        let c = r.confidence_or_computed();
        let pct = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"));
        let unsettled = match &c {
            Some(c) if c.window.len > 0 && !c.settled => " unsettled",
            _ => "",
        };
        format!(
            "{:<24} {:>7} {:>12.2} {:>12.2} {:>10} {:>10} {:>8} {:>7} {:>7}{unsettled}{}{}",
            r.scenario.name(),
            r.threads,
            r.tps(),
            r.qps(),
            opt_ms(r.latency.p95_ms),
            opt_ms(r.latency.p99_ms),
            r.ignored_errors,
            pct(c.as_ref().and_then(|c| c.spreads.tps.half_width_pct())),
            pct(c.as_ref().and_then(|c| c.cv_pct)),
            open_loop_mark(r),
            r.repeat
                .label()
                .map(|l| format!(" {l}"))
                .unwrap_or_default(),
        )
    }));
    out
}

/// After an open-loop step's row: " open loop at 500/s" (its `threads` are the
/// connections it opened), and " NOT sustained" when the rate was not held.
fn open_loop_mark(r: &StepResult) -> String {
    match &r.open_loop {
        Some(o) if o.sustained => format!(" {}", o.mode()),
        Some(o) => format!(" {} NOT sustained", o.mode()),
        None => String::new(),
    }
}

/// 95 rather than 95.0; 99.9 as it is.
fn trim_pct(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{}", p as u64)
    } else {
        format!("{p}")
    }
}

/// A percentile that may be unknown: "—" rather than a made-up 0.00.
fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{v:.2}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_percentiles_are_dashes_and_whole_percentiles_have_no_decimals() {
        // A sysbench log without p99: what the ladder line says of an unknown figure.
        let mut r = crate::results::test_steps::step("read_only_no_intervals");
        r.latency.p99_ms = None;
        r.percentile = 95.0;
        assert!(step_line(&r).contains(" p95="), "{}", step_line(&r));
        assert!(step_line(&r).contains("p99=—ms"), "{}", step_line(&r));
        r.percentile = 99.9;
        assert!(step_line(&r).contains(" p99.9="), "{}", step_line(&r));
        let t = table(&[r]);
        assert_eq!(t.len(), 2);
        assert!(t[1].contains('—'), "{t:?}");
    }

    #[test]
    fn each_step_shows_its_intervals_and_a_step_without_records_none() {
        // seed 003: six 10 s intervals, too few for an interval but enough for a CV.
        let r = crate::results::test_steps::step("seed_003_oltp_read_write");
        let lines = confidence_lines(&r);
        assert!(
            lines[0].starts_with("  tps 76.84 (no interval: 6 intervals, at least"),
            "{lines:?}"
        );
        assert!(lines[0].contains("; cv "), "{lines:?}");
        let t = table(std::slice::from_ref(&r));
        assert!(t[0].ends_with("±tps %    cv %"), "{t:?}");
        let cv = r.confidence.as_ref().unwrap().cv_pct.unwrap();
        assert!(t[1].contains(&format!("{cv:.2}")), "{t:?}");
        // A log without interval lines: no confidence, and nothing made up.
        let bare = crate::results::test_steps::step("read_only_no_intervals");
        assert_eq!(bare.confidence, None);
        assert!(confidence_lines(&bare).is_empty());
        let t = table(&[bare]);
        assert!(t[1].ends_with("      —       —"), "{t:?}");
    }

    #[test]
    fn a_repeated_step_says_which_repeat_it_was() {
        let mut r = crate::results::test_steps::step("read_only_no_intervals");
        assert!(!step_line(&r).contains("repeat"), "{}", step_line(&r));
        r.repeat = crate::Repeat { number: 2, of: 3 };
        assert!(
            step_line(&r).contains(" (repeat 2/3) tps="),
            "{}",
            step_line(&r)
        );
        let t = table(&[r]);
        assert!(t[1].ends_with(" repeat 2/3"), "{t:?}");
    }
}
