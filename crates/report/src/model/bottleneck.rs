//! What limits throughput, per environment and scenario: seed 000's patterns as rules.
//!
//! | class | seed 000's wording | rule (in the saturation region) |
//! | --- | --- | --- |
//! | client-bound | (the load generator is the limit) | client CPU ≥ 85% of its machine |
//! | CPU-bound | "QPS plateaus while CPU% hits 95%" | server CPU ≥ 85% |
//! | IO-bound | "QPS ceiling with IO% at 90%+ and low CPU%" | disk util ≥ 85%, CPU below 85% |
//! | lock contention | "95% latency jumps from 1ms to 20ms … lock contention or thread scheduling" | knee found, p95 grew ≥ 3× past it, CPU and disk below 70% |
//! | scaling | "QPS doubles when threads double, CPU% rises, IO% stays flat" | no knee, nothing saturated |
//! | unclear | — | a knee, but none of the above (or no server figures) |
//!
//! The saturation region is the knee and every step above it, or the top step when the
//! ladder did not reach a knee. The client is checked first: when the load generator is
//! saturated, the server figures describe a server that was not pushed.
//! 85% rather than the seed's 90–95% because these are averages over a whole step,
//! ramp-up included.

use serde::{Deserialize, Serialize};

use super::knee::{Knee, KneeKind};
use super::Cell;
use crate::format;
use dbdyno_engine::Scenario;

/// A resource at or above this utilisation (percent) is saturated.
pub const SATURATED_PCT: f64 = 85.0;
/// Below this, a resource is "low" (seed: "CPU% and IO% both under 60%" in its contention example).
pub const LOW_PCT: f64 = 70.0;
/// p95 growth past the knee that reads as contention rather than queueing.
pub const LATENCY_EXPLOSION: f64 = 3.0;
/// Above this utilisation a resource is named as the one to watch while still scaling.
pub const PRESSURE_PCT: f64 = 50.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BottleneckClass {
    CpuBound,
    IoBound,
    LockContention,
    ClientBound,
    Scaling,
    Unclear,
}

impl BottleneckClass {
    pub fn label(self) -> &'static str {
        match self {
            BottleneckClass::CpuBound => "CPU-bound",
            BottleneckClass::IoBound => "IO-bound",
            BottleneckClass::LockContention => "Lock contention",
            BottleneckClass::ClientBound => "Client-bound",
            BottleneckClass::Scaling => "Scaling",
            BottleneckClass::Unclear => "Unclear",
        }
    }

    /// The class inside a sentence ("idc is CPU-bound in …").
    pub fn phrase(self) -> &'static str {
        match self {
            BottleneckClass::CpuBound => "CPU-bound",
            BottleneckClass::IoBound => "IO-bound",
            BottleneckClass::LockContention => "limited by lock contention",
            BottleneckClass::ClientBound => "client-bound",
            BottleneckClass::Scaling => "still scaling",
            BottleneckClass::Unclear => "without a clear bottleneck",
        }
    }

    /// What to try next (seed 000's tuning advice).
    pub fn advice(self) -> &'static str {
        match self {
            BottleneckClass::CpuBound => {
                "more or faster CPU cores, or cheaper queries, raise this ceiling"
            }
            BottleneckClass::IoBound => {
                "faster storage (NVMe, higher-IOPS volumes), a larger buffer pool or innodb_io_capacity tuning raise this ceiling"
            }
            BottleneckClass::LockContention => {
                "look at row lock waits and mutex contention (performance_schema), innodb_spin_wait_delay, or run fewer active threads"
            }
            BottleneckClass::ClientBound => {
                "use a larger client machine or several clients: the server had headroom"
            }
            BottleneckClass::Scaling => "extend the thread ladder to find the knee",
            BottleneckClass::Unclear => {
                "check the network, the client and server-side waits; nothing measured here was saturated"
            }
        }
    }
}

/// A resource the evidence names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Cpu,
    Disk,
    Client,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bottleneck {
    pub class: BottleneckClass,
    /// While still scaling: the resource closest to its limit, when above 50%.
    pub pressure: Option<Resource>,
    /// The figures behind the class, as a sentence.
    pub evidence: String,
}

/// Classifies one environment's ladder for one scenario.
pub fn classify(scenario: Scenario, cells: &[&Cell], knee: &Knee) -> Bottleneck {
    let Some(e) = Evidence::new(scenario, cells, knee) else {
        return make(BottleneckClass::Unclear, None, "no step ran".into());
    };
    client_bound(&e)
        .or_else(|| cpu_bound(&e))
        .or_else(|| io_bound(&e))
        .or_else(|| levelled_off(&e))
        .or_else(|| single_step(&e))
        .unwrap_or_else(|| scaling(&e))
}

fn make(class: BottleneckClass, pressure: Option<Resource>, evidence: String) -> Bottleneck {
    Bottleneck {
        class,
        pressure,
        evidence,
    }
}

/// One ladder's saturation region and the figures the rules read from it.
struct Evidence<'a> {
    scenario: Scenario,
    cells: &'a [&'a Cell],
    knee: KneeKind,
    region: Vec<&'a Cell>,
    /// The region's first step (the knee, when one was found) and the ladder's top step.
    first: &'a Cell,
    top: &'a Cell,
    /// The highest server CPU, disk and client CPU in the region.
    cpu: Option<f64>,
    disk: Option<f64>,
    client: f64,
    /// The server figures as words ("server CPU 91% and disk 40%").
    resources: String,
}

impl<'a> Evidence<'a> {
    fn new(scenario: Scenario, cells: &'a [&'a Cell], knee: &Knee) -> Option<Self> {
        let top = *cells.last()?;
        let region: Vec<&Cell> = match (knee.kind, knee.best_threads) {
            (KneeKind::Found, Some(k)) => {
                cells.iter().copied().filter(|c| c.threads >= k).collect()
            }
            _ => vec![top],
        };
        let cpu = max_of(&region, |c| c.cpu_pct);
        let disk = max_of(&region, |c| c.disk_util_pct);
        let resources = match (cpu, disk) {
            (Some(c), Some(d)) => {
                format!("server CPU {} and disk {}", format::pct(c), format::pct(d))
            }
            (Some(c), None) => format!("server CPU {} (no disk figures)", format::pct(c)),
            (None, Some(d)) => format!("disk {} (no CPU figures)", format::pct(d)),
            (None, None) => "no server CPU or disk figures".into(),
        };
        Some(Evidence {
            scenario,
            cells,
            knee: knee.kind,
            first: region[0],
            top,
            cpu,
            disk,
            client: region.iter().map(|c| c.client_cpu_pct).fold(0.0, f64::max),
            resources,
            region,
        })
    }

    fn found(&self) -> bool {
        self.knee == KneeKind::Found
    }

    /// The thread count of the region's step where `f` reads `v` (the top step if none).
    fn at(&self, v: f64, f: &dyn Fn(&Cell) -> Option<f64>) -> u32 {
        self.region
            .iter()
            .find(|c| f(c) == Some(v))
            .map(|c| c.threads)
            .unwrap_or(self.top.threads)
    }
}

/// Checked first: when the load generator is saturated, the server figures describe a
/// server that was not pushed.
fn client_bound(e: &Evidence) -> Option<Bottleneck> {
    if e.client < SATURATED_PCT {
        return None;
    }
    let t = e
        .region
        .iter()
        .find(|c| c.client_cpu_pct == e.client)
        .map(|c| c.threads)
        .unwrap_or(e.top.threads);
    Some(make(
        BottleneckClass::ClientBound,
        Some(Resource::Client),
        format!(
            "the load generator used {} of its machine at {} threads while the server showed {}: the client set the limit",
            format::pct(e.client),
            t,
            e.resources
        ),
    ))
}

fn cpu_bound(e: &Evidence) -> Option<Bottleneck> {
    let c = e.cpu.filter(|c| *c >= SATURATED_PCT)?;
    let verb = if e.found() {
        format!("throughput levelled off at {} threads", e.first.threads)
    } else {
        "throughput was still rising".to_string()
    };
    Some(make(
        BottleneckClass::CpuBound,
        Some(Resource::Cpu),
        format!(
            "{verb} with server CPU at {} ({} threads); disk {}",
            format::pct(c),
            e.at(c, &|x: &Cell| x.cpu_pct),
            e.disk
                .map(format::pct)
                .unwrap_or_else(|| "not measured".into())
        ),
    ))
}

fn io_bound(e: &Evidence) -> Option<Bottleneck> {
    let d = e.disk.filter(|d| *d >= SATURATED_PCT)?;
    Some(make(
        BottleneckClass::IoBound,
        Some(Resource::Disk),
        format!(
            "the data disk was {} busy at {} threads while server CPU stayed at {}",
            format::pct(d),
            e.at(d, &|x: &Cell| x.disk_util_pct),
            e.cpu
                .map(format::pct)
                .unwrap_or_else(|| "an unmeasured level".into())
        ),
    ))
}

/// A knee with nothing saturated: contention when p95 exploded past it with CPU and disk
/// low, unclear otherwise (or when there are no server figures to judge by).
fn levelled_off(e: &Evidence) -> Option<Bottleneck> {
    if !e.found() {
        return None;
    }
    if e.cpu.is_none() && e.disk.is_none() {
        return Some(make(
            BottleneckClass::Unclear,
            None,
            format!(
                "throughput levelled off at {} threads, but there are no server CPU or disk figures to say why",
                e.first.threads
            ),
        ));
    }
    let growth = match (e.first.p95_ms, e.top.p95_ms) {
        (Some(a), Some(b)) if a > 0.0 => b / a,
        _ => 0.0,
    };
    let low = e.cpu.unwrap_or(0.0) < LOW_PCT && e.disk.unwrap_or(0.0) < LOW_PCT;
    if growth >= LATENCY_EXPLOSION && low {
        return Some(contention(e, growth));
    }
    Some(make(
        BottleneckClass::Unclear,
        None,
        format!(
            "throughput levelled off at {} threads with {} and p95 growing {}: nothing measured was saturated",
            e.first.threads,
            e.resources,
            format::times(growth)
        ),
    ))
}

fn contention(e: &Evidence, growth: f64) -> Bottleneck {
    let locks = lock_evidence(&e.region);
    let cause = if e.scenario.writes() {
        "lock contention"
    } else {
        "contention (mutexes or thread scheduling; read-only steps take no row locks)"
    };
    make(
        BottleneckClass::LockContention,
        None,
        format!(
            "p95 grew {} from {} to {} threads ({} → {} ms) with no resource saturated ({}): {cause}{locks}",
            format::times(growth),
            e.first.threads,
            e.top.threads,
            format::ms_opt(e.first.p95_ms),
            format::ms_opt(e.top.p95_ms),
            e.resources
        ),
    )
}

fn single_step(e: &Evidence) -> Option<Bottleneck> {
    (e.knee == KneeKind::TooFewSteps).then(|| {
        make(
            BottleneckClass::Unclear,
            None,
            format!(
                "a single thread count ({} threads, {}): a ladder is needed to see how throughput scales",
                e.top.threads, e.resources
            ),
        )
    })
}

/// Still scaling: name the resource closest to its limit.
fn scaling(e: &Evidence) -> Bottleneck {
    let pressure = match (e.cpu, e.disk) {
        (Some(c), Some(d)) if d > c && d >= PRESSURE_PCT => Some(Resource::Disk),
        (Some(c), _) if c >= PRESSURE_PCT => Some(Resource::Cpu),
        (None, Some(d)) if d >= PRESSURE_PCT => Some(Resource::Disk),
        _ => None,
    };
    let scaling = scaling_words(e.cells);
    let watch = match pressure {
        Some(Resource::Disk) => format!(
            "; the disk is the resource closest to its limit ({})",
            format::pct(e.disk.unwrap_or(0.0))
        ),
        Some(Resource::Cpu) => format!(
            "; CPU is the resource closest to its limit ({})",
            format::pct(e.cpu.unwrap_or(0.0))
        ),
        _ => String::new(),
    };
    make(
        BottleneckClass::Scaling,
        pressure,
        format!(
            "{scaling}, with {} at {} threads: no bottleneck reached{watch}",
            e.resources, e.top.threads
        ),
    )
}

fn max_of(cells: &[&Cell], f: impl Fn(&Cell) -> Option<f64>) -> Option<f64> {
    cells
        .iter()
        .filter_map(|c| f(c))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
}

fn scaling_words(cells: &[&Cell]) -> String {
    match (cells.first(), cells.last()) {
        (Some(a), Some(b)) if a.threads != b.threads && a.qps > 0.0 => format!(
            "QPS rose {} from {} to {} threads ({} → {})",
            format::times(b.qps / a.qps),
            a.threads,
            b.threads,
            format::rate(a.qps),
            format::rate(b.qps)
        ),
        (_, Some(b)) => format!(
            "one step at {} threads ({} QPS)",
            b.threads,
            format::rate(b.qps)
        ),
        _ => String::new(),
    }
}

fn lock_evidence(region: &[&Cell]) -> String {
    let waits: Vec<(u32, u64)> = region
        .iter()
        .filter_map(|c| c.row_lock_waits.map(|w| (c.threads, w)))
        .collect();
    match (waits.first(), waits.last()) {
        (Some(a), Some(b)) if b.1 > a.1 => format!(
            "; row lock waits rose from {} to {}",
            format::grouped(a.1 as f64, 0),
            format::grouped(b.1 as f64, 0)
        ),
        _ => String::new(),
    }
}
