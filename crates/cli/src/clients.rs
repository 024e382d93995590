//! `--clients`: the load clients a `ladder` or `run` drives its load from. The flag
//! sets the profile's `plan.clients`; the shared resolution
//! (`dbdyno_session::resolve::clients_plan`) then logs in to each SSH client with its
//! `[[clients]]` entry, else with the SSH options given for the server.

use anyhow::{Context, Result};
use dbdyno_clients::{ClientSpec, ClientsPlan};
use dbdyno_session::resolve;

use crate::access;
use crate::args::SshArgs;
use crate::overlay::Applied;

/// The clients of the run; None: this machine alone, exactly as without clients.
pub fn plan(
    flag: Option<&str>,
    applied: &Applied,
    ssh: &SshArgs,
    data_dir: Option<&std::path::Path>,
) -> Result<Option<ClientsPlan>> {
    let mut profile = applied.profile.clone();
    if let Some(list) = flag {
        // Parsed here first, for a message that names the flag.
        let specs = ClientSpec::parse_list(list).context("--clients")?;
        profile.plan.clients = Some(specs.iter().map(ToString::to_string).collect());
    }
    if profile.load_clients() == [dbdyno_profile::clients::LoadClient::Local] {
        return Ok(None);
    }
    let login = access::ssh_login(applied, ssh, || {
        "SSH password for the load clients: ".to_string()
    })?;
    let known = access::known_hosts(ssh, data_dir)?;
    Ok(resolve::clients_plan(&profile, &login, &known)?)
}
