//! A profile becomes the engine's types. Defaults are the engine's own
//! (`ConnectOptions`, `WorkloadOptions`, `LadderSpec`), the same the CLI uses, so a
//! profile that leaves a field out means what the command line means without the option.

use dbdyno_engine::plan::{PrewarmDataset, PrewarmOptions};
use dbdyno_engine::tpcc::{IsolationLevel, TpccOptions};
use dbdyno_engine::workload::{IgnoreErrors, RandType};
use dbdyno_engine::{
    ConnectOptions, LadderSpec, Phase, Plan, PlanError, PrepareMode, RunSettings, Scenario,
    SlaTarget, StepPlan, WorkloadOptions,
};

/// One command of the sysbench form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SingleCommand {
    Prepare,
    Prewarm,
    Run,
    Cleanup,
}

use crate::{Problem, Profile};

/// Most extra steps the capacity search may take per scenario.
pub const MAX_SLA_SEARCH: u32 = 16;

/// A rate ladder names at least one rate, none of them 0 (a closed loop is the thread
/// ladder), and is not mixed with `rate`, which paces a thread ladder.
fn rate_problems(plan: &crate::model::PlanSection) -> Vec<Problem> {
    let Some(rates) = &plan.rates else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if rates.is_empty() {
        out.push(problem("plan.rates", "give at least one arrival rate"));
    }
    for (i, r) in rates.iter().enumerate() {
        if *r == 0 {
            out.push(problem(
                &format!("plan.rates[{i}]"),
                "an arrival rate is at least 1 transaction/s (got 0); the thread ladder is the closed loop",
            ));
        }
    }
    if plan.rate.is_some_and(|r| r > 0.0) {
        out.push(problem(
            "plan.rates",
            "give rate (one rate for a thread ladder) or rates (a rate ladder), not both",
        ));
    }
    // The search bisects thread counts; a rate step's connections follow from its rate.
    if plan.sla_search.is_some_and(|k| k > 0) {
        out.push(problem(
            "plan.sla_search",
            "the capacity search bisects thread counts, not arrival rates: run it on a thread ladder",
        ));
    }
    out
}

fn problem(field: &str, message: impl Into<String>) -> Problem {
    Problem {
        field: field.to_string(),
        line: None,
        message: message.into(),
    }
}

impl Profile {
    /// Where to connect. The password is not in a profile: it stays None here and the
    /// caller fills it from [`crate::secrets`].
    pub fn connect_options(&self) -> ConnectOptions {
        let m = &self.mysql;
        let d = ConnectOptions::default();
        ConnectOptions {
            host: m.host.clone().unwrap_or(d.host),
            port: m.port.unwrap_or(d.port),
            socket: m.socket.clone(),
            user: m.user.clone().unwrap_or(d.user),
            password: None,
            database: m.db.clone().unwrap_or(d.database),
            tls: m.ssl_mode.unwrap_or(d.tls),
            tls_ca: m.ssl_ca.clone(),
            server_public_key_path: m.server_public_key_path.clone(),
            get_server_public_key: m.get_server_public_key.unwrap_or(d.get_server_public_key),
        }
    }

    pub fn workload_options(&self) -> Result<WorkloadOptions, Vec<Problem>> {
        let (w, problems) = self.workload_options_all();
        if problems.is_empty() {
            Ok(w)
        } else {
            Err(problems)
        }
    }

    /// The workload options with a default where a value is bad, and every bad value.
    fn workload_options_all(&self) -> (WorkloadOptions, Vec<Problem>) {
        let w = &self.workload;
        let d = WorkloadOptions::default();
        let mut problems = Vec::new();
        let rand_type = match &w.rand_type {
            Some(t) => t.parse::<RandType>().unwrap_or_else(|e| {
                problems.push(problem("workload.rand_type", e));
                d.rand.rand_type
            }),
            None => d.rand.rand_type,
        };
        let ignore_errors = match &self.mysql.ignore_errors {
            Some(s) => IgnoreErrors::parse(s).unwrap_or_else(|e| {
                problems.push(problem("mysql.ignore_errors", e));
                d.ignore_errors.clone()
            }),
            None => d.ignore_errors.clone(),
        };
        let r = &d.rand;
        let options = WorkloadOptions {
            tables: w.tables.unwrap_or(d.tables),
            table_size: w.table_size.unwrap_or(d.table_size),
            range_size: w.range_size.unwrap_or(d.range_size),
            point_selects: w.point_selects.unwrap_or(d.point_selects),
            simple_ranges: w.simple_ranges.unwrap_or(d.simple_ranges),
            sum_ranges: w.sum_ranges.unwrap_or(d.sum_ranges),
            order_ranges: w.order_ranges.unwrap_or(d.order_ranges),
            distinct_ranges: w.distinct_ranges.unwrap_or(d.distinct_ranges),
            index_updates: w.index_updates.unwrap_or(d.index_updates),
            non_index_updates: w.non_index_updates.unwrap_or(d.non_index_updates),
            delete_inserts: w.delete_inserts.unwrap_or(d.delete_inserts),
            range_selects: w.range_selects.unwrap_or(d.range_selects),
            skip_trx: w.skip_trx.unwrap_or(d.skip_trx),
            auto_inc: w.auto_inc.unwrap_or(d.auto_inc),
            secondary: w.secondary.unwrap_or(d.secondary),
            create_secondary: w.create_secondary.unwrap_or(d.create_secondary),
            mysql_storage_engine: w
                .mysql_storage_engine
                .clone()
                .unwrap_or(d.mysql_storage_engine.clone()),
            random_points: w.random_points.unwrap_or(d.random_points),
            number_of_ranges: w.number_of_ranges.unwrap_or(d.number_of_ranges),
            delta: w.delta.unwrap_or(d.delta),
            rand: dbdyno_engine::workload::RandOptions {
                rand_type,
                spec_iter: w.rand_spec_iter.unwrap_or(r.spec_iter),
                spec_pct: w.rand_spec_pct.unwrap_or(r.spec_pct),
                spec_res: w.rand_spec_res.unwrap_or(r.spec_res),
                seed: w.rand_seed.unwrap_or(r.seed),
                pareto_h: w.rand_pareto_h.unwrap_or(r.pareto_h),
                zipfian_exp: w.rand_zipfian_exp.unwrap_or(r.zipfian_exp),
            },
            ps_mode: w.db_ps_mode.unwrap_or(d.ps_mode),
            ignore_errors,
            tpcc: self.tpcc_options(&mut problems),
        };
        (options, problems)
    }

    /// sysbench-tpcc's options: its own keys, with `tables` and `mysql_storage_engine`
    /// shared with the OLTP workloads as on sysbench-tpcc's command line.
    fn tpcc_options(&self, problems: &mut Vec<Problem>) -> TpccOptions {
        let w = &self.workload;
        let d = TpccOptions::default();
        let trx_level = match &w.trx_level {
            Some(s) => IsolationLevel::parse(s).unwrap_or_else(|| {
                problems.push(problem(
                    "workload.trx_level",
                    format!("'{s}': expected RC, RR or SER"),
                ));
                d.trx_level
            }),
            None => d.trx_level,
        };
        if w.scale == Some(0) {
            problems.push(problem("workload.scale", "must be at least 1 (warehouses)"));
        }
        TpccOptions {
            scale: w.scale.filter(|n| *n > 0).unwrap_or(d.scale),
            tables: w.tables.unwrap_or(d.tables),
            use_fk: w.use_fk.unwrap_or(d.use_fk),
            force_pk: w.force_pk.unwrap_or(d.force_pk),
            trx_level,
            enable_purge: w.enable_purge.unwrap_or(d.enable_purge),
            storage_engine: w.mysql_storage_engine.clone().unwrap_or(d.storage_engine),
            table_options: w.mysql_table_options.clone().unwrap_or(d.table_options),
        }
    }

    /// The thread ladder with the engine's defaults (30 s steps, one-second records).
    pub fn ladder_spec(&self) -> Result<LadderSpec, Vec<Problem>> {
        let (spec, problems) = self.ladder_spec_all();
        if problems.is_empty() {
            Ok(spec)
        } else {
            Err(problems)
        }
    }

    /// The ladder without the scenarios that are not known, and every unknown one.
    fn ladder_spec_all(&self) -> (LadderSpec, Vec<Problem>) {
        let p = &self.plan;
        let d = LadderSpec::default();
        let mut problems = Vec::new();
        let scenarios = match &p.scenarios {
            Some(list) => list
                .iter()
                .enumerate()
                .filter_map(|(i, s)| match s.parse::<Scenario>() {
                    Ok(sc) => Some(sc),
                    Err(e) => {
                        problems.push(problem(&format!("plan.scenarios[{i}]"), e.to_string()));
                        None
                    }
                })
                .collect(),
            None => d.scenarios.clone(),
        };
        let (sla, sla_search) = self.sla(&mut problems);
        problems.extend(rate_problems(p));
        let mut settings = self.run_settings(&d.settings);
        // The per-second records carry one percentile: the target's, unless --percentile
        // says otherwise, so that each step's figure at the target has an interval.
        if let (Some(t), None) = (sla, p.percentile) {
            settings.percentile = t.percentile;
        }
        let spec = LadderSpec {
            scenarios,
            threads: p.threads.clone().unwrap_or(d.threads.clone()),
            rates: p
                .rates
                .as_ref()
                .map_or(d.rates.clone(), |r| r.iter().map(|&r| r as f64).collect()),
            settings,
            cooldown_s: p.cooldown.unwrap_or(d.cooldown_s),
            prepare: p.prepare.unwrap_or(d.prepare),
            prewarm: p.prewarm.unwrap_or(d.prewarm),
            cleanup: p.cleanup.unwrap_or(d.cleanup),
            admin_threads: p.admin_threads.unwrap_or(d.admin_threads),
            prewarm_until_hit_rate: p.prewarm_until_hit_rate.or(d.prewarm_until_hit_rate),
            repeat: p.repeat.unwrap_or(d.repeat),
            sla,
            sla_search,
            on_step_error: p.on_step_error.unwrap_or(d.on_step_error),
        };
        (spec, problems)
    }

    /// The latency target and the capacity search's most extra steps, with their
    /// problems on their keys.
    fn sla(&self, problems: &mut Vec<Problem>) -> (Option<SlaTarget>, u32) {
        let p = &self.plan;
        let target = p.sla.as_deref().and_then(|s| match s.parse::<SlaTarget>() {
            Ok(t) => Some(t),
            Err(e) => {
                problems.push(problem("plan.sla", e.to_string()));
                None
            }
        });
        let search = p.sla_search.unwrap_or(0);
        if search > MAX_SLA_SEARCH {
            problems.push(problem(
                "plan.sla_search",
                format!("at most {MAX_SLA_SEARCH} extra steps per scenario (got {search}): each halves the bracket, so 8 already split 128 threads to one"),
            ));
        } else if search > 0 && p.sla.is_none() {
            problems.push(problem(
                "plan.sla_search",
                "the capacity search needs a latency target: give --sla (sla = \"p95<=20ms\")",
            ));
        }
        (target, search.min(MAX_SLA_SEARCH))
    }

    /// A step's settings: the profile's, else `defaults` (the ladder's, or the sysbench
    /// form's [`RunSettings::default`]).
    fn run_settings(&self, defaults: &RunSettings) -> RunSettings {
        let p = &self.plan;
        let events = p.events.unwrap_or(defaults.events);
        // As on the command line: with --events and no --time, steps have no time limit.
        let time_default = if events > 0 { 0 } else { defaults.time_s };
        RunSettings {
            time_s: p.time.unwrap_or(time_default),
            events,
            warmup_s: p.warmup.unwrap_or(defaults.warmup_s),
            rate: p.rate.unwrap_or(defaults.rate),
            rate_dist: p.rate_dist.unwrap_or(defaults.rate_dist),
            report_interval_s: p.report_interval.unwrap_or(defaults.report_interval_s),
            percentile: p.percentile.unwrap_or(defaults.percentile),
            stall_timeout_s: p.stall_timeout.unwrap_or(defaults.stall_timeout_s),
        }
    }

    /// The plan of one sysbench-form command (`dbdyno <scenario> ... run`): one phase
    /// on `threads` threads, with sysbench's defaults (10 s, no interval lines) where
    /// the profile is silent. The profile's ladder and phase switches do not apply.
    pub fn to_single_plan(
        &self,
        scenario: Scenario,
        command: SingleCommand,
        threads: u32,
    ) -> Result<Plan, Vec<Problem>> {
        let (workload, mut all) = self.workload_options_all();
        let phase = match command {
            // The command says "prepare": load, or reuse DB Dyno's own tables in the
            // plan's shape; "always" in the profile loads them again, "resume" keeps
            // the complete ones and loads the rest.
            SingleCommand::Prepare => Phase::Prepare {
                scenario,
                threads,
                mode: match self.plan.prepare {
                    Some(m @ (PrepareMode::Always | PrepareMode::Resume)) => m,
                    _ => PrepareMode::IfMissing,
                },
            },
            SingleCommand::Prewarm => Phase::Prewarm(PrewarmOptions {
                threads,
                until_hit_rate: self.plan.prewarm_until_hit_rate,
                dataset: PrewarmDataset::of([scenario]),
                ..PrewarmOptions::default()
            }),
            SingleCommand::Cleanup => Phase::Cleanup { scenario, threads },
            SingleCommand::Run => Phase::Step(StepPlan {
                scenario,
                threads,
                settings: self.run_settings(&RunSettings::default()),
                repeat: Default::default(),
            }),
        };
        let plan = Plan {
            connect: self.connect_options(),
            workload,
            phases: vec![phase],
            force: self.plan.force.unwrap_or(false),
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        };
        for e in plan.problems() {
            let p = plan_problem(&e);
            if !all.iter().any(|q| q.field == p.field) {
                all.push(p);
            }
        }
        if all.is_empty() {
            Ok(plan)
        } else {
            Err(all)
        }
    }

    /// The profile's data disk override as device names (`data_disk = "nvme0n1,nvme1n1"`,
    /// `/dev/` optional); empty: the resolver finds the disk.
    pub fn data_disk_devices(&self) -> Vec<String> {
        self.data_disk
            .iter()
            .flat_map(|d| d.split(','))
            .map(|d| d.trim().trim_start_matches("/dev/").to_string())
            .filter(|d| !d.is_empty())
            .collect()
    }

    /// The validated plan this profile describes (password not set).
    ///
    /// Every problem is reported, not the first: a bad value is replaced by its default
    /// (an unknown scenario left out) so that the engine's checks still see the rest.
    pub fn to_plan(&self) -> Result<Plan, Vec<Problem>> {
        let (workload, mut all) = self.workload_options_all();
        let (spec, spec_problems) = self.ladder_spec_all();
        all.extend(spec_problems);
        let scenarios_named = all.iter().any(|p| p.field.starts_with("plan.scenarios"));
        if spec.scenarios.is_empty() && !scenarios_named {
            all.push(problem("plan.scenarios", "give at least one scenario"));
        }
        if spec.threads.is_empty() {
            all.push(problem("plan.threads", "give at least one thread count"));
        }
        let plan = Plan {
            connect: self.connect_options(),
            workload,
            phases: spec.phases(),
            force: self.plan.force.unwrap_or(false),
            on_step_error: spec.on_step_error,
        };
        for e in plan.problems() {
            let p = plan_problem(&e);
            // An empty plan because every scenario was unknown is already said.
            let said = all
                .iter()
                .any(|q| q.field == p.field || (matches!(e, PlanError::Empty) && scenarios_named));
            if !said {
                all.push(p);
            }
        }
        if all.is_empty() {
            Ok(plan)
        } else {
            Err(all)
        }
    }
}

/// The profile field behind an engine plan error.
fn plan_problem(e: &PlanError) -> Problem {
    let field = match e {
        PlanError::ZeroThreads(_) => "plan.threads".to_string(),
        PlanError::ZeroTables | PlanError::SingleTableOnly(..) => "workload.tables".into(),
        PlanError::ZeroTableSize(_) => "workload.table_size".into(),
        PlanError::NoStopCondition => "plan.time".into(),
        PlanError::BadPercentile(_) => "plan.percentile".into(),
        PlanError::BadRate(_) => "plan.rate".into(),
        PlanError::BadEngine(_) => "workload.mysql_storage_engine".into(),
        PlanError::ZeroRangeSize => "workload.range_size".into(),
        PlanError::Empty => "plan.scenarios".into(),
        // The option's own profile key (`--prewarm-until-hit-rate` is plan.…).
        PlanError::OutOfRange { field, .. } => {
            let option = field.trim_start_matches("--");
            crate::fields::by_option(option)
                .map(|f| f.key.to_string())
                .unwrap_or_else(|| format!("workload.{}", option.replace('-', "_")))
        }
        PlanError::NoDatabase => "mysql.db".into(),
        PlanError::BadRepeat(_) => "plan.repeat".into(),
        // A variant added to the engine after this mapping: still reported, on the plan.
        #[allow(unreachable_patterns)]
        _ => "plan".into(),
    };
    problem(&field, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sysbench-tpcc's keys reach the plan's TPC-C options; `tables` and
    /// `mysql_storage_engine` serve them too, as on sysbench-tpcc's command line.
    #[test]
    fn tpcc_keys_reach_the_plan() {
        let toml = "schema_version = 1\nname = \"x\"\n[plan]\nscenarios = [\"tpcc\"]\n\
                    [workload]\ntables = 2\nmysql_storage_engine = \"myisam\"\nscale = 4\n\
                    use_fk = false\nforce_pk = true\ntrx_level = \"RC\"\nenable_purge = true\n\
                    mysql_table_options = \"COMPRESSION='lz4'\"\n";
        let p: Profile = toml::from_str(toml).unwrap();
        let t = p.to_plan().unwrap().workload.tpcc;
        assert_eq!(
            t,
            TpccOptions {
                scale: 4,
                tables: 2,
                use_fk: false,
                force_pk: true,
                trx_level: IsolationLevel::ReadCommitted,
                enable_purge: true,
                storage_engine: "myisam".into(),
                table_options: "COMPRESSION='lz4'".into(),
            }
        );
        // The same keys set as options (the CLI's and the app's road) give the same plan.
        let mut q = Profile::named("x");
        for (option, value) in p.to_options() {
            q.set_option(option, &value).unwrap();
        }
        assert_eq!(q.to_plan().unwrap().workload.tpcc, t);
    }

    #[test]
    fn a_bad_trx_level_and_scale_are_refused_on_their_lines() {
        let text = "schema_version = 1\nname = \"x\"\n[plan]\nscenarios = [\"tpcc\"]\n\
                    [workload]\nscale = 0\ntrx_level = \"XX\"\n";
        let err = crate::load::load_str(text, "t", "t").unwrap_err();
        let problems = err.problems();
        let at = |field: &str| problems.iter().find(|p| p.field == field).map(|p| p.line);
        assert_eq!(at("workload.scale"), Some(Some(6)), "{problems:?}");
        assert_eq!(at("workload.trx_level"), Some(Some(7)), "{problems:?}");
    }

    #[test]
    fn empty_profile_means_engine_defaults() {
        let p = Profile::named("x");
        let plan = p.to_plan().unwrap();
        assert_eq!(plan.connect, ConnectOptions::default());
        assert_eq!(plan.workload, WorkloadOptions::default());
        assert_eq!(plan.phases, LadderSpec::default().phases());
    }

    /// `repeat = 3` in a profile, or `--repeat=3` set onto it, repeats every step three
    /// times; out of range it is refused on its key with the engine's words.
    #[test]
    fn on_step_error_key_reaches_the_plan_and_stop_is_the_default() {
        use dbdyno_engine::StepErrorPolicy;
        let with = |line: &str| {
            toml::from_str::<Profile>(&format!(
                "schema_version = 1\nname = \"x\"\n[plan]\n{line}\n"
            ))
        };
        let p = with("on_step_error = \"continue\"").unwrap();
        assert_eq!(
            p.to_plan().unwrap().on_step_error,
            StepErrorPolicy::Continue
        );
        assert!(p
            .to_options()
            .contains(&("on-step-error", "continue".to_string())));
        let p = with("").unwrap();
        assert_eq!(p.to_plan().unwrap().on_step_error, StepErrorPolicy::Stop);
        let e = with("on_step_error = \"skip\"").unwrap_err();
        assert!(e.to_string().contains("continue"), "{e}");
    }

    #[test]
    fn repeat_key_reaches_the_plan_and_is_checked() {
        let toml = "schema_version = 1\nname = \"x\"\n[plan]\nscenarios = [\"oltp_point_select\"]\nthreads = [1, 2]\nrepeat = 3\n";
        let p: Profile = toml::from_str(toml).unwrap();
        assert_eq!(p.plan.repeat, Some(3));
        assert!(p.to_options().contains(&("repeat", "3".to_string())));
        let mut q = Profile::named("x");
        q.plan.scenarios = Some(vec!["oltp_point_select".into()]);
        q.plan.threads = Some(vec![1, 2]);
        q.set_option("repeat", "3").unwrap();
        assert_eq!(q.to_plan().unwrap(), p.to_plan().unwrap());
        let plan = p.to_plan().unwrap();
        let steps: Vec<_> = plan.steps().collect();
        assert_eq!(steps.len(), 6);
        assert!(steps.iter().all(|s| s.repeat.of == 3));
        assert_eq!(
            steps.iter().map(|s| s.threads).collect::<Vec<_>>(),
            [1, 2, 2, 1, 1, 2],
            "interleaved"
        );
        for bad in [0, 21] {
            q.plan.repeat = Some(bad);
            let problems = q.to_plan().unwrap_err();
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert_eq!(problems[0].field, "plan.repeat");
            assert!(
                problems[0].message.contains("between 1 and 20"),
                "{problems:?}"
            );
            let checked = crate::validate::check(&q);
            assert!(
                checked.iter().any(|c| c.field == "plan.repeat"),
                "{checked:?}"
            );
        }
    }

    #[test]
    fn engine_errors_point_at_the_profile_field() {
        let mut p = Profile::named("x");
        p.workload.table_size = Some(0);
        let e = p.to_plan().unwrap_err();
        assert_eq!(e[0].field, "workload.table_size");
        p.workload.table_size = None;
        p.workload.rand_spec_res = Some(150.0);
        assert_eq!(p.to_plan().unwrap_err()[0].field, "workload.rand_spec_res");
    }

    /// Values the generators or the prewarm gate could not use as given are refused on
    /// their own key, in the ladder and in the sysbench form alike.
    #[test]
    fn knobs_out_of_range_are_refused_on_their_key() {
        type Edit = fn(&mut Profile);
        let cases: [(Edit, &str); 4] = [
            (
                |p| p.workload.rand_zipfian_exp = Some(1.5),
                "workload.rand_zipfian_exp",
            ),
            (
                |p| p.workload.rand_spec_pct = Some(120.0),
                "workload.rand_spec_pct",
            ),
            (
                |p| p.workload.rand_spec_iter = Some(0),
                "workload.rand_spec_iter",
            ),
            (
                |p| p.plan.prewarm_until_hit_rate = Some(101.0),
                "plan.prewarm_until_hit_rate",
            ),
        ];
        for (edit, field) in cases {
            let mut p = Profile::named("x");
            p.plan.prewarm = Some(true);
            edit(&mut p);
            let ladder = p.to_plan().unwrap_err();
            assert_eq!(ladder.len(), 1, "{ladder:?}");
            assert_eq!(ladder[0].field, field);
            let command = if field.starts_with("plan.") {
                SingleCommand::Prewarm
            } else {
                SingleCommand::Run
            };
            let single = p
                .to_single_plan(Scenario::OltpReadOnly, command, 1)
                .unwrap_err();
            assert_eq!(single[0].field, field, "{single:?}");
        }
        let mut p = Profile::named("x");
        p.plan.prewarm = Some(true);
        p.plan.prewarm_until_hit_rate = Some(99.0);
        assert!(p.to_plan().is_ok(), "a reachable gate is fine");
    }

    #[test]
    fn rates_make_one_open_loop_step_per_rate_in_place_of_the_threads() {
        let mut p = Profile::named("x");
        p.plan.scenarios = Some(vec!["oltp_point_select".into()]);
        p.plan.threads = Some(vec![1, 8]);
        p.plan.rates = Some(vec![500, 2000]);
        p.plan.rate_dist = Some(dbdyno_engine::open_loop::RateDist::Poisson);
        let plan = p.to_plan().unwrap();
        let steps: Vec<(u32, f64, _)> = plan
            .steps()
            .map(|s| (s.threads, s.settings.rate, s.settings.rate_dist))
            .collect();
        let poisson = dbdyno_engine::open_loop::RateDist::Poisson;
        assert_eq!(steps, [(25, 500.0, poisson), (100, 2000.0, poisson)]);
        p.plan.sla = Some("p95<=20ms".into());
        p.plan.sla_search = Some(4);
        let refused = p.to_plan().unwrap_err();
        assert!(
            refused.iter().any(|q| q.field == "plan.sla_search"),
            "{refused:?}"
        );
    }

    #[test]
    fn every_engine_problem_and_every_unknown_scenario_is_reported() {
        let mut p = Profile::named("x");
        p.workload.rand_spec_res = Some(150.0);
        p.workload.rand_pareto_h = Some(2.0);
        p.workload.mysql_storage_engine = Some("no such;engine".into());
        p.plan.scenarios = Some(vec!["oltp_read_only".into(), "oltp_nope".into()]);
        p.workload.rand_type = Some("bogus".into());
        let fields: Vec<String> = p
            .to_plan()
            .unwrap_err()
            .into_iter()
            .map(|p| p.field)
            .collect();
        for f in [
            "workload.rand_spec_res",
            "workload.rand_pareto_h",
            "workload.mysql_storage_engine",
            "plan.scenarios[1]",
            "workload.rand_type",
        ] {
            assert!(fields.contains(&f.to_string()), "{f} in {fields:?}");
        }
    }

    /// `sla` and `sla-search` reach the plan as its SLA phase; the steps record the
    /// target's percentile each second unless `percentile` is set; bad values are
    /// refused on their keys.
    #[test]
    fn sla_keys_reach_the_plan_and_are_checked() {
        let mut p = Profile::named("x");
        p.plan.threads = Some(vec![1, 8]);
        p.set_option("sla", "p99<=5ms").unwrap();
        p.set_option("sla-search", "3").unwrap();
        let plan = p.to_plan().unwrap();
        let sla = plan.sla().unwrap();
        assert_eq!(sla.target.to_string(), "p99<=5ms");
        assert_eq!(sla.search_steps, 3);
        assert!(plan.steps().all(|s| s.settings.percentile == 99.0));
        p.plan.percentile = Some(95.0);
        assert!(p
            .to_plan()
            .unwrap()
            .steps()
            .all(|s| s.settings.percentile == 95.0));
        let fields = |p: &Profile| -> Vec<(String, String)> {
            crate::validate::check(p)
                .into_iter()
                .map(|q| (q.field, q.message))
                .collect()
        };
        p.plan.sla = Some("p95<20ms".into());
        let f = fields(&p);
        assert!(
            f.iter()
                .any(|(k, m)| k == "plan.sla" && m.contains("p95<=20ms")),
            "{f:?}"
        );
        p.plan.sla = None;
        let f = fields(&p);
        assert!(
            f.iter()
                .any(|(k, m)| k == "plan.sla_search" && m.contains("--sla")),
            "{f:?}"
        );
        p.plan.sla = Some("p95<=20ms".into());
        p.plan.sla_search = Some(99);
        assert!(fields(&p).iter().any(|(k, _)| k == "plan.sla_search"));
        p.plan.sla_search = None;
        assert!(fields(&p).is_empty(), "{:?}", fields(&p));
    }
}
