//! DB Dyno's view of the database server around a benchmark: what to verify before a
//! plan runs, what the environment was, and what the server did during each step.
//!
//! Data flows one way through these modules:
//!
//! - [`probe`] gathers facts once: over SQL ([`sql`]) and from the server's operating
//!   system ([`host`], [`os_facts`]: over SSH, locally, or not at all);
//! - [`checks`] turns the facts and a [`dbdyno_engine::Plan`] into [`suite::Check`]s
//!   (pure functions, unit-tested on synthetic facts); [`suite`] runs them and applies
//!   the fixes the app can apply;
//! - [`environment`] turns the same facts into the [`EnvironmentSnapshot`] stored with
//!   every run;
//! - [`mysql_sampler`] polls `SHOW GLOBAL STATUS` once a second on its own connection,
//!   [`status`] turns two polls into a [`MysqlSample`];
//! - [`timeline`] aligns MySQL samples and the monitor crate's OS samples to each
//!   step's exact window and reduces them to [`StepServerFigures`].
//!
//! Non-goals: no printing (the shells print), no storage (the history stores the
//! serializable records), no /proc parsing or SSH plumbing (the monitor crate does it).

pub mod checks;
pub mod environment;
pub mod error;
pub mod host;
pub mod mysql_sampler;
pub mod os_facts;
pub mod probe;
pub mod sql;
pub mod status;
pub mod suite;
pub mod timeline;

pub use environment::{EnvironmentSnapshot, Missing};
pub use error::ChecksError;
pub use host::HostAccess;
pub use mysql_sampler::{MysqlEvent, MysqlSampler, MysqlSamplerConfig};
pub use sql::MysqlClock;
pub use status::MysqlSample;
pub use suite::{
    apply_action, run_suite, ActionOutcome, Check, CheckAction, CheckStatus, Fix, SuiteOptions,
    SuiteReport,
};
pub use timeline::{StepServerFigures, StepWindow, Timeline};
