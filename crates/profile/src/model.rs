//! The profile as it is in a file (schema version 1). Every field of `[mysql]`, `[ssh]`,
//! `[plan]` and `[workload]` is optional: what a profile leaves out takes the engine's
//! default, and the command line may override anything (see [`crate::fields`]).

use serde::{Deserialize, Serialize};

pub use dbdyno_engine::open_loop::RateDist;
pub use dbdyno_engine::plan::TlsMode;
pub use dbdyno_engine::workload::PsMode;

/// The layout this build writes. Older layouts are migrated on load ([`crate::migrate`]).
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub schema_version: u32,
    /// The environment's name: runs are filed under it in the history.
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Free tags to group environments: idc, cloud, nvme, mysql80...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(default)]
    pub mysql: MysqlSection,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh: Option<SshSection>,
    /// Block device of the MySQL data directory (`nvme0n1`), when the automatic resolver
    /// must be overridden. A whole device, not a partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_disk: Option<String>,
    #[serde(default)]
    pub plan: PlanSection,
    #[serde(default)]
    pub workload: WorkloadSection,
    /// `[[clients]]`: machines that can drive load besides this one, each with its SSH
    /// login. None: this machine alone. Which of them take part is `plan.clients`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientEntry>,
}

impl Profile {
    /// An empty profile of the current layout: every setting at the engine's default.
    pub fn named(name: impl Into<String>) -> Profile {
        Profile {
            schema_version: SCHEMA_VERSION,
            name: name.into(),
            description: String::new(),
            labels: Vec::new(),
            mysql: MysqlSection::default(),
            ssh: None,
            data_disk: None,
            plan: PlanSection::default(),
            workload: WorkloadSection::default(),
            clients: Vec::new(),
        }
    }
}

/// Where the MySQL password comes from. The password itself is never in a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PasswordFrom {
    /// The OS keyring (account `<name>/mysql`), else the MYSQL_PWD environment variable.
    #[default]
    Keyring,
    /// MYSQL_PWD only.
    Env,
    /// Ask on the terminal.
    Prompt,
    /// No password (socket or passwordless accounts).
    None,
}

/// `[mysql]`: key `X` is the option `--mysql-X`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MysqlSection {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socket: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The schema the benchmark tables live in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssl_mode: Option<TlsMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssl_ca: Option<String>,
    /// The server's RSA public key (PEM), for a `caching_sha2_password` login over
    /// plain TCP (MySQL 8's default plugin) that needs a full authentication.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_public_key_path: Option<String>,
    /// Ask the server for that key instead (`--get-server-public-key`). Off by default:
    /// over plain TCP the key is not authenticated. TLS needs neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get_server_public_key: Option<bool>,
    /// Error codes that restart a transaction ("1213,1020,1205", "all", "none").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore_errors: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_from: Option<PasswordFrom>,
}

/// How to log in over SSH for server monitoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SshAuth {
    /// The SSH agent (SSH_AUTH_SOCK).
    Agent,
    /// A private key file (`key_path`); its passphrase, if any, from the keyring.
    Key,
    /// A password from the keyring or DBDYNO_SSH_PASSWORD.
    Password,
}

/// `[ssh]`: key `X` is the option `--ssh-X`. No section: no SSH (a managed database).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SshSection {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<SshAuth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_path: Option<String>,
    /// The host key accepted for this server, as `ssh-keygen -l` prints it
    /// ("SHA256:..."). A different key refuses the connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_key_fingerprint: Option<String>,
    /// The jump hosts in between, as OpenSSH's `ProxyJump` writes them:
    /// `[user@]host[:port]`, comma-separated, nearest first ("none": no jump host).
    /// Each hop logs in as this section says (user, when the hop names none, and
    /// credentials) and its host key is checked like the server's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jump: Option<String>,
    /// The OpenSSH client config to read for this host's `Host` entry (HostName, User,
    /// Port, IdentityFile, ProxyJump fill what this section leaves out), as `ssh -F`
    /// names it. Default: `~/.ssh/config` when it exists; "none": read no config.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
}

/// One `[[clients]]` entry: a load client machine and how to log in to it. The login
/// options are the server's `[ssh]` keys (`auth`, `key_path`, `host_key_fingerprint`),
/// read into the same type; host, port and user come from `url` and are refused here.
/// A password or key passphrase lives in the keyring under
/// [`crate::clients::client_secret_scope`], never in the file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientEntry {
    /// `ssh://[user@]host[:port]`, or `local` for this machine.
    pub url: String,
    /// The SSH login options; an option left out takes the server's `[ssh]` one.
    #[serde(flatten)]
    pub ssh: SshSection,
}

/// `[plan]`: the thread ladder and its phases; key `X` is the option `--X`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlanSection {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenarios: Option<Vec<String>>,
    /// The thread ladder (`--threads`, also spelled `--ladder`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<Vec<u32>>,
    /// Seconds per measured step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cooldown: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// A rate ladder (`--rates`): one open-loop step per arrival rate, in transactions
    /// per second, in place of the thread ladder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rates: Option<Vec<u32>>,
    /// How arrivals are spaced under `rate` or `rates` (`--rate-dist`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_dist: Option<RateDist>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_interval: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentile: Option<f64>,
    /// Seconds the server may stay silent on every connection before a step fails
    /// (`--stall-timeout`, default 30).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stall_timeout: Option<u64>,
    /// "always", "if-missing" or "never"; older profiles' true / false read as
    /// "if-missing" / "never".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prepare: Option<dbdyno_engine::PrepareMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prewarm: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prewarm_until_hit_rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cleanup: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_threads: Option<u32>,
    /// Runs of every step, interleaved (`--repeat`, 1 to 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// The latency target each step is judged against (`--sla`): "p95<=20ms". Kept as
    /// written; [`crate::convert`] reads it and names the problem on this key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sla: Option<String>,
    /// Most extra steps per scenario that refine the capacity at `sla` (`--sla-search`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sla_search: Option<u32>,
    /// Whether a failed step ends the ladder or it goes on (`--on-step-error`):
    /// "stop" (the default) or "continue".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_step_error: Option<dbdyno_engine::StepErrorPolicy>,
    /// The load clients that take part (`--clients`): `local` and `ssh://` URLs, each
    /// step's threads split across them. Not set: this machine followed by every
    /// `[[clients]]` entry (none: this machine alone). Leave `local` out to drive the
    /// load from the other machines only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clients: Option<Vec<String>>,
}

/// `[workload]`: sysbench's script options; key `X` is the option `--X`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkloadSection {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_selects: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simple_ranges: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum_ranges: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_ranges: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_ranges: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_updates: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_index_updates: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delete_inserts: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_selects: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_trx: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_inc: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secondary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub create_secondary: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mysql_storage_engine: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random_points: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number_of_ranges: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_spec_iter: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_spec_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_spec_res: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_pareto_h: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rand_zipfian_exp: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub db_ps_mode: Option<PsMode>,
    // sysbench-tpcc's options, read by `tpcc` steps only (`tables` and
    // `mysql_storage_engine` above serve them too, as on sysbench-tpcc's command line).
    /// `--scale`: warehouses per set of tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_fk: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force_pk: Option<bool>,
    /// RC, RR or SER, sysbench-tpcc's spelling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trx_level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_purge: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mysql_table_options: Option<String>,
}
