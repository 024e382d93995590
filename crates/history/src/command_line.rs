//! The command line as it is recorded with a run (the history's `command`, the `--json`
//! document's `command_line`, a report's appendix): the arguments as typed, with the value
//! of every secret option replaced, so that a report can say how a run was made without
//! handing out a password.
//!
//! An option is secret when its name contains "password", "passphrase" or "secret"
//! (`--mysql-password`, `--ssh-password`, `--admin-password`, sysbench's
//! `--mysql_password`), except `--…-from` options, whose value names where a secret comes
//! from (`--mysql-password-from=keyring`), not the secret.

/// What a secret value is replaced with.
pub const REDACTED: &str = "***";

/// Whether the value of the option named `name` (without its dashes) is a secret.
fn is_secret_option(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace('_', "-");
    let secret = ["password", "passphrase", "secret"]
        .iter()
        .any(|w| n.contains(w));
    secret && !n.ends_with("-from")
}

/// The arguments with secret values replaced by [`REDACTED`], in both forms:
/// `--opt=value` and `--opt value`. In the second form the next argument is the value
/// exactly when clap would take it as one (it does not start with '-'); a secret option
/// given without a value (the prompt form) is left as it is.
pub fn redact(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut value_next = false;
    for a in args {
        if value_next {
            value_next = false;
            if !a.starts_with('-') {
                out.push(REDACTED.to_string());
                continue;
            }
        }
        if let Some(rest) = a.strip_prefix("--") {
            match rest.split_once('=') {
                Some((name, _)) if is_secret_option(name) => {
                    out.push(format!("--{name}={REDACTED}"));
                    continue;
                }
                None if is_secret_option(rest) => value_next = true,
                _ => {}
            }
        }
        out.push(a.clone());
    }
    out
}

/// One argument as a POSIX shell reads it back: bare when it holds only safe characters,
/// otherwise in single quotes.
fn shell_word(a: &str) -> String {
    let safe = !a.is_empty()
        && a.chars().all(|c| {
            c.is_alphanumeric() || "-_=.,/:@%+*".contains(c) || (!c.is_ascii() && !c.is_control())
        });
    if safe {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

/// `args` (program name first) as one redacted, shell-quoted line starting with `dbdyno`,
/// whatever path the program was started by.
pub fn command_line(args: &[String]) -> String {
    let mut words = vec!["dbdyno".to_string()];
    words.extend(
        redact(args.get(1..).unwrap_or_default())
            .iter()
            .map(|a| shell_word(a)),
    );
    words.join(" ")
}

/// This process's command line, redacted.
pub fn current() -> String {
    command_line(&std::env::args().collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn secret_values_are_replaced_in_both_forms() {
        let got = redact(&v(&[
            "ladder",
            "--mysql-password=S1",
            "--ssh-password",
            "S2",
            "--ssh-passphrase=S3",
            "--admin-password",
            "S4",
            "--mysql_password=S5",
            "--api-secret",
            "S6",
            "--MYSQL-PASSWORD=S7",
            "--ladder=1,2",
        ]));
        assert_eq!(
            got,
            v(&[
                "ladder",
                "--mysql-password=***",
                "--ssh-password",
                "***",
                "--ssh-passphrase=***",
                "--admin-password",
                "***",
                "--mysql_password=***",
                "--api-secret",
                "***",
                "--MYSQL-PASSWORD=***",
                "--ladder=1,2",
            ])
        );
        assert!(got
            .iter()
            .all(|a| !(1..=7).any(|i| a.contains(&format!("S{i}")))));
    }

    #[test]
    fn a_prompting_secret_option_keeps_the_next_option() {
        let got = redact(&v(&["--mysql-password", "--time=5", "--ssh-password"]));
        assert_eq!(got, v(&["--mysql-password", "--time=5", "--ssh-password"]));
    }

    #[test]
    fn other_options_and_secret_sources_are_kept() {
        let args = v(&[
            "--mysql-password-from=keyring",
            "--mysql-user",
            "sbtest",
            "--env=华为云",
            "password",
        ]);
        assert_eq!(redact(&args), args);
    }

    #[test]
    fn the_line_starts_with_dbdyno_and_quotes_what_the_shell_would_split() {
        let line = command_line(&v(&[
            "/usr/local/bin/dbdyno",
            "ladder",
            "--env=lab a",
            "--title=it's",
            "--env=华为云",
            "--mysql-password=p w'd",
        ]));
        assert_eq!(
            line,
            r#"dbdyno ladder '--env=lab a' '--title=it'\''s' --env=华为云 --mysql-password=***"#
        );
        assert_eq!(command_line(&v(&["dbdyno"])), "dbdyno");
    }
}
