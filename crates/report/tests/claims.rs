//! One truth per comparison: every sentence that compares two environments (headlines,
//! the executive summary, the capacity at a latency target, tpmC) is rendered from a
//! typed claim whose standing is the matrix's verdict column.
//!
//! First the contradictions seen on the Compare screen, reproduced (issue 29): a headline
//! naming a winner where the only cell is "not judged"; a capacity read from the best of
//! a step's repeats while the matrix shows their mean; server CPU worded as throughput.
//! Then a property test over generated comparisons (runs of the synthetic idc fixture,
//! scaled, made noisy, repeated, cut short of per-second records, with and without a
//! latency target): no two claims disagree on which environment is ahead, every claim
//! agrees with the verdict column, and no sentence states an undecided difference as a
//! gain or a loss.

mod support;

use dbdyno_engine::{Repeat, Scenario};
use dbdyno_report::model::claims::{Claim, ClaimFigure, Standing, GAIN_OR_LOSS_WORDS};
use dbdyno_report::model::Verdict;
use dbdyno_report::{build, Report, ReportOptions, ReportRun};
use support::{opts, runs};

/// The fixture's idc run, its steps limited to `scenarios`.
fn idc(scenarios: &[Scenario]) -> ReportRun {
    let mut run = runs("three_envs.json").into_iter().next().unwrap();
    run.steps.retain(|s| scenarios.contains(&s.result.scenario));
    run
}

/// Scales a step's throughput by `tps` and its latency by `latency`; a step whose
/// confidence was stored is made again from its (scaled) per-second records.
fn scale(step: &mut dbdyno_report::ReportStep, tps: f64, latency: f64) {
    let r = &mut step.result;
    r.transactions = (r.transactions as f64 * tps).round() as u64;
    r.queries.read = (r.queries.read as f64 * tps).round() as u64;
    r.queries.write = (r.queries.write as f64 * tps).round() as u64;
    r.queries.other = (r.queries.other as f64 * tps).round() as u64;
    r.printed = None;
    r.confidence = None;
    r.latency_pct_ms *= latency;
    r.latency.avg_ms *= latency;
    for p in [&mut r.latency.p95_ms, &mut r.latency.p99_ms] {
        if let Some(v) = p.as_mut() {
            *v *= latency;
        }
    }
    for iv in &mut r.intervals {
        iv.tps *= tps;
        iv.qps *= tps;
        iv.reads_ps *= tps;
        iv.writes_ps *= tps;
        iv.other_ps *= tps;
        iv.latency_ms *= latency;
    }
}

fn named(run: &mut ReportRun, id: &str) {
    run.id = id.into();
    run.env_name = id.into();
}

fn name_of(r: &Report) -> impl Fn(usize) -> String + '_ {
    |i| r.env_name(i).to_string()
}

/// Issue 29: "the only cell is 'not judged' (steps too short for an interval), yet the
/// headline reads '#2 delivers 7.3% more oltp_point_select TPS than #1'".
#[test]
fn a_not_judged_cell_names_no_winner() {
    let mut one = idc(&[Scenario::OltpPointSelect]);
    one.steps.truncate(1);
    named(&mut one, "#1");
    let mut two = one.clone();
    named(&mut two, "#2");
    scale(&mut two.steps[0], 1.073, 1.0);
    for run in [&mut one, &mut two] {
        run.steps[0].result.intervals.clear();
    }
    let r = build(&[one, two], &opts(Some("#1"))).unwrap();
    assert_eq!(
        r.scenarios[0].comparisons[0].rows[0].verdict,
        Verdict::NotJudged
    );
    let h = &r.headlines[0];
    assert!(
        h.starts_with(
            "#2 and #1 are not judged in oltp_point_select at 1 thread: TPS +7.3% not judged"
        ),
        "{h}"
    );
    for s in r.headlines.iter().chain(&r.executive_summary) {
        assert!(!s.contains("delivers"), "{s}");
    }
}

/// Each step of `run` as `factors.len()` repeats, repeat k at `factors[k]` × its TPS.
fn repeated(run: &ReportRun, factors: &[f64]) -> ReportRun {
    let mut out = run.clone();
    out.steps.clear();
    for (k, f) in factors.iter().enumerate() {
        for step in &run.steps {
            let mut step = step.clone();
            scale(&mut step, *f, 1.0);
            step.result.repeat = Repeat {
                number: k as u32 + 1,
                of: factors.len() as u32,
            };
            out.steps.push(step);
        }
    }
    out
}

/// Issue 29: with `--repeat=2`, "At p95 ≤ 2 s, #3 sustains 57,467 TPS (1 thread); #4
/// 48,272 TPS (1 thread): −16.0%", then "Highest throughput: #4 …", then "#4 delivers
/// 31% more … TPS than #3 at the same server CPU". The capacity read one repeat (the
/// best), the matrix their mean; the leader compared bare peaks; CPU was worded as
/// throughput.
#[test]
fn the_capacity_reads_the_matrix_cells_and_sentences_agree() {
    let base = idc(&[Scenario::OltpReadOnly]);
    // #3: one repeat far above the other, a mean under #4's; #4: steady.
    let mut three = repeated(&base, &[1.6, 0.6]);
    named(&mut three, "#3");
    let mut four = repeated(&base, &[1.3, 1.3]);
    named(&mut four, "#4");
    let o = ReportOptions {
        sla: Some("p95<=3ms".parse().unwrap()),
        ..opts(Some("#3"))
    };
    let r = build(&[three, four], &o).unwrap();
    let cap = &r.capacity.as_ref().unwrap().scenarios[0];
    let s = &r.scenarios[0];
    for e in &cap.envs {
        let c = e.capacity.as_ref().expect("a cell within the target");
        let i = s.threads.iter().position(|t| *t == c.threads).unwrap();
        let cell = s.envs[e.env].cells[i].as_ref().unwrap();
        assert_eq!(c.tps, cell.tps, "the capacity is the matrix's cell");
        assert_eq!(cell.repeats, 2);
    }
    let claims = &r.claims;
    let of = |f: ClaimFigure| claims.iter().find(|c| c.figure == f).unwrap();
    let (capacity, throughput) = (of(ClaimFigure::Capacity), of(ClaimFigure::Throughput));
    // Two repeats this far apart cannot tell a 30% difference: neither claim names one.
    assert_eq!(capacity.standing, Standing::WithinNoise, "{capacity:?}");
    assert!(cap.sentence.contains(", within noise"), "{}", cap.sentence);
    assert!(
        throughput.standing.subject_ahead().is_none(),
        "{throughput:?}"
    );
    for s in r.headlines.iter().chain(&r.executive_summary) {
        assert!(!s.contains("Highest throughput"), "{s}");
        assert!(!s.contains("same server CPU"), "{s}");
    }
    assert!(
        r.executive_summary
            .iter()
            .any(|s| s.starts_with("Peak TPS: oltp_read_only #3 ")),
        "{:#?}",
        r.executive_summary
    );
    let h = &r.headlines[0];
    assert!(
        h.contains("; efficiency (TPS per % of server CPU) ")
            && h.ends_with("not judged: server CPU has no interval"),
        "{h}"
    );
}

/// A decided comparison keeps the seed's headline shape, and its efficiency is a clause
/// of its own.
#[test]
fn a_decided_comparison_names_the_side_the_verdicts_do() {
    let r = support::report("three_envs.json", Some("idc"));
    let h = r
        .headlines
        .iter()
        .find(|h| {
            h.starts_with(
                "华为云 delivers 35% more oltp_write_only TPS than idc (over 6 thread counts)",
            )
        })
        .unwrap_or_else(|| panic!("{:#?}", r.headlines));
    assert!(h.contains("; efficiency (TPS per % of server CPU) "), "{h}");
    check(&r, "three_envs against idc");
}

// ---- the property test ----

/// splitmix64: a small, fixed generator, so each case is reproducible from its number.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[(self.next() % from.len() as u64) as usize]
    }
}

const SCENARIOS: [Scenario; 4] = [
    Scenario::OltpPointSelect,
    Scenario::OltpReadOnly,
    Scenario::OltpWriteOnly,
    Scenario::OltpReadWrite,
];

/// One generated comparison: two to three environments made from idc's steps, each with
/// a throughput and latency factor per scenario and per step, per-second noise, a share of
/// steps without per-second records, thread counts only one side ran, repeats, server CPU
/// moved, a threshold and perhaps a latency target.
fn generated(case: u64) -> (Vec<ReportRun>, ReportOptions) {
    let mut g = Gen(case);
    let scenarios: Vec<Scenario> = SCENARIOS
        .iter()
        .copied()
        .filter(|_| g.chance(0.5))
        .collect();
    let scenarios = if scenarios.is_empty() {
        vec![g.pick(&SCENARIOS)]
    } else {
        scenarios
    };
    let base = idc(&scenarios);
    let envs = if g.chance(0.3) { 3 } else { 2 };
    let repeats = g.pick(&[1, 1, 2, 3]);
    let mut out = Vec::new();
    for e in 0..envs {
        let mut run = base.clone();
        named(&mut run, &format!("env{e}"));
        let level: Vec<f64> = scenarios
            .iter()
            .map(|_| if e == 0 { 1.0 } else { g.range(0.7, 1.4) })
            .collect();
        let noise = g.pick(&[0.0, 0.02, 0.1, 0.4]);
        let bare = g.pick(&[0.0, 0.0, 0.2, 1.0]);
        run.steps.retain(|_| !g.chance(0.12));
        for step in &mut run.steps {
            let i = scenarios
                .iter()
                .position(|s| *s == step.result.scenario)
                .unwrap();
            let f = level[i] * g.range(0.9, 1.1);
            scale(step, f, g.range(0.6, 1.6));
            for (k, iv) in step.result.intervals.iter_mut().enumerate() {
                let swing = if k % 2 == 0 { 1.0 + noise } else { 1.0 - noise };
                iv.tps *= swing;
                iv.qps *= swing;
            }
            if g.chance(bare) {
                step.result.intervals.clear();
            }
            if let Some(s) = step.server.as_mut() {
                s.cpu_pct_avg *= g.range(0.5, 1.5);
            }
        }
        if repeats > 1 {
            let factors: Vec<f64> = (0..repeats).map(|_| g.range(0.85, 1.15)).collect();
            run = repeated(&run, &factors);
        }
        out.push(run);
    }
    let sla = g.chance(0.5).then(|| {
        let ms = g.pick(&[0.5, 1.0, 2.0, 3.0, 5.0, 10.0]);
        format!("p95<={ms}ms").parse().unwrap()
    });
    let o = ReportOptions {
        threshold_pct: g.pick(&[2.0, 5.0, 10.0]),
        sla,
        ..opts(Some("env0"))
    };
    (out, o)
}

/// The standing the verdict column gives one comparison, counted here from the rows.
fn column_standing(r: &Report, c: &Claim) -> Standing {
    let s = r
        .scenarios
        .iter()
        .find(|s| s.scenario == c.scenario)
        .unwrap();
    let cmp = s
        .comparisons
        .iter()
        .find(|x| x.env == c.subject && x.baseline == c.reference)
        .unwrap();
    let count = |v: Verdict| cmp.rows.iter().filter(|r| r.verdict == v).count();
    match (count(Verdict::Improved), count(Verdict::Regressed)) {
        (a, b) if a > 0 && b > 0 => Standing::Mixed,
        (a, _) if a > 0 => Standing::Better,
        (_, b) if b > 0 => Standing::Worse,
        _ if count(Verdict::WithinNoise) > 0 => Standing::WithinNoise,
        _ => Standing::NotJudged,
    }
}

/// Every property of one report's claims and sentences; panics with `case` on a failure.
fn check(r: &Report, case: &str) {
    let name = name_of(r);
    for c in &r.claims {
        let said = c.sentence(&name);
        match c.figure {
            ClaimFigure::Throughput | ClaimFigure::Tpmc => {
                assert_eq!(
                    c.standing,
                    column_standing(r, c),
                    "{case}: a claim against its verdict column: {said}"
                );
            }
            ClaimFigure::Efficiency => {
                assert_eq!(c.standing, Standing::NotJudged, "{case}: {said}");
                assert!(
                    said.starts_with("efficiency (TPS per % of server CPU) "),
                    "{case}: {said}"
                );
            }
            ClaimFigure::Capacity => {
                // A capacity's Δ is a signed figure: undecided, it says so beside it.
                let d = c.capacity_delta();
                match c.standing {
                    Standing::WithinNoise => {
                        assert!(d.ends_with(", within noise"), "{case}: {d}")
                    }
                    Standing::NotJudged => assert!(
                        d.contains("(no interval: ") || d.contains("(not judged)"),
                        "{case}: {d}"
                    ),
                    _ => assert!(!d.contains("within noise"), "{case}: {d}"),
                }
            }
        }
        // An undecided difference is never a gain or a loss.
        if c.standing.subject_ahead().is_none() {
            for w in GAIN_OR_LOSS_WORDS {
                assert!(
                    !said.contains(w),
                    "{case}: {w:?} in an undecided claim: {said}"
                );
            }
        } else {
            let better = c.standing == Standing::Better;
            let words: &[&str] = match c.figure {
                ClaimFigure::Capacity => &[""],
                _ if better => &[" more ", "faster"],
                _ => &[" less ", "slower"],
            };
            assert!(
                words.iter().any(|w| said.contains(w)),
                "{case}: a decided claim without its direction: {said}"
            );
            if c.figure != ClaimFigure::Capacity {
                let other: &[&str] = if better {
                    &[" less ", "slower"]
                } else {
                    &[" more ", "faster"]
                };
                assert!(!other.iter().any(|w| said.contains(w)), "{case}: {said}");
            }
            if let (Some(d), ClaimFigure::Capacity) = (c.delta_pct, c.figure) {
                assert_eq!(
                    d > 0.0,
                    better,
                    "{case}: a capacity's Δ against its standing: {said}"
                );
            }
        }
    }
    // No two claims about one pair name different sides: throughput and tpmC stand
    // alike, and the capacity at the target never names the other side (efficiency is a
    // figure of its own, never judged).
    for a in &r.claims {
        for b in &r.claims {
            let same_pair =
                (a.scenario, a.subject, a.reference) == (b.scenario, b.subject, b.reference);
            let speed = |c: &Claim| c.figure != ClaimFigure::Efficiency;
            if !(same_pair && speed(a) && speed(b)) {
                continue;
            }
            let (x, y) = (a.standing.subject_ahead(), b.standing.subject_ahead());
            let throughput =
                |c: &Claim| matches!(c.figure, ClaimFigure::Throughput | ClaimFigure::Tpmc);
            let disagree = if throughput(a) && throughput(b) {
                x != y
            } else {
                x.is_some() && y.is_some() && x != y
            };
            assert!(
                !disagree,
                "{case}: {} / {}",
                a.sentence(&name),
                b.sentence(&name)
            );
        }
    }
    // Each headline is a throughput claim's sentence (with its efficiency clause), one
    // per claim, in order.
    let throughput: Vec<&Claim> = r
        .claims
        .iter()
        .filter(|c| c.figure == ClaimFigure::Throughput)
        .collect();
    assert_eq!(
        r.headlines.len(),
        throughput.len(),
        "{case}: {:#?}",
        r.headlines
    );
    for (h, c) in r.headlines.iter().zip(&throughput) {
        let said = dbdyno_report::format::singular_threads(&c.sentence(&name));
        assert!(
            h.starts_with(&said),
            "{case}: headline {h:?} is not its claim {said:?}"
        );
        if let Some(rest) = h.strip_prefix(&said).filter(|r| !r.is_empty()) {
            assert!(
                rest.starts_with("; efficiency (TPS per % of server CPU) "),
                "{case}: {h}"
            );
        }
    }
    // The executive summary says "delivers" only in a decided claim's words, and the
    // capacity lines are the capacity section's sentences.
    let decided: Vec<String> = r
        .claims
        .iter()
        .filter(|c| c.standing.subject_ahead().is_some())
        .map(|c| dbdyno_report::format::singular_threads(&c.sentence(&name)))
        .collect();
    for s in &r.executive_summary {
        if s.contains(" delivers ")
            || s.contains(" is faster than ")
            || s.contains(" is slower than ")
        {
            assert!(
                decided.iter().any(|d| s.starts_with(d.as_str())),
                "{case}: a sentence no decided claim makes: {s}"
            );
        }
        assert!(
            !s.contains("server CPU:") && !s.contains("same server CPU"),
            "{case}: {s}"
        );
    }
    if let Some(cap) = &r.capacity {
        for (i, sc) in cap.scenarios.iter().enumerate() {
            assert_eq!(
                r.executive_summary[i],
                format!("{}.", sc.sentence),
                "{case}"
            );
            for e in &sc.envs {
                let Some(c) = &e.claim else { continue };
                assert!(
                    sc.sentence.contains(&c.capacity_delta()),
                    "{case}: {}",
                    sc.sentence
                );
                // The capacity is the matrix's own cell at its thread count.
                let cap = e.capacity.as_ref().unwrap();
                if !cap.searched {
                    let s = r
                        .scenarios
                        .iter()
                        .find(|s| s.scenario == sc.scenario)
                        .unwrap();
                    let i = s.threads.iter().position(|t| *t == cap.threads).unwrap();
                    let cell = s.envs[e.env].cells[i].as_ref().unwrap();
                    assert_eq!(cap.tps, cell.tps, "{case}");
                }
            }
        }
    }
}

#[test]
fn no_two_claims_disagree_over_generated_comparisons() {
    let mut seen = std::collections::BTreeMap::new();
    for case in 1..=150u64 {
        let (runs, o) = generated(case);
        let r = build(&runs, &o).unwrap_or_else(|e| panic!("case {case}: {e}"));
        check(&r, &format!("case {case}"));
        for c in &r.claims {
            *seen
                .entry(format!("{:?} {:?}", c.figure, c.standing))
                .or_insert(0) += 1;
        }
    }
    // The generator reaches every standing of a throughput claim and both kinds of
    // capacity claim, or the test would prove little.
    let count = |kind: &str| seen.get(kind).copied().unwrap_or(0);
    for kind in [
        "Throughput Better",
        "Throughput Worse",
        "Throughput Mixed",
        "Throughput WithinNoise",
        "Throughput NotJudged",
        "Capacity WithinNoise",
        "Efficiency NotJudged",
    ] {
        assert!(count(kind) >= 3, "{kind}: {seen:?}");
    }
    let capacity_decided = count("Capacity Better") + count("Capacity Worse");
    assert!(capacity_decided >= 3, "{seen:?}");
    // And capacities beyond the noise that went against the verdict column (named no side).
    assert!(count("Capacity Mixed") >= 1, "{seen:?}");
}
