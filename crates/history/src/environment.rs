//! The environment snapshot stored with a run: what the client machine was. Server
//! facts (version, buffer pool, disks) are added by the samplers when they know them.

use serde_json::json;
use sysinfo::System;

/// The client machine and the endpoint the run targets. No user names, no secrets.
pub fn client_snapshot(endpoint: &str) -> serde_json::Value {
    json!({
        "client": {
            "host_name": System::host_name(),
            "os": System::long_os_version(),
            "kernel": System::kernel_version(),
            "arch": std::env::consts::ARCH,
            "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
            "dbdyno_version": env!("CARGO_PKG_VERSION"),
        },
        "server": { "endpoint": endpoint },
    })
}
