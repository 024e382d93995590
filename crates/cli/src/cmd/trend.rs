//! `dbdyno trend`: each cell's series over the history and its change points, as text or
//! JSON. `dbdyno gate`: the newest run of an environment judged against its level, for a
//! nightly CI job: exit code 4 on a regression, as `report --baseline` uses, and JUnit
//! XML for the CI system's test view. The analysis is the report crate's
//! (`dbdyno_report::model::trend`); this file reads the history and prints.

use std::path::Path;
use std::process::ExitCode;

use dbdyno_report::input::from_history::report_runs;
use dbdyno_report::input::ReportRun;
use dbdyno_report::model::trend::{gate, trends, ChangePointOptions, GateVerdict, Trend};

use crate::args_trend::{GateArgs, SeriesArgs, TrendArgs};
use crate::exit::{EXIT_FAILED, EXIT_REGRESSED, EXIT_USAGE};

pub fn run_trend(a: &TrendArgs) -> ExitCode {
    let found = match series(&a.series, &a.env) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&found).unwrap_or_default()
        );
        return ExitCode::SUCCESS;
    }
    if found.is_empty() {
        println!(
            "No cell has {} runs or more yet: a trend needs a series.",
            a.series.min_runs
        );
    }
    for t in &found {
        print_trend(t);
    }
    ExitCode::SUCCESS
}

pub fn run_gate(a: &GateArgs) -> ExitCode {
    let found = match series(&a.series, std::slice::from_ref(&a.env)) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let verdicts = gate(&found, a.threshold);
    if let Some(file) = &a.junit {
        if let Err(e) = std::fs::write(file, junit(&a.env, &verdicts, a.threshold)) {
            eprintln!("FATAL: writing {}: {e}", file.display());
            return ExitCode::from(EXIT_FAILED);
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&verdicts).unwrap_or_default()
        );
    } else if verdicts.is_empty() {
        println!(
            "Nothing to judge: no cell of {} has {} runs or more yet.",
            a.env, a.series.min_runs
        );
    }
    if !a.json {
        for v in &verdicts {
            print_verdict(v, a.threshold);
        }
    }
    if verdicts.iter().any(GateVerdict::regressed) {
        ExitCode::from(EXIT_REGRESSED)
    } else {
        ExitCode::SUCCESS
    }
}

/// The history's runs of `envs` (all when empty), as trends of the chosen cells.
fn series(a: &SeriesArgs, envs: &[String]) -> Result<Vec<Trend>, ExitCode> {
    let runs = read_runs(a.data_dir.as_deref(), envs)?;
    let options = ChangePointOptions {
        max_p_value: a.max_p,
        ..ChangePointOptions::default()
    };
    Ok(
        trends(&runs.iter().collect::<Vec<_>>(), a.min_runs, &options)
            .into_iter()
            .filter(|t| a.scenario.is_empty() || a.scenario.iter().any(|s| s == t.scenario.name()))
            .filter(|t| a.threads.is_empty() || a.threads.contains(&t.threads))
            .collect(),
    )
}

fn read_runs(data_dir: Option<&Path>, envs: &[String]) -> Result<Vec<ReportRun>, ExitCode> {
    let failed = |e: &dyn std::fmt::Display| {
        eprintln!("FATAL: reading the history: {e}");
        ExitCode::from(EXIT_FAILED)
    };
    let h = crate::record::open_history(data_dir).map_err(|e| failed(&e))?;
    let mut summaries = Vec::new();
    if envs.is_empty() {
        summaries = h.list_runs(None).map_err(|e| failed(&e))?;
    }
    for env in envs {
        let of_env = h.list_runs(Some(env)).map_err(|e| failed(&e))?;
        if of_env.is_empty() {
            eprintln!(
                "error: no runs of environment {env} in the history ({}); see dbdyno runs list",
                h.history().path().display()
            );
            return Err(ExitCode::from(EXIT_USAGE));
        }
        summaries.extend(of_env);
    }
    report_runs(&h, &summaries).map_err(|e| failed(&e))
}

fn print_trend(t: &Trend) {
    println!("{}", t.summary);
    for sentence in &t.changes {
        println!("  {sentence}");
    }
}

fn print_verdict(v: &GateVerdict, threshold: f64) {
    for (figure, j) in v.figures() {
        println!(
            "{} {} {} @ {} threads, run {}: {figure} {}",
            if j.regressed { "REGRESSED" } else { "OK" },
            v.env,
            v.scenario,
            v.threads,
            v.run_id,
            j.reading(threshold)
        );
    }
}

/// JUnit XML: one test case per cell and figure, failed when it regressed.
fn junit(env: &str, verdicts: &[GateVerdict], threshold: f64) -> String {
    let mut cases = String::new();
    let mut tests = 0;
    let mut failures = 0;
    for v in verdicts {
        for (figure, j) in v.figures() {
            tests += 1;
            let name = format!("{}@{} {figure}", v.scenario, v.threads);
            cases.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\" time=\"0\">",
                xml(env),
                xml(&name)
            ));
            if j.regressed {
                failures += 1;
                let message = format!("run {}: {}", v.run_id, j.reading(threshold));
                cases.push_str(&format!("<failure message=\"{}\"/>", xml(&message)));
            }
            cases.push_str("</testcase>\n");
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dbdyno gate\" tests=\"{tests}\" failures=\"{failures}\">\n  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\">\n{cases}  </testsuite>\n</testsuites>\n",
        xml(&format!("dbdyno gate {env}"))
    )
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_escapes_names_and_counts_failures() {
        let text = junit("a&b <lab>", &[], 5.0);
        assert!(
            text.contains("name=\"dbdyno gate a&amp;b &lt;lab&gt;\""),
            "{text}"
        );
        assert!(text.contains("tests=\"0\" failures=\"0\""), "{text}");
    }
}
