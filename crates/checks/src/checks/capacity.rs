//! Can the server hold the plan's largest step: enough prepared statements
//! (`max_prepared_stmt_count`) and connections (`max_connections`) for the peak, on
//! top of what other sessions already use, and the files and memory that many
//! connections take (`open_files_limit`, `thread_stack` × connections).

use dbdyno_engine::wording::{count, plural};
use dbdyno_engine::workload::shape::prepared_statements_per_connection;
use dbdyno_engine::{Plan, Scenario};

use super::unreachable;
use crate::check::{Check, CheckAction, CheckStatus};
use crate::probe::{Facts, MysqlFacts};

const PS_WHY: &str = "every connection prepares each statement of its workload for each table before the step \
                      starts (sysbench's read_write: 9 per table + BEGIN + COMMIT); past the limit the server \
                      refuses with error 1461 \"Can't create more than max_prepared_stmt_count statements\" \
                      and the step fails";
const CONN_WHY: &str = "each thread is one connection, plus DB Dyno's control and status connections; past the \
                        limit new connections get error 1040 \"Too many connections\" and the step fails";
const RESOURCES_WHY: &str = "every connection is a thread of the server with its own stack (thread_stack) and a \
                             file descriptor, next to the tables it keeps open: raising max_connections at run \
                             time raises neither open_files_limit (fixed at start) nor the memory, so thousands of \
                             connections can fail with \"Too many open files\" (errno 24) or push the host into swap";
/// Descriptors MariaDB keeps for itself besides connections and tables (its own
/// formula at start: 10 + max_connections + 2 × table_open_cache).
const SERVER_OWN_FILES: u64 = 10;
/// Share of the host's memory that the buffer pool and the connections' stacks may
/// take before the check warns.
const MEMORY_SHARE: f64 = 0.9;

/// The largest value any server accepts for max_prepared_stmt_count (MySQL 5.7's cap).
const PS_CAP: u64 = 1_048_576;

pub fn checks(f: &Facts, plan: &Plan) -> Vec<Check> {
    match &f.mysql {
        Ok(m) => vec![
            prepared_statements(m, plan),
            connections(m, plan),
            connection_resources(m, f.host.os.as_ref().and_then(|o| o.mem_total_mb), plan),
        ],
        Err(_) => vec![
            unreachable(
                "mysql.max_prepared_stmt_count",
                "Prepared statement limit",
                PS_WHY,
            ),
            unreachable("mysql.max_connections", "Connection limit", CONN_WHY),
            unreachable(
                "mysql.connection_resources",
                "Files and memory for the connections",
                RESOURCES_WHY,
            ),
        ],
    }
}

fn round_up(n: u64, to: u64) -> u64 {
    n.div_ceil(to) * to
}

/// The step with the most prepared statements: (scenario, threads, per connection).
fn peak_step(plan: &Plan) -> Option<(Scenario, u32, u64)> {
    plan.steps()
        .map(|s| {
            let per = prepared_statements_per_connection(s.scenario, &plan.workload);
            (s.scenario, s.threads, per)
        })
        .max_by_key(|(_, t, per)| per * *t as u64)
}

fn privilege_note(m: &MysqlFacts) -> &'static str {
    if m.privileges.can_set_global() {
        ""
    } else {
        " (SET GLOBAL needs SUPER or SYSTEM_VARIABLES_ADMIN, which this account lacks: use --admin-user)"
    }
}

fn prepared_statements(m: &MysqlFacts, plan: &Plan) -> Check {
    const ID: &str = "mysql.max_prepared_stmt_count";
    const TITLE: &str = "Prepared statement limit";
    let Some(limit) = m.var_u64("max_prepared_stmt_count") else {
        return Check::skipped(
            ID,
            TITLE,
            "the server does not report max_prepared_stmt_count",
            PS_WHY,
        );
    };
    let peak = plan.peak_prepared_statements();
    let Some((scenario, threads, per)) = peak_step(plan).filter(|_| peak > 0) else {
        // Which of the reasons holds, so nobody raises the limit for nothing.
        let why = if plan.steps().any(|s| s.scenario.is_tpcc()) {
            "tpcc sends plain text queries, as sysbench-tpcc does; other steps: --db-ps-mode=disable or insert-only workloads"
        } else {
            "--db-ps-mode=disable or insert-only workloads"
        };
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            format!("max_prepared_stmt_count = {limit}; the plan prepares no statements ({why})"),
            PS_WHY,
        );
    };
    // Statements other sessions hold right now count against the same global limit.
    let others = m.status("Prepared_stmt_count").unwrap_or(0);
    let need = peak + others;
    let tables = if scenario.single_table_only() {
        1
    } else {
        plan.workload.tables
    };
    let seen = format!(
        "max_prepared_stmt_count = {limit}; the largest step ({scenario}, {}, {}) holds \
         {peak} prepared statements ({per} per connection), and other sessions hold {others} now: {need} needed",
        count(threads, "thread"),
        count(tables, "table")
    );
    let suggested = round_up(need + need / 4, 1024).clamp(need, PS_CAP.max(need));
    let action = CheckAction::SetGlobal {
        variable: "max_prepared_stmt_count".into(),
        value: suggested,
    };
    let fix_sql = format!(
        "{}; -- and in my.cnf under [mysqld]: max_prepared_stmt_count = {suggested}",
        action.sql()
    );
    let status = if limit < need {
        CheckStatus::Fail
    } else if limit < need + need / 10 {
        CheckStatus::Warn
    } else {
        return Check::new(ID, TITLE, CheckStatus::Pass, seen, PS_WHY);
    };
    Check::new(
        ID,
        TITLE,
        status,
        if status == CheckStatus::Fail {
            format!("{seen}. The step will fail with error 1461")
        } else {
            format!("{seen}. Less than 10% headroom: another client preparing statements would push it over")
        },
        PS_WHY,
    )
    .with_fix(
        format!("raise the limit to {suggested}{}", privilege_note(m)),
        Some(fix_sql),
    )
    .with_action(action)
}

fn connections(m: &MysqlFacts, plan: &Plan) -> Check {
    const ID: &str = "mysql.max_connections";
    const TITLE: &str = "Connection limit";
    let Some(limit) = m.var_u64("max_connections") else {
        return Check::skipped(
            ID,
            TITLE,
            "the server does not report max_connections",
            CONN_WHY,
        );
    };
    // The engine's own control connection is in peak_connections; add the status sampler.
    let peak = plan.peak_connections() as u64 + 1;
    // Threads_connected counts this check's own connection, which closes before the run.
    let others = m.status("Threads_connected").unwrap_or(1).saturating_sub(1);
    let need = peak + others;
    let margin = (need / 10).max(5);
    let largest = plan.steps().map(|s| s.threads).max().unwrap_or(0);
    let seen = format!(
        "max_connections = {limit}; the plan opens up to {peak} connections ({} + DB Dyno's control \
         and status connections), and {} {} open now: {need} needed",
        count(largest, "thread"),
        count(others as f64, "other connection"),
        plural(others as f64, "is")
    );
    if let Some(per_user) = m
        .var_u64("max_user_connections")
        .filter(|u| *u > 0 && *u < peak)
    {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Fail,
            format!("{seen}; but max_user_connections = {per_user} caps every account below that"),
            CONN_WHY,
        )
        .with_fix(
            "lift the per-account cap for the benchmark account",
            Some(format!("SET GLOBAL max_user_connections = 0; -- or ALTER USER … WITH MAX_USER_CONNECTIONS {}", peak + 10)),
        );
    }
    let suggested = round_up(need + 2 * margin, 10);
    let action = CheckAction::SetGlobal {
        variable: "max_connections".into(),
        value: suggested,
    };
    let status = if limit < need {
        CheckStatus::Fail
    } else if limit < need + margin {
        CheckStatus::Warn
    } else {
        return Check::new(ID, TITLE, CheckStatus::Pass, seen, CONN_WHY);
    };
    Check::new(
        ID,
        TITLE,
        status,
        if status == CheckStatus::Fail {
            format!("{seen}. The largest step will fail with error 1040")
        } else {
            format!("{seen}. Less than {margin} connections of headroom for administrators and other clients")
        },
        CONN_WHY,
    )
    .with_fix(
        format!("raise the limit to {suggested}{}", privilege_note(m)),
        Some(format!(
            "{}; -- and in my.cnf under [mysqld]: max_connections = {suggested}",
            action.sql()
        )),
    )
    .with_action(action)
}

/// Open files and memory for the peak connections: the server's `open_files_limit`
/// against one descriptor per connection and its table cache, and `thread_stack` ×
/// connections plus the buffer pool against the host's memory (when SSH or this
/// machine tells it).
fn connection_resources(m: &MysqlFacts, host_mem_mb: Option<f64>, plan: &Plan) -> Check {
    const ID: &str = "mysql.connection_resources";
    const TITLE: &str = "Files and memory for the connections";
    let peak = plan.peak_connections() as u64 + 1;
    let others = m.status("Threads_connected").unwrap_or(1).saturating_sub(1);
    let connections = peak + others;
    let mut problems = Vec::new();
    let mut fixes = Vec::new();
    let mut seen = Vec::new();
    if let Some(limit) = m.var_u64("open_files_limit") {
        let tables = m.var_u64("table_open_cache").unwrap_or(0);
        let need = SERVER_OWN_FILES + connections + tables;
        seen.push(format!(
            "open_files_limit = {limit}, {need} needed ({connections} connections + table_open_cache {tables} + {SERVER_OWN_FILES})"
        ));
        if limit < need {
            let suggested = round_up(SERVER_OWN_FILES + connections + 2 * tables, 1024);
            problems.push(format!(
                "open_files_limit = {limit} is below the {need} descriptors {connections} connections and the table cache need: connections past it fail with \"Too many open files\""
            ));
            fixes.push(format!(
                "in my.cnf under [mysqld]: open_files_limit = {suggested} (and LimitNOFILE={suggested} in the server's systemd unit); it takes a restart"
            ));
        }
    }
    let stack = m.var_u64("thread_stack");
    let pool = m.var_u64("innodb_buffer_pool_size").unwrap_or(0);
    if let Some(stack) = stack {
        let stacks_mb = (stack * connections) as f64 / 1_048_576.0;
        let pool_mb = pool as f64 / 1_048_576.0;
        match host_mem_mb {
            Some(mem) => {
                seen.push(format!(
                    "thread_stack {} KiB × {connections} = {stacks_mb:.0} MiB, with the buffer pool {pool_mb:.0} MiB, of the host's {mem:.0} MiB",
                    stack / 1024
                ));
                if stacks_mb + pool_mb > MEMORY_SHARE * mem {
                    problems.push(format!(
                        "the connections' stacks ({stacks_mb:.0} MiB) and the buffer pool ({pool_mb:.0} MiB) come to more than {:.0}% of the host's {mem:.0} MiB: the host may swap or the server be killed",
                        MEMORY_SHARE * 100.0
                    ));
                    fixes.push(
                        "run fewer threads, or make the buffer pool smaller for this plan (innodb_buffer_pool_size, SET GLOBAL on MariaDB 10.2+ and MySQL 5.7+)".to_string(),
                    );
                }
            }
            None => seen.push(format!(
                "thread_stack {} KiB × {connections} = {stacks_mb:.0} MiB (the host's memory is unknown without OS access)",
                stack / 1024
            )),
        }
    }
    if seen.is_empty() {
        return Check::skipped(
            ID,
            TITLE,
            "the server reports neither open_files_limit nor thread_stack",
            RESOURCES_WHY,
        );
    }
    let seen = seen.join("; ");
    if problems.is_empty() {
        return Check::new(ID, TITLE, CheckStatus::Pass, seen, RESOURCES_WHY);
    }
    Check::new(
        ID,
        TITLE,
        CheckStatus::Warn,
        format!("{seen}. {}", problems.join("; ")),
        RESOURCES_WHY,
    )
    .with_fix(fixes.join("; "), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::{facts, find, mysql, plan, set_var};

    #[test]
    fn thousands_of_connections_need_files_and_memory_said_in_advance() {
        let resources =
            |f: &Facts, p: &Plan| find(&checks(f, p), "mysql.connection_resources").clone();
        let mut f = facts();
        set_var(&mut f, "open_files_limit", "32184");
        set_var(&mut f, "table_open_cache", "2000");
        set_var(&mut f, "thread_stack", "299008");
        // 64 threads: room for everything.
        let small = plan(&[Scenario::OltpPointSelect], &[64], 1, 1000, false);
        let c = resources(&f, &small);
        assert_eq!(c.status, CheckStatus::Pass, "{}", c.seen);
        assert!(
            c.seen.contains("open_files_limit = 32184, 2076 needed"),
            "{}",
            c.seen
        );

        // 4,096 threads on a server started with the default limit (MariaDB's start
        // formula for 151 connections) and 64 GB: the files are short, the memory fits.
        set_var(&mut f, "open_files_limit", "4161");
        let big = plan(&[Scenario::OltpPointSelect], &[4096], 1, 1000, false);
        let c = resources(&f, &big);
        assert_eq!(c.status, CheckStatus::Warn, "{}", c.seen);
        assert!(
            c.seen
                .contains("open_files_limit = 4161 is below the 6108 descriptors"),
            "{}",
            c.seen
        );
        assert!(
            c.seen.contains("thread_stack 292 KiB × 4098 = 1169 MiB"),
            "{}",
            c.seen
        );
        let fix = c.fix.as_ref().unwrap().text.clone();
        assert!(
            fix.contains("open_files_limit = 8192") && fix.contains("LimitNOFILE"),
            "{fix}"
        );
        assert!(!fix.contains("buffer pool"), "{fix}");

        // On a 2 GB host with a 1 GiB buffer pool the stacks do not fit.
        set_var(&mut f, "open_files_limit", "100000");
        set_var(&mut f, "innodb_buffer_pool_size", "1073741824");
        f.host.os.as_mut().unwrap().mem_total_mb = Some(2048.0);
        let c = resources(&f, &big);
        assert_eq!(c.status, CheckStatus::Warn, "{}", c.seen);
        assert!(
            c.seen.contains("more than 90% of the host's 2048 MiB"),
            "{}",
            c.seen
        );
        // Without OS access the memory part says what it cannot know.
        f.host.os = None;
        let c = resources(&f, &big);
        assert_eq!(c.status, CheckStatus::Pass, "{}", c.seen);
        assert!(
            c.seen.contains("the host's memory is unknown"),
            "{}",
            c.seen
        );
    }

    #[test]
    fn read_write_needs_nine_per_table_plus_two_per_connection() {
        // The example: oltp_read_write, 8 tables, 16 threads = 16 × (9 × 8 + 2) = 1184.
        let p = plan(&[Scenario::OltpReadWrite], &[1, 16], 8, 1000, false);
        let mut f = facts();
        set_var(&mut f, "max_prepared_stmt_count", "1000");
        let c = checks(&f, &p);
        let ps = find(&c, "mysql.max_prepared_stmt_count");
        assert_eq!(ps.status, CheckStatus::Fail);
        assert!(
            ps.seen
                .contains("holds 1184 prepared statements (74 per connection)"),
            "{}",
            ps.seen
        );
        assert!(ps.seen.contains("error 1461"), "{}", ps.seen);
        let Some(CheckAction::SetGlobal { variable, value }) = &ps.action else {
            panic!("an action")
        };
        assert_eq!(variable, "max_prepared_stmt_count");
        assert!(*value >= 1184 && value % 1024 == 0, "{value}");
        assert!(
            ps.fix.as_ref().unwrap().text.contains("--admin-user"),
            "the account is not privileged"
        );
        set_var(&mut f, "max_prepared_stmt_count", "16382");
        assert_eq!(
            find(&checks(&f, &p), "mysql.max_prepared_stmt_count").status,
            CheckStatus::Pass
        );
    }

    #[test]
    fn other_sessions_statements_count_and_headroom_warns() {
        let p = plan(&[Scenario::OltpReadWrite], &[16], 8, 1000, false);
        let mut f = facts();
        set_var(&mut f, "max_prepared_stmt_count", "1250");
        assert_eq!(
            find(&checks(&f, &p), "mysql.max_prepared_stmt_count").status,
            CheckStatus::Warn
        );
        mysql(&mut f)
            .status
            .insert("Prepared_stmt_count".into(), 100);
        assert_eq!(
            find(&checks(&f, &p), "mysql.max_prepared_stmt_count").status,
            CheckStatus::Fail
        );
    }

    #[test]
    fn no_prepared_statements_passes() {
        let mut p = plan(&[Scenario::OltpReadWrite], &[16], 8, 1000, false);
        p.workload.ps_mode = dbdyno_engine::workload::PsMode::Disable;
        let mut f = facts();
        set_var(&mut f, "max_prepared_stmt_count", "0");
        assert_eq!(
            find(&checks(&f, &p), "mysql.max_prepared_stmt_count").status,
            CheckStatus::Pass
        );
    }

    #[test]
    fn tpcc_needs_no_prepared_statements_and_says_why() {
        let mut f = facts();
        set_var(&mut f, "max_prepared_stmt_count", "0");
        let p = plan(&[Scenario::Tpcc], &[64], 1, 1000, false);
        let ps = find(&checks(&f, &p), "mysql.max_prepared_stmt_count").clone();
        assert_eq!(ps.status, CheckStatus::Pass, "{}", ps.seen);
        assert!(
            ps.seen.contains("tpcc sends plain text queries"),
            "{}",
            ps.seen
        );
        // Its connections still count: one per thread.
        set_var(&mut f, "max_connections", "50");
        let conn = find(&checks(&f, &p), "mysql.max_connections").clone();
        assert_eq!(conn.status, CheckStatus::Fail, "{}", conn.seen);
    }

    #[test]
    fn connections_cover_the_largest_step_plus_ours() {
        let p = plan(&[Scenario::OltpPointSelect], &[1, 8, 128], 1, 1000, false);
        let mut f = facts();
        // 128 threads + control + status sampler = 130.
        set_var(&mut f, "max_connections", "129");
        let c = find(&checks(&f, &p), "mysql.max_connections").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("up to 130 connections"), "{}", c.seen);
        assert!(
            matches!(c.action, Some(CheckAction::SetGlobal { ref variable, value }) if variable == "max_connections" && value >= 130)
        );
        set_var(&mut f, "max_connections", "132");
        assert_eq!(
            find(&checks(&f, &p), "mysql.max_connections").status,
            CheckStatus::Warn
        );
        set_var(&mut f, "max_connections", "500");
        assert_eq!(
            find(&checks(&f, &p), "mysql.max_connections").status,
            CheckStatus::Pass
        );
        set_var(&mut f, "max_user_connections", "100");
        let c = find(&checks(&f, &p), "mysql.max_connections").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("max_user_connections = 100"));
    }
}
