//! Times report rendering: the model, then each format, several times each, and writes
//! the last outputs to a directory so they can be looked at.
//!
//!   cargo run -p dbdyno-report --example report_bench -- \
//!       tests/fixtures/report/three_envs.json --baseline=idc --runs=5 --out=/tmp/report-bench
//!
//! `bench/report_render.sh` runs this on the 3 environments × 4 scenarios × 6 thread counts
//! fixture; docs/benchmarks.md ("Report rendering") records the figures.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use dbdyno_report::input::results_doc::runs_from_json;
use dbdyno_report::render::{csv, html, json, markdown, pdf};
use dbdyno_report::{build, ReportOptions};
use dbdyno_stats::wording::count;

fn main() {
    let mut input = None;
    let mut baseline = None;
    let mut runs = 5usize;
    let mut out = PathBuf::from("/tmp/report-bench");
    let mut page = pdf::PageSize::A4;
    for a in std::env::args().skip(1) {
        if let Some(v) = a.strip_prefix("--baseline=") {
            baseline = Some(v.to_string());
        } else if let Some(v) = a.strip_prefix("--runs=") {
            runs = v.parse().expect("--runs=N");
        } else if let Some(v) = a.strip_prefix("--out=") {
            out = PathBuf::from(v);
        } else if let Some(v) = a.strip_prefix("--page-size=") {
            page = v.parse().expect("--page-size=a4|letter");
        } else {
            input = Some(PathBuf::from(a));
        }
    }
    let input =
        input.expect("usage: report_bench FILE.json [--baseline=ID] [--runs=N] [--out=DIR]");
    let text = std::fs::read_to_string(&input).expect("reading the input");
    let report_runs = runs_from_json(&text, &input.display().to_string(), "run").expect("runs");
    let opts = ReportOptions {
        baseline,
        ..Default::default()
    };
    std::fs::create_dir_all(&out).expect("output directory");

    let mut times: Vec<(&str, Vec<Duration>)> = Vec::new();
    let mut time = |name: &'static str, f: &mut dyn FnMut()| {
        let mut v = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            f();
            v.push(t.elapsed());
        }
        times.push((name, v));
    };
    let mut report = None;
    time("model", &mut || {
        report = Some(build(&report_runs, &opts).expect("model"))
    });
    let report = report.expect("model built");
    let mut bytes = Vec::new();
    time("html", &mut || bytes = html::render(&report).into_bytes());
    std::fs::write(out.join("report.html"), &bytes).expect("write html");
    let popts = pdf::PdfOptions::new(page);
    time("pdf", &mut || {
        bytes = pdf::render(&report, &popts).expect("pdf")
    });
    std::fs::write(out.join("report.pdf"), &bytes).expect("write pdf");
    time("markdown", &mut || {
        bytes = markdown::render(&report).into_bytes()
    });
    std::fs::write(out.join("report.md"), &bytes).expect("write md");
    time("csv", &mut || bytes = csv::render(&report).into_bytes());
    std::fs::write(out.join("report.csv"), &bytes).expect("write csv");
    time("json", &mut || bytes = json::render(&report).into_bytes());
    std::fs::write(out.join("report.json"), &bytes).expect("write json");

    let cells: usize = report
        .scenarios
        .iter()
        .map(|s| s.envs.iter().map(|e| e.present().count()).sum::<usize>())
        .sum();
    println!(
        "{}, {}, {}; {} per format; outputs in {}",
        count(report.envs.len() as u32, "environment"),
        count(report.scenarios.len() as u32, "scenario"),
        count(cells as u32, "cell"),
        count(runs as u32, "run"),
        out.display()
    );
    println!(
        "{:<10} {:>10} {:>10} {:>10}",
        "format", "best ms", "median ms", "worst ms"
    );
    for (name, mut v) in times {
        v.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{:<10} {:>10.1} {:>10.1} {:>10.1}",
            name,
            ms(v[0]),
            ms(v[v.len() / 2]),
            ms(v[v.len() - 1])
        );
    }
}
