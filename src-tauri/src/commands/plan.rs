//! Plan screen: the ladder form with the profile's defaults, and a preview of what it
//! will do (phases, total time, dataset estimate against buffer pool and free disk),
//! all computed by the engine and checks crates.

use dbdyno_checks::checks::dataset::{disk_fit, estimate_bytes, human_bytes, regime};
use dbdyno_checks::sql::binlog_on;
use dbdyno_checks::EnvironmentSnapshot;
use dbdyno_engine::runner::phase_label;
use dbdyno_engine::{Phase, Plan, PrepareMode, Scenario};
use serde::{Deserialize, Serialize};
use tauri::State;

use super::load_form::{search_max_seconds, LoadKnobs};
use super::plan_clients::{self, ClientSplit};
use super::workload_form::{DatasetFields, RandChoice, RandDistribution, WorkloadKnobs};
use crate::error::{blocking, problems, AppResult};
use crate::resolve;
use crate::state::AppState;

/// What the Plan screen edits. Everything else comes from the environment's profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct PlanForm {
    pub scenarios: Vec<String>,
    /// The thread ladder.
    pub threads: Vec<u32>,
    /// Seconds measured per step.
    pub time_s: u32,
    pub warmup_s: u32,
    /// Pause between steps.
    pub cooldown_s: u32,
    /// Seconds the server may answer no connection before a step fails
    /// (`--stall-timeout`).
    pub stall_timeout_s: u32,
    /// Runs of every step (1 to 20), interleaved; 3 or more give intervals that hold
    /// run-to-run variation.
    pub repeat: u32,
    pub tables: u32,
    /// Rows per table.
    pub table_size: u32,
    /// What prepare does with the tables it finds (if-missing reuses DB Dyno's own).
    pub prepare: PrepareChoice,
    pub prewarm: bool,
    /// Prewarm's gate: repeat the scans until one pass hits the buffer pool at least
    /// this often (percent); None: one pass.
    pub prewarm_until_hit_rate: Option<f64>,
    pub cleanup: bool,
    /// The row distribution and the transaction mix.
    pub workload: WorkloadKnobs,
    /// The latency target and its capacity search; the rate ladder.
    pub load: LoadKnobs,
    /// The load clients that take part (`local`, `ssh://` URLs), in the order the
    /// threads are handed out.
    pub clients: Vec<String>,
    /// Serve the run's live figures to Prometheus at this loopback HOST:PORT
    /// (`--metrics-addr`); None or empty: not served.
    pub metrics_addr: Option<String>,
}

/// The plan's prepare mode as the form holds it ([`PrepareMode`]'s values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum PrepareChoice {
    /// Reuse DB Dyno's own tables in the plan's shape; load them when absent.
    IfMissing,
    /// Drop DB Dyno's own tables and load them again.
    Always,
    /// No prepare: read the tables as they are.
    Never,
    /// Continue a prepare that was cut short: keep the complete tables, load the rest.
    Resume,
}

impl From<PrepareMode> for PrepareChoice {
    fn from(m: PrepareMode) -> PrepareChoice {
        match m {
            PrepareMode::IfMissing => PrepareChoice::IfMissing,
            PrepareMode::Always => PrepareChoice::Always,
            PrepareMode::Never => PrepareChoice::Never,
            PrepareMode::Resume => PrepareChoice::Resume,
        }
    }
}

impl From<PrepareChoice> for PrepareMode {
    fn from(c: PrepareChoice) -> PrepareMode {
        match c {
            PrepareChoice::IfMissing => PrepareMode::IfMissing,
            PrepareChoice::Always => PrepareMode::Always,
            PrepareChoice::Never => PrepareMode::Never,
            PrepareChoice::Resume => PrepareMode::Resume,
        }
    }
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PlanSetup {
    pub form: PlanForm,
    /// Every scenario the engine runs, in its order.
    pub scenarios_available: Vec<String>,
    /// Every row distribution, with the parameters each one reads.
    pub rand_types: Vec<RandChoice>,
    /// Every load client of the environment: `local`, then its `[[clients]]`.
    pub clients_available: Vec<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PhaseRow {
    pub label: String,
    /// Planned seconds; None when the server decides (prepare, prewarm, cleanup).
    pub seconds: Option<u32>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct DatasetEstimate {
    pub bytes: f64,
    pub human: String,
    /// From the last checks of this environment, when they ran.
    pub buffer_pool_bytes: Option<f64>,
    pub buffer_pool_human: Option<String>,
    /// Dataset / buffer pool, and what that ratio makes the test measure.
    pub ratio: Option<f64>,
    pub regime: Option<String>,
    pub free_disk_bytes: Option<f64>,
    pub free_disk_human: Option<String>,
    /// False when the data (with room for growth) does not fit the free space.
    pub fits_disk: Option<bool>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PlanPreview {
    pub phases: Vec<PhaseRow>,
    pub steps: u32,
    /// Seconds of the measured steps (every repeat), warm-ups and cool-downs.
    pub total_seconds: u32,
    /// The most the capacity search may add after the ladder (its extra steps per
    /// scenario × a step's time); 0 without a search.
    pub search_max_seconds: u32,
    /// True when a rate ladder replaces the thread ladder: one open-loop step per rate.
    pub rate_ladder: bool,
    /// True when prepare or prewarm add time the plan cannot know in advance.
    pub open_ended: bool,
    pub peak_connections: u32,
    pub peak_prepared_statements: f64,
    pub dataset: DatasetEstimate,
    /// The Data panel's fields the chosen scenarios read (tables × rows, warehouses).
    pub dataset_fields: DatasetFields,
    /// Each thread count's share per load client; None when this machine runs alone.
    pub client_split: Option<ClientSplit>,
}

impl PlanForm {
    /// The form as the profile (and so the engine's defaults) fills it.
    pub fn from_profile(p: &dbdyno_profile::Profile) -> AppResult<PlanForm> {
        let spec = p.ladder_spec().map_err(|l| crate::error::problems(&l))?;
        let w = p
            .workload_options()
            .map_err(|l| crate::error::problems(&l))?;
        Ok(PlanForm {
            scenarios: spec
                .scenarios
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
            threads: spec.threads.clone(),
            time_s: spec.settings.time_s as u32,
            warmup_s: spec.settings.warmup_s as u32,
            cooldown_s: spec.cooldown_s as u32,
            stall_timeout_s: spec.settings.stall_timeout_s.min(u32::MAX as u64) as u32,
            repeat: spec.repeat,
            tables: w.tables,
            table_size: w.table_size.min(u32::MAX as u64) as u32,
            prepare: spec.prepare.into(),
            prewarm: spec.prewarm,
            prewarm_until_hit_rate: spec.prewarm_until_hit_rate,
            cleanup: spec.cleanup,
            workload: WorkloadKnobs::of(&w),
            load: LoadKnobs::of(p, &spec),
            clients: plan_clients::taking_part(p),
            metrics_addr: None,
        })
    }
}

/// The profile with the plan form's choices applied.
pub fn with_form(p: &dbdyno_profile::Profile, form: &PlanForm) -> dbdyno_profile::Profile {
    let mut p = p.clone();
    p.plan.scenarios = Some(form.scenarios.clone());
    p.plan.threads = Some(form.threads.clone());
    p.plan.time = Some(form.time_s as u64);
    p.plan.warmup = Some(form.warmup_s as u64);
    p.plan.cooldown = Some(form.cooldown_s as u64);
    p.plan.stall_timeout = Some(form.stall_timeout_s as u64);
    p.plan.repeat = Some(form.repeat);
    p.plan.prepare = Some(form.prepare.into());
    p.plan.prewarm = Some(form.prewarm);
    p.plan.prewarm_until_hit_rate = form.prewarm_until_hit_rate;
    p.plan.cleanup = Some(form.cleanup);
    form.workload.apply(&mut p);
    form.load.apply(&mut p);
    plan_clients::apply(&mut p, &form.clients);
    p.workload.tables = Some(form.tables);
    p.workload.table_size = Some(form.table_size as u64);
    p
}

/// The validated plan, without the password (previews, checks of the plan's shape).
pub fn plan_without_secret(p: &dbdyno_profile::Profile, form: &PlanForm) -> AppResult<Plan> {
    with_form(p, form).to_plan().map_err(|list| problems(&list))
}

/// The validated plan with the password, ready to run or check.
pub fn plan(p: &dbdyno_profile::Profile, form: &PlanForm) -> AppResult<Plan> {
    let mut plan = plan_without_secret(p, form)?;
    plan.connect.password = resolve::mysql_password(p)?;
    Ok(plan)
}

#[tauri::command]
#[specta::specta]
pub async fn plan_defaults(env: String) -> AppResult<PlanSetup> {
    blocking(move || {
        let p = resolve::load_profile(&env)?;
        Ok(PlanSetup {
            form: PlanForm::from_profile(&p)?,
            scenarios_available: Scenario::ALL.iter().map(|s| s.name().to_string()).collect(),
            rand_types: RandDistribution::choices(),
            clients_available: plan_clients::available(&p),
        })
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn plan_preview(
    state: State<'_, AppState>,
    env: String,
    form: PlanForm,
) -> AppResult<PlanPreview> {
    let cached = state.last_checks.lock().ok().and_then(|c| {
        c.as_ref()
            .filter(|c| c.env == env)
            .map(|c| c.report.environment.clone())
    });
    blocking(move || {
        let p = resolve::load_profile(&env)?;
        let plan = plan_without_secret(&p, &form)?;
        let phases = plan
            .phases
            .iter()
            .map(|ph| PhaseRow {
                label: phase_label(ph),
                seconds: match ph {
                    Phase::Step(s) => Some((s.settings.time_s + s.settings.warmup_s) as u32),
                    Phase::Cooldown { seconds } => Some(*seconds as u32),
                    _ => None,
                },
            })
            .collect();
        let bytes = estimate_bytes(&plan);
        let bp = cached
            .as_ref()
            .and_then(|e| e.variables.get("innodb_buffer_pool_size"))
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|b| *b > 0);
        let free = free_disk(cached.as_ref());
        let ratio = bp.map(|b| bytes as f64 / b as f64);
        Ok(PlanPreview {
            phases,
            steps: plan.steps().count() as u32,
            total_seconds: plan.estimated_seconds() as u32,
            search_max_seconds: search_max_seconds(&plan) as u32,
            rate_ladder: !form.load.rates.is_empty(),
            open_ended: plan
                .phases
                .iter()
                .any(|p| matches!(p, Phase::Prepare { .. } | Phase::Prewarm(_))),
            peak_connections: plan.peak_connections(),
            peak_prepared_statements: plan.peak_prepared_statements() as f64,
            dataset: DatasetEstimate {
                bytes: bytes as f64,
                human: human_bytes(bytes),
                buffer_pool_bytes: bp.map(|b| b as f64),
                buffer_pool_human: bp.map(human_bytes),
                ratio,
                regime: ratio.map(|r| regime(r).to_string()),
                free_disk_bytes: free.map(|f| f as f64),
                free_disk_human: free.map(human_bytes),
                fits_disk: fits_disk(&plan, cached.as_ref()),
            },
            dataset_fields: DatasetFields::of(&form.scenarios),
            client_split: plan_clients::split(&with_form(&p, &form), &form.threads),
        })
    })
    .await
}

/// Free space on the data directory's filesystem, as the last checks saw it.
fn free_disk(env: Option<&EnvironmentSnapshot>) -> Option<u64> {
    env?.data_disks
        .first()?
        .filesystem
        .as_ref()
        .map(|f| f.avail_bytes)
}

/// The check's own disk-fit verdict ([`disk_fit`]) on the free space and the binary
/// log the last checks saw; `None` when they saw no free space or the plan loads no data.
fn fits_disk(plan: &Plan, env: Option<&EnvironmentSnapshot>) -> Option<bool> {
    let env = env?;
    let fit = disk_fit(plan, binlog_on(&env.variables), free_disk(Some(env))?)?;
    Some(fit.fits())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use dbdyno_checks::checks::dataset;
    use dbdyno_checks::os_facts::{FsSpace, OsFacts};
    use dbdyno_checks::probe::{AccessKind, ClientFacts, Facts, HostFacts, MysqlFacts, RoleDisk};
    use dbdyno_checks::sql::ServerVersion;
    use dbdyno_checks::CheckStatus;
    use dbdyno_engine::{LadderSpec, WorkloadOptions};
    use dbdyno_monitor::DataDisk;

    use super::*;
    use crate::commands::load_form::ArrivalSpacing;

    /// A server on this machine whose data directory's filesystem has `free` bytes
    /// available, with the binary log as `log_bin` says.
    fn facts(free: u64, log_bin: &str) -> Facts {
        let variables: BTreeMap<String, String> = [
            ("datadir", "/var/lib/mysql/"),
            ("log_bin", log_bin),
            ("version", "10.11.19-MariaDB"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let mysql = MysqlFacts {
            current_user: "sbtest@localhost".into(),
            version: ServerVersion::parse("10.11.19-MariaDB", ""),
            variables,
            status: Default::default(),
            privileges: Default::default(),
            schema_exists: true,
            tables: BTreeMap::new(),
            benchmark_bytes: 0,
            benchmark_rows: 0,
            oltp_tables: None,
            tpcc_tables: None,
            clock: None,
            round_trip: None,
            connect_ms: 1.0,
        };
        let os = OsFacts {
            filesystems: vec![FsSpace {
                path: "/var/lib/mysql".into(),
                mount_point: "/".into(),
                total_bytes: free * 4,
                avail_bytes: free,
            }],
            ..Default::default()
        };
        let host = HostFacts {
            access: "this machine (/proc)".into(),
            kind: AccessKind::Local,
            none_why: None,
            ssh: None,
            os: Some(os),
            os_error: None,
            data_disks: vec![RoleDisk {
                role: "data directory".into(),
                disk: DataDisk {
                    path: "/var/lib/mysql".into(),
                    mount_point: "/".into(),
                    fs_type: "ext4".into(),
                    source: "/dev/vda1".into(),
                    devices: vec!["vda".into()],
                    chain: Vec::new(),
                    overridden: false,
                },
            }],
            disk_error: None,
            device_error: None,
            device_warnings: Vec::new(),
            clock: None,
        };
        Facts {
            endpoint: "127.0.0.1:3306".into(),
            user: "sbtest".into(),
            schema: "sbtest".into(),
            mysql: Ok(mysql),
            host,
            client: ClientFacts {
                hostname: None,
                cores: 2,
                boot_id: None,
            },
            taken_unix_ms: 0,
        }
    }

    fn plan(prepare: bool) -> Plan {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpReadWrite],
            threads: vec![8],
            prepare: prepare.into(),
            ..Default::default()
        };
        Plan {
            connect: Default::default(),
            workload: WorkloadOptions {
                tables: 10,
                table_size: 1_000_000,
                ..Default::default()
            },
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        }
    }

    /// The Plan screen says the data fits exactly when the free-space check passes, on
    /// the same facts, with the binary log on and off.
    #[test]
    fn the_preview_and_the_check_agree_on_the_disk_fit() {
        let p = plan(true);
        let data = estimate_bytes(&p);
        // Below the data; between 1× and 1.5×; between 1.5× and 2.5× (room enough
        // only without the binary log); above 2.5×.
        for free in [data / 2, data * 5 / 4, data * 2, data * 3] {
            for log_bin in ["OFF", "ON"] {
                let f = facts(free, log_bin);
                let check = dataset::checks(&f, &p)
                    .into_iter()
                    .find(|c| c.id == "dataset.free_space")
                    .expect("the free-space check");
                let preview = fits_disk(&p, Some(&EnvironmentSnapshot::from_facts(&f)));
                assert_eq!(
                    preview,
                    Some(check.status == CheckStatus::Pass),
                    "free {free}, log_bin {log_bin}: {}",
                    check.seen
                );
            }
        }
        let f = facts(data * 2, "ON");
        let env = EnvironmentSnapshot::from_facts(&f);
        assert_eq!(
            fits_disk(&p, Some(&env)),
            Some(false),
            "the binary log's copy counts"
        );
        assert_eq!(
            fits_disk(&plan(false), Some(&env)),
            None,
            "no prepare, nothing to fit"
        );
        assert_eq!(fits_disk(&p, None), None, "no checks yet");
    }

    /// One road to a plan: every shipped profile, with the same choices made on the
    /// command line and on the Plan screen, gives the same plan. The choices are the
    /// form's fields; each case changes some and leaves the rest as the profile says.
    #[test]
    fn the_command_line_and_the_plan_screen_make_the_same_plan() {
        type Edit = fn(&mut PlanForm);
        let cases: [(&[&str], Edit); 11] = [
            (&[], |_| {}),
            (&["--stall-timeout=5"], |f| f.stall_timeout_s = 5),
            (&["--repeat=3"], |f| f.repeat = 3),
            (&["--threads=2,4"], |f| f.threads = vec![2, 4]),
            (&["--ladder=3"], |f| f.threads = vec![3]),
            (
                &["--scenarios=oltp_read_only,oltp_write_only", "--time=5"],
                |f| {
                    f.scenarios = vec!["oltp_read_only".into(), "oltp_write_only".into()];
                    f.time_s = 5;
                },
            ),
            (&["--prepare=on", "--prewarm", "--cleanup=on"], |f| {
                (f.prepare, f.prewarm, f.cleanup) = (PrepareChoice::IfMissing, true, true)
            }),
            (&["--prepare=off", "--cleanup=off"], |f| {
                (f.prepare, f.cleanup) = (PrepareChoice::Never, false)
            }),
            (&["--prepare"], |f| f.prepare = PrepareChoice::IfMissing),
            (&["--prepare=always"], |f| f.prepare = PrepareChoice::Always),
            (
                &[
                    "--tables=3",
                    "--table-size=500",
                    "--warmup=2",
                    "--cooldown=1",
                ],
                |f| (f.tables, f.table_size, f.warmup_s, f.cooldown_s) = (3, 500, 2, 1),
            ),
        ];
        let examples: Vec<String> = dbdyno_profile::list_profiles()
            .unwrap()
            .into_iter()
            .filter(|e| e.origin == dbdyno_profile::ProfileOrigin::Example)
            .map(|e| e.name)
            .collect();
        assert!(examples.len() >= 3, "{examples:?}");
        for name in &examples {
            let p = resolve::load_profile(name).unwrap();
            let shown = PlanForm::from_profile(&p).unwrap();
            for (flags, edit) in &cases {
                let mut form = shown.clone();
                edit(&mut form);
                let on_screen = plan_without_secret(&p, &form).unwrap();
                let profile = format!("--profile={name}");
                let argv: Vec<&str> = std::iter::once(profile.as_str())
                    .chain(flags.iter().copied())
                    .collect();
                let typed = dbdyno_cli::ladder_plan_of(&argv).unwrap();
                assert_eq!(typed, on_screen, "{name} {flags:?}");
            }
        }
    }

    /// The preview's total time counts every repeat of every step.
    #[test]
    fn the_total_time_counts_the_repeats() {
        let p = resolve::load_profile("local-sandbox").unwrap();
        let mut form = PlanForm::from_profile(&p).unwrap();
        (form.threads, form.time_s, form.warmup_s, form.cooldown_s) = (vec![1, 2], 5, 1, 0);
        form.scenarios = vec!["oltp_point_select".into()];
        let once = plan_without_secret(&p, &form).unwrap().estimated_seconds();
        form.repeat = 3;
        let thrice = plan_without_secret(&p, &form).unwrap().estimated_seconds();
        assert_eq!(once, 2 * 6);
        assert_eq!(thrice, 3 * once);
    }

    /// The shipped example profiles' names.
    fn example_profiles() -> Vec<String> {
        let examples: Vec<String> = dbdyno_profile::list_profiles()
            .unwrap()
            .into_iter()
            .filter(|e| e.origin == dbdyno_profile::ProfileOrigin::Example)
            .map(|e| e.name)
            .collect();
        assert!(examples.len() >= 3, "{examples:?}");
        examples
    }

    /// The plan `flags` make on the command line over profile `name`, or its refusal.
    fn typed_plan(name: &str, flags: &[&str]) -> Result<Plan, String> {
        let profile = format!("--profile={name}");
        let argv: Vec<&str> = std::iter::once(profile.as_str())
            .chain(flags.iter().copied())
            .collect();
        dbdyno_cli::ladder_plan_of(&argv).map_err(|e| e.to_string())
    }

    /// The same for the knobs that were the command line's alone: the row distribution
    /// with each one's parameters, every count of the transaction mix, and prewarm's
    /// hit-rate gate. Each case changes the plan of at least one example.
    #[test]
    fn the_plan_screen_sets_the_workload_knobs_as_the_command_line_does() {
        type Edit = fn(&mut PlanForm);
        let cases: [(&[&str], Edit); 11] = [
            (&["--rand-type=zipfian"], |f| {
                f.workload.rand_type = RandDistribution::Zipfian
            }),
            (&["--rand-type=zipfian", "--rand-zipfian-exp=0.5"], |f| {
                f.workload.rand_type = RandDistribution::Zipfian;
                f.workload.rand_zipfian_exp = 0.5;
            }),
            (&["--rand-type=uniform"], |f| {
                f.workload.rand_type = RandDistribution::Uniform
            }),
            (&["--rand-type=gaussian", "--rand-spec-iter=4"], |f| {
                f.workload.rand_type = RandDistribution::Gaussian;
                f.workload.rand_spec_iter = 4;
            }),
            (&["--rand-spec-pct=5", "--rand-spec-res=50"], |f| {
                (f.workload.rand_spec_pct, f.workload.rand_spec_res) = (5.0, 50.0)
            }),
            (&["--rand-type=pareto", "--rand-pareto-h=0.3"], |f| {
                f.workload.rand_type = RandDistribution::Pareto;
                f.workload.rand_pareto_h = 0.3;
            }),
            (
                &[
                    "--point-selects=5",
                    "--simple-ranges=0",
                    "--sum-ranges=2",
                    "--order-ranges=3",
                    "--distinct-ranges=4",
                ],
                |f| {
                    let w = &mut f.workload;
                    (w.point_selects, w.simple_ranges, w.sum_ranges) = (5, 0, 2);
                    (w.order_ranges, w.distinct_ranges) = (3, 4);
                },
            ),
            (
                &[
                    "--index-updates=2",
                    "--non-index-updates=3",
                    "--delete-inserts=0",
                    "--range-size=50",
                    "--skip-trx=on",
                ],
                |f| {
                    let w = &mut f.workload;
                    (w.index_updates, w.non_index_updates, w.delete_inserts) = (2, 3, 0);
                    (w.range_size, w.skip_trx) = (50, true);
                },
            ),
            (&["--prewarm", "--prewarm-until-hit-rate=99"], |f| {
                f.prewarm = true;
                f.prewarm_until_hit_rate = Some(99.0);
            }),
            (&["--sla=p95<=20ms", "--sla-search=3"], |f| {
                f.load.sla = "p95<=20ms".into();
                f.load.sla_search = 3;
            }),
            (&["--rates=100,200", "--rate-dist=poisson"], |f| {
                f.load.rates = vec![100, 200];
                f.load.rate_dist = ArrivalSpacing::Poisson;
            }),
        ];
        let mut changed = [false; 11];
        for name in &example_profiles() {
            let p = resolve::load_profile(name).unwrap();
            let shown = PlanForm::from_profile(&p).unwrap();
            let before = plan_without_secret(&p, &shown).unwrap();
            for (i, (flags, edit)) in cases.iter().enumerate() {
                let mut form = shown.clone();
                edit(&mut form);
                let on_screen = plan_without_secret(&p, &form).unwrap();
                changed[i] |= on_screen != before;
                let typed = typed_plan(name, flags).unwrap();
                assert_eq!(typed, on_screen, "{name} {flags:?}");
            }
        }
        for (i, (flags, _)) in cases.iter().enumerate() {
            assert!(changed[i], "{flags:?} changes no example's plan");
        }
    }

    /// A value the engine cannot use is refused on both roads, and the form's message
    /// names the field it is about.
    #[test]
    fn the_plan_screen_refuses_what_the_command_line_refuses() {
        type Edit = fn(&mut PlanForm);
        let cases: [(&[&str], Edit, &str); 7] = [
            (
                &["--sla=p95<20ms"],
                |f| f.load.sla = "p95<20ms".into(),
                "plan.sla",
            ),
            (
                &["--sla-search=2"],
                |f| f.load.sla_search = 2,
                "plan.sla_search",
            ),
            (
                &["--rand-zipfian-exp=1.5"],
                |f| f.workload.rand_zipfian_exp = 1.5,
                "workload.rand_zipfian_exp",
            ),
            (
                &["--rand-pareto-h=0"],
                |f| f.workload.rand_pareto_h = 0.0,
                "workload.rand_pareto_h",
            ),
            (
                &["--rand-spec-pct=101"],
                |f| f.workload.rand_spec_pct = 101.0,
                "workload.rand_spec_pct",
            ),
            (
                &["--range-size=0"],
                |f| f.workload.range_size = 0,
                "workload.range_size",
            ),
            (
                &["--prewarm", "--prewarm-until-hit-rate=120"],
                |f| (f.prewarm, f.prewarm_until_hit_rate) = (true, Some(120.0)),
                "plan.prewarm_until_hit_rate",
            ),
        ];
        let name = "local-sandbox";
        let p = resolve::load_profile(name).unwrap();
        let shown = PlanForm::from_profile(&p).unwrap();
        for (flags, edit, field) in cases {
            let mut form = shown.clone();
            edit(&mut form);
            let refused = plan_without_secret(&p, &form).unwrap_err();
            assert!(
                refused.message.contains(&format!("{field}: ")),
                "{flags:?}: {}",
                refused.message
            );
            assert!(typed_plan(name, flags).is_err(), "{flags:?} accepted");
        }
    }
}
