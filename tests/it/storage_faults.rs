//! The history's disk fails under a run (docs/history.md, "What is never lost"): a
//! small tmpfs as the history's directory, filled before the run or during it, or
//! remounted read-only under it. In each: the run never hangs, every measured step
//! reaches the spill file (fallbacks included), the end says so in one line with the
//! command that brings it in, the exit code is its own (6), `dbdyno import results`
//! brings every step into the history, and the history still opens.
//!
//! Mounting needs root (CI runs as root): elsewhere these tests skip, saying why,
//! unless CI is set, where they fail instead.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dbdyno_tests::*;
use serde_json::Value;

/// The exit code of a run whose results are not (all) in the history (crates/cli/src/exit.rs).
const EXIT_NOT_RECORDED: i32 = 6;

/// Longest a faulted run may take before it counts as hung: its steps (6 × 2 s), the
/// history writer's deadline at the end (30 s), and room for a loaded machine.
const HANG: Duration = Duration::from_secs(100);

/// A tmpfs of its own, unmounted when dropped whatever happened (a panic included).
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// A `size` tmpfs (mount's `size=`, "3m"), or None when this machine does not let
    /// the test mount one (not root): said on stderr, and a failure under CI.
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let o = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output();
        let why = match o {
            Ok(o) if o.status.success() => return Some(Tmpfs { dir }),
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => format!("cannot run mount: {e}"),
        };
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root and must mount a tmpfs for the storage fault tests: {why}"
        );
        eprintln!("SKIPPED: the storage fault tests mount a tmpfs, which needs root: {why}");
        None
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes one file until the file system is full (ENOSPC); returns it.
    fn fill(&self) -> PathBuf {
        let path = self.path().join("filler");
        let mut f = std::fs::File::create(&path).unwrap();
        let block = vec![0xa5u8; 64 * 1024];
        loop {
            match f.write_all(&block) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(28) => break,
                Err(e) => panic!("filling the tmpfs: {e}"),
            }
        }
        // The last partial block: whatever fits byte by byte is taken too.
        while f.write_all(&[0u8]).is_ok() {}
        let _ = f.sync_all();
        path
    }

    fn remount(&self, mode: &str) {
        let o = Command::new("mount")
            .args(["-o", &format!("remount,{mode}")])
            .arg(self.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "remount {mode}: {}", stderr(&o));
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let unmounted = Command::new("umount")
            .arg(self.path())
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            // Busy (a process of a failed test still has a file open): detach it now,
            // the kernel frees it once the last file closes.
            let _ = Command::new("umount").arg("-l").arg(self.path()).status();
        }
    }
}

/// A ladder started in the background with its output collected as it comes.
struct Running {
    child: Child,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
}

impl Running {
    fn start(s: &TestSchema, args: &[String], tmp: &Path) -> Running {
        let mut all = args.to_vec();
        all.extend(s.mysql_args());
        let mut child = dbdyno_cmd()
            .args(&all)
            .env("MYSQL_PWD", &s.sandbox.password)
            // The temporary directory of the spill file's last fallback: the test's own.
            .env("TMPDIR", tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let collect = |r: Box<dyn std::io::Read + Send>| {
            let text = Arc::new(Mutex::new(String::new()));
            let t = text.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(r).lines().map_while(Result::ok) {
                    let mut t = t.lock().unwrap();
                    t.push_str(&line);
                    t.push('\n');
                }
            });
            text
        };
        let out = collect(Box::new(child.stdout.take().unwrap()));
        let err = collect(Box::new(child.stderr.take().unwrap()));
        Running { child, out, err }
    }

    /// Waits until the run has finished `n` steps (its ladder lines say so).
    fn wait_for_steps(&mut self, n: usize) {
        let t0 = Instant::now();
        while finished_steps(&self.out.lock().unwrap()) < n {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!(
                    "the run ended ({status}) before {n} step(s):\n{}\n{}",
                    self.out(),
                    self.err()
                );
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "no {n} step(s) in 60 s:\n{}",
                self.out()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The exit code, or a failure naming the hang (the process is killed first).
    fn wait(mut self) -> (i32, String, String, Duration) {
        let t0 = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // The readers end with the pipes.
                std::thread::sleep(Duration::from_millis(200));
                return (
                    status.code().unwrap_or(-1),
                    self.out(),
                    self.err(),
                    t0.elapsed(),
                );
            }
            if t0.elapsed() > HANG {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "the run hung: still going {} s after the fault, killed\nstdout:\n{}\nstderr:\n{}",
                    HANG.as_secs(),
                    self.out(),
                    self.err()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn out(&self) -> String {
        self.out.lock().unwrap().clone()
    }

    fn err(&self) -> String {
        self.err.lock().unwrap().clone()
    }
}

/// How many ladder steps the output says finished (one "oltp_point_select threads=1
/// … tps=…" line each).
fn finished_steps(out: &str) -> usize {
    out.lines()
        .filter(|l| l.starts_with("oltp_point_select threads=") && l.contains(" tps="))
        .count()
}

/// A ladder of `steps` one-thread point_select steps of 2 s each, recorded in `data`.
fn ladder_args(steps: usize, data: &Path, extra: &[String]) -> Vec<String> {
    let ladder = vec!["1"; steps].join(",");
    let mut a: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        &format!("--ladder={ladder}"),
        "--time=2",
        "--tables=1",
        "--table-size=1000",
        "--env=storage-faults",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(data_dir_arg(data));
    a.extend_from_slice(extra);
    a
}

/// The spill file the run's last line names, with what it says: the line is one line,
/// it names the file and the command that brings it in.
fn spill_of(err: &str) -> (PathBuf, String) {
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("NOT IN THE HISTORY:"))
        .collect();
    assert_eq!(lines.len(), 1, "one line says it:\n{err}");
    let line = lines[0].to_string();
    let cmd = "dbdyno import results ";
    let at = line
        .find(cmd)
        .unwrap_or_else(|| panic!("no import command: {line}"));
    let path = line[at + cmd.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches([')', '.', ','])
        .to_string();
    (PathBuf::from(path), line)
}

fn steps_in(doc: &Value) -> usize {
    doc["outcome"]["steps"].as_array().map_or(0, Vec::len)
}

/// Imports `spill` into `data` and returns the history's runs afterwards (the history
/// opens), asserting the imported run holds `steps` steps.
fn import_into(data: &Path, spill: &Path, steps: usize) -> Value {
    let o = dbdyno_cmd()
        .args(["import", "results"])
        .arg(spill)
        .arg(data_dir_arg(data))
        .output()
        .unwrap();
    let said = ok(&o);
    assert!(
        said.contains(&dbdyno_engine::wording::count(steps as u32, "step")),
        "the import says what it brought in: {said}"
    );
    let o = dbdyno_cmd()
        .args(["runs", "list", "--json"])
        .arg(data_dir_arg(data))
        .output()
        .unwrap();
    let list: Value = serde_json::from_str(&ok(&o)).unwrap();
    let imported = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["env"] == "storage-faults" && r["steps"] == steps as u64)
        .unwrap_or_else(|| panic!("a run of {steps} steps in {list}"));
    let id = imported["id"].as_i64().unwrap();
    let shown = runs_show(data, id);
    assert_eq!(shown["steps"].as_array().unwrap().len(), steps);
    for st in shown["steps"].as_array().unwrap() {
        assert!(st["result"]["transactions"].as_u64().unwrap() > 0, "{st}");
    }
    list
}

#[test]
fn a_history_that_fills_mid_ladder_loses_no_step_and_the_run_ends_saying_so() {
    let _g = shared_server();
    let Some(fs) = Tmpfs::mount("3m") else {
        return;
    };
    let s = TestSchema::new("fillmid");
    s.prepare_one_table("oltp_point_select", 1000);
    let tmp = tempfile::tempdir().unwrap();
    let data = fs.path().join("history");
    let mut run = Running::start(&s, &ladder_args(6, &data, &[]), tmp.path());
    run.wait_for_steps(2);
    let filler = fs.fill();
    let (code, out, err, after) = run.wait();
    eprintln!(
        "filled after 2 steps: the run ended {:.1} s later",
        after.as_secs_f64()
    );
    assert_eq!(finished_steps(&out), 6, "every step measured:\n{out}");
    assert_eq!(code, EXIT_NOT_RECORDED, "stdout:\n{out}\nstderr:\n{err}");
    let (spill, line) = spill_of(&err);
    // The history's disk is the full one: the spill file went to the temporary directory.
    assert!(spill.starts_with(tmp.path()), "{line}");
    assert!(line.contains("6 steps"), "{line}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&spill).unwrap()).unwrap();
    assert_eq!(steps_in(&doc), 6, "every step in the spill file");
    assert_eq!(doc["record"]["state"], "complete", "{}", doc["record"]);
    // Room again: the import brings the run in, replacing the partial record.
    std::fs::remove_file(filler).unwrap();
    let list = import_into(&data, &spill, 6);
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "the partial record is replaced: {list}"
    );
    assert_eq!(list[0]["state"], "complete");
    // The same file again is refused (it is in the history).
    let o = dbdyno_cmd()
        .args(["import", "results"])
        .arg(&spill)
        .arg(data_dir_arg(&data))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("already in the history"),
        "{}",
        stderr(&o)
    );
}

/// `--on-history-error=stop`: the run stops at the fault as Ctrl-C does, and the steps
/// it ran are in the spill file.
#[test]
fn the_stop_policy_ends_the_run_at_the_fault_keeping_its_steps() {
    let _g = shared_server();
    let Some(fs) = Tmpfs::mount("3m") else {
        return;
    };
    let s = TestSchema::new("fillstop");
    s.prepare_one_table("oltp_point_select", 1000);
    let tmp = tempfile::tempdir().unwrap();
    let data = fs.path().join("history");
    let extra = ["--on-history-error=stop".to_string()];
    let mut run = Running::start(&s, &ladder_args(8, &data, &extra), tmp.path());
    run.wait_for_steps(2);
    let filler = fs.fill();
    let (code, out, err, _) = run.wait();
    let ran = finished_steps(&out);
    assert!((2..8).contains(&ran), "stopped early: {ran} step(s)\n{out}");
    assert_eq!(code, EXIT_NOT_RECORDED, "stdout:\n{out}\nstderr:\n{err}");
    let (spill, line) = spill_of(&err);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&spill).unwrap()).unwrap();
    assert_eq!(steps_in(&doc), ran, "{line}");
    assert_eq!(doc["record"]["state"], "cancelled", "{}", doc["record"]);
    std::fs::remove_file(filler).unwrap();
    import_into(&data, &spill, ran);
}

#[test]
fn a_full_history_refuses_the_run_before_any_load_unless_a_spill_directory_takes_it() {
    let _g = shared_server();
    let Some(fs) = Tmpfs::mount("3m") else {
        return;
    };
    let s = TestSchema::new("fullstart");
    let data = fs.path().join("history");
    std::fs::create_dir_all(&data).unwrap();
    let filler = fs.fill();
    let tmp = tempfile::tempdir().unwrap();
    // With --prepare: a run that got as far as the server would create its table.
    let prepare = ["--prepare".to_string()];
    let (code, out, err, _) =
        Running::start(&s, &ladder_args(2, &data, &prepare), tmp.path()).wait();
    assert_eq!(
        code, 1,
        "refused before the run:\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert!(
        err.contains("history.directory") && err.contains("No space left on device"),
        "{err}"
    );
    assert!(err.contains("--spill-dir"), "the fix is said: {err}");
    assert!(
        s.tables().is_empty(),
        "nothing was sent to the server: {:?}",
        s.tables()
    );
    assert_eq!(finished_steps(&out), 0);

    // A spill directory that works lets it run; the results land there.
    let spill_dir = tempfile::tempdir().unwrap();
    let extra = [
        "--prepare".to_string(),
        format!("--spill-dir={}", spill_dir.path().display()),
    ];
    let (code, out, err, _) = Running::start(&s, &ladder_args(2, &data, &extra), tmp.path()).wait();
    assert_eq!(code, EXIT_NOT_RECORDED, "stdout:\n{out}\nstderr:\n{err}");
    assert_eq!(finished_steps(&out), 2, "{out}");
    let (spill, line) = spill_of(&err);
    assert!(spill.starts_with(spill_dir.path()), "{line}");
    assert!(line.contains("not in the history"), "{line}");
    std::fs::remove_file(filler).unwrap();
    let list = import_into(&data, &spill, 2);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
}

/// A file system remounted read-only under a history that holds runs. (Remounting it
/// under a run is refused by the kernel while the database is open for writing, so the
/// remount comes between runs; the fills above cover a fault mid-run.)
#[test]
fn a_read_only_history_refuses_the_run_unless_a_spill_directory_takes_it() {
    let _g = shared_server();
    let Some(fs) = Tmpfs::mount("16m") else {
        return;
    };
    let s = TestSchema::new("rohist");
    s.prepare_one_table("oltp_point_select", 1000);
    let tmp = tempfile::tempdir().unwrap();
    let data = fs.path().join("history");
    let (code, out, err, _) = Running::start(&s, &ladder_args(1, &data, &[]), tmp.path()).wait();
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    fs.remount("ro");
    let (code, out, err, _) = Running::start(&s, &ladder_args(2, &data, &[]), tmp.path()).wait();
    assert_eq!(
        code, 1,
        "refused before the run:\nstdout:\n{out}\nstderr:\n{err}"
    );
    assert!(
        err.contains("history.directory") && err.contains("Read-only file system"),
        "{err}"
    );
    assert_eq!(finished_steps(&out), 0, "{out}");
    let spill_dir = tempfile::tempdir().unwrap();
    let extra = [format!("--spill-dir={}", spill_dir.path().display())];
    let (code, out, err, _) = Running::start(&s, &ladder_args(2, &data, &extra), tmp.path()).wait();
    assert_eq!(code, EXIT_NOT_RECORDED, "stdout:\n{out}\nstderr:\n{err}");
    assert_eq!(finished_steps(&out), 2, "{out}");
    let (spill, line) = spill_of(&err);
    assert!(
        spill.starts_with(spill_dir.path()),
        "the given directory: {line}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&spill).unwrap()).unwrap();
    assert_eq!(steps_in(&doc), 2);
    fs.remount("rw");
    let list = import_into(&data, &spill, 2);
    assert_eq!(
        list.as_array().unwrap().len(),
        2,
        "the earlier run is still there: {list}"
    );
}
