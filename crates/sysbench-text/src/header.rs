//! The block sysbench prints before the workers start (`print_header` and
//! `print_run_mode` in sysbench.c), with our name on the first line.

use super::numbers::whole_or_decimal;

/// Version line, blank line, "Running the test with following options:" and the option
/// lines, ending with the two blank lines sysbench leaves after them.
///
/// `rate` 0 means unlimited and prints no rate line; `report_interval_s` 0 prints no
/// interval line; `seed` 0 means "from current time", as with sysbench's `--rand-seed`.
pub fn format_header(
    tool_version: &str,
    threads: u32,
    report_interval_s: u64,
    rate: f64,
    seed: u64,
) -> String {
    let version = tool_version.trim();
    let name = if version.starts_with("dbdyno") {
        version.to_string()
    } else {
        format!("dbdyno {version}")
    };
    let mut out = String::new();
    // sysbench: "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)" then an empty line.
    out.push_str(&format!(
        "{name} (sysbench-compatible, sysbench 1.0.20 output layout)\n\n"
    ));
    out.push_str("Running the test with following options:\n");
    out.push_str(&format!("Number of threads: {threads}\n"));
    if rate > 0.0 {
        out.push_str(&format!(
            "Target transaction rate: {}/sec\n",
            whole_or_decimal(rate)
        ));
    }
    if report_interval_s > 0 {
        out.push_str(&format!(
            "Report intermediate results every {report_interval_s} second(s)\n"
        ));
    }
    // sysbench's format string ends in "\n" and is followed by an empty log line: two blanks.
    if seed != 0 {
        out.push_str(&format!(
            "Initializing random number generator from seed ({seed}).\n\n\n"
        ));
    } else {
        out.push_str("Initializing random number generator from current time\n\n\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_sysbench_run_mode_block() {
        let real = include_str!("fixtures/point_select_rate_seed_no_percentile.txt");
        let ours = format_header("0.1.0", 1, 1, 200.0, 42);
        let (first, rest) = ours.split_once('\n').unwrap();
        assert!(
            first.starts_with("dbdyno 0.1.0 ") && first.contains("sysbench-compatible"),
            "{first}"
        );
        // Everything after the version line is sysbench's text, byte for byte.
        let real_rest = real.split_once('\n').unwrap().1;
        assert!(
            real_rest.starts_with(rest),
            "ours:\n{rest}\nreal:\n{real_rest}"
        );
    }

    #[test]
    fn optional_lines_follow_the_options() {
        let h = format_header("dbdyno 2.0", 8, 0, 0.0, 0);
        assert!(h.starts_with("dbdyno 2.0 (sysbench-compatible"));
        assert!(!h.contains("Target transaction rate"));
        assert!(!h.contains("Report intermediate"));
        assert!(h.ends_with("Number of threads: 8\nInitializing random number generator from current time\n\n\n"), "{h}");
        assert!(format_header("1", 2, 10, 12.5, 0).contains("Target transaction rate: 12.5/sec\n"));
    }
}
