//! `dbdyno agent` (hidden): one load client's side of a step run from several clients.
//! Orders come on stdin and reports go to stdout, one JSON line each
//! (`dbdyno_clients::agent`); the password comes in the orders, never on the command
//! line. It ends when stdin ends, which is how a lost SSH connection ends it.

use std::io::BufReader;
use std::process::ExitCode;

use dbdyno_clients::agent::{serve, AgentExit};

pub fn run() -> ExitCode {
    let exit = serve(BufReader::new(std::io::stdin()), std::io::stdout());
    // The CA certificate and public key the orders carried (written on first use).
    let _ = std::fs::remove_dir_all(dbdyno_engine::clients::agent_files_dir());
    match exit {
        AgentExit::Done => ExitCode::SUCCESS,
        AgentExit::Refused(reason) => {
            eprintln!("dbdyno agent: {reason}");
            ExitCode::from(2)
        }
    }
}
