//! Our text against sysbench 1.0.20's own output for the same options, and our output
//! read back by the parser.

use super::*;
use crate::parse::parse_sysbench_hwtest;
use crate::{options::TestKind, HwTestOptions};

fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn options(kind: TestKind, list: &[(&str, &str)]) -> HwTestOptions {
    let pairs: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    HwTestOptions::from_pairs(kind, &pairs).unwrap()
}

/// sysbench's output without its first line, up to and including "Threads started!".
fn sysbench_header(text: &str) -> &str {
    let start = text.find('\n').unwrap() + 1;
    let end = text.find("Threads started!\n\n").unwrap() + "Threads started!\n\n".len();
    &text[start..end]
}

fn our_header(opts: &HwTestOptions) -> String {
    let h = run_header("0.1.0", opts);
    h[h.find('\n').unwrap() + 1..].to_string()
}

#[test]
fn the_fileio_header_is_sysbenchs() {
    let text = fixture("sysbench_1.0.20_fileio_seqwr_intervals.txt");
    let opts = options(
        TestKind::FileIo,
        &[
            ("file-total-size", "64M"),
            ("file-num", "4"),
            ("file-test-mode", "seqwr"),
            ("time", "3"),
            ("report-interval", "1"),
            ("file-merged-requests", "4"),
            ("file-extra-flags", "dsync"),
            ("threads", "2"),
        ],
    );
    assert_eq!(our_header(&opts), sysbench_header(&text));
}

#[test]
fn the_cpu_and_memory_headers_are_sysbenchs() {
    let cpu = fixture("sysbench_1.0.20_cpu_intervals.txt");
    let opts = options(
        TestKind::Cpu,
        &[
            ("time", "3"),
            ("report-interval", "1"),
            ("threads", "2"),
            ("rand-seed", "7"),
        ],
    );
    assert_eq!(our_header(&opts), sysbench_header(&cpu));
    let memory = fixture("sysbench_1.0.20_memory_none_no_percentile.txt");
    let opts = options(
        TestKind::Memory,
        &[
            ("time", "1"),
            ("memory-oper", "none"),
            ("percentile", "0"),
            ("memory-access-mode", "rnd"),
            ("memory-scope", "local"),
            ("threads", "2"),
        ],
    );
    assert_eq!(our_header(&opts), sysbench_header(&memory));
}

/// sysbench's report from its first figure line to the end.
fn sysbench_report<'a>(text: &'a str, first_label: &str) -> &'a str {
    let at = text.find(first_label).unwrap();
    // fileio's report starts with the blank line before "File operations:".
    let at = if first_label == "File operations:" {
        at - 1
    } else {
        at
    };
    &text[at..]
}

#[test]
fn the_report_prints_sysbenchs_figures_as_sysbench_does() {
    for (name, first) in [
        (
            "sysbench_1.0.20_fileio_seqwr_intervals.txt",
            "File operations:",
        ),
        ("seed_004_fileio_rndrw.txt", "File operations:"),
        ("sysbench_1.0.20_cpu_intervals.txt", "CPU speed:"),
        (
            "sysbench_1.0.20_memory_none_no_percentile.txt",
            "Total operations:",
        ),
    ] {
        let text = fixture(name);
        let parsed = parse_sysbench_hwtest(&text).unwrap();
        let expected = sysbench_report(&text, first);
        // The seed's copy lost sysbench's column alignment; compare its words there.
        if name.starts_with("seed") {
            let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            assert_eq!(words(&report(&parsed, None)), words(expected), "{name}");
        } else {
            assert_eq!(report(&parsed, None), expected, "{name}");
        }
    }
}

#[test]
fn our_own_output_reads_back_to_the_same_figures() {
    let opts = options(
        TestKind::Cpu,
        &[
            ("events", "40"),
            ("time", "0"),
            ("cpu-max-prime", "3000"),
            ("threads", "2"),
        ],
    );
    let out = crate::run(&opts, &|_| {}).unwrap();
    let text = format!(
        "{}{}",
        run_header("0.1.0", &opts),
        report(&out.result, None)
    );
    let parsed = parse_sysbench_hwtest(&text).unwrap();
    assert_eq!(parsed.threads, 2);
    assert_eq!(parsed.total_events, 40);
    assert_eq!(report(&parsed, None), report(&out.result, None));
    let TestFigures::Cpu(c) = parsed.test else {
        panic!()
    };
    assert_eq!(c.max_prime, Some(3000));
}

#[test]
fn interval_lines_read_back() {
    let f = IntervalFigures {
        elapsed_s: 3,
        read_mib_per_s: Some(1.5),
        written_mib_per_s: Some(2.25),
        fsyncs_per_s: Some(10.0),
        latency_pct_ms: Some(0.125),
        ..Default::default()
    };
    let line = interval_line(&f, 95);
    assert_eq!(
        line,
        "[ 3s ] reads: 1.50 MiB/s writes: 2.25 MiB/s fsyncs: 10.00/s latency (ms,95%): 0.125\n"
    );
    let text = format!("{line}CPU speed:\n");
    assert!(parse_sysbench_hwtest(&text).is_err());
}
