//! `dbdyno profile list|check|show|secret`: environment profiles and their secrets.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use anyhow::{anyhow, Result};
use dbdyno_profile::secrets::{Secret, SecretKind, SecretStore};
use dbdyno_profile::{list_profiles, resolve_profile};

use crate::args_history::{ProfileArgs, ProfileCommand, SecretCommand};
use crate::exit::EXIT_USAGE;

pub fn run(a: &ProfileArgs) -> ExitCode {
    match run_inner(a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("FATAL: {e:#}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn kind(word: &str) -> Result<SecretKind> {
    SecretKind::parse(word).ok_or_else(|| {
        anyhow!("'{word}' is not a secret kind: mysql, ssh-password or ssh-passphrase")
    })
}

fn run_inner(a: &ProfileArgs) -> Result<ExitCode> {
    match &a.command {
        ProfileCommand::List { json } => {
            let all = list_profiles()?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&all)?);
            } else {
                println!(
                    "User profiles: {}",
                    dbdyno_profile::catalog::user_profiles_dir()?.display()
                );
                for line in dbdyno_profile::catalog::list_lines(&all) {
                    println!("{line}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ProfileCommand::Check { profiles } => {
            let mut bad = 0;
            for p in profiles {
                match resolve_profile(p) {
                    Ok(l) => {
                        for n in &l.notices {
                            println!("{p}: note: {n}");
                        }
                        println!("{p}: ok (profile '{}')", l.profile.name);
                    }
                    Err(e) => {
                        bad += 1;
                        eprintln!("{e}");
                    }
                }
            }
            Ok(if bad == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_USAGE)
            })
        }
        ProfileCommand::Show { profile } => {
            let l = resolve_profile(profile)?;
            for n in &l.notices {
                eprintln!("NOTE: {n}");
            }
            print!(
                "{}",
                dbdyno_profile::render::to_toml(&l.profile, &Default::default())
            );
            Ok(ExitCode::SUCCESS)
        }
        ProfileCommand::Secret { command } => secret(command),
    }
}

fn secret(c: &SecretCommand) -> Result<ExitCode> {
    let store = SecretStore::new();
    match c {
        SecretCommand::Set { profile, kind: k } => {
            let k = kind(k)?;
            let value = if std::io::stdin().is_terminal() {
                dbdyno_session::resolve::Ask::secret(
                    &crate::access::Terminal,
                    &format!("{} for profile {profile}: ", k.word()),
                )?
            } else {
                let mut line = String::new();
                std::io::stdin().lock().read_line(&mut line)?;
                line.trim_end_matches(['\n', '\r']).to_string()
            };
            if value.is_empty() {
                return Err(anyhow!("an empty secret was not stored"));
            }
            store.set(profile, k, &Secret::new(value))?;
            println!(
                "Stored in the OS keyring as {}/{}.",
                dbdyno_profile::secrets::SERVICE,
                SecretStore::account(profile, k)
            );
        }
        SecretCommand::Delete { profile, kind: k } => {
            let k = kind(k)?;
            if store.delete(profile, k)? {
                println!("Deleted {}.", SecretStore::account(profile, k));
            } else {
                println!("Nothing stored as {}.", SecretStore::account(profile, k));
            }
        }
        SecretCommand::Status { profile } => {
            for k in SecretKind::ALL {
                let state = match store.get(profile, k) {
                    Ok(Some(_)) => "stored".to_string(),
                    Ok(None) => "not stored".to_string(),
                    Err(e) => format!("unknown ({e})"),
                };
                println!("{:<40} {state}", SecretStore::account(profile, k));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
