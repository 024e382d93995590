//! Can the benchmark talk to the server, and may it do what the plan does: reachable
//! and authenticated, a supported version, privileges on the schema, the schema itself,
//! and whether the schema holds someone's real tables.

use dbdyno_engine::wording::{count, plural};
use dbdyno_engine::{Phase, Plan, PrepareMode};

use super::unreachable;
use crate::check::{Check, CheckAction, CheckStatus};
use crate::probe::{Facts, MysqlFacts, MysqlProblem};

pub fn checks(f: &Facts, plan: &Plan) -> Vec<Check> {
    let m = match &f.mysql {
        Ok(m) => m,
        Err(p) => {
            return vec![
                unreachable_check(f, p),
                unreachable("mysql.version", "Server version supported", VERSION_WHY),
                unreachable(
                    "mysql.privileges",
                    "Privileges on the schema",
                    PRIVILEGES_WHY,
                ),
                unreachable("mysql.schema", "Target schema", SCHEMA_WHY),
                unreachable(
                    "mysql.foreign_tables",
                    "Only benchmark tables in the schema",
                    FOREIGN_WHY,
                ),
            ]
        }
    };
    vec![
        Check::new(
            "mysql.reachable",
            "MySQL reachable and authenticated",
            CheckStatus::Pass,
            format!(
                "connected to {} as {} in {:.0} ms",
                f.endpoint, m.current_user, m.connect_ms
            ),
            REACHABLE_WHY,
        ),
        version(m),
        privileges(f, m, plan),
        schema_check(f, m),
        foreign_tables(f, m, plan),
    ]
}

const REACHABLE_WHY: &str = "every phase opens its own connections with these credentials";
const VERSION_WHY: &str =
    "sysbench's workloads and DB Dyno's checks assume MySQL 5.7+, 8.x or MariaDB 10.3+ \
                           (prepared statements, information_schema, status counters)";
const PRIVILEGES_WHY: &str =
    "a missing privilege stops the plan at its first statement of that kind, \
                              after earlier steps already ran";
const SCHEMA_WHY: &str =
    "every connection selects the schema; without it each phase fails with error 1049";
const FOREIGN_WHY: &str =
    "a schema with real tables is someone's data: prepare would load test data next to it \
                           and a mistake could hurt it. Benchmarks belong in a schema of their own";

fn unreachable_check(f: &Facts, p: &MysqlProblem) -> Check {
    let (text, command) = match p.code {
        _ if p.tls_missing => (
            "give the server TLS (ssl_cert and ssl_key under [mysqld], then a restart), or set TLS to disabled in the environment (ssl_mode = \"disabled\") where an unencrypted connection is acceptable",
            Some("SHOW VARIABLES LIKE 'have_ssl';".to_string()),
        ),
        // No password sent: often a profile whose keyring entry was never set.
        Some(1045) if p.message.contains("using password: NO") => (
            "no password was sent: store it with `dbdyno profile secret set NAME mysql` (NAME: the profile), or give MYSQL_PWD or --mysql-password",
            Some(format!("mysql -h… -u{} -p -e 'SELECT 1'", f.user)),
        ),
        Some(1045) => (
            "check the user and password (--mysql-user, MYSQL_PWD or --mysql-password) and the account's host part",
            Some(format!("mysql -h… -u{} -p -e 'SELECT 1'", f.user)),
        ),
        Some(1130) => (
            "the account may not connect from this machine: create or grant it for this client's address",
            Some(format!("CREATE USER '{}'@'<client address>' IDENTIFIED BY '…';", f.user)),
        ),
        _ => (
            "check that the server runs and listens on this host and port (bind_address, firewall, security group)",
            Some("SHOW VARIABLES LIKE 'bind_address';".to_string()),
        ),
    };
    Check::new(
        "mysql.reachable",
        "MySQL reachable and authenticated",
        CheckStatus::Fail,
        p.message.clone(),
        REACHABLE_WHY,
    )
    .with_fix(text, command)
}

fn version(m: &MysqlFacts) -> Check {
    let v = &m.version;
    let seen = format!("{} {} ({})", v.flavour, v.text, v.comment);
    match v.support() {
        Ok(None) => Check::new(
            "mysql.version",
            "Server version supported",
            CheckStatus::Pass,
            seen,
            VERSION_WHY,
        ),
        Ok(Some(note)) => Check::new(
            "mysql.version",
            "Server version supported",
            CheckStatus::Warn,
            format!("{seen}: {note}"),
            VERSION_WHY,
        )
        .with_fix(
            "results may not compare with sysbench's on supported servers; report differences",
            None,
        ),
        Err(why) => Check::new(
            "mysql.version",
            "Server version supported",
            CheckStatus::Fail,
            format!("{seen}: {why}"),
            VERSION_WHY,
        )
        .with_fix(
            "upgrade the server to MySQL 5.7+/8.x or MariaDB 10.3+",
            None,
        ),
    }
}

/// What the plan does that needs which privilege.
pub fn required_privileges(plan: &Plan) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    let mut need = |p: &'static str, what: &'static str| {
        if !out.iter().any(|(q, _)| *q == p) {
            out.push((p, what));
        }
    };
    for phase in &plan.phases {
        match phase {
            Phase::Step(s) => {
                need("SELECT", "the workloads' reads");
                if s.scenario.writes() {
                    need("INSERT", "the workloads' inserts");
                    need("UPDATE", "the workloads' updates");
                    need("DELETE", "the workloads' deletes");
                }
            }
            Phase::Prepare { scenario, mode, .. } => {
                need("CREATE", "prepare's CREATE TABLE");
                need("INSERT", "prepare's data load");
                if scenario.is_tpcc() {
                    need(
                        "ALTER",
                        "TPC-C prepare's ALTER TABLE (its indexes, foreign keys and DB Dyno's mark)",
                    );
                } else if plan.workload.create_secondary {
                    need("INDEX", "prepare's CREATE INDEX k_N");
                }
                if *mode == PrepareMode::Always {
                    need(
                        "DROP",
                        "prepare = \"always\"'s DROP TABLE of DB Dyno's own tables",
                    );
                }
            }
            Phase::Prewarm(_) => need("SELECT", "prewarm's table scans"),
            Phase::Cleanup { .. } => need("DROP", "cleanup's DROP TABLE"),
            // The capacity search runs steps like the ladder's, already counted above.
            Phase::Cooldown { .. } | Phase::Sla(_) => {}
        }
    }
    out
}

fn privileges(f: &Facts, m: &MysqlFacts, plan: &Plan) -> Check {
    let required = required_privileges(plan);
    let missing: Vec<&(&str, &str)> = required
        .iter()
        .filter(|(p, _)| !m.privileges.has(p))
        .collect();
    let names = |v: &[&(&str, &str)]| v.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", ");
    if missing.is_empty() {
        let all: Vec<&(&str, &str)> = required.iter().collect();
        return Check::new(
            "mysql.privileges",
            "Privileges on the schema",
            CheckStatus::Pass,
            format!("{} has {} on `{}`", m.current_user, names(&all), f.schema),
            PRIVILEGES_WHY,
        );
    }
    let (user, host) = m
        .current_user
        .rsplit_once('@')
        .unwrap_or((&m.current_user, "%"));
    let grant = format!(
        "GRANT {} ON `{}`.* TO '{user}'@'{host}';",
        names(&missing),
        f.schema
    );
    let for_what = missing
        .iter()
        .map(|(p, w)| format!("{p} for {w}"))
        .collect::<Vec<_>>()
        .join(", ");
    let (status, note) = if m.privileges.roles {
        (
            CheckStatus::Warn,
            " (a role is active: its privileges are not listed in information_schema, so they may be there)",
        )
    } else {
        (CheckStatus::Fail, "")
    };
    Check::new(
        "mysql.privileges",
        "Privileges on the schema",
        status,
        format!(
            "{} lacks {for_what} on `{}`{note}",
            m.current_user, f.schema
        ),
        PRIVILEGES_WHY,
    )
    .with_fix("grant them as an administrator", Some(grant))
}

fn schema_check(f: &Facts, m: &MysqlFacts) -> Check {
    let create = CheckAction::CreateSchema {
        schema: f.schema.clone(),
    };
    if m.schema_exists {
        return Check::new(
            "mysql.schema",
            "Target schema",
            CheckStatus::Pass,
            format!("`{}` exists", f.schema),
            SCHEMA_WHY,
        );
    }
    if m.privileges.has("CREATE") {
        Check::new(
            "mysql.schema",
            "Target schema",
            CheckStatus::Warn,
            format!(
                "`{}` does not exist, and {} may create it: every phase fails with error 1049 until it does",
                f.schema, m.current_user
            ),
            SCHEMA_WHY,
        )
        .with_fix("create it (dbdyno check --fix does)", Some(create.sql()))
        .with_action(create)
    } else {
        Check::new(
            "mysql.schema",
            "Target schema",
            CheckStatus::Fail,
            format!(
                "`{}` does not exist and {} may not create it",
                f.schema, m.current_user
            ),
            SCHEMA_WHY,
        )
        .with_fix(
            "create it and grant the benchmark account on it, as an administrator \
             (dbdyno check --fix --admin-user=NAME creates it)",
            Some(format!(
                "{}; GRANT ALL ON `{}`.* TO {};",
                create.sql(),
                f.schema.replace('`', "``"),
                quoted_account(&m.current_user)
            )),
        )
        // `--fix --admin-user` can still create it; as the benchmark account the
        // action fails with the privilege it lacks.
        .with_action(create)
    }
}

fn quoted_account(current_user: &str) -> String {
    let (user, host) = current_user.rsplit_once('@').unwrap_or((current_user, "%"));
    format!("'{user}'@'{host}'")
}

fn foreign_tables(f: &Facts, m: &MysqlFacts, plan: &Plan) -> Check {
    const ID: &str = "mysql.foreign_tables";
    const TITLE: &str = "Only benchmark tables in the schema";
    if !m.schema_exists {
        return Check::skipped(
            ID,
            TITLE,
            format!("`{}` does not exist yet", f.schema),
            FOREIGN_WHY,
        );
    }
    // sbtest and TPC-C tables (by name and columns) are the benchmark's own.
    let foreign = dbdyno_engine::tpcc::foreign_tables(&m.tables);
    if foreign.is_empty() {
        let n = m.tables.len();
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            if n == 0 {
                format!("`{}` is empty", f.schema)
            } else {
                format!(
                    "`{}` holds {} and nothing else",
                    f.schema,
                    count(n as f64, "benchmark table")
                )
            },
            FOREIGN_WHY,
        );
    }
    let prepares = plan
        .phases
        .iter()
        .any(|p| matches!(p, Phase::Prepare { .. }));
    let list = foreign.join(", ");
    let seen = format!(
        "DANGER: `{}` holds {} that {} not benchmark tables: {list}",
        f.schema,
        count(foreign.len() as f64, "table"),
        plural(foreign.len() as f64, "is")
    );
    // A schema of its own, named after this one so it is recognisable.
    let own = format!("{}_bench", f.schema);
    let create = format!("CREATE DATABASE `{}`", own.replace('`', "``"));
    let fix = format!("use a schema of its own for benchmarks ({create}; then --mysql-db={own})");
    if prepares && !plan.force {
        Check::new(
            ID,
            TITLE,
            CheckStatus::Fail,
            format!("{seen}; prepare refuses to load next to them without --force"),
            FOREIGN_WHY,
        )
        .with_fix(fix.clone(), Some(create.clone()))
    } else {
        Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!("{seen}; DB Dyno never touches them, but this is someone's data"),
            FOREIGN_WHY,
        )
        .with_fix(fix, Some(create))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use dbdyno_engine::phases::schema::{TableInfo, TableShape};
    use dbdyno_engine::Scenario;

    use super::*;
    use crate::checks::testing::{facts, find, mysql, plan};

    fn rw_plan(prepare: bool) -> Plan {
        plan(&[Scenario::OltpReadWrite], &[8], 4, 1000, prepare)
    }

    #[test]
    fn healthy_server_passes() {
        let c = checks(&facts(), &rw_plan(true));
        for id in [
            "mysql.reachable",
            "mysql.version",
            "mysql.privileges",
            "mysql.schema",
            "mysql.foreign_tables",
        ] {
            assert_eq!(find(&c, id).status, CheckStatus::Pass, "{:?}", find(&c, id));
        }
    }

    #[test]
    fn unreachable_server_fails_once_and_skips_the_rest() {
        let mut f = facts();
        f.mysql = Err(MysqlProblem {
            message: "cannot connect to MySQL at 10.0.0.9:3306 as 'sbtest': Access denied".into(),
            code: Some(1045),
            tls_missing: false,
        });
        let c = checks(&f, &rw_plan(false));
        let r = find(&c, "mysql.reachable");
        assert_eq!(r.status, CheckStatus::Fail);
        assert!(r.fix.as_ref().unwrap().text.contains("password"));
        assert!(c.iter().skip(1).all(|c| c.status == CheckStatus::Skipped));
    }

    #[test]
    fn old_versions_fail() {
        let mut f = facts();
        mysql(&mut f).version = crate::sql::ServerVersion::parse("10.2.44-MariaDB", "");
        let c = checks(&f, &rw_plan(false));
        assert_eq!(find(&c, "mysql.version").status, CheckStatus::Fail);
    }

    #[test]
    fn missing_privileges_name_the_grant() {
        let mut f = facts();
        mysql(&mut f).privileges.on_schema.remove("INDEX");
        mysql(&mut f).privileges.on_schema.remove("DELETE");
        let c = checks(&f, &rw_plan(true));
        let p = find(&c, "mysql.privileges");
        assert_eq!(p.status, CheckStatus::Fail);
        assert!(
            p.seen.contains("DELETE for the workloads' deletes"),
            "{}",
            p.seen
        );
        assert_eq!(
            p.fix.as_ref().unwrap().sql_or_command.as_deref(),
            Some("GRANT INDEX, DELETE ON `sbtest`.* TO 'sbtest'@'10.0.0.5';")
        );
        // A read-only run without prepare needs only SELECT.
        let ro = plan(&[Scenario::OltpReadOnly], &[8], 4, 1000, false);
        assert_eq!(
            find(&checks(&f, &ro), "mysql.privileges").status,
            CheckStatus::Pass
        );
        // With a role active, the privileges may be there: warn instead.
        mysql(&mut f).privileges.roles = true;
        assert_eq!(
            find(&checks(&f, &rw_plan(true)), "mysql.privileges").status,
            CheckStatus::Warn
        );
    }

    #[test]
    fn prepare_always_needs_drop_and_tpcc_prepare_needs_alter() {
        let mut f = facts();
        mysql(&mut f).privileges.on_schema.remove("DROP");
        mysql(&mut f).privileges.on_schema.remove("ALTER");
        let status = |f: &Facts, p: &Plan| find(&checks(f, p), "mysql.privileges").clone();
        let mut always = rw_plan(true);
        assert_eq!(status(&f, &always).status, CheckStatus::Pass);
        for p in &mut always.phases {
            if let Phase::Prepare { mode, .. } = p {
                *mode = PrepareMode::Always;
            }
        }
        let c = status(&f, &always);
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(
            c.seen.contains("DROP for prepare = \"always\""),
            "{}",
            c.seen
        );
        assert!(c
            .fix
            .unwrap()
            .sql_or_command
            .unwrap()
            .starts_with("GRANT DROP ON"));

        let tpcc = plan(&[Scenario::Tpcc], &[8], 1, 1000, true);
        let c = status(&f, &tpcc);
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(
            c.seen.contains("ALTER for TPC-C prepare's ALTER TABLE"),
            "{}",
            c.seen
        );
    }

    #[test]
    fn missing_schema_is_created_by_the_action_when_allowed() {
        let mut f = facts();
        mysql(&mut f).schema_exists = false;
        let c = checks(&f, &rw_plan(true));
        let s = find(&c, "mysql.schema");
        assert_eq!(s.status, CheckStatus::Warn);
        assert_eq!(
            s.action,
            Some(CheckAction::CreateSchema {
                schema: "sbtest".into()
            })
        );
        assert_eq!(
            find(&c, "mysql.foreign_tables").status,
            CheckStatus::Skipped
        );
        mysql(&mut f).privileges.on_schema.remove("CREATE");
        let s = checks(&f, &rw_plan(true))
            .into_iter()
            .find(|c| c.id == "mysql.schema")
            .unwrap();
        assert_eq!(s.status, CheckStatus::Fail);
        // Still offered: `check --fix --admin-user` applies it as the administrator.
        assert_eq!(
            s.action,
            Some(CheckAction::CreateSchema {
                schema: "sbtest".into()
            })
        );
        assert!(s.fix.as_ref().unwrap().text.contains("--admin-user"));
    }

    #[test]
    fn foreign_tables_are_a_danger() {
        let mut f = facts();
        mysql(&mut f).tables = BTreeMap::from([(
            "orders".to_string(),
            TableInfo {
                name: "orders".into(),
                shape: TableShape::Other,
                columns: vec![("id".into(), "int".into())],
                mark: None,
                comment: String::new(),
            },
        )]);
        let c = checks(&f, &rw_plan(true));
        let t = find(&c, "mysql.foreign_tables");
        assert_eq!(t.status, CheckStatus::Fail, "prepare would refuse");
        assert!(
            t.seen.starts_with("DANGER") && t.seen.contains("orders"),
            "{}",
            t.seen
        );
        let c = checks(&f, &rw_plan(false));
        assert_eq!(find(&c, "mysql.foreign_tables").status, CheckStatus::Warn);
    }

    /// A schema holding a TPC-C dataset (the nine tables with our columns) holds
    /// benchmark tables; a table that only borrows a TPC-C name is someone's data.
    #[test]
    fn tpcc_tables_are_benchmark_tables() {
        use dbdyno_engine::tpcc::schema::{column_names, TABLES};
        let mut f = facts();
        let tpcc_table = |name: String, columns: Vec<&str>| TableInfo {
            name,
            shape: TableShape::Other,
            columns: columns
                .iter()
                .map(|c| (c.to_string(), "int".into()))
                .collect(),
            mark: None,
            comment: String::new(),
        };
        mysql(&mut f).tables = TABLES
            .iter()
            .map(|t| {
                let name = format!("{}1", t.name);
                (name.clone(), tpcc_table(name, column_names(t, false)))
            })
            .collect();
        let tpcc = plan(&[Scenario::Tpcc], &[8], 1, 1000, true);
        let t = find(&checks(&f, &tpcc), "mysql.foreign_tables").clone();
        assert_eq!(t.status, CheckStatus::Pass, "{}", t.seen);
        assert!(t.seen.contains("holds 9 benchmark tables"), "{}", t.seen);
        mysql(&mut f)
            .tables
            .insert("stock2".into(), tpcc_table("stock2".into(), vec!["id"]));
        let t = find(&checks(&f, &tpcc), "mysql.foreign_tables").clone();
        assert_eq!(t.status, CheckStatus::Fail, "{}", t.seen);
        assert!(
            t.seen.contains("1 table that is not") && t.seen.contains("stock2"),
            "{}",
            t.seen
        );
    }
}
