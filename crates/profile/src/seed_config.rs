//! `dbdyno import config`: the seed toolkit's `benchmark_config.conf` (shell variable
//! assignments with inline comments) becomes a profile. Inline comments are kept as TOML
//! comments; the password is handed back separately, for the keyring, and never written.

use crate::fields::by_option;
use crate::migrate::{apply_legacy, legacy_key_of, Applied, LEGACY_KEYS};
use crate::render::Comments;
use crate::secrets::Secret;
use crate::{validate, Problem, Profile, ProfileError};

/// A converted seed config.
#[derive(Debug)]
pub struct SeedImport {
    pub profile: Profile,
    /// Inline comments by dotted profile key.
    pub comments: Comments,
    /// MYSQL_PASSWORD's value: for the keyring, never for a file.
    pub password: Option<Secret>,
    /// What was skipped or changed, for the user.
    pub notices: Vec<String>,
}

/// One `KEY=value  # comment` line: key, value, comment, and whether the value was in
/// single quotes (literal in a shell: `$` and backticks are not expanded there). None
/// for blank and comment-only lines.
type Assignment = (String, String, Option<String>, bool);

fn assignment(line: &str) -> Result<Option<Assignment>, String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let t = t.strip_prefix("export ").unwrap_or(t).trim_start();
    let Some((key, rest)) = t.split_once('=') else {
        return Err("not a KEY=value line".into());
    };
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err("not a KEY=value line".into());
    }
    let literal = rest.starts_with('\'');
    let (value, after) = match rest.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let body = &rest[1..];
            let mut value = String::new();
            let mut chars = body.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                if c == q {
                    end = Some(i);
                    break;
                }
                if c == '\\' && q == '"' {
                    if let Some((_, n)) = chars.next() {
                        value.push(n);
                    }
                    continue;
                }
                value.push(c);
            }
            let end = end.ok_or_else(|| format!("the value's closing {q} is missing"))?;
            (value, &body[end + 1..])
        }
        _ => {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (rest[..end].to_string(), &rest[end..])
        }
    };
    let after = after.trim();
    let comment = match after.strip_prefix('#') {
        Some(c) => Some(c.trim().to_string()).filter(|c| !c.is_empty()),
        None if after.is_empty() => None,
        None => {
            return Err("unexpected text after the value (quote values that hold spaces)".into())
        }
    };
    Ok(Some((key.to_string(), value, comment, literal)))
}

/// Converts `text` (the config file `file`) into profile `name`.
pub fn import_seed_config(text: &str, file: &str, name: &str) -> Result<SeedImport, ProfileError> {
    validate::check_name(name).map_err(|message| ProfileError::SeedConfigFile {
        file: file.to_string(),
        message: format!("profile name '{name}': {message} (give --name NAME)"),
    })?;
    let mut profile = Profile::named(name);
    profile.description = format!("Imported from the seed toolkit's {file}");
    let mut import = Import {
        file,
        profile,
        comments: Comments::new(),
        password: None,
        notices: Vec::new(),
        set_on: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        import.line(i + 1, line)?;
    }
    if import.set_on.is_empty() {
        let known: Vec<&str> = LEGACY_KEYS.iter().map(|(k, _)| *k).collect();
        return Err(ProfileError::SeedConfigFile {
            file: file.to_string(),
            message: format!(
                "no setting DB Dyno knows ({}, MYSQL_PASSWORD): is this the seed toolkit's benchmark_config.conf? No profile written",
                known.join(", ")
            ),
        });
    }
    if let Some(p) = validate::check(&import.profile).first() {
        return Err(import.not_valid(p));
    }
    let Import {
        profile,
        comments,
        password,
        mut notices,
        ..
    } = import;
    if let Some(host) = &profile.mysql.host {
        notices.push(format!(
            "the seed toolkit read tsar over SSH as root@{host}; add an [ssh] section to monitor the server"
        ));
    }
    Ok(SeedImport {
        profile,
        comments,
        password,
        notices,
    })
}

/// A seed config being converted, line by line.
struct Import<'a> {
    file: &'a str,
    profile: Profile,
    comments: Comments,
    password: Option<Secret>,
    notices: Vec<String>,
    /// The line each known key was set on, to name it when the result is not valid.
    set_on: Vec<(String, usize)>,
}

impl Import<'_> {
    /// Takes line `n`: a setting DB Dyno knows is applied; anything else is skipped
    /// with a notice. A value the setting refuses is an error.
    fn line(&mut self, n: usize, line: &str) -> Result<(), ProfileError> {
        let (key, value, comment, literal) = match assignment(line) {
            Ok(Some(a)) => a,
            Ok(None) => return Ok(()),
            Err(why) => {
                self.notices.push(format!("line {n} skipped: {why}"));
                return Ok(());
            }
        };
        if !literal && (value.contains('$') || value.contains('`')) {
            self.notices.push(format!(
                "line {n}: {key} uses shell expansion, which is not evaluated; skipped"
            ));
            return Ok(());
        }
        let applied = apply_legacy(&mut self.profile, &key, &value).map_err(|p| {
            ProfileError::SeedConfig {
                file: self.file.to_string(),
                line: n,
                message: format!("{key}: {}", p.message),
            }
        })?;
        match applied {
            Applied::Set => {
                self.set_on.push((key.clone(), n));
                let option = LEGACY_KEYS.iter().find(|(k, _)| *k == key).map(|(_, o)| *o);
                if let (Some(c), Some(f)) = (comment, option.and_then(by_option)) {
                    self.comments.insert(f.key.to_string(), c);
                }
            }
            Applied::Password => {
                self.set_on.push((key.clone(), n));
                if !value.is_empty() {
                    self.password = Some(Secret::new(value));
                }
            }
            Applied::Unknown => self.notices.push(format!(
                "line {n}: {key} is not a setting DB Dyno knows; skipped"
            )),
        }
        Ok(())
    }

    /// The converted profile's first problem, on the line that set the field when one did.
    fn not_valid(&self, p: &Problem) -> ProfileError {
        let line = legacy_key_of(&p.field)
            .and_then(|k| self.set_on.iter().rev().find(|(s, _)| s == k))
            .map(|(_, n)| *n);
        let message = format!(
            "the converted profile is not valid: {}: {}",
            p.field, p.message
        );
        let file = self.file.to_string();
        match line {
            Some(line) => ProfileError::SeedConfig {
                file,
                line,
                message,
            },
            None => ProfileError::SeedConfigFile { file, message },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed article's benchmark_config.conf, as printed.
    const SEED: &str = r#"# Connection settings
MYSQL_HOST=192.168.1.50      # Use internal IP, not public
MYSQL_PORT=3306
MYSQL_USER=sbtest
MYSQL_PASSWORD=your_password_here
MYSQL_DB=sbtest

# Data scale
TABLES=16                    # Number of test tables
TABLE_SIZE=10000000          # Rows per table (10 million)

TEST_TIME=30                 # Seconds per thread count
NEED_PREPARE=true            # Boolean: generate fresh data?

SCENARIOS="oltp_point_select oltp_read_only oltp_read_write oltp_write_only"
THREADS="1 8 16 32 64 128"
"#;

    #[test]
    fn seed_config_becomes_a_profile_without_the_password() {
        let imp = import_seed_config(SEED, "benchmark_config.conf", "benchmark_config").unwrap();
        let p = &imp.profile;
        assert_eq!(p.mysql.host.as_deref(), Some("192.168.1.50"));
        assert_eq!(
            (p.mysql.port, p.mysql.user.as_deref(), p.mysql.db.as_deref()),
            (Some(3306), Some("sbtest"), Some("sbtest"))
        );
        assert_eq!(
            (p.workload.tables, p.workload.table_size),
            (Some(16), Some(10_000_000))
        );
        assert_eq!(
            (p.plan.time, p.plan.prepare),
            (Some(30), Some(dbdyno_engine::PrepareMode::IfMissing))
        );
        assert_eq!(p.plan.threads, Some(vec![1, 8, 16, 32, 64, 128]));
        assert_eq!(
            p.plan.scenarios.as_deref().unwrap(),
            [
                "oltp_point_select",
                "oltp_read_only",
                "oltp_read_write",
                "oltp_write_only"
            ]
        );
        assert_eq!(
            imp.password.as_ref().map(|s| s.expose()),
            Some("your_password_here")
        );
        assert_eq!(imp.comments["workload.tables"], "Number of test tables");
        let text = crate::render::to_toml(p, &imp.comments);
        assert!(!text.contains("your_password_here"), "{text}");
        assert!(
            text.contains("host = \"192.168.1.50\"  # Use internal IP, not public"),
            "{text}"
        );
        let back = crate::load_str(&text, "out.toml", "x").unwrap();
        assert_eq!(&back.profile, p);
    }

    #[test]
    fn quoting_comments_and_odd_lines() {
        assert_eq!(
            assignment(r#"export SCENARIOS="a \"b\"" # c"#).unwrap(),
            Some((
                "SCENARIOS".into(),
                "a \"b\"".into(),
                Some("c".into()),
                false
            ))
        );
        assert_eq!(
            assignment("X='#not a comment'").unwrap().unwrap().1,
            "#not a comment"
        );
        assert_eq!(assignment("   # only a comment").unwrap(), None);
        assert!(assignment("echo hello").is_err());
        assert!(assignment("X=a b").is_err());
        let imp = import_seed_config("TSAR=on\nTABLES=$N\nTABLES=2\n", "c.conf", "c").unwrap();
        assert_eq!(imp.notices.len(), 2, "{:?}", imp.notices);
    }

    #[test]
    fn single_quotes_are_literal_and_double_quotes_expand() {
        let imp = import_seed_config("MYSQL_HOST=db\nMYSQL_PASSWORD='pa$$w0rd'\n", "c.conf", "c")
            .unwrap();
        assert_eq!(imp.password.as_ref().map(|s| s.expose()), Some("pa$$w0rd"));
        let imp = import_seed_config("MYSQL_HOST=db\nMYSQL_PASSWORD=\"pa$HOME\"\n", "c.conf", "c")
            .unwrap();
        assert!(imp.password.is_none());
        assert!(
            imp.notices[0].contains("shell expansion"),
            "{:?}",
            imp.notices
        );
    }

    #[test]
    fn a_file_with_no_known_setting_is_refused_and_no_error_says_line_0() {
        let log = "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nThreads started!\n";
        let e = import_seed_config(log, "run.log", "c")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no setting DB Dyno knows") && e.contains("run.log"),
            "{e}"
        );
        assert!(!e.contains("line 0"), "{e}");
        let e = import_seed_config("TABLES=1\n", "c.conf", "bad name")
            .unwrap_err()
            .to_string();
        assert!(e.contains("--name") && !e.contains("line 0"), "{e}");
        let e = import_seed_config("MYSQL_HOST=h\nTABLE_SIZE=0\n", "c.conf", "c")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("c.conf: line 2:") && e.contains("workload.table_size"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_value_names_the_line() {
        let e = import_seed_config("TABLES=16\nTHREADS=\"1 x\"\n", "c.conf", "c").unwrap_err();
        assert!(e.to_string().contains("c.conf: line 2: THREADS:"), "{e}");
    }
}
