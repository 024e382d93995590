//! The Plan screen's "Load clients": which of the environment's clients take part in
//! the run, and how each step's threads are split among them, by the rule a run applies
//! (`dbdyno_clients::split`). The profile's `plan.clients` carries the choice.

use dbdyno_profile::{LoadClient, Profile};
use serde::Serialize;

/// One thread count of the ladder and each taking-part client's share of it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ThreadSplit {
    pub threads: u32,
    /// In the order of [`ClientSplit::clients`].
    pub per_client: Vec<u32>,
}

/// The clients of a run and the split of every thread count of its ladder.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ClientSplit {
    /// `local` and `ssh://` URLs, in the order the threads are handed out.
    pub clients: Vec<String>,
    pub steps: Vec<ThreadSplit>,
}

/// Every client the environment offers: this machine, then its `[[clients]]` entries.
pub fn available(p: &Profile) -> Vec<String> {
    let mut all = p.clone();
    all.plan.clients = None;
    names(&all.load_clients())
}

/// The clients taking part as the profile (with the form laid over it) chooses them.
pub fn taking_part(p: &Profile) -> Vec<String> {
    names(&p.load_clients())
}

fn names(clients: &[LoadClient]) -> Vec<String> {
    clients.iter().map(|c| c.name().to_string()).collect()
}

/// `chosen` onto the profile: kept out of the file's `plan.clients` when it is what the
/// profile takes anyway, so that a plan without clients stays the plain one.
pub fn apply(p: &mut Profile, chosen: &[String]) {
    let mut default = p.clone();
    default.plan.clients = None;
    p.plan.clients = (names(&default.load_clients()) != chosen).then(|| chosen.to_vec());
}

/// The split of each distinct thread count of `threads` (ladder order) across the
/// profile's taking-part clients; None when this machine runs alone.
pub fn split(p: &Profile, threads: &[u32]) -> Option<ClientSplit> {
    let clients = taking_part(p);
    if clients.len() < 2
        && clients
            .first()
            .is_some_and(|c| c == dbdyno_profile::clients::LOCAL)
    {
        return None;
    }
    let mut steps: Vec<ThreadSplit> = Vec::new();
    for &t in threads {
        if steps.iter().any(|s| s.threads == t) {
            continue;
        }
        steps.push(ThreadSplit {
            threads: t,
            per_client: dbdyno_clients::split::split(u64::from(t), clients.len())
                .into_iter()
                .map(|n| n as u32)
                .collect(),
        });
    }
    Some(ClientSplit { clients, steps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_profile::ClientEntry;

    fn two_clients() -> Profile {
        let mut p = Profile::named("idc");
        for url in ["ssh://bench@c1", "ssh://bench@c2"] {
            p.clients.push(ClientEntry {
                url: url.into(),
                ssh: Default::default(),
            });
        }
        p
    }

    #[test]
    fn this_machine_alone_has_no_split() {
        assert_eq!(split(&Profile::named("x"), &[1, 8]), None);
        assert_eq!(available(&Profile::named("x")), ["local"]);
    }

    #[test]
    fn each_thread_count_is_split_with_the_remainder_first() {
        let p = two_clients();
        let s = split(&p, &[32, 8, 32, 1]).unwrap();
        assert_eq!(s.clients, ["local", "ssh://bench@c1", "ssh://bench@c2"]);
        let rows: Vec<(u32, Vec<u32>)> = s
            .steps
            .into_iter()
            .map(|r| (r.threads, r.per_client))
            .collect();
        assert_eq!(
            rows,
            [
                (32, vec![11, 11, 10]),
                (8, vec![3, 3, 2]),
                (1, vec![1, 0, 0])
            ]
        );
    }

    #[test]
    fn the_choice_is_kept_only_when_it_differs_from_the_profiles() {
        let mut p = two_clients();
        let everyone = available(&p);
        apply(&mut p, &everyone);
        assert_eq!(p.plan.clients, None, "everyone, as the profile says");
        apply(&mut p, &["ssh://bench@c2".to_string()]);
        assert_eq!(p.plan.clients, Some(vec!["ssh://bench@c2".to_string()]));
        assert_eq!(taking_part(&p), ["ssh://bench@c2"]);
        assert_eq!(available(&p).len(), 3, "the others stay on offer");
        let alone = split(&p, &[4]).unwrap();
        assert_eq!(
            alone.steps[0].per_client,
            [4],
            "one SSH client: all threads"
        );
    }
}
