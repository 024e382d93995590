//! The checks of one load client before the run: it answers as the same version, its
//! cores against its share of threads, its clock against this machine's, and its own
//! round trip to the database. What they found becomes rows of the run's check table
//! (`rows.rs`).

use std::time::{Duration, SystemTime};

use dbdyno_engine::clients::{AgentConnect, Order, Report, PROTOCOL_VERSION};
use dbdyno_engine::ConnectOptions;

use super::client::{Client, ClientsError};
use super::wire;
use crate::agent::unix_us;
use crate::clock::{best_offset, ClockSample};

/// Above this many threads per core of a client, its own CPU may set the limit.
pub const THREADS_PER_CORE_WARN: u32 = 16;
/// Clocks further apart than this are corrected for, and said (is NTP running?).
pub(crate) const OFFSET_WARN_MS: f64 = 1000.0;
/// The start instant reaches each client within half a round trip: beyond this the
/// shares' seconds line up loosely.
pub(crate) const RTT_WARN_MS: f64 = 100.0;
/// Clock exchanges per measurement; the fastest one counts.
pub(crate) const CLOCK_SAMPLES: usize = 5;
/// How long an agent gets to answer `hello`, `clock` and `ping` (an SSH start
/// included).
const ANSWER: Duration = Duration::from_secs(30);

/// What the checks found about one client.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientCheck {
    pub client: String,
    pub version: String,
    pub os: String,
    pub arch: String,
    pub cores: u32,
    /// Its share of the plan's largest step.
    pub threads: u32,
    pub clock_offset_ms: f64,
    pub clock_rtt_ms: f64,
    /// `SELECT 1` from that client, in ms.
    pub database_rtt_ms: f64,
    /// How DB Dyno got there: copied, or an earlier copy reused (SSH clients).
    pub note: Option<String>,
}

pub(crate) fn check(
    client: &mut Client,
    connect: &ConnectOptions,
    threads: u32,
) -> Result<ClientCheck, ClientsError> {
    let (version, cores, os, arch) = hello(client)?;
    client.cores = cores;
    measure_clock(client, CLOCK_SAMPLES)?;
    let database_rtt_ms = ping(client, connect)?;
    Ok(ClientCheck {
        note: client.transport.note(),
        client: client.name.clone(),
        version,
        os,
        arch,
        cores,
        threads,
        clock_offset_ms: client.offset.offset_us as f64 / 1000.0,
        clock_rtt_ms: client.offset.rtt_us as f64 / 1000.0,
        database_rtt_ms,
    })
}

fn transport(client: &Client, source: crate::transport::TransportError) -> ClientsError {
    ClientsError::Transport {
        client: client.name.clone(),
        source,
    }
}

fn silent(client: &Client, what: &'static str) -> ClientsError {
    ClientsError::Silent {
        client: client.name.clone(),
        what,
        seconds: ANSWER.as_secs(),
    }
}

type Hello = (String, u32, String, String);

fn hello(client: &mut Client) -> Result<Hello, ClientsError> {
    let order = Order::Hello {
        version: PROTOCOL_VERSION.to_string(),
    };
    client
        .transport
        .send_line(&order.to_line())
        .map_err(|e| transport(client, e))?;
    let answer = wire::expect(client, ANSWER, |r| match r {
        Report::Hello {
            version,
            cores,
            os,
            arch,
        } => Some(Ok((version, cores, os, arch))),
        Report::Refused { reason } => Some(Err(reason)),
        _ => None,
    })
    .map_err(|e| transport(client, e))?
    .ok_or_else(|| silent(client, "hello"))?;
    let hello = answer.map_err(|reason| ClientsError::Refused {
        client: client.name.clone(),
        reason,
    })?;
    // The agent checked our version; check its too (an older agent may not).
    if hello.0 != PROTOCOL_VERSION {
        return Err(ClientsError::Refused {
            client: client.name.clone(),
            reason: format!(
                "the agent is DB Dyno {} but this is {PROTOCOL_VERSION}",
                hello.0
            ),
        });
    }
    Ok(hello)
}

/// Measures the client's clock offset over `samples` exchanges (the fastest counts).
pub(crate) fn measure_clock(client: &mut Client, samples: usize) -> Result<(), ClientsError> {
    let mut taken = Vec::with_capacity(samples);
    for _ in 0..samples {
        let sent_us = unix_us(SystemTime::now());
        client
            .transport
            .send_line(&Order::Clock.to_line())
            .map_err(|e| transport(client, e))?;
        let client_us = wire::expect(client, ANSWER, |r| match r {
            Report::Clock { unix_us } => Some(unix_us),
            _ => None,
        })
        .map_err(|e| transport(client, e))?
        .ok_or_else(|| silent(client, "clock"))?;
        taken.push(ClockSample {
            sent_us,
            client_us,
            received_us: unix_us(SystemTime::now()),
        });
    }
    if let Some(best) = best_offset(&taken) {
        client.offset = best;
    }
    Ok(())
}

fn ping(client: &mut Client, connect: &ConnectOptions) -> Result<f64, ClientsError> {
    let order = Order::Ping {
        connect: Box::new(AgentConnect::new(connect)),
    };
    client
        .transport
        .send_line(&order.to_line())
        .map_err(|e| transport(client, e))?;
    let answer = wire::expect(client, ANSWER + Duration::from_secs(30), |r| match r {
        Report::Pinged { rtt_ms } => Some(Ok(rtt_ms)),
        Report::Failed { error } => Some(Err(error)),
        _ => None,
    })
    .map_err(|e| transport(client, e))?
    .ok_or_else(|| silent(client, "ping"))?;
    answer.map_err(|reason| ClientsError::Database {
        client: client.name.clone(),
        reason,
    })
}
