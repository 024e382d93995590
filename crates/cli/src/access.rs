//! The CLI's side of reaching the server: its flags and its terminal handed to the
//! shared resolution (`dbdyno_session::resolve`), which turns the profile into the
//! MySQL password, the SSH login and the host access, exactly as the app does.

use std::io::{IsTerminal, Write};

use anyhow::{Context, Result};
use dbdyno_engine::Plan;
use dbdyno_monitor::HostAccess;
use dbdyno_session::metrics::MetricsRequest;
use dbdyno_session::resolve::{self, Ask, KnownHosts, PasswordRequest, ResolveError, SshLogin};
use dbdyno_session::RunRequest;
use dbdyno_ssh::{SshConnection, SshTarget};

use crate::args::{ConnArgs, MonitorToggle, SshArgs};
use crate::overlay::Applied;

/// Marks an option given without a value: ask on the terminal.
pub const PROMPT: &str = "\u{0}prompt";

/// A secret option's value (`--mysql-password`, `--ssh-password`, `--admin-password`),
/// or the terminal's answer to `question()` when it was given without one.
pub fn flag_secret(
    value: Option<&str>,
    what: &str,
    question: impl FnOnce() -> String,
) -> Result<Option<String>> {
    match value {
        Some(PROMPT) => Terminal
            .secret(&question())
            .map(Some)
            .with_context(|| format!("reading {what} from the terminal")),
        other => Ok(other.map(str::to_string)),
    }
}

/// The terminal, when stdin and stderr are one.
pub struct Terminal;

impl Ask for Terminal {
    fn interactive(&self) -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    fn can_type_secret(&self) -> bool {
        std::io::stdin().is_terminal()
    }

    fn secret(&self, question: &str) -> std::io::Result<String> {
        dbdyno_profile::secrets::prompt_hidden(question)
    }

    fn confirm(&self, question: &str) -> std::io::Result<bool> {
        eprint!("{question} [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
    }
}

/// Fills the plan's MySQL password: `--mysql-password`, else as the profile (or
/// `--mysql-password-from`) says. A keyring that cannot be read is a warning: the
/// server then says whether a password was needed.
pub fn fill_mysql_password(plan: &mut Plan, conn: &ConnArgs, applied: &Applied) -> Result<()> {
    let request = PasswordRequest {
        given: flag_secret(conn.mysql_password.as_deref(), "the password", || {
            let c = applied.profile.connect_options();
            format!("Password for {}@{}: ", c.user, c.host)
        })?,
        keyring_name: applied.keyring_name.as_deref(),
        from_file: applied.from_file,
        ask: Some(&Terminal),
    };
    plan.connect.password = match resolve::mysql_password(&applied.profile, &request) {
        Ok(p) => p,
        Err(ResolveError::Keyring(e)) => {
            eprintln!("WARNING: {e}");
            None
        }
        Err(e) => return Err(e.into()),
    };
    Ok(())
}

/// DB Dyno's own known_hosts: `--known-hosts` (then the only authority), else
/// `known_hosts` in the data directory, with the user's ~/.ssh/known_hosts read too.
pub fn known_hosts(ssh: &SshArgs, data_dir: Option<&std::path::Path>) -> Result<KnownHosts> {
    if let Some(f) = &ssh.known_hosts {
        return Ok(KnownHosts {
            file: f.clone(),
            user_file_too: false,
        });
    }
    let dir = dbdyno_history::paths::resolve_data_dir(data_dir)
        .context("finding DB Dyno's data directory for known_hosts")?;
    Ok(KnownHosts {
        file: dir.join("known_hosts"),
        user_file_too: true,
    })
}

/// The SSH login the command line gives (`--ssh-*`, the password asked with
/// `question` when `--ssh-password` says so), for the server's host or the load clients.
pub fn ssh_login<'a>(
    applied: &'a Applied,
    ssh: &SshArgs,
    question: impl FnOnce() -> String,
) -> Result<SshLogin<'a>> {
    let password = flag_secret(ssh.ssh_password.as_deref(), "the SSH password", question)?;
    Ok(SshLogin {
        key: ssh.ssh_key.clone(),
        password,
        agent: ssh.ssh_agent,
        accept_new_host_key: ssh.accept_new_host_key,
        // Only a profile file has SSH secrets in the keyring.
        keyring_name: if applied.from_file {
            applied.keyring_name.as_deref()
        } else {
            None
        },
        ask: Some(&Terminal),
    })
}

/// The SSH target of the profile (with the command line's `--ssh-*`), or `None`.
pub fn ssh_target(
    applied: &Applied,
    ssh: &SshArgs,
    data_dir: Option<&std::path::Path>,
) -> Result<Option<SshTarget>> {
    if applied.profile.ssh.is_none() {
        return Ok(None);
    }
    let login = ssh_login(applied, ssh, || {
        let s = applied.profile.ssh.as_ref();
        let user = s.and_then(|s| s.user.clone()).unwrap_or_default();
        let host = s.and_then(|s| s.host.clone()).unwrap_or_default();
        format!("SSH password for {user}@{host}: ")
    })?;
    Ok(resolve::ssh_target(
        &applied.profile,
        &login,
        &known_hosts(ssh, data_dir)?,
    )?)
}

/// Connects once before anything runs (see `dbdyno_session::resolve::connect_trusted`),
/// saying on stderr when a first-seen key was stored.
pub fn connect_trusted(target: &SshTarget) -> Result<SshConnection> {
    let trusted = resolve::connect_trusted(target, Some(&Terminal))?;
    if let Some(note) = trusted.note {
        eprintln!("{note}");
    }
    Ok(trusted.connection)
}

/// `--device`, else the profile's data disk: the devices to sample instead of the resolver's.
pub fn devices(applied: &Applied, ssh: &SshArgs) -> Vec<String> {
    if ssh.device.is_empty() {
        applied.profile.data_disk_devices()
    } else {
        ssh.device.clone()
    }
}

/// The run of `plan`, with how this command reaches the server's OS (decided once for
/// the checks, the environment snapshot and the samplers) and whether to monitor it
/// (`default_on` false: the sysbench form, which monitors only with an SSH host or
/// `--monitor`). An SSH host key is checked (and accepted, when the user says so) here,
/// and the session kept for the sampler.
pub fn access(
    plan: Plan,
    applied: &Applied,
    ssh: &SshArgs,
    toggle: &MonitorToggle,
    default_on: bool,
    data_dir: Option<&std::path::Path>,
) -> Result<RunRequest> {
    let has_ssh = applied.profile.ssh.is_some();
    let monitor = plan.steps().next().is_some() && (default_on || has_ssh || toggle.monitor);
    let target = if toggle.no_monitor || !monitor {
        None
    } else {
        ssh_target(applied, ssh, data_dir)?
    };
    let conn = match &target {
        Some(t) => Some(connect_trusted(t)?),
        None => None,
    };
    let metrics = match &toggle.metrics_addr {
        Some(a) => Some(MetricsRequest::for_run(
            a,
            toggle.metrics_allow_remote,
            &applied.profile,
            &plan,
        )?),
        None => None,
    };
    Ok(RunRequest {
        access: HostAccess::decide(&plan.connect, target, toggle.no_monitor),
        devices: devices(applied, ssh),
        ssh: conn,
        monitor,
        metrics,
        ..RunRequest::new(plan)
    })
}
