//! A whole plan run from several load clients: the coordinator connected and checked
//! (its rows join the run's check table), then the engine's plan with every measured
//! step (and the prewarm) run across the clients. What the session calls in place of
//! the one-machine engine.

use dbdyno_engine::{run_plan_with, CancelToken, EngineError, EventSink, Plan, RunOutcome};

use crate::coordinator::{Coordinator, NotConnected};
use crate::spec::ClientSpec;
use crate::transport::Launcher;

/// The load clients of a run and how their agents are started.
pub struct ClientsPlan {
    pub specs: Vec<ClientSpec>,
    pub launcher: Box<dyn Launcher + Send>,
}

impl ClientsPlan {
    /// Starts and checks every client before anything runs: the coordinator, whose
    /// [`Coordinator::check_rows`] join the run's checks, or the rows of the clients
    /// that failed (nothing may run then).
    pub fn connect(&self, plan: &Plan) -> Result<Coordinator, NotConnected> {
        Coordinator::connect(&self.specs, &*self.launcher, plan)
    }
}

impl Coordinator {
    /// Runs `plan` across the clients; every agent is stopped at the end.
    pub fn run(
        &self,
        plan: &Plan,
        events: &EventSink,
        cancel: &CancelToken,
    ) -> (RunOutcome, Option<EngineError>) {
        let (outcome, error) = run_plan_with(plan, events, cancel, self);
        self.stop();
        (outcome, error)
    }
}
