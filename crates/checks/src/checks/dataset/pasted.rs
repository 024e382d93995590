//! The `dbdyno` commands the dataset checks print for a fix: the plan's server and
//! schema as options, each one shell word.

use dbdyno_engine::Plan;

/// The connection options of a pasted `dbdyno` command, so it reaches the same server
/// and schema as the plan (never the password: MYSQL_PWD, the keyring or a prompt).
pub fn connection_args(plan: &Plan) -> String {
    let c = &plan.connect;
    let endpoint = match &c.socket {
        Some(sock) => format!("--mysql-socket={}", shell_word(sock)),
        None => format!(
            "--mysql-host={} --mysql-port={}",
            shell_word(&c.host),
            c.port
        ),
    };
    format!(
        "{endpoint} --mysql-user={} --mysql-db={}",
        shell_word(&c.user),
        shell_word(&c.database)
    )
}

/// `s` as one POSIX shell word: as is when it is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@%+=,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
