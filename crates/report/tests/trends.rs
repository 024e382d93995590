//! Trends over a nightly series: where TPS changed level, what `gate` says of the
//! newest run, and the report's "Trends over time" section in HTML (with its chart),
//! Markdown and PDF. The runs are one fixture run repeated a day apart with its
//! transactions scaled, plus a small jitter that repeats every three runs.

mod support;

use dbdyno_report::model::trend::{gate, trends, ChangePointOptions, MIN_RUNS};
use dbdyno_report::render::{html, markdown, pdf};
use dbdyno_report::{build, ReportRun};

const DAY_MS: i64 = 86_400_000;

/// One run per factor, oldest first: the fixture's first run as `nightly`, each step's
/// transactions times the factor and a jitter of −0.3%, 0 or +0.3%.
fn nightly(factors: &[f64]) -> Vec<ReportRun> {
    let base = support::runs("three_envs.json").remove(0);
    factors
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut r = base.clone();
            r.id = (100 + i).to_string();
            r.env_name = "nightly".into();
            r.started_at = base.started_at.map(|t| t + i as i64 * DAY_MS);
            let jitter = 1.0 + 0.003 * ((i % 3) as f64 - 1.0);
            for s in &mut r.steps {
                s.result.transactions = (s.result.transactions as f64 * f * jitter) as u64;
            }
            r
        })
        .collect()
}

fn refs(runs: &[ReportRun]) -> Vec<&ReportRun> {
    runs.iter().collect()
}

#[test]
fn a_drop_after_the_sixth_run_is_one_change_point_in_every_cell() {
    let runs = nightly(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 0.8, 0.8, 0.8]);
    let found = trends(&refs(&runs), MIN_RUNS, &ChangePointOptions::default());
    assert!(!found.is_empty());
    for t in &found {
        let at: Vec<usize> = t.tps_changes.iter().map(|p| p.index).collect();
        assert_eq!(at, [6], "{}: {:?}", t.summary, t.tps_changes);
        let pct = t.tps_changes[0].delta.pct.unwrap();
        assert!((-21.0..-19.0).contains(&pct), "{pct}");
        assert!(t.summary.starts_with("nightly "), "{}", t.summary);
        assert!(t.summary.contains("10 runs"), "{}", t.summary);
        assert!(
            t.changes[0].starts_with("TPS changed at run 7 (id 106, "),
            "{:?}",
            t.changes
        );
    }
    // Fewer runs than a trend needs: no cell.
    assert!(trends(
        &refs(&runs[..MIN_RUNS - 1]),
        MIN_RUNS,
        &ChangePointOptions::default()
    )
    .is_empty());
}

#[test]
fn the_gate_fails_a_newest_run_below_its_level_and_passes_one_within_it() {
    let steady = nightly(&[1.0; 11]);
    let found = trends(&refs(&steady), MIN_RUNS, &ChangePointOptions::default());
    let verdicts = gate(&found, 5.0);
    assert_eq!(verdicts.len(), found.len());
    assert!(
        verdicts.iter().all(|v| !v.regressed() && v.run_id == "110"),
        "{verdicts:#?}"
    );

    let mut factors = [1.0; 11];
    factors[10] = 0.85;
    let dropped = nightly(&factors);
    let found = trends(&refs(&dropped), MIN_RUNS, &ChangePointOptions::default());
    let verdicts = gate(&found, 5.0);
    assert!(verdicts.iter().all(|v| v.tps.regressed), "{verdicts:#?}");
    let reading = verdicts[0].tps.reading(5.0);
    assert!(reading.contains("over the last 10 runs"), "{reading}");
    assert!(
        reading.contains("beyond its 95% interval (threshold 5%)"),
        "{reading}"
    );
    // Within the threshold: a 3% dip is noted nowhere as a regression.
    factors[10] = 0.97;
    let dipped = nightly(&factors);
    let found = trends(&refs(&dipped), MIN_RUNS, &ChangePointOptions::default());
    assert!(gate(&found, 5.0).iter().all(|v| !v.tps.regressed));
}

#[test]
fn the_report_has_a_trend_section_with_a_chart_in_every_format() {
    let runs = nightly(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 0.8, 0.8, 0.8]);
    let r = build(&runs, &support::opts(None)).expect("report model");
    assert!(!r.trends.is_empty());
    let cells = r.trends.len();

    let page = html::render(&r);
    let start = page
        .find("<h3>Trends over time</h3>")
        .expect("HTML section");
    let section = &page[start..start + page[start..].find("</section>").unwrap()];
    assert_eq!(
        section.matches("<figure").count(),
        cells,
        "one chart a cell"
    );
    assert!(section.contains("TPS run after run"));
    assert!(section.contains("level between change points"));
    assert!(section.contains("TPS changed at run 7"));

    let md = markdown::render(&r);
    assert!(md.contains("Trends over time") && md.contains("TPS changed at run 7"));

    let (bytes, warnings) = pdf::render_with_warnings(&r, &pdf::PdfOptions::new(pdf::PageSize::A4))
        .expect("pdf renders");
    assert!(warnings.is_empty(), "printpdf warned: {warnings:#?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trends.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let (text, _) = support::tool("pdftotext", &[path.to_str().unwrap(), "-"]);
    assert!(text.contains("Trends over time"), "{text}");
    assert_eq!(
        text.matches("TPS run after run").count(),
        cells,
        "one chart a cell"
    );

    // Fewer runs of a cell than a trend needs: no section.
    let short = build(&runs[..MIN_RUNS - 1], &support::opts(None)).unwrap();
    assert!(short.trends.is_empty());
    assert!(!html::render(&short).contains("Trends over time"));
}
