//! Which local file is DB Dyno's own binary, the one copied to other hosts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::RemoteError;

/// The variable that names the binary to copy, when the default search does not fit
/// (a build for another platform, a packaged install).
pub const AGENT_BINARY_VAR: &str = "DBDYNO_AGENT_BINARY";

const NAME: &str = "dbdyno";

/// Which binary to copy: `$DBDYNO_AGENT_BINARY`, else the running executable if its file
/// name is `dbdyno`, else `dbdyno` beside the running executable (the app; test binaries
/// in cargo's `deps/` look one directory up), else `dbdyno` on `PATH`.
pub fn local_agent_binary() -> Result<PathBuf, RemoteError> {
    find(
        std::env::var_os(AGENT_BINARY_VAR),
        std::env::current_exe().ok(),
        std::env::var_os("PATH"),
    )
}

fn find(
    named: Option<OsString>,
    current_exe: Option<PathBuf>,
    path_var: Option<OsString>,
) -> Result<PathBuf, RemoteError> {
    if let Some(named) = named.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(named);
        // The user named it: another file found by searching would be a surprise.
        return if path.is_file() {
            Ok(path)
        } else {
            Err(RemoteError::NoAgentBinary {
                tried: format!("{AGENT_BINARY_VAR}={}, not a file", path.display()),
            })
        };
    }
    let mut tried = Vec::new();
    if let Some(exe) = current_exe {
        if exe.file_name().is_some_and(|n| n == NAME) {
            return Ok(exe);
        }
        let mut dir = exe.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            let candidate = d.join(NAME);
            if candidate.is_file() {
                return Ok(candidate);
            }
            tried.push(candidate.display().to_string());
            // cargo puts test binaries in target/<profile>/deps, beside nothing useful.
            dir = if d.ends_with("deps") {
                d.parent().map(Path::to_path_buf)
            } else {
                None
            };
        }
    }
    if let Some(path_var) = path_var {
        for d in std::env::split_paths(&path_var) {
            let candidate = d.join(NAME);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
        tried.push("`dbdyno` on PATH".into());
    }
    Err(RemoteError::NoAgentBinary {
        tried: tried.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"bin").unwrap();
    }

    #[test]
    fn the_variable_wins_and_must_name_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let named = dir.path().join("custom");
        touch(&named);
        let exe = dir.path().join("dbdyno");
        touch(&exe);
        let found = find(Some(named.clone().into()), Some(exe.clone()), None).unwrap();
        assert_eq!(found, named);

        let missing = dir.path().join("nope");
        let err = find(Some(missing.into()), Some(exe), None).unwrap_err();
        assert!(err.to_string().contains("DBDYNO_AGENT_BINARY="), "{err}");
    }

    #[test]
    fn the_running_dbdyno_is_itself() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("dbdyno");
        assert_eq!(find(None, Some(exe.clone()), None).unwrap(), exe);
    }

    #[test]
    fn the_app_finds_dbdyno_beside_it_and_tests_one_level_up_from_deps() {
        let dir = tempfile::tempdir().unwrap();
        let beside = dir.path().join("dbdyno");
        touch(&beside);
        let app = dir.path().join("dbdyno-app");
        assert_eq!(find(None, Some(app), None).unwrap(), beside);
        let test_bin = dir.path().join("deps").join("it-0123");
        assert_eq!(find(None, Some(test_bin), None).unwrap(), beside);
    }

    #[test]
    fn path_is_the_last_resort_and_the_error_lists_what_was_tried() {
        let dir = tempfile::tempdir().unwrap();
        let app = dir.path().join("app").join("dbdyno-app");
        let on_path = dir.path().join("bin").join("dbdyno");
        touch(&on_path);
        let path_var = std::env::join_paths([dir.path().join("bin")]).unwrap();
        assert_eq!(
            find(None, Some(app.clone()), Some(path_var)).unwrap(),
            on_path
        );
        let err = find(None, Some(app), Some(OsString::new())).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("dbdyno` on PATH"), "{msg}");
        assert!(msg.contains("DBDYNO_AGENT_BINARY"), "{msg}");
    }
}
