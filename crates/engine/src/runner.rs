//! Runs a validated plan phase by phase, telling consumers what happens as it happens.

use serde::{Deserialize, Serialize};

use crate::cancel::CancelToken;
use crate::error::EngineError;
use crate::events::{EngineEvent, EventSink};
use crate::exec::{self, StepCall};
use crate::phases::{self, PrepareReport, PrewarmReport};
use crate::plan::{Phase, Plan, PrewarmOptions, StepErrorPolicy, StepPlan};
use crate::results::StepResult;
use crate::sla::{search, SlaPhase};
use crate::wording::count;

/// Everything a plan produced. Steps that finished are kept even when a later phase
/// failed or the run was cancelled.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunOutcome {
    pub prepare: Option<PrepareReport>,
    pub prewarm: Option<PrewarmReport>,
    pub steps: Vec<StepResult>,
    pub dropped_tables: Vec<String>,
    pub cancelled: bool,
    /// The error that ended the run early, as text (the typed error is returned too).
    pub failure: Option<String>,
    /// Steps that failed while the ladder went on (`--on-step-error=continue`); they
    /// were not measured and are not in `steps`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_steps: Vec<FailedStep>,
}

/// A step that failed under [`StepErrorPolicy::Continue`]: which one, and why (for
/// connections that could not all open, the error says how many did).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FailedStep {
    /// The step's label: "oltp_read_only @ 8 threads".
    pub label: String,
    pub error: String,
}

/// Who runs the plan's measured steps and its prewarm: this machine ([`ThisMachine`]),
/// or several load clients (the `dbdyno-clients` coordinator, `--clients`). Prepare and
/// cleanup always run from this machine: one client loads and drops the tables.
pub trait StepRunner: Sync {
    /// Runs one measured step and returns its figures, as [`exec::run`] does.
    fn run_step(&self, call: &StepCall) -> Result<StepResult, EngineError>;

    /// Warms the server's caches before the steps.
    fn prewarm(
        &self,
        plan: &Plan,
        options: &PrewarmOptions,
        events: &EventSink,
        cancel: &CancelToken,
    ) -> Result<PrewarmReport, EngineError> {
        phases::prewarm(&plan.connect, &plan.workload, options, events, cancel)
    }
}

/// Every step on this machine's threads: the one-machine run.
pub struct ThisMachine;

impl StepRunner for ThisMachine {
    fn run_step(&self, call: &StepCall) -> Result<StepResult, EngineError> {
        exec::run(call)
    }
}

/// The call for `step` of `plan`.
fn step_call<'a>(
    plan: &'a Plan,
    step: &'a StepPlan,
    step_index: usize,
    server_seen: bool,
    events: &'a EventSink,
    cancel: &'a CancelToken,
) -> StepCall<'a> {
    StepCall {
        connect: &plan.connect,
        workload: &plan.workload,
        step,
        step_index,
        server_seen,
        events,
        cancel,
    }
}

/// Runs `plan` on this machine. Returns the outcome and, when a phase failed, the error
/// that stopped it.
pub fn run_plan(
    plan: &Plan,
    events: &EventSink,
    cancel: &CancelToken,
) -> (RunOutcome, Option<EngineError>) {
    run_plan_with(plan, events, cancel, &ThisMachine)
}

/// Runs `plan` with its steps run by `runner`.
pub fn run_plan_with(
    plan: &Plan,
    events: &EventSink,
    cancel: &CancelToken,
    runner: &dyn StepRunner,
) -> (RunOutcome, Option<EngineError>) {
    let mut out = RunOutcome::default();
    if let Err(e) = plan.validate() {
        let e = EngineError::from(e);
        out.failure = Some(e.to_string());
        return (out, Some(e));
    }
    let total = plan.phases.len();
    let mut step_index = 0;
    // Every phase logs in to the server; once one has, a refused connect later in the
    // run is a server coming back, worth waiting for (exec::run_step).
    let mut server_seen = false;
    for (index, phase) in plan.phases.iter().enumerate() {
        if cancel.is_cancelled() {
            out.cancelled = true;
            break;
        }
        events.send(EngineEvent::PhaseStarted {
            index,
            of: total,
            label: phase_label(phase),
        });
        let r = run_phase(
            plan,
            phase,
            &mut step_index,
            server_seen,
            &mut out,
            events,
            cancel,
            runner,
        );
        if let Err(e) = r {
            if cancel.is_cancelled() {
                // A phase interrupted by the cancel is not a failure of the server.
                out.cancelled = true;
                break;
            }
            if let (Phase::Step(_), StepErrorPolicy::Continue) = (phase, plan.on_step_error) {
                let failed = FailedStep {
                    label: phase_label(phase),
                    error: e.to_string(),
                };
                // A warning, so that the history keeps it with the run's warnings.
                events.warning(format!(
                    "step failed, the ladder goes on (--on-step-error=continue): {}: {}",
                    failed.label, failed.error
                ));
                events.send(EngineEvent::StepFailed {
                    step: step_index,
                    label: failed.label.clone(),
                    error: failed.error.clone(),
                });
                out.failed_steps.push(failed);
                // The failed step keeps its number, so that its warning is not filed
                // under the next step and the app's list of steps stays aligned.
                step_index += 1;
                continue;
            }
            out.failure = Some(e.to_string());
            return (out, Some(e));
        }
        server_seen |= !matches!(phase, Phase::Cooldown { .. });
    }
    out.cancelled |= cancel.is_cancelled();
    (out, None)
}

#[allow(clippy::too_many_arguments)]
fn run_phase(
    plan: &Plan,
    phase: &Phase,
    step_index: &mut usize,
    server_seen: bool,
    out: &mut RunOutcome,
    events: &EventSink,
    cancel: &CancelToken,
    runner: &dyn StepRunner,
) -> Result<(), EngineError> {
    let (c, w) = (&plan.connect, &plan.workload);
    match phase {
        Phase::Prepare {
            scenario,
            threads,
            mode,
        } => {
            let r = phases::prepare(c, w, *scenario, *threads, *mode, plan.force, events, cancel)?;
            events.send(EngineEvent::PrepareFinished(r.clone()));
            // A ladder of OLTP and tpcc scenarios prepares both datasets.
            out.prepare = Some(match out.prepare.take() {
                Some(earlier) => earlier.and(&r),
                None => r,
            });
        }
        Phase::Prewarm(p) => {
            let r = runner.prewarm(plan, p, events, cancel)?;
            events.send(EngineEvent::PrewarmFinished(r.clone()));
            out.prewarm = Some(r);
        }
        Phase::Step(step) => {
            let call = step_call(plan, step, *step_index, server_seen, events, cancel);
            let r = runner.run_step(&call)?;
            events.send(EngineEvent::StepFinished {
                step: *step_index,
                result: Box::new(r.clone()),
            });
            out.steps.push(r);
            *step_index += 1;
        }
        Phase::Cooldown { seconds } => {
            events.send(EngineEvent::Cooldown { seconds: *seconds });
            cancel.sleep(std::time::Duration::from_secs(*seconds));
        }
        Phase::Cleanup { scenario, threads } => {
            let dropped = phases::cleanup(c, w, *scenario, *threads, events)?;
            out.dropped_tables.extend(dropped);
        }
        Phase::Sla(sla) => capacity_search(plan, sla, step_index, out, events, cancel, runner)?,
    }
    Ok(())
}

/// The capacity search (`--sla-search`): per scenario, extra steps between the last
/// step within the target and the first beyond it, until they are one thread apart or
/// `search_steps` ran. Each is measured like the ladder's steps and marked `sla_search`.
fn capacity_search(
    plan: &Plan,
    sla: &SlaPhase,
    step_index: &mut usize,
    out: &mut RunOutcome,
    events: &EventSink,
    cancel: &CancelToken,
    runner: &dyn StepRunner,
) -> Result<(), EngineError> {
    let target = &sla.target;
    for scenario in search::scenarios_in_order(plan) {
        for _ in 0..sla.search_steps {
            if cancel.is_cancelled() {
                return Ok(());
            }
            let (step, (within, beyond)) =
                match search::next_step(plan, target, scenario, &out.steps) {
                    Ok(next) => next,
                    Err(why) => {
                        events.message(format!("capacity search: {why}"));
                        break;
                    }
                };
            if sla.cooldown_s > 0 {
                events.send(EngineEvent::Cooldown {
                    seconds: sla.cooldown_s,
                });
                cancel.sleep(std::time::Duration::from_secs(sla.cooldown_s));
            }
            events.message(format!(
                "capacity search at {}: {scenario} @ {}, between {within} (within) and {beyond} (beyond)",
                target.compact(),
                count(step.threads, "thread")
            ));
            let call = step_call(plan, &step, *step_index, true, events, cancel);
            let mut r = runner.run_step(&call)?;
            r.sla_search = true;
            events.send(EngineEvent::StepFinished {
                step: *step_index,
                result: Box::new(r.clone()),
            });
            out.steps.push(r);
            *step_index += 1;
        }
    }
    Ok(())
}

/// "oltp_read_only @ 8 threads", or for an open-loop step
/// "oltp_read_only @ open loop at 500/s on 25 connections".
fn step_label(s: &crate::plan::StepPlan) -> String {
    if s.settings.rate > 0.0 {
        let mode = crate::open_loop::mode_name(s.settings.rate, s.settings.rate_dist);
        format!(
            "{} @ {mode} on {}",
            s.scenario,
            count(s.threads, "connection")
        )
    } else {
        threads_label(s.scenario, s.threads)
    }
}

/// "oltp_read_only @ 8 threads", "oltp_read_only @ 1 thread": a closed-loop step as
/// the engine names it, for whoever names a step from its result (the history, reports,
/// the run's monitoring).
pub fn threads_label(scenario: impl std::fmt::Display, threads: u32) -> String {
    format!("{scenario} @ {}", count(threads, "thread"))
}

pub fn phase_label(p: &Phase) -> String {
    match p {
        Phase::Prepare {
            scenario, threads, ..
        } => format!("prepare {scenario} ({})", count(*threads, "thread")),
        Phase::Prewarm(o) => format!("prewarm ({})", count(o.threads, "thread")),
        Phase::Step(s) => match s.repeat.label() {
            Some(r) => format!("{}, {r}", step_label(s)),
            None => step_label(s),
        },
        Phase::Cooldown { seconds } => format!("cool-down {seconds}s"),
        Phase::Cleanup { scenario, .. } => format!("cleanup {scenario}"),
        Phase::Sla(s) if s.search_steps > 0 => format!(
            "capacity search at {} (at most {} per scenario)",
            s.target.compact(),
            count(s.search_steps, "extra step")
        ),
        Phase::Sla(s) => format!("latency target {}", s.target.compact()),
    }
}
