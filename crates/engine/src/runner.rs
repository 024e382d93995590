//! Runs a validated plan phase by phase, telling consumers what happens as it happens.

use serde::{Deserialize, Serialize};

use crate::cancel::CancelToken;
use crate::error::EngineError;
use crate::events::{EngineEvent, EventSink};
use crate::exec;
use crate::phases::{self, PrepareReport, PrewarmReport};
use crate::plan::{Phase, Plan};
use crate::results::StepResult;

/// Everything a plan produced. Steps that finished are kept even when a later phase
/// failed or the run was cancelled.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunOutcome {
    pub prepare: Option<PrepareReport>,
    pub prewarm: Option<PrewarmReport>,
    pub steps: Vec<StepResult>,
    pub dropped_tables: Vec<String>,
    pub cancelled: bool,
    /// The error that ended the run early, as text (the typed error is returned too).
    pub failure: Option<String>,
}

/// Runs `plan`. Returns the outcome and, when a phase failed, the error that stopped it.
pub fn run_plan(
    plan: &Plan,
    events: &EventSink,
    cancel: &CancelToken,
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
        );
        if let Err(e) = r {
            if cancel.is_cancelled() {
                // A phase interrupted by the cancel is not a failure of the server.
                out.cancelled = true;
                break;
            }
            out.failure = Some(e.to_string());
            return (out, Some(e));
        }
        server_seen |= !matches!(phase, Phase::Cooldown { .. });
    }
    out.cancelled |= cancel.is_cancelled();
    (out, None)
}

fn run_phase(
    plan: &Plan,
    phase: &Phase,
    step_index: &mut usize,
    server_seen: bool,
    out: &mut RunOutcome,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    let (c, w) = (&plan.connect, &plan.workload);
    match phase {
        Phase::Prepare { scenario, threads } => {
            let r = phases::prepare(c, w, *scenario, *threads, plan.force, events, cancel)?;
            events.send(EngineEvent::PrepareFinished(r.clone()));
            out.prepare = Some(r);
        }
        Phase::Prewarm(p) => {
            let r = phases::prewarm(c, w, p, events, cancel)?;
            events.send(EngineEvent::PrewarmFinished(r.clone()));
            out.prewarm = Some(r);
        }
        Phase::Step(step) => {
            let r = exec::run_step(c, w, step, *step_index, server_seen, events, cancel)?;
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
            out.dropped_tables = phases::cleanup(c, w, *scenario, *threads, events)?;
        }
    }
    Ok(())
}

pub fn phase_label(p: &Phase) -> String {
    match p {
        Phase::Prepare { scenario, threads } => format!("prepare {scenario} ({threads} threads)"),
        Phase::Prewarm(o) => format!("prewarm ({} threads)", o.threads),
        Phase::Step(s) => format!("{} @ {} threads", s.scenario, s.threads),
        Phase::Cooldown { seconds } => format!("cool-down {seconds}s"),
        Phase::Cleanup { scenario, .. } => format!("cleanup {scenario}"),
    }
}
