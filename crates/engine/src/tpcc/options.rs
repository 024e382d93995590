//! sysbench-tpcc's options, with its defaults (tpcc_common.lua's option table).

use serde::{Deserialize, Serialize};

/// Warehouses' fixed sizes, as in the TPC-C specification and sysbench-tpcc.
pub const MAX_ITEMS: u32 = 100_000;
pub const DISTRICTS_PER_WAREHOUSE: u32 = 10;
pub const CUSTOMERS_PER_DISTRICT: u32 = 3_000;

/// The transaction isolation level a connection sets (`--trx_level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum IsolationLevel {
    /// `RC`: READ COMMITTED.
    ReadCommitted,
    /// `RR`: REPEATABLE READ (the default).
    RepeatableRead,
    /// `SER`: SERIALIZABLE.
    Serializable,
}

impl IsolationLevel {
    /// Parses sysbench-tpcc's spelling (`RC`, `RR`, `SER`).
    pub fn parse(s: &str) -> Option<IsolationLevel> {
        match s {
            "RC" => Some(IsolationLevel::ReadCommitted),
            "RR" => Some(IsolationLevel::RepeatableRead),
            "SER" => Some(IsolationLevel::Serializable),
            _ => None,
        }
    }

    /// The words of `SET SESSION TRANSACTION ISOLATION LEVEL ...`.
    pub fn sql(self) -> &'static str {
        match self {
            IsolationLevel::ReadCommitted => "READ COMMITTED",
            IsolationLevel::RepeatableRead => "REPEATABLE READ",
            IsolationLevel::Serializable => "SERIALIZABLE",
        }
    }
}

/// Everything `--scale`, `--tables` and friends say, with sysbench-tpcc's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct TpccOptions {
    /// `--scale`: warehouses per set of tables (default 100).
    pub scale: u32,
    /// `--tables`: sets of tables (`warehouse1`, `district1`, ... `warehouse2`, ...), default 1.
    pub tables: u32,
    /// `--use_fk`: create the foreign keys (default 1).
    pub use_fk: bool,
    /// `--force_pk`: give `history` an auto-increment primary key (default 0).
    pub force_pk: bool,
    /// `--trx_level` (default RR).
    pub trx_level: IsolationLevel,
    /// `--enable_purge`: add the purge transaction to the mix (default no).
    pub enable_purge: bool,
    /// `--mysql_storage_engine` (default innodb).
    pub storage_engine: String,
    /// `--mysql_table_options` (default empty), appended to every CREATE TABLE.
    pub table_options: String,
}

impl Default for TpccOptions {
    fn default() -> Self {
        TpccOptions {
            scale: 100,
            tables: 1,
            use_fk: true,
            force_pk: false,
            trx_level: IsolationLevel::RepeatableRead,
            enable_purge: false,
            storage_engine: "innodb".into(),
            table_options: String::new(),
        }
    }
}
