//! Older profile layouts, brought up to the current one on load.
//!
//! Version 0 is the seed toolkit's `benchmark_config.conf` written as TOML: no
//! `schema_version`, flat upper-case keys (`MYSQL_HOST = "10.0.0.5"`, `TABLES = 16`,
//! `THREADS = "1 8 16"`). People converted their shell configs to this by hand before
//! profiles had sections; the same key mapping serves [`crate::seed_config`].
//!
//! A password found in an old layout is never carried over: the caller gets it back
//! separately (to move it to the keyring) and a notice says so.

use crate::{Problem, Profile};

/// Keys of the version 0 layout and the option each one sets.
pub const LEGACY_KEYS: &[(&str, &str)] = &[
    ("MYSQL_HOST", "mysql-host"),
    ("MYSQL_PORT", "mysql-port"),
    ("MYSQL_SOCKET", "mysql-socket"),
    ("MYSQL_USER", "mysql-user"),
    ("MYSQL_DB", "mysql-db"),
    ("TABLES", "tables"),
    ("TABLE_SIZE", "table-size"),
    ("TEST_TIME", "time"),
    ("NEED_PREPARE", "prepare"),
    ("SCENARIOS", "scenarios"),
    ("THREADS", "threads"),
];

/// The legacy key that holds the MySQL password.
pub const LEGACY_PASSWORD_KEY: &str = "MYSQL_PASSWORD";

/// What one legacy key did.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    Set,
    /// The password: not stored in the profile; the caller decides what to do with it.
    Password,
    /// A key this mapping does not know.
    Unknown,
}

/// Applies one legacy `KEY=value` to `p`. Lists may be separated by spaces or commas.
pub fn apply_legacy(p: &mut Profile, key: &str, value: &str) -> Result<Applied, Problem> {
    if key == LEGACY_PASSWORD_KEY {
        return Ok(Applied::Password);
    }
    let Some(&(_, option)) = LEGACY_KEYS.iter().find(|(k, _)| *k == key) else {
        return Ok(Applied::Unknown);
    };
    let value = match option {
        "scenarios" | "threads" => value
            .split([' ', ',', '\t'])
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(","),
        _ => value.to_string(),
    };
    p.set_option(option, &value)
        .map(|_| Applied::Set)
        .map_err(|e| Problem {
            field: key.to_string(),
            line: None,
            message: e.message,
        })
}

/// Result of migrating a version 0 table.
#[derive(Debug)]
pub struct Migrated {
    pub profile: Profile,
    pub notices: Vec<String>,
    /// The password the old file held, to be moved to the keyring (never written back).
    pub password: Option<String>,
}

/// Version 0 → the current layout. `name` names the profile (v0 files have no name).
pub fn from_v0(table: &toml::Table, name: &str) -> Result<Migrated, Vec<Problem>> {
    let mut profile = Profile::named(name);
    // Not `> FILE` itself: the shell would empty the file before it is read.
    let mut notices = vec![format!(
        "migrated from schema version 0 (the seed toolkit's variables); `dbdyno profile show FILE > {name}-v1.toml` writes it in the current layout"
    )];
    let mut password = None;
    let mut problems = Vec::new();
    for (key, v) in table {
        let Some(text) = v0_text(v) else {
            problems.push(Problem {
                field: key.clone(),
                line: None,
                message: "a version 0 profile holds plain values only".into(),
            });
            continue;
        };
        match apply_legacy(&mut profile, key, &text) {
            Ok(Applied::Set) => {}
            Ok(Applied::Password) => {
                password = Some(text);
                notices.push(format!(
                    "{LEGACY_PASSWORD_KEY} is not carried into the profile: secrets never go in profiles; \
                     store it with `dbdyno profile secret set {name} mysql` or use MYSQL_PWD"
                ));
            }
            Ok(Applied::Unknown) => problems.push(Problem {
                field: key.clone(),
                line: None,
                message: format!(
                    "unknown key in a version 0 profile (known: {}, {LEGACY_PASSWORD_KEY})",
                    LEGACY_KEYS
                        .iter()
                        .map(|(k, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
            Err(p) => problems.push(p),
        }
    }
    // Ranges too (THREADS="1 0"), whatever else is wrong: every problem at once, each
    // on the legacy key the file has.
    for q in crate::validate::check(&profile) {
        let p = on_legacy_key(q);
        if !problems.iter().any(|x| x.field == p.field) {
            problems.push(p);
        }
    }
    if problems.is_empty() {
        Ok(Migrated {
            profile,
            notices,
            password,
        })
    } else {
        Err(problems)
    }
}

/// A version 0 value as the text its shell variable held; None for a table (or a date).
fn v0_text(v: &toml::Value) -> Option<String> {
    Some(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(x) => x.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(a) => a
            .iter()
            .map(|x| match x {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(","),
        _ => return None,
    })
}

/// The legacy key that sets the profile field of a problem (`plan.threads[1]` →
/// `THREADS`), if one does.
pub(crate) fn legacy_key_of(field: &str) -> Option<&'static str> {
    let base = field.split('[').next().unwrap_or(field);
    crate::fields::by_key(base)
        .and_then(|f| LEGACY_KEYS.iter().find(|(_, o)| *o == f.option))
        .map(|(k, _)| *k)
}

/// A problem of the migrated profile, moved onto the legacy key the file has.
fn on_legacy_key(q: Problem) -> Problem {
    match legacy_key_of(&q.field) {
        Some(k) => Problem {
            field: k.to_string(),
            line: None,
            message: format!("{} ({})", q.message, q.field),
        },
        None => q,
    }
}

/// True when a table without `schema_version` looks like version 0 (upper-case keys only).
pub fn looks_like_v0(table: &toml::Table) -> bool {
    !table.is_empty()
        && table.keys().all(|k| {
            k.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written version 0 file: what people had before profiles had sections.
    const V0: &str = r#"
MYSQL_HOST = "192.168.1.50"   # internal IP
MYSQL_PORT = 3306
MYSQL_USER = "sbtest"
MYSQL_PASSWORD = "your_password_here"
MYSQL_DB = "sbtest"
TABLES = 16
TABLE_SIZE = 10000000
TEST_TIME = 30
NEED_PREPARE = true
SCENARIOS = "oltp_point_select oltp_read_only oltp_read_write oltp_write_only"
THREADS = "1 8 16 32 64 128"
"#;

    #[test]
    fn version_0_becomes_version_1_without_the_password() {
        let t: toml::Table = toml::from_str(V0).unwrap();
        assert!(looks_like_v0(&t));
        let m = from_v0(&t, "idc").unwrap();
        let p = &m.profile;
        assert_eq!(p.schema_version, crate::SCHEMA_VERSION);
        assert_eq!(p.name, "idc");
        assert_eq!(p.mysql.host.as_deref(), Some("192.168.1.50"));
        assert_eq!(p.mysql.port, Some(3306));
        assert_eq!(p.workload.tables, Some(16));
        assert_eq!(p.workload.table_size, Some(10_000_000));
        assert_eq!(p.plan.time, Some(30));
        assert_eq!(p.plan.prepare, Some(dbdyno_engine::PrepareMode::IfMissing));
        assert_eq!(p.plan.threads, Some(vec![1, 8, 16, 32, 64, 128]));
        assert_eq!(p.plan.scenarios.as_ref().unwrap().len(), 4);
        assert_eq!(m.password.as_deref(), Some("your_password_here"));
        let text = crate::render::to_toml(p, &Default::default());
        assert!(!text.contains("your_password_here"));
        assert!(m
            .notices
            .iter()
            .any(|n| n.contains("MYSQL_PASSWORD is not carried")));
    }

    #[test]
    fn unknown_and_bad_version_0_keys_are_named() {
        let t: toml::Table =
            toml::from_str("TABLES = \"many\"\nTSAR_DEVICE = \"nvme0n1\"\n").unwrap();
        let problems = from_v0(&t, "x").unwrap_err();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["TABLES", "TSAR_DEVICE"]);
        assert!(
            problems[0].message.contains("'many' is not a whole number"),
            "{:?}",
            problems[0]
        );
    }

    /// `prepare = true` / `false` (version 1 before the modes, and the seed toolkit's
    /// NEED_PREPARE) read as "if-missing" / "never", and are written back as modes.
    #[test]
    fn the_prepare_switch_becomes_its_mode() {
        use dbdyno_engine::PrepareMode;
        let v1 = |line: &str| {
            crate::load_str(
                &format!("schema_version = 1\nname = \"x\"\n[plan]\n{line}\n"),
                "x.toml",
                "x",
            )
        };
        for (line, mode) in [
            ("prepare = true", PrepareMode::IfMissing),
            ("prepare = false", PrepareMode::Never),
            ("prepare = \"always\"", PrepareMode::Always),
            ("prepare = \"if-missing\"", PrepareMode::IfMissing),
            ("prepare = \"never\"", PrepareMode::Never),
        ] {
            let p = v1(line).unwrap_or_else(|e| panic!("{line}: {e}")).profile;
            assert_eq!(p.plan.prepare, Some(mode), "{line}");
            let text = crate::render::to_toml(&p, &Default::default());
            assert!(text.contains(&format!("prepare = \"{mode}\"")), "{text}");
            assert_eq!(p.ladder_spec().unwrap().prepare, mode, "{line}");
        }
        let e = v1("prepare = \"sometimes\"").unwrap_err().to_string();
        assert!(e.contains("plan.prepare"), "{e}");
        assert!(e.contains("sometimes"), "{e}");
        let e = v1("prepare = 1").unwrap_err().to_string();
        assert!(e.contains("plan.prepare"), "{e}");
        // Without the key the plan reads the tables as they are.
        let p = v1("time = 5").unwrap().profile;
        assert_eq!(p.ladder_spec().unwrap().prepare, PrepareMode::Never);

        let t: toml::Table = toml::from_str("TABLES = 2\nNEED_PREPARE = false\n").unwrap();
        let m = from_v0(&t, "old").unwrap();
        assert_eq!(m.profile.plan.prepare, Some(PrepareMode::Never));
    }
}
