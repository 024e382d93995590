//! Prints what the data-disk facts script reports for a path on this machine: the very
//! script and parser the monitor runs on a server, so fixtures captured with it
//! (tests/fixtures/disk/capture.sh) match what the resolver sees in the field.
//!
//! `disk_facts PATH` prints the raw script output (`==> section <==` blocks);
//! `disk_facts --resolve PATH` prints the resolver's answer as JSON instead.

use dbdyno_monitor::disk;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (resolve, path) = match args.as_slice() {
        [p] if !p.starts_with('-') => (false, p),
        [flag, p] if flag == "--resolve" => (true, p),
        _ => {
            eprintln!("usage: disk_facts [--resolve] ABSOLUTE_PATH");
            return ExitCode::from(2);
        }
    };
    let out = if resolve {
        disk::resolve_local(path)
            .map(|d| serde_json::to_string_pretty(&d).expect("a DataDisk always serializes"))
    } else {
        disk::gather_local(path)
    };
    match out {
        Ok(text) => {
            print!("{text}");
            if resolve {
                println!();
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("disk_facts: {e}");
            ExitCode::FAILURE
        }
    }
}
