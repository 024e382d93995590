//! Shell quoting for the text sent to a host: the one function every crate uses to
//! put a variable (a path, a device name, a script) into a command line for POSIX sh.

/// `s` as one word for POSIX sh, whatever it holds: single quotes, with each `'`
/// written as `'\''` (close, escaped quote, reopen).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_quote_inside_is_closed_escaped_and_reopened() {
        assert_eq!(sh_quote("/var/lib/my'sql"), r"'/var/lib/my'\''sql'");
    }

    #[test]
    fn quote_survives_every_character() {
        for s in [
            "plain",
            "it's",
            "a b",
            "$HOME",
            "`x`",
            "back\\slash",
            "",
            "\n",
        ] {
            let out = Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", sh_quote(s)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), s);
        }
    }
}
