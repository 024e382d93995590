//! One load client as the coordinator holds it ([`Client`]: its agent's transport, cores,
//! clock offset, whether it left the run) and why a client could not be started or
//! checked ([`ClientsError`]). A leaf of the coordinator: the checks, the steps and the
//! reading of reports all take a client, and it imports none of them.

use crate::clock::ClockOffset;
use crate::transport::{Transport, TransportError};

/// Why the clients could not all be started and checked.
#[derive(Debug, thiserror::Error)]
pub enum ClientsError {
    #[error("load client {client}: {source}")]
    Transport {
        client: String,
        #[source]
        source: TransportError,
    },
    #[error("load client {client}: {reason}")]
    Refused { client: String, reason: String },
    #[error("load client {client} cannot reach the database: {reason}")]
    Database { client: String, reason: String },
    #[error("load client {client} did not answer {what} within {seconds}s")]
    Silent {
        client: String,
        what: &'static str,
        seconds: u64,
    },
}

/// One load client and its agent.
pub(crate) struct Client {
    pub(crate) name: String,
    pub(crate) transport: Box<dyn Transport>,
    pub(crate) cores: u32,
    pub(crate) offset: ClockOffset,
    /// Why the client left the run, once it did.
    pub(crate) lost: Option<String>,
}
