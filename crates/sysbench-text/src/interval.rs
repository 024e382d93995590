//! One `--report-interval` line, written as sysbench 1.0.20 writes it and read back in
//! the layouts people's logs hold (1.0.x, hand-reformatted `lat(95%):`, 0.5's
//! `threads: 8, tps: ..., response time: 1.23ms (95%)`).

use super::numbers::{parse_f64, parse_u64, whole_or_decimal};
use super::ParseError;
use dbdyno_engine::results::IntervalRecord;

/// `[ 1s ] thds: 8 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 7.43 err/s: 0.00 reconn/s: 0.00`
///
/// sysbench's format: `"[ %.0fs ] "` then `"thds: %u tps: %4.2f qps: %4.2f (r/w/o:
/// %4.2f/%4.2f/%4.2f) lat (ms,%u%%): %4.2f err/s: %4.2f reconn/s: %4.2f"`. `%4.2f` never
/// pads (a figure with two decimals is at least 4 wide), so `{:.2}` is the same.
pub fn format_interval(r: &IntervalRecord) -> String {
    // Queries ran but no split is stored: the line came from a layout without
    // "(r/w/o: ...)" (seed 003's short lines). Leave the split out rather than print zeros.
    let split = if r.qps > 0.0 && r.reads_ps == 0.0 && r.writes_ps == 0.0 && r.other_ps == 0.0 {
        String::new()
    } else {
        format!(
            " (r/w/o: {:.2}/{:.2}/{:.2})",
            r.reads_ps, r.writes_ps, r.other_ps
        )
    };
    format!(
        "[ {:.0}s ] thds: {} tps: {:.2} qps: {:.2}{split} lat (ms,{}%): {:.2} err/s: {:.2} reconn/s: {:.2}",
        r.elapsed_s,
        r.threads,
        r.tps,
        r.qps,
        whole_or_decimal(r.percentile),
        r.latency_ms,
        r.errors_ps,
        r.reconnects_ps
    )
}

/// The line sysbench prints under each interval line when `--rate` is set:
/// `[ 1s ] queue length: 0, concurrency: 1` (`"queue length: %llu, concurrency: %llu"`
/// after the same time stamp). None for a closed-loop interval.
pub fn format_interval_queue(r: &IntervalRecord) -> Option<String> {
    let q = r.open_loop?;
    Some(format!(
        "[ {:.0}s ] queue length: {}, concurrency: {}",
        r.elapsed_s, q.queue, q.concurrency
    ))
}

/// What a line starting with `[ ... ]` turned out to be.
pub(crate) enum BracketLine {
    Interval(IntervalRecord),
    /// `[ 1s ] queue length: 0, concurrency: 0`, `[ 5s ] Checkpoint report:`, or a line
    /// that merely starts with a bracket.
    Other,
}

/// Reads a bracketed line. `duration_s` is left 0 (the caller knows the previous
/// interval) and `end_unix_ms` 0 (logs carry no wall clock).
pub(crate) fn parse_bracket_line(line_no: usize, line: &str) -> Result<BracketLine, ParseError> {
    let Some((elapsed_s, rest)) = stamp_and_rest(line) else {
        return Ok(BracketLine::Other);
    };
    if !(rest.starts_with("thds:") || rest.starts_with("threads:")) {
        return Ok(BracketLine::Other);
    }
    let mut fields = IntervalFields::new(line_no, elapsed_s, rest);
    let mut i = 0;
    while i < fields.toks.len() {
        i += fields.read_field(i)?;
    }
    if !fields.have_threads || !fields.have_rate {
        return Err(ParseError::malformed(
            line_no,
            "an interval line like '[ 10s ] thds: 8 tps: 123.45 qps: ...' with both thds and tps",
            line,
        ));
    }
    // The line prints one percentile: it fills that one's field, never the other's.
    Ok(BracketLine::Interval(
        fields.record.with_carried_percentile(),
    ))
}

/// "[ 10s ] thds: ..." → (10.0, "thds: ..."); None when the bracket holds no time.
fn stamp_and_rest(line: &str) -> Option<(f64, &str)> {
    let (stamp, rest) = line
        .trim()
        .strip_prefix('[')
        .and_then(|s| s.split_once(']'))?;
    let elapsed_s = stamp
        .trim()
        .strip_suffix('s')
        .and_then(|s| s.trim().parse::<f64>().ok())?;
    Some((elapsed_s, rest.trim()))
}

/// The tokens of an interval line after its time stamp, and the record they fill.
struct IntervalFields<'a> {
    line_no: usize,
    toks: Vec<&'a str>,
    record: IntervalRecord,
    have_threads: bool,
    have_rate: bool,
}

impl<'a> IntervalFields<'a> {
    fn new(line_no: usize, elapsed_s: f64, rest: &'a str) -> Self {
        IntervalFields {
            line_no,
            toks: rest.split_whitespace().collect(),
            record: IntervalRecord {
                elapsed_s,
                duration_s: 0.0,
                end_unix_ms: 0,
                threads: 0,
                tps: 0.0,
                qps: 0.0,
                reads_ps: 0.0,
                writes_ps: 0.0,
                other_ps: 0.0,
                latency_ms: 0.0,
                percentile: 0.0,
                p95_ms: None,
                p99_ms: None,
                errors_ps: 0.0,
                reconnects_ps: 0.0,
                open_loop: None,
            },
            have_threads: false,
            have_rate: false,
        }
    }

    fn tok(&self, i: usize) -> &'a str {
        self.toks.get(i).copied().unwrap_or("")
    }

    fn bad(&self, what: &str, found: &str) -> ParseError {
        ParseError::malformed(self.line_no, format!("{what} in the interval line"), found)
    }

    fn num(&self, i: usize, key: &str) -> Result<f64, ParseError> {
        let tok = self.tok(i);
        parse_f64(tok).ok_or_else(|| self.bad(&format!("a number after '{key}'"), tok))
    }

    /// Reads the field whose key is token `i`; returns how many tokens it took.
    fn read_field(&mut self, i: usize) -> Result<usize, ParseError> {
        let key = self.toks[i].trim_end_matches(',');
        let r = match key {
            "thds:" | "threads:" => {
                let tok = self.tok(i + 1);
                self.record.threads = parse_u64(tok)
                    .and_then(|t| u32::try_from(t).ok())
                    .ok_or_else(|| self.bad(&format!("a thread count after '{key}'"), tok))?;
                self.have_threads = true;
                2
            }
            // eps: sysbench's non-OLTP tests count events, which we treat as transactions.
            "tps:" | "eps:" => {
                self.record.tps = self.num(i + 1, key)?;
                self.have_rate = true;
                2
            }
            "qps:" => {
                self.record.qps = self.num(i + 1, key)?;
                2
            }
            "(r/w/o:" => {
                self.read_write_other(self.tok(i + 1))?;
                2
            }
            "reads:" | "reads/s:" => {
                self.record.reads_ps = self.num(i + 1, key)?;
                2
            }
            "writes:" | "writes/s:" => {
                self.record.writes_ps = self.num(i + 1, key)?;
                2
            }
            // sysbench's Lua report_intermediate prints "err/s" without the colon.
            "err/s:" | "err/s" | "errors:" => {
                self.record.errors_ps = self.num(i + 1, key)?;
                2
            }
            "reconn/s:" | "reconnects:" => {
                self.record.reconnects_ps = self.num(i + 1, key)?;
                2
            }
            _ => self.latency(i, key)?,
        };
        Ok(r)
    }

    /// "1.00/2.00/3.00)" after "(r/w/o:".
    fn read_write_other(&mut self, tok: &str) -> Result<(), ParseError> {
        let parts: Vec<Option<f64>> = tok
            .trim_end_matches(')')
            .split('/')
            .map(parse_f64)
            .collect();
        match parts.as_slice() {
            [Some(rd), Some(wr), Some(ot)] => {
                let r = &mut self.record;
                (r.reads_ps, r.writes_ps, r.other_ps) = (*rd, *wr, *ot);
                Ok(())
            }
            _ => Err(self.bad("read/write/other rates like '(r/w/o: 1.00/2.00/3.00)'", tok)),
        }
    }

    /// The latency in each layout's words, or a token to skip (a stray unit, a future
    /// field: not fatal). Returns how many tokens it took.
    fn latency(&mut self, i: usize, key: &str) -> Result<usize, ParseError> {
        match key {
            // 1.0: "lat (ms,95%): 7.43"
            "lat" => {
                let tok = self.tok(i + 1);
                self.record.percentile = percent_in(tok)
                    .ok_or_else(|| self.bad("a percentile like '(ms,95%):' after 'lat'", tok))?;
                self.record.latency_ms = self.num(i + 2, tok)?;
                Ok(3)
            }
            // Reformatted logs: "lat(95%): 272.27", "lat(ms,95%): 7.43".
            k if k.starts_with("lat(") => {
                self.record.percentile =
                    percent_in(k).ok_or_else(|| self.bad("a percentile like 'lat(95%):'", k))?;
                self.record.latency_ms = self.num(i + 1, k)?;
                Ok(2)
            }
            // 0.5: "response time: 10.84ms (95%),"
            "response" if self.toks.get(i + 1) == Some(&"time:") => {
                self.record.latency_ms = self.num(i + 2, "response time:")?;
                let tok = self.tok(i + 3);
                self.record.percentile = percent_in(tok).ok_or_else(|| {
                    self.bad("a percentile like '(95%)' after the response time", tok)
                })?;
                Ok(4)
            }
            _ => Ok(1),
        }
    }
}

/// The percentile inside "(ms,95%):", "lat(99.9%):" or "(95%),".
fn percent_in(tok: &str) -> Option<f64> {
    let before = tok.split('%').next()?;
    let digits = before.rsplit(['(', ',']).next()?;
    digits.trim().parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_line_is_sysbenchs_and_only_under_a_rate() {
        let text = include_str!("fixtures/point_select_rate_seed_no_percentile.txt");
        let parsed = crate::parse_sysbench_output(text).unwrap();
        let mut record = parsed[0].intervals[0].clone();
        assert_eq!(format_interval_queue(&record), None, "closed loop");
        record.open_loop = Some(dbdyno_engine::open_loop::IntervalQueue {
            queue: 0,
            concurrency: 1,
            ..Default::default()
        });
        let line = format_interval_queue(&record).unwrap();
        assert!(
            text.contains(&format!("{line}\n")),
            "sysbench prints {line:?} the same way"
        );
    }

    fn parse(line: &str) -> IntervalRecord {
        match parse_bracket_line(7, line).unwrap() {
            BracketLine::Interval(r) => r,
            BracketLine::Other => panic!("not an interval: {line}"),
        }
    }

    #[test]
    fn writes_sysbench_layout_and_reads_it_back() {
        let line = "[ 1s ] thds: 8 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 7.43 err/s: 0.00 reconn/s: 0.00";
        let r = parse(line);
        assert_eq!(r.threads, 8);
        assert_eq!(r.tps, 1234.56);
        assert_eq!(
            (r.reads_ps, r.writes_ps, r.other_ps),
            (17283.84, 4938.24, 2469.12)
        );
        assert_eq!((r.percentile, r.latency_ms), (95.0, 7.43));
        // The line prints p95 only: p99 stays unknown.
        assert_eq!((r.p95_ms, r.p99_ms), (Some(7.43), None));
        assert_eq!(format_interval(&r), line);
    }

    #[test]
    fn short_layout_without_split_prints_no_made_up_zeros() {
        // Seed 003's section 4.1 prints lines without "(r/w/o: ...)".
        let r = parse("[ 10s ] thds: 2 tps: 23.30  qps: 469.31   lat(95%): 272.27ms");
        assert_eq!((r.tps, r.qps), (23.30, 469.31));
        let s = format_interval(&r);
        assert!(!s.contains("r/w/o"), "{s}");
        assert!(s.contains("qps: 469.31 lat (ms,95%): 272.27"), "{s}");
    }

    #[test]
    fn fractional_percentile_and_rounding_of_elapsed() {
        let mut r = parse("[ 3s ] thds: 1 tps: 1.00 qps: 2.00 (r/w/o: 1.00/1.00/0.00) lat (ms,99%): 0.50 err/s: 0.10 reconn/s: 0.20");
        r.percentile = 99.9;
        r.elapsed_s = 2.9996;
        let s = format_interval(&r);
        assert!(s.starts_with("[ 3s ] thds: 1 "), "{s}");
        assert!(
            s.contains(" lat (ms,99.9%): 0.50 err/s: 0.10 reconn/s: 0.20"),
            "{s}"
        );
        assert_eq!(parse(&s).percentile, 99.9);
    }

    #[test]
    fn reads_seed_003_reformatted_layout() {
        let r = parse("[ 10s ] thds: 2 tps: 23.30  qps: 469.31   (r/w/o: 328.94/93.58/46.79)  lat(95%): 272.27  err/s: 0.00 reconn/s: 0.00");
        assert_eq!(
            (r.elapsed_s, r.threads, r.tps, r.qps),
            (10.0, 2, 23.30, 469.31)
        );
        assert_eq!((r.percentile, r.latency_ms), (95.0, 272.27));
        assert_eq!(r.other_ps, 46.79);
    }

    #[test]
    fn reads_sysbench_0_5_layout() {
        let r = parse("[  10s] threads: 256, tps: 524.19, reads: 7697.05, writes: 2143.56, response time: 1879.46ms (99%), errors: 0.00, reconnects:  0.00");
        assert_eq!(
            (r.threads, r.tps, r.reads_ps, r.writes_ps),
            (256, 524.19, 7697.05, 2143.56)
        );
        assert_eq!((r.percentile, r.latency_ms), (99.0, 1879.46));
        assert_eq!((r.p95_ms, r.p99_ms), (None, Some(1879.46)));
    }

    #[test]
    fn reads_lua_report_without_colon_and_cpu_eps() {
        let r = parse("[ 5s ] thds: 4 tps: 10.00 qps: 20.00 (r/w/o: 10.00/5.00/5.00) lat (ms,95%): 3.00 err/s 1.50 reconn/s: 0.00");
        assert_eq!(r.errors_ps, 1.5);
        let r = parse("[ 1s ] thds: 1 eps: 3700.36 lat (ms,95%): 0.24");
        assert_eq!((r.tps, r.latency_ms), (3700.36, 0.24));
    }

    #[test]
    fn other_bracket_lines_are_not_intervals() {
        for l in [
            "[ 1s ] queue length: 0, concurrency: 0",
            "[ 5s ] Checkpoint report:",
            "[note] hello",
            "[]",
        ] {
            assert!(
                matches!(parse_bracket_line(1, l), Ok(BracketLine::Other)),
                "{l}"
            );
        }
    }

    #[test]
    fn malformed_interval_says_line_and_expectation() {
        let e = parse_bracket_line(12, "[ 1s ] thds: 8 tps: lots qps: 1.00")
            .err()
            .unwrap();
        let msg = e.to_string();
        assert!(
            msg.starts_with("line 12: expected a number after 'tps:'"),
            "{msg}"
        );
        assert!(msg.contains("'lots'"), "{msg}");
        let e = parse_bracket_line(3, "[ 1s ] thds: 8 qps: 1.00")
            .err()
            .unwrap();
        assert!(e.to_string().contains("with both thds and tps"), "{e}");
    }
}
