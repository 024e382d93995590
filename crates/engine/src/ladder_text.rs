//! A ladder's results as text: the one line after each step and the closing table (the
//! seed report's matrix), as `dbdyno ladder` prints them. sysbench's own layout, for a
//! single command, is [`crate::sysbench_text`].

use crate::StepResult;

/// `oltp_read_only threads=8 tps=812.31 qps=12997.00 p95=11.87ms p99=14.21ms errors=0 ...`
pub fn step_line(r: &StepResult) -> String {
    format!(
        "{} threads={} tps={:.2} qps={:.2} p{}={:.2}ms p99={}ms errors={} reconnects={} client_cpu={:.0}%{}",
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

/// The closing table: a header and one line per step.
pub fn table(rows: &[StepResult]) -> Vec<String> {
    let mut out = vec![format!(
        "{:<24} {:>7} {:>12} {:>12} {:>10} {:>10} {:>8}",
        "scenario", "threads", "tps", "qps", "p95 ms", "p99 ms", "errors"
    )];
    out.extend(rows.iter().map(|r| {
        format!(
            "{:<24} {:>7} {:>12.2} {:>12.2} {:>10} {:>10} {:>8}",
            r.scenario.name(),
            r.threads,
            r.tps(),
            r.qps(),
            opt_ms(r.latency.p95_ms),
            opt_ms(r.latency.p99_ms),
            r.ignored_errors
        )
    }));
    out
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
        let text = include_str!("sysbench_text/fixtures/read_only_no_intervals.txt");
        let parsed = crate::sysbench_text::parse_sysbench_output(text).unwrap();
        let mut r = parsed[0].to_step_result(crate::Scenario::OltpReadOnly);
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
}
