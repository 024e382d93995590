//! The option groups several commands share (the server connection, SSH, the monitor
//! switch) and the value parsers of their options. A leaf of the options: `args` and the
//! commands' own option files (`args_report`, `args_hwtest`) build on it.

use clap::Args;
use dbdyno_engine::ConnectOptions;

#[derive(Debug, Args, Clone)]
pub struct ConnArgs {
    #[arg(long, default_value_t = ConnectOptions::default().host)]
    pub mysql_host: String,
    #[arg(long, default_value_t = ConnectOptions::default().port)]
    pub mysql_port: u16,
    /// Unix socket (host and port are then ignored).
    #[arg(long)]
    pub mysql_socket: Option<String>,
    #[arg(long, default_value_t = ConnectOptions::default().user)]
    pub mysql_user: String,
    /// Password. Prefer MYSQL_PWD or the prompt (give the option without a value):
    /// a password on the command line is visible to other users of the machine.
    #[arg(long, num_args = 0..=1, default_missing_value = "\u{0}prompt")]
    pub mysql_password: Option<String>,
    #[arg(long, default_value_t = ConnectOptions::default().database)]
    pub mysql_db: String,
    /// sysbench's switch: on = encrypt without verifying (same as --mysql-ssl-mode=required).
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool)]
    pub mysql_ssl: Option<bool>,
    /// disabled, required, verify_ca or verify_identity.
    #[arg(long)]
    pub mysql_ssl_mode: Option<String>,
    /// CA certificate (PEM) for verify_ca / verify_identity.
    #[arg(long)]
    pub mysql_ssl_ca: Option<String>,
    /// The server's RSA public key (PEM) for a caching_sha2_password login over plain TCP.
    #[arg(long, value_name = "FILE")]
    pub mysql_server_public_key_path: Option<String>,
    /// Ask the server for its RSA public key for that login (not authenticated over plain
    /// TCP: prefer TLS or --mysql-server-public-key-path).
    #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = parse_bool)]
    pub mysql_get_server_public_key: Option<bool>,
    /// Error codes that restart a transaction instead of stopping ("all" or a list).
    #[arg(long, default_value = "1213,1020,1205")]
    pub mysql_ignore_errors: String,
    /// auto (server-side prepared statements) or disable.
    #[arg(long, default_value = "auto")]
    pub db_ps_mode: String,
    /// Only MySQL-protocol servers are supported.
    #[arg(long, default_value = "mysql")]
    pub db_driver: String,
}

/// How to log in over SSH and what to sample: `run`, `ladder`, `check` and `monitor`.
#[derive(Debug, Args, Clone, Default)]
pub struct SshArgs {
    /// SSH private key file (its passphrase: DBDYNO_SSH_PASSPHRASE, the keyring, or a prompt).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["ssh_password", "ssh_agent"])]
    pub ssh_key: Option<std::path::PathBuf>,
    /// SSH password: the value, DBDYNO_SSH_PASSWORD, or a prompt when given without a value.
    #[arg(long, num_args = 0..=1, default_missing_value = "\u{0}prompt", conflicts_with = "ssh_agent")]
    pub ssh_password: Option<String>,
    /// Log in with the keys of the running ssh-agent (SSH_AUTH_SOCK).
    #[arg(long)]
    pub ssh_agent: bool,
    /// Trust an SSH host key seen for the first time and store it (a changed key is always refused).
    #[arg(long)]
    pub accept_new_host_key: bool,
    /// DB Dyno's known_hosts file (default: known_hosts in the data directory).
    #[arg(long, env = "DBDYNO_KNOWN_HOSTS", value_name = "FILE")]
    pub known_hosts: Option<std::path::PathBuf>,
    /// Data disk device(s) to sample, overriding the resolver (kernel names: nvme0n1, sda).
    #[arg(long, value_delimiter = ',')]
    pub device: Vec<String>,
}

/// Whether `run` and `ladder` sample the server's OS (`check` and `monitor` always do).
#[derive(Debug, Args, Clone, Default)]
pub struct MonitorToggle {
    /// Do not sample the server's OS (no SSH, no local /proc): MySQL-side metrics only,
    /// as for a managed database.
    #[arg(long)]
    pub no_monitor: bool,
    /// Monitor the server during the sysbench-form `run` too (ladder always does;
    /// `run` does when --ssh-host is given).
    #[arg(long)]
    pub monitor: bool,
    /// Serve the run's live figures to Prometheus at http://HOST:PORT/metrics
    /// (OpenMetrics) while it runs; a loopback address unless --metrics-allow-remote.
    #[arg(long, value_name = "HOST:PORT")]
    pub metrics_addr: Option<String>,
    /// Let --metrics-addr listen on an address other than loopback.
    #[arg(long, requires = "metrics_addr")]
    pub metrics_allow_remote: bool,
}

/// sysbench's boolean spellings.
/// `--sla`: a latency target such as p95<=20ms.
pub fn parse_sla(s: &str) -> Result<dbdyno_engine::SlaTarget, String> {
    s.parse()
        .map_err(|e: dbdyno_engine::sla::SlaParseError| e.to_string())
}

pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        other => Err(format!("'{other}' is not on/off")),
    }
}

/// `--prepare=MODE`: always, if-missing, never, resume, or the older on/off.
pub fn parse_prepare_mode(s: &str) -> Result<dbdyno_engine::PrepareMode, String> {
    s.parse()
}
