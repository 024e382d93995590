//! The spill file: where a run's results go when the history cannot take them (a full
//! disk, a read-only file system, permission denied, an I/O error, a lock held too
//! long). It is the run's results document (`--json`'s layout, docs/json-schema.md)
//! with a `record` object saying where the run belongs in the history, rewritten whole
//! after every finished step: a new file fsynced, renamed over the old one, and the
//! directory fsynced, so that a crash or a kill at any moment leaves the last complete
//! version, never a torn one. `dbdyno import results FILE` brings it into the history.
//!
//! The file goes to the first place that takes the write: the directory the user named
//! (`--spill-dir`), else beside the history (in its directory), else the temporary
//! directory, because the history's own disk is often the full one.
//!
//! Non-goals: deciding when to spill ([`super::history`]), reading it back
//! (`dbdyno_history::import_results`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a run's spill file may go, in order of preference.
#[derive(Debug, Clone)]
pub struct Spill {
    places: Vec<PathBuf>,
    /// The index in `places` of the last place that took a write.
    at: usize,
    file_name: String,
    written: Option<PathBuf>,
}

impl Spill {
    /// The places for a run filed under `env` that started at `started_at_ms`: `given`
    /// (`--spill-dir`), the history's directory, the temporary directory.
    pub fn new(
        given: Option<&Path>,
        history_dir: Option<&Path>,
        env: &str,
        started_at_ms: i64,
    ) -> Spill {
        let mut places: Vec<PathBuf> = Vec::new();
        for p in [given, history_dir].into_iter().flatten() {
            places.push(p.to_path_buf());
        }
        places.push(std::env::temp_dir());
        places.dedup();
        Spill {
            places,
            at: 0,
            file_name: file_name(env, started_at_ms),
            written: None,
        }
    }

    /// `dir` alone: a run that starts without its history may start only when the
    /// directory the user named takes the results.
    pub fn only(dir: &Path, env: &str, started_at_ms: i64) -> Spill {
        Spill {
            places: vec![dir.to_path_buf()],
            at: 0,
            file_name: file_name(env, started_at_ms),
            written: None,
        }
    }

    /// The same file, with the places after it: beside the history, the temporary
    /// directory (for a disk that fills later).
    pub fn then_fallbacks(mut self, history_dir: Option<&Path>) -> Spill {
        for p in history_dir
            .into_iter()
            .map(Path::to_path_buf)
            .chain([std::env::temp_dir()])
        {
            if !self.places.contains(&p) {
                self.places.push(p);
            }
        }
        self
    }

    /// The file last written, if any.
    pub fn path(&self) -> Option<&Path> {
        self.written.as_deref()
    }

    /// Writes `doc` whole, durably, in the first place from the current one on that
    /// takes it; a copy left in an earlier place is removed. Err: every place refused,
    /// each with its reason.
    pub fn write<T: serde::Serialize>(&mut self, doc: &T) -> Result<&Path, String> {
        let text = match serde_json::to_vec_pretty(doc) {
            Ok(mut t) => {
                t.push(b'\n');
                t
            }
            Err(e) => return Err(format!("cannot serialize the results: {e}")),
        };
        let mut refused = Vec::new();
        for i in self.at..self.places.len() {
            let dir = &self.places[i];
            match write_durably(dir, &self.file_name, &text) {
                Ok(path) => {
                    if let Some(old) = self.written.take().filter(|old| *old != path) {
                        let _ = std::fs::remove_file(old);
                    }
                    self.at = i;
                    return Ok(self.written.insert(path));
                }
                Err(e) => refused.push(format!("{}: {e}", dir.display())),
            }
        }
        Err(format!(
            "no place took the spill file ({})",
            refused.join("; ")
        ))
    }
}

/// "dbdyno-results-<env>-<UTC start>-<pid>.json", the environment name reduced to
/// characters every file system takes.
fn file_name(env: &str, started_at_ms: i64) -> String {
    let env: String = env
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    let when = dbdyno_history::time::rfc3339(started_at_ms).replace([':', '-'], "");
    format!("dbdyno-results-{env}-{when}-{}.json", std::process::id())
}

/// `bytes` into `dir/name`: a temporary file written and fsynced, renamed over the
/// old version, then the directory fsynced (the rename itself is durable).
fn write_durably(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map(|()| path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_place_that_takes_it_gets_it_and_an_earlier_copy_goes() {
        let root = tempfile::tempdir().unwrap();
        // A file where a directory is expected: no directory can be made there.
        let blocked = root.path().join("blocked");
        std::fs::write(&blocked, "x").unwrap();
        let history = root.path().join("history");
        let mut spill = Spill::new(
            Some(&blocked.join("spill")),
            Some(&history),
            "env/1 x",
            1_700_000_000_123,
        );
        let doc = serde_json::json!({"steps": [1]});
        let first = spill.write(&doc).unwrap().to_path_buf();
        assert_eq!(first.parent().unwrap(), history);
        let name = first.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            name.starts_with("dbdyno-results-env_1_x-20231114T221320Z-"),
            "{name}"
        );
        assert!(name.ends_with(".json"), "{name}");
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
        assert_eq!(back, doc);
        // The history's directory goes away: the next version goes to the temp dir, and
        // the stale copy is not left behind.
        std::fs::remove_dir_all(&history).unwrap();
        std::fs::write(&history, "now a file").unwrap();
        let doc = serde_json::json!({"steps": [1, 2]});
        let second = spill.write(&doc).unwrap().to_path_buf();
        assert_eq!(second.parent().unwrap(), std::env::temp_dir());
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&second).unwrap()).unwrap();
        assert_eq!(back, doc);
        std::fs::remove_file(&second).unwrap();
        assert!(!root.path().join("history").is_dir());
    }

    #[test]
    fn no_place_is_an_error_naming_each() {
        let root = tempfile::tempdir().unwrap();
        let blocked = root.path().join("blocked");
        std::fs::write(&blocked, "x").unwrap();
        let mut spill = Spill {
            places: vec![blocked.join("a"), blocked.join("b")],
            at: 0,
            file_name: "f.json".into(),
            written: None,
        };
        let e = spill.write(&serde_json::json!({})).unwrap_err();
        assert!(e.contains("blocked/a") && e.contains("blocked/b"), "{e}");
    }
}
