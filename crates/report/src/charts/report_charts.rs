//! The charts of a report: per scenario the dyno curves (QPS and TPS against threads, and
//! tpmC for tpcc), p95 against threads and efficiency (QPS per server CPU %); the
//! per-second timeline of the chosen step (QPS with server CPU and disk); its latency
//! distribution; each trend's TPS run after run with its levels between change points.

use dbdyno_engine::Scenario;

use super::line::{LineChart, Series, Side, XAxis};
use super::{env_colour, Chart};
use crate::format;
use crate::model::timeline::Timeline;
use crate::model::trend::{segment_levels, Trend};
use crate::model::{Cell, Report, ScenarioReport};

#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioCharts {
    pub scenario: Scenario,
    pub qps: Chart,
    pub tps: Chart,
    pub p95: Chart,
    /// `None` when no environment has server CPU figures.
    pub efficiency: Option<Chart>,
    /// The tpmC dyno curve: tpcc only, when its steps have TPC-C figures.
    pub tpmc: Option<Chart>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReportCharts {
    pub scenarios: Vec<ScenarioCharts>,
    /// One per environment that ran the chosen step.
    pub timelines: Vec<Chart>,
    pub latency: Option<Chart>,
    /// One per trend of the report ([`Report::trends`]), in its order.
    pub trends: Vec<Chart>,
}

/// Chart sizes in SVG user units (1 unit = 1 px in HTML, 1 pt before scaling in PDF).
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub small: (f64, f64),
    pub wide: (f64, f64),
}

impl Default for Sizes {
    /// Screen sizes (HTML): charts scale down with the page width.
    fn default() -> Self {
        Sizes {
            small: (460.0, 250.0),
            wide: (940.0, 270.0),
        }
    }
}

impl Sizes {
    /// Print sizes (PDF): close to the size the charts are placed at, so that 9-unit
    /// labels print at about 7.5 pt.
    pub fn print() -> Self {
        Sizes {
            small: (300.0, 185.0),
            wide: (610.0, 200.0),
        }
    }
}

pub fn build(r: &Report, sizes: Sizes) -> ReportCharts {
    ReportCharts {
        scenarios: r
            .scenarios
            .iter()
            .map(|s| scenario_charts(r, s, sizes))
            .collect(),
        timelines: timelines(r, sizes),
        latency: latency(r, sizes),
        trends: r.trends.iter().map(|t| trend_chart(t, sizes)).collect(),
    }
}

/// A trend's TPS run after run (x: the run's place in the series, 1 = oldest), and the
/// level of each segment between change points as a dashed step line: its vertical steps,
/// half-way between two runs, are the change points.
fn trend_chart(t: &Trend, sizes: Sizes) -> Chart {
    let tps: Vec<f64> = t.runs.iter().map(|r| r.tps).collect();
    let levels = segment_levels(&tps, &t.tps_changes);
    let mut level_line = Vec::with_capacity(levels.len() + 2 * t.tps_changes.len());
    for (i, level) in levels.iter().enumerate() {
        let level = level.unwrap_or(f64::NAN);
        let x = i as f64 + 1.0;
        if i > 0 && t.tps_changes.iter().any(|p| p.index == i) {
            let before = levels[i - 1].unwrap_or(f64::NAN);
            level_line.push((x - 0.5, before));
            level_line.push((x - 0.5, level));
        }
        level_line.push((x, level));
    }
    LineChart {
        title: format!("{}: TPS run after run", t.summary),
        x: XAxis::Linear {
            min: 1.0,
            max: (t.runs.len() as f64).max(2.0),
        },
        x_title: "run (1 = oldest)".into(),
        y_title: "TPS".into(),
        y_right_title: None,
        y_max: None,
        series: vec![
            Series {
                name: "TPS".into(),
                colour: env_colour(0),
                points: tps
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i as f64 + 1.0, v))
                    .collect(),
                dashed: false,
                markers: true,
                side: Side::Left,
            },
            Series {
                name: "level between change points".into(),
                colour: env_colour(5),
                points: level_line,
                dashed: true,
                markers: false,
                side: Side::Left,
            },
        ],
        width: sizes.wide.0,
        height: sizes.wide.1,
    }
    .render()
}

/// The name an environment goes by in a legend.
fn env_label(r: &Report, i: usize) -> String {
    let e = &r.envs[i];
    if e.is_baseline && r.envs.len() > 1 {
        format!("{} (baseline)", e.name)
    } else {
        e.name.clone()
    }
}

/// One line per environment that ran the scenario, of one figure against threads.
fn series_by_threads(
    r: &Report,
    s: &ScenarioReport,
    f: &dyn Fn(&Cell) -> Option<f64>,
) -> Vec<Series> {
    s.envs
        .iter()
        .filter(|e| e.cells.iter().any(Option::is_some))
        .map(|e| Series {
            name: env_label(r, e.env),
            colour: env_colour(e.env),
            points: e
                .cells
                .iter()
                .enumerate()
                .map(|(i, c)| (i as f64, c.as_ref().and_then(f).unwrap_or(f64::NAN)))
                .collect(),
            dashed: false,
            markers: true,
            side: Side::Left,
        })
        .collect()
}

fn scenario_charts(r: &Report, s: &ScenarioReport, sizes: Sizes) -> ScenarioCharts {
    let cats = XAxis::Categories(s.threads.iter().map(u32::to_string).collect());
    let chart = |title: String, y: &str, series: Vec<Series>| {
        LineChart {
            title,
            x: cats.clone(),
            x_title: "threads".into(),
            y_title: y.into(),
            y_right_title: None,
            y_max: None,
            series,
            width: sizes.small.0,
            height: sizes.small.1,
        }
        .render()
    };
    let series_of = |f: &dyn Fn(&Cell) -> Option<f64>| series_by_threads(r, s, f);
    let eff = series_of(&|c| c.qps_per_cpu);
    let has_eff = s
        .envs
        .iter()
        .any(|e| e.present().any(|c| c.qps_per_cpu.is_some()));
    ScenarioCharts {
        scenario: s.scenario,
        qps: chart(
            format!("{}: QPS by threads", s.scenario),
            "QPS",
            series_of(&|c| Some(c.qps)),
        ),
        tps: chart(
            format!("{}: TPS by threads", s.scenario),
            "TPS",
            series_of(&|c| Some(c.tps)),
        ),
        p95: chart(
            format!("{}: p95 latency by threads", s.scenario),
            "p95 ms",
            series_of(&|c| c.p95_ms),
        ),
        efficiency: has_eff.then(|| {
            chart(
                format!("{}: QPS per server CPU %", s.scenario),
                "QPS / CPU %",
                eff,
            )
        }),
        tpmc: tpmc_series(r, s)
            .map(|series| chart(format!("{}: tpmC by threads", s.scenario), "tpmC", series)),
    }
}

/// One tpmC line per environment with TPC-C figures, on the scenario's thread axis;
/// `None` for another scenario or without figures.
fn tpmc_series(r: &Report, s: &ScenarioReport) -> Option<Vec<Series>> {
    let t = r.tpcc.as_ref().filter(|_| s.scenario == Scenario::Tpcc)?;
    let series: Vec<Series> = t
        .curves
        .iter()
        .map(|c| Series {
            name: env_label(r, c.env),
            colour: env_colour(c.env),
            points: s
                .threads
                .iter()
                .enumerate()
                .map(|(i, &th)| {
                    let tpmc = t.point(c.env, th).map(|p| p.tpmc);
                    (i as f64, tpmc.unwrap_or(f64::NAN))
                })
                .collect(),
            dashed: false,
            markers: true,
            side: Side::Left,
        })
        .collect();
    (!series.is_empty()).then_some(series)
}

/// One step on each environment: the charts share their axes (QPS and seconds), so that a
/// taller line means more QPS, not a smaller scale.
fn timelines(r: &Report, sizes: Sizes) -> Vec<Chart> {
    let shared_qps = r
        .timeline
        .iter()
        .flat_map(|t| t.points.iter().map(|p| p.qps))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let max_t = r
        .timeline
        .iter()
        .flat_map(|t| {
            t.points
                .iter()
                .map(|p| p.t_s)
                .chain(t.server.iter().map(|p| p.t_s))
        })
        .fold(0.0, f64::max);
    r.timeline
        .iter()
        .map(|t| {
            LineChart {
                title: format!(
                    "{}: {} at {} threads, per second",
                    r.env_name(t.env),
                    t.scenario,
                    t.threads
                ),
                x: XAxis::Linear {
                    min: 0.0,
                    max: max_t.max(1.0),
                },
                x_title: "seconds since the step started".into(),
                y_title: "QPS".into(),
                y_right_title: (!t.server.is_empty()).then(|| "CPU, disk".to_string()),
                y_max: Some(shared_qps),
                series: timeline_series(t),
                width: sizes.wide.0,
                height: sizes.wide.1,
            }
            .render()
        })
        .collect()
}

/// QPS per second, with server CPU and disk on the percent axis when they were sampled.
fn timeline_series(t: &Timeline) -> Vec<Series> {
    let mut series = vec![Series {
        name: "QPS".into(),
        colour: "#0072B2",
        points: t.points.iter().map(|p| (p.t_s, p.qps)).collect(),
        dashed: false,
        markers: false,
        side: Side::Left,
    }];
    if !t.server.is_empty() {
        series.push(Series {
            name: "server CPU %".into(),
            colour: "#D55E00",
            points: t.server.iter().map(|p| (p.t_s, p.cpu_pct)).collect(),
            dashed: false,
            markers: false,
            side: Side::Right,
        });
        series.push(Series {
            name: "disk util %".into(),
            colour: "#009E73",
            points: t.server.iter().map(|p| (p.t_s, p.disk_util_pct)).collect(),
            dashed: true,
            markers: false,
            side: Side::Right,
        });
    }
    series
}

/// The latency distribution of the chosen step, one line per environment, on a log scale
/// of milliseconds.
fn latency(r: &Report, sizes: Sizes) -> Option<Chart> {
    let d = r.latency_distribution.as_ref()?;
    let lo = d
        .series
        .iter()
        .flat_map(|s| s.buckets.first().map(|b| b.lower_ms))
        .fold(f64::INFINITY, f64::min);
    let hi = d
        .series
        .iter()
        .flat_map(|s| s.buckets.last().map(|b| b.upper_ms))
        .fold(0.0, f64::max);
    let chart = LineChart {
        title: format!(
            "Latency distribution: {} at {} threads",
            d.scenario, d.threads
        ),
        x: XAxis::Log {
            min: if lo.is_finite() { lo } else { 0.1 },
            max: hi.max(1.0),
        },
        x_title: "transaction latency, ms (log scale)".into(),
        y_title: "% of transactions".into(),
        y_right_title: None,
        y_max: None,
        series: d
            .series
            .iter()
            .map(|s| Series {
                name: format!("{} (p95 {} ms)", env_label(r, s.env), format::ms(s.p95_ms)),
                colour: env_colour(s.env),
                points: s
                    .buckets
                    .iter()
                    .map(|b| ((b.lower_ms * b.upper_ms).sqrt(), b.share_pct))
                    .collect(),
                dashed: false,
                markers: false,
                side: Side::Left,
            })
            .collect(),
        width: sizes.wide.0,
        height: sizes.wide.1,
    };
    Some(chart.render())
}
