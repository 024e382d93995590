//! What the measurement will be worth: SSH to the server (reachable, host key known,
//! logged in), the data disk found, client and server on one machine or two, the
//! clocks, the round trip, and the client's cores for the plan's threads.

use dbdyno_engine::Plan;

use crate::check::{Check, CheckStatus};
use crate::environment::same_host;
use crate::os_facts::OsFacts;
use crate::probe::{AccessKind, Facts, RoleDisk, SshProblem, SshStage};
use crate::text::human_bytes;

const SSH_WHY: &str =
    "CPU and disk figures come from the server over SSH; without them a result cannot say \
                       whether the server ran out of CPU or disk";
const DISK_WHY: &str =
    "the disk columns must be MySQL's data disk, the whole device rather than a partition \
                        (seed 000's most common mistake), or IO% means nothing";
const SAME_HOST_WHY: &str =
    "a load generator on the database's machine takes CPU from the server, so the server \
                             looks slower than it is (seed 003: run them on separate machines)";
const CLOCK_WHY: &str = "server samples are placed in each step's window by time; the offset is corrected, but \
                         a large one means the clocks are not synchronised (NTP) and may drift during the run";
const RTT_WHY: &str = "each statement waits one round trip: at R ms one thread cannot exceed 1000/R statements \
                       per second, whatever the server can do (seed 000: keep client and server within 1 ms)";
const CORES_WHY: &str =
    "every thread costs client CPU; a saturated client caps throughput and makes the server \
                         look slower (watch client_cpu in the results)";

/// Client threads per core beyond which the client may become the bottleneck.
const THREADS_PER_CORE: u32 = 8;

pub fn checks(f: &Facts, plan: &Plan) -> Vec<Check> {
    let mut out = ssh_checks(f);
    out.push(data_disk(f));
    out.push(same_host_check(f));
    out.push(clocks(f));
    out.push(round_trip(f));
    out.push(client_cores(f, plan));
    out
}

fn no_ssh_reason(f: &Facts) -> String {
    match f.host.kind {
        AccessKind::Local => {
            "no --ssh-host: the database is on this machine, sampled through local /proc".into()
        }
        _ => f
            .host
            .none_why
            .clone()
            .unwrap_or_else(|| "no --ssh-host given".into()),
    }
}

fn ssh_checks(f: &Facts) -> Vec<Check> {
    const IDS: [(&str, &str); 3] = [
        ("ssh.reachable", "SSH server reachable"),
        ("ssh.host_key", "SSH host key known"),
        ("ssh.auth", "SSH login"),
    ];
    let Some(outcome) = &f.host.ssh else {
        let why = no_ssh_reason(f);
        return IDS
            .iter()
            .map(|(id, t)| Check::skipped(id, t, why.clone(), SSH_WHY))
            .collect();
    };
    match outcome {
        Ok(ok) => vec![
            Check::new(
                IDS[0].0,
                IDS[0].1,
                CheckStatus::Pass,
                format!("{} answered in {:.0} ms", f.host.access, ok.connect_ms),
                SSH_WHY,
            ),
            Check::new(
                IDS[1].0,
                IDS[1].1,
                CheckStatus::Pass,
                format!("host key {} is trusted", ok.fingerprint),
                SSH_WHY,
            ),
            Check::new(
                IDS[2].0,
                IDS[2].1,
                CheckStatus::Pass,
                format!("logged in: {}", f.host.access),
                SSH_WHY,
            ),
        ],
        Err(p) => ssh_failure(f, p, &IDS),
    }
}

fn ssh_failure(f: &Facts, p: &SshProblem, ids: &[(&str, &str); 3]) -> Vec<Check> {
    let at = |i: usize| (ids[i].0, ids[i].1);
    let fail = |i: usize| {
        Check::new(
            at(i).0,
            at(i).1,
            CheckStatus::Fail,
            p.message.clone(),
            SSH_WHY,
        )
    };
    let pass = |i: usize, seen: &str| {
        Check::new(
            at(i).0,
            at(i).1,
            CheckStatus::Pass,
            seen.to_string(),
            SSH_WHY,
        )
    };
    let skip =
        |i: usize, because: &str| Check::skipped(at(i).0, at(i).1, because.to_string(), SSH_WHY);
    match p.stage {
        SshStage::Reach => vec![
            fail(0).with_fix(
                "check the host and port, that sshd runs there and that a firewall lets this machine in",
                Some(format!("ssh -p <port> <user>@<host> true   # as DB Dyno would: {}", f.host.access)),
            ),
            skip(1, "not checked: the SSH server did not answer"),
            skip(2, "not checked: the SSH server did not answer"),
        ],
        SshStage::HostKey => vec![
            pass(0, "the SSH server answered the handshake"),
            fail(1).with_fix(
                "compare the fingerprint with the server's own (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on \
                 the server); if it matches, accept it once",
                Some(format!(
                    "--accept-new-host-key   # stores {} in DB Dyno's known_hosts",
                    p.fingerprint.as_deref().unwrap_or("the key")
                )),
            ),
            skip(2, "not checked: the host key is not trusted"),
        ],
        SshStage::Auth => vec![
            pass(0, "the SSH server answered the handshake"),
            pass(1, "the host key is trusted"),
            fail(2).with_fix(
                "check --ssh-user and the key (--ssh-key, its public half in the server's authorized_keys), \
                 --ssh-agent, or --ssh-password",
                None,
            ),
        ],
        SshStage::Session => vec![
            pass(0, "the SSH server answered the handshake"),
            pass(1, "the host key is trusted"),
            fail(2).with_fix("the session opened but a command failed: the account needs a POSIX sh", None),
        ],
    }
}

fn data_disk(f: &Facts) -> Check {
    const ID: &str = "host.data_disk";
    const TITLE: &str = "Data disk resolved";
    let h = &f.host;
    if h.kind == AccessKind::None {
        return Check::skipped(ID, TITLE, no_ssh_reason(f), DISK_WHY);
    }
    if let Some(Err(p)) = &h.ssh {
        return Check::skipped(ID, TITLE, format!("not checked: {}", p.message), DISK_WHY);
    }
    if let Some(e) = &h.device_error {
        return Check::new(ID, TITLE, CheckStatus::Fail, e.clone(), DISK_WHY).with_fix(
            "name a block device the server has (the whole disk, as lsblk shows it), or drop --device to let DB Dyno find it",
            Some("--device=<name>   # lsblk -o NAME,TYPE,MOUNTPOINT".into()),
        );
    }
    let Some(first) = h.data_disks.first() else {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!(
                "the data disk is unknown: {}",
                h.disk_error
                    .clone()
                    .unwrap_or_else(|| "the resolver found nothing".into())
            ),
            DISK_WHY,
        )
        .with_fix(
            "name the device yourself (the whole disk, as lsblk shows it)",
            Some("--device=<name>   # lsblk -o NAME,TYPE,MOUNTPOINT".into()),
        );
    };
    let lines: Vec<String> = h
        .data_disks
        .iter()
        .map(|rd| disk_line(rd, h.os.as_ref()))
        .collect();
    if first.disk.devices.is_empty() {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!("{}: {}", lines.join("; "), first.disk.chain.join(" / ")),
            DISK_WHY,
        )
        .with_fix(
            "name the device yourself if there is one",
            Some("--device=<name>".into()),
        );
    }
    if !h.device_warnings.is_empty() {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!("{}: {}", lines.join("; "), h.device_warnings.join("; ")),
            DISK_WHY,
        )
        .with_fix("watch the whole disk", Some("--device=<disk>".into()));
    }
    Check::new(ID, TITLE, CheckStatus::Pass, lines.join("; "), DISK_WHY).with_fix(
        "override the choice if it is wrong",
        Some("--device=<name>".into()),
    )
}

/// "data directory /var/lib/mysql on / (ext4) → vda1, vda (100.0 GiB)".
fn disk_line(rd: &RoleDisk, os: Option<&OsFacts>) -> String {
    let or_unknown = |s: &str| {
        if s.is_empty() {
            "?".to_string()
        } else {
            s.to_string()
        }
    };
    format!(
        "{} {} on {} ({}) → {}{}",
        rd.role,
        rd.disk.path,
        or_unknown(&rd.disk.mount_point),
        or_unknown(&rd.disk.fs_type),
        if rd.disk.devices.is_empty() {
            "no block device".to_string()
        } else {
            describe_devices(&rd.disk.devices, os)
        },
        if rd.disk.overridden {
            " (set by --device)"
        } else {
            ""
        }
    )
}

/// Device names with their sizes when the server said.
fn describe_devices(devs: &[String], os: Option<&OsFacts>) -> String {
    devs.iter()
        .map(|d| match os.and_then(|o| o.block_device_bytes.get(d)) {
            Some(b) => format!("{d} ({})", human_bytes(*b)),
            None => d.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn same_host_check(f: &Facts) -> Check {
    const ID: &str = "host.same_host";
    const TITLE: &str = "Client and server on separate machines";
    match same_host(f) {
        Some((true, how)) => Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!(
                "client and server are one machine ({how}): they share its {}",
                dbdyno_engine::wording::count(f.client.cores, "CPU")
            ),
            SAME_HOST_WHY,
        )
        .with_fix(
            "run DB Dyno on another machine in the same network, close to the server",
            None,
        ),
        Some((false, how)) => Check::new(ID, TITLE, CheckStatus::Pass, how, SAME_HOST_WHY),
        None => Check::skipped(
            ID,
            TITLE,
            "cannot tell: no OS access and no @@hostname",
            SAME_HOST_WHY,
        ),
    }
}

fn clocks(f: &Facts) -> Check {
    const ID: &str = "host.clock_offset";
    const TITLE: &str = "Clock offset";
    let mut parts = Vec::new();
    let mut worst: f64 = 0.0;
    if let Some(c) = f.host.clock {
        parts.push(format!(
            "SSH: server {:+.1} ms (±{:.1} ms)",
            c.offset_ms,
            c.rtt_ms / 2.0
        ));
        worst = worst.max(c.offset_ms.abs());
    }
    if let Some(c) = f.mysql.as_ref().ok().and_then(|m| m.clock) {
        parts.push(format!(
            "MySQL: server {:+.1} ms (±{:.1} ms)",
            c.offset_ms,
            c.rtt_ms / 2.0
        ));
        worst = worst.max(c.offset_ms.abs());
    }
    if parts.is_empty() {
        return Check::skipped(
            ID,
            TITLE,
            "no clock could be read (MySQL and SSH unavailable)",
            CLOCK_WHY,
        );
    }
    let seen = format!("{}; corrected when aligning samples", parts.join("; "));
    if worst > 1000.0 {
        Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!("{seen}. More than a second apart"),
            CLOCK_WHY,
        )
        .with_fix(
            "synchronise both clocks with NTP",
            Some("timedatectl set-ntp true   # or chronyd/ntpd".into()),
        )
    } else {
        Check::new(ID, TITLE, CheckStatus::Pass, seen, CLOCK_WHY)
    }
}

fn round_trip(f: &Facts) -> Check {
    const ID: &str = "mysql.round_trip";
    const TITLE: &str = "Round trip client ↔ server";
    let Some(rt) = f.mysql.as_ref().ok().and_then(|m| m.round_trip) else {
        return Check::skipped(ID, TITLE, "not measured: MySQL is not reachable", RTT_WHY);
    };
    let seen = format!(
        "median {:.3} ms, best {:.3} ms over {} pings: one thread can do at most ~{:.0} statements/s",
        rt.median_ms,
        rt.min_ms,
        rt.pings,
        1000.0 / rt.median_ms.max(0.001)
    );
    if rt.median_ms > 1.0 {
        Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!("{seen}. Over 1 ms: the network, not the server, may set the pace"),
            RTT_WHY,
        )
        .with_fix(
            "run the client in the same data centre / availability zone as the server",
            None,
        )
    } else {
        Check::new(ID, TITLE, CheckStatus::Pass, seen, RTT_WHY)
    }
}

fn client_cores(f: &Facts, plan: &Plan) -> Check {
    const ID: &str = "client.cores";
    const TITLE: &str = "Client cores for the threads";
    let threads = plan.steps().map(|s| s.threads).max().unwrap_or(0);
    let cores = f.client.cores.max(1);
    let seen = format!(
        "{} for up to {}",
        dbdyno_engine::wording::count(cores, "client core"),
        dbdyno_engine::wording::count(threads, "thread")
    );
    if threads > cores * THREADS_PER_CORE {
        Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!("{seen}: more than {THREADS_PER_CORE} threads per core, the client may saturate before the server"),
            CORES_WHY,
        )
        .with_fix("use a client machine with more cores, or check client_cpu in each step's result", None)
    } else {
        Check::new(ID, TITLE, CheckStatus::Pass, seen, CORES_WHY)
    }
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::Scenario;

    use super::*;
    use crate::checks::testing::{facts, find, plan, set_var};

    fn p(threads: &[u32]) -> Plan {
        plan(&[Scenario::OltpPointSelect], threads, 1, 1000, false)
    }

    #[test]
    fn healthy_remote_server_over_ssh() {
        let c = checks(&facts(), &p(&[8]));
        for id in [
            "ssh.reachable",
            "ssh.host_key",
            "ssh.auth",
            "host.data_disk",
            "host.same_host",
            "host.clock_offset",
            "mysql.round_trip",
            "client.cores",
        ] {
            assert_eq!(find(&c, id).status, CheckStatus::Pass, "{:?}", find(&c, id));
        }
        assert!(
            find(&c, "host.data_disk").seen.contains("vda (100.0 GiB)"),
            "{}",
            find(&c, "host.data_disk").seen
        );
    }

    #[test]
    fn unknown_host_key_fails_with_the_fingerprint() {
        let mut f = facts();
        f.host.ssh = Some(Err(SshProblem {
            stage: SshStage::HostKey,
            message: "the host key of 10.0.0.9:22 is not known: ssh-ed25519 key SHA256:xyz".into(),
            fingerprint: Some("SHA256:xyz".into()),
        }));
        f.host.os = None;
        f.host.data_disks.clear();
        let c = checks(&f, &p(&[8]));
        assert_eq!(find(&c, "ssh.reachable").status, CheckStatus::Pass);
        let k = find(&c, "ssh.host_key");
        assert_eq!(k.status, CheckStatus::Fail);
        assert!(k
            .fix
            .as_ref()
            .unwrap()
            .sql_or_command
            .as_ref()
            .unwrap()
            .contains("SHA256:xyz"));
        assert_eq!(find(&c, "ssh.auth").status, CheckStatus::Skipped);
        assert_eq!(find(&c, "host.data_disk").status, CheckStatus::Skipped);
    }

    #[test]
    fn wrong_credentials_fail_the_login() {
        let mut f = facts();
        f.host.ssh = Some(Err(SshProblem {
            stage: SshStage::Auth,
            message: "authentication failed for user root at 10.0.0.9:22 with password: wrong user name or password".into(),
            fingerprint: None,
        }));
        let c = checks(&f, &p(&[8]));
        assert_eq!(find(&c, "ssh.host_key").status, CheckStatus::Pass);
        assert_eq!(find(&c, "ssh.auth").status, CheckStatus::Fail);
        assert!(find(&c, "ssh.auth")
            .seen
            .contains("wrong user name or password"));
    }

    #[test]
    fn local_database_is_the_same_machine() {
        let mut f = facts();
        f.host.kind = AccessKind::Local;
        f.host.ssh = None;
        f.host.os.as_mut().unwrap().boot_id = f.client.boot_id.clone();
        let c = checks(&f, &p(&[8]));
        assert_eq!(find(&c, "ssh.reachable").status, CheckStatus::Skipped);
        assert!(find(&c, "ssh.reachable").seen.contains("local /proc"));
        let s = find(&c, "host.same_host");
        assert_eq!(s.status, CheckStatus::Warn);
        assert!(
            s.seen.contains("boot id") && s.seen.contains("share"),
            "{}",
            s.seen
        );
    }

    #[test]
    fn managed_database_by_hostname() {
        let mut f = facts();
        f.host.kind = AccessKind::None;
        f.host.none_why = Some("a managed database".into());
        f.host.ssh = None;
        f.host.os = None;
        f.host.clock = None;
        f.host.data_disks.clear();
        let c = checks(&f, &p(&[8]));
        assert_eq!(find(&c, "host.data_disk").status, CheckStatus::Skipped);
        assert_eq!(
            find(&c, "host.same_host").status,
            CheckStatus::Pass,
            "@@hostname db1 is not client1"
        );
        set_var(&mut f, "hostname", "client1");
        assert_eq!(
            find(&checks(&f, &p(&[8])), "host.same_host").status,
            CheckStatus::Warn
        );
    }

    #[test]
    fn a_wrong_device_fails_and_a_partition_warns() {
        let mut f = facts();
        f.host.device_error =
            Some("sdz9 is not a block device on db1:22 (block devices: vda, vda1)".into());
        let d = find(&checks(&f, &p(&[8])), "host.data_disk").clone();
        assert_eq!(d.status, CheckStatus::Fail);
        assert!(d.seen.contains("sdz9 is not a block device"), "{}", d.seen);
        let mut f = facts();
        f.host.device_warnings = vec!["vda1 is a partition of vda: … --device=vda".into()];
        let d = find(&checks(&f, &p(&[8])), "host.data_disk").clone();
        assert_eq!(d.status, CheckStatus::Warn);
        assert!(d.seen.contains("--device=vda"), "{}", d.seen);
    }

    #[test]
    fn unresolved_disk_asks_for_device() {
        let mut f = facts();
        f.host.data_disks.clear();
        f.host.disk_error = Some("data directory /x: could not find the filesystem".into());
        let d = find(&checks(&f, &p(&[8])), "host.data_disk").clone();
        assert_eq!(d.status, CheckStatus::Warn);
        assert!(d
            .fix
            .unwrap()
            .sql_or_command
            .unwrap()
            .starts_with("--device="));
    }

    #[test]
    fn clocks_rtt_and_cores_warn_past_their_limits() {
        let mut f = facts();
        f.host.clock.as_mut().unwrap().offset_ms = -2500.0;
        let c = checks(&f, &p(&[8]));
        assert_eq!(find(&c, "host.clock_offset").status, CheckStatus::Warn);
        assert!(find(&c, "host.clock_offset")
            .seen
            .contains("server -2500.0 ms"));
        crate::checks::testing::mysql(&mut f)
            .round_trip
            .as_mut()
            .unwrap()
            .median_ms = 2.5;
        assert_eq!(
            find(&checks(&f, &p(&[8])), "mysql.round_trip").status,
            CheckStatus::Warn
        );
        assert_eq!(
            find(&checks(&f, &p(&[16])), "client.cores").status,
            CheckStatus::Pass
        );
        assert_eq!(
            find(&checks(&f, &p(&[17])), "client.cores").status,
            CheckStatus::Warn
        );
    }
}
