//! `dbdyno report`: one run, or several environments against a baseline, as HTML, PDF,
//! Markdown, CSV and JSON (issue 5). Glue only: the model and the renderers live in
//! `dbdyno-report`.
//!
//! Input is `--input=FILE.json` (the `--json` document of `dbdyno run` / `dbdyno ladder`,
//! or report-run JSON) or `--runs=ID,…` (runs of the history, read through
//! `dbdyno_report::input::from_history`; `--baseline` then names a run id).
//!
//! Exit codes: 0 written; 1 a file could not be read or written; 2 bad options; 4 with
//! `--baseline`, at least one cell REGRESSED: the whole 95% interval of its Δ TPS or Δ p95
//! beyond `--threshold`, so that noise alone never fails a nightly cron alert.

use std::path::Path;
use std::process::ExitCode;

use dbdyno_engine::wording::count;
use dbdyno_history::HistoryError;
use dbdyno_report::input::from_history::report_run;
use dbdyno_report::input::name_apart;
use dbdyno_report::input::results_doc::runs_from_json;
use dbdyno_report::model::parse_timeline;
use dbdyno_report::render::{write_all, Outputs, PageSize};
use dbdyno_report::{build, ReportOptions, ReportRun};

pub use crate::args_report::ReportArgs;
use crate::exit::{EXIT_FAILED, EXIT_REGRESSED, EXIT_USAGE};

fn usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("FATAL: {msg}");
    ExitCode::from(EXIT_USAGE)
}

pub fn run(a: &ReportArgs) -> ExitCode {
    let page_size: PageSize = match a.page_size.parse() {
        Ok(p) => p,
        Err(e) => return usage(e),
    };
    let timeline = match a.timeline.as_deref().map(parse_timeline).transpose() {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let mut runs = match read_runs(a) {
        Ok(r) => r,
        Err(code) => return code,
    };
    if let Err(code) = rename(&mut runs, &a.env_names) {
        return code;
    }
    let outputs = match outputs(a, page_size) {
        Ok(o) => o,
        Err(code) => return code,
    };
    // Two runs of one environment get their ids in their names, as in the app's Compare.
    name_apart(&mut runs);
    let opts = ReportOptions {
        title: a.title.clone(),
        baseline: a.baseline.clone(),
        threshold_pct: a.threshold,
        fail_on_missing: a.fail_on_missing,
        timeline,
        sla: a.sla,
        ..ReportOptions::default()
    };
    render(&runs, &opts, &outputs, a.data_dir.as_deref())
}

/// The runs of `--runs` (from the history), then those of each input file.
fn read_runs(a: &ReportArgs) -> Result<Vec<ReportRun>, ExitCode> {
    let mut runs: Vec<ReportRun> = Vec::new();
    if !a.runs.is_empty() {
        runs = runs_from_history(&a.runs, a.data_dir.as_deref())?;
    }
    for path in &a.input {
        let text = std::fs::read_to_string(path).map_err(|e| {
            eprintln!("FATAL: reading {}: {e}", path.display());
            ExitCode::from(EXIT_FAILED)
        })?;
        let read = runs_from_json(&text, &path.display().to_string(), &file_stem(path));
        runs.extend(read.map_err(usage)?);
    }
    Ok(runs)
}

/// --env-names names the runs in the order they were read: one per --runs id, per
/// results document, and per run of a file holding an array of runs. Ids stay, so
/// --baseline may still name a run by its id.
fn rename(runs: &mut [ReportRun], names: &[String]) -> Result<(), ExitCode> {
    if names.is_empty() {
        return Ok(());
    }
    if names.len() != runs.len() {
        return Err(usage(format!(
            "--env-names gives {} for {}; the runs, in order: {}",
            count(names.len() as u32, "name"),
            count(runs.len() as u32, "run"),
            runs.iter()
                .map(|r| format!("{} ({})", r.id, r.label()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for (r, name) in runs.iter_mut().zip(names) {
        r.env_name = name.clone();
    }
    Ok(())
}

/// The files to write: every format in `--out-dir`, each replaced by its own option.
fn outputs(a: &ReportArgs, page_size: PageSize) -> Result<Outputs, ExitCode> {
    let mut outputs = match &a.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                eprintln!("FATAL: creating {}: {e}", dir.display());
                ExitCode::from(EXIT_FAILED)
            })?;
            Outputs::all_in(dir, page_size)
        }
        None => Outputs {
            page_size,
            ..Outputs::default()
        },
    };
    outputs.html = a.html.clone().or(outputs.html);
    outputs.pdf = a.pdf.clone().or(outputs.pdf);
    outputs.markdown = a.md.clone().or(outputs.markdown);
    outputs.csv = a.csv.clone().or(outputs.csv);
    outputs.json = a.json.clone().or(outputs.json);
    if outputs.is_empty() {
        return Err(usage(
            "nothing to write: give --html, --pdf, --md, --csv, --json or --out-dir",
        ));
    }
    Ok(outputs)
}

/// Builds the model, writes the files, prints the verdict; shared with `ladder --report`.
pub fn render(
    runs: &[ReportRun],
    opts: &ReportOptions,
    outputs: &Outputs,
    data_dir: Option<&Path>,
) -> ExitCode {
    let mut report = match build(runs, opts) {
        Ok(r) => r,
        Err(e) => return usage(e),
    };
    crate::cmd::hardware_records::attach_to_report(&mut report, data_dir);
    match write_all(&report, outputs) {
        Ok(files) => {
            for f in files {
                println!("wrote {}", f.display());
            }
        }
        Err(e) => {
            eprintln!("FATAL: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    }
    for s in report.executive_summary.iter().take(2) {
        println!("{s}");
    }
    if let Some(noise) = dbdyno_report::model::summary::noise_floors(&report) {
        println!("{noise}");
    }
    if report.regressed() {
        let (failed, missing, failures) = report
            .verdict
            .as_ref()
            .map(|v| (v.failed, v.missing, v.failures.as_slice()))
            .unwrap_or_default();
        let mut why = format!(
            "{} regressed beyond {}% (the whole 95% interval of Δ)",
            count(failed as u32, "cell"),
            report.threshold_pct
        );
        if report.fail_on_missing && missing > 0 {
            why.push_str(&format!(
                ", {} not comparable (--fail-on-missing)",
                count(missing as u32, "cell")
            ));
        }
        eprintln!(
            "REGRESSION: {why} against {}",
            report.env_name(report.baseline.unwrap_or(0))
        );
        for f in failures {
            eprintln!("  {f}");
        }
        return ExitCode::from(EXIT_REGRESSED);
    }
    ExitCode::SUCCESS
}

/// Reads runs of the history as report runs: exit code 2 for an id not there, 1 when the
/// history cannot be read.
fn runs_from_history(ids: &[i64], data_dir: Option<&Path>) -> Result<Vec<ReportRun>, ExitCode> {
    let h = crate::record::open_history(data_dir).map_err(|e| {
        eprintln!("FATAL: {e:#}");
        ExitCode::from(EXIT_FAILED)
    })?;
    ids.iter()
        .map(|&id| match h.load_run(id) {
            Ok(run) => Ok(report_run(&run)),
            Err(HistoryError::NoSuchRun(_)) => Err(usage(format!(
                "no run with id {id} in the history ({}); see dbdyno runs list",
                h.history().path().display()
            ))),
            Err(e) => {
                eprintln!("FATAL: reading run {id}: {e}");
                Err(ExitCode::from(EXIT_FAILED))
            }
        })
        .collect()
}

/// `dbdyno ladder --report=DIR` with the history on: the recorded run into every format.
pub fn after_ladder_from_history(dir: &Path, run_id: i64, data_dir: Option<&Path>) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("FATAL: --report: creating {}: {e}", dir.display());
        return ExitCode::from(EXIT_FAILED);
    }
    match runs_from_history(&[run_id], data_dir) {
        Ok(runs) => render(
            &runs,
            &ReportOptions::default(),
            &Outputs::all_in(dir, PageSize::A4),
            data_dir,
        ),
        Err(code) => code,
    }
}

/// `dbdyno ladder --report=DIR`: the run's own results document into every format.
pub fn after_ladder(dir: &Path, results_json: &Path) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("FATAL: --report: creating {}: {e}", dir.display());
        return ExitCode::from(EXIT_FAILED);
    }
    let text = match std::fs::read_to_string(results_json) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("FATAL: --report: reading {}: {e}", results_json.display());
            return ExitCode::from(EXIT_FAILED);
        }
    };
    // Name the environment after the server: its host name when monitored, else host:port.
    // (The document was just written by this run; one that does not read is refused by
    // `runs_from_json` below with its reason.)
    let doc = serde_json::from_str::<dbdyno_results::ResultsDocument>(&text).ok();
    let name = doc
        .as_ref()
        .and_then(|d| {
            let server = d.monitoring.as_ref()?.environment.server.as_ref()?;
            server.hostname.clone()
        })
        .or_else(|| {
            let c = &doc.as_ref()?.plan.connect;
            Some(match &c.socket {
                Some(sock) => sock.clone(),
                None => format!("{}:{}", c.host, c.port),
            })
        })
        .unwrap_or_else(|| "this run".to_string());
    let runs = match runs_from_json(&text, &results_json.display().to_string(), &name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("FATAL: --report: {e}");
            return ExitCode::from(EXIT_FAILED);
        }
    };
    render(
        &runs,
        &ReportOptions::default(),
        &Outputs::all_in(dir, PageSize::A4),
        None,
    )
}

fn file_stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/report")
            .join(name)
    }

    fn args(out: &Path, baseline: Option<&str>, threshold: f64) -> ReportArgs {
        ReportArgs {
            input: vec![fixture("three_envs.json")],
            runs: Vec::new(),
            data_dir: None,
            env_names: Vec::new(),
            baseline: baseline.map(str::to_string),
            threshold,
            fail_on_missing: false,
            timeline: Some("oltp_write_only@32".into()),
            sla: None,
            title: None,
            html: None,
            pdf: None,
            md: Some(out.join("r.md")),
            csv: Some(out.join("r.csv")),
            json: None,
            out_dir: None,
            page_size: "letter".into(),
        }
    }

    #[test]
    fn a_regression_against_the_baseline_exits_4_and_none_exits_0() {
        let out = std::env::temp_dir().join(format!("dbdyno-report-cli-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        assert_eq!(
            run(&args(&out, Some("idc"), 5.0)),
            ExitCode::from(EXIT_REGRESSED)
        );
        assert!(out.join("r.md").is_file() && out.join("r.csv").is_file());
        // Same data, no baseline chosen: verdicts are shown but do not fail.
        assert_eq!(run(&args(&out, None, 5.0)), ExitCode::SUCCESS);
        // A threshold wide enough passes every cell.
        assert_eq!(run(&args(&out, Some("idc"), 500.0)), ExitCode::SUCCESS);
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn cells_without_a_baseline_counterpart_fail_only_with_fail_on_missing() {
        let out =
            std::env::temp_dir().join(format!("dbdyno-report-missing-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        // The fixture with one step fewer for the baseline: that cell of the others
        // has nothing to be compared with.
        let mut runs: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixture("three_envs.json")).unwrap())
                .unwrap();
        let base = runs
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|r| r["env_name"] == "idc")
            .unwrap();
        base["steps"].as_array_mut().unwrap().pop();
        let input = out.join("missing.json");
        std::fs::write(&input, runs.to_string()).unwrap();
        let mut a = args(&out, Some("idc"), 500.0);
        a.input = vec![input];
        assert_eq!(run(&a), ExitCode::SUCCESS);
        let md = std::fs::read_to_string(out.join("r.md")).unwrap();
        assert!(md.contains("2 cells are not comparable"), "{md}");
        a.fail_on_missing = true;
        assert_eq!(run(&a), ExitCode::from(EXIT_REGRESSED));
        let md = std::fs::read_to_string(out.join("r.md")).unwrap();
        assert!(md.contains("FAIL: against the baseline idc"), "{md}");
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn a_latency_target_leads_the_report() {
        let out = std::env::temp_dir().join(format!("dbdyno-report-sla-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let mut a = args(&out, Some("idc"), 500.0);
        a.sla = Some(crate::args_shared::parse_sla("p95<=3ms").unwrap());
        assert_eq!(run(&a), ExitCode::SUCCESS);
        let md = std::fs::read_to_string(out.join("r.md")).unwrap();
        assert!(md.contains("## Capacity at p95 ≤ 3 ms"), "{md}");
        assert!(
            md.contains("- At p95 ≤ 3 ms in oltp_read_only, idc sustains "),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn env_names_rename_the_runs_inside_one_array_file() {
        let out = std::env::temp_dir().join(format!("dbdyno-report-names-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let mut a = args(&out, Some("idc"), 500.0);
        a.env_names = vec!["机房".into(), "hw".into(), "ali".into()];
        a.md = Some(out.join("n.md"));
        assert_eq!(run(&a), ExitCode::SUCCESS);
        let md = std::fs::read_to_string(out.join("n.md")).unwrap();
        assert!(md.contains("| 机房 (baseline) | hw | ali |"), "{md}");
        let _ = std::fs::remove_dir_all(&out);
    }

    #[test]
    fn bad_options_are_usage_errors() {
        let out = std::env::temp_dir();
        let mut a = args(&out, Some("nope"), 5.0);
        a.md = None;
        a.csv = None;
        a.json = Some(out.join("never-written.json"));
        assert_eq!(run(&a), ExitCode::from(EXIT_USAGE));
        let mut a = args(&out, None, 5.0);
        a.page_size = "a3".into();
        assert_eq!(run(&a), ExitCode::from(EXIT_USAGE));
        let mut a = args(&out, None, 5.0);
        a.timeline = Some("oltp_write_only".into());
        assert_eq!(run(&a), ExitCode::from(EXIT_USAGE));
        // A step no environment ran.
        let mut a = args(&out, None, 5.0);
        a.timeline = Some("oltp_write_only@3".into());
        assert_eq!(run(&a), ExitCode::from(EXIT_USAGE));
        // Two names for the three runs of the file.
        let mut a = args(&out, None, 5.0);
        a.env_names = vec!["a".into(), "b".into()];
        assert_eq!(run(&a), ExitCode::from(EXIT_USAGE));
    }
}
