//! Everything wrong with a profile, at once, each problem on its dotted field. The
//! engine's own plan checks run last, so a profile is valid exactly when the plan it
//! describes would run.

use crate::model::{MysqlSection, PlanSection, SshAuth, SshSection, WorkloadSection};
use crate::{ClientUrl, Problem, Profile, SCHEMA_VERSION};

fn push(out: &mut Vec<Problem>, field: impl Into<String>, message: impl Into<String>) {
    out.push(Problem {
        field: field.into(),
        line: None,
        message: message.into(),
    });
}

/// A name is used in file names and keyring accounts: letters, digits, `.`, `_`, `-`.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("must not be empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(format!(
            "'{c}' is not allowed (letters, digits, '.', '_' and '-': the name is used in file names and keyring entries)"
        ));
    }
    Ok(())
}

pub fn check(p: &Profile) -> Vec<Problem> {
    let mut out = Vec::new();
    check_identity(p, &mut out);
    check_mysql(&p.mysql, &mut out);
    if let Some(ssh) = &p.ssh {
        check_ssh(ssh, &mut out);
    }
    check_plan(&p.plan, &mut out);
    check_workload(&p.workload, &mut out);
    check_clients(p, &mut out);
    add_plan_problems(p, &mut out);
    out
}

/// The layout version, the name, labels and the data disk.
fn check_identity(p: &Profile, out: &mut Vec<Problem>) {
    if p.schema_version != SCHEMA_VERSION {
        push(
            out,
            "schema_version",
            format!(
                "this build writes and checks version {SCHEMA_VERSION} (got {})",
                p.schema_version
            ),
        );
    }
    if let Err(e) = check_name(&p.name) {
        push(out, "name", e);
    }
    for (i, l) in p.labels.iter().enumerate() {
        if l.trim().is_empty() {
            push(out, format!("labels[{i}]"), "must not be empty");
        }
    }
    if p.data_disk
        .as_deref()
        .is_some_and(|d| d.contains('/') || d.is_empty())
    {
        push(
            out,
            "data_disk",
            "give the device name as lsblk shows it (nvme0n1, sda), not a path",
        );
    }
}

fn check_mysql(mysql: &MysqlSection, out: &mut Vec<Problem>) {
    if mysql.port == Some(0) {
        push(out, "mysql.port", "must be between 1 and 65535");
    }
    if mysql.db.as_deref().is_some_and(|d| d.trim().is_empty()) {
        push(out, "mysql.db", "must not be empty");
    }
}

fn check_ssh(ssh: &SshSection, out: &mut Vec<Problem>) {
    if !matches!(ssh.host.as_deref(), Some(h) if !h.trim().is_empty()) {
        push(
            out,
            "ssh.host",
            "missing: an [ssh] section needs the host to log in to",
        );
    }
    if ssh.port == Some(0) {
        push(out, "ssh.port", "must be between 1 and 65535");
    }
    check_ssh_login(ssh, "ssh", out);
}

/// The login options shared by the server's `[ssh]` and each `[[clients]]` entry;
/// `at` is the dotted place of the section.
fn check_ssh_login(ssh: &SshSection, at: &str, out: &mut Vec<Problem>) {
    if ssh.auth == Some(SshAuth::Key) && ssh.key_path.is_none() {
        push(
            out,
            format!("{at}.key_path"),
            "missing: auth = \"key\" needs key_path",
        );
    }
    if let Some(fp) = &ssh.host_key_fingerprint {
        if !(fp.starts_with("SHA256:") || fp.starts_with("MD5:")) {
            push(
                out,
                format!("{at}.host_key_fingerprint"),
                "give it as `ssh-keygen -lf` prints it: SHA256:...",
            );
        }
    }
    if let Some(Err(why)) = ssh.jump.as_deref().map(crate::parse_jump_hosts) {
        push(out, format!("{at}.jump"), why);
    }
}

/// Each `[[clients]]` entry: a URL that parses, said once, with login options only
/// where there is something to log in to; and each name `plan.clients` chooses.
fn check_clients(p: &Profile, out: &mut Vec<Problem>) {
    let mut seen: Vec<ClientUrl> = Vec::new();
    for (i, c) in p.clients.iter().enumerate() {
        let at = format!("clients[{i}]");
        let url = match ClientUrl::parse(&c.url) {
            Ok(u) => u,
            Err(e) => {
                push(out, format!("{at}.url"), e.to_string());
                continue;
            }
        };
        if seen.contains(&url) {
            push(out, format!("{at}.url"), "this client is listed twice");
        }
        let in_url = [
            ("host", c.ssh.host.is_some()),
            ("port", c.ssh.port.is_some()),
            ("user", c.ssh.user.is_some()),
        ];
        for (key, set) in in_url {
            if set {
                push(
                    out,
                    format!("{at}.{key}"),
                    "give host, port and user in url (ssh://user@host:port)",
                );
            }
        }
        let has_login = c.ssh.auth.is_some()
            || c.ssh.key_path.is_some()
            || c.ssh.host_key_fingerprint.is_some();
        if url == ClientUrl::Local && has_login {
            push(
                out,
                format!("{at}.url"),
                "`local` is this machine: it takes no SSH options",
            );
        }
        check_ssh_login(&c.ssh, &at, out);
        seen.push(url);
    }
    let Some(chosen) = &p.plan.clients else {
        return;
    };
    if chosen.is_empty() {
        push(
            out,
            "plan.clients",
            "give at least one client (`local` for this machine)",
        );
    }
    let mut chosen_seen: Vec<ClientUrl> = Vec::new();
    for (i, c) in chosen.iter().enumerate() {
        match ClientUrl::parse(c) {
            Ok(u) if chosen_seen.contains(&u) => push(
                out,
                format!("plan.clients[{i}]"),
                format!("`{c}` is listed twice"),
            ),
            Ok(u) => chosen_seen.push(u),
            Err(e) => push(out, format!("plan.clients[{i}]"), e.to_string()),
        }
    }
}

fn check_plan(plan: &PlanSection, out: &mut Vec<Problem>) {
    if let Some(threads) = &plan.threads {
        if threads.is_empty() {
            push(out, "plan.threads", "give at least one thread count");
        }
        for (i, t) in threads.iter().enumerate() {
            if *t == 0 {
                push(
                    out,
                    format!("plan.threads[{i}]"),
                    "threads must be at least 1 (got 0)",
                );
            }
        }
    }
    if plan.scenarios.as_ref().is_some_and(Vec::is_empty) {
        push(out, "plan.scenarios", "give at least one scenario");
    }
    if plan.admin_threads == Some(0) {
        push(out, "plan.admin_threads", "must be at least 1");
    }
    if let Some(r) = plan.repeat {
        let max = dbdyno_engine::MAX_REPEATS;
        if !(1..=max).contains(&r) {
            push(
                out,
                "plan.repeat",
                format!("runs of each step: 1 to {max} (got {r})"),
            );
        }
    }
    if plan.time == Some(0) && plan.events.unwrap_or(0) == 0 {
        push(
            out,
            "plan.time",
            "a step needs time or events; time is 0 and events not set",
        );
    }
    if let Some(h) = plan.prewarm_until_hit_rate {
        if !(0.0..=100.0).contains(&h) {
            push(
                out,
                "plan.prewarm_until_hit_rate",
                format!("a percentage between 0 and 100 (got {h})"),
            );
        }
    }
}

fn check_workload(w: &WorkloadSection, out: &mut Vec<Problem>) {
    if w.tables == Some(0) {
        push(out, "workload.tables", "must be at least 1");
    }
    if w.table_size == Some(0) {
        push(
            out,
            "workload.table_size",
            "must be at least 1 (scenarios read the rows prepare loads)",
        );
    }
}

/// The engine's checks, on the plan this profile describes, always: they report every
/// problem (unknown scenarios, bad values) on its own field. A field already named
/// (plan.threads[1] for threads 0) is not named twice.
fn add_plan_problems(p: &Profile, out: &mut Vec<Problem>) {
    let Err(problems) = p.to_plan() else {
        return;
    };
    for q in problems {
        let said = out.iter().any(|o| {
            o.field == q.field
                || o.field.starts_with(&format!("{}[", q.field))
                || q.field.starts_with(&format!("{}[", o.field))
        });
        if !said {
            out.push(q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(p: &Profile) -> Vec<String> {
        check(p).into_iter().map(|p| p.field).collect()
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let mut p = Profile::named("bad name");
        p.plan.threads = Some(vec![1, 0, 8]);
        p.plan.time = Some(0);
        p.workload.table_size = Some(0);
        p.plan.scenarios = Some(vec!["oltp_nope".into()]);
        let f = fields(&p);
        assert!(f.contains(&"name".to_string()), "{f:?}");
        assert!(f.contains(&"plan.threads[1]".to_string()), "{f:?}");
        assert!(f.contains(&"plan.time".to_string()), "{f:?}");
        assert!(f.contains(&"workload.table_size".to_string()), "{f:?}");
    }

    #[test]
    fn a_rate_ladder_needs_rates_above_zero_and_no_single_rate() {
        let mut p = Profile::named("x");
        p.plan.rates = Some(vec![500, 1000]);
        assert!(fields(&p).is_empty(), "{:?}", check(&p));
        p.plan.rates = Some(vec![500, 0]);
        assert_eq!(fields(&p), ["plan.rates[1]"]);
        p.plan.rates = Some(vec![]);
        assert_eq!(fields(&p), ["plan.rates"]);
        p.plan.rates = Some(vec![500]);
        p.plan.rate = Some(100.0);
        let both = check(&p);
        assert_eq!(both.len(), 1, "{both:?}");
        assert!(both[0].message.contains("not both"), "{both:?}");
        p.plan.rate = Some(0.0);
        assert!(fields(&p).is_empty(), "rate 0 is no rate");
    }

    #[test]
    fn scenario_and_engine_problems_are_reported_beside_the_others() {
        let mut p = Profile::named("x");
        p.plan.threads = Some(vec![1, 0]);
        p.plan.scenarios = Some(vec!["oltp_read_only".into(), "oltp_nope".into()]);
        p.workload.rand_pareto_h = Some(2.0);
        let f = fields(&p);
        assert!(f.contains(&"plan.threads[1]".to_string()), "{f:?}");
        assert!(f.contains(&"plan.scenarios[1]".to_string()), "{f:?}");
        assert!(f.contains(&"workload.rand_pareto_h".to_string()), "{f:?}");
        assert!(!f.contains(&"plan.threads".to_string()), "said once: {f:?}");
    }

    #[test]
    fn unknown_scenario_is_named_with_its_index() {
        let mut p = Profile::named("x");
        p.plan.scenarios = Some(vec!["oltp_read_only".into(), "oltp_nope".into()]);
        let problems = check(&p);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].field, "plan.scenarios[1]");
        assert!(problems[0].message.contains("oltp_nope"), "{problems:?}");
    }

    #[test]
    fn ssh_needs_a_host_and_a_key_for_key_auth() {
        let mut p = Profile::named("x");
        p.ssh = Some(crate::SshSection {
            auth: Some(SshAuth::Key),
            ..Default::default()
        });
        assert_eq!(fields(&p), ["ssh.host", "ssh.key_path"]);
    }

    #[test]
    fn clients_are_checked_each_on_its_own_entry() {
        let mut p = Profile::named("x");
        let entry = |url: &str| crate::ClientEntry {
            url: url.into(),
            ssh: Default::default(),
        };
        p.clients = vec![
            entry("ssh://bench@c1"),
            entry("c2"),
            entry("ssh://bench@c1/"),
            crate::ClientEntry {
                url: "ssh://c3".into(),
                ssh: crate::SshSection {
                    host: Some("c3".into()),
                    auth: Some(SshAuth::Key),
                    ..Default::default()
                },
            },
            crate::ClientEntry {
                url: "local".into(),
                ssh: crate::SshSection {
                    auth: Some(SshAuth::Agent),
                    ..Default::default()
                },
            },
        ];
        p.plan.clients = Some(vec!["local".into(), "ssh://c3:x".into(), "local".into()]);
        assert_eq!(
            fields(&p),
            [
                "clients[1].url",
                "clients[2].url",
                "clients[3].host",
                "clients[3].key_path",
                "clients[4].url",
                "plan.clients[1]",
                "plan.clients[2]",
            ]
        );
        let twice = &check(&p)[1];
        assert!(twice.message.contains("twice"), "{twice:?}");
        p.clients.truncate(1);
        p.plan.clients = Some(vec!["ssh://bench@c1".into(), "ssh://other".into()]);
        assert!(fields(&p).is_empty(), "{:?}", check(&p));
        p.plan.clients = Some(vec![]);
        assert_eq!(fields(&p), ["plan.clients"]);
    }

    #[test]
    fn a_valid_profile_has_no_problem() {
        assert!(check(&Profile::named("local-sandbox")).is_empty());
    }
}
