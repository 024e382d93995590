//! The Compare screen's view of a [`Report`]: the same figures, deltas (with their 95%
//! intervals), verdicts and sentences `dbdyno_report::build` computed, reshaped into
//! types the page can read (specta). Mapping only: nothing here compares, rounds or judges; the exported
//! PDF / HTML / Markdown / CSV of the same request say the same things.

use dbdyno_report::format;
use dbdyno_report::model::noise::Spread;
use dbdyno_report::model::{
    Cell, Comparison, DeltaRow, EnvScenario, ScenarioReport, Severity, Verdict,
};
use dbdyno_report::Report;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CompareView {
    pub title: String,
    pub threshold_pct: f64,
    /// Latency changes under this many ms never fail a cell.
    pub latency_floor_ms: f64,
    /// Index into `envs` of the reference for Δ% and verdicts (none for one run).
    pub baseline: Option<u32>,
    /// The runs, baseline first, then in the order picked.
    pub envs: Vec<EnvView>,
    /// Totals of the verdicts (none for one run).
    pub verdict: Option<VerdictTotals>,
    pub executive_summary: Vec<String>,
    /// With a latency target (the baseline run's `--sla`): per scenario, "At p95 ≤ 20 ms,
    /// idc sustains 4,210 TPS (48 threads); cloud 3,380 TPS (32 threads): −19.7%
    /// (±2.1%)". Empty without one.
    pub capacity: Vec<String>,
    pub headlines: Vec<String>,
    pub scenarios: Vec<ScenarioView>,
    pub cold_starts: Vec<String>,
    pub warnings: Vec<WarningView>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EnvView {
    /// The history id of the run.
    pub run_id: String,
    /// The environment's name (runs of one environment carry their id: "lab #7").
    pub name: String,
    pub is_baseline: bool,
    pub state: Option<String>,
    /// "2026-05-01 14:00:05 UTC".
    pub started: Option<String>,
    pub steps: u32,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct VerdictTotals {
    /// Cells both runs ran to their end: failed + improved + within noise + not judged.
    pub compared: u32,
    /// Regressed cells (the whole 95% interval of Δ beyond the threshold): they fail the
    /// comparison.
    pub failed: u32,
    pub improved: u32,
    pub within_noise: u32,
    pub not_judged: u32,
    pub missing: u32,
    /// "env scenario at N threads: reasons", one per regressed cell.
    pub failures: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ScenarioView {
    pub scenario: String,
    /// Thread counts any run ran for this scenario, ascending: the curves' x values.
    pub threads: Vec<u32>,
    /// One per run, in `CompareView::envs` order.
    pub envs: Vec<EnvScenarioView>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct EnvScenarioView {
    /// Index into `CompareView::envs`.
    pub env: u32,
    /// Aligned with `ScenarioView::threads`; null where this run did not run it.
    pub cells: Vec<Option<CellView>>,
    /// Against the baseline, aligned with `threads` (none for the baseline itself).
    pub deltas: Option<Vec<DeltaView>>,
    /// The best thread count (the knee, or the top of the ladder while still scaling).
    pub best_threads: Option<u32>,
    pub knee_evidence: String,
    /// "CPU-bound", "IO-bound", "Scaling", …
    pub bottleneck: String,
    pub bottleneck_evidence: String,
    pub advice: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CellView {
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub cpu_pct: Option<f64>,
    pub disk_util_pct: Option<f64>,
    pub cancelled: bool,
    /// The ends of the 95% intervals of TPS and p95 (the dyno curves' error bars); None
    /// without an interval.
    pub tps_interval: Option<ErrorBar>,
    pub p95_interval: Option<ErrorBar>,
}

/// The ends of a figure's 95% interval, in the figure's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, specta::Type)]
pub struct ErrorBar {
    pub lower: f64,
    pub upper: f64,
}

impl ErrorBar {
    fn of(s: &Spread) -> Option<ErrorBar> {
        s.bounds().map(|(lower, upper)| ErrorBar { lower, upper })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum VerdictName {
    Regressed,
    Improved,
    WithinNoise,
    NotJudged,
    Missing,
}

/// The 95% interval of a Δ, in percent of the baseline's figure.
#[derive(Debug, Clone, Copy, Serialize, specta::Type)]
pub struct DeltaRange {
    pub lower_pct: f64,
    pub upper_pct: f64,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct DeltaView {
    pub threads: u32,
    /// Changes in percent of the baseline's figure (+ is more).
    pub tps_pct: Option<f64>,
    pub qps_pct: Option<f64>,
    pub p95_pct: Option<f64>,
    pub p99_pct: Option<f64>,
    pub cpu_pct: Option<f64>,
    /// The 95% intervals of Δ TPS and Δ p95 (none without an interval on both sides).
    pub tps_range: Option<DeltaRange>,
    pub p95_range: Option<DeltaRange>,
    pub verdict: VerdictName,
    /// "REGRESSED", "IMPROVED", "within noise", "not judged" or "n/a", as the reports
    /// write it.
    pub verdict_label: String,
    /// Half the width of the widest Δ interval of TPS and p95: differences under it
    /// cannot be told apart in this cell.
    pub noise_pct: Option<f64>,
    /// Why it regressed, improved or was not judged (empty within noise).
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct WarningView {
    /// True for "numbers may be wrong", false for a note worth knowing.
    pub serious: bool,
    pub text: String,
}

pub fn view(r: &Report) -> CompareView {
    CompareView {
        title: r.title.clone(),
        threshold_pct: r.threshold_pct,
        latency_floor_ms: r.latency_floor_ms,
        baseline: r.baseline.map(|b| b as u32),
        envs: r
            .envs
            .iter()
            .map(|e| EnvView {
                run_id: e.run_id.clone(),
                name: e.name.clone(),
                is_baseline: e.is_baseline,
                state: e.state.clone(),
                started: e.started_at.map(format::datetime),
                steps: e.steps as u32,
            })
            .collect(),
        verdict: r.verdict.as_ref().map(|v| VerdictTotals {
            compared: v.compared as u32,
            failed: v.failed as u32,
            improved: v.improved as u32,
            within_noise: v.within_noise as u32,
            not_judged: v.not_judged as u32,
            missing: v.missing as u32,
            failures: v.failures.clone(),
        }),
        executive_summary: r.executive_summary.clone(),
        capacity: r
            .capacity
            .iter()
            .flat_map(|c| c.scenarios.iter().map(|s| s.sentence.clone()))
            .collect(),
        headlines: r.headlines.clone(),
        scenarios: r.scenarios.iter().map(scenario).collect(),
        cold_starts: r.cold_starts.iter().map(|c| c.sentence.clone()).collect(),
        warnings: r
            .warnings
            .iter()
            .map(|w| WarningView {
                serious: w.severity == Severity::Warning,
                text: w.text.clone(),
            })
            .collect(),
    }
}

fn scenario(s: &ScenarioReport) -> ScenarioView {
    ScenarioView {
        scenario: s.scenario.to_string(),
        threads: s.threads.clone(),
        envs: s
            .envs
            .iter()
            .map(|e| env_scenario(e, s.comparisons.iter().find(|c| c.env == e.env)))
            .collect(),
    }
}

fn env_scenario(e: &EnvScenario, cmp: Option<&Comparison>) -> EnvScenarioView {
    EnvScenarioView {
        env: e.env as u32,
        cells: e.cells.iter().map(|c| c.as_ref().map(cell)).collect(),
        deltas: cmp.map(|c| c.rows.iter().map(delta).collect()),
        best_threads: e.knee.best_threads,
        knee_evidence: e.knee.evidence.clone(),
        bottleneck: e.bottleneck.class.label().to_string(),
        bottleneck_evidence: e.bottleneck.evidence.clone(),
        advice: e.bottleneck.class.advice().to_string(),
    }
}

fn cell(c: &Cell) -> CellView {
    CellView {
        threads: c.threads,
        tps: c.tps,
        qps: c.qps,
        p95_ms: c.p95_ms,
        p99_ms: c.p99_ms,
        cpu_pct: c.cpu_pct,
        disk_util_pct: c.disk_util_pct,
        cancelled: c.cancelled,
        tps_interval: ErrorBar::of(&c.intervals.tps),
        p95_interval: ErrorBar::of(&c.intervals.p95),
    }
}

fn delta(d: &DeltaRow) -> DeltaView {
    let range = |bounds: Option<(f64, f64)>| {
        bounds.map(|(lower_pct, upper_pct)| DeltaRange {
            lower_pct,
            upper_pct,
        })
    };
    let judged = d.judged.as_ref();
    DeltaView {
        threads: d.threads,
        tps_pct: d.tps_pct,
        qps_pct: d.qps_pct,
        p95_pct: d.p95_pct,
        p99_pct: d.p99_pct,
        cpu_pct: d.cpu_pct,
        tps_range: range(judged.and_then(|j| j.tps.delta.bounds_pct())),
        p95_range: range(judged.and_then(|j| j.p95.as_ref()?.delta.bounds_pct())),
        verdict: match d.verdict {
            Verdict::Regressed => VerdictName::Regressed,
            Verdict::Improved => VerdictName::Improved,
            Verdict::WithinNoise => VerdictName::WithinNoise,
            Verdict::NotJudged => VerdictName::NotJudged,
            Verdict::Missing => VerdictName::Missing,
        },
        verdict_label: d.verdict.label().to_string(),
        noise_pct: d.noise_pct,
        reasons: d.reasons.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_report::input::results_doc::runs_from_json;
    use dbdyno_report::{build, ReportOptions};

    /// The report crate's three synthetic environments (idc, 华为云, ali_cloud).
    fn three_envs(baseline: &str, threshold_pct: f64) -> Report {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/report/three_envs.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let runs = runs_from_json(&text, path, "three_envs").expect("runs");
        let opts = ReportOptions {
            baseline: Some(baseline.into()),
            threshold_pct,
            ..ReportOptions::default()
        };
        build(&runs, &opts).expect("report")
    }

    #[test]
    fn the_view_carries_the_reports_figures_deltas_and_verdicts_unchanged() {
        let r = three_envs("华为云", 5.0);
        let v = view(&r);
        assert_eq!(v.envs[0].name, "华为云");
        assert!(v.envs[0].is_baseline && v.baseline == Some(0));
        assert_eq!(v.scenarios.len(), r.scenarios.len());
        let (s, sv) = (&r.scenarios[0], &v.scenarios[0]);
        assert_eq!(sv.threads, s.threads);
        // The baseline has no deltas; every other run has one row per thread count.
        assert!(sv.envs[0].deltas.is_none());
        for (e, ev) in s.envs.iter().zip(&sv.envs).skip(1) {
            let rows = &s.comparisons.iter().find(|c| c.env == e.env).unwrap().rows;
            let deltas = ev.deltas.as_ref().unwrap();
            assert_eq!(deltas.len(), s.threads.len());
            for (d, dv) in rows.iter().zip(deltas) {
                assert_eq!(dv.tps_pct, d.tps_pct);
                assert_eq!(dv.verdict_label, d.verdict.label());
                assert_eq!(dv.noise_pct, d.noise_pct);
                let j = d.judged.as_ref().unwrap();
                assert_eq!(
                    dv.tps_range.map(|r| (r.lower_pct, r.upper_pct)),
                    j.tps.delta.bounds_pct()
                );
            }
            for (c, cv) in e.cells.iter().zip(&ev.cells) {
                assert_eq!(c.as_ref().map(|c| c.tps), cv.as_ref().map(|c| c.tps));
            }
        }
        // Every cell's error bars are its intervals' ends, around its figure.
        let mut bars = 0;
        for (e, ev) in s.envs.iter().zip(&sv.envs) {
            for (c, cv) in e.cells.iter().zip(&ev.cells) {
                let (Some(c), Some(cv)) = (c, cv) else {
                    continue;
                };
                let tps = cv.tps_interval.map(|b| (b.lower, b.upper));
                assert_eq!(tps, c.intervals.tps.bounds());
                let p95 = cv.p95_interval.map(|b| (b.lower, b.upper));
                assert_eq!(p95, c.intervals.p95.bounds());
                if let Some((lower, upper)) = tps {
                    assert!(
                        lower <= cv.tps && cv.tps <= upper,
                        "{lower} {} {upper}",
                        cv.tps
                    );
                    bars += 1;
                }
            }
        }
        assert!(bars > 0, "the fixture's steps have intervals");
        let totals = v.verdict.unwrap();
        let rt = r.verdict.as_ref().unwrap();
        assert_eq!(
            (totals.failed, totals.improved, totals.within_noise),
            (rt.failed as u32, rt.improved as u32, rt.within_noise as u32)
        );
        assert_eq!(v.executive_summary, r.executive_summary);
    }

    #[test]
    fn the_view_carries_the_capacity_at_a_latency_target_and_none_without() {
        assert!(view(&three_envs("idc", 5.0)).capacity.is_empty());
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/report/three_envs.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let runs = runs_from_json(&text, path, "three_envs").expect("runs");
        let opts = ReportOptions {
            baseline: Some("idc".into()),
            sla: Some("p95<=3ms".parse().unwrap()),
            ..ReportOptions::default()
        };
        let r = build(&runs, &opts).expect("report");
        let v = view(&r);
        let sentences: Vec<&String> = r
            .capacity
            .iter()
            .flat_map(|c| c.scenarios.iter().map(|s| &s.sentence))
            .collect();
        assert_eq!(v.capacity.iter().collect::<Vec<_>>(), sentences);
        assert!(
            v.capacity[0].starts_with("At p95 ≤ 3 ms in "),
            "{:?}",
            v.capacity
        );
    }

    #[test]
    fn the_threshold_decides_the_verdicts_the_screen_shows() {
        let failed = |t| view(&three_envs("idc", t)).verdict.unwrap().failed;
        assert!(failed(5.0) > 0, "the fixture regresses against idc at 5%");
        assert_eq!(failed(500.0), 0);
    }
}
