//! The prerequisite checks before a run: the facts are gathered once, the whole suite
//! (`dbdyno check`'s) judges them, and the same facts become the run's environment
//! snapshot and start its monitoring, so a run costs no second round of SSH and SQL.
//!
//! Both shells refuse a plan whose checks fail (a too-low max_prepared_stmt_count
//! would otherwise kill the run partway); the CLI lets `--skip-checks` go on anyway.
//!
//! Non-goals: no printing, no fixes (`dbdyno check --fix` and the Checks screen apply them).

use dbdyno_checks::probe::Facts;
use dbdyno_checks::{checks, Check, CheckStatus, EnvironmentSnapshot, SuiteReport};
use dbdyno_engine::Plan;
use dbdyno_monitor::HostAccess;

/// The checks' verdicts and the facts they judged.
pub struct Preflight {
    pub report: SuiteReport,
    pub facts: Facts,
}

impl Preflight {
    /// Gathers the facts for `plan` through `access` (`devices`: the user's data disk)
    /// and runs every check on them.
    pub fn gather(plan: &Plan, access: &HostAccess, devices: &[String]) -> Preflight {
        let (environment, mut facts) = EnvironmentSnapshot::gather(&plan.connect, access, devices);
        // The tables the plan prepares, judged by the verifier prepare itself asks.
        if let Ok(m) = &mut facts.mysql {
            dbdyno_checks::probe::verify_prepared_tables(&plan.connect, m, plan);
        }
        Preflight {
            report: SuiteReport {
                checks: checks::all(&facts, plan),
                environment,
            },
            facts,
        }
    }

    pub fn environment(&self) -> &EnvironmentSnapshot {
        &self.report.environment
    }

    pub fn failed(&self) -> bool {
        self.report.failed()
    }

    /// The checks that warn or fail, worst first.
    pub fn problems(&self) -> Vec<&Check> {
        let mut v: Vec<&Check> = self
            .report
            .checks
            .iter()
            .filter(|c| matches!(c.status, CheckStatus::Warn | CheckStatus::Fail))
            .collect();
        v.sort_by_key(|c| std::cmp::Reverse(c.status));
        v
    }

    /// Why the run must not start (`None` when no check failed): each failed check's
    /// title, what it saw and the fix.
    pub fn refusal(&self) -> Option<String> {
        refusal(&self.report.checks)
    }
}

/// Why a run with these checks must not start (`None` when none failed): each failed
/// check's title, what it saw and the fix.
pub fn refusal(checks: &[Check]) -> Option<String> {
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| c.status == CheckStatus::Fail)
        .map(|c| {
            let fix = c
                .fix
                .as_ref()
                .map(|f| match &f.sql_or_command {
                    Some(cmd) => format!(" Fix: {} ({cmd})", f.text),
                    None => format!(" Fix: {}", f.text),
                })
                .unwrap_or_default();
            format!("{} [{}]: {}.{fix}", c.title, c.id, c.seen)
        })
        .collect();
    (!failed.is_empty()).then(|| {
        format!(
            "the prerequisite checks failed, nothing was run: {}",
            failed.join(" ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str, status: CheckStatus) -> Check {
        Check::new(id, id, status, format!("{id} seen"), "why")
    }

    #[test]
    fn only_a_failed_check_refuses_the_start() {
        let warned = [
            check("a.pass", CheckStatus::Pass),
            check("b.warn", CheckStatus::Warn),
            check("c.skipped", CheckStatus::Skipped),
        ];
        assert_eq!(refusal(&warned), None);
        assert_eq!(refusal(&[]), None);
    }

    #[test]
    fn a_refusal_names_each_failed_check_with_its_fix() {
        let checks = [
            check("a.pass", CheckStatus::Pass),
            check("dataset.tables", CheckStatus::Fail)
                .with_fix("drop the old tables first", Some("dbdyno cleanup".into())),
            check("b.warn", CheckStatus::Warn),
            check("mysql.max_prepared_stmt_count", CheckStatus::Fail),
        ];
        let why = refusal(&checks).expect("two checks failed");
        assert_eq!(
            why,
            "the prerequisite checks failed, nothing was run: dataset.tables [dataset.tables]: dataset.tables seen. Fix: drop the old tables first (dbdyno cleanup) mysql.max_prepared_stmt_count [mysql.max_prepared_stmt_count]: mysql.max_prepared_stmt_count seen."
        );
        assert!(!why.contains("b.warn"), "{why}");
    }
}
