//! The shell text sent to a host.
//!
//! Two ways in: scripts run by `sh -s` (the whole script on stdin, then EOF), for which
//! quoting with [`dbdyno_ssh::sh_quote`] is enough; and commands that keep stdin for
//! data (a file's bytes, a process's line channel). Those are fixed strings ([`SPAWN`],
//! [`RECEIVE`]) that take their variable parts (paths, arguments, environment) from a
//! header of lines at the start of stdin, each value written as `printf %b` octal escapes. So nothing variable
//! is ever quoted for the login shell (which may not be sh), and no environment value
//! (a password) is ever on a command line, where `ps` would show it. The shell's `read`
//! takes its input one byte at a time, so the data after the header is left, untouched,
//! to the program that follows.

use crate::RemoteError;

/// The first line [`SPAWN`] prints: `dbdyno-remote-pid <pid> <process group>`.
pub const PID_MARKER: &str = "dbdyno-remote-pid";

/// Reads a header of `a<arg>` and `e<NAME=value>` lines up to an empty line, says the
/// pid and process group, then execs the arguments with stdin and stdout left as the
/// channel. No single quote and no backslash inside, so any login shell passes it on.
///
/// sshd starts each session's command with setsid(), in a session and process group of
/// its own; the group the script reports therefore holds exactly this command's
/// processes, and a signal to it ends the whole tree and nothing else.
pub const SPAWN: &str = "sh -c 'while IFS= read -r l && [ -n \"$l\" ]; do \
v=$(printf \"%bx\" \"${l#?}\"); v=${v%x}; \
case $l in a*) set -- \"$@\" \"$v\";; e*) export \"$v\";; esac; done; \
g=$(ps -o pgid= -p $$ 2>/dev/null); echo \"dbdyno-remote-pid $$ ${g:-$$}\"; exec \"$@\"'";

/// Reads one header line (a path), then writes the rest of stdin to that file.
pub const RECEIVE: &str =
    "sh -c 'IFS= read -r l; v=$(printf \"%bx\" \"$l\"); v=${v%x}; exec cat > \"$v\"'";

/// Every byte as `\0ooo`, which `printf %b` turns back into that byte.
fn encode(s: &str) -> String {
    s.bytes().map(|b| format!("\\0{b:03o}")).collect()
}

/// The header [`SPAWN`] reads: the program, its arguments, its environment.
pub fn spawn_header(
    program: &str,
    args: &[String],
    env: &[(String, String)],
) -> Result<Vec<u8>, RemoteError> {
    let mut header = String::new();
    for (name, value) in env {
        if !is_env_name(name) {
            return Err(RemoteError::BadEnvName { name: name.clone() });
        }
        header.push_str(&format!("e{}\n", encode(&format!("{name}={value}"))));
    }
    for arg in std::iter::once(program).chain(args.iter().map(String::as_str)) {
        header.push_str(&format!("a{}\n", encode(arg)));
    }
    header.push('\n');
    Ok(header.into_bytes())
}

/// The header [`RECEIVE`] reads: the file to write.
pub fn receive_header(path: &str) -> Vec<u8> {
    format!("{}\n", encode(path)).into_bytes()
}

fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

/// `(pid, process group)` from [`SPAWN`]'s first line.
pub fn parse_pid_line(line: &str) -> Option<(u32, u32)> {
    let mut words = line.split_whitespace();
    if words.next()? != PID_MARKER {
        return None;
    }
    let pid = words.next()?.parse().ok()?;
    let group = words.next()?.parse().ok()?;
    words.next().is_none().then_some((pid, group))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    /// Runs `command` as a login shell would (`sh -c command`), feeding `stdin`.
    fn run_as_login_shell(command: &str, stdin: &[u8]) -> (String, String) {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sh");
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let out = child.wait_with_output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn spawn_passes_arguments_and_environment_intact_and_leaves_stdin_to_the_program() {
        let secret = "pa'ss \"w\\ord\"\n$x é\n";
        let header = spawn_header(
            "sh",
            &[
                "-c".into(),
                r#"printf '[%s]' "$DBDYNO_T_SECRET" "$1"; echo; cat"#.into(),
                "zero".into(),
                "one 'quoted' arg\\n".into(),
            ],
            &[("DBDYNO_T_SECRET".into(), secret.into())],
        )
        .unwrap();
        let mut stdin = header;
        stdin.extend_from_slice(b"line one\nline two\n");
        let (out, err) = run_as_login_shell(SPAWN, &stdin);
        let mut lines = out.lines();
        let first = lines.next().unwrap_or_default();
        let (pid, group) = parse_pid_line(first).unwrap_or_else(|| panic!("{out}{err}"));
        assert!(pid > 0 && group > 0);
        let rest: Vec<&str> = lines.collect();
        assert_eq!(
            rest.join("\n"),
            format!("[{secret}][one 'quoted' arg\\n]\nline one\nline two"),
            "stderr: {err}"
        );
    }

    #[test]
    fn a_program_that_cannot_start_fails_after_the_pid_line() {
        let header = spawn_header("/no/such/program", &[], &[]).unwrap();
        let (out, err) = run_as_login_shell(SPAWN, &header);
        assert!(out.starts_with(PID_MARKER), "{out}");
        assert!(err.contains("/no/such/program"), "{err}");
    }

    #[test]
    fn receive_writes_everything_after_the_header_to_the_named_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a file 'with' quotes");
        let mut stdin = receive_header(path.to_str().unwrap());
        let data: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        stdin.extend_from_slice(&data);
        let (_, err) = run_as_login_shell(RECEIVE, &stdin);
        assert_eq!(std::fs::read(&path).unwrap(), data, "{err}");
    }

    #[test]
    fn environment_names_are_checked() {
        for bad in ["", "1X", "A-B", "A B", "A=B"] {
            let err = spawn_header("p", &[], &[(bad.into(), "v".into())]).unwrap_err();
            assert!(matches!(err, RemoteError::BadEnvName { .. }), "{bad}");
        }
        assert!(spawn_header("p", &[], &[("_OK_1".into(), "v".into())]).is_ok());
    }

    #[test]
    fn pid_line_parsing() {
        assert_eq!(parse_pid_line("dbdyno-remote-pid 12 12"), Some((12, 12)));
        assert_eq!(parse_pid_line("dbdyno-remote-pid 12  9\r"), Some((12, 9)));
        assert_eq!(parse_pid_line("dbdyno-remote-pid 12"), None);
        assert_eq!(parse_pid_line("dbdyno-remote-pid x 1"), None);
        assert_eq!(parse_pid_line("hello 1 2"), None);
        assert_eq!(parse_pid_line("dbdyno-remote-pid 1 2 3"), None);
    }
}
