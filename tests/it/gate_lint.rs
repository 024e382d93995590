//! The gate holds only if every integration test passes it (`tests/support/gate.rs`):
//! read the test sources and name each test that takes no guard, or takes another lock
//! after it.

use std::path::{Path, PathBuf};

use dbdyno_tests::shared_server;

/// What a test calls to pass the gate.
const GUARDS: [&str; 3] = [
    "shared_server()",
    "shared_server_long()",
    "exclusive_server()",
];
/// Other locks tests take; the gate's guard must come after them.
const OTHER_LOCKS: [&str; 3] = ["sshd::", "serial()", ".lock()"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each `#[test]` function of `source`: its name and its body's lines.
fn test_functions(source: &str) -> Vec<(String, Vec<&str>)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut tests = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[test]" {
            i += 1;
            continue;
        }
        let Some(at) = (i..lines.len()).find(|&j| lines[j].trim_start().starts_with("fn ")) else {
            break;
        };
        let signature = lines[at];
        let indent = &signature[..signature.len() - signature.trim_start().len()];
        let name = signature.trim_start()["fn ".len()..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default()
            .to_string();
        // rustfmt closes the function at its own indentation.
        let end = (at + 1..lines.len())
            .find(|&j| lines[j] == format!("{indent}}}"))
            .unwrap_or(lines.len());
        tests.push((name, lines[at + 1..end].to_vec()));
        i = end;
    }
    tests
}

/// Why the test does not pass the gate properly, if it does not.
fn problem(body: &[&str]) -> Option<String> {
    let first = |needles: &[&str]| {
        body.iter()
            .position(|l| needles.iter().any(|n| l.contains(n)))
    };
    let Some(guard) = first(&GUARDS) else {
        return Some(
            "takes no guard (shared_server(), shared_server_long() or exclusive_server())".into(),
        );
    };
    let alone = body.iter().any(|l| l.contains("exclusive_server()"));
    if let Some(other) = first(&OTHER_LOCKS).filter(|_| alone) {
        // It would hold that lock while it waits for the shared tests to end, stalling
        // every test that needs it.
        return Some(format!(
            "runs alone, so needs no other lock: `{}`",
            body[other].trim()
        ));
    }
    let last_other = body
        .iter()
        .rposition(|l| OTHER_LOCKS.iter().any(|n| l.contains(n)));
    match last_other {
        Some(other) if other > guard => Some(format!(
            "takes another lock after the gate's guard: `{}`",
            body[other].trim()
        )),
        _ => None,
    }
}

#[test]
fn every_test_takes_a_gate_guard_last() {
    let _g = shared_server();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("it"), &mut files);
    files.sort();
    let mut seen = 0;
    let mut problems = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for (name, body) in test_functions(&source) {
            seen += 1;
            if let Some(why) = problem(&body) {
                let shown = file.strip_prefix(root).unwrap_or(file);
                problems.push(format!("{}: {name}: {why}", shown.display()));
            }
        }
    }
    assert!(seen > 100, "found only {seen} tests: is the parsing right?");
    assert!(
        problems.is_empty(),
        "every integration test takes `let _g = shared_server();` (or exclusive_server() to \
         run alone) after any other lock it takes, see tests/support/gate.rs:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_reading_finds_a_missing_guard_and_a_lock_taken_after_it() {
    let _g = shared_server();
    // Kept outside tests/it: the lint would read its lock names as this test's.
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gate_lint_sample.rs"),
    )
    .unwrap();
    let found: Vec<(String, Option<String>)> = test_functions(&source)
        .into_iter()
        .map(|(name, body)| (name, problem(&body)))
        .collect();
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found[0].0 == "bare" && found[0].1.as_deref().unwrap().contains("no guard"));
    assert!(found[1].0 == "early" && found[1].1.as_deref().unwrap().contains("after the gate"));
    assert_eq!(found[2], ("good".to_string(), None));
    assert!(
        found[3].0 == "alone"
            && found[3]
                .1
                .as_deref()
                .unwrap()
                .contains("needs no other lock")
    );
}
