//! Reads sysbench's fileio, cpu and memory output back into a [`HwTestResult`]: ours,
//! sysbench 1.0.x's, and logs whose line breaks were lost (a report pasted into one
//! line, as in many blog posts). Each figure is the number after its label, searched
//! from the section it belongs to, so layout and spacing do not matter; text after a
//! `#` on a line is a reader's comment and is ignored.

use std::collections::BTreeMap;

use crate::result::*;
use crate::size::parse_printed_size;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("no sysbench fileio, cpu or memory report found (expected \"File operations:\", \"CPU speed:\" or \"Total operations:\")")]
    NotAHardwareTest,
    #[error("the report has no \"{0}\" figure")]
    Missing(&'static str),
}

/// Parses the first fileio, cpu or memory report in `text`, with the header and
/// interval lines before it when present.
pub fn parse_sysbench_hwtest(text: &str) -> Result<HwTestResult, ParseError> {
    let text: String = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let (kind, report_at) = [
        ("File operations:", TestKind::FileIo),
        ("CPU speed:", TestKind::Cpu),
        ("Total operations:", TestKind::Memory),
    ]
    .iter()
    .filter_map(|(label, kind)| text.find(label).map(|at| (*kind, at)))
    .min_by_key(|(_, at)| *at)
    .ok_or(ParseError::NotAHardwareTest)?;
    let header = Text(&text[..report_at]);
    let report = Text(&text[report_at..]);
    let general_at = report.0.find("General statistics:").unwrap_or(0);
    let general = Text(&report.0[general_at..]);

    let mut options = BTreeMap::new();
    let test = match kind {
        TestKind::FileIo => TestFigures::FileIo(FileIoResult {
            reads_per_s: report.need("reads/s:")?,
            writes_per_s: report.need("writes/s:")?,
            fsyncs_per_s: report.need("fsyncs/s:")?,
            read_mib_per_s: report.need("read, MiB/s:")?,
            written_mib_per_s: report.need("written, MiB/s:")?,
            setup: fileio_setup(&header, &mut options),
        }),
        TestKind::Cpu => {
            let max_prime = header.number("Prime numbers limit:").map(|n| n as u64);
            if let Some(p) = max_prime {
                options.insert("cpu-max-prime".into(), p.to_string());
            }
            TestFigures::Cpu(CpuResult {
                events_per_s: report.need("events per second:")?,
                max_prime,
            })
        }
        TestKind::Memory => {
            let ops_at = report
                .0
                .find('(')
                .ok_or(ParseError::Missing("Total operations"))?;
            let transferred = report.0.find("MiB transferred").map(|at| {
                let before = &report.0[..at];
                let start = before
                    .trim_end()
                    .rfind(char::is_whitespace)
                    .map_or(0, |i| i + 1);
                (
                    before[start..].trim().parse::<f64>().ok(),
                    Text(&report.0[at..]).number("MiB transferred ("),
                )
            });
            TestFigures::Memory(MemoryResult {
                operations_per_s: Text(&report.0[ops_at..])
                    .number("(")
                    .ok_or(ParseError::Missing("Total operations"))?,
                mib_transferred: transferred.and_then(|t| t.0),
                mib_per_s: transferred.and_then(|t| t.1),
                setup: memory_setup(&header, &mut options),
            })
        }
    };

    let total_events = general.need("total number of events:")? as u64;
    let latency_at = general
        .0
        .find("Latency (ms):")
        .ok_or(ParseError::Missing("Latency (ms):"))?;
    let latency = latency_block(&Text(&general.0[latency_at..]))?;
    let fairness_at = general
        .0
        .find("Threads fairness:")
        .ok_or(ParseError::Missing("Threads fairness:"))?;
    let fair = Text(&general.0[fairness_at..]);
    let (events_avg, events_stddev) = fair.pair("events (avg/stddev):")?;
    let (time_avg, time_stddev) = fair.pair("execution time (avg/stddev):")?;

    let threads = match header.number("Number of threads:") {
        Some(n) => n as u32,
        // A log without its header: the fairness block's average says how many.
        None if events_avg > 0.0 => ((total_events as f64 / events_avg).round() as u32).max(1),
        None => 1,
    };
    options.insert("threads".into(), threads.to_string());
    if let Some(s) = header.number("Report intermediate results every") {
        options.insert("report-interval".into(), (s as u64).to_string());
    }
    if let Some(s) = header.number("random number generator from seed (") {
        options.insert("rand-seed".into(), (s as u64).to_string());
    }
    Ok(HwTestResult {
        test,
        threads,
        total_time_s: general.need("total time:")?,
        total_events,
        latency,
        fairness: Fairness {
            events_avg,
            events_stddev,
            execution_time_avg_s: time_avg,
            execution_time_stddev_s: time_stddev,
        },
        intervals: header.0.lines().filter_map(interval_line).collect(),
        options,
    })
}

#[derive(Clone, Copy)]
enum TestKind {
    FileIo,
    Cpu,
    Memory,
}

fn latency_block(l: &Text) -> Result<LatencySummary, ParseError> {
    let max_end = l.end_of("max:").ok_or(ParseError::Missing("max:"))?;
    let after_max = Text(&l.0[max_end..]);
    let percentile = after_max.0.find("th percentile:").and_then(|at| {
        let rank_text = after_max.0[..at].trim_end();
        let digits_from = rank_text
            .rfind(|c: char| !c.is_ascii_digit())
            .map_or(0, |i| i + 1);
        Some(Percentile {
            rank: rank_text[digits_from..].parse().ok()?,
            ms: Text(&after_max.0[at..]).number("th percentile:")?,
        })
    });
    Ok(LatencySummary {
        min_ms: l.need("min:")?,
        avg_ms: l.need("avg:")?,
        max_ms: l.need("max:")?,
        percentile,
        sum_ms: after_max.need("sum:")?,
    })
}

fn fileio_setup(h: &Text, options: &mut BTreeMap<String, String>) -> Option<FileIoSetup> {
    // "128 files, 16MiB each"
    let each_at = h.0.find("B each")?;
    let line_start = h.0[..each_at].rfind('\n').map_or(0, |i| i + 1);
    let line = &h.0[line_start..each_at + 1];
    let (num, size) = line.split_once(" files, ")?;
    let file_num: u64 = num.trim().parse().ok()?;
    let file_size = parse_printed_size(size)?;
    let total = total_size(h).unwrap_or(file_size * file_num);
    let block = h
        .word_after("Block size ")
        .and_then(|w| parse_printed_size(&w))?;
    let doing = h.rest_of_line("Doing ")?;
    let test_mode = [
        ("sequential write (creation) test", FileTestMode::Seqwr),
        ("sequential rewrite test", FileTestMode::Seqrewr),
        ("sequential read test", FileTestMode::Seqrd),
        ("random read test", FileTestMode::Rndrd),
        ("random write test", FileTestMode::Rndwr),
        ("random r/w test", FileTestMode::Rndrw),
    ]
    .iter()
    .find(|(text, _)| doing.trim() == *text)?
    .1;
    let io_mode = match h.rest_of_line("Using ").as_deref().map(str::trim) {
        Some(m) if m.starts_with("asynchronous") => FileIoMode::Async,
        Some(m) if m.contains("mmaped") => FileIoMode::Mmap,
        _ => FileIoMode::Sync,
    };
    let flags_text = h.rest_of_line("Extra file open flags:").unwrap_or_default();
    let extra_flags = [
        ("sync", FileExtraFlag::Sync),
        ("dsync", FileExtraFlag::Dsync),
        ("directio", FileExtraFlag::Direct),
    ]
    .iter()
    .filter(|(word, _)| flags_text.split_whitespace().any(|w| w == *word))
    .map(|(_, f)| *f)
    .collect();
    let fsync_freq = h.number("calling fsync() each").map_or(0, |n| n as u64);
    let setup = FileIoSetup {
        test_mode,
        io_mode,
        extra_flags,
        file_num,
        file_size_bytes: file_size,
        total_size_bytes: total,
        block_size_bytes: block,
        merged_request_bytes: h
            .word_after("Merging requests up to ")
            .and_then(|w| parse_printed_size(&w)),
        rw_ratio: h.number("Read/Write ratio for combined random IO test:"),
        io_requests: h.number("Number of IO requests:").map(|n| n as u64),
        fsync_freq,
        fsync_end: h.0.contains("Calling fsync() at the end of test, Enabled."),
        fsync_all: h.0.contains("Calling fsync() after each write operation."),
    };
    let test_mode_name = serde_json::to_value(setup.test_mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    options.insert("file-test-mode".into(), test_mode_name);
    options.insert("file-num".into(), file_num.to_string());
    options.insert("file-block-size".into(), block.to_string());
    options.insert("file-total-size".into(), total.to_string());
    options.insert("file-fsync-freq".into(), fsync_freq.to_string());
    Some(setup)
}

fn total_size(h: &Text) -> Option<u64> {
    let at = h.0.find("B total file size")?;
    let start = h.0[..at].rfind('\n').map_or(0, |i| i + 1);
    parse_printed_size(&h.0[start..at + 1])
}

fn memory_setup(h: &Text, options: &mut BTreeMap<String, String>) -> Option<MemorySetup> {
    let block_kib = h.number("block size:")? as u64;
    let total_mib = h.number("total size:")? as u64;
    let oper = match h.word_after("operation: ")?.as_str() {
        "read" => MemoryOper::Read,
        "write" => MemoryOper::Write,
        "none" => MemoryOper::None,
        _ => return None,
    };
    let scope = match h.word_after("scope: ")?.as_str() {
        "global" => MemoryScope::Global,
        "local" => MemoryScope::Local,
        _ => return None,
    };
    options.insert("memory-block-size".into(), format!("{block_kib}K"));
    options.insert("memory-total-size".into(), format!("{total_mib}M"));
    options.insert("memory-oper".into(), crate::text::oper_text(oper).into());
    options.insert("memory-scope".into(), crate::text::scope_text(scope).into());
    Some(MemorySetup {
        block_size_bytes: block_kib * 1024,
        total_size_bytes: total_mib * 1024 * 1024,
        oper,
        scope,
        access_mode: None,
    })
}

/// "[ 10s ] reads: 52.69 MiB/s writes: 35.13 MiB/s fsyncs: 7195.38/s latency (ms,95%): 0.310",
/// "[ 1s ] thds: 2 eps: 342.47 lat (ms,95%): 13.95" or "[ 1s ] 7008.42 MiB/sec".
fn interval_line(line: &str) -> Option<IntervalFigures> {
    let rest = line.trim().strip_prefix('[')?;
    let (at, rest) = rest.split_once("s ]")?;
    let t = Text(rest);
    let pct = t.0.find("%):").and_then(|i| Text(&t.0[i..]).number("%):"));
    let mut f = IntervalFigures {
        elapsed_s: at.trim().parse().ok()?,
        latency_pct_ms: pct,
        ..Default::default()
    };
    if rest.contains("reads:") {
        f.read_mib_per_s = t.number("reads:");
        f.written_mib_per_s = t.number("writes:");
        f.fsyncs_per_s = t.number("fsyncs:");
    } else if rest.contains("thds:") {
        f.threads = t.number("thds:").map(|n| n as u32);
        f.events_per_s = t.number("eps:");
    } else if rest.trim_end().ends_with("MiB/sec") {
        f.mib_per_s = rest.split_whitespace().next()?.parse().ok();
    } else {
        return None;
    }
    Some(f)
}

/// Text searched by label.
struct Text<'a>(&'a str);

impl Text<'_> {
    fn end_of(&self, label: &str) -> Option<usize> {
        self.0.find(label).map(|at| at + label.len())
    }

    /// The number right after the first `label` (units such as `s` after it ignored).
    fn number(&self, label: &str) -> Option<f64> {
        let rest = self.0[self.end_of(label)?..].trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
            .unwrap_or(rest.len());
        rest[..end].trim_end_matches('e').parse().ok()
    }

    fn need(&self, label: &'static str) -> Result<f64, ParseError> {
        self.number(label).ok_or(ParseError::Missing(label))
    }

    /// "287158.3906/763.93" after `label`.
    fn pair(&self, label: &'static str) -> Result<(f64, f64), ParseError> {
        let rest = self.0[self.end_of(label).ok_or(ParseError::Missing(label))?..].trim_start();
        let word = rest.split_whitespace().next().unwrap_or("");
        let (a, b) = word.split_once('/').ok_or(ParseError::Missing(label))?;
        Ok((
            a.parse().map_err(|_| ParseError::Missing(label))?,
            b.parse().map_err(|_| ParseError::Missing(label))?,
        ))
    }

    fn word_after(&self, label: &str) -> Option<String> {
        let rest = &self.0[self.end_of(label)?..];
        rest.split_whitespace().next().map(str::to_string)
    }

    fn rest_of_line(&self, label: &str) -> Option<String> {
        let rest = &self.0[self.end_of(label)?..];
        Some(rest.lines().next().unwrap_or("").to_string())
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
