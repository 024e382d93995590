//! `dbdyno agent` (hidden): one load client's side of a step run from several clients.
//! Orders come on stdin and reports go to stdout, one JSON line each
//! (`dbdyno_clients::agent`); the password comes in the orders, never on the command
//! line. It ends when stdin ends, which is how a lost SSH connection ends it.

use std::io::BufReader;
use std::process::ExitCode;

use dbdyno_clients::agent::{serve, AgentExit};

pub fn run() -> ExitCode {
    match serve(BufReader::new(std::io::stdin()), std::io::stdout()) {
        AgentExit::Done => ExitCode::SUCCESS,
        AgentExit::Refused(reason) => {
            eprintln!("dbdyno agent: {reason}");
            ExitCode::from(2)
        }
    }
}
