//! Typed claims: what a comparison says about two environments, before it is a sentence.
//!
//! Every sentence that compares two environments (the headlines, the executive summary's
//! deltas, the capacity at a latency target and the TPC-C deltas, and so the PDF cover
//! and the app's Compare screen, which show those same sentences) is rendered from a
//! [`Claim`]: who (the subject against the reference), which figure, its standing
//! (better, worse, mixed, within noise, not judged), its size, and the cells behind it.
//!
//! The standing of a throughput claim is read from the matrix's verdict column: the cells'
//! verdicts, made from the mean of the repeats and the intervals of the steady window.
//! The capacity's claim applies the same noise rule (`dbdyno_stats::judge` at the
//! report's threshold) to the capacity's Δ, made from the same cells. Never from a bare
//! difference, so:
//!
//! - a difference within noise or not judged is never worded as a gain or a loss;
//! - every throughput claim about one pair names the same environment ahead, the one the
//!   verdict column does;
//! - efficiency (TPS per percent of server CPU) is a claim of its own, worded as
//!   efficiency; server CPU has no interval, so it is never judged, and its sentence gives
//!   the two figures without calling either better.

use dbdyno_engine::Scenario;
use dbdyno_stats::{FigureVerdict, Judgement};
use serde::{Deserialize, Serialize};

use super::compare::{Comparison, DeltaRow, Verdict};
use super::ScenarioReport;
use crate::format;

/// What a claim is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimFigure {
    /// TPS at the thread counts both ran: the matrix's cells and verdict column.
    Throughput,
    /// tpmC at the thread counts both ran (tpcc): the same cells and verdicts (the TPS
    /// intervals stand for tpmC's, see `tpcc_summary`).
    Tpmc,
    /// The highest TPS within the latency target (`--sla`).
    Capacity,
    /// TPS per percent of server CPU over the thread counts both ran.
    Efficiency,
}

/// Where the subject stands against the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// Decided beyond the threshold and the noise on the better side (IMPROVED), and
    /// nowhere on the worse one.
    Better,
    /// Decided on the worse side (REGRESSED), and nowhere on the better one.
    Worse,
    /// Better at some thread counts, worse at others.
    Mixed,
    /// Judged, and the difference cannot be told from the noise.
    WithinNoise,
    /// Nothing to judge it by (no interval on a side).
    NotJudged,
}

impl Standing {
    /// Which is ahead: `Some(true)` the subject, `Some(false)` the reference, `None`
    /// neither is named.
    pub fn subject_ahead(self) -> Option<bool> {
        match self {
            Standing::Better => Some(true),
            Standing::Worse => Some(false),
            Standing::Mixed | Standing::WithinNoise | Standing::NotJudged => None,
        }
    }

    /// The standing of one judged figure (a capacity's Δ).
    pub fn of_judgement(j: &Judgement) -> Standing {
        match j.verdict {
            FigureVerdict::Improved => Standing::Better,
            FigureVerdict::Regressed => Standing::Worse,
            FigureVerdict::WithinNoise => Standing::WithinNoise,
            FigureVerdict::NotJudged => Standing::NotJudged,
        }
    }
}

/// How the compared cells of a claim were judged (the verdict column, counted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub compared: usize,
    pub improved: usize,
    pub regressed: usize,
    pub within_noise: usize,
    pub not_judged: usize,
}

impl Tally {
    pub fn of(rows: &[&DeltaRow]) -> Tally {
        let mut t = Tally::default();
        for r in rows {
            match r.verdict {
                Verdict::Missing => continue,
                Verdict::Improved => t.improved += 1,
                Verdict::Regressed => t.regressed += 1,
                Verdict::WithinNoise => t.within_noise += 1,
                Verdict::NotJudged => t.not_judged += 1,
            }
            t.compared += 1;
        }
        t
    }

    /// The standing the counts give: a side is named only where cells were decided.
    pub fn standing(&self) -> Standing {
        match (self.improved > 0, self.regressed > 0) {
            (true, true) => Standing::Mixed,
            (true, false) => Standing::Better,
            (false, true) => Standing::Worse,
            (false, false) if self.within_noise > 0 => Standing::WithinNoise,
            (false, false) => Standing::NotJudged,
        }
    }
}

/// One compared cell behind a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimCell {
    pub threads: u32,
    /// The cell's verdict, as the verdict column prints it.
    pub verdict: Verdict,
    /// Δ of the claim's figure at this thread count, in percent.
    pub delta_pct: Option<f64>,
    /// The cell was decided by the claim's figure itself (TPS for throughput and tpmC),
    /// not only by its p95.
    pub decided_by_figure: bool,
    /// Why it was decided, or not judged (the verdict column's reasons).
    pub reasons: Vec<String>,
}

/// One statement about two environments, before it is words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub figure: ClaimFigure,
    pub scenario: Scenario,
    /// Index into `Report::envs` of the environment the claim is about.
    pub subject: usize,
    /// Index into `Report::envs` of the one it is held against (the baseline).
    pub reference: usize,
    pub standing: Standing,
    /// The subject's figure against the reference's, in percent: for throughput and
    /// tpmC, the geometric mean of the ratios over the compared cells; for the capacity,
    /// the Δ of the two capacities.
    pub delta_pct: Option<f64>,
    /// Half the width of the widest 95% interval of Δ behind the claim, in percentage
    /// points (`None` without one).
    pub noise_pct: Option<f64>,
    /// The two figures (subject, reference): the capacities' TPS, or the efficiencies.
    pub values: Option<(f64, f64)>,
    pub tally: Tally,
    /// The compared cells, ascending by threads (empty for the capacity).
    pub cells: Vec<ClaimCell>,
    /// Why it is not judged, when it is not.
    pub reason: Option<String>,
}

/// Every throughput and efficiency claim of the report's comparisons, scenario by
/// scenario (tpmC's are added by `tpcc_claims`, the capacity's by `capacity`).
pub fn of_scenarios(scenarios: &[ScenarioReport]) -> Vec<Claim> {
    let mut out = Vec::new();
    for s in scenarios {
        for c in &s.comparisons {
            out.extend(throughput(s.scenario, c));
            out.extend(efficiency(s, c));
        }
    }
    out
}

/// The throughput claim of one comparison: its standing from the verdict column, its size
/// the geometric mean of the TPS ratios. `None` when no cell was compared.
pub fn throughput(scenario: Scenario, c: &Comparison) -> Option<Claim> {
    let compared: Vec<&DeltaRow> = c
        .rows
        .iter()
        .filter(|r| r.verdict != Verdict::Missing)
        .collect();
    let tally = Tally::of(&compared);
    if tally.compared == 0 {
        return None;
    }
    let cells: Vec<ClaimCell> = compared
        .iter()
        .map(|r| ClaimCell {
            threads: r.threads,
            verdict: r.verdict,
            delta_pct: r.tps_pct,
            decided_by_figure: tps_decided(r),
            reasons: r.reasons.clone(),
        })
        .collect();
    let noise_pct = compared
        .iter()
        .filter_map(|r| r.judged.as_ref()?.tps.noise_pct)
        .reduce(f64::max);
    let standing = tally.standing();
    Some(Claim {
        figure: ClaimFigure::Throughput,
        scenario,
        subject: c.env,
        reference: c.baseline,
        standing,
        delta_pct: c.tps_ratio.map(|r| (r - 1.0) * 100.0),
        noise_pct,
        values: None,
        tally,
        reason: (standing == Standing::NotJudged)
            .then(|| not_judged_reason(&cells))
            .flatten(),
        cells,
    })
}

/// Whether a decided cell was decided by its TPS (else by its p95 alone).
fn tps_decided(r: &DeltaRow) -> bool {
    let Some(j) = &r.judged else { return false };
    match r.verdict {
        Verdict::Improved => j.tps.verdict == FigureVerdict::Improved,
        Verdict::Regressed => j.tps.verdict == FigureVerdict::Regressed,
        _ => false,
    }
}

fn not_judged_reason(cells: &[ClaimCell]) -> Option<String> {
    cells
        .iter()
        .filter(|c| c.verdict == Verdict::NotJudged)
        .find_map(|c| c.reasons.first().cloned())
}

/// The efficiency claim of one comparison: each side's TPS per percent of server CPU,
/// over the compared cells where both have CPU figures. Never judged: server CPU is an
/// average over the step's samples, without an interval.
pub fn efficiency(s: &ScenarioReport, c: &Comparison) -> Option<Claim> {
    let base = s.envs.iter().find(|e| e.env == c.baseline)?;
    let cand = s.envs.iter().find(|e| e.env == c.env)?;
    let per_cpu = |cell: &super::Cell| match cell.cpu_pct {
        Some(cpu) if cpu >= super::cells::MIN_CPU_FOR_EFFICIENCY => Some(cell.tps / cpu),
        _ => None,
    };
    let pairs: Vec<(u32, f64, f64)> = c
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.verdict != Verdict::Missing)
        .filter_map(|(i, r)| {
            let b = base.cells.get(i)?.as_ref()?;
            let n = cand.cells.get(i)?.as_ref()?;
            Some((r.threads, per_cpu(n)?, per_cpu(b)?))
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let mean = |v: &mut dyn Iterator<Item = f64>| {
        let (sum, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
        sum / n as f64
    };
    let subject = mean(&mut pairs.iter().map(|p| p.1));
    let reference = mean(&mut pairs.iter().map(|p| p.2));
    Some(Claim {
        figure: ClaimFigure::Efficiency,
        scenario: s.scenario,
        subject: c.env,
        reference: c.baseline,
        standing: Standing::NotJudged,
        delta_pct: (reference > 0.0).then(|| (subject / reference - 1.0) * 100.0),
        noise_pct: None,
        values: Some((subject, reference)),
        tally: Tally {
            compared: pairs.len(),
            not_judged: pairs.len(),
            ..Tally::default()
        },
        cells: pairs
            .iter()
            .map(|&(threads, n, b)| ClaimCell {
                threads,
                verdict: Verdict::NotJudged,
                delta_pct: (b > 0.0).then(|| (n / b - 1.0) * 100.0),
                decided_by_figure: false,
                reasons: Vec::new(),
            })
            .collect(),
        reason: Some("server CPU has no interval".into()),
    })
}

impl Claim {
    /// The claim as a sentence (no final full stop), with environments named by `name`.
    pub fn sentence(&self, name: &dyn Fn(usize) -> String) -> String {
        let (s, r) = (name(self.subject), name(self.reference));
        match self.figure {
            ClaimFigure::Throughput => self.comparative(&s, &r, "TPS", true),
            ClaimFigure::Tpmc => self.comparative(&s, &r, "tpmC", false),
            ClaimFigure::Efficiency => self.efficiency_words(&s, &r),
            ClaimFigure::Capacity => format!("{s} against {r}: {}", self.capacity_delta()),
        }
    }

    /// "at 8 threads" for one compared cell, "over 6 thread counts" for several.
    fn over(&self) -> String {
        match self.cells.as_slice() {
            [one] => format!("at {} threads", one.threads),
            _ => format!("over {} thread counts", self.tally.compared),
        }
    }

    /// The throughput (or tpmC) sentence: who is ahead only where the verdict column
    /// says so, with the Δ of the cells that decided it.
    fn comparative(&self, s: &str, r: &str, noun: &str, name_scenario: bool) -> String {
        let sc = self.scenario;
        let in_scenario = if name_scenario {
            format!(" in {sc}")
        } else {
            format!(" in {noun}")
        };
        let what = if name_scenario {
            format!("{sc} {noun}")
        } else {
            noun.to_string()
        };
        let delta = self
            .delta_pct
            .map(format::delta_pct)
            .unwrap_or_else(|| "—".into());
        match self.standing {
            Standing::Better | Standing::Worse => {
                let better = self.standing == Standing::Better;
                let decided: Vec<&ClaimCell> = self
                    .cells
                    .iter()
                    .filter(|c| c.verdict == if better { Verdict::Improved } else { Verdict::Regressed })
                    .collect();
                let word = if better { "more" } else { "less" };
                let label = if better { "IMPROVED" } else { "REGRESSED" };
                let by_figure = decided.iter().all(|c| c.decided_by_figure);
                let all = decided.len() == self.tally.compared;
                if by_figure && all {
                    // Every cell decided, each by its TPS: the geometric mean has their sign.
                    let d = self.delta_pct.unwrap_or(0.0);
                    format!(
                        "{s} delivers {} {word} {what} than {r} ({})",
                        format::pct_words(d),
                        self.over()
                    )
                } else if by_figure {
                    let sizes: Vec<f64> = decided.iter().filter_map(|c| c.delta_pct).collect();
                    let lo = sizes.iter().copied().map(f64::abs).fold(f64::MAX, f64::min);
                    let hi = sizes.iter().copied().map(f64::abs).fold(0.0, f64::max);
                    let size = if sizes.len() <= 1 || format::pct_words(lo) == format::pct_words(hi) {
                        format::pct_words(hi)
                    } else {
                        format!("{}–{}", format::pct_words(lo).trim_end_matches('%'), format::pct_words(hi))
                    };
                    format!(
                        "{s} delivers {size} {word} {what} than {r} at {} of {} thread counts ({label}; {})",
                        decided.len(),
                        self.tally.compared,
                        self.the_others(better)
                    )
                } else {
                    let first = decided
                        .first()
                        .map(|c| format!("{} threads: {}", c.threads, c.reasons.join(", ")))
                        .unwrap_or_default();
                    format!(
                        "{s} is {} than {r}{in_scenario}: {label} at {} of {} thread counts ({first}){}",
                        if better { "faster" } else { "slower" },
                        decided.len(),
                        self.tally.compared,
                        if all { String::new() } else { format!("; {}", self.the_others(better)) }
                    )
                }
            }
            Standing::Mixed => format!(
                "{s} and {r} trade places{in_scenario}: IMPROVED at {} and REGRESSED at {} of {} thread counts (see the verdict column)",
                self.tally.improved, self.tally.regressed, self.tally.compared
            ),
            Standing::WithinNoise => {
                let noise = self
                    .noise_pct
                    .map(|n| format!(" (±{})", format::pct_words(n)))
                    .unwrap_or_default();
                let unjudged = match self.tally.not_judged {
                    0 => String::new(),
                    n => format!("; {n} of them not judged"),
                };
                // "in tpmC: +4.0% over …" names its figure once.
                let figure = if name_scenario { format!("{noun} ") } else { String::new() };
                format!(
                    "{s} and {r} cannot be told apart{in_scenario}: {figure}{delta} {} is within the noise{noise}{unjudged}",
                    self.over()
                )
            }
            Standing::NotJudged => format!(
                "{s} and {r} are not judged{in_scenario} {}: {}",
                self.over(),
                self.reason
                    .clone()
                    .unwrap_or_else(|| format!("{noun} {delta} has no interval"))
            ),
        }
    }

    /// "the others within noise", "1 within noise, 1 not judged".
    fn the_others(&self, better: bool) -> String {
        let t = &self.tally;
        let decided = if better { t.improved } else { t.regressed };
        let (w, n) = (t.within_noise, t.not_judged);
        match (w, n) {
            (_, 0) if w == t.compared - decided => "the others within noise".into(),
            (0, _) if n == t.compared - decided => "the others not judged".into(),
            _ => format!("{w} within noise, {n} not judged"),
        }
    }

    /// "efficiency (TPS per % of server CPU) 1,150 against 410, not judged: server CPU
    /// has no interval".
    fn efficiency_words(&self, s: &str, r: &str) -> String {
        let (a, b) = self.values.unwrap_or((f64::NAN, f64::NAN));
        format!(
            "efficiency (TPS per % of server CPU) {} for {s} against {} for {r}, not judged: {}",
            format::rate(a),
            format::rate(b),
            self.reason
                .as_deref()
                .unwrap_or("server CPU has no interval")
        )
    }

    /// A capacity's Δ: "+31.0% (±2.1%)", "−4.0% (±6.3%), within noise", "+7.3% (no
    /// interval: …)".
    pub fn capacity_delta(&self) -> String {
        let pct = self
            .delta_pct
            .map(format::delta_pct)
            .unwrap_or_else(|| "—".into());
        let half = self
            .noise_pct
            .map(|h| format!(" (±{h:.1}%)"))
            .unwrap_or_default();
        match self.standing {
            Standing::Better | Standing::Worse => format!("{pct}{half}"),
            Standing::Mixed => match &self.reason {
                Some(why) => format!("{pct}{half}, {why}"),
                None => format!("{pct}{half}"),
            },
            Standing::WithinNoise => format!("{pct}{half}, within noise"),
            Standing::NotJudged => match &self.reason {
                Some(why) => format!("{pct} (no interval: {why})"),
                None => format!("{pct} (not judged)"),
            },
        }
    }
}

/// Why a capacity Δ beyond the noise names no side: the verdict column has the other
/// one ahead at the same thread counts.
pub const CAPACITY_AGAINST_THE_MATRIX: &str = "the opposite of the verdict column at the same thread counts (the two meet the target at different thread counts)";

/// A capacity claim that names the side the throughput claim of its pair does not: both
/// figures are true (the most TPS within the target, and TPS at the same thread counts),
/// but read together they name two winners, so the capacity's says it goes against the
/// verdict column and names none ([`Standing::Mixed`]).
pub fn reconcile_capacity(capacity: &mut Claim, claims: &[Claim]) {
    let Some(ahead) = capacity.standing.subject_ahead() else {
        return;
    };
    let against = claims.iter().any(|c| {
        c.figure == ClaimFigure::Throughput
            && (c.scenario, c.subject, c.reference)
                == (capacity.scenario, capacity.subject, capacity.reference)
            && c.standing.subject_ahead() == Some(!ahead)
    });
    if against {
        capacity.standing = Standing::Mixed;
        capacity.reason = Some(CAPACITY_AGAINST_THE_MATRIX.into());
    }
}

/// Words that state a gain or a loss: a claim that names no side never uses them.
pub const GAIN_OR_LOSS_WORDS: [&str; 8] = [
    " more ", " less ", "faster", "slower", "higher", "lower", " ahead", " behind",
];
