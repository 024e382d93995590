//! The Plan screen's load choices beyond the thread ladder: the latency target and its
//! capacity search (`--sla`, `--sla-search`), and the rate ladder (`--rates`,
//! `--rate-dist`). The form keeps the target as typed and goes back onto the profile's
//! `plan` keys, so the profile's conversion parses and refuses it exactly as it does
//! the command line's (`plan.sla: …` is the message the screen shows).

use dbdyno_engine::open_loop::RateDist;
use dbdyno_engine::{Phase, Plan};
use dbdyno_profile::Profile;
use serde::{Deserialize, Serialize};

/// `--rate-dist`: how the arrivals of an open-loop step are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalSpacing {
    /// One arrival every 1/rate seconds.
    Fixed,
    /// Exponential gaps (independent users).
    Poisson,
}

impl ArrivalSpacing {
    fn engine(self) -> RateDist {
        match self {
            ArrivalSpacing::Fixed => RateDist::Fixed,
            ArrivalSpacing::Poisson => RateDist::Poisson,
        }
    }

    fn of(d: RateDist) -> ArrivalSpacing {
        match d {
            RateDist::Fixed => ArrivalSpacing::Fixed,
            RateDist::Poisson => ArrivalSpacing::Poisson,
        }
    }
}

/// The latency target and the rate ladder as the form edits them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct LoadKnobs {
    /// The latency target as typed ("p95<=20ms"); empty: none.
    pub sla: String,
    /// Most extra steps per scenario that refine the capacity at the target; 0: no search.
    pub sla_search: u32,
    /// Arrival rates (transactions per second), one open-loop step each, in place of the
    /// thread ladder; empty: the thread ladder.
    pub rates: Vec<u32>,
    pub rate_dist: ArrivalSpacing,
}

impl LoadKnobs {
    /// The profile's choices: its target as written, its rates and spacing.
    pub fn of(p: &Profile, spec: &dbdyno_engine::LadderSpec) -> LoadKnobs {
        LoadKnobs {
            sla: p.plan.sla.clone().unwrap_or_default(),
            sla_search: spec.sla_search,
            rates: p.plan.rates.clone().unwrap_or_default(),
            rate_dist: ArrivalSpacing::of(spec.settings.rate_dist),
        }
    }

    /// Lays the choices onto the profile's `plan` keys.
    pub fn apply(&self, p: &mut Profile) {
        let sla = self.sla.trim();
        p.plan.sla = (!sla.is_empty()).then(|| sla.to_string());
        p.plan.sla_search = (self.sla_search > 0).then_some(self.sla_search);
        p.plan.rates = (!self.rates.is_empty()).then(|| self.rates.clone());
        p.plan.rate_dist = Some(self.rate_dist.engine());
    }
}

/// The most the capacity search can add: its extra steps per scenario, each with the
/// ladder's warm-up, measured time and cool-down. 0 without a search.
pub fn search_max_seconds(plan: &Plan) -> u64 {
    let Some(sla) = plan.phases.iter().find_map(|p| match p {
        Phase::Sla(s) => Some(s),
        _ => None,
    }) else {
        return 0;
    };
    let mut scenarios = Vec::new();
    let mut step_s = 0;
    for s in plan.steps() {
        if !scenarios.contains(&s.scenario) {
            scenarios.push(s.scenario);
        }
        step_s = step_s.max(s.settings.time_s + s.settings.warmup_s);
    }
    sla.search_steps as u64 * scenarios.len() as u64 * (step_s + sla.cooldown_s)
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::{LadderSpec, RunSettings, Scenario};

    use super::*;

    fn plan(search_steps: u32) -> Plan {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect, Scenario::OltpReadOnly],
            threads: vec![1, 8],
            settings: RunSettings {
                time_s: 10,
                warmup_s: 2,
                ..Default::default()
            },
            cooldown_s: 3,
            sla: Some("p95<=20ms".parse().unwrap()),
            sla_search: search_steps,
            ..Default::default()
        };
        Plan {
            connect: Default::default(),
            workload: Default::default(),
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        }
    }

    /// Three extra steps for each of two scenarios, each 2 s warm-up + 10 s + 3 s pause.
    #[test]
    fn the_search_may_add_its_steps_per_scenario() {
        assert_eq!(search_max_seconds(&plan(3)), 3 * 2 * 15);
        assert_eq!(search_max_seconds(&plan(0)), 0);
    }

    /// An empty target and no rates leave the profile's keys unset; a typed target is
    /// trimmed, and the spacing always lands.
    #[test]
    fn the_knobs_land_on_the_profile_keys() {
        let mut p = crate::resolve::load_profile("local-sandbox").unwrap();
        let mut k = LoadKnobs {
            sla: "  ".into(),
            sla_search: 0,
            rates: vec![],
            rate_dist: ArrivalSpacing::Poisson,
        };
        k.apply(&mut p);
        assert_eq!((p.plan.sla.clone(), p.plan.sla_search), (None, None));
        assert_eq!(p.plan.rates, None);
        assert_eq!(p.plan.rate_dist, Some(RateDist::Poisson));
        k.sla = " p99<=5ms ".into();
        k.sla_search = 2;
        k.rates = vec![100, 200];
        k.apply(&mut p);
        assert_eq!(p.plan.sla.as_deref(), Some("p99<=5ms"));
        assert_eq!(p.plan.sla_search, Some(2));
        assert_eq!(p.plan.rates, Some(vec![100, 200]));
    }
}
