//! The benchmark tables: free for a plan that prepares them, or DB Dyno's own in the
//! plan's shape (reused, or loaded again under `prepare = "always"`); present, complete
//! and of sysbench's OLTP shape for one that reads them.
//!
//! Non-goals: no sizes against memory or disk (see the dataset module).

use dbdyno_engine::phases::schema::{benchmark_table_number, TableShape};
use dbdyno_engine::{Plan, PrepareMode, Scenario};

use super::found::{judged, Dataset};
use super::pasted::connection_args;
use super::size::{prepare_mode_where, prepares_where};
use super::tpcc;
use crate::check::{Check, CheckStatus};
use crate::probe::{Facts, MysqlFacts};
use crate::text::human_bytes;

pub(super) const ID: &str = "dataset.tables";
pub(super) const TITLE: &str = "Benchmark tables";
pub(super) const TABLES_WHY: &str =
    "steps read rows that prepare loaded: with tables missing or short, statements fail or \
     return nothing and the figures mean nothing";

pub(super) fn tables(f: &Facts, m: &MysqlFacts, plan: &Plan) -> Check {
    if !m.schema_exists {
        return Check::skipped(
            ID,
            TITLE,
            format!("`{}` does not exist yet", f.schema),
            TABLES_WHY,
        );
    }
    let t = Tables::of(m, plan);
    let prepares_tpcc = prepares_where(plan, |s| s.is_tpcc());
    // One check speaks for both datasets: a refusal of either first.
    let tpcc_verdict = if prepares_tpcc {
        tpcc::before_prepare(m, plan, |status, seen| {
            Check::new(ID, TITLE, status, seen, TABLES_WHY)
        })
    } else {
        None
    };
    if let Some(refused) = tpcc_verdict
        .as_ref()
        .filter(|c| c.status == CheckStatus::Fail)
    {
        return refused.clone();
    }
    if prepares_where(plan, |s| !s.is_tpcc()) {
        return t.before_prepare(m);
    }
    // TPC-C steps read their own tables (warehouse1, ...), which the run itself checks
    // against --scale before its clock starts: the sbtest tables concern the others.
    if plan.steps().all(|s| s.scenario.is_tpcc()) {
        if let Some(verdict) = tpcc_verdict {
            return verdict;
        }
        let detail = if prepares_tpcc {
            "prepare will create TPC-C's tables; the plan runs tpcc only: no sbtest tables needed"
        } else {
            "the plan runs tpcc only: no sbtest tables needed"
        };
        return Check::new(ID, TITLE, CheckStatus::Pass, detail, TABLES_WHY);
    }
    let reads_rows = plan.steps().any(|s| {
        !matches!(
            s.scenario,
            Scenario::OltpInsert | Scenario::BulkInsert | Scenario::Tpcc
        )
    });
    if !reads_rows {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            "the plan only inserts: no prepared rows needed",
            TABLES_WHY,
        );
    }
    t.for_reading(m)
}

/// The sbtestN tables the plan uses, and those of them the schema already has.
struct Tables<'a> {
    plan: &'a Plan,
    /// The plan uses sbtest1..needed.
    needed: u32,
    present: Vec<(u32, TableShape)>,
    /// The OLTP workload the pasted commands name.
    workload: Scenario,
}

impl<'a> Tables<'a> {
    fn of(m: &MysqlFacts, plan: &'a Plan) -> Tables<'a> {
        let oltp_steps: Vec<Scenario> = plan
            .steps()
            .map(|s| s.scenario)
            .filter(|s| !s.uses_bulk_tables() && !s.is_tpcc())
            .collect();
        let needed = if oltp_steps.iter().all(|s| s.single_table_only()) && !oltp_steps.is_empty() {
            1
        } else {
            plan.workload.tables
        };
        let present = m
            .tables
            .values()
            .filter_map(|t| benchmark_table_number(&t.name).map(|n| (n, t.shape)))
            .filter(|(n, _)| *n <= needed)
            .collect();
        Tables {
            plan,
            needed,
            present,
            workload: oltp_steps
                .first()
                .copied()
                .unwrap_or(Scenario::OltpReadWrite),
        }
    }

    fn cleanup_command(&self) -> String {
        format!(
            "dbdyno {} {} --tables={} cleanup",
            self.workload,
            connection_args(self.plan),
            self.needed
        )
    }

    fn prepare_command(&self) -> String {
        format!(
            "dbdyno {} {} --tables={} --table-size={} prepare",
            self.workload,
            connection_args(self.plan),
            self.needed,
            self.plan.workload.table_size
        )
    }

    /// What prepare will do with the tables it finds: the engine's verifier decides
    /// (`m.oltp_tables`), as it decides for prepare itself, worded by `found::judged`.
    fn before_prepare(&self, m: &MysqlFacts) -> Check {
        let needed = self.needed;
        let pass = |seen: String| Check::new(ID, TITLE, CheckStatus::Pass, seen, TABLES_WHY);
        if let Some(found) = &m.oltp_tables {
            let d = Dataset {
                ours: "DB Dyno's tables",
                dropped: format!("sbtest1..{needed}"),
                always: prepare_mode_where(self.plan, |s| !s.is_tpcc()) == PrepareMode::Always,
                resumes: prepare_mode_where(self.plan, |s| !s.is_tpcc()) == PrepareMode::Resume,
                cleanup: self.cleanup_command(),
            };
            let check = |status, seen| Check::new(ID, TITLE, status, seen, TABLES_WHY);
            if let Some(c) = judged(found, d, check) {
                return c;
            }
        }
        // Without the verifier's word (it could not read the tables), the list alone:
        // prepare would refuse over tables it cannot judge.
        if let Some((n, _)) = self.present.first() {
            return Check::new(
                ID,
                TITLE,
                CheckStatus::Fail,
                format!("prepare will create sbtest1..{needed}, but sbtest{n} already exists and could not be verified as DB Dyno's: prepare refuses rather than load twice"),
                TABLES_WHY,
            )
            .with_fix(
                "drop the old tables first, or run without --prepare to reuse them",
                Some(self.cleanup_command()),
            );
        }
        pass(format!(
            "prepare will create sbtest1..{needed} with {} rows each",
            self.plan.workload.table_size
        ))
    }

    /// A plan that reads the tables needs all of them, of the OLTP shape, about as full
    /// as it expects.
    fn for_reading(&self, m: &MysqlFacts) -> Check {
        let needed = self.needed;
        let missing: Vec<u32> = (1..=needed)
            .filter(|n| !self.present.iter().any(|(p, _)| p == n))
            .collect();
        if !missing.is_empty() {
            return Check::new(
                ID,
                TITLE,
                CheckStatus::Fail,
                format!(
                    "the plan reads sbtest1..{needed}; missing: {}",
                    missing_list(&missing)
                ),
                TABLES_WHY,
            )
            .with_fix(
                "prepare them first (or add --prepare to the ladder)",
                Some(self.prepare_command()),
            );
        }
        if let Some((n, _)) = self.present.iter().find(|(_, s)| *s != TableShape::Oltp) {
            return Check::new(
                ID,
                TITLE,
                CheckStatus::Fail,
                format!("sbtest{n} does not have sysbench's OLTP shape (id, k, c, pad)"),
                TABLES_WHY,
            )
            .with_fix("clean up and prepare again", Some(self.cleanup_command()));
        }
        // TABLE_ROWS is InnoDB's estimate (±10 % or so): only a large shortfall is reported.
        let table_size = self.plan.workload.table_size;
        let expected = needed as u64 * table_size;
        if m.benchmark_rows * 2 < expected {
            return Check::new(
                ID,
                TITLE,
                CheckStatus::Warn,
                format!(
                    "sbtest1..{needed} hold about {} rows, the plan expects {expected} (--table-size={}): reads past the loaded ids find nothing",
                    m.benchmark_rows, table_size
                ),
                TABLES_WHY,
            )
            .with_fix("use the --table-size the tables were prepared with, or prepare again", Some(self.prepare_command()));
        }
        Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            format!(
                "sbtest1..{needed} present, about {} rows, {}",
                m.benchmark_rows,
                human_bytes(m.benchmark_bytes)
            ),
            TABLES_WHY,
        )
    }
}

/// "sbtest1, sbtest2", or a range when there are more than five.
fn missing_list(missing: &[u32]) -> String {
    if missing.len() > 5 {
        format!(
            "sbtest{}..sbtest{} ({} tables)",
            missing[0],
            missing[missing.len() - 1],
            missing.len()
        )
    } else {
        missing
            .iter()
            .map(|n| format!("sbtest{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use dbdyno_engine::phases::schema::TableInfo;
    use dbdyno_engine::phases::FoundTables;
    use dbdyno_engine::Phase;

    use super::*;
    use crate::checks::dataset::checks;
    use crate::checks::testing::{facts, find, mysql, plan};

    fn oltp(name: &str) -> (String, TableInfo) {
        (
            name.to_string(),
            TableInfo {
                name: name.into(),
                shape: TableShape::Oltp,
                columns: vec![],
                mark: None,
                comment: String::new(),
            },
        )
    }

    #[test]
    fn tables_present_or_free_for_prepare() {
        let mut f = facts();
        let run = plan(&[Scenario::OltpReadWrite], &[8], 3, 1000, false);
        let c = find(&checks(&f, &run), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(
            c.seen.contains("missing: sbtest1, sbtest2, sbtest3"),
            "{}",
            c.seen
        );
        assert!(c
            .fix
            .unwrap()
            .sql_or_command
            .unwrap()
            .ends_with("--tables=3 --table-size=1000 prepare"));
        mysql(&mut f).tables = BTreeMap::from([oltp("sbtest1"), oltp("sbtest2"), oltp("sbtest3")]);
        mysql(&mut f).benchmark_rows = 2950;
        assert_eq!(
            find(&checks(&f, &run), "dataset.tables").status,
            CheckStatus::Pass
        );
        mysql(&mut f).benchmark_rows = 1000;
        assert_eq!(
            find(&checks(&f, &run), "dataset.tables").status,
            CheckStatus::Warn
        );
        let prep = plan(&[Scenario::OltpReadWrite], &[8], 3, 1000, true);
        let c = find(&checks(&f, &prep), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("already exists"), "{}", c.seen);
    }

    /// TPC-C's prepare creates warehouse1, ...: sbtest tables left by an OLTP run are
    /// no reason to refuse it, its own tables are.
    #[test]
    fn a_tpcc_prepare_minds_its_own_tables_not_sbtest() {
        let mut f = facts();
        mysql(&mut f).tables = BTreeMap::from([oltp("sbtest1")]);
        let prep = plan(&[Scenario::Tpcc], &[2], 1, 1000, true);
        let c = find(&checks(&f, &prep), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Pass, "{}", c.seen);

        mysql(&mut f)
            .tables
            .extend([oltp("warehouse1"), oltp("stock1")]);
        let c = find(&checks(&f, &prep), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(
            c.seen.contains("warehouse1 already exists (and 1 more)"),
            "{}",
            c.seen
        );
        let fix = c.fix.unwrap().sql_or_command.unwrap();
        assert!(
            fix.starts_with("dbdyno tpcc ") && fix.ends_with("--tables=1 cleanup"),
            "{fix}"
        );

        // A ladder of both prepares both: the OLTP tables are checked too.
        let both = plan(
            &[Scenario::OltpReadOnly, Scenario::Tpcc],
            &[2],
            1,
            1000,
            true,
        );
        mysql(&mut f).tables = BTreeMap::from([oltp("sbtest1")]);
        let c = find(&checks(&f, &both), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("sbtest1 already exists"), "{}", c.seen);
    }

    /// The verifier's verdict decides what a prepare over present tables will do: reuse
    /// DB Dyno's own, load them again under "always", refuse anyone else's.
    #[test]
    fn prepare_over_present_tables_follows_the_verifier() {
        use dbdyno_engine::phases::ReusedTables;
        let mut f = facts();
        mysql(&mut f).tables = BTreeMap::from([oltp("sbtest1"), oltp("sbtest2")]);
        let mut prep = plan(&[Scenario::OltpReadWrite], &[8], 2, 10_000, true);
        let verdict = |f: &Facts, p: &Plan| find(&checks(f, p), "dataset.tables").clone();

        mysql(&mut f).oltp_tables = Some(FoundTables::Reusable(ReusedTables {
            tables: 2,
            table_size: 10_000,
            tpcc_warehouses: None,
            made: "2026-12-02 01:59 UTC".into(),
        }));
        let c = verdict(&f, &prep);
        assert_eq!(c.status, CheckStatus::Pass, "{}", c.seen);
        assert!(
            c.seen.contains(
                "reusing sbtest1..2: 2 × 10,000 rows, made by DB Dyno on 2026-12-02 01:59 UTC"
            ),
            "{}",
            c.seen
        );

        mysql(&mut f).oltp_tables = Some(FoundTables::OursOtherShape {
            why: "sbtest1 was made by DB Dyno with table_size 5000 (the plan's: 10000)".into(),
        });
        let c = verdict(&f, &prep);
        assert_eq!(c.status, CheckStatus::Fail);
        assert_eq!(c.prepare_fix, Some(PrepareMode::Always));
        assert!(c.fix.unwrap().text.contains("always"));
        for p in &mut prep.phases {
            if let Phase::Prepare { mode, .. } = p {
                *mode = PrepareMode::Always;
            }
        }
        let c = verdict(&f, &prep);
        assert_eq!(c.status, CheckStatus::Pass, "{}", c.seen);
        assert!(c.seen.contains("loads them again"), "{}", c.seen);

        // Someone else's tables are refused whatever the mode.
        mysql(&mut f).oltp_tables = Some(FoundTables::Foreign {
            table: "sbtest1".into(),
            why: "sbtest1 exists and DB Dyno did not make it".into(),
        });
        let c = verdict(&f, &prep);
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("neither reuses nor drops"), "{}", c.seen);
        assert_eq!(c.prepare_fix, Some(PrepareMode::Never));
    }

    #[test]
    fn tpcc_prepare_follows_its_verifier_and_its_refusal_comes_first() {
        use dbdyno_engine::phases::ReusedTables;
        let mut f = facts();
        mysql(&mut f).tables = BTreeMap::from([oltp("sbtest1")]);
        let tpcc_only = plan(&[Scenario::Tpcc], &[8], 1, 10_000, true);
        let mixed = plan(
            &[Scenario::Tpcc, Scenario::OltpReadWrite],
            &[8],
            1,
            10_000,
            true,
        );
        let verdict = |f: &Facts, p: &Plan| find(&checks(f, p), "dataset.tables").clone();

        mysql(&mut f).tpcc_tables = Some(FoundTables::Reusable(ReusedTables {
            tables: 1,
            table_size: 0,
            tpcc_warehouses: Some(1),
            made: "2026-12-02 01:59 UTC".into(),
        }));
        let c = verdict(&f, &tpcc_only);
        assert_eq!(c.status, CheckStatus::Pass, "{}", c.seen);
        assert!(c.seen.contains("reusing TPC-C set 1"), "{}", c.seen);

        mysql(&mut f).tpcc_tables = Some(FoundTables::Foreign {
            table: "warehouse1".into(),
            why: "warehouse1 exists and DB Dyno did not make it".into(),
        });
        // Refused in a ladder of both kinds too, before the OLTP tables are judged.
        for p in [&tpcc_only, &mixed] {
            let c = verdict(&f, p);
            assert_eq!(c.status, CheckStatus::Fail, "{}", c.seen);
            assert!(c.seen.contains("warehouse1 exists"), "{}", c.seen);
            assert_eq!(c.prepare_fix, Some(PrepareMode::Never));
            assert!(c
                .fix
                .unwrap()
                .sql_or_command
                .unwrap()
                .contains("dbdyno tpcc "));
        }
    }
}
