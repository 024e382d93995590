//! What to check before trusting the numbers: missing server samples (seed 000: "sample
//! count should equal TEST_TIME"), errors and reconnects, a saturated client, cancelled
//! steps, a dataset that fits in the buffer pool (seed 003: for storage tests use at least
//! 1.5× the buffer pool), datasets that differ between compared runs, cold starts, and
//! whatever the run itself recorded.
//!
//! Each warning is one sentence naming the environment and the steps concerned.

use std::collections::BTreeSet;

use super::coldstart::ColdStart;
use super::{ScenarioReport, Severity, Warning};
use crate::format;
use crate::input::ReportRun;

/// A server sample count below this share of the expected count is reported.
const MIN_SAMPLE_SHARE: f64 = 1.0;
/// Client CPU (percent of its machine) at which the load generator is saturated.
const CLIENT_SATURATED_PCT: f64 = 85.0;
/// Dataset / buffer pool ratio under which reads come from memory (seed 003 asks ≥ 1.5).
const STORAGE_TEST_RATIO: f64 = 1.5;

/// One check of one run: its warning, if it has one, as a severity and a sentence that
/// starts with the run's name.
type RunCheck = fn(&ReportRun, &str) -> Option<(Severity, String)>;

/// The checks of each run, in the order their warnings are listed.
const RUN_CHECKS: [RunCheck; 8] = [
    unfinished,
    server_figures,
    missing_samples,
    errors_and_reconnects,
    saturated_client,
    partial_steps,
    cancelled_steps,
    dataset_in_memory,
];

pub fn collect(
    runs: &[&ReportRun],
    scenarios: &[ScenarioReport],
    cold_starts: &[ColdStart],
) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut push = |severity, env: Option<usize>, text: String| {
        out.push(Warning {
            severity,
            env,
            text,
        })
    };
    for (env, run) in runs.iter().enumerate() {
        let name = run.label();
        for check in RUN_CHECKS {
            if let Some((severity, text)) = check(run, name) {
                push(severity, Some(env), text);
            }
        }
        for w in &run.warnings {
            push(Severity::Warning, Some(env), format!("{name}: {w}"));
        }
    }
    if runs.len() > 1 {
        if let Some(text) = different_datasets(runs) {
            push(Severity::Warning, None, text);
        }
        for text in scenarios_not_run(runs, scenarios) {
            push(Severity::Note, None, text);
        }
    }
    for c in cold_starts {
        push(Severity::Note, Some(c.env), c.sentence.clone());
    }
    out.sort_by_key(|w| w.severity);
    out
}

fn unfinished(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let state = run.state.as_deref().filter(|s| *s != "finished")?;
    if state == "partial" {
        return Some((
            Severity::Warning,
            format!("{name}: the run is partial: steps that failed were not measured and are missing from the matrices (the warnings name each, with its reason)"),
        ));
    }
    Some((
        Severity::Warning,
        format!("{name}: the run is {state}; steps cut short are marked \"cancelled\" in the matrices and left out of the knee, bottleneck and verdicts"),
    ))
}

/// Server figures missing for the whole run (a note: the run did not ask for them) or for
/// some of its steps (a warning: they were lost).
fn server_figures(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let steps: Vec<String> = steps_where(run, |s| s.server.is_none());
    if !run.steps.is_empty() && steps.len() == run.steps.len() {
        Some((
            Severity::Note,
            format!("{name}: no server CPU or disk figures were collected, so bottlenecks can only be judged from throughput and latency"),
        ))
    } else if !steps.is_empty() {
        Some((
            Severity::Warning,
            format!("{name}: no server figures for {}", list(&steps)),
        ))
    } else {
        None
    }
}

fn missing_samples(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let short: Vec<String> = run
        .steps
        .iter()
        .filter_map(|s| {
            let sv = s.server.as_ref()?;
            let expected = sv.expected_samples;
            (expected > 0 && (sv.samples as f64) < expected as f64 * MIN_SAMPLE_SHARE).then(|| {
                format!(
                    "{}@{} ({} of {})",
                    s.result.scenario, s.result.threads, sv.samples, expected
                )
            })
        })
        .collect();
    (!short.is_empty()).then(|| {
        (
            Severity::Warning,
            format!(
                "{name}: server samples are missing for {}: the CPU and disk averages of these steps cover less than the whole step",
                list(&short)
            ),
        )
    })
}

fn errors_and_reconnects(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let errors: Vec<String> = run
        .steps
        .iter()
        .filter(|s| s.result.ignored_errors > 0 || s.result.reconnects > 0)
        .map(|s| {
            let r = &s.result;
            format!(
                "{}@{} ({} errors, {} reconnects)",
                r.scenario,
                r.threads,
                format::grouped(r.ignored_errors as f64, 0),
                format::grouped(r.reconnects as f64, 0)
            )
        })
        .collect();
    (!errors.is_empty()).then(|| {
        (
            Severity::Warning,
            format!(
                "{name}: ignored errors or reconnects in {}: the transactions were retried, so throughput includes rework",
                list(&errors)
            ),
        )
    })
}

/// Steps whose load generator ran out of CPU. A step from several clients names each
/// client that did (`oltp_read_only@64 on ssh://c2 (93%)`): that machine, not the
/// others, held the step back.
fn saturated_client(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let saturated: Vec<String> = run
        .steps
        .iter()
        .flat_map(|s| {
            let r = &s.result;
            let one_machine = (r.clients.is_empty()
                && r.client_cpu.percent_of_machine >= CLIENT_SATURATED_PCT)
                .then(|| {
                    format!(
                        "{}@{} ({})",
                        r.scenario,
                        r.threads,
                        format::pct(r.client_cpu.percent_of_machine)
                    )
                });
            let by_client = r
                .clients
                .iter()
                .filter(|c| {
                    c.client_bound || c.client_cpu.percent_of_machine >= CLIENT_SATURATED_PCT
                })
                .map(move |c| {
                    format!(
                        "{}@{} on {} ({})",
                        r.scenario,
                        r.threads,
                        c.client,
                        format::pct(c.client_cpu.percent_of_machine)
                    )
                });
            one_machine.into_iter().chain(by_client)
        })
        .collect();
    (!saturated.is_empty()).then(|| {
        (
            Severity::Warning,
            format!(
                "{name}: the load generator's CPU was saturated in {}: these steps measured the client as much as the server",
                list(&saturated)
            ),
        )
    })
}

/// Steps that lost a load client midway: their figures are the clients' that stayed
/// plus what the lost one sent before it went.
fn partial_steps(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let partial: Vec<String> = run
        .steps
        .iter()
        .flat_map(|s| {
            let r = &s.result;
            r.clients.iter().filter_map(move |c| {
                let lost = c.lost.as_ref()?;
                Some(format!(
                    "{}@{} ({} lost at {:.1} s: {})",
                    r.scenario, r.threads, c.client, lost.after_s, lost.reason
                ))
            })
        })
        .collect();
    (!partial.is_empty()).then(|| {
        (
            Severity::Warning,
            format!(
                "{name}: partial {} {}: a load client was lost during the step, so its figures cover less load than planned",
                if partial.len() == 1 { "step" } else { "steps" },
                list(&partial)
            ),
        )
    })
}

fn cancelled_steps(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let cancelled = steps_where(run, |s| s.result.cancelled);
    (!cancelled.is_empty()).then(|| {
        (
            Severity::Warning,
            format!(
                "{name}: {} was cancelled before its time was up: marked \"cancelled\" in the matrices and left out of the knee, bottleneck and verdicts",
                list(&cancelled)
            ),
        )
    })
}

fn dataset_in_memory(run: &ReportRun, name: &str) -> Option<(Severity, String)> {
    let e = &run.environment;
    let (d, b) = (e.dataset_gb_estimate?, e.buffer_pool_gb?);
    if !(b > 0.0 && d < b * STORAGE_TEST_RATIO) {
        return None;
    }
    let fits = if d <= b {
        "fits in"
    } else {
        "is barely larger than"
    };
    Some((
        Severity::Note,
        format!(
            "{name}: the dataset ({}) {fits} the buffer pool ({}): reads were served mostly from memory, so these numbers measure CPU and memory rather than storage; for a storage (IO) test use a dataset at least 1.5× the buffer pool",
            format::gib(d),
            format::gib(b)
        ),
    ))
}

fn different_datasets(runs: &[&ReportRun]) -> Option<String> {
    let datasets: BTreeSet<Option<String>> = runs
        .iter()
        .map(|r| super::environment::dataset_words(r.plan.as_ref()))
        .collect();
    if datasets.len() <= 1 {
        return None;
    }
    let each: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{}: {}",
                r.label(),
                super::environment::dataset_words(r.plan.as_ref())
                    .unwrap_or_else(|| "unknown".into())
            )
        })
        .collect();
    Some(format!(
        "the compared runs used different datasets ({}): differences may come from the data size rather than the environment",
        each.join("; ")
    ))
}

/// One sentence per scenario that some compared environments did not run.
fn scenarios_not_run(runs: &[&ReportRun], scenarios: &[ScenarioReport]) -> Vec<String> {
    scenarios
        .iter()
        .filter_map(|s| {
            let missing: Vec<String> = s
                .envs
                .iter()
                .filter(|e| e.cells.iter().all(Option::is_none))
                .map(|e| runs[e.env].label().to_string())
                .collect();
            (!missing.is_empty())
                .then(|| format!("{} was not run on {}", s.scenario, missing.join(", ")))
        })
        .collect()
}

fn steps_where(run: &ReportRun, f: impl Fn(&crate::input::ReportStep) -> bool) -> Vec<String> {
    run.steps
        .iter()
        .filter(|s| f(s))
        .map(|s| format!("{}@{}", s.result.scenario, s.result.threads))
        .collect()
}

/// "a, b and c"; long lists are cut with a count.
fn list(items: &[String]) -> String {
    const MAX: usize = 6;
    let shown: Vec<&str> = items.iter().take(MAX).map(String::as_str).collect();
    let mut s = match shown.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    if items.len() > MAX {
        s = format!("{} and {} more", shown.join(", "), items.len() - MAX);
    }
    s
}
