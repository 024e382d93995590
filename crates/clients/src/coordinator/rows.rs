//! The load clients' checks as rows of the run's check table: each with a status, what
//! was seen and, when it warns or fails, why and the fix, like every other check. One
//! row per client and check, its id naming the client (`clients.clock:ssh://b@h:22`),
//! so that a table of three clients keeps three rows of each.

use dbdyno_checks::{Check, CheckStatus};

use super::check::{ClientCheck, OFFSET_WARN_MS, RTT_WARN_MS, THREADS_PER_CORE_WARN};
use super::client::ClientsError;
use crate::spec::ClientSpec;

/// The checks a client goes through, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Logged in to, DB Dyno copied there (or found) and started, same version.
    Reachable,
    Cores,
    Clock,
    /// `SELECT 1` from that client.
    Database,
}

impl Stage {
    fn key(self) -> &'static str {
        match self {
            Stage::Reachable => "reachable",
            Stage::Cores => "cores",
            Stage::Clock => "clock",
            Stage::Database => "database",
        }
    }

    fn title(self, client: &str) -> String {
        match self {
            Stage::Reachable => format!("Load client {client} reachable, DB Dyno started there"),
            Stage::Cores => format!("Load client {client}: cores for its threads"),
            Stage::Clock => format!("Load client {client}: clock"),
            Stage::Database => format!("Load client {client} reaches the database"),
        }
    }

    fn why(self) -> &'static str {
        match self {
            Stage::Reachable => {
                "every step is split across the load clients: a client that cannot be reached, or runs another DB Dyno, cannot take its share"
            }
            Stage::Cores => {
                "a client whose own CPU saturates measures itself, not the server"
            }
            Stage::Clock => {
                "all clients start measuring at one instant given on each client's clock: the offset is corrected for, but a clock far off or a slow round trip lines the shares' seconds up loosely"
            }
            Stage::Database => {
                "each client connects to the database itself, with the same host, port and account as this machine"
            }
        }
    }

    fn row(self, client: &str, status: CheckStatus, seen: impl Into<String>) -> Check {
        Check::new(
            &format!("clients.{}:{client}", self.key()),
            &self.title(client),
            status,
            seen,
            self.why(),
        )
    }
}

impl ClientCheck {
    /// One row per check of this client; `note`: how DB Dyno got there (copied, or
    /// an earlier copy reused).
    pub fn rows(&self) -> Vec<Check> {
        let c = self.client.as_str();
        let mut reached = format!(
            "DB Dyno {} answers on {}/{}",
            self.version, self.os, self.arch
        );
        if let Some(note) = &self.note {
            reached.push_str(&format!("; {note}"));
        }
        let per_core = self.cores.max(1) * THREADS_PER_CORE_WARN;
        let cores = if self.threads > per_core {
            Stage::Cores
                .row(
                    c,
                    CheckStatus::Warn,
                    format!(
                        "{} threads on {} cores (more than {THREADS_PER_CORE_WARN} per core)",
                        self.threads, self.cores
                    ),
                )
                .with_fix(
                    "add load clients, or watch this client's client-bound flag in the results",
                    None,
                )
        } else {
            Stage::Cores.row(
                c,
                CheckStatus::Pass,
                format!(
                    "{} on {}",
                    dbdyno_engine::wording::count(self.threads, "thread"),
                    dbdyno_engine::wording::count(self.cores, "core")
                ),
            )
        };
        let off = self.clock_offset_ms.abs() > OFFSET_WARN_MS;
        let slow = self.clock_rtt_ms > RTT_WARN_MS;
        let seen = format!(
            "{:+.1} ms from this machine's (round trip {:.1} ms)",
            self.clock_offset_ms, self.clock_rtt_ms
        );
        let clock = if off || slow {
            let fix = if off {
                "synchronise the clocks (NTP: chrony or systemd-timesyncd) on this machine and the client"
            } else {
                "use a client closer to this machine on the network"
            };
            Stage::Clock
                .row(c, CheckStatus::Warn, seen)
                .with_fix(fix, off.then(|| "timedatectl timesync-status".to_string()))
        } else {
            Stage::Clock.row(c, CheckStatus::Pass, seen)
        };
        vec![
            Stage::Reachable.row(c, CheckStatus::Pass, reached),
            cores,
            clock,
            Stage::Database.row(
                c,
                CheckStatus::Pass,
                format!("SELECT 1 in {:.2} ms", self.database_rtt_ms),
            ),
        ]
    }
}

impl ClientsError {
    /// The failed check's row, with the fix.
    pub fn row(&self) -> Check {
        let (client, stage) = match self {
            ClientsError::Transport { client, .. } | ClientsError::Refused { client, .. } => {
                (client, Stage::Reachable)
            }
            ClientsError::Database { client, .. } => (client, Stage::Database),
            ClientsError::Silent { client, what, .. } => (
                client,
                match *what {
                    "clock" => Stage::Clock,
                    "ping" => Stage::Database,
                    _ => Stage::Reachable,
                },
            ),
        };
        let spec = ClientSpec::parse(client).ok();
        let (fix, command) = match (stage, &spec) {
            (Stage::Database, _) => (
                format!(
                    "let {client} reach the database server: its host and port open to that machine, the account allowed from its address (a user@'%' or user@'<its address>' grant)"
                ),
                None,
            ),
            (_, Some(ClientSpec::Ssh { user, host, port })) => (
                format!(
                    "make {client} reachable from this machine over SSH (the host up, sshd listening on that port, the login key or password right, the same OS and CPU architecture), or leave it out of --clients"
                ),
                Some(format!(
                    "ssh -p {} {}{host} true",
                    port.unwrap_or(22),
                    user.as_ref().map(|u| format!("{u}@")).unwrap_or_default()
                )),
            ),
            _ => (
                format!("check that `dbdyno agent` starts on {client}, or leave it out of --clients"),
                None,
            ),
        };
        stage
            .row(client, CheckStatus::Fail, self.to_string())
            .with_fix(fix, command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::TransportError;

    fn seen(threads: u32, offset_ms: f64) -> ClientCheck {
        ClientCheck {
            client: "ssh://bench@load1:22".into(),
            version: "1.0.0".into(),
            os: "linux".into(),
            arch: "x86_64".into(),
            cores: 2,
            threads,
            clock_offset_ms: offset_ms,
            clock_rtt_ms: 0.4,
            database_rtt_ms: 0.2,
            note: Some("DB Dyno copied to ~/.cache/dbdyno/bin/x/dbdyno".into()),
        }
    }

    #[test]
    fn a_client_that_passed_has_a_row_per_check_naming_it() {
        let rows = seen(8, 3.0).rows();
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "clients.reachable:ssh://bench@load1:22",
                "clients.cores:ssh://bench@load1:22",
                "clients.clock:ssh://bench@load1:22",
                "clients.database:ssh://bench@load1:22",
            ]
        );
        assert!(rows.iter().all(|r| r.status == CheckStatus::Pass));
        assert!(rows[0].seen.contains("copied"), "{}", rows[0].seen);
    }

    #[test]
    fn too_many_threads_and_a_clock_far_off_warn_with_a_fix() {
        let rows = seen(40, -2500.0).rows();
        assert_eq!(rows[1].status, CheckStatus::Warn, "40 threads on 2 cores");
        assert_eq!(rows[2].status, CheckStatus::Warn, "2.5 s off");
        assert!(rows[2].fix.as_ref().unwrap().text.contains("NTP"));
    }

    #[test]
    fn an_unreachable_client_fails_its_row_with_the_ssh_command_to_try() {
        let e = ClientsError::Transport {
            client: "ssh://bench@10.0.0.9:2222".into(),
            source: TransportError::Start("connection refused".into()),
        };
        let row = e.row();
        assert_eq!(row.status, CheckStatus::Fail);
        assert_eq!(row.id, "clients.reachable:ssh://bench@10.0.0.9:2222");
        assert!(row.seen.contains("connection refused"), "{}", row.seen);
        let fix = row.fix.unwrap();
        assert!(
            fix.text.contains("leave it out of --clients"),
            "{}",
            fix.text
        );
        assert_eq!(
            fix.sql_or_command.as_deref(),
            Some("ssh -p 2222 bench@10.0.0.9 true")
        );
        let db = ClientsError::Database {
            client: "local".into(),
            reason: "Access denied".into(),
        };
        assert_eq!(db.row().id, "clients.database:local");
    }
}
