//! The hardware tests on the real binary: a small fileio prepare, run and cleanup in a
//! directory of its own leaves no file behind, its figures read back through the
//! sysbench parser, and bad values are refused in one line before anything is written.

use dbdyno_hwtest::{parse_sysbench_hwtest, HwTestResult, TestFigures};
use dbdyno_tests::*;

fn fileio(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let dir_arg = format!("--file-dir={}", dir.display());
    dbdyno_cmd()
        .args(["fileio", "--file-num=4", "--file-total-size=4M", &dir_arg])
        .args(args)
        .output()
        .unwrap()
}

fn files_in(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn fileio_prepare_run_cleanup_leaves_no_file_behind() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&fileio(dir.path(), &["prepare"]));
    assert!(out.contains("Creating file test_file.3"), "{out}");
    let mut names = files_in(dir.path());
    names.sort();
    assert_eq!(
        names,
        ["test_file.0", "test_file.1", "test_file.2", "test_file.3"]
    );
    let len = std::fs::metadata(dir.path().join("test_file.0"))
        .unwrap()
        .len();
    assert_eq!(len, 1 << 20);

    // The text run: sysbench's layout, read back by the parser.
    let text = ok(&fileio(
        dir.path(),
        &[
            "--file-test-mode=rndrw",
            "--events=500",
            "--time=0",
            "--threads=2",
            "run",
        ],
    ));
    let r = parse_sysbench_hwtest(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(r.threads, 2);
    assert_eq!(r.total_events, 500);
    let TestFigures::FileIo(f) = &r.test else {
        panic!("{r:?}")
    };
    assert!(f.reads_per_s > 0.0 && f.writes_per_s > 0.0, "{text}");
    // Every 100 requests each of the 4 files is fsynced: at least 4 rounds in 500 events.
    assert!(f.fsyncs_per_s > 0.0, "{text}");
    assert_eq!(f.setup.as_ref().unwrap().file_num, 4);

    // The JSON run: the same result type.
    let json = ok(&fileio(
        dir.path(),
        &[
            "--file-test-mode=seqrd",
            "--events=100",
            "--time=0",
            "--json=-",
            "run",
        ],
    ));
    let r: HwTestResult = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    let TestFigures::FileIo(f) = &r.test else {
        panic!("{r:?}")
    };
    assert_eq!(
        (r.total_events, f.writes_per_s, f.fsyncs_per_s),
        (100, 0.0, 0.0)
    );
    assert_eq!(r.options["file-test-mode"], "seqrd");

    // seqwr makes the files anew and writes them from the start.
    let text = ok(&fileio(
        dir.path(),
        &["--file-test-mode=seqwr", "--events=40", "--time=0", "run"],
    ));
    let TestFigures::FileIo(f) = parse_sysbench_hwtest(&text).unwrap().test else {
        panic!("{text}")
    };
    assert_eq!(f.reads_per_s, 0.0, "{text}");
    assert!(f.written_mib_per_s > 0.0, "{text}");

    ok(&fileio(dir.path(), &["cleanup"]));
    assert_eq!(files_in(dir.path()), Vec::<String>::new());
}

#[test]
fn bad_values_are_refused_in_one_line_before_any_file_is_written() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (
            &["--file-test-mode=rnd", "run"][..],
            "FATAL: --file-test-mode=rnd: expected one of seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw",
        ),
        (&["--file-block-size=0", "prepare"], "FATAL: --file-block-size=0: expected a whole number above 0"),
        (&["--file-io-mode=async", "prepare"], "FATAL: --file-io-mode=async: Linux native AIO is not implemented"),
        (&["--cpu-max-prime=5", "prepare"], "FATAL: --cpu-max-prime: not an option of the fileio test"),
        (&["run"], "FATAL: missing required argument: --file-test-mode"),
    ] {
        let o = fileio(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with(says), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
    assert_eq!(files_in(dir.path()), Vec::<String>::new());
}

#[test]
fn a_run_without_its_files_says_to_prepare() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let o = fileio(dir.path(), &["--file-test-mode=rndrd", "--time=1", "run"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("test_file.0"), "{}", stderr(&o));
}
