//! What it takes to reproduce each run: versions, dates, the command line as recorded,
//! the settings read from the stored plan, and a `dbdyno ladder` command rebuilt from
//! that plan (no password: it comes from MYSQL_PWD or the prompt).
//!
//! The plan is read as JSON, not as the engine's `Plan` type, so that a plan written by an
//! older version still yields whatever it can.

use std::collections::BTreeMap;

use dbdyno_engine::WorkloadOptions;
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
        reproduce: reproduce(&r.plan),
        settings: settings(&r.plan),
        labels: r.labels.clone(),
        plan_json: serde_json::to_string_pretty(&r.plan).unwrap_or_default(),
        clients: super::load_clients::shares(r),
    }
}

/// The measured steps of a plan: (scenario, threads, settings).
fn steps(plan: &Value) -> Vec<(&str, u64, &Value)> {
    plan.get("phases")
        .and_then(Value::as_array)
        .map(|phases| {
            phases
                .iter()
                .filter(|p| p.get("phase").and_then(Value::as_str) == Some("step"))
                .filter_map(|p| {
                    Some((
                        p.get("scenario")?.as_str()?,
                        p.get("threads")?.as_u64()?,
                        p.get("settings")?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn phase<'a>(plan: &'a Value, name: &str) -> Option<&'a Value> {
    plan.get("phases")?
        .as_array()?
        .iter()
        .find(|p| p.get("phase").and_then(Value::as_str) == Some(name))
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

pub fn settings(plan: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut add = |k: &str, v: String| out.push((k.to_string(), v));
    if let Some(c) = plan.get("connect") {
        let endpoint = match c.get("socket").and_then(Value::as_str) {
            Some(s) => format!("socket {s}"),
            None => format!(
                "{}:{}",
                c.get("host").and_then(Value::as_str).unwrap_or("?"),
                c.get("port").and_then(Value::as_u64).unwrap_or(3306)
            ),
        };
        add("Server", endpoint);
        if let Some(db) = c.get("database").and_then(Value::as_str) {
            add("Database", db.to_string());
        }
        if let Some(u) = c.get("user").and_then(Value::as_str) {
            add("User", u.to_string());
        }
        if let Some(t) = c.get("tls").and_then(Value::as_str) {
            add("TLS", t.to_string());
        }
    }
    let st = steps(plan);
    if !st.is_empty() {
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
        let first = st[0].2;
        let num = |k: &str| first.get(k).and_then(Value::as_f64);
        if let Some(t) = num("time_s") {
            add("Seconds per step", format!("{t}"));
        }
        if let Some(w) = num("warmup_s").filter(|w| *w > 0.0) {
            add("Warm-up per step", format!("{w} s"));
        }
        if let Some(e) = num("events").filter(|e| *e > 0.0) {
            add("Events per step", format!("{e}"));
        }
        if let Some(r) = num("rate").filter(|r| *r > 0.0) {
            add("Rate", format!("{r} TPS"));
        }
        if let Some(i) = num("report_interval_s") {
            add("Report interval", format!("{i} s"));
        }
        if let Some(p) = num("percentile") {
            add("Percentile", format!("{p}"));
        }
    }
    if let Some(w) = plan.get("workload") {
        if let Some(d) = super::environment::dataset_words(plan) {
            add("Dataset", d);
        }
        for (k, v) in workload_diffs(w) {
            if k != "tables" && k != "table_size" {
                add(&k, v);
            }
        }
    }
    for p in ["prepare", "prewarm", "cleanup"] {
        if phase(plan, p).is_some() {
            add("Phase", p.to_string());
        }
    }
    if let Some(c) = phase(plan, "cooldown").and_then(|c| c.get("seconds")?.as_u64()) {
        add("Cool-down between steps", format!("{c} s"));
    }
    out
}

/// Workload options that differ from sysbench's defaults, as (option name, value).
fn workload_diffs(w: &Value) -> Vec<(String, String)> {
    let defaults = serde_json::to_value(WorkloadOptions::default()).unwrap_or(Value::Null);
    let mut out = Vec::new();
    let Some(map) = w.as_object() else {
        return out;
    };
    for (k, v) in map {
        if k == "rand" {
            if let Some(r) = v.as_object() {
                for (rk, rv) in r {
                    if defaults.pointer(&format!("/rand/{rk}")) != Some(rv) {
                        let name = if rk == "rand_type" {
                            rk.clone()
                        } else {
                            format!("rand_{rk}")
                        };
                        out.push((name, scalar(rv)));
                    }
                }
            }
        } else if defaults.get(k) != Some(v) {
            out.push((k.clone(), scalar(v)));
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
pub fn reproduce(plan: &Value) -> Option<String> {
    let st = steps(plan);
    let (scenarios, (axis, values), first) = match ladder(&st) {
        Some((scenarios, threads, first)) => {
            let threads: Vec<String> = threads.iter().map(u64::to_string).collect();
            (scenarios, ("ladder", threads.join(",")), first.clone())
        }
        None => rate_ladder(&st)?,
    };
    let mut cmd = Command(vec!["dbdyno".into(), "ladder".into()]);
    connect_options(&mut cmd, plan.get("connect"));
    if let Some(w) = plan.get("workload") {
        workload_options(&mut cmd, w);
    }
    cmd.opt("scenarios", scenarios.join(","));
    cmd.opt(axis, values);
    step_options(&mut cmd, &first);
    phase_options(&mut cmd, plan);
    Some(cmd.0.join(" "))
}

/// The scenarios, thread counts and shared step settings of a plan whose steps are every
/// scenario at every thread count with the same settings; `None` otherwise.
fn ladder<'a>(st: &[(&'a str, u64, &'a Value)]) -> Option<(Vec<&'a str>, Vec<u64>, &'a Value)> {
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
type RateLadder<'a> = (Vec<&'a str>, (&'static str, String), Value);

fn rate_ladder<'a>(st: &[(&'a str, u64, &'a Value)]) -> Option<RateLadder<'a>> {
    let without_rate = |v: &Value| -> Option<(Value, f64)> {
        let mut v = v.clone();
        let rate = v.as_object_mut()?.remove("rate")?.as_f64()?;
        Some((v, rate))
    };
    let steps: Vec<(&str, Value, f64)> = st
        .iter()
        .map(|s| without_rate(s.2).map(|(v, r)| (s.0, v, r)))
        .collect::<Option<_>>()?;
    let first = steps.first()?.1.clone();
    if steps
        .iter()
        .any(|s| s.1 != first || s.2 <= 0.0 || s.2.fract() != 0.0)
    {
        return None;
    }
    let scenarios = distinct(steps.iter().map(|s| s.0));
    let rates = distinct(steps.iter().map(|s| s.2 as u64));
    let grid: Vec<(&str, u64)> = scenarios
        .iter()
        .flat_map(|s| rates.iter().map(move |r| (*s, *r)))
        .collect();
    if grid != steps.iter().map(|s| (s.0, s.2 as u64)).collect::<Vec<_>>() {
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
fn connect_options(cmd: &mut Command, c: Option<&Value>) {
    let cs = |k: &str| c.and_then(|c| c.get(k)).and_then(Value::as_str);
    if let Some(s) = cs("socket") {
        cmd.opt("mysql-socket", s.into());
    } else {
        cmd.opt("mysql-host", cs("host").unwrap_or("localhost").into());
        let port = c
            .and_then(|c| c.get("port"))
            .and_then(Value::as_u64)
            .unwrap_or(3306);
        if port != 3306 {
            cmd.opt("mysql-port", port.to_string());
        }
    }
    cmd.opt("mysql-user", cs("user").unwrap_or("sbtest").into());
    cmd.opt("mysql-db", cs("database").unwrap_or("sbtest").into());
    if let Some(t) = cs("tls").filter(|t| *t != "disabled") {
        cmd.opt("mysql-ssl-mode", t.into());
    }
}

/// The dataset's size, then every workload option that differs from sysbench's default.
fn workload_options(cmd: &mut Command, w: &Value) {
    for key in ["tables", "table_size"] {
        if let Some(v) = w.get(key) {
            cmd.opt(&key.replace('_', "-"), scalar(v));
        }
    }
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
fn step_options(cmd: &mut Command, first: &Value) {
    let num = |k: &str| first.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    cmd.opt("time", format!("{}", num("time_s")));
    cmd.opt("report-interval", format!("{}", num("report_interval_s")));
    if num("warmup_s") > 0.0 {
        cmd.opt("warmup", format!("{}", num("warmup_s")));
    }
    if num("events") > 0.0 {
        cmd.opt("events", format!("{}", num("events")));
    }
    if num("rate") > 0.0 {
        cmd.opt("rate", format!("{}", num("rate")));
    }
    if let Some(dist) = first.get("rate_dist").and_then(Value::as_str) {
        if dist != "fixed" {
            cmd.opt("rate-dist", dist.to_string());
        }
    }
    if (num("percentile") - 95.0).abs() > 1e-9 {
        cmd.opt("percentile", format!("{}", num("percentile")));
    }
}

/// The cool-down between steps, the phases around the ladder, and `--force`.
fn phase_options(cmd: &mut Command, plan: &Value) {
    if let Some(c) = phase(plan, "cooldown").and_then(|c| c.get("seconds")?.as_u64()) {
        cmd.opt("cooldown", c.to_string());
    }
    for p in ["prepare", "prewarm", "cleanup"] {
        if phase(plan, p).is_some() {
            cmd.0.push(format!("--{p}"));
        }
    }
    if let Some(h) = phase(plan, "prewarm").and_then(|p| p.get("until_hit_rate")?.as_f64()) {
        cmd.0.push(format!("--prewarm-until-hit-rate={h}"));
    }
    if plan.get("force").and_then(Value::as_bool) == Some(true) {
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

    fn ladder_plan() -> Value {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect, Scenario::OltpWriteOnly],
            threads: vec![1, 128],
            cooldown_s: 5,
            prewarm: true,
            ..Default::default()
        };
        let plan = Plan {
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
        };
        serde_json::to_value(plan).unwrap()
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
        let cmd = reproduce(&serde_json::to_value(plan).unwrap()).unwrap();
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
