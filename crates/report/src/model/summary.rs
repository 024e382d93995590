//! Sentences a manager can read: headline deltas ("华为云 delivers 35% more
//! oltp_write_only TPS than idc (over 6 thread counts)", seed 000's executive summary)
//! and the executive summary on the report's cover.
//!
//! Every sentence that compares two environments is a rendered [`Claim`]
//! ([`super::claims`]): who is ahead comes from the matrix's verdict column, so a headline
//! never names a winner the verdicts do not, and a difference within noise or not judged
//! reads as such. A headline's size is the geometric mean of the TPS ratios over every
//! thread count both environments ran (one very high or very low step cannot dominate
//! it) when every cell was decided the same way, else the Δ of the cells that were.
//! Server CPU enters as efficiency (TPS per % of server CPU), a claim of its own. The
//! executive summary counts the cells that regressed, improved or are within noise, and
//! gives each scenario's noise floor and each environment's peak as figures; with tpcc
//! steps, the peak tpmC and its comparison ([`super::tpcc_summary`]).

use std::collections::BTreeMap;

use super::claims::{Claim, ClaimFigure};
use super::{
    tpcc_summary, BottleneckClass, EnvSummary, KneeKind, Report, ScenarioReport, Severity,
};
use crate::format;

/// Headline deltas shown in the executive summary.
const EXECUTIVE_HEADLINES: usize = 3;

/// Every headline, scenario by scenario: for a comparison, each throughput claim with the
/// efficiency claim of the same pair ([`super::claims`]); for one run, each scenario's peak.
pub fn headlines(
    envs: &[EnvSummary],
    scenarios: &[ScenarioReport],
    claims: &[Claim],
) -> Vec<String> {
    if envs.len() > 1 {
        delta_items(envs, claims)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    } else {
        scenarios.iter().filter_map(single_headline).collect()
    }
}

/// Headline deltas with how strongly they read (decided first, then |Δ TPS|), in claim
/// order: the throughput claim, then its pair's efficiency.
fn delta_items(envs: &[EnvSummary], claims: &[Claim]) -> Vec<((bool, f64), String)> {
    let name = |i: usize| {
        envs.get(i)
            .map(|e| e.name.clone())
            .unwrap_or_else(|| "?".into())
    };
    claims
        .iter()
        .filter(|c| c.figure == ClaimFigure::Throughput)
        .map(|c| {
            let mut text = c.sentence(&name);
            let efficiency = claims.iter().find(|e| {
                e.figure == ClaimFigure::Efficiency
                    && (e.scenario, e.subject, e.reference) == (c.scenario, c.subject, c.reference)
            });
            if let Some(e) = efficiency {
                text.push_str("; ");
                text.push_str(&e.sentence(&name));
            }
            let weight = (
                c.standing.subject_ahead().is_some(),
                c.delta_pct.unwrap_or(0.0).abs(),
            );
            (weight, text)
        })
        .collect()
}

fn single_headline(s: &ScenarioReport) -> Option<String> {
    let e = s.envs.first()?;
    let p = e.peak?;
    let knee = match (e.knee.kind, e.knee.best_threads) {
        (KneeKind::Found, Some(t)) => format!("best thread count {t}"),
        (KneeKind::NotReached, _) => "still scaling at the top of the ladder".to_string(),
        _ => "no knee (one thread count)".to_string(),
    };
    let class = match e.bottleneck.class {
        BottleneckClass::Scaling => String::new(),
        c => format!("; {}", c.phrase()),
    };
    Some(format!(
        "{}: peak {} TPS / {} QPS at {} threads (p95 {} ms); {knee}{class}",
        s.scenario,
        format::rate(p.tps),
        format::rate(p.qps),
        p.threads,
        format::ms_opt(p.p95_ms),
    ))
}

/// The cover page's paragraph, one sentence per item.
pub fn executive(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    // A latency target was set for this: its capacity leads, scenario by scenario.
    if let Some(c) = &r.capacity {
        out.extend(c.scenarios.iter().map(|s| format!("{}.", s.sentence)));
    }
    out.push(scope(r));
    out.extend(verdict(r));
    out.extend(noise_floors(r));
    if r.envs.len() > 1 {
        out.extend(peaks(r));
        let mut items = delta_items(&r.envs, &r.claims);
        items.sort_by(|a, b| b.0 .0.cmp(&a.0 .0).then(b.0 .1.total_cmp(&a.0 .1)));
        for (_, s) in items.into_iter().take(EXECUTIVE_HEADLINES) {
            // Environment names are kept as given, even at the start of a sentence.
            out.push(format!("{s}."));
        }
        out.extend(tpcc_summary::peaks(r));
        out.extend(tpcc_summary::deltas(r));
    } else {
        for h in &r.headlines {
            out.push(format!("{h}."));
        }
        out.extend(tpcc_summary::peaks(r));
    }
    out.push(bottlenecks(r));
    out.extend(knees(r));
    out.extend(cold_start(r));
    let warnings = r
        .warnings
        .iter()
        .filter(|w| w.severity == Severity::Warning)
        .count();
    if warnings > 0 {
        out.push(format!(
            "{} to review before relying on these numbers (see Warnings).",
            dbdyno_engine::wording::count(warnings as u32, "warning")
        ));
    }
    out
}

/// PASS or FAIL against the baseline: how many cells regressed, improved or are within
/// noise (and not judged), and how many could not be compared.
fn verdict(r: &Report) -> Option<String> {
    let (Some(v), Some(b)) = (&r.verdict, r.baseline) else {
        return None;
    };
    let base = r.env_name(b);
    let word = r.verdict_word().unwrap_or("PASS");
    // The regressed cells themselves are a table beside the summary, not a list in this
    // sentence.
    let mut sentence = if v.compared == 0 {
        format!("{word}: no cell could be compared with the baseline {base}.")
    } else {
        format!(
            "{word}: against the baseline {base}, of {} compared cells {} regressed, {} improved and {} are within noise (a verdict needs the whole 95% interval of Δ TPS or Δ p95 beyond {}%).",
            v.compared, v.failed, v.improved, v.within_noise, r.threshold_pct,
        )
    };
    if v.not_judged > 0 {
        sentence.push_str(&format!(
            " {} {} not judged: a step too short for an interval, or without per-second figures.",
            v.not_judged,
            if v.not_judged == 1 {
                "cell is"
            } else {
                "cells are"
            },
        ));
    }
    if v.missing > 0 {
        sentence.push_str(&format!(
            " {} {} not comparable: the baseline has no counterpart at that scenario and thread count, or a step was cancelled{}.",
            v.missing,
            if v.missing == 1 { "cell is" } else { "cells are" },
            if r.fail_on_missing {
                "; with --fail-on-missing they count as regressions"
            } else {
                ""
            }
        ));
    }
    Some(sentence)
}

/// The noise floor per scenario: the smallest TPS (and p95) differences these runs can
/// tell apart, and how to narrow it (`None` without a comparison with intervals).
pub fn noise_floors(r: &Report) -> Option<String> {
    let parts: Vec<String> = r
        .scenarios
        .iter()
        .filter_map(|s| {
            let n = s.noise.as_ref()?;
            let tps = n.tps.pct?;
            let p95 = n
                .p95
                .pct
                .map(|p| format!(" (p95: {})", format::pct_words(p)))
                .unwrap_or_default();
            Some(format!("{} in {}{p95}", format::pct_words(tps), s.scenario))
        })
        .collect();
    let repeated = r
        .scenarios
        .iter()
        .flat_map(|s| s.envs.iter().flat_map(|e| e.present()))
        .any(|c| c.repeats >= dbdyno_stats::MIN_REPEATS);
    let narrow = if repeated {
        "more repeats (--repeat) or longer steps narrow it"
    } else {
        "repeat with --repeat=3 to narrow it (the spread between repeats also holds what changes from run to run)"
    };
    (!parts.is_empty()).then(|| {
        format!(
            "Noise floor: TPS differences under {} cannot be told apart on these runs; {narrow}.",
            parts.join(", ")
        )
    })
}

/// Each environment's peak TPS in each scenario, as figures: who is ahead is the
/// headlines' to say, from the verdict column (peaks may sit at thread counts only one
/// side ran, and a bare difference of two peaks knows nothing of the noise).
fn peaks(r: &Report) -> Option<String> {
    let per_scenario: Vec<String> = r
        .scenarios
        .iter()
        .filter_map(|s| {
            let each: Vec<String> = s
                .envs
                .iter()
                .filter_map(|e| {
                    let p = e.peak?;
                    // The thread counts are in the key figures: the sentence stays short.
                    Some(format!("{} {}", r.env_name(e.env), format::rate(p.tps)))
                })
                .collect();
            (!each.is_empty()).then(|| format!("{} {}", s.scenario, each.join(", ")))
        })
        .collect();
    (!per_scenario.is_empty()).then(|| format!("Peak TPS: {}.", per_scenario.join("; ")))
}

/// How many steps started cold, and the one that lost the most.
fn cold_start(r: &Report) -> Option<String> {
    let worst = r
        .cold_starts
        .iter()
        .min_by(|a, b| a.whole_vs_steady_pct.total_cmp(&b.whole_vs_steady_pct))?;
    Some(format!(
        "{} started cold; the worst ({} {} at {} threads) lost {} of its steady throughput.",
        dbdyno_engine::wording::count(r.cold_starts.len() as u32, "step"),
        r.env_name(worst.env),
        worst.scenario,
        worst.threads,
        format::pct_words(worst.whole_vs_steady_pct)
    ))
}

fn scope(r: &Report) -> String {
    let scenarios = r.scenarios.len();
    let threads = r.all_threads();
    let range = match (threads.first(), threads.last()) {
        (Some(a), Some(b)) if a != b => format!("{} thread counts ({a}–{b})", threads.len()),
        (Some(a), _) => dbdyno_engine::wording::count(*a, "thread"),
        _ => "no thread counts".to_string(),
    };
    let dates: Vec<i64> = r.envs.iter().filter_map(|e| e.started_at).collect();
    let when = match (dates.iter().min(), dates.iter().max()) {
        (Some(a), Some(b)) if format::date(*a) != format::date(*b) => {
            format!(", measured {} to {}", format::date(*a), format::date(*b))
        }
        (Some(a), _) => format!(", measured {}", format::date(*a)),
        _ => String::new(),
    };
    if scenarios == 0 {
        // Every step was left out (cancelled, or imported without its summary): say so
        // rather than "0 scenario(s) at no thread counts".
        return format!(
            "This report has no step to show: none of its {} kept a complete step (see the warnings).",
            dbdyno_engine::wording::count(r.envs.len() as u32, "run")
        );
    }
    if r.envs.len() == 1 {
        format!(
            "This report covers one run on {}: {} at {range}{when}.",
            r.env_name(0),
            dbdyno_engine::wording::count(scenarios as u32, "scenario")
        )
    } else {
        let names: Vec<&str> = r.envs.iter().map(|e| e.name.as_str()).collect();
        format!(
            "This report compares {} environments ({}) on {} at {range}{when}; {} is the baseline.",
            r.envs.len(),
            names.join(", "),
            dbdyno_engine::wording::count(scenarios as u32, "scenario"),
            r.env_name(r.baseline.unwrap_or(0))
        )
    }
}

fn bottlenecks(r: &Report) -> String {
    let mut per_env: BTreeMap<usize, Vec<(&'static str, String)>> = BTreeMap::new();
    for s in &r.scenarios {
        for e in &s.envs {
            if e.cells.iter().all(Option::is_none) {
                continue;
            }
            let c = e.bottleneck.class;
            if c != BottleneckClass::Scaling {
                per_env
                    .entry(e.env)
                    .or_default()
                    .push((c.label(), s.scenario.to_string()));
            }
        }
    }
    let analysed = r
        .scenarios
        .iter()
        .any(|s| s.envs.iter().any(|e| e.cells.iter().any(Option::is_some)));
    if !analysed {
        return "No step could be analysed, so no bottleneck is named.".into();
    }
    if per_env.is_empty() {
        return "No environment reached a bottleneck within its thread ladder: throughput was still rising at the top.".into();
    }
    // Per class, how many scenario runs: the per-scenario detail is in the key figures
    // and the analysis table, and a sentence naming every pair reads as a wall of text.
    let mut per_class: BTreeMap<&'static str, usize> = BTreeMap::new();
    for items in per_env.values() {
        for (class, _) in items {
            *per_class.entry(class).or_default() += 1;
        }
    }
    let mut counts: Vec<(&str, usize)> = per_class.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let total: usize = r
        .scenarios
        .iter()
        .flat_map(|s| &s.envs)
        .filter(|e| e.cells.iter().any(Option::is_some))
        .count();
    let parts: Vec<String> = counts
        .iter()
        .map(|(class, n)| {
            // "Lock contention" reads "lock contention" mid-sentence; "CPU-bound" stays.
            let mut c = class.chars();
            let class = match (c.next(), c.next()) {
                (Some(a), Some(b)) if a.is_uppercase() && b.is_lowercase() => {
                    a.to_lowercase().collect::<String>() + &class[a.len_utf8()..]
                }
                _ => class.to_string(),
            };
            format!("{class} in {n}")
        })
        .collect();
    format!(
        "Bottlenecks, over {total} scenario runs: {} (per scenario in the key figures and the analysis).",
        parts.join(", ")
    )
}

fn knees(r: &Report) -> Option<String> {
    let mut parts = Vec::new();
    for (env, e) in r.envs.iter().enumerate() {
        let mut found: Vec<u32> = Vec::new();
        let mut not_reached = 0;
        for s in &r.scenarios {
            let Some(es) = s.envs.iter().find(|x| x.env == env) else {
                continue;
            };
            match (es.knee.kind, es.knee.best_threads) {
                (KneeKind::Found, Some(t)) => found.push(t),
                (KneeKind::NotReached, _) => not_reached += 1,
                _ => {}
            }
        }
        found.sort_unstable();
        let mut words = match (found.first(), found.last()) {
            (Some(a), Some(b)) if a == b => format!("{} at {a} threads", e.name),
            (Some(a), Some(b)) => format!("{} at {a}–{b} threads", e.name),
            _ => String::new(),
        };
        if not_reached > 0 {
            let still = format!(
                "still scaling in {}",
                dbdyno_engine::wording::count(not_reached as u32, "scenario")
            );
            words = if words.is_empty() {
                format!("{} {still}", e.name)
            } else {
                format!("{words} ({still})")
            };
        }
        if !words.is_empty() {
            parts.push(words);
        }
    }
    (!parts.is_empty()).then(|| format!("Best thread counts (the knee): {}.", parts.join("; ")))
}
