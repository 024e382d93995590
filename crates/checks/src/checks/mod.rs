//! The checks, one module per family. Each is a pure function of the gathered
//! [`Facts`] and the [`Plan`], so every verdict is unit-tested on synthetic facts.
//!
//! - [`connection`]: reachable and authenticated, version, privileges, schema, foreign tables;
//! - [`capacity`]: max_prepared_stmt_count and max_connections against the plan's peaks;
//! - [`dataset`]: tables present, data size vs the buffer pool, free disk space;
//! - [`host`]: SSH, the data disk, one machine or two, clocks, round trip, client cores;
//! - [`history_dir`]: the history's directory on this machine (the run adds it: its
//!   facts are local, not the server's).

pub mod capacity;
pub mod connection;
pub mod dataset;
pub mod history_dir;
pub mod host;

use dbdyno_engine::Plan;

use crate::check::Check;
use crate::probe::Facts;

/// Every check, in the order people read them: can we talk to it, can it take the
/// plan, is the data right, and what the measurement will be worth.
pub fn all(f: &Facts, plan: &Plan) -> Vec<Check> {
    let mut out = connection::checks(f, plan);
    out.extend(capacity::checks(f, plan));
    out.extend(dataset::checks(f, plan));
    out.extend(host::checks(f, plan));
    out
}

/// The verdict of MySQL-side checks when the server could not be reached.
pub(crate) fn unreachable(id: &str, title: &str, why: &str) -> Check {
    Check::skipped(
        id,
        title,
        "not checked: MySQL is not reachable (see mysql.reachable)",
        why,
    )
}

/// Synthetic facts and plans for the checks' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use dbdyno_engine::{ConnectOptions, LadderSpec, Plan, Scenario, WorkloadOptions};
    use dbdyno_monitor::{DataDisk, MysqlClock};
    use dbdyno_ssh::ClockSync;

    use crate::os_facts::{FsSpace, OsFacts};
    use crate::probe::{
        AccessKind, ClientFacts, Facts, HostFacts, MysqlFacts, Privileges, RoleDisk,
    };
    use crate::sql::{RoundTrip, ServerVersion};

    pub const GIB: u64 = 1 << 30;

    /// A healthy local MariaDB 10.11 with a 256 MiB buffer pool, 20 GiB free, two client cores.
    pub fn facts() -> Facts {
        let vars: BTreeMap<String, String> = [
            ("version", "10.11.19-MariaDB-0+deb12u1"),
            ("version_comment", "Debian 12"),
            ("hostname", "db1"),
            ("datadir", "/var/lib/mysql/"),
            ("innodb_buffer_pool_size", "268435456"),
            ("innodb_flush_log_at_trx_commit", "1"),
            ("sync_binlog", "0"),
            ("log_bin", "OFF"),
            ("innodb_io_capacity", "200"),
            ("innodb_log_file_size", "134217728"),
            ("max_connections", "151"),
            ("max_user_connections", "0"),
            ("max_prepared_stmt_count", "16382"),
            ("tx_isolation", "REPEATABLE-READ"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let all: BTreeSet<String> = [
            "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "INDEX", "ALTER",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        let mysql = MysqlFacts {
            current_user: "sbtest@10.0.0.5".into(),
            version: ServerVersion::parse(&vars["version"], &vars["version_comment"]),
            variables: vars,
            status: HashMap::from([
                ("Prepared_stmt_count".to_string(), 0),
                ("Threads_connected".to_string(), 1),
                ("Uptime".to_string(), 1000),
            ]),
            privileges: Privileges {
                global: BTreeSet::new(),
                on_schema: all,
                roles: false,
            },
            schema_exists: true,
            tables: BTreeMap::new(),
            benchmark_bytes: 0,
            benchmark_rows: 0,
            oltp_tables: None,
            tpcc_tables: None,
            clock: Some(MysqlClock {
                offset_ms: 0.2,
                rtt_ms: 0.3,
                rounds: 5,
            }),
            round_trip: Some(RoundTrip {
                min_ms: 0.1,
                median_ms: 0.2,
                pings: 10,
            }),
            connect_ms: 3.0,
        };
        let os = OsFacts {
            hostname: Some("db1".into()),
            kernel: Some("6.1.0".into()),
            cpu_model: Some("AMD EPYC".into()),
            cpus: Some(16),
            physical_cores: Some(8),
            mem_total_mb: Some(64_000.0),
            boot_id: Some("server-boot".into()),
            filesystems: vec![FsSpace {
                path: "/var/lib/mysql".into(),
                mount_point: "/".into(),
                total_bytes: 100 * GIB,
                avail_bytes: 20 * GIB,
            }],
            block_device_bytes: BTreeMap::from([("vda".to_string(), 100 * GIB)]),
        };
        Facts {
            endpoint: "10.0.0.9:3306".into(),
            user: "sbtest".into(),
            schema: "sbtest".into(),
            mysql: Ok(mysql),
            host: HostFacts {
                access: "ssh root@10.0.0.9:22".into(),
                kind: AccessKind::Ssh,
                none_why: None,
                ssh: Some(Ok(crate::probe::SshOk {
                    fingerprint: "SHA256:abc".into(),
                    connect_ms: 40.0,
                })),
                os: Some(os),
                os_error: None,
                data_disks: vec![RoleDisk {
                    role: "data directory".into(),
                    disk: DataDisk {
                        path: "/var/lib/mysql".into(),
                        mount_point: "/".into(),
                        fs_type: "ext4".into(),
                        source: "/dev/vda1".into(),
                        devices: vec!["vda1".into(), "vda".into()],
                        chain: vec!["/var/lib/mysql is on / (ext4, /dev/vda1)".into()],
                        overridden: false,
                    },
                }],
                disk_error: None,
                device_error: None,
                device_warnings: Vec::new(),
                clock: Some(ClockSync {
                    offset_ms: 1.5,
                    rtt_ms: 0.8,
                    server_resolution_ms: 1e-6,
                    rounds: 5,
                }),
            },
            client: ClientFacts {
                hostname: Some("client1".into()),
                cores: 2,
                boot_id: Some("client-boot".into()),
            },
            taken_unix_ms: 1_700_000_000_000,
        }
    }

    pub fn mysql(f: &mut Facts) -> &mut MysqlFacts {
        f.mysql.as_mut().expect("facts() has MySQL facts")
    }

    pub fn set_var(f: &mut Facts, k: &str, v: &str) {
        mysql(f).variables.insert(k.to_string(), v.to_string());
    }

    /// A ladder plan over `scenarios` × `threads` on `tables` × `table_size` rows.
    pub fn plan(
        scenarios: &[Scenario],
        threads: &[u32],
        tables: u32,
        table_size: u64,
        prepare: bool,
    ) -> Plan {
        let spec = LadderSpec {
            scenarios: scenarios.to_vec(),
            threads: threads.to_vec(),
            prepare: prepare.into(),
            ..Default::default()
        };
        Plan {
            connect: ConnectOptions::default(),
            workload: WorkloadOptions {
                tables,
                table_size,
                ..Default::default()
            },
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        }
    }

    /// Finds a check by id or panics with the list.
    pub fn find<'a>(checks: &'a [crate::check::Check], id: &str) -> &'a crate::check::Check {
        checks.iter().find(|c| c.id == id).unwrap_or_else(|| {
            panic!(
                "no check {id} in {:?}",
                checks.iter().map(|c| &c.id).collect::<Vec<_>>()
            )
        })
    }
}
