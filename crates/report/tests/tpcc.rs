//! A tpcc ladder on two environments (`tpcc_two_envs.json`): every format shows the tpmC
//! of each step with its Δ against the baseline, and the per-transaction table; a run
//! without tpcc shows neither.

mod support;

use std::process::Command;

use dbdyno_engine::tpcc::TpccResult;
use dbdyno_report::format::grouped;
use dbdyno_report::render::pdf::{self, PageSize, PdfOptions};
use dbdyno_report::render::{csv, html, json, markdown};
use support::{report, runs};

const FIXTURE: &str = "tpcc_two_envs.json";

/// The fixture's own TPC-C figures of one environment's step, read from the runs.
fn step_tpcc(env: &str, threads: u32) -> TpccResult {
    runs(FIXTURE)
        .into_iter()
        .find(|r| r.id == env)
        .unwrap()
        .steps
        .into_iter()
        .find(|s| s.result.threads == threads)
        .and_then(|s| s.result.tpcc)
        .unwrap()
}

fn delta_pct(threads: u32) -> f64 {
    let (b, a) = (step_tpcc("before", threads), step_tpcc("after", threads));
    (a.tpmc - b.tpmc) / b.tpmc * 100.0
}

#[test]
fn the_model_has_the_curve_the_transactions_and_the_deltas() {
    let r = report(FIXTURE, Some("before"));
    let t = r.tpcc.as_ref().expect("a tpcc section");
    assert_eq!(t.threads, vec![1, 4, 8, 16]);
    assert_eq!(t.curves.len(), 2);
    let after = r.envs.iter().position(|e| e.run_id == "after").unwrap();
    let p = t.point(after, 16).unwrap();
    let want = step_tpcc("after", 16);
    assert_eq!((p.tpmc, p.nopm), (want.tpmc, want.nopm));
    assert!(
        p.nopm < p.tpmc,
        "NOPM leaves the rolled-back New-Orders out"
    );
    assert_eq!(
        t.transactions.len(),
        2 * 4 * 5,
        "2 envs × 4 steps × 5 types"
    );
    let d = t.delta(after, 16).unwrap().delta_pct.unwrap();
    assert!((d - delta_pct(16)).abs() < 1e-9 && d > 10.0, "{d}");
    assert!(t.delta(0, 16).is_none(), "no Δ for the baseline itself");
    assert!(report("seed_000.json", None).tpcc.is_none());
}

#[test]
fn markdown_shows_tpmc_its_delta_and_the_transaction_table() {
    let r = report(FIXTURE, Some("before"));
    let md = markdown::render(&r);
    assert!(md.contains("## TPC-C"), "{md}");
    assert!(md.contains("| Environment | Threads | tpmC | NOPM | Δ tpmC |"));
    let want = step_tpcc("after", 16);
    let section = md
        .split("### tpmC by threads")
        .nth(1)
        .expect("the tpmC table");
    let row = section
        .lines()
        .find(|l| l.starts_with("| after | 16 |"))
        .expect("after@16's tpmC row");
    assert!(
        row.contains(&format!("| {} |", grouped(want.tpmc, 0))),
        "{row}"
    );
    assert!(row.contains(&format!("+{:.1}%", delta_pct(16))), "{row}");
    assert!(md.contains(
        "| Environment | Threads | Transaction | Count | Per second | p95 (ms) | p99 (ms) | Rollbacks | Deadlocks |"
    ));
    let new_order = &want.transactions[0];
    let txn = format!(
        "| after | 16 | New-Order | {} | {:.2} |",
        grouped(new_order.count as f64, 0),
        new_order.per_s
    );
    assert!(md.contains(&txn), "{txn} in\n{md}");
    assert!(!markdown::render(&report("seed_000.json", None)).contains("TPC-C"));
}

#[test]
fn html_has_the_tpmc_curve_and_tables() {
    let r = report(FIXTURE, Some("before"));
    let page = html::render(&r);
    assert!(page.contains("tpcc: tpmC by threads"), "the tpmC chart");
    assert!(page.contains("<h3>TPC-C: tpmC by threads</h3>"));
    assert!(page.contains("<h3>TPC-C: per transaction</h3>"));
    let want = step_tpcc("before", 8);
    assert!(page.contains(&format!("<td class=\"n\">{}</td>", grouped(want.tpmc, 0))));
    assert!(page.contains("<td>Stock-Level</td>"));
    let plain = html::render(&report("seed_000.json", None));
    assert!(!plain.contains("tpmC"));
}

#[test]
fn csv_has_tpmc_on_the_step_and_a_row_per_transaction() {
    let r = report(FIXTURE, Some("before"));
    let text = csv::render(&r);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows.len(),
        2 * 4 * (1 + 5),
        "each step, then its 5 transaction types"
    );
    assert!(rows.iter().all(|r| r.len() == header.len()));
    let of = |env: &str| {
        rows.iter()
            .filter(|r| r[col("environment")] == env && r[col("threads")] == "16")
            .collect::<Vec<_>>()
    };
    let after = of("after");
    let want = step_tpcc("after", 16);
    assert_eq!(after[0][col("tpmc")], format!("{:.4}", want.tpmc));
    assert_eq!(after[0][col("nopm")], format!("{:.4}", want.nopm));
    let d: f64 = after[0][col("delta_tpmc_pct")].parse().unwrap();
    assert!((d - delta_pct(16)).abs() < 1e-3, "{d}");
    assert_eq!(after[1][col("tpcc_transaction")], "New-Order");
    assert_eq!(
        after[1][col("tpcc_rollbacks")],
        want.transactions[0].rolled_back.to_string()
    );
    assert_eq!(after[1][col("tps")], "", "a transaction row is not a step");
    assert_eq!(of("before")[0][col("delta_tpmc_pct")], "");
    let plain = csv::render(&report("seed_000.json", None));
    assert!(!plain.lines().next().unwrap().contains("tpmc"));
}

#[test]
fn json_carries_the_section() {
    let r = report(FIXTURE, Some("before"));
    let back = json::parse(&json::render(&r)).unwrap();
    assert_eq!(back.tpcc, r.tpcc);
    let v: serde_json::Value = serde_json::from_str(&json::render(&r)).unwrap();
    let want = step_tpcc("before", 1);
    assert_eq!(v["tpcc"]["curves"][0]["points"][0]["tpmc"], want.tpmc);
    assert_eq!(v["tpcc"]["transactions"][0]["transaction"], "New-Order");
}

#[test]
fn pdf_shows_tpmc_and_the_transaction_table() {
    let r = report(FIXTURE, Some("before"));
    let bytes = pdf::render(&r, &PdfOptions::new(PageSize::A4)).expect("pdf renders");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tpcc.pdf");
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("pdftotext")
        .args(["-layout", path.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils, bash scripts/deps.sh)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("TPC-C: tpmC by threads"), "{text}");
    let table = text.split("TPC-C: per transaction").nth(1).expect("{text}");
    let want = step_tpcc("after", 16);
    let row = table
        .lines()
        .find(|l| l.contains("after") && l.contains("Delivery") && l.contains(" 16 "))
        .unwrap_or_else(|| panic!("no Delivery row of after@16:\n{table}"));
    assert!(
        row.contains(&grouped(want.transactions[3].count as f64, 0)),
        "{row}"
    );
    assert!(text.contains(&grouped(want.tpmc, 0)), "tpmC of after@16");
}

/// The fixture's runs with `after` made a copy of `before` whose tpmC and NOPM are
/// `factor` times before's: the same TPS second by second, so no step shows a real
/// difference.
fn runs_with_after_as_before_times(factor: f64) -> Vec<dbdyno_report::ReportRun> {
    let all = runs(FIXTURE);
    let before = all.iter().find(|r| r.id == "before").unwrap().clone();
    let mut after = before.clone();
    after.id = "after".into();
    after.env_name = "after".into();
    for s in &mut after.steps {
        let t = s.result.tpcc.as_mut().unwrap();
        t.tpmc *= factor;
        t.nopm *= factor;
    }
    vec![before, after]
}

/// "25,476 tpmC (25,222 NOPM) at 16 threads", from the fixture's own figures.
fn peak_words(env: &str, threads: u32) -> String {
    let t = step_tpcc(env, threads);
    format!(
        "{} tpmC ({} NOPM) at {threads} threads",
        grouped(t.tpmc, 0),
        grouped(t.nopm, 0)
    )
}

#[test]
fn the_executive_summary_names_each_peak_tpmc_and_the_tpmc_delta() {
    let r = report(FIXTURE, Some("before"));
    let peaks = format!(
        "TPC-C peak: before {}; after {}.",
        peak_words("before", 16),
        peak_words("after", 16)
    );
    assert!(
        r.executive_summary.contains(&peaks),
        "{:#?}",
        r.executive_summary
    );
    // Three of the four cells IMPROVED, one within noise (the verdict column): the tpmC
    // sentence gives the improved cells' Δ, and does not count the fourth as a gain.
    let tpcc = r
        .scenarios
        .iter()
        .find(|s| s.scenario == dbdyno_engine::Scenario::Tpcc)
        .unwrap();
    let improved: Vec<u32> = tpcc.comparisons[0]
        .rows
        .iter()
        .filter(|row| row.verdict == dbdyno_report::model::Verdict::Improved)
        .map(|row| row.threads)
        .collect();
    assert_eq!(improved.len(), 3, "{:?}", tpcc.comparisons[0].rows);
    let sizes: Vec<f64> = improved.iter().map(|&t| delta_pct(t)).collect();
    let (lo, hi) = (
        sizes.iter().copied().fold(f64::MAX, f64::min),
        sizes.iter().copied().fold(0.0, f64::max),
    );
    let words = dbdyno_report::format::pct_words;
    let delta = format!(
        "after delivers {}–{} more tpmC than before at 3 of 4 thread counts (IMPROVED; the others within noise).",
        words(lo).trim_end_matches('%'),
        words(hi)
    );
    assert!(
        r.executive_summary.contains(&delta),
        "{delta} in {:#?}",
        r.executive_summary
    );

    // One run: its peak alone, beside the TPS headline.
    let one: Vec<_> = runs(FIXTURE)
        .into_iter()
        .filter(|r| r.id == "after")
        .collect();
    let single = dbdyno_report::build(&one, &support::opts(None)).unwrap();
    let said = format!("TPC-C: peak {}.", peak_words("after", 16));
    assert!(
        single.executive_summary.contains(&said),
        "{:#?}",
        single.executive_summary
    );
    assert!(single
        .executive_summary
        .iter()
        .any(|s| s.starts_with("tpcc: peak")));

    let plain = report("seed_000.json", None);
    assert!(!plain.executive_summary.iter().any(|s| s.contains("tpmC")));
}

#[test]
fn a_tpmc_delta_within_the_tps_noise_cannot_be_told_apart() {
    let build = |factor: f64| {
        dbdyno_report::build(
            &runs_with_after_as_before_times(factor),
            &support::opts(Some("before")),
        )
        .unwrap()
        .executive_summary
    };
    let covered = build(1.04);
    let line = covered
        .iter()
        .find(|s| s.contains("in tpmC"))
        .unwrap_or_else(|| panic!("a tpmC sentence: {covered:#?}"));
    assert!(
        line.starts_with("after and before cannot be told apart in tpmC: +4.0% over 4 thread counts is within the noise (±"),
        "{line}"
    );
    // A tiny difference is within noise in the verdict column, and reads so (there is
    // no "matches" beside the verdicts any more).
    let tiny = build(1.01);
    assert!(
        tiny.iter().any(|s| s.starts_with(
            "after and before cannot be told apart in tpmC: +1.0% over 4 thread counts is within the noise"
        )),
        "{tiny:#?}"
    );
}

#[test]
fn html_and_markdown_summaries_carry_the_tpmc_sentences() {
    let r = report(FIXTURE, Some("before"));
    let peaks = r
        .executive_summary
        .iter()
        .find(|s| s.starts_with("TPC-C peak:"))
        .expect("the peak sentence");
    let md = markdown::render(&r);
    let summary = md
        .split("## Executive summary")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the summary section");
    assert!(summary.contains(&format!("- {peaks}")), "{summary}");
    assert!(summary.contains("more tpmC than before"), "{summary}");
    let page = html::render(&r);
    let summary = page
        .split("<ul class=\"summary\">")
        .nth(1)
        .and_then(|s| s.split("</ul>").next())
        .expect("the summary list");
    assert!(summary.contains(&format!("<li>{peaks}</li>")), "{summary}");
    assert!(summary.contains(&peak_words("after", 16)), "{summary}");
}
