//! The import's policies on real sysbench logs (the project's fixtures): duplicates
//! refused, skipped or imported again; all or nothing, or file by file; the options
//! checked before any file is read. The CLI's wording is tested in tests/it/import.rs.

use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sysbench")
        .join(name)
}

fn history() -> (tempfile::TempDir, BlockingHistory) {
    let dir = tempfile::tempdir().unwrap();
    let h = BlockingHistory::open(dir.path()).unwrap();
    (dir, h)
}

fn opts(duplicates: Duplicates, all_or_nothing: bool) -> SysbenchImport {
    SysbenchImport {
        duplicates,
        all_or_nothing,
        ..SysbenchImport::new("imp")
    }
}

#[test]
fn a_skipped_duplicate_is_listed_with_the_run_it_repeats() {
    let (_d, h) = history();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copied.log");
    std::fs::copy(fixture("read_only_p99.txt"), &copy).unwrap();
    let first = import_sysbench(
        &h,
        &[fixture("read_only_p99.txt")],
        &opts(Duplicates::Refuse, true),
    )
    .unwrap();
    let id = first.imported[0].run_id;
    assert_eq!(first.imported[0].file, "read_only_p99.txt");
    assert_eq!(
        first.imported[0].steps,
        vec![(Scenario::OltpReadOnly, 2)],
        "guessed from the mix"
    );
    assert!(first.notes.iter().any(|n| matches!(
        n,
        ImportNote::ScenarioGuessed {
            scenario: Scenario::OltpReadOnly,
            ..
        }
    )));

    let o = opts(Duplicates::Skip, false);
    let again = import_sysbench(&h, &[copy.clone(), fixture("oltp_insert.txt")], &o).unwrap();
    assert_eq!(
        again.duplicates,
        vec![Duplicate {
            path: copy.clone(),
            of: Earlier::Run {
                id,
                file: "read_only_p99.txt".into()
            }
        }]
    );
    assert_eq!(again.imported.len(), 1, "the other file is imported");
    assert!(again.refused.is_empty());

    // The same content twice in one import: the second is the duplicate.
    let twice = import_sysbench(
        &h,
        &[
            fixture("seed_003_article.txt"),
            fixture("seed_003_article.txt"),
        ],
        &o,
    )
    .unwrap();
    assert_eq!(twice.imported.len(), 1);
    assert_eq!(
        twice.duplicates[0].of,
        Earlier::GivenBefore {
            file: "seed_003_article.txt".into()
        }
    );

    let refused = import_sysbench(
        &h,
        std::slice::from_ref(&copy),
        &opts(Duplicates::Refuse, true),
    )
    .unwrap();
    assert!(matches!(&refused.refused[..], [FileError::Duplicate(d)] if d.path == copy));
    let forced = import_sysbench(&h, &[copy], &opts(Duplicates::ImportAgain, true)).unwrap();
    assert_eq!(forced.imported.len(), 1);
    assert_eq!(h.list_runs(Some("imp")).unwrap().len(), 4);
}

#[test]
fn file_by_file_imports_the_good_ones_and_all_or_nothing_none() {
    let (_d, h) = history();
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("notes.txt");
    std::fs::write(&garbage, "General statistics:\n    total time:   sixty\n").unwrap();
    let writes = dir.path().join("writes.txt");
    std::fs::copy(fixture("oltp_insert.txt"), &writes).unwrap();
    let files = [
        fixture("read_only_p99.txt"),
        garbage.clone(),
        writes.clone(),
    ];

    let none = import_sysbench(&h, &files, &opts(Duplicates::Refuse, true)).unwrap();
    assert!(none.imported.is_empty() && none.notes.is_empty());
    assert_eq!(none.refused.len(), 1, "stops at the first refused file");
    assert!(matches!(&none.refused[0], FileError::Parse { path, .. } if *path == garbage));
    assert!(h.list_runs(None).unwrap().is_empty());

    let some = import_sysbench(&h, &files, &opts(Duplicates::Skip, false)).unwrap();
    assert_eq!(some.imported.len(), 1);
    let paths: Vec<&Path> = some.refused.iter().map(FileError::path).collect();
    assert_eq!(paths, [garbage.as_path(), writes.as_path()]);
    assert!(
        matches!(
            &some.refused[1],
            FileError::UnknownScenario {
                mix: StatementMix::WritesOnly,
                ..
            }
        ),
        "{}",
        some.refused[1]
    );
    assert_eq!(h.list_runs(None).unwrap().len(), 1);
}

#[test]
fn options_are_checked_before_any_file_is_read() {
    let (_d, h) = history();
    let missing = [PathBuf::from("/nonexistent/a.log")];
    let e = import_sysbench(&h, &missing, &SysbenchImport::new("a b")).unwrap_err();
    assert!(matches!(e, ImportError::BadEnv { .. }), "{e}");
    let o = SysbenchImport {
        started_at_ms: Some(0),
        ..SysbenchImport::new("x")
    };
    let two = [fixture("oltp_insert.txt"), fixture("read_only_p99.txt")];
    assert!(matches!(
        import_sysbench(&h, &two, &o),
        Err(ImportError::StartOfManyFiles)
    ));
    let r = import_sysbench(&h, &missing, &SysbenchImport::new("x")).unwrap();
    assert!(matches!(&r.refused[..], [FileError::Read { .. }]));
}

#[test]
fn steps_follow_one_another_from_the_given_start() {
    let (_d, h) = history();
    let o = SysbenchImport {
        started_at_ms: Some(1_741_064_767_000),
        ..SysbenchImport::new("t")
    };
    let r = import_sysbench(&h, &[fixture("shell_loop_read_only_1_4.log")], &o).unwrap();
    assert!(
        !r.notes
            .iter()
            .any(|n| matches!(n, ImportNote::DatedByFileTime { .. })),
        "the start is given: {:?}",
        r.notes
    );
    let run = h.load_run(r.imported[0].run_id).unwrap();
    let mut at = 1_741_064_767_000;
    for s in &run.steps {
        assert_eq!(s.result.started_unix_ms, at);
        at = s.result.ended_unix_ms;
    }
    assert_eq!(run.ended_at_ms, Some(at));
    assert_eq!(
        run.environment.as_ref().unwrap()["import"]["started_at_from"],
        "--started-at"
    );
}

#[test]
fn a_log_without_interval_lines_gets_no_confidence_and_says_so() {
    let (_d, h) = history();
    let o = SysbenchImport {
        started_at_ms: Some(1_741_064_767_000),
        ..SysbenchImport::new("t")
    };
    let bare = import_sysbench(&h, &[fixture("oltp_write_only_no_intervals.txt")], &o).unwrap();
    let said: Vec<String> = bare
        .notes
        .iter()
        .filter(|n| matches!(n, ImportNote::NoIntervals { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(said.len(), 1, "{:?}", bare.notes);
    assert!(
        said[0].contains("no interval lines, so the step has no confidence intervals"),
        "{said:?}"
    );
    let run = h.load_run(bare.imported[0].run_id).unwrap();
    assert_eq!(run.steps[0].result.confidence, None);
    // With interval lines: the confidence is made from them, and nothing is said.
    let with = import_sysbench(&h, &[fixture("oltp_read_write_intervals.txt")], &o).unwrap();
    assert!(!with
        .notes
        .iter()
        .any(|n| matches!(n, ImportNote::NoIntervals { .. })));
    let run = h.load_run(with.imported[0].run_id).unwrap();
    let r = &run.steps[0].result;
    assert_eq!(
        r.confidence,
        Some(dbdyno_engine::stats::StepConfidence::of_step(r))
    );
}

/// A real `sysbench ./tpcc.lua --scale=1 --threads=2 --time=5 --report-interval=1 run`
/// log: filed as tpcc, its printed figures kept exactly, and tpmC left out (and said so)
/// because the log counts no New-Orders.
#[test]
fn a_sysbench_tpcc_log_is_filed_as_tpcc_with_its_printed_figures() {
    let (_d, h) = history();
    let o = SysbenchImport {
        started_at_ms: Some(1_741_064_767_000),
        ..SysbenchImport::new("t")
    };
    let by_name = import_sysbench(&h, &[fixture("sysbench_tpcc_scale1_run.txt")], &o).unwrap();
    assert_eq!(by_name.imported[0].steps, vec![(Scenario::Tpcc, 2)]);
    let said: Vec<String> = by_name.notes.iter().map(ToString::to_string).collect();
    assert!(
        by_name
            .notes
            .iter()
            .any(|n| matches!(n, ImportNote::TpmcUnknown { line: 1, .. })),
        "{said:?}"
    );
    assert!(
        said.iter().any(|n| n.contains("no tpmC or NOPM")),
        "{said:?}"
    );

    let run = h.load_run(by_name.imported[0].run_id).unwrap();
    let r = &run.steps[0].result;
    assert_eq!(r.tpcc, None, "sysbench-tpcc prints no New-Order count");
    assert_eq!(r.transactions, 1921);
    assert_eq!(
        (r.queries.read, r.queries.write, r.queries.other),
        (25813, 26864, 3848)
    );
    assert_eq!(r.ignored_errors, 4);
    assert_eq!(r.total_time_s, 5.0534);
    let printed = r.printed.as_ref().unwrap();
    assert_eq!((printed.tps, printed.qps), (380.12, 11184.80));
    assert_eq!(r.latency_pct_ms, 14.73);
    assert_eq!(r.latency.avg_ms, 5.23);
    assert_eq!(r.intervals.len(), 5);

    // Under a name that says nothing, the statement mix tells it: about 14 writes per
    // transaction, which no OLTP script prints with its defaults.
    let dir = tempfile::tempdir().unwrap();
    let anonymous = dir.path().join("run.log");
    std::fs::copy(fixture("sysbench_tpcc_scale1_run.txt"), &anonymous).unwrap();
    let o = SysbenchImport {
        duplicates: Duplicates::ImportAgain,
        ..o
    };
    let by_mix = import_sysbench(&h, &[anonymous], &o).unwrap();
    assert_eq!(by_mix.imported[0].steps, vec![(Scenario::Tpcc, 2)]);
    assert!(by_mix.notes.iter().any(|n| matches!(
        n,
        ImportNote::ScenarioGuessed {
            scenario: Scenario::Tpcc,
            ..
        }
    )));
}

/// oltp_read_write's own mix (4 writes per transaction) stays oltp_read_write.
#[test]
fn an_oltp_read_write_mix_is_not_taken_for_tpcc() {
    let (_d, h) = history();
    let dir = tempfile::tempdir().unwrap();
    let anonymous = dir.path().join("run.log");
    std::fs::copy(fixture("oltp_read_write_intervals.txt"), &anonymous).unwrap();
    let o = SysbenchImport {
        started_at_ms: Some(1_741_064_767_000),
        ..SysbenchImport::new("t")
    };
    let r = import_sysbench(&h, &[anonymous], &o).unwrap();
    assert_eq!(r.imported[0].steps, vec![(Scenario::OltpReadWrite, 2)]);
    assert!(!r
        .notes
        .iter()
        .any(|n| matches!(n, ImportNote::TpmcUnknown { .. })));
}
