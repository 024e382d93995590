//! DB Dyno's environment profiles: one TOML file per environment (a data centre, a
//! cloud, a server before and after a change), safe to commit because it holds no secret.
//!
//! Data flow: text → [`load`] (syntax, [`migrate`] older layouts, types) → [`validate`]
//! (every problem, with file, line and dotted field) → [`Profile`] → [`convert`] into the
//! engine's `Plan`. [`fields`] is the one table of profile keys and the command-line
//! options with the same names; [`catalog`] lists the shipped examples and the user's
//! profiles; [`secrets`] keeps passwords in the OS keyring; [`seed_config`] imports the
//! seed toolkit's `benchmark_config.conf`; [`render`] writes a profile back as TOML;
//! [`store`] saves, renames, duplicates and deletes the user's profiles.
//!
//! Non-goals: running anything (the engine does), storing results (the history does),
//! holding a secret in any file.

pub mod catalog;
pub mod clients;
pub mod convert;
mod error;
pub mod fields;
mod jump;
pub mod load;
pub mod migrate;
pub mod model;
pub mod render;
pub mod secrets;
pub mod seed_config;
mod spans;
pub mod store;
#[cfg(target_os = "linux")]
mod user_keyring;
pub mod validate;

pub use catalog::{list_profiles, resolve_profile, ProfileEntry, ProfileOrigin};
pub use clients::{ClientUrl, ClientUrlError, LoadClient};
pub use convert::SingleCommand;
pub use error::{Problem, ProfileError};
pub use jump::{parse_jump_hosts, JumpHost};
pub use load::{load_file, load_str, Loaded};
pub use model::{
    ClientEntry, MysqlSection, PasswordFrom, PlanSection, Profile, SshAuth, SshSection,
    WorkloadSection, SCHEMA_VERSION,
};
pub use secrets::{SecretError, SecretKind, SecretStore};
