//! sysbench 1.0.20's text for these tests, line for line: the run header
//! (`print_run_mode` and each test's `print_mode`), interval lines, and the final
//! report (each test's `report_cumulative`, then `sb_report_cumulative`).

use crate::fileio::extra_flags_text;
use crate::histogram::Histogram;
use crate::options::{HwTestOptions, TestOptions};
use crate::result::{
    FileIoMode, FileTestMode, HwTestResult, IntervalFigures, MemoryOper, MemoryScope, TestFigures,
};
use crate::size::format_size;

/// Our first line, where sysbench names itself and its LuaJIT.
pub fn version_line(version: &str) -> String {
    format!("dbdyno {version} (sysbench-compatible, sysbench 1.0.20 output layout)\n\n")
}

/// Everything printed before the first interval line.
pub fn run_header(version: &str, opts: &HwTestOptions) -> String {
    let g = &opts.general;
    let mut out = version_line(version);
    out.push_str("Running the test with following options:\n");
    out.push_str(&format!("Number of threads: {}\n", g.threads));
    if g.report_interval_s > 0 {
        out.push_str(&format!(
            "Report intermediate results every {} second(s)\n",
            g.report_interval_s
        ));
    }
    if g.rand_seed > 0 {
        out.push_str(&format!(
            "Initializing random number generator from seed ({}).\n\n",
            g.rand_seed
        ));
    } else {
        out.push_str("Initializing random number generator from current time\n\n");
    }
    out.push('\n');
    out.push_str(&test_mode_block(opts));
    out.push_str("Initializing worker threads...\n\nThreads started!\n\n");
    out
}

fn test_mode_block(opts: &HwTestOptions) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    match &opts.test {
        TestOptions::FileIo(o) => {
            let file_size = o.file_size();
            line(format!(
                "Extra file open flags: {}",
                extra_flags_text(&o.extra_flags)
            ));
            line(format!(
                "{} files, {}B each",
                o.file_num,
                format_size(file_size)
            ));
            line(format!(
                "{}B total file size",
                format_size(file_size * o.file_num)
            ));
            line(format!("Block size {}B", format_size(o.block_size)));
            if o.merged_requests > 0 {
                line(format!(
                    "Merging requests up to {}B for sequential IO.",
                    format_size(o.request_size())
                ));
            }
            let mode = o.test_mode.unwrap_or(FileTestMode::Seqrd);
            if matches!(
                mode,
                FileTestMode::Rndrd | FileTestMode::Rndwr | FileTestMode::Rndrw
            ) {
                line(format!("Number of IO requests: {}", opts.general.events));
                line(format!(
                    "Read/Write ratio for combined random IO test: {:.2}",
                    o.rw_ratio
                ));
            }
            if o.effective_fsync_freq() > 0 {
                line(format!(
                    "Periodic FSYNC enabled, calling fsync() each {} requests.",
                    o.effective_fsync_freq()
                ));
            }
            if o.effective_fsync_end() {
                line("Calling fsync() at the end of test, Enabled.".into());
            }
            if o.fsync_all {
                line("Calling fsync() after each write operation.".into());
            }
            line(format!("Using {} I/O mode", io_mode_text(o.io_mode)));
            line(format!("Doing {} test", test_mode_text(mode)));
        }
        TestOptions::Cpu(o) => {
            line(format!("Prime numbers limit: {}\n", o.max_prime));
        }
        TestOptions::Memory(o) => {
            line("Running memory speed test with the following options:".into());
            line(format!("  block size: {}KiB", o.block_size / 1024));
            line(format!("  total size: {}MiB", o.total_size / 1024 / 1024));
            line(format!("  operation: {}", oper_text(o.oper)));
            line(format!("  scope: {}", scope_text(o.scope)));
            line(String::new());
        }
    }
    out
}

pub fn io_mode_text(mode: FileIoMode) -> &'static str {
    match mode {
        FileIoMode::Sync => "synchronous",
        FileIoMode::Async => "asynchronous",
        FileIoMode::Mmap => "fast mmaped",
    }
}

pub fn test_mode_text(mode: FileTestMode) -> &'static str {
    match mode {
        FileTestMode::Seqwr => "sequential write (creation)",
        FileTestMode::Seqrewr => "sequential rewrite",
        FileTestMode::Seqrd => "sequential read",
        FileTestMode::Rndrd => "random read",
        FileTestMode::Rndwr => "random write",
        FileTestMode::Rndrw => "random r/w",
    }
}

pub fn oper_text(oper: MemoryOper) -> &'static str {
    match oper {
        MemoryOper::Read => "read",
        MemoryOper::Write => "write",
        MemoryOper::None => "none",
    }
}

pub fn scope_text(scope: MemoryScope) -> &'static str {
    match scope {
        MemoryScope::Global => "global",
        MemoryScope::Local => "local",
    }
}

/// One `--report-interval` line, as the test that made `f` prints it.
pub fn interval_line(f: &IntervalFigures, percentile: u32) -> String {
    let at = format!("[ {}s ] ", f.elapsed_s);
    let pct = f.latency_pct_ms.unwrap_or(0.0);
    if let (Some(r), Some(w), Some(s)) = (f.read_mib_per_s, f.written_mib_per_s, f.fsyncs_per_s) {
        format!("{at}reads: {r:4.2} MiB/s writes: {w:4.2} MiB/s fsyncs: {s:4.2}/s latency (ms,{percentile}%): {pct:4.3}\n")
    } else if let Some(m) = f.mib_per_s {
        format!("{at}{m:4.2} MiB/sec\n")
    } else {
        format!(
            "{at}thds: {} eps: {:4.2} lat (ms,{percentile}%): {pct:4.2}\n",
            f.threads.unwrap_or(0),
            f.events_per_s.unwrap_or(0.0)
        )
    }
}

/// The report after the run: `--histogram`'s block when given, the test's figures,
/// then general statistics, latency and fairness.
pub fn report(r: &HwTestResult, histogram: Option<&Histogram>) -> String {
    let mut out = String::new();
    if let Some(h) = histogram {
        out.push_str(&h.format_block());
    }
    match &r.test {
        TestFigures::FileIo(f) => {
            out.push_str(&format!(
                "\nFile operations:\n    reads/s:                      {:4.2}\n    writes/s:                     {:4.2}\n    fsyncs/s:                     {:4.2}\n\nThroughput:\n    read, MiB/s:                  {:4.2}\n    written, MiB/s:               {:4.2}\n",
                f.reads_per_s, f.writes_per_s, f.fsyncs_per_s, f.read_mib_per_s, f.written_mib_per_s
            ));
        }
        TestFigures::Cpu(c) => {
            out.push_str(&format!(
                "CPU speed:\n    events per second: {:8.2}\n",
                c.events_per_s
            ));
        }
        TestFigures::Memory(m) => {
            out.push_str(&format!(
                "Total operations: {} ({:8.2} per second)\n\n",
                r.total_events, m.operations_per_s
            ));
            if let (Some(mib), Some(rate)) = (m.mib_transferred, m.mib_per_s) {
                out.push_str(&format!(
                    "{mib:4.2} MiB transferred ({rate:4.2} MiB/sec)\n\n"
                ));
            }
        }
    }
    out.push_str(&general_statistics(r));
    out
}

/// `sb_report_cumulative`.
fn general_statistics(r: &HwTestResult) -> String {
    let l = &r.latency;
    let f = &r.fairness;
    let mut out = format!(
        "\nGeneral statistics:\n    total time:                          {:.4}s\n    total number of events:              {}\n\n",
        r.total_time_s, r.total_events
    );
    out.push_str(&format!(
        "Latency (ms):\n         min: {:39.2}\n         avg: {:39.2}\n         max: {:39.2}\n",
        l.min_ms, l.avg_ms, l.max_ms
    ));
    match &l.percentile {
        Some(p) => out.push_str(&format!(
            "        {:3}th percentile: {:27.2}\n",
            p.rank, p.ms
        )),
        None => out.push_str("         percentile stats:               disabled\n"),
    }
    out.push_str(&format!("         sum: {:39.2}\n\n", l.sum_ms));
    out.push_str(&format!(
        "Threads fairness:\n    events (avg/stddev):           {:.4}/{:3.2}\n    execution time (avg/stddev):   {:.4}/{:3.2}\n\n",
        f.events_avg, f.events_stddev, f.execution_time_avg_s, f.execution_time_stddev_s
    ));
    out
}

/// `<test> help`: sysbench's option list with its defaults, and what differs here.
pub fn help(kind: crate::options::TestKind) -> &'static str {
    use crate::options::TestKind;
    match kind {
        TestKind::FileIo => "fileio options:
  --file-num=N                  number of files to create [128]
  --file-block-size=N           block size to use in all IO operations [16384]
  --file-total-size=SIZE        total size of files to create [2G]
  --file-test-mode=STRING       test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}
  --file-io-mode=STRING         file operations mode {sync} [sync] (async and mmap are refused)
  --file-async-backlog=N        number of asynchronous operations to queue per thread [128] (no effect)
  --file-extra-flags=[LIST,...] list of additional flags to use to open files {sync,dsync,direct} []
  --file-fsync-freq=N           do fsync() after this number of requests (0 - don't use fsync()) [100]
  --file-fsync-all[=on|off]     do fsync() after each write operation [off]
  --file-fsync-end[=on|off]     do fsync() at the end of test [on]
  --file-fsync-mode=STRING      which method to use for synchronization {fsync, fdatasync} [fsync]
  --file-merged-requests=N      merge at most this number of IO requests if possible (0 - don't merge) [0]
  --file-rw-ratio=N             reads/writes ratio for combined test [1.5]
  --file-dir=DIR                directory of the test_file.N files (dbdyno's own) [.]
",
        TestKind::Cpu => "cpu options:
  --cpu-max-prime=N upper limit for primes generator [10000]
",
        TestKind::Memory => "memory options:
  --memory-block-size=SIZE    size of memory block for test [1K]
  --memory-total-size=SIZE    total size of data to transfer [100G]
  --memory-scope=STRING       memory access scope {global,local} [global]
  --memory-hugetlb[=on|off]   allocate memory from HugeTLB pool [off] (on is refused)
  --memory-oper=STRING        type of memory operations {read, write, none} [write]
  --memory-access-mode=STRING memory access mode {seq,rnd} [seq]
",
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
