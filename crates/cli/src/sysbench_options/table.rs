//! The table itself: every option sysbench 1.0.20 prints (`sysbench --help`, which
//! includes the mysql driver's options, and `sysbench <script> help` for each OLTP
//! script and `sysbench <test> help` for each compiled-in test), plus the older
//! spellings of sysbench 0.4 and 0.5 that scripts and articles still use.
//! Names are dashed, as `normalize_args` spells them (`--table_size` is `table-size`).

use super::Handling::{HardwareTest, Implemented, Refused, RefusedWithItsTest, Renamed};
use super::ListedBy::{Help, Older, ScriptHelp, TestHelp};
use super::NewName::{Option as To, Workload};
use super::{Handling, ListedBy, SysbenchOption};

const fn o(name: &'static str, listed_by: ListedBy, verdict: Handling) -> SysbenchOption {
    SysbenchOption {
        name,
        listed_by,
        verdict,
    }
}

const PGSQL: &str = "dbdyno benchmarks MySQL and MariaDB only";
const FIXED_SEED: &str =
    "the generator is seeded from the clock unless --rand-seed=N gives a fixed seed";
const NO_TRACE: &str =
    "there is no debug trace; the server's general log shows every statement dbdyno sends";

/// In the order sysbench prints them, then the older spellings.
pub const OPTIONS: &[SysbenchOption] = &[
    // sysbench --help: General options.
    o("threads", Help, Implemented),
    o("events", Help, Implemented),
    o("time", Help, Implemented),
    o("forced-shutdown", Help, Refused { reason: "not implemented: a step ends when --time is up and waits for the transactions in flight" }),
    o("thread-stack-size", Help, Refused { reason: "sets the stack of sysbench's Lua threads; dbdyno's workers run no Lua" }),
    o("rate", Help, Implemented),
    o("report-interval", Help, Implemented),
    o("report-checkpoints", Help, Refused { reason: "not implemented: use --report-interval, or a ladder whose steps are measured apart" }),
    o("debug", Help, Refused { reason: NO_TRACE }),
    o("validate", Help, Refused { reason: "the OLTP scripts ignore it, and dbdyno fileio does not checksum its blocks" }),
    o("help", Help, Implemented),
    o("version", Help, Implemented),
    o("config-file", Help, Refused { reason: "use --profile=FILE: a profile holds the options of a plan" }),
    o("tx-rate", Help, Renamed { to: To("rate") }),
    o("max-requests", Help, Renamed { to: To("events") }),
    o("max-time", Help, Renamed { to: To("time") }),
    o("num-threads", Help, Renamed { to: To("threads") }),
    // Builds with sysbench's bundled LuaJIT list it among the general options.
    o("luajit-cmd", Help, Refused { reason: "a LuaJIT command of sysbench's; dbdyno runs no Lua" }),
    // Pseudo-Random Numbers Generator options.
    o("rand-type", Help, Implemented),
    o("rand-spec-iter", Help, Implemented),
    o("rand-spec-pct", Help, Implemented),
    o("rand-spec-res", Help, Implemented),
    o("rand-seed", Help, Implemented),
    o("rand-pareto-h", Help, Implemented),
    // Log options.
    o("verbosity", Help, Implemented),
    o("percentile", Help, Implemented),
    o("histogram", Help, Implemented),
    // General database options.
    o("db-driver", Help, Implemented),
    o("db-ps-mode", Help, Implemented),
    o("db-debug", Help, Refused { reason: NO_TRACE }),
    // mysql options.
    o("mysql-host", Help, Implemented),
    o("mysql-port", Help, Implemented),
    o("mysql-socket", Help, Implemented),
    o("mysql-user", Help, Implemented),
    o("mysql-password", Help, Implemented),
    o("mysql-db", Help, Implemented),
    o("mysql-ssl", Help, Implemented),
    o("mysql-ssl-cipher", Help, Refused { reason: "the TLS library negotiates the cipher; --mysql-ssl-mode and --mysql-ssl-ca choose what is checked" }),
    o("mysql-compression", Help, Refused { reason: "the compressed protocol is not supported" }),
    o("mysql-debug", Help, Refused { reason: NO_TRACE }),
    o("mysql-ignore-errors", Help, Implemented),
    o("mysql-dry-run", Help, Refused { reason: "a dry run sends nothing to the server, and the server is what dbdyno measures" }),
    // pgsql options.
    o("pgsql-host", Help, Refused { reason: PGSQL }),
    o("pgsql-port", Help, Refused { reason: PGSQL }),
    o("pgsql-user", Help, Refused { reason: PGSQL }),
    o("pgsql-password", Help, Refused { reason: PGSQL }),
    o("pgsql-db", Help, Refused { reason: PGSQL }),
    // sysbench <script> help: oltp_common.lua and the scripts' own.
    o("auto-inc", ScriptHelp, Implemented),
    o("create-secondary", ScriptHelp, Implemented),
    o("delete-inserts", ScriptHelp, Implemented),
    o("delta", ScriptHelp, Implemented),
    o("distinct-ranges", ScriptHelp, Implemented),
    o("index-updates", ScriptHelp, Implemented),
    o("mysql-storage-engine", ScriptHelp, Implemented),
    o("non-index-updates", ScriptHelp, Implemented),
    o("number-of-ranges", ScriptHelp, Implemented),
    o("order-ranges", ScriptHelp, Implemented),
    o("pgsql-variant", ScriptHelp, Refused { reason: PGSQL }),
    o("point-selects", ScriptHelp, Implemented),
    o("random-points", ScriptHelp, Implemented),
    o("range-selects", ScriptHelp, Implemented),
    o("range-size", ScriptHelp, Implemented),
    o("secondary", ScriptHelp, Implemented),
    o("simple-ranges", ScriptHelp, Implemented),
    o("skip-trx", ScriptHelp, Implemented),
    o("sum-ranges", ScriptHelp, Implemented),
    o("table-size", ScriptHelp, Implemented),
    o("tables", ScriptHelp, Implemented),
    // sysbench <test> help: the compiled-in tests. fileio, cpu and memory are DB Dyno's
    // native hardware tests (crates/hwtest); threads and mutex are refused.
    o("file-num", TestHelp("fileio"), HardwareTest),
    o("file-block-size", TestHelp("fileio"), HardwareTest),
    o("file-total-size", TestHelp("fileio"), HardwareTest),
    o("file-test-mode", TestHelp("fileio"), HardwareTest),
    o("file-io-mode", TestHelp("fileio"), HardwareTest),
    o("file-async-backlog", TestHelp("fileio"), HardwareTest),
    o("file-extra-flags", TestHelp("fileio"), HardwareTest),
    o("file-fsync-freq", TestHelp("fileio"), HardwareTest),
    o("file-fsync-all", TestHelp("fileio"), HardwareTest),
    o("file-fsync-end", TestHelp("fileio"), HardwareTest),
    o("file-fsync-mode", TestHelp("fileio"), HardwareTest),
    o("file-merged-requests", TestHelp("fileio"), HardwareTest),
    o("file-rw-ratio", TestHelp("fileio"), HardwareTest),
    o("cpu-max-prime", TestHelp("cpu"), HardwareTest),
    o("memory-block-size", TestHelp("memory"), HardwareTest),
    o("memory-total-size", TestHelp("memory"), HardwareTest),
    o("memory-scope", TestHelp("memory"), HardwareTest),
    o("memory-hugetlb", TestHelp("memory"), HardwareTest),
    o("memory-oper", TestHelp("memory"), HardwareTest),
    o("memory-access-mode", TestHelp("memory"), HardwareTest),
    o("thread-yields", TestHelp("threads"), RefusedWithItsTest),
    o("thread-locks", TestHelp("threads"), RefusedWithItsTest),
    o("mutex-num", TestHelp("mutex"), RefusedWithItsTest),
    o("mutex-locks", TestHelp("mutex"), RefusedWithItsTest),
    o("mutex-loops", TestHelp("mutex"), RefusedWithItsTest),
    // Older spellings: sysbench 0.4's --test and 0.5's tests/db/*.lua used --test=X;
    // 1.0.20 still takes it with a warning, though its --help no longer lists it.
    o("test", Older("0.4, 0.5"), Renamed { to: Workload }),
    o("init-rng", Older("0.4"), Refused { reason: FIXED_SEED }),
    o("rand-init", Older("0.5"), Refused { reason: FIXED_SEED }),
    o("oltp-table-size", Older("0.4, 0.5"), Renamed { to: To("table-size") }),
    o("oltp-tables-count", Older("0.5"), Renamed { to: To("tables") }),
    o("oltp-range-size", Older("0.4, 0.5"), Renamed { to: To("range-size") }),
    o("oltp-point-selects", Older("0.4, 0.5"), Renamed { to: To("point-selects") }),
    o("oltp-simple-ranges", Older("0.4, 0.5"), Renamed { to: To("simple-ranges") }),
    o("oltp-sum-ranges", Older("0.4, 0.5"), Renamed { to: To("sum-ranges") }),
    o("oltp-order-ranges", Older("0.4, 0.5"), Renamed { to: To("order-ranges") }),
    o("oltp-distinct-ranges", Older("0.4, 0.5"), Renamed { to: To("distinct-ranges") }),
    o("oltp-index-updates", Older("0.4, 0.5"), Renamed { to: To("index-updates") }),
    o("oltp-non-index-updates", Older("0.4, 0.5"), Renamed { to: To("non-index-updates") }),
    o("oltp-delete-inserts", Older("0.5"), Renamed { to: To("delete-inserts") }),
    o("oltp-range-selects", Older("0.5"), Renamed { to: To("range-selects") }),
    o("oltp-skip-trx", Older("0.4, 0.5"), Renamed { to: To("skip-trx") }),
    o("oltp-auto-inc", Older("0.4, 0.5"), Renamed { to: To("auto-inc") }),
    o("oltp-secondary", Older("0.5"), Renamed { to: To("secondary") }),
    o("oltp-create-secondary", Older("0.5"), Renamed { to: To("create-secondary") }),
    o("oltp-dist-type", Older("0.4"), Renamed { to: To("rand-type") }),
    o("oltp-dist-iter", Older("0.4"), Renamed { to: To("rand-spec-iter") }),
    o("oltp-dist-pct", Older("0.4"), Renamed { to: To("rand-spec-pct") }),
    o("oltp-dist-res", Older("0.4"), Renamed { to: To("rand-spec-res") }),
    o("mysql-table-engine", Older("0.4, 0.5"), Renamed { to: To("mysql-storage-engine") }),
    o("oltp-read-only", Older("0.4, 0.5"), Refused { reason: "name the workload instead: oltp_read_only" }),
    o("oltp-write-only", Older("0.5"), Refused { reason: "name the workload instead: oltp_write_only" }),
    o("oltp-test-mode", Older("0.4"), Refused { reason: "name the workload instead: oltp_read_write (complex), oltp_point_select (simple)" }),
    o("oltp-nontrx-mode", Older("0.4"), Refused { reason: "name the workload instead: oltp_point_select, oltp_update_index, oltp_update_non_index, oltp_insert or oltp_delete" }),
    o("oltp-reconnect-mode", Older("0.4"), Refused { reason: "not implemented: each thread keeps its connection for the step" }),
    o("oltp-connect-delay", Older("0.4"), Refused { reason: "not implemented: threads open their connections before the measurement starts" }),
    o("oltp-user-delay-min", Older("0.4"), Refused { reason: "not implemented: use --rate for a paced load" }),
    o("oltp-user-delay-max", Older("0.4"), Refused { reason: "not implemented: use --rate for a paced load" }),
    o("oltp-table-name", Older("0.4"), Refused { reason: "the tables are sbtest1 to sbtestN, as sysbench 1.0 names them" }),
    o("mysql-engine-trx", Older("0.4"), Refused { reason: "not needed: transactions are used unless --skip-trx" }),
    o("myisam-max-rows", Older("0.4, 0.5"), Refused { reason: "tables are created as sysbench 1.0 creates them, without MAX_ROWS" }),
];
