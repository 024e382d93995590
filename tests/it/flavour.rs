//! The flavour table's row for the server that is here (the sandbox MariaDB), checked
//! against that server: each of its statements runs and returns the columns the row
//! names, and the variables it calls absent are exactly those of the environment
//! snapshot's list the server lacks. The MySQL rows are checked against their manuals'
//! documented outputs in `crates/mysql/src/dialect.rs` (no MySQL server installs here).

use std::collections::BTreeSet;

use dbdyno_checks::probe::VARIABLES;
use dbdyno_mysql::{dialect, ServerVersion};
use dbdyno_tests::*;
use mysql::prelude::Queryable;

#[test]
fn the_sandbox_servers_row_speaks_as_the_server_does() {
    let _g = shared_server();
    let mut conn = Sandbox::from_env().admin();
    let (version, comment): (String, String) = conn
        .query_first("SELECT @@version, @@version_comment")
        .unwrap()
        .unwrap();
    let d = dialect(&ServerVersion::parse(&version, &comment));

    // Each statement runs; the replica columns are there on a server that is no
    // replica too (the result is empty, its columns are not).
    let columns = |conn: &mut mysql::Conn, sql: &str| -> BTreeSet<String> {
        let result = conn
            .query_iter(sql)
            .unwrap_or_else(|e| panic!("{} on {version}: {sql}: {e}", d.servers));
        result
            .columns()
            .as_ref()
            .iter()
            .map(|c| c.name_str().into_owned())
            .collect()
    };
    let replica = columns(&mut conn, d.replica_status);
    for c in d.replica.all() {
        assert!(replica.contains(c), "{}: {c} not in {replica:?}", d.servers);
    }
    let binlog = columns(&mut conn, d.binary_log_status);
    assert!(
        binlog.contains("File") && binlog.contains("Position"),
        "{binlog:?}"
    );
    let uptime: Option<String> = conn
        .query_first(format!(
            "SELECT VARIABLE_VALUE FROM {} WHERE VARIABLE_NAME = 'Uptime'",
            d.global_status_table
        ))
        .unwrap();
    assert!(
        uptime.and_then(|u| u.parse::<u64>().ok()).is_some(),
        "{}",
        d.global_status_table
    );

    // The snapshot's variables: those missing here are the row's absent ones.
    let have: BTreeSet<String> = conn
        .query_map(
            "SHOW GLOBAL VARIABLES",
            |(name, _value): (String, String)| name.to_ascii_lowercase(),
        )
        .unwrap()
        .into_iter()
        .collect();
    let missing: BTreeSet<&str> = VARIABLES
        .iter()
        .copied()
        .filter(|v| !have.contains(*v))
        .collect();
    let absent: BTreeSet<&str> = d.absent_variables.iter().copied().collect();
    assert_eq!(missing, absent, "{} ({version})", d.servers);
    assert!(have.contains(d.isolation_variable));
    assert_eq!(have.contains("query_cache_type"), d.query_cache);
}
