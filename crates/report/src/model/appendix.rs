//! What it takes to reproduce each run: versions, dates, the command line as recorded,
//! the settings read from the stored plan, and a `dbdyno ladder` command rebuilt from
//! that plan (no password: it comes from MYSQL_PWD or the prompt).
//!
//! The plan is the engine's own type (a run whose stored plan this version cannot read
//! has none, and its appendix says only what was recorded).

use std::collections::BTreeMap;

use dbdyno_engine::open_loop::RateDist;
use dbdyno_engine::{ConnectOptions, Phase, Plan, RunSettings, WorkloadOptions};
use dbdyno_mysql::TlsMode;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::format;
use crate::input::ReportRun;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppendixRun {
    pub run_id: String,
    pub name: String,
    pub state: Option<String>,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub tool_version: Option<String>,
    /// The command as recorded with the run.
    pub command_line: Option<String>,
    /// A `dbdyno ladder` command rebuilt from the plan, when the plan is a ladder.
    pub reproduce: Option<String>,
    /// (setting, value) pairs read from the plan.
    pub settings: Vec<(String, String)>,
    pub labels: BTreeMap<String, String>,
    /// The stored plan, pretty-printed.
    pub plan_json: String,
    /// Each load client's share of each step run from several clients; empty for a
    /// run from one machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<super::load_clients::ClientShare>,
}

pub fn for_run(r: &ReportRun) -> AppendixRun {
    AppendixRun {
        run_id: r.id.clone(),
        name: r.label().to_string(),
        state: r.state.clone(),
        started_at: r.started_at,
        finished_at: r.finished_at,
        tool_version: r.tool_version.clone(),
        command_line: r.command_line.clone(),
        reproduce: r.plan.as_ref().and_then(reproduce),
        settings: r.plan.as_ref().map(settings).unwrap_or_default(),
        labels: r.labels.clone(),
        // Keys sorted (through a JSON value), as the stored plan always showed them.
        plan_json: serde_json::to_value(&r.plan)
            .and_then(|v| serde_json::to_string_pretty(&v))
            .unwrap_or_default(),
        clients: super::load_clients::shares(r),
    }
}

/// The measured steps of a plan: (scenario, threads, settings).
fn steps(plan: &Plan) -> Vec<(&'static str, u64, &RunSettings)> {
    plan.steps()
        .map(|s| (s.scenario.name(), s.threads as u64, &s.settings))
        .collect()
}

/// Whether the plan has a phase of this kind.
fn has_phase(plan: &Plan, kind: &str) -> bool {
    plan.phases.iter().any(|p| phase_kind(p) == kind)
}

fn phase_kind(p: &Phase) -> &'static str {
    match p {
        Phase::Prepare { .. } => "prepare",
        Phase::Prewarm(_) => "prewarm",
        Phase::Step(_) => "step",
        Phase::Cooldown { .. } => "cooldown",
        Phase::Cleanup { .. } => "cleanup",
        Phase::Sla(_) => "sla",
    }
}

fn cooldown_s(plan: &Plan) -> Option<u64> {
    plan.phases.iter().find_map(|p| match p {
        Phase::Cooldown { seconds } => Some(*seconds),
        _ => None,
    })
}

/// Distinct values in first-seen order.
fn distinct<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

pub fn settings(plan: &Plan) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut add = |k: &str, v: String| out.push((k.to_string(), v));
    let c = &plan.connect;
    let endpoint = match &c.socket {
        Some(s) => format!("socket {s}"),
        None => format!("{}:{}", c.host, c.port),
    };
    add("Server", endpoint);
    add("Database", c.database.clone());
    add("User", c.user.clone());
    add("TLS", c.tls.name().to_string());
    let st = steps(plan);
    if let Some(&(_, _, first)) = st.first() {
        add("Scenarios", distinct(st.iter().map(|s| s.0)).join(", "));
        add(
            "Thread counts",
            distinct(st.iter().map(|s| s.1))
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        );
        add("Measured steps", st.len().to_string());
        add("Seconds per step", format!("{}", first.time_s));
        if first.warmup_s > 0 {
            add("Warm-up per step", format!("{} s", first.warmup_s));
        }
        if first.events > 0 {
            add("Events per step", format!("{}", first.events));
        }
        if first.rate > 0.0 {
            add("Rate", format!("{} TPS", first.rate));
        }
        add("Report interval", format!("{} s", first.report_interval_s));
        add("Percentile", format!("{}", first.percentile));
    }
    if let Some(d) = super::environment::dataset_words(Some(plan)) {
        add("Dataset", d);
    }
    for (k, v) in workload_diffs(&plan.workload) {
        if k != "tables" && k != "table_size" {
            add(&k, v);
        }
    }
    for p in ["prepare", "prewarm", "cleanup"] {
        if has_phase(plan, p) {
            add("Phase", p.to_string());
        }
    }
    if let Some(c) = cooldown_s(plan) {
        add("Cool-down between steps", format!("{c} s"));
    }
    out
}

/// Workload options that differ from sysbench's defaults, as (option name, value): the
/// options compared field by field in their serialized form, so that every option is
/// listed without a list here.
fn workload_diffs(w: &WorkloadOptions) -> Vec<(String, String)> {
    let as_map = |w: &WorkloadOptions| match serde_json::to_value(w) {
        Ok(Value::Object(map)) => map,
        _ => Default::default(),
    };
    let (have, defaults) = (as_map(w), as_map(&WorkloadOptions::default()));
    let mut out = Vec::new();
    for (k, v) in &have {
        match (v, defaults.get(k)) {
            (Value::Object(r), Some(Value::Object(dr))) if k == "rand" => {
                for (rk, rv) in r {
                    if dr.get(rk) != Some(rv) {
                        let name = if rk == "rand_type" {
                            rk.clone()
                        } else {
                            format!("rand_{rk}")
                        };
                        out.push((name, scalar(rv)));
                    }
                }
            }
            (v, d) if d != Some(v) => out.push((k.clone(), scalar(v))),
            _ => {}
        }
    }
    out
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Bool(true) => "on".into(),
        Value::Bool(false) => "off".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

/// A `dbdyno ladder` command that runs the same plan, or `None` when the plan is not a
/// ladder (steps with different settings, or not every scenario at every thread count).
pub fn reproduce(plan: &Plan) -> Option<String> {
    let st = steps(plan);
    let (scenarios, (axis, values), first) = match ladder(&st) {
        Some((scenarios, threads, first)) => {
            let threads: Vec<String> = threads.iter().map(u64::to_string).collect();
            (scenarios, ("ladder", threads.join(",")), first.clone())
        }
        None => rate_ladder(&st)?,
    };
    let mut cmd = Command(vec!["dbdyno".into(), "ladder".into()]);
    connect_options(&mut cmd, &plan.connect);
    workload_options(&mut cmd, &plan.workload);
    cmd.opt("scenarios", scenarios.join(","));
    cmd.opt(axis, values);
    step_options(&mut cmd, &first);
    phase_options(&mut cmd, plan);
    Some(cmd.0.join(" "))
}

type Steps<'a> = [(&'static str, u64, &'a RunSettings)];

/// The scenarios, thread counts and shared step settings of a plan whose steps are every
/// scenario at every thread count with the same settings; `None` otherwise.
fn ladder<'a>(st: &Steps<'a>) -> Option<(Vec<&'static str>, Vec<u64>, &'a RunSettings)> {
    let first = st.first()?.2;
    if st.iter().any(|s| s.2 != first) {
        return None;
    }
    let scenarios = distinct(st.iter().map(|s| s.0));
    let threads = distinct(st.iter().map(|s| s.1));
    let grid: Vec<(&str, u64)> = scenarios
        .iter()
        .flat_map(|s| threads.iter().map(move |t| (*s, *t)))
        .collect();
    if grid != st.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>() {
        return None;
    }
    Some((scenarios, threads, first))
}

/// A rate ladder (`--rates`): every scenario at every rate, the steps' settings equal
/// but for their `rate` (their connections follow from it). Returns the scenarios,
/// `("rates", "500,1000")` and the shared settings without the rate.
type RateLadder = (Vec<&'static str>, (&'static str, String), RunSettings);

fn rate_ladder(st: &Steps) -> Option<RateLadder> {
    let without_rate = |s: &RunSettings| RunSettings {
        rate: 0.0,
        ..s.clone()
    };
    let first = without_rate(st.first()?.2);
    if st
        .iter()
        .any(|s| without_rate(s.2) != first || s.2.rate <= 0.0 || s.2.rate.fract() != 0.0)
    {
        return None;
    }
    let scenarios = distinct(st.iter().map(|s| s.0));
    let rates = distinct(st.iter().map(|s| s.2.rate as u64));
    let grid: Vec<(&str, u64)> = scenarios
        .iter()
        .flat_map(|s| rates.iter().map(move |r| (*s, *r)))
        .collect();
    if grid
        != st
            .iter()
            .map(|s| (s.0, s.2.rate as u64))
            .collect::<Vec<_>>()
    {
        return None;
    }
    let rates: Vec<String> = rates.iter().map(u64::to_string).collect();
    Some((scenarios, ("rates", rates.join(",")), first))
}

/// The words of a command line being built.
struct Command(Vec<String>);

impl Command {
    /// `--name=value`, the value quoted for a shell when it needs to be.
    fn opt(&mut self, name: &str, value: String) {
        self.0.push(format!("--{name}={}", quote(&value)));
    }
}

/// Where to connect and as whom; never the password.
fn connect_options(cmd: &mut Command, c: &ConnectOptions) {
    if let Some(s) = &c.socket {
        cmd.opt("mysql-socket", s.clone());
    } else {
        cmd.opt("mysql-host", c.host.clone());
        if c.port != 3306 {
            cmd.opt("mysql-port", c.port.to_string());
        }
    }
    cmd.opt("mysql-user", c.user.clone());
    cmd.opt("mysql-db", c.database.clone());
    if c.tls != TlsMode::Disabled {
        cmd.opt("mysql-ssl-mode", c.tls.name().into());
    }
}

/// The dataset's size, then every workload option that differs from sysbench's default.
fn workload_options(cmd: &mut Command, w: &WorkloadOptions) {
    cmd.opt("tables", w.tables.to_string());
    cmd.opt("table-size", w.table_size.to_string());
    for (k, v) in workload_diffs(w) {
        if k == "tables" || k == "table_size" {
            continue;
        }
        let name = match k.as_str() {
            "ps_mode" => "db-ps-mode".to_string(),
            "ignore_errors" => "mysql-ignore-errors".to_string(),
            other => other.replace('_', "-"),
        };
        cmd.opt(&name, v);
    }
}

/// The settings every step shares; optional ones only when set.
fn step_options(cmd: &mut Command, first: &RunSettings) {
    cmd.opt("time", first.time_s.to_string());
    cmd.opt("report-interval", first.report_interval_s.to_string());
    if first.warmup_s > 0 {
        cmd.opt("warmup", first.warmup_s.to_string());
    }
    if first.events > 0 {
        cmd.opt("events", first.events.to_string());
    }
    if first.rate > 0.0 {
        cmd.opt("rate", format!("{}", first.rate));
    }
    if first.rate_dist == RateDist::Poisson {
        cmd.opt("rate-dist", "poisson".to_string());
    }
    if (first.percentile - 95.0).abs() > 1e-9 {
        cmd.opt("percentile", format!("{}", first.percentile));
    }
}

/// The cool-down between steps, the phases around the ladder, and `--force`.
fn phase_options(cmd: &mut Command, plan: &Plan) {
    if let Some(c) = cooldown_s(plan) {
        cmd.opt("cooldown", c.to_string());
    }
    for p in ["prepare", "prewarm", "cleanup"] {
        if has_phase(plan, p) {
            cmd.0.push(format!("--{p}"));
        }
    }
    let until_hit_rate = plan.phases.iter().find_map(|p| match p {
        Phase::Prewarm(w) => w.until_hit_rate,
        _ => None,
    });
    if let Some(h) = until_hit_rate {
        cmd.0.push(format!("--prewarm-until-hit-rate={h}"));
    }
    if plan.force {
        cmd.0.push("--force".into());
    }
}

/// Single-quotes a value for a POSIX shell when it holds anything but safe characters.
fn quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.,:/@%+=".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// "started – finished" for display.
pub fn when(a: &AppendixRun) -> String {
    match (a.started_at, a.finished_at) {
        (Some(s), Some(f)) => format!(
            "{} – {} ({})",
            format::datetime(s),
            format::datetime(f),
            format::duration_s((f - s) as f64 / 1000.0)
        ),
        (Some(s), None) => format::datetime(s),
        _ => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_engine::{ConnectOptions, LadderSpec, Plan, Scenario};

    fn ladder_plan() -> Plan {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect, Scenario::OltpWriteOnly],
            threads: vec![1, 128],
            cooldown_s: 5,
            prewarm: true,
            ..Default::default()
        };
        Plan {
            connect: ConnectOptions {
                host: "10.0.0.5".into(),
                port: 3307,
                password: Some("secret".into()),
                ..Default::default()
            },
            workload: WorkloadOptions {
                tables: 16,
                table_size: 10_000_000,
                point_selects: 5,
                ..Default::default()
            },
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        }
    }

    #[test]
    fn a_ladder_plan_becomes_a_command_without_the_password() {
        let cmd = reproduce(&ladder_plan()).unwrap();
        assert_eq!(
            cmd,
            "dbdyno ladder --mysql-host=10.0.0.5 --mysql-port=3307 --mysql-user=sbtest --mysql-db=sbtest \
             --tables=16 --table-size=10000000 --point-selects=5 \
             --scenarios=oltp_point_select,oltp_write_only --ladder=1,128 --time=30 --report-interval=1 \
             --cooldown=5 --prewarm"
        );
        assert!(!cmd.contains("secret"));
    }

    #[test]
    fn a_rate_ladder_becomes_a_rates_command() {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            rates: vec![500.0, 2000.0],
            settings: dbdyno_engine::RunSettings {
                rate_dist: dbdyno_engine::open_loop::RateDist::Poisson,
                ..LadderSpec::default().settings
            },
            ..Default::default()
        };
        let plan = Plan {
            connect: ConnectOptions::default(),
            workload: WorkloadOptions::default(),
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        };
        let cmd = reproduce(&plan).unwrap();
        assert!(
            cmd.ends_with(
                "--scenarios=oltp_point_select --rates=500,2000 --time=30 --report-interval=1 --rate-dist=poisson"
            ),
            "{cmd}"
        );
    }

    #[test]
    fn settings_name_the_dataset_and_the_ladder() {
        let s = settings(&ladder_plan());
        let get = |k: &str| s.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
        assert_eq!(get("Server"), Some("10.0.0.5:3307"));
        assert_eq!(get("Dataset"), Some("16 tables × 10,000,000 rows"));
        assert_eq!(get("Thread counts"), Some("1, 128"));
        assert_eq!(get("point_selects"), Some("5"));
        assert_eq!(get("Cool-down between steps"), Some("5 s"));
    }

    #[test]
    fn values_with_spaces_are_quoted() {
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote("/tmp/my sock"), "'/tmp/my sock'");
        assert_eq!(quote("oltp_read_write"), "oltp_read_write");
    }
}
