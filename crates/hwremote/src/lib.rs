//! The database host's hardware measured over SSH: DB Dyno's fileio, cpu and memory
//! tests (crates/hwtest) run there by DB Dyno's own binary, copied by crates/remote.
//!
//! - [`propose`]: a directory on the data disk's filesystem, for the user to confirm;
//! - [`busy`]: `@@datadir` and `Threads_running`, and the warning when MySQL is busy;
//! - [`measure`]: the room check (nothing is written when it fails), the copy, the
//!   agent's progress, and a work directory that is gone whatever the end;
//! - [`agent`]: the host's side (`dbdyno hwtest-agent`), which removes its files on
//!   success, failure, cancel, end of input (a dropped connection) and TERM/HUP/INT.
//!
//! Non-goals: no profile, password or terminal (the shells resolve those through
//! crates/session and ask the user), no history (the shells store the results).

pub mod agent;
pub mod busy;
mod error;
pub mod host_facts;
pub mod measure;
pub mod propose;
pub mod protocol;
mod settings;
pub mod space;

pub use busy::{busy_warning, server_state, ServerState};
pub use error::{HwRemoteError, RoomShortage};
pub use host_facts::{host_facts, HostFacts};
pub use measure::{check_dir, measure, DirCheck, Measurement, Progress};
pub use propose::{propose_dir, Proposal};
pub use settings::Settings;

/// Resolves the data disk under `datadir` on the host (the monitor's resolver) and
/// proposes a directory on its filesystem.
pub fn propose_on_host(
    target: &dbdyno_ssh::SshTarget,
    datadir: &str,
) -> Result<(dbdyno_monitor::DataDisk, Proposal), HwRemoteError> {
    let conn = dbdyno_ssh::connect(target)?;
    let disk = dbdyno_monitor::disk::resolve_remote(&conn, datadir);
    conn.close();
    let disk = disk?;
    let proposal = propose_dir(&disk);
    Ok((disk, proposal))
}
