//! The flavour table: one row per server family and version range, holding every
//! statement and name DB Dyno uses that differs between them. A caller asks
//! [`dialect`] for the row of the server that answered and takes the statement from it,
//! instead of spelling `SHOW SLAVE STATUS` where MySQL 8.4 no longer has it.
//!
//! What differs, from the servers' manuals and release notes:
//! - MySQL 8.0.22 renamed `SHOW SLAVE STATUS` to `SHOW REPLICA STATUS` and its columns
//!   (`Seconds_Behind_Master` → `Seconds_Behind_Source`, `Slave_IO_Running` →
//!   `Replica_IO_Running`, `Master_*` → `Source_*`); 8.4 removed the old statement.
//!   MariaDB 10.5.1 took `SHOW REPLICA STATUS` as a synonym and kept the old columns.
//! - MySQL 8.2 renamed `SHOW MASTER STATUS` to `SHOW BINARY LOG STATUS`; 8.4 removed
//!   the old one. MariaDB 10.5.2 calls it `SHOW BINLOG STATUS`.
//! - MySQL 8.0 removed the query cache, `tx_isolation` and
//!   `INFORMATION_SCHEMA.GLOBAL_STATUS` (now `performance_schema.global_status`, as on
//!   5.7 by default); MariaDB keeps all three (`transaction_isolation` from 11.1).
//! - MySQL 8.0.4 made `caching_sha2_password` the default plugin; 8.4 turned
//!   `mysql_native_password` off unless loaded. MariaDB logs in with
//!   `mysql_native_password`.
//! - MySQL 8.4 changed the defaults of about twenty InnoDB and temptable variables
//!   ([`CHANGED_DEFAULTS_IN_8_4`]): a comparison of 8.0 and 8.4 on their defaults
//!   compares configurations too, so the environment snapshot records them.
//!
//! Non-goals: edition plugins (MySQL Enterprise's thread pool), proxies and TiDB (they
//! get the row of the MySQL version they report).

use crate::flavour::{Flavour, ServerVersion};

/// What one range of servers speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The range, for messages and tests: "MySQL 8.4+".
    pub servers: &'static str,
    /// The binary log's current file and position.
    pub binary_log_status: &'static str,
    /// The replica threads' state and lag (an empty result on a server that is no replica).
    pub replica_status: &'static str,
    pub replica: ReplicaColumns,
    /// The global status counters as a table (for a `WHERE` on them).
    pub global_status_table: &'static str,
    pub query_cache: bool,
    /// The transaction isolation variable.
    pub isolation_variable: &'static str,
    /// The authentication plugin a new account gets by default.
    pub default_auth_plugin: &'static str,
    /// Variables of the environment snapshot's list that these servers do not have
    /// (removed, or not yet there), so that their absence is expected, not an error.
    pub absent_variables: &'static [&'static str],
}

/// The columns of `replica_status` that tell whether and how far a replica lags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaColumns {
    pub source_host: &'static str,
    pub io_running: &'static str,
    pub sql_running: &'static str,
    pub seconds_behind: &'static str,
    /// The source's binary log file and position the replica has read up to...
    pub source_log_file: &'static str,
    pub read_source_log_pos: &'static str,
    /// ...and has applied up to.
    pub relay_source_log_file: &'static str,
    pub exec_source_log_pos: &'static str,
    pub last_io_error: &'static str,
    pub last_sql_error: &'static str,
}

impl ReplicaColumns {
    /// Every column named, for a check that the server returns them all.
    pub fn all(&self) -> [&'static str; 10] {
        [
            self.source_host,
            self.io_running,
            self.sql_running,
            self.seconds_behind,
            self.source_log_file,
            self.read_source_log_pos,
            self.relay_source_log_file,
            self.exec_source_log_pos,
            self.last_io_error,
            self.last_sql_error,
        ]
    }
}

const MASTER_SLAVE_COLUMNS: ReplicaColumns = ReplicaColumns {
    source_host: "Master_Host",
    io_running: "Slave_IO_Running",
    sql_running: "Slave_SQL_Running",
    seconds_behind: "Seconds_Behind_Master",
    source_log_file: "Master_Log_File",
    read_source_log_pos: "Read_Master_Log_Pos",
    relay_source_log_file: "Relay_Master_Log_File",
    exec_source_log_pos: "Exec_Master_Log_Pos",
    last_io_error: "Last_IO_Error",
    last_sql_error: "Last_SQL_Error",
};

const SOURCE_REPLICA_COLUMNS: ReplicaColumns = ReplicaColumns {
    source_host: "Source_Host",
    io_running: "Replica_IO_Running",
    sql_running: "Replica_SQL_Running",
    seconds_behind: "Seconds_Behind_Source",
    source_log_file: "Source_Log_File",
    read_source_log_pos: "Read_Source_Log_Pos",
    relay_source_log_file: "Relay_Source_Log_File",
    exec_source_log_pos: "Exec_Source_Log_Pos",
    last_io_error: "Last_IO_Error",
    last_sql_error: "Last_SQL_Error",
};

const MYSQL_5_7: Dialect = Dialect {
    servers: "MySQL 5.7",
    binary_log_status: "SHOW MASTER STATUS",
    replica_status: "SHOW SLAVE STATUS",
    replica: MASTER_SLAVE_COLUMNS,
    global_status_table: "performance_schema.global_status",
    query_cache: true,
    isolation_variable: "tx_isolation",
    default_auth_plugin: "mysql_native_password",
    absent_variables: &["innodb_redo_log_capacity"],
};

/// 8.0.3 removed the query cache and `tx_isolation`.
const MYSQL_8_0_REMOVED: &[&str] = &[
    "query_cache_type",
    "query_cache_size",
    "tx_isolation",
    "innodb_redo_log_capacity",
];
const MYSQL_8_0_30_REMOVED: &[&str] = &["query_cache_type", "query_cache_size", "tx_isolation"];

const MYSQL_8_0: Dialect = Dialect {
    servers: "MySQL 8.0.0-8.0.21",
    query_cache: false,
    isolation_variable: "transaction_isolation",
    default_auth_plugin: "caching_sha2_password",
    absent_variables: MYSQL_8_0_REMOVED,
    ..MYSQL_5_7
};

const MYSQL_8_0_22: Dialect = Dialect {
    servers: "MySQL 8.0.22-8.0.29",
    replica_status: "SHOW REPLICA STATUS",
    replica: SOURCE_REPLICA_COLUMNS,
    ..MYSQL_8_0
};

/// 8.0.30 added `innodb_redo_log_capacity`.
const MYSQL_8_0_30: Dialect = Dialect {
    servers: "MySQL 8.0.30-8.1",
    absent_variables: MYSQL_8_0_30_REMOVED,
    ..MYSQL_8_0_22
};

const MYSQL_8_2: Dialect = Dialect {
    servers: "MySQL 8.2-8.3",
    binary_log_status: "SHOW BINARY LOG STATUS",
    ..MYSQL_8_0_30
};

/// 8.4 LTS: the old statements gone, `mysql_native_password` off, new InnoDB defaults.
const MYSQL_8_4: Dialect = Dialect {
    servers: "MySQL 8.4+",
    ..MYSQL_8_2
};

const MARIADB_10_3: Dialect = Dialect {
    servers: "MariaDB 10.3-10.5.1",
    binary_log_status: "SHOW MASTER STATUS",
    replica_status: "SHOW SLAVE STATUS",
    replica: MASTER_SLAVE_COLUMNS,
    global_status_table: "information_schema.GLOBAL_STATUS",
    query_cache: true,
    isolation_variable: "tx_isolation",
    default_auth_plugin: "mysql_native_password",
    absent_variables: &["innodb_redo_log_capacity", "transaction_isolation"],
};

/// 10.5.1 took `SHOW REPLICA STATUS`, 10.5.2 `SHOW BINLOG STATUS`; the columns kept
/// their names.
const MARIADB_10_5: Dialect = Dialect {
    servers: "MariaDB 10.5.2-10.5",
    binary_log_status: "SHOW BINLOG STATUS",
    replica_status: "SHOW REPLICA STATUS",
    ..MARIADB_10_3
};

/// 10.6 removed the variables 10.5 deprecated.
const MARIADB_10_6_REMOVED: &[&str] = &[
    "innodb_redo_log_capacity",
    "transaction_isolation",
    "innodb_log_files_in_group",
    "innodb_buffer_pool_instances",
    "innodb_thread_concurrency",
];
const MARIADB_10_6: Dialect = Dialect {
    servers: "MariaDB 10.6-11.0",
    absent_variables: MARIADB_10_6_REMOVED,
    ..MARIADB_10_5
};

/// 11.1 renamed `tx_isolation` to `transaction_isolation` (the old name an alias).
const MARIADB_11_1: Dialect = Dialect {
    servers: "MariaDB 11.1+",
    isolation_variable: "transaction_isolation",
    absent_variables: &[
        "innodb_redo_log_capacity",
        "innodb_log_files_in_group",
        "innodb_buffer_pool_instances",
        "innodb_thread_concurrency",
    ],
    ..MARIADB_10_6
};

/// The table: for each family, its rows from the newest range down, each with the
/// first version it covers.
const TABLE: &[(Family, (u32, u32, u32), &Dialect)] = &[
    (Family::Mysql, (8, 4, 0), &MYSQL_8_4),
    (Family::Mysql, (8, 2, 0), &MYSQL_8_2),
    (Family::Mysql, (8, 0, 30), &MYSQL_8_0_30),
    (Family::Mysql, (8, 0, 22), &MYSQL_8_0_22),
    (Family::Mysql, (8, 0, 0), &MYSQL_8_0),
    (Family::Mysql, (0, 0, 0), &MYSQL_5_7),
    (Family::Mariadb, (11, 1, 0), &MARIADB_11_1),
    (Family::Mariadb, (10, 6, 0), &MARIADB_10_6),
    (Family::Mariadb, (10, 5, 2), &MARIADB_10_5),
    (Family::Mariadb, (0, 0, 0), &MARIADB_10_3),
];

/// Percona Server and unknown servers speak as the MySQL version they report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Mysql,
    Mariadb,
}

/// The row of the server that answered.
pub fn dialect(v: &ServerVersion) -> &'static Dialect {
    let family = match v.flavour {
        Flavour::Mariadb => Family::Mariadb,
        Flavour::Mysql | Flavour::Percona | Flavour::Other => Family::Mysql,
    };
    let version = (v.major, v.minor, v.patch);
    TABLE
        .iter()
        .find(|(f, from, _)| *f == family && version >= *from)
        .map(|(_, _, d)| *d)
        .expect("every family has a row from version 0")
}

/// MySQL 8.4's new defaults (the 8.4.0 release notes, "InnoDB system variable
/// defaults"): the variable, its 8.0 default and its 8.4 default. Several 8.4 defaults
/// follow the machine (its logical CPUs, its memory, the buffer pool), as written.
pub const CHANGED_DEFAULTS_IN_8_4: &[(&str, &str, &str)] = &[
    ("innodb_adaptive_hash_index", "ON", "OFF"),
    (
        "innodb_buffer_pool_in_core_file",
        "ON",
        "OFF (where MADV_DONTDUMP works)",
    ),
    (
        "innodb_buffer_pool_instances",
        "8 (1 under 1 GiB)",
        "from the buffer pool size and CPUs",
    ),
    ("innodb_change_buffering", "all", "none"),
    ("innodb_doublewrite_files", "2 x buffer pool instances", "2"),
    (
        "innodb_doublewrite_pages",
        "innodb_write_io_threads (4)",
        "128",
    ),
    ("innodb_flush_method", "fsync", "O_DIRECT (where supported)"),
    ("innodb_io_capacity", "200", "10000"),
    (
        "innodb_io_capacity_max",
        "2 x io_capacity, at least 2000",
        "2 x io_capacity",
    ),
    ("innodb_log_buffer_size", "16 MiB", "64 MiB"),
    ("innodb_log_writer_threads", "ON", "OFF on 32 CPUs or fewer"),
    ("innodb_numa_interleave", "OFF", "ON"),
    ("innodb_page_cleaners", "4", "innodb_buffer_pool_instances"),
    ("innodb_parallel_read_threads", "4", "CPUs / 8, at least 4"),
    ("innodb_purge_threads", "4", "1 on 16 CPUs or fewer, else 4"),
    ("innodb_read_io_threads", "4", "CPUs / 2, at least 4"),
    ("innodb_use_fdatasync", "OFF", "ON"),
    ("temptable_max_ram", "1 GiB", "3% of memory, 1-4 GiB"),
    ("temptable_use_mmap", "ON", "OFF"),
];

/// The names of [`CHANGED_DEFAULTS_IN_8_4`].
pub fn changed_in_8_4() -> impl Iterator<Item = &'static str> {
    CHANGED_DEFAULTS_IN_8_4.iter().map(|(name, _, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(version: &str, comment: &str) -> &'static Dialect {
        dialect(&ServerVersion::parse(version, comment))
    }

    /// The `SHOW REPLICA STATUS` / `SHOW SLAVE STATUS` column names each manual
    /// documents, in order (MySQL 8.4 and 8.0.22+: "SHOW REPLICA STATUS Statement";
    /// MySQL 5.7: "SHOW SLAVE STATUS Statement"; MariaDB 10.6: "SHOW REPLICA STATUS").
    const MYSQL_8_4_REPLICA: &str = "Replica_IO_State Source_Host Source_User Source_Port Connect_Retry \
        Source_Log_File Read_Source_Log_Pos Relay_Log_File Relay_Log_Pos Relay_Source_Log_File \
        Replica_IO_Running Replica_SQL_Running Replicate_Do_DB Replicate_Ignore_DB Replicate_Do_Table \
        Replicate_Ignore_Table Replicate_Wild_Do_Table Replicate_Wild_Ignore_Table Last_Errno Last_Error \
        Skip_Counter Exec_Source_Log_Pos Relay_Log_Space Until_Condition Until_Log_File Until_Log_Pos \
        Source_SSL_Allowed Source_SSL_CA_File Source_SSL_CA_Path Source_SSL_Cert Source_SSL_Cipher \
        Source_SSL_Key Seconds_Behind_Source Source_SSL_Verify_Server_Cert Last_IO_Errno Last_IO_Error \
        Last_SQL_Errno Last_SQL_Error Replicate_Ignore_Server_Ids Source_Server_Id Source_UUID \
        Source_Info_File SQL_Delay SQL_Remaining_Delay Replica_SQL_Running_State Source_Retry_Count \
        Source_Bind Last_IO_Error_Timestamp Last_SQL_Error_Timestamp Source_SSL_Crl Source_SSL_Crlpath \
        Retrieved_Gtid_Set Executed_Gtid_Set Auto_Position Replicate_Rewrite_DB Channel_Name \
        Source_TLS_Version Source_public_key_path Get_Source_public_key Network_Namespace";
    const MYSQL_5_7_SLAVE: &str = "Slave_IO_State Master_Host Master_User Master_Port Connect_Retry \
        Master_Log_File Read_Master_Log_Pos Relay_Log_File Relay_Log_Pos Relay_Master_Log_File \
        Slave_IO_Running Slave_SQL_Running Replicate_Do_DB Replicate_Ignore_DB Replicate_Do_Table \
        Replicate_Ignore_Table Replicate_Wild_Do_Table Replicate_Wild_Ignore_Table Last_Errno Last_Error \
        Skip_Counter Exec_Master_Log_Pos Relay_Log_Space Until_Condition Until_Log_File Until_Log_Pos \
        Master_SSL_Allowed Master_SSL_CA_File Master_SSL_CA_Path Master_SSL_Cert Master_SSL_Cipher \
        Master_SSL_Key Seconds_Behind_Master Master_SSL_Verify_Server_Cert Last_IO_Errno Last_IO_Error \
        Last_SQL_Errno Last_SQL_Error Replicate_Ignore_Server_Ids Master_Server_Id Master_UUID \
        Master_Info_File SQL_Delay SQL_Remaining_Delay Slave_SQL_Running_State Master_Retry_Count \
        Master_Bind Last_IO_Error_Timestamp Last_SQL_Error_Timestamp Master_SSL_Crl Master_SSL_Crlpath \
        Retrieved_Gtid_Set Executed_Gtid_Set Auto_Position Replicate_Rewrite_DB Channel_Name \
        Master_TLS_Version";
    const MARIADB_10_6_REPLICA: &str = "Slave_IO_State Master_Host Master_User Master_Port Connect_Retry \
        Master_Log_File Read_Master_Log_Pos Relay_Log_File Relay_Log_Pos Relay_Master_Log_File \
        Slave_IO_Running Slave_SQL_Running Replicate_Rewrite_DB Replicate_Do_DB Replicate_Ignore_DB \
        Replicate_Do_Table Replicate_Ignore_Table Replicate_Wild_Do_Table Replicate_Wild_Ignore_Table \
        Last_Errno Last_Error Skip_Counter Exec_Master_Log_Pos Relay_Log_Space Until_Condition \
        Until_Log_File Until_Log_Pos Master_SSL_Allowed Master_SSL_CA_File Master_SSL_CA_Path \
        Master_SSL_Cert Master_SSL_Cipher Master_SSL_Key Seconds_Behind_Master \
        Master_SSL_Verify_Server_Cert Last_IO_Errno Last_IO_Error Last_SQL_Errno Last_SQL_Error \
        Replicate_Ignore_Server_Ids Master_Server_Id Master_SSL_Crl Master_SSL_Crlpath Using_Gtid \
        Gtid_IO_Pos Replicate_Do_Domain_Ids Replicate_Ignore_Domain_Ids Parallel_Mode SQL_Delay \
        SQL_Remaining_Delay Slave_SQL_Running_State Slave_DDL_Groups Slave_Non_Transactional_Groups \
        Slave_Transactional_Groups";

    #[test]
    fn each_server_gets_the_statements_its_manual_documents() {
        let cases = [
            (
                "5.7.44-log",
                "MySQL Community Server (GPL)",
                "MySQL 5.7",
                "SHOW MASTER STATUS",
                "SHOW SLAVE STATUS",
            ),
            (
                "8.0.21",
                "MySQL Community Server - GPL",
                "MySQL 8.0.0-8.0.21",
                "SHOW MASTER STATUS",
                "SHOW SLAVE STATUS",
            ),
            (
                "8.0.22",
                "MySQL Community Server - GPL",
                "MySQL 8.0.22-8.0.29",
                "SHOW MASTER STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "8.0.36",
                "MySQL Community Server - GPL",
                "MySQL 8.0.30-8.1",
                "SHOW MASTER STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "8.3.0",
                "MySQL Community Server - GPL",
                "MySQL 8.2-8.3",
                "SHOW BINARY LOG STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "8.4.3",
                "MySQL Community Server - GPL",
                "MySQL 8.4+",
                "SHOW BINARY LOG STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "9.1.0",
                "MySQL Community Server - GPL",
                "MySQL 8.4+",
                "SHOW BINARY LOG STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "8.0.36-28",
                "Percona Server (GPL), Release 28",
                "MySQL 8.0.30-8.1",
                "SHOW MASTER STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "5.5.5-10.4.34-MariaDB",
                "mariadb.org binary distribution",
                "MariaDB 10.3-10.5.1",
                "SHOW MASTER STATUS",
                "SHOW SLAVE STATUS",
            ),
            (
                "10.5.1-MariaDB",
                "",
                "MariaDB 10.3-10.5.1",
                "SHOW MASTER STATUS",
                "SHOW SLAVE STATUS",
            ),
            (
                "10.5.27-MariaDB",
                "",
                "MariaDB 10.5.2-10.5",
                "SHOW BINLOG STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "10.11.19-MariaDB-0+deb12u1",
                "Debian 12",
                "MariaDB 10.6-11.0",
                "SHOW BINLOG STATUS",
                "SHOW REPLICA STATUS",
            ),
            (
                "11.4.4-MariaDB",
                "",
                "MariaDB 11.1+",
                "SHOW BINLOG STATUS",
                "SHOW REPLICA STATUS",
            ),
        ];
        for (version, comment, servers, binlog, replica) in cases {
            let d = row(version, comment);
            assert_eq!(
                (d.servers, d.binary_log_status, d.replica_status),
                (servers, binlog, replica),
                "{version}"
            );
        }
    }

    #[test]
    fn the_lag_columns_read_are_the_documented_ones() {
        for (d, documented) in [
            (row("8.4.3", ""), MYSQL_8_4_REPLICA),
            (row("8.0.22", ""), MYSQL_8_4_REPLICA),
            (row("8.0.21", ""), MYSQL_5_7_SLAVE),
            (row("5.7.44", ""), MYSQL_5_7_SLAVE),
            (row("10.11.19-MariaDB", ""), MARIADB_10_6_REPLICA),
            (row("11.4.4-MariaDB", ""), MARIADB_10_6_REPLICA),
        ] {
            let names: Vec<&str> = documented.split_whitespace().collect();
            for c in d.replica.all() {
                assert!(
                    names.contains(&c),
                    "{}: {c} is not a documented column",
                    d.servers
                );
            }
        }
        // The renames, as 8.0.22's release notes list them.
        assert_eq!(
            row("8.0.22", "").replica.seconds_behind,
            "Seconds_Behind_Source"
        );
        assert_eq!(
            row("10.11.19-MariaDB", "").replica.seconds_behind,
            "Seconds_Behind_Master"
        );
    }

    #[test]
    fn mysql_8_dropped_the_query_cache_tx_isolation_and_information_schemas_status() {
        let (my57, my80, my84) = (row("5.7.44", ""), row("8.0.36", ""), row("8.4.3", ""));
        let maria = row("10.11.19-MariaDB", "");
        assert!(my57.query_cache && maria.query_cache);
        assert!(!my80.query_cache && !my84.query_cache);
        for d in [my80, my84] {
            assert_eq!(d.isolation_variable, "transaction_isolation");
            assert_eq!(d.global_status_table, "performance_schema.global_status");
            assert_eq!(d.default_auth_plugin, "caching_sha2_password");
            for v in ["query_cache_type", "query_cache_size", "tx_isolation"] {
                assert!(d.absent_variables.contains(&v), "{}: {v}", d.servers);
            }
            assert!(!d.absent_variables.contains(&d.isolation_variable));
        }
        assert!(row("8.0.29", "")
            .absent_variables
            .contains(&"innodb_redo_log_capacity"));
        assert!(!my80.absent_variables.contains(&"innodb_redo_log_capacity"));
        assert_eq!(
            maria.global_status_table,
            "information_schema.GLOBAL_STATUS"
        );
        assert_eq!(maria.isolation_variable, "tx_isolation");
        assert_eq!(
            row("11.4.4-MariaDB", "").isolation_variable,
            "transaction_isolation"
        );
    }

    #[test]
    fn the_8_4_defaults_are_about_twenty_distinct_variables() {
        let names: std::collections::BTreeSet<&str> = changed_in_8_4().collect();
        assert_eq!(names.len(), CHANGED_DEFAULTS_IN_8_4.len(), "no name twice");
        assert!((18..=24).contains(&names.len()));
        assert!(CHANGED_DEFAULTS_IN_8_4
            .iter()
            .all(|(_, old, new)| old != new));
    }
}
