//! Can the server hold the plan's largest step: enough prepared statements
//! (`max_prepared_stmt_count`) and connections (`max_connections`) for the peak, on
//! top of what other sessions already use.

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

/// The largest value any server accepts for max_prepared_stmt_count (MySQL 5.7's cap).
const PS_CAP: u64 = 1_048_576;

pub fn checks(f: &Facts, plan: &Plan) -> Vec<Check> {
    match &f.mysql {
        Ok(m) => vec![prepared_statements(m, plan), connections(m, plan)],
        Err(_) => vec![
            unreachable(
                "mysql.max_prepared_stmt_count",
                "Prepared statement limit",
                PS_WHY,
            ),
            unreachable("mysql.max_connections", "Connection limit", CONN_WHY),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::testing::{facts, find, mysql, plan, set_var};

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
