//! Monitoring against the real sshd and MariaDB, one file per subject: host keys
//! (`host_keys`), the SSH login (`ssh_login`), OS sampling over SSH and the gap a dead
//! sshd leaves (`ssh_sampling`), runs sampled from this machine's /proc or without OS
//! sampling (`local`), the data disk (`disks`), the `monitor` command line
//! (`command_line`) and the MySQL status sampler (`mysql_sampler`).
//!
//! This file holds only what several of them share; the sshd sandbox's own helpers are
//! in `sshd.rs`.

use serde_json::Value;

use crate::sshd::Sshd;

mod command_line;
mod disks;
mod host_keys;
mod local;
mod mysql_sampler;
mod ssh_login;
mod ssh_sampling;

/// A JSON file a run wrote (`--json=FILE`).
fn json_file(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The whole disks of this machine, which also runs the sandbox sshd.
fn local_disks() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/sys/block")
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| !n.starts_with("loop") && !n.starts_with("ram"))
        .collect();
    v.sort();
    v
}

/// A one-step ladder that prepares its own table, monitored over SSH; `extra` comes last.
fn ladder_args(sb: &Sshd, kh: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=1",
        "--no-history",
        "--prepare",
        "--tables=1",
        "--table-size=100",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sb.args(kh));
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}
