//! The coordinator: one agent per load client, started and checked before the run,
//! then every measured step split across them, started at one instant and merged
//! ([`dbdyno_engine::clients::merge`]). It is the engine's [`StepRunner`] for a run
//! with `--clients`; prepare and cleanup stay on this machine, prewarm runs from all.
//!
//! Faults: a client that stops answering during a step is marked lost (the step is
//! partial, its share counted up to its last interval) and the run goes on without it.
//! Cancel is passed on to every agent; dropping the coordinator closes every agent's
//! input, which ends it.

mod check;
mod client;
mod rows;
mod step;
mod wire;

use std::sync::Mutex;
use std::time::Duration;

use dbdyno_checks::Check;
use dbdyno_engine::clients::{AgentConnect, Order, PrewarmOrder, Report};
use dbdyno_engine::exec::StepCall;
use dbdyno_engine::phases::PrewarmReport;
use dbdyno_engine::plan::PrewarmOptions;
use dbdyno_engine::{CancelToken, EngineError, EventSink, Plan, StepResult, StepRunner};

pub use check::ClientCheck;
pub use client::ClientsError;

use crate::clock::ClockOffset;
use crate::spec::ClientSpec;
use crate::split::split;
use crate::transport::{Launcher, TransportError};
use client::Client;
use wire::Said;

/// Every load client of a run, ready for its steps.
pub struct Coordinator {
    clients: Mutex<Vec<Client>>,
    checks: Vec<ClientCheck>,
}

/// Some client could not be started or failed a check: nothing runs. `checks` holds
/// every client's rows, the failed ones with their fix.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct NotConnected {
    pub error: ClientsError,
    pub checks: Vec<Check>,
}

impl Coordinator {
    /// Starts an agent on every client and checks it: same version, its cores against
    /// its share of the plan's largest step, its clock, its round trip to the database.
    /// Every client is checked, so that one look at the rows shows every client that
    /// needs a fix; one that fails refuses the run ([`NotConnected`]) and every agent
    /// started is stopped.
    pub fn connect(
        specs: &[ClientSpec],
        launcher: &dyn Launcher,
        plan: &Plan,
    ) -> Result<Coordinator, NotConnected> {
        let largest = plan.steps().map(|s| s.threads).max().unwrap_or(0);
        let shares = split(largest as u64, specs.len());
        let mut clients = Vec::with_capacity(specs.len());
        let mut checks = Vec::with_capacity(specs.len());
        let mut rows = Vec::new();
        let mut first_error = None;
        for (spec, share) in specs.iter().zip(shares) {
            match start_and_check(spec, launcher, plan, share as u32) {
                Ok((client, check)) => {
                    rows.extend(check.rows());
                    checks.push(check);
                    clients.push(client);
                }
                Err(e) => {
                    rows.push(e.row());
                    first_error.get_or_insert(e);
                }
            }
        }
        let coordinator = Coordinator {
            clients: Mutex::new(clients),
            checks,
        };
        match first_error {
            None => Ok(coordinator),
            Some(error) => {
                coordinator.stop();
                Err(NotConnected {
                    error,
                    checks: rows,
                })
            }
        }
    }

    /// The rows of the run's check table, one per client and check.
    pub fn check_rows(&self) -> Vec<Check> {
        self.checks.iter().flat_map(ClientCheck::rows).collect()
    }

    /// What the checks before the run found, one per client.
    pub fn checks(&self) -> &[ClientCheck] {
        &self.checks
    }

    /// The clients still in the run.
    pub fn active(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|c| c.lost.is_none())
            .map(|c| c.name.clone())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Client>> {
        self.clients.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops every agent: the end of its input cancels what it runs and ends it. (No
    /// `cancel` line: an agent that already ended would answer a write with SIGPIPE.)
    pub fn stop(&self) {
        for c in self.lock().iter_mut() {
            c.transport.stop();
        }
    }
}

/// One client's agent started and checked.
fn start_and_check(
    spec: &ClientSpec,
    launcher: &dyn Launcher,
    plan: &Plan,
    threads: u32,
) -> Result<(Client, ClientCheck), ClientsError> {
    let name = spec.to_string();
    let transport = launcher
        .launch(spec)
        .map_err(|source| ClientsError::Transport {
            client: name.clone(),
            source,
        })?;
    let mut client = Client {
        name,
        transport,
        cores: 0,
        offset: ClockOffset {
            offset_us: 0,
            rtt_us: 0,
        },
        lost: None,
    };
    match check::check(&mut client, &plan.connect, threads) {
        Ok(check) => Ok((client, check)),
        Err(e) => {
            client.transport.stop();
            Err(e)
        }
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        self.stop();
    }
}

impl StepRunner for Coordinator {
    fn run_step(&self, call: &StepCall) -> Result<StepResult, EngineError> {
        let mut clients = self.lock();
        step::run(&mut clients, call)
    }

    /// Every client warms with its share of the prewarm threads (at least one each):
    /// each client's path to the server is warmed, not only this machine's.
    fn prewarm(
        &self,
        plan: &Plan,
        options: &PrewarmOptions,
        events: &EventSink,
        cancel: &CancelToken,
    ) -> Result<PrewarmReport, EngineError> {
        let mut clients = self.lock();
        let active: Vec<&mut Client> = clients.iter_mut().filter(|c| c.lost.is_none()).collect();
        let threads = split(options.threads as u64, active.len());
        let mut asked = Vec::new();
        for (c, t) in active.into_iter().zip(threads) {
            let order = Order::Prewarm(Box::new(PrewarmOrder {
                connect: AgentConnect::new(&plan.connect),
                workload: plan.workload.clone(),
                options: PrewarmOptions {
                    threads: (t as u32).max(1),
                    ..options.clone()
                },
            }));
            c.transport
                .send_line(&order.to_line())
                .map_err(|e| lost_error(&c.name, &e))?;
            asked.push(c);
        }
        let mut reports: Vec<PrewarmReport> = Vec::new();
        for c in asked {
            loop {
                if cancel.is_cancelled() {
                    let _ = c.transport.send_line(&Order::Cancel.to_line());
                }
                match wire::next(c, Duration::from_millis(100)) {
                    Ok(Said::Report(Report::Prewarmed { prewarm })) => {
                        reports.push(prewarm);
                        break;
                    }
                    Ok(Said::Report(Report::Failed { error })) => {
                        return Err(EngineError::Internal(format!(
                            "prewarm from load client {}: {error}",
                            c.name
                        )))
                    }
                    Ok(Said::Report(Report::Warning { text })) => {
                        events.warning(format!("{}: {text}", c.name))
                    }
                    Ok(_) => {}
                    Err(e) => return Err(lost_error(&c.name, &e)),
                }
            }
        }
        // The first client's hit rates (they read the same server); the longest time.
        let longest = reports.iter().map(|r| r.seconds).fold(0.0, f64::max);
        let mut report = reports.into_iter().next().unwrap_or_default();
        report.seconds = longest;
        Ok(report)
    }
}

fn lost_error(client: &str, e: &TransportError) -> EngineError {
    EngineError::Internal(format!("load client {client}: {e}"))
}
