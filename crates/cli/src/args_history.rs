//! Options and subcommands of profiles and the run history: `--profile`, `--env`,
//! `--data-dir`, `--no-history` on the commands that run load; `runs`, `import` and
//! `profile` as commands of their own.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// Profile and history options of `ladder` and `run`. The profile-only settings
/// (`--ssh-*`, `--data-disk`, `--labels`, ...) override the profile's values; every
/// profile key has the option of the same name (docs/profiles.md).
#[derive(Debug, Args, Clone, Default)]
pub struct HistoryOpts {
    /// Environment profile: a TOML file, or the name of a profile in your config
    /// directory or of a shipped example (`dbdyno profile list`).
    #[arg(long)]
    pub profile: Option<String>,
    /// Environment name the run is filed under (default: the profile's name, else host:port).
    #[arg(long)]
    pub env: Option<String>,
    /// History directory (default: DBDYNO_DATA_DIR, else the user data directory).
    #[arg(long, env = "DBDYNO_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Do not record this run in the history.
    #[arg(long)]
    pub no_history: bool,
    /// Where the run's results go (a spill file, `dbdyno import results FILE` brings it
    /// in) when the history cannot take them: a full disk, a read-only file system, a
    /// lock held too long. Tried first; then beside the history, then the temporary
    /// directory. A history that cannot be written at the start refuses the run unless
    /// this directory takes the results.
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
    /// When the history stops taking writes during the run: go on measuring (the
    /// default; every step goes to the spill file) or stop as Ctrl-C does.
    #[arg(long, value_parser = ["continue", "stop"], value_name = "POLICY")]
    pub on_history_error: Option<String>,
    /// Description of the environment (profile key `description`).
    #[arg(long)]
    pub description: Option<String>,
    /// Comma-separated labels of the environment (profile key `labels`).
    #[arg(long, value_delimiter = ',')]
    pub labels: Vec<String>,
    /// Block device of the MySQL data directory (profile key `data_disk`).
    #[arg(long)]
    pub data_disk: Option<String>,
    /// Where the MySQL password comes from: keyring, env (MYSQL_PWD), prompt or none.
    #[arg(long)]
    pub mysql_password_from: Option<String>,
    /// SSH host of the database server (profile `[ssh] host`).
    #[arg(long)]
    pub ssh_host: Option<String>,
    #[arg(long)]
    pub ssh_port: Option<u16>,
    #[arg(long)]
    pub ssh_user: Option<String>,
    /// agent, key or password.
    #[arg(long)]
    pub ssh_auth: Option<String>,
    #[arg(long)]
    pub ssh_key_path: Option<String>,
    /// Accepted host key, as `ssh-keygen -lf` prints it (SHA256:...).
    #[arg(long)]
    pub ssh_host_key_fingerprint: Option<String>,
    /// Jump hosts in between, as OpenSSH's ProxyJump: [user@]host[:port], comma-separated,
    /// nearest first (profile `[ssh] jump`).
    #[arg(long)]
    pub ssh_jump: Option<String>,
    /// The OpenSSH client config read for the host's entry, as `ssh -F` (default
    /// ~/.ssh/config; none: read none; profile `[ssh] config`).
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<String>,
}

/// `dbdyno runs ...`: the run history.
#[derive(Debug, Args)]
pub struct RunsArgs {
    #[command(subcommand)]
    pub command: RunsCommand,
    /// History directory (default: DBDYNO_DATA_DIR, else the user data directory).
    #[arg(long, global = true, env = "DBDYNO_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Every run, newest first.
    List {
        /// Only the runs of this environment.
        #[arg(long)]
        env: Option<String>,
        /// A JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Every figure of every step of one run.
    Show {
        id: i64,
        #[arg(long)]
        json: bool,
    },
    /// Delete a run and everything stored with it.
    Delete { id: i64 },
    /// The environments' hardware records (`dbdyno hwtest`, `dbdyno import hardware`),
    /// newest first: random IOPS, fsyncs/s, sequential MiB/s, CPU and memory figures.
    Hardware {
        #[arg(long)]
        env: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The whole run (intervals, histograms, samples, snapshots) as one JSON document.
    Export {
        id: i64,
        /// JSON is the only export format (reports: `dbdyno report`).
        #[arg(long, required = true)]
        json: bool,
        /// Write to this file instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

/// `dbdyno import ...`: bring outside results and configs in.
#[derive(Debug, Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub command: ImportCommand,
}

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// The seed toolkit's benchmark_config.conf → a profile (the password goes to the
    /// keyring, never into the file).
    Config {
        file: PathBuf,
        /// The profile file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Profile name (default: the output file's name).
        #[arg(short, long)]
        name: Option<String>,
        /// Drop the password instead of storing it in the keyring.
        #[arg(long)]
        no_keyring: bool,
        /// Replace the output file if it exists.
        #[arg(long)]
        force: bool,
    },
    /// sysbench fileio, cpu and memory logs → one hardware record of the environment.
    Hardware {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Environment the record belongs to.
        #[arg(long, required = true)]
        env: String,
        /// The host the logs were taken on, for the record.
        #[arg(long)]
        host: Option<String>,
        #[arg(long, env = "DBDYNO_DATA_DIR")]
        data_dir: Option<PathBuf>,
        /// Print the record as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A run's results document → a run in the history: the spill file a run writes
    /// when the history cannot take its results (its partial record is replaced), or a
    /// `--json` file (give --env).
    Results {
        file: PathBuf,
        /// Environment to file the run under (default: the one the spill file names).
        #[arg(long)]
        env: Option<String>,
        /// Import even when the same file is already in the history.
        #[arg(long)]
        force: bool,
        #[arg(long, env = "DBDYNO_DATA_DIR")]
        data_dir: Option<PathBuf>,
    },
    /// sysbench text output → runs in the history, one run per file.
    Sysbench {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Environment the runs belong to.
        #[arg(long, required = true)]
        env: String,
        /// The scenario, when the file name does not tell it. Without it the statement
        /// mix is used where it is unambiguous (with a note); a reads-only mix is not
        /// (oltp_point_select, select_random_points, ...), so it must be given.
        #[arg(long)]
        scenario: Option<String>,
        #[arg(long, value_delimiter = ',')]
        labels: Vec<String>,
        /// When the (first) run in the file started: RFC 3339 (2026-11-29T23:25:33Z) or
        /// 'YYYY-MM-DD HH:MM:SS' (UTC). Without it, the file's modification time minus the
        /// run time is used, and the run records that its date came from the file time.
        #[arg(long)]
        started_at: Option<String>,
        /// Import even when a file with the same content is already in the history.
        #[arg(long)]
        force: bool,
        #[arg(long, env = "DBDYNO_DATA_DIR")]
        data_dir: Option<PathBuf>,
        /// Print the imported runs as a JSON array.
        #[arg(long)]
        json: bool,
    },
}

/// `dbdyno profile ...`: list, check, and keep secrets for profiles.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[command(subcommand)]
    pub command: ProfileCommand,
}

#[derive(Debug, Subcommand)]
pub enum ProfileCommand {
    /// The shipped examples and your own profiles.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Check profiles; print every problem with file, line and field.
    Check {
        #[arg(required = true)]
        profiles: Vec<String>,
    },
    /// Print a profile as the current layout (older layouts migrated).
    Show { profile: String },
    /// Store or delete a secret of a profile in the OS keyring.
    Secret {
        #[command(subcommand)]
        command: SecretCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum SecretCommand {
    /// Store a secret: read from the terminal, or one line from stdin when piped.
    Set {
        /// Profile name.
        profile: String,
        /// mysql, ssh-password or ssh-passphrase.
        kind: String,
    },
    /// Delete a stored secret.
    Delete { profile: String, kind: String },
    /// Say whether a secret is stored (never prints it).
    Status { profile: String },
}
