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
        None => load_v0(text, origin, default_name, &line_at),
        Some(toml::de::DeValue::Integer(i)) if i.as_str() == "1" => load_v1(text, origin, &line_at),
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

/// `text` as a plain TOML table (already known to parse).
fn plain_table(text: &str, origin: &str) -> Result<toml::Table, ProfileError> {
    toml::from_str(text)
        .map_err(|e| ProfileError::invalid(origin, vec![problem("(syntax)", None, e.message())]))
}

/// A file without `schema_version`: the version 0 layout, migrated, or no profile.
fn load_v0(
    text: &str,
    origin: &str,
    default_name: &str,
    line_at: &dyn Fn(&str) -> Option<usize>,
) -> Result<Loaded, ProfileError> {
    let table = plain_table(text, origin)?;
    if !migrate::looks_like_v0(&table) {
        return Err(ProfileError::invalid(
            origin,
            vec![problem(
                "schema_version",
                Some(1),
                &format!("missing: start the file with `schema_version = {SCHEMA_VERSION}`"),
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

/// The current layout. Keys and kinds are checked first, against the table of fields,
/// so that every unknown key and every value of the wrong kind is reported, not the
/// first one serde meets; then what is left is read and validated, and its problems join.
fn load_v1(
    text: &str,
    origin: &str,
    line_at: &dyn Fn(&str) -> Option<usize>,
) -> Result<Loaded, ProfileError> {
    let table = plain_table(text, origin)?;
    let (mut problems, cleaned) = shape_problems(&table);
    let profile = read_profile(cleaned, &mut problems);
    if let Some(profile) = &profile {
        for q in validate::check(profile) {
            if !problems.iter().any(|p| p.field == q.field) {
                problems.push(q);
            }
        }
    }
    match profile {
        Some(profile) if problems.is_empty() => {
            finish(profile, origin, line_at, None, Vec::new(), None)
        }
        _ => {
            for p in &mut problems {
                if p.line.is_none() {
                    p.line = line_at(&p.field);
                }
            }
            problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
            Err(ProfileError::invalid(origin, problems))
        }
    }
}

/// Deserializes `cleaned`, taking out each field serde refuses (its problem goes to
/// `problems`) and trying again, so that one bad value does not hide the others.
fn read_profile(mut cleaned: toml::Table, problems: &mut Vec<Problem>) -> Option<Profile> {
    for _ in 0..64 {
        match serde_path_to_error::deserialize::<_, Profile>(toml::Value::Table(cleaned.clone())) {
            Ok(p) => return Some(p),
            Err(e) => {
                let path = e.path().to_string();
                let (field, message) = explain(&path, e.into_inner().message());
                let removed = remove_field(&mut cleaned, &field);
                problems.push(problem(&field, None, &message));
                if !removed {
                    return None;
                }
            }
        }
    }
    None
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

/// Sections of a profile and the keys outside them.
const SECTIONS: [&str; 4] = ["mysql", "ssh", "plan", "workload"];

/// Every key of `table` that is not a profile field, and every value of the wrong kind,
/// checked against [`crate::fields::FIELDS`]. Returns the problems and the table without
/// the offending keys (what is left can still be read and validated).
fn shape_problems(table: &toml::Table) -> (Vec<Problem>, toml::Table) {
    let mut problems = Vec::new();
    let mut cleaned = toml::Table::new();
    for (key, value) in table {
        if key == "schema_version" {
            cleaned.insert(key.clone(), value.clone());
            continue;
        }
        if SECTIONS.contains(&key.as_str()) {
            let toml::Value::Table(section) = value else {
                problems.push(problem(key, None, &format!("must be a [{key}] section")));
                continue;
            };
            let mut kept = toml::Table::new();
            for (k, v) in section {
                let dotted = format!("{key}.{k}");
                match check_value(&dotted, v) {
                    Ok(()) => {
                        kept.insert(k.clone(), v.clone());
                    }
                    Err(message) => problems.push(problem(&dotted, None, &message)),
                }
            }
            cleaned.insert(key.clone(), toml::Value::Table(kept));
            continue;
        }
        if key == "clients" {
            if let Some(kept) = clients_shape(value, &mut problems) {
                cleaned.insert(key.clone(), kept);
            }
            continue;
        }
        match check_value(key, value) {
            Ok(()) => {
                cleaned.insert(key.clone(), value.clone());
            }
            Err(message) => problems.push(problem(key, None, &message)),
        }
    }
    (problems, cleaned)
}

/// `[[clients]]`: a list of tables, each with `url` and the server's `[ssh]` keys
/// (checked against that section's fields). Returns what can still be read.
fn clients_shape(value: &toml::Value, problems: &mut Vec<Problem>) -> Option<toml::Value> {
    let toml::Value::Array(entries) = value else {
        problems.push(problem(
            "clients",
            None,
            "give each load client as a [[clients]] table",
        ));
        return None;
    };
    let mut kept_entries = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let toml::Value::Table(t) = entry else {
            problems.push(problem(
                &format!("clients[{i}]"),
                None,
                "give each load client as a [[clients]] table",
            ));
            continue;
        };
        let mut kept = toml::Table::new();
        for (k, v) in t {
            let dotted = format!("clients[{i}].{k}");
            let verdict = match k.as_str() {
                "url" if v.is_str() => Ok(()),
                "url" => Err(format!("expected text in quotes, found {}", kind_word(v))),
                // Checked here: serde names no field inside a flattened section.
                "auth" => check_value("ssh.auth", v).and_then(|()| {
                    v.clone()
                        .try_into::<crate::SshAuth>()
                        .map(drop)
                        .map_err(|_| {
                            format!(
                                "unknown value `{}` (expected one of `agent`, `key`, `password`)",
                                v.as_str().unwrap_or_default()
                            )
                        })
                }),
                _ if k.contains("password") || k.contains("passphrase") || k == "secret" => Err(
                    "secrets never go in profiles: delete this line and keep the client's \
                     password in the keyring or DBDYNO_SSH_PASSWORD / DBDYNO_SSH_PASSPHRASE"
                        .to_string(),
                ),
                _ => check_value(&format!("ssh.{k}"), v)
                    .map_err(|m| m.replace("known here: ", "known here: url, ")),
            };
            match verdict {
                Ok(()) => {
                    kept.insert(k.clone(), v.clone());
                }
                Err(message) => problems.push(problem(&dotted, None, &message)),
            }
        }
        kept_entries.push(toml::Value::Table(kept));
    }
    Some(toml::Value::Array(kept_entries))
}

/// Whether `value` fits the field `dotted`: known key, right kind. Never quotes the
/// value (it could be a secret put in the wrong place).
fn check_value(dotted: &str, value: &toml::Value) -> Result<(), String> {
    use crate::fields::Kind;
    let Some(f) = crate::fields::by_key(dotted) else {
        return Err(unknown_key(dotted));
    };
    match (f.kind, value) {
        // Profiles written before the prepare modes said true / false.
        (Kind::Str, toml::Value::Boolean(_)) if dotted == "plan.prepare" => Ok(()),
        (Kind::Str, toml::Value::String(_)) => Ok(()),
        (Kind::Str, v) => Err(format!("expected text in quotes, found {}", kind_word(v))),
        (Kind::Int, v) => check_int(dotted, v),
        (Kind::Float, toml::Value::Float(_) | toml::Value::Integer(_)) => Ok(()),
        (Kind::Float, v) => Err(format!("expected a number, found {}", kind_word(v))),
        (Kind::Bool, toml::Value::Boolean(_)) => Ok(()),
        (Kind::Bool, v) => Err(format!("expected true or false, found {}", kind_word(v))),
        (Kind::StrList, toml::Value::Array(a)) => match a.iter().position(|x| !x.is_str()) {
            None => Ok(()),
            Some(i) => Err(format!(
                "expected a list of texts in quotes; item {i} is {}",
                kind_word(&a[i])
            )),
        },
        (Kind::IntList, toml::Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                check_int(dotted, x).map_err(|e| format!("item {i}: {e}"))?;
            }
            Ok(())
        }
        (Kind::StrList | Kind::IntList, v) => {
            Err(format!("expected a list [..], found {}", kind_word(v)))
        }
    }
}

/// Why `dotted` is not a profile field: a secret in the wrong place, or a key to
/// correct (the closest known one in its section, else all of them).
fn unknown_key(dotted: &str) -> String {
    let key = dotted.rsplit('.').next().unwrap_or(dotted);
    if key.contains("password") || key.contains("passphrase") || key == "secret" {
        let kind = if key.contains("passphrase") {
            "ssh-passphrase"
        } else if dotted.starts_with("ssh.") {
            "ssh-password"
        } else {
            "mysql"
        };
        let env = match kind {
            "ssh-passphrase" => "DBDYNO_SSH_PASSPHRASE",
            "ssh-password" => "DBDYNO_SSH_PASSWORD",
            _ => "MYSQL_PWD",
        };
        return format!(
            "secrets never go in profiles: delete this line and store the secret with \
             `dbdyno profile secret set NAME {kind}` (or set {env})"
        );
    }
    let section = dotted.split_once('.').map(|(s, _)| s);
    let known: Vec<&str> = crate::fields::FIELDS
        .iter()
        .filter(|f| f.key.split_once('.').map(|(s, _)| s) == section)
        .map(|f| f.key.rsplit('.').next().unwrap_or(f.key))
        .collect();
    match known.iter().find(|k| close(k, key)) {
        Some(k) => format!("unknown key `{key}` (did you mean `{k}`?)"),
        None => format!("unknown key `{key}` (known here: {})", known.join(", ")),
    }
}

/// A whole-number value of field `dotted` (a port when the key says so).
fn check_int(dotted: &str, v: &toml::Value) -> Result<(), String> {
    match v {
        toml::Value::Integer(i) if *i < 0 => Err(format!("must not be negative (got {i})")),
        toml::Value::Integer(i) if dotted.ends_with(".port") && *i > 65535 => {
            Err(format!("expected a port number (1-65535), got {i}"))
        }
        toml::Value::Integer(i) if *i > u32::MAX as i64 => Err(format!("{i} is too large")),
        toml::Value::Integer(_) => Ok(()),
        toml::Value::Float(_) if dotted.ends_with(".port") => {
            Err("expected a port number (1-65535), found a decimal number".into())
        }
        toml::Value::Float(_) => Err("expected a whole number, found a decimal number".into()),
        other if dotted.ends_with(".port") => Err(format!(
            "expected a port number (1-65535), found {}",
            kind_word(other)
        )),
        other => Err(format!(
            "expected a whole number, found {}",
            kind_word(other)
        )),
    }
}

fn kind_word(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "text",
        toml::Value::Integer(_) => "a whole number",
        toml::Value::Float(_) => "a decimal number",
        toml::Value::Boolean(_) => "true/false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

/// A likely typo: same length ±1 and at most two characters differ (`hots` for `host`).
fn close(known: &str, typed: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (known.chars().collect(), typed.chars().collect());
    if a.len().abs_diff(b.len()) > 1 || a.len() < 3 {
        return false;
    }
    // Levenshtein distance, small strings.
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()] <= 2
}

/// Removes the dotted `field` (or its top-level key) from `table`; false when absent.
fn remove_field(table: &mut toml::Table, field: &str) -> bool {
    let field = field.split('[').next().unwrap_or(field);
    match field.split_once('.') {
        Some((s, k)) => table
            .get_mut(s)
            .and_then(|v| v.as_table_mut())
            .is_some_and(|t| t.remove(k).is_some()),
        None => table.remove(field).is_some(),
    }
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
