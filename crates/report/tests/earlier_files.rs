//! Results that earlier versions wrote still load as this version's types and make a
//! report: `--json` files of layouts 1 and 2, and a history database
//! (tests/fixtures/results/README.md says which versions wrote them).

mod support;

use std::path::PathBuf;

use dbdyno_history::{BlockingHistory, RunSource};
use dbdyno_report::input::from_history::report_run;
use dbdyno_report::input::results_doc::runs_from_json;
use dbdyno_report::{build, ReportRun};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/results")
        .join(name)
}

/// What a monitored two-step ladder of the fixtures must still give a report.
fn assert_monitored_ladder(r: &ReportRun) {
    assert_eq!(r.steps.len(), 2, "{}", r.id);
    let plan = r.plan.as_ref().expect("the plan is read");
    assert_eq!((plan.workload.tables, plan.workload.table_size), (1, 1000));
    assert_eq!(r.environment.flavour.as_deref(), Some("mariadb"));
    assert!(r
        .environment
        .mysql_version
        .as_deref()
        .is_some_and(|v| v.contains("MariaDB")));
    assert!(r.environment.buffer_pool_gb.is_some());
    for s in &r.steps {
        let server = s.server.as_ref().expect("each step's server figures");
        assert!(
            server.cpu_pct_avg > 0.0 && server.samples >= 1,
            "{server:?}"
        );
        assert!(!server.per_second.is_empty(), "each step's server seconds");
        assert!(s.mysql.as_ref().is_some_and(|m| m.hit_rate_pct.is_some()));
    }
}

#[test]
fn json_files_of_layouts_1_and_2_still_load_and_make_a_report() {
    for (name, env) in [("v1_ladder.json", "v1"), ("v2_ladder.json", "v2")] {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let runs = runs_from_json(&text, name, env).unwrap();
        assert_monitored_ladder(&runs[0]);
        let report = build(&runs, &support::opts(None)).unwrap();
        assert!(
            report.appendix[0].reproduce.is_some(),
            "{name}: the command rebuilt"
        );
    }
}

#[test]
fn a_history_written_by_an_earlier_version_still_loads_and_makes_a_report() {
    // Opened from a copy: opening may bring the database's layout up to date.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("history_v2/history.sqlite3"),
        dir.path().join(dbdyno_history::DB_FILE_NAME),
    )
    .unwrap();
    let h = BlockingHistory::open(dir.path()).unwrap();
    let summaries = h.list_runs(None).unwrap();
    assert_eq!(summaries.len(), 2);
    let ladder = h.load_run(1).unwrap();
    assert!(
        ladder.warnings.iter().all(|w| !w.text.contains("left out")),
        "{:?}",
        ladder.warnings
    );
    assert!(ladder.monitoring.is_some() && !ladder.server_samples.is_empty());
    assert!(!ladder.mysql_samples.is_empty());
    let ladder = report_run(&ladder);
    assert_monitored_ladder(&ladder);
    assert_eq!(
        ladder.labels.get("ticket").map(String::as_str),
        Some("DB-1")
    );
    let imported = h.load_run(2).unwrap();
    assert_eq!(imported.source, RunSource::Import);
    assert!(imported.plan.is_none() && imported.monitoring.is_none());
    let imported = report_run(&imported);
    assert_eq!(imported.steps.len(), 1);
    build(&[ladder, imported], &support::opts(Some("1"))).unwrap();
}

#[test]
fn json_files_of_layouts_1_and_2_import_into_the_history() {
    use dbdyno_history::import_results::{import_results, ResultsImport};
    let dir = tempfile::tempdir().unwrap();
    let h = BlockingHistory::open(dir.path()).unwrap();
    for name in ["v1_ladder.json", "v2_ladder.json"] {
        let text = std::fs::read_to_string(fixture(name)).unwrap();
        let opts = ResultsImport {
            env: Some(name.into()),
            force: false,
        };
        let imported = import_results(&h, &text, name, &opts).unwrap();
        assert_eq!(imported.steps, 2);
        let run = h.load_run(imported.run_id).unwrap();
        assert!(!run.server_samples.is_empty() && !run.mysql_samples.is_empty());
        assert_monitored_ladder(&report_run(&run));
    }
}
