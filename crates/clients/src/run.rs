//! A whole plan run from several load clients: the coordinator connected and checked,
//! then the engine's plan with every measured step (and the prewarm) run across the
//! clients. What the session calls in place of the one-machine engine.

use dbdyno_engine::{run_plan_with, CancelToken, EngineError, EventSink, Plan, RunOutcome};

use crate::coordinator::Coordinator;
use crate::spec::ClientSpec;
use crate::transport::Launcher;

/// The load clients of a run and how their agents are started.
pub struct ClientsPlan {
    pub specs: Vec<ClientSpec>,
    pub launcher: Box<dyn Launcher + Send>,
}

impl ClientsPlan {
    /// Runs `plan` across the clients. A client that cannot be started or fails its
    /// checks stops the run before anything ran; every agent is stopped at the end.
    pub fn run(
        &self,
        plan: &Plan,
        events: &EventSink,
        cancel: &CancelToken,
    ) -> (RunOutcome, Option<EngineError>) {
        let coordinator = match Coordinator::connect(&self.specs, &*self.launcher, plan, events) {
            Ok(c) => c,
            Err(e) => {
                let e = EngineError::Refused(e.to_string());
                let outcome = RunOutcome {
                    failure: Some(e.to_string()),
                    ..RunOutcome::default()
                };
                return (outcome, Some(e));
            }
        };
        let (outcome, error) = run_plan_with(plan, events, cancel, &coordinator);
        coordinator.stop();
        (outcome, error)
    }
}
