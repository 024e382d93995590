//! The environment a run measured: server version and flavour, the variables that
//! decide results, the machine (CPU, memory, kernel), the data disk and its size, the
//! clocks, and what could not be found out and why.
//!
//! Taken at the start of every run and stored with it, so that two results are only
//! compared for what they are (seed 000: every saved result carries its configuration).
//!
//! Non-goals: no verdicts (the checks judge the same facts), no sampling.

use std::collections::BTreeMap;

use dbdyno_engine::ConnectOptions;
use dbdyno_monitor::{HostAccess, MysqlClock};
use dbdyno_ssh::ClockSync;
use serde::{Deserialize, Serialize};

use crate::os_facts::{FsSpace, OsFacts};
use crate::probe::{self, AccessKind, Facts, HostFacts, MysqlFacts, RoleDisk};
use crate::sql::{Flavour, RoundTrip};

/// Something the snapshot (or the run's metrics) lacks, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Missing {
    pub what: String,
    pub why: String,
}

impl Missing {
    pub fn new(what: impl Into<String>, why: impl Into<String>) -> Missing {
        Missing {
            what: what.into(),
            why: why.into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnvironmentSnapshot {
    pub taken_unix_ms: i64,
    pub mysql_endpoint: String,
    pub server: Option<ServerIdentity>,
    /// The variables that decide results (see [`probe::VARIABLES`]), as the server shows them.
    pub variables: BTreeMap<String, String>,
    /// How the OS facts were read: "ssh root@db1:22", "this machine (/proc)" or "none".
    pub os_access: String,
    pub os: Option<OsSummary>,
    /// The disk under each directory MySQL writes to, datadir first.
    pub data_disks: Vec<DataDiskInfo>,
    pub clocks: Clocks,
    pub client: ClientSummary,
    pub missing: Vec<Missing>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServerIdentity {
    pub version: String,
    pub version_comment: String,
    pub flavour: Flavour,
    /// `@@hostname`.
    pub hostname: Option<String>,
    pub datadir: Option<String>,
    pub uptime_s: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OsSummary {
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    pub cpu_model: Option<String>,
    pub cpus: Option<u32>,
    pub physical_cores: Option<u32>,
    pub mem_total_mb: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DataDiskInfo {
    /// "data directory", "redo log", "binary log"…
    pub role: String,
    pub path: String,
    pub mount_point: String,
    pub fs_type: String,
    /// Kernel device names, top of the stack first.
    pub devices: Vec<String>,
    /// Size of each device in bytes, in `devices` order (when the server said).
    pub device_bytes: Vec<Option<u64>>,
    /// The filesystem's size and free space (df), when known.
    pub filesystem: Option<FsSpace>,
    /// How the devices were found, one step per line.
    pub chain: Vec<String>,
    /// The user chose the devices (--device).
    pub overridden: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Clocks {
    /// From `SELECT UNIX_TIMESTAMP(NOW(6))`.
    pub mysql: Option<MysqlClock>,
    /// From `date` over SSH (what aligns OS samples).
    pub ssh: Option<ClockSync>,
    pub mysql_round_trip: Option<RoundTrip>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientSummary {
    pub hostname: Option<String>,
    pub cores: u32,
    /// The client and the server are one machine (same kernel boot id, or a local
    /// database); `None` when it could not be told.
    pub same_host: Option<bool>,
}

impl EnvironmentSnapshot {
    /// Gathers the facts and builds the snapshot (what `run` and `ladder` call).
    pub fn gather(
        connect: &ConnectOptions,
        access: &HostAccess,
        devices: &[String],
    ) -> (EnvironmentSnapshot, Facts) {
        let facts = probe::gather(connect, access, devices);
        (EnvironmentSnapshot::from_facts(&facts), facts)
    }

    pub fn from_facts(f: &Facts) -> EnvironmentSnapshot {
        let m = f.mysql.as_ref().ok();
        let h = &f.host;
        let os = h.os.as_ref();
        EnvironmentSnapshot {
            taken_unix_ms: f.taken_unix_ms,
            mysql_endpoint: f.endpoint.clone(),
            server: m.map(ServerIdentity::of),
            variables: m.map(|m| m.variables.clone()).unwrap_or_default(),
            os_access: h.access.clone(),
            os: os.map(OsSummary::of),
            data_disks: h
                .data_disks
                .iter()
                .map(|rd| DataDiskInfo::of(rd, os))
                .collect(),
            clocks: Clocks {
                mysql: m.and_then(|m| m.clock),
                ssh: h.clock,
                mysql_round_trip: m.and_then(|m| m.round_trip),
            },
            client: ClientSummary {
                hostname: f.client.hostname.clone(),
                cores: f.client.cores,
                same_host: same_host(f).map(|(same, _)| same),
            },
            missing: missing(f),
        }
    }

    /// Every device to sample for the data disk(s), datadir's first.
    pub fn monitored_devices(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for d in &self.data_disks {
            for dev in &d.devices {
                if !out.contains(dev) {
                    out.push(dev.clone());
                }
            }
        }
        out
    }
}

impl ServerIdentity {
    fn of(m: &MysqlFacts) -> ServerIdentity {
        ServerIdentity {
            version: m.version.text.clone(),
            version_comment: m.version.comment.clone(),
            flavour: m.version.flavour,
            hostname: m.var("hostname").map(str::to_string),
            datadir: m.var("datadir").map(str::to_string),
            uptime_s: m.status("Uptime"),
        }
    }
}

impl OsSummary {
    fn of(o: &OsFacts) -> OsSummary {
        OsSummary {
            hostname: o.hostname.clone(),
            kernel: o.kernel.clone(),
            cpu_model: o.cpu_model.clone(),
            cpus: o.cpus,
            physical_cores: o.physical_cores,
            mem_total_mb: o.mem_total_mb,
        }
    }
}

impl DataDiskInfo {
    /// The resolver's answer for one directory, with the sizes the OS facts give.
    fn of(rd: &RoleDisk, os: Option<&OsFacts>) -> DataDiskInfo {
        DataDiskInfo {
            role: rd.role.clone(),
            path: rd.disk.path.clone(),
            mount_point: rd.disk.mount_point.clone(),
            fs_type: rd.disk.fs_type.clone(),
            device_bytes: rd
                .disk
                .devices
                .iter()
                .map(|d| os.and_then(|o| o.block_device_bytes.get(d).copied()))
                .collect(),
            devices: rd.disk.devices.clone(),
            filesystem: os.and_then(|o| o.filesystem(&rd.disk.path)).cloned(),
            chain: rd.disk.chain.clone(),
            overridden: rd.disk.overridden,
        }
    }
}

/// What the snapshot lacks and why: the MySQL side first, then the OS side.
fn missing(f: &Facts) -> Vec<Missing> {
    let mut missing = match &f.mysql {
        Err(p) => vec![Missing::new(
            "server version, variables and MySQL clock",
            p.message.clone(),
        )],
        Ok(m) => missing_variables(m),
    };
    missing.extend(missing_host(&f.host));
    missing
}

/// The variables that decide results and that the server does not report (either name
/// of a renamed variable will do).
fn missing_variables(m: &MysqlFacts) -> Vec<Missing> {
    let core: [&[&str]; 9] = [
        &["innodb_buffer_pool_size"],
        &["innodb_flush_log_at_trx_commit"],
        &["sync_binlog"],
        &["log_bin"],
        &["innodb_io_capacity"],
        &["innodb_log_file_size", "innodb_redo_log_capacity"],
        &["max_connections"],
        &["max_prepared_stmt_count"],
        &["transaction_isolation", "tx_isolation"],
    ];
    core.into_iter()
        .filter(|names| names.iter().all(|n| m.var(n).is_none()))
        .map(|names| {
            Missing::new(
                names.join(" / "),
                "the server does not report this variable",
            )
        })
        .collect()
}

/// What the OS side could not read: no access at all, a failed SSH session, a failed
/// fact script, an unresolved data disk, or no SSH clock offset.
fn missing_host(h: &HostFacts) -> Vec<Missing> {
    let mut missing = Vec::new();
    match h.kind {
        AccessKind::None => missing.push(Missing::new(
            "CPU model, memory, kernel, data disk and its size",
            h.none_why.clone().unwrap_or_default(),
        )),
        _ => {
            if let Some(Err(p)) = &h.ssh {
                missing.push(Missing::new(
                    "CPU model, memory, kernel, data disk and its size",
                    p.message.clone(),
                ));
            } else if let Some(e) = &h.os_error {
                missing.push(Missing::new("CPU model, memory, kernel", e.clone()));
            }
            if let Some(e) = &h.disk_error {
                missing.push(Missing::new("data disk", e.clone()));
            }
        }
    }
    if h.kind == AccessKind::Ssh && h.clock.is_none() && matches!(h.ssh, Some(Ok(_))) {
        missing.push(Missing::new(
            "SSH clock offset",
            "`date +%s.%N` over SSH gave no usable answer: OS samples are placed by their arrival time",
        ));
    }
    missing
}

/// Whether client and server are one machine, and how that was decided.
pub fn same_host(f: &Facts) -> Option<(bool, String)> {
    let remote_boot = f.host.os.as_ref().and_then(|o| o.boot_id.as_deref());
    if let (Some(r), Some(l)) = (remote_boot, f.client.boot_id.as_deref()) {
        return Some((
            r == l,
            if r == l {
                "the server's kernel boot id is this machine's".to_string()
            } else {
                "the server's kernel boot id differs from this machine's".to_string()
            },
        ));
    }
    if f.host.kind == AccessKind::Local {
        return Some((
            true,
            format!("the database endpoint {} is on this machine", f.endpoint),
        ));
    }
    let server_host = f.mysql.as_ref().ok().and_then(|m| m.var("hostname"));
    match (server_host, f.client.hostname.as_deref()) {
        (Some(s), Some(c)) if s.eq_ignore_ascii_case(c) => Some((
            true,
            format!("the server's @@hostname '{s}' is this machine's host name"),
        )),
        (Some(s), Some(_)) => Some((
            false,
            format!("the server's @@hostname '{s}' is not this machine's"),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::{facts, mysql};
    use crate::probe::MysqlProblem;

    #[test]
    fn snapshot_of_a_server_over_ssh() {
        let e = EnvironmentSnapshot::from_facts(&facts());
        let server = e.server.as_ref().unwrap();
        assert_eq!(
            (server.flavour, server.hostname.as_deref()),
            (Flavour::Mariadb, Some("db1"))
        );
        assert_eq!(e.variables["innodb_buffer_pool_size"], "268435456");
        assert_eq!(e.os.as_ref().unwrap().cpus, Some(16));
        let d = &e.data_disks[0];
        assert_eq!(d.devices, ["vda1", "vda"]);
        assert_eq!(
            d.device_bytes,
            [None, Some(100 << 30)],
            "sizes in device order"
        );
        assert_eq!(d.filesystem.as_ref().unwrap().avail_bytes, 20 << 30);
        assert_eq!(e.monitored_devices(), ["vda1", "vda"]);
        assert_eq!(e.client.same_host, Some(false));
        assert!(e.clocks.ssh.is_some() && e.clocks.mysql.is_some());
        assert!(e.missing.is_empty(), "{:?}", e.missing);
    }

    #[test]
    fn missing_things_say_why() {
        let mut f = facts();
        mysql(&mut f).variables.remove("tx_isolation");
        f.host.kind = AccessKind::None;
        f.host.none_why = Some("no --ssh-host: a managed database".into());
        f.host.os = None;
        f.host.data_disks.clear();
        f.host.ssh = None;
        let e = EnvironmentSnapshot::from_facts(&f);
        let whats: Vec<&str> = e.missing.iter().map(|m| m.what.as_str()).collect();
        assert!(
            whats.contains(&"transaction_isolation / tx_isolation"),
            "{whats:?}"
        );
        let os = e
            .missing
            .iter()
            .find(|m| m.what.starts_with("CPU model"))
            .unwrap();
        assert_eq!(os.why, "no --ssh-host: a managed database");
        assert_eq!(e.client.same_host, Some(false), "told apart by @@hostname");

        f.mysql = Err(MysqlProblem {
            message: "Access denied".into(),
            code: Some(1045),
            tls_missing: false,
        });
        let e = EnvironmentSnapshot::from_facts(&f);
        assert!(e.server.is_none() && e.variables.is_empty());
        assert!(e.missing.iter().any(|m| m.why == "Access denied"));
        assert_eq!(e.client.same_host, None);
    }
}
