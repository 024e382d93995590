//! The `dbdyno` binary: the command line in `lib.rs`.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`dbdyno check | head -1`)
    // would panic with exit 101; the default action ends the process quietly instead.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    dbdyno_cli::run(std::env::args())
}
