//! Where profiles are found: the examples shipped in `profiles/` (built into the binary,
//! so they are there wherever it is installed) and the user's own in
//! `<config dir>/profiles/` (`~/.config/dbdyno/profiles` on Linux, `DBDYNO_CONFIG_DIR`
//! to override).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::{load_file, load_str, Loaded, ProfileError};

/// Environment variable that overrides the user configuration directory.
pub const CONFIG_DIR_ENV: &str = "DBDYNO_CONFIG_DIR";

/// The shipped examples: (file name, text).
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "local-sandbox.toml",
        include_str!("../../../profiles/local-sandbox.toml"),
    ),
    (
        "remote-ssh.toml",
        include_str!("../../../profiles/remote-ssh.toml"),
    ),
    (
        "managed-no-ssh.toml",
        include_str!("../../../profiles/managed-no-ssh.toml"),
    ),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfileOrigin {
    Example,
    User,
}

/// One profile in a listing. Invalid ones are listed too, with their problem.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileEntry {
    pub name: String,
    pub origin: ProfileOrigin,
    /// The file (the example's file name for shipped examples).
    pub path: String,
    pub description: String,
    pub labels: Vec<String>,
    /// Why it cannot be used, when it cannot.
    pub error: Option<String>,
}

/// The user's configuration directory for DB Dyno.
pub fn config_dir() -> Result<PathBuf, ProfileError> {
    if let Some(d) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "dbdyno")
        .map(|d| d.config_dir().to_path_buf())
        .ok_or(ProfileError::NoConfigDir)
}

/// Where the user's profiles live.
pub fn user_profiles_dir() -> Result<PathBuf, ProfileError> {
    Ok(config_dir()?.join("profiles"))
}

fn stem(file: &str) -> &str {
    file.strip_suffix(".toml").unwrap_or(file)
}

fn entry(
    name_hint: &str,
    origin: ProfileOrigin,
    path: String,
    r: Result<Loaded, ProfileError>,
) -> ProfileEntry {
    match r {
        Ok(l) => ProfileEntry {
            name: l.profile.name,
            origin,
            path,
            description: l.profile.description,
            labels: l.profile.labels,
            error: None,
        },
        Err(e) => ProfileEntry {
            name: name_hint.to_string(),
            origin,
            path,
            description: String::new(),
            labels: Vec::new(),
            error: Some(e.to_string()),
        },
    }
}

/// The shipped examples, then the user's profiles (sorted by file name).
pub fn list_profiles() -> Result<Vec<ProfileEntry>, ProfileError> {
    let mut out: Vec<ProfileEntry> = EXAMPLES
        .iter()
        .map(|(file, text)| {
            entry(
                stem(file),
                ProfileOrigin::Example,
                format!("profiles/{file}"),
                load_str(text, file, stem(file)),
            )
        })
        .collect();
    let dir = user_profiles_dir()?;
    if let Ok(read) = std::fs::read_dir(&dir) {
        let mut files: Vec<PathBuf> = read
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for f in files {
            let hint = f
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("?")
                .to_string();
            out.push(entry(
                &hint,
                ProfileOrigin::User,
                f.display().to_string(),
                load_file(&f),
            ));
        }
    }
    Ok(out)
}

/// `--profile=X`: a file path when X names a file, else the user's profile `X`
/// (`<config>/profiles/X.toml`), else the shipped example `X`.
pub fn resolve_profile(x: &str) -> Result<Loaded, ProfileError> {
    let p = Path::new(x);
    if p.is_file() {
        return load_file(p);
    }
    // A path means a file: say that it is missing rather than look it up as a name.
    if x.contains('/') || x.contains(std::path::MAIN_SEPARATOR) {
        return Err(ProfileError::FileNotFound {
            path: x.to_string(),
        });
    }
    let dir = user_profiles_dir()?;
    let user = dir.join(format!("{}.toml", stem(x)));
    if user.is_file() {
        return load_file(&user);
    }
    if let Some((file, text)) = EXAMPLES.iter().find(|(f, _)| stem(f) == stem(x)) {
        return load_str(text, &format!("profiles/{file}"), stem(file));
    }
    Err(ProfileError::NotFound {
        name: x.to_string(),
        user_dir: dir.display().to_string(),
    })
}

/// `dbdyno profile list`: one line per profile, its origin, description and file; an
/// invalid one with its problem.
pub fn list_lines(entries: &[ProfileEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|p| {
            let origin = match p.origin {
                ProfileOrigin::Example => "example",
                ProfileOrigin::User => "user",
            };
            match &p.error {
                None => format!(
                    "  {:<20} {:<8} {}  ({})",
                    p.name, origin, p.description, p.path
                ),
                Some(e) => format!("  {:<20} {:<8} INVALID: {e}", p.name, origin),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_said_to_be_missing() {
        let e = resolve_profile("/nonexistent/idc.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "profile file /nonexistent/idc.toml not found");
    }

    #[test]
    fn shipped_examples_are_valid() {
        for (file, text) in EXAMPLES {
            let l = load_str(text, file, stem(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(l.profile.name, stem(file), "{file}: name matches the file");
            assert!(!l.profile.description.is_empty(), "{file} is described");
        }
    }
}
