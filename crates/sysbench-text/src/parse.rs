//! Reading sysbench logs back: one text may hold several runs (a shell loop's output
//! appended to one file, prepare and cleanup chatter included).
//!
//! The reader is line-oriented and section-aware: a figure is taken only under the
//! heading sysbench prints it under, so that `avg:` in our own extra blocks or in a
//! pasted comment never overwrites sysbench's. Lines it does not know are skipped,
//! lines it knows with figures it cannot read are errors with their line number.
//!
//! A new run starts at a version line (`sysbench 1.0.20 (...)`, `dbdyno 0.1.0 (...)`),
//! at "Running the test with following options:" after a run's content, or at any run
//! content (an interval, a histogram, a summary) once the previous run is complete or
//! its intervals went back in time.

use super::buckets;
use super::interval::{parse_bracket_line, BracketLine};
use super::numbers::{parse_f64, parse_u64};
use super::run::ParsedRun;
use super::ParseError;

/// Reads every run in a sysbench log (CRLF or LF, any indentation).
/// Errors name the line and what was expected there; text with no run at all is
/// [`ParseError::NoRun`].
pub fn parse_sysbench_output(text: &str) -> Result<Vec<ParsedRun>, ParseError> {
    let mut p = Parser::default();
    for (i, raw) in text.lines().enumerate() {
        p.line(i + 1, without_annotation(raw.trim_end_matches('\r')))?;
    }
    p.finish_run()?;
    if p.runs.is_empty() {
        return Err(ParseError::NoRun);
    }
    Ok(p.runs)
}

/// A figure line annotated after the fact, as articles print them (seed 001:
/// `read: 49552244 // Total number of read requests ...`): the figure without the note.
/// Only " // " after a figure counts, so no line sysbench writes is changed.
pub(super) fn without_annotation(line: &str) -> &str {
    match line.find(" // ") {
        Some(at) => {
            let head = line[..at].trim_end();
            // "label: figure", the figure ending in a digit, "s" (120.0110s) or ")".
            let figure_end = head
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_digit() || c == 's' || c == ')');
            if head.contains(": ") && figure_end {
                head
            } else {
                line
            }
        }
        None => line,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
enum Section {
    #[default]
    None,
    Options,
    Histogram,
    Sql,
    SqlQueries,
    General,
    Latency,
    Fairness,
    /// dbdyno's "Latency percentiles (ms):".
    OurPercentiles,
    /// A heading we do not read (our steady window, a comment block, ...).
    Other,
}

/// Lines seen in the current run, to tell a run's parts from the next run's.
#[derive(Debug, Default)]
struct Seen {
    options: bool,
    sql: Option<usize>,
    general: Option<usize>,
    transactions: bool,
    total_time: bool,
    events: bool,
    fairness_done: bool,
    percentile_line: bool,
}

#[derive(Debug, Default)]
struct Parser {
    runs: Vec<ParsedRun>,
    run: ParsedRun,
    seen: Seen,
    /// The current run has any line at all (a version line counts).
    started: bool,
    section: Section,
}

impl Parser {
    fn has_content(&self) -> bool {
        !self.run.intervals.is_empty()
            || !self.run.histogram.is_empty()
            || self.seen.sql.is_some()
            || self.seen.general.is_some()
    }

    fn has_summary(&self) -> bool {
        self.seen.sql.is_some() || self.seen.general.is_some()
    }

    /// Starts a run at `line_no`, closing the current one first.
    fn new_run(&mut self, line_no: usize) -> Result<(), ParseError> {
        self.finish_run()?;
        self.run.first_line = line_no;
        self.started = true;
        Ok(())
    }

    /// Makes sure a run is open; used before any run content.
    fn ensure_run(&mut self, line_no: usize) {
        if !self.started {
            self.run.first_line = line_no;
            self.started = true;
        }
    }

    fn finish_run(&mut self) -> Result<(), ParseError> {
        let mut run = std::mem::take(&mut self.run);
        let seen = std::mem::take(&mut self.seen);
        self.started = false;
        self.section = Section::None;
        // A run with nothing measured is prepare/cleanup/help output: not a run.
        if run.intervals.is_empty()
            && run.histogram.is_empty()
            && seen.sql.is_none()
            && seen.general.is_none()
        {
            return Ok(());
        }
        if let Some(line) = seen.sql {
            if !seen.transactions {
                return Err(ParseError::Incomplete {
                    line,
                    missing: "transactions:",
                });
            }
        }
        if let Some(line) = seen.general {
            if !seen.total_time {
                return Err(ParseError::Incomplete {
                    line,
                    missing: "total time:",
                });
            }
            if !seen.events {
                return Err(ParseError::Incomplete {
                    line,
                    missing: "total number of events:",
                });
            }
        }
        run.complete = seen.general.is_some();

        // Interval lengths from the printed times: each covers the time since the last.
        let mut prev = 0.0;
        for r in &mut run.intervals {
            r.duration_s = r.elapsed_s - prev;
            prev = r.elapsed_s;
        }
        if !seen.percentile_line {
            run.percentile = run.intervals.first().map_or(95.0, |r| r.percentile);
        }
        if run.threads == 0 {
            run.threads = match run.intervals.last() {
                Some(r) => r.threads,
                // sysbench prints events / threads as the fairness average.
                None if run.fairness.events_avg > 0.0 => {
                    (run.events as f64 / run.fairness.events_avg).round() as u32
                }
                None => 0,
            };
        }
        if run.queries_total == 0 {
            run.queries_total = run.queries.total();
        }
        self.runs.push(run);
        Ok(())
    }

    fn line(&mut self, n: usize, raw: &str) -> Result<(), ParseError> {
        let t = raw.trim();
        if t.is_empty() {
            // A blank line (or sysbench's " ") ends the histogram and the options block.
            if matches!(self.section, Section::Histogram | Section::Options) {
                self.section = Section::None;
            }
            return Ok(());
        }

        if let Some(version_line) = version_line(t) {
            self.new_run(n)?;
            self.run.sysbench_version = version_line
                .strip_prefix("sysbench ")
                .and_then(|v| v.split_whitespace().next())
                .map(|v| v.trim_end_matches(':').to_string());
            self.run.version_line = Some(version_line.to_string());
            return Ok(());
        }
        if t == "Running the test with following options:" {
            if self.seen.options || self.has_content() {
                self.new_run(n)?;
            }
            self.ensure_run(n);
            self.seen.options = true;
            self.section = Section::Options;
            return Ok(());
        }
        if t.starts_with('[') {
            return self.bracket(n, t);
        }
        if self.section == Section::Histogram {
            if buckets::is_column_header(t) {
                return Ok(());
            }
            if t.contains('|') {
                let row = buckets::parse_row(n, t)?;
                self.run.histogram.push(row);
                return Ok(());
            }
            self.section = Section::None;
        }
        if self.heading(n, t)? {
            return Ok(());
        }
        self.figure(n, t)
    }

    fn bracket(&mut self, n: usize, t: &str) -> Result<(), ParseError> {
        let BracketLine::Interval(r) = parse_bracket_line(n, t)? else {
            return Ok(());
        };
        let went_back = self
            .run
            .intervals
            .last()
            .is_some_and(|last| r.elapsed_s <= last.elapsed_s);
        if self.seen.fairness_done || self.has_summary() || went_back {
            self.new_run(n)?;
        }
        self.ensure_run(n);
        self.run.intervals.push(r);
        Ok(())
    }

    /// Section headings. Returns true when `t` was one.
    fn heading(&mut self, n: usize, t: &str) -> Result<bool, ParseError> {
        let section = match t {
            "Latency histogram (values are in milliseconds)" => {
                if self.seen.fairness_done || self.has_summary() || !self.run.histogram.is_empty() {
                    self.new_run(n)?;
                }
                Section::Histogram
            }
            "SQL statistics:" | "OLTP test statistics:" => {
                if self.seen.fairness_done || self.has_summary() {
                    self.new_run(n)?;
                }
                self.ensure_run(n);
                self.seen.sql = Some(n);
                Section::Sql
            }
            "queries performed:" if matches!(self.section, Section::Sql | Section::SqlQueries) => {
                Section::SqlQueries
            }
            "General statistics:" | "Test execution summary:" | "Throughput:" => {
                if self.seen.fairness_done || self.seen.general.is_some() {
                    self.new_run(n)?;
                }
                self.ensure_run(n);
                self.seen.general.get_or_insert(n);
                Section::General
            }
            "Latency (ms):" | "response time:" | "per-request statistics:" => Section::Latency,
            "Threads fairness:" => Section::Fairness,
            "Latency percentiles (ms):" => Section::OurPercentiles,
            // Any other "Heading:" line: its rows are not ours to read.
            _ if t.ends_with(':') && !t[..t.len() - 1].contains(':') && !t.contains("  ") => {
                Section::Other
            }
            _ => return Ok(false),
        };
        self.ensure_run(n);
        self.section = section;
        Ok(true)
    }

    /// "label: value" lines, read according to the section they are in.
    fn figure(&mut self, n: usize, t: &str) -> Result<(), ParseError> {
        if self.option_without_colon(n, t)? {
            return Ok(());
        }
        let Some((label, value)) = t.split_once(':') else {
            return Ok(());
        };
        let f = Figure {
            n,
            t,
            label: label.trim(),
            value: value.trim(),
        };
        match (self.section, f.label) {
            (_, "Number of threads") => {
                let v = f.expect_u64("thread count")?;
                self.run.threads = u32::try_from(v).map_err(|_| f.malformed("a thread count"))?;
            }
            (_, "Target transaction rate") => {
                let v = f.value.trim_end_matches("/sec");
                self.run.rate =
                    Some(parse_f64(v).ok_or_else(|| f.malformed("a rate like '100/sec'"))?);
            }
            (Section::Sql | Section::SqlQueries, _) => self.sql_figure(&f)?,
            (Section::General, "total time" | "time elapsed") => {
                self.run.total_time_s = f.expect_f64("seconds")?;
                self.seen.total_time = true;
            }
            (Section::General, "total number of events") => {
                self.run.events = f.expect_u64("events")?;
                self.seen.events = true;
            }
            (Section::Latency, _) => self.latency_figure(&f)?,
            (Section::Fairness, "events (avg/stddev)") => {
                let fair = &mut self.run.fairness;
                (fair.events_avg, fair.events_stddev) = avg_stddev(n, f.value, t)?;
            }
            (Section::Fairness, "execution time (avg/stddev)") => {
                let fair = &mut self.run.fairness;
                (fair.exec_time_avg_s, fair.exec_time_stddev_s) = avg_stddev(n, f.value, t)?;
                self.seen.fairness_done = true;
            }
            (Section::OurPercentiles, l) => {
                if let Some(p) = l.strip_prefix('p').and_then(parse_f64) {
                    let ms = f.expect_f64("milliseconds")?;
                    self.run.extra_percentiles.push((p, ms));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Option lines that carry no colon. Returns true when `t` was one.
    fn option_without_colon(&mut self, n: usize, t: &str) -> Result<bool, ParseError> {
        if let Some(rest) = t.strip_prefix("Report intermediate results every ") {
            let v = rest.split_whitespace().next().unwrap_or("");
            self.run.report_interval_s = Some(
                parse_u64(v).ok_or_else(|| ParseError::malformed(n, "a number of seconds", t))?,
            );
            return Ok(true);
        }
        if let Some(rest) = t.strip_prefix("Initializing random number generator from seed (") {
            let v = rest.trim_end_matches('.').trim_end_matches(')');
            self.run.seed =
                Some(parse_u64(v).ok_or_else(|| ParseError::malformed(n, "a seed number", t))?);
            return Ok(true);
        }
        Ok(false)
    }

    /// A figure under "SQL statistics:" (and its "queries performed:" block).
    fn sql_figure(&mut self, f: &Figure) -> Result<(), ParseError> {
        if self.section == Section::SqlQueries {
            let slot = match f.label {
                "read" => Some(&mut self.run.queries.read),
                "write" => Some(&mut self.run.queries.write),
                "other" => Some(&mut self.run.queries.other),
                "total" => Some(&mut self.run.queries_total),
                _ => None,
            };
            if let Some(slot) = slot {
                *slot = f.expect_u64("queries")?;
                return Ok(());
            }
        }
        // Any other row ends the "queries performed:" block.
        self.section = Section::Sql;
        let (n, label, value, t) = (f.n, f.label, f.value, f.t);
        match label {
            "transactions" => {
                (self.run.transactions, self.run.transactions_per_sec) =
                    count_per_sec(n, label, value, t)?;
                self.seen.transactions = true;
            }
            "queries" => {
                let (count, ps) = count_per_sec(n, label, value, t)?;
                self.run.queries_per_sec = ps;
                if self.run.queries_total == 0 {
                    self.run.queries_total = count;
                }
            }
            "ignored errors" => {
                (self.run.ignored_errors, self.run.ignored_errors_per_sec) =
                    count_per_sec(n, label, value, t)?
            }
            "reconnects" => {
                (self.run.reconnects, self.run.reconnects_per_sec) =
                    count_per_sec(n, label, value, t)?
            }
            _ => {}
        }
        Ok(())
    }

    /// A figure under "Latency (ms):".
    fn latency_figure(&mut self, f: &Figure) -> Result<(), ParseError> {
        let latency = &mut self.run.latency;
        match f.label {
            "min" => latency.min_ms = f.expect_f64("milliseconds")?,
            "avg" => latency.avg_ms = f.expect_f64("milliseconds")?,
            "max" => latency.max_ms = f.expect_f64("milliseconds")?,
            "sum" => latency.sum_ms = f.expect_f64("milliseconds")?,
            "percentile stats" => {
                self.run.percentile = 0.0;
                self.run.latency.percentile_ms = None;
                self.seen.percentile_line = true;
            }
            // "95th percentile" (1.0) and "approx.  95 percentile" (0.4/0.5).
            l if l.ends_with("percentile") => {
                let p = l
                    .trim_end_matches("percentile")
                    .trim()
                    .trim_start_matches("approx.")
                    .trim()
                    .trim_end_matches("th");
                self.run.percentile = parse_f64(p)
                    .ok_or_else(|| f.malformed("a percentile label like '95th percentile:'"))?;
                self.run.latency.percentile_ms = Some(f.expect_f64("milliseconds")?);
                self.seen.percentile_line = true;
            }
            _ => {}
        }
        Ok(())
    }
}

/// One "label: value" line: where it is, and its two halves trimmed.
struct Figure<'a> {
    n: usize,
    t: &'a str,
    label: &'a str,
    value: &'a str,
}

impl Figure<'_> {
    fn malformed(&self, expected: &str) -> ParseError {
        ParseError::malformed(self.n, expected, self.t)
    }

    fn expect_u64(&self, what: &str) -> Result<u64, ParseError> {
        parse_u64(self.value).ok_or_else(|| {
            ParseError::malformed(
                self.n,
                format!("a whole number after '{}:' ({what})", self.label),
                self.t,
            )
        })
    }

    fn expect_f64(&self, what: &str) -> Result<f64, ParseError> {
        parse_f64(self.value).ok_or_else(|| {
            ParseError::malformed(
                self.n,
                format!("a number after '{}:' ({what})", self.label),
                self.t,
            )
        })
    }
}

/// "sysbench 1.0.20 (using ...)", "sysbench 0.4.12:  multi-threaded ...",
/// "dbdyno 0.1.0 (sysbench-compatible ...)": a tool name and a version number.
fn version_line(t: &str) -> Option<&str> {
    let rest = t
        .strip_prefix("sysbench ")
        .or_else(|| t.strip_prefix("dbdyno "))?;
    rest.chars()
        .next()
        .filter(|c| c.is_ascii_digit())
        .map(|_| t)
}

/// "4615   (76.84 per sec.)"
fn count_per_sec(n: usize, label: &str, value: &str, t: &str) -> Result<(u64, f64), ParseError> {
    let err = || {
        ParseError::malformed(
            n,
            format!("a count and a rate after '{label}:', like '4615   (76.84 per sec.)'"),
            t,
        )
    };
    let (count, rest) = value.split_once('(').ok_or_else(err)?;
    let rate = rest
        .trim()
        .trim_end_matches(')')
        .trim()
        .trim_end_matches("per sec.")
        .trim();
    Ok((
        parse_u64(count).ok_or_else(err)?,
        parse_f64(rate).ok_or_else(err)?,
    ))
}

/// "2307.5000/6.50"
fn avg_stddev(n: usize, value: &str, t: &str) -> Result<(f64, f64), ParseError> {
    let err = || ParseError::malformed(n, "an average and a deviation like '2307.5000/6.50'", t);
    let (a, s) = value.split_once('/').ok_or_else(err)?;
    Ok((parse_f64(a).ok_or_else(err)?, parse_f64(s).ok_or_else(err)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lines_are_recognised() {
        assert!(version_line("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)").is_some());
        assert!(
            version_line("sysbench 0.4.12:  multi-threaded system evaluation benchmark").is_some()
        );
        assert!(
            version_line("dbdyno 0.1.0 (sysbench-compatible, sysbench 1.0.20 output layout)")
                .is_some()
        );
        assert!(version_line("sysbench oltp_read_write run").is_none());
    }

    #[test]
    fn count_and_rate() {
        assert_eq!(
            count_per_sec(1, "transactions", "4615   (76.84 per sec.)", "").unwrap(),
            (4615, 76.84)
        );
        let e = count_per_sec(9, "transactions", "4615", "transactions: 4615").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 9: expected a count and a rate after 'transactions:'"),
            "{e}"
        );
    }

    #[test]
    fn old_0_4_summary_is_read() {
        let text = "\
sysbench 0.4.12:  multi-threaded system evaluation benchmark

Running the test with following options:
Number of threads: 2

OLTP test statistics:
    queries performed:
        read:                            461658
        write:                           0
        other:                           461658
        total:                           923316
    transactions:                        461658 (7694.26 per sec.)
    deadlocks:                           0      (0.00 per sec.)
    read/write requests:                 461658 (7694.26 per sec.)
    other operations:                    461658 (7694.26 per sec.)

Test execution summary:
    total time:                          60.0003s
    total number of events:              461658
    total time taken by event execution: 119.6382
    per-request statistics:
         min:                                  0.17ms
         avg:                                  0.26ms
         max:                                  1.46ms
         approx.  95 percentile:               0.31ms

Threads fairness:
    events (avg/stddev):           230829.0000/359.00
    execution time (avg/stddev):   59.8191/0.00
";
        let runs = parse_sysbench_output(text).unwrap();
        assert_eq!(runs.len(), 1);
        let r = &runs[0];
        assert_eq!(r.sysbench_version.as_deref(), Some("0.4.12"));
        assert_eq!(
            (r.threads, r.transactions, r.transactions_per_sec),
            (2, 461658, 7694.26)
        );
        assert_eq!((r.total_time_s, r.events), (60.0003, 461658));
        assert_eq!(
            (r.latency.min_ms, r.latency.max_ms, r.latency.percentile_ms),
            (0.17, 1.46, Some(0.31))
        );
        assert_eq!(r.percentile, 95.0);
        assert!(r.complete);
    }

    #[test]
    fn summary_without_transactions_is_incomplete() {
        let text = "SQL statistics:\n    queries performed:\n        read: 10\n\nGeneral statistics:\n    total time: 1.0s\n    total number of events: 1\n";
        let e = parse_sysbench_output(text).unwrap_err();
        assert_eq!(
            e,
            ParseError::Incomplete {
                line: 1,
                missing: "transactions:"
            }
        );
        assert!(e.to_string().contains("line 1:"), "{e}");
    }

    #[test]
    fn bad_figure_names_its_line() {
        let text = "General statistics:\n    total time:                          sixty\n";
        let e = parse_sysbench_output(text).unwrap_err();
        assert_eq!(e.to_string(), "line 2: expected a number after 'total time:' (seconds), found 'total time:                          sixty'");
    }

    #[test]
    fn nothing_to_read() {
        assert_eq!(parse_sysbench_output("").unwrap_err(), ParseError::NoRun);
        let prepare =
            "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nCreating table 'sbtest1'...\n";
        assert_eq!(
            parse_sysbench_output(prepare).unwrap_err(),
            ParseError::NoRun
        );
    }

    #[test]
    fn killed_run_keeps_its_intervals() {
        let text = "[ 1s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,95%): 5.00 err/s: 0.00 reconn/s: 0.00\n\
                    [ 2s ] thds: 4 tps: 12.00 qps: 240.00 (r/w/o: 168.00/48.00/24.00) lat (ms,95%): 4.00 err/s: 0.00 reconn/s: 0.00\n\
                    [ 1s ] thds: 8 tps: 20.00 qps: 400.00 (r/w/o: 280.00/80.00/40.00) lat (ms,95%): 6.00 err/s: 0.00 reconn/s: 0.00\n";
        let runs = parse_sysbench_output(text).unwrap();
        assert_eq!(runs.len(), 2, "time going back starts a new run");
        assert!(!runs[0].complete);
        assert_eq!((runs[0].threads, runs[1].threads), (4, 8));
        assert_eq!(runs[0].intervals[1].duration_s, 1.0);
        assert_eq!(runs[1].first_line, 3);
    }
}
