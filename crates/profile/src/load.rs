//! Reading a profile: TOML syntax, the layout's version (older ones are migrated),
//! field types, then [`crate::validate`]. Nothing runs on a profile that fails here.

use std::path::{Path, PathBuf};

use toml::de::DeTable;

use crate::migrate::{self, Migrated};
use crate::spans::{line_of, span_of};
use crate::{validate, Problem, Profile, ProfileError, SCHEMA_VERSION};

/// A profile read from a file or text, valid.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub profile: Profile,
    /// The file it came from (None for text, e.g. a shipped example).
    pub path: Option<PathBuf>,
    /// The layout version it was written in, when older than [`SCHEMA_VERSION`].
    pub migrated_from: Option<u32>,
    /// Things the user should know (a migration, a password that was dropped).
    pub notices: Vec<String>,
    /// A password an old layout held: for the keyring, never for a file.
    pub legacy_password: Option<String>,
}

pub fn load_file(path: &Path) -> Result<Loaded, ProfileError> {
    let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("profile");
    let mut loaded = load_str(&text, &path.display().to_string(), stem)?;
    loaded.path = Some(path.to_path_buf());
    Ok(loaded)
}

/// Reads profile `text`; `origin` names it in messages, `default_name` names a version 0
/// profile (which has no name of its own).
pub fn load_str(text: &str, origin: &str, default_name: &str) -> Result<Loaded, ProfileError> {
    let doc = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        ProfileError::invalid(
            origin,
            vec![Problem {
                field: "(syntax)".into(),
                line,
                message: format!("not valid TOML: {}", e.message().trim_end()),
            }],
        )
    })?;
    let version = doc
        .get_ref()
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == "schema_version")
        .map(|(_, v)| v);
    let line_at = |path: &str| span_of(&doc, path).map(|s| line_of(text, s.start));
    match version.map(|v| v.get_ref()) {
        None => {
            let table: toml::Table = toml::from_str(text).map_err(|e| {
                ProfileError::invalid(origin, vec![problem("(syntax)", None, e.message())])
            })?;
            if !migrate::looks_like_v0(&table) {
                return Err(ProfileError::invalid(
                    origin,
                    vec![problem(
                        "schema_version",
                        Some(1),
                        &format!(
                            "missing: start the file with `schema_version = {SCHEMA_VERSION}`"
                        ),
                    )],
                ));
            }
            let Migrated {
                profile,
                notices,
                password,
            } = migrate::from_v0(&table, default_name).map_err(|mut problems| {
                for p in &mut problems {
                    p.line = line_at(&p.field);
                }
                ProfileError::invalid(origin, problems)
            })?;
            finish(profile, origin, |_| None, Some(0), notices, password)
        }
        Some(toml::de::DeValue::Integer(i)) if i.as_str() == "1" => {
            let de = toml::Deserializer::parse(text).map_err(|e| {
                ProfileError::invalid(origin, vec![problem("(syntax)", None, e.message())])
            })?;
            let profile: Profile = serde_path_to_error::deserialize(de).map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                let (field, message) = explain(&path, inner.message());
                let line = inner
                    .span()
                    .map(|s| line_of(text, s.start))
                    .or_else(|| line_at(&field));
                ProfileError::invalid(origin, vec![problem(&field, line, &message)])
            })?;
            finish(profile, origin, line_at, None, Vec::new(), None)
        }
        Some(other) => {
            let shown = match other {
                toml::de::DeValue::Integer(i) => i.as_str().to_string(),
                _ => "a non-number".to_string(),
            };
            Err(ProfileError::invalid(
                origin,
                vec![problem(
                    "schema_version",
                    line_at("schema_version"),
                    &format!(
                        "{shown} is not a layout this DB Dyno reads (it reads 0 and {SCHEMA_VERSION}); \
                         a newer DB Dyno may have written the file"
                    ),
                )],
            ))
        }
    }
}

fn finish(
    profile: Profile,
    origin: &str,
    line_at: impl Fn(&str) -> Option<usize>,
    migrated_from: Option<u32>,
    notices: Vec<String>,
    legacy_password: Option<String>,
) -> Result<Loaded, ProfileError> {
    let mut problems = validate::check(&profile);
    if !problems.is_empty() {
        for p in &mut problems {
            p.line = line_at(&p.field);
        }
        return Err(ProfileError::invalid(origin, problems));
    }
    Ok(Loaded {
        profile,
        path: None,
        migrated_from,
        notices,
        legacy_password,
    })
}

fn problem(field: &str, line: Option<usize>, message: &str) -> Problem {
    Problem {
        field: field.to_string(),
        line,
        message: message.trim_end().to_string(),
    }
}

/// Turns serde's wording into a field path and a message a person acts on. Never quotes
/// a value that could be a secret: only keys and serde's type words are shown.
fn explain(path: &str, message: &str) -> (String, String) {
    let path = if path == "." {
        String::new()
    } else {
        path.to_string()
    };
    let join = |key: &str| {
        if path.is_empty() || path.ends_with(key) {
            if path.is_empty() {
                key.to_string()
            } else {
                path.clone()
            }
        } else {
            format!("{path}.{key}")
        }
    };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let key = rest.split('`').next().unwrap_or("");
        let field = join(key);
        if key.contains("password") || key.contains("passphrase") || key == "secret" {
            return (
                field,
                "secrets never go in profiles: delete this line and store the secret with \
                 `dbdyno profile secret set NAME mysql` (or set MYSQL_PWD)"
                    .into(),
            );
        }
        let expected = rest.split_once("expected ").map(|x| x.1).unwrap_or("");
        return (field, format!("unknown key `{key}` (expected {expected})"));
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let key = rest.split('`').next().unwrap_or("");
        return (join(key), "missing (this key is required)".into());
    }
    if let Some(rest) = message.strip_prefix("invalid value: integer `-") {
        let n = rest.split('`').next().unwrap_or("");
        return (path, format!("must not be negative (got -{n})"));
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let v = rest.split('`').next().unwrap_or("");
        let expected = rest.split_once("expected ").map(|x| x.1).unwrap_or("");
        return (path, format!("unknown value `{v}` (expected {expected})"));
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        // "invalid type: string \"abc\", expected u32": name the kinds, not the value.
        let found = rest.split([' ', ',']).next().unwrap_or("value");
        let expected = rest
            .rsplit_once("expected ")
            .map(|x| x.1)
            .unwrap_or("another kind");
        return (path, format!("expected {expected}, found a {found}"));
    }
    (path, message.to_string())
}
