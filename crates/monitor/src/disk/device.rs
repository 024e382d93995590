//! The user's `--device` names, checked against the server's own block devices.
//!
//! A name that matches no /proc/diskstats line would otherwise be dropped by the
//! sampler without a word, leaving labelled but empty disk columns. So each name is
//! normalised (`/dev/vda` → `vda`; `/dev/mapper/…` and `/dev/disk/by-*/…` symlinks
//! resolved with `readlink -f` on the server), then looked up in /proc/diskstats: an
//! unknown name is an error listing the block devices there are, and a partition is
//! kept but flagged with its parent disk (iostat's util % and queue depth are per disk).
//!
//! Non-goals: no choice of the device (the resolver in [`super::resolve`] does that).

use super::facts::{facts_script, split_sections, DiskFacts};
use super::resolve::{kind, Kind};
use super::DiskError;

/// The script: `readlink -f` of each name given as a path, then the facts script's
/// sections (sysfs, lsblk, /proc/diskstats) for `/`.
pub fn devices_script(names: &[String]) -> String {
    let mut s = String::from("echo '==> devnames <=='\n");
    for n in names.iter().filter(|n| n.starts_with('/')) {
        let q = dbdyno_ssh::sh_quote(n);
        s.push_str(&format!(
            "printf '%s\\t%s\\n' {q} \"$(readlink -f {q} 2>/dev/null)\"\n"
        ));
    }
    s.push_str(&facts_script("/"));
    s
}

/// The checked devices and what the user should know about them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckedDevices {
    /// Kernel names as in /proc/diskstats, in the order given, without duplicates.
    pub devices: Vec<String>,
    /// One sentence per questionable choice (a partition instead of its disk).
    pub warnings: Vec<String>,
}

/// Checks `names` against the output of [`devices_script`] run on `host` (named in
/// messages: "db1", "this machine").
pub fn check_devices(
    output: &str,
    names: &[String],
    host: &str,
) -> Result<CheckedDevices, DiskError> {
    let sections = split_sections(output);
    let real: Vec<(String, String)> = sections
        .get("devnames")
        .map(String::as_str)
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_string(), b.trim().to_string()))
        .collect();
    let facts = DiskFacts::from_sections(&sections);
    let known = |n: &str| facts.diskstats.iter().any(|(d, _, _)| d == n);
    let mut out = CheckedDevices::default();
    for given in names {
        let given = given.trim();
        let name = if given.starts_with('/') {
            let target = real
                .iter()
                .find(|(a, _)| a == given)
                .map(|(_, b)| b.as_str())
                .filter(|b| !b.is_empty())
                .unwrap_or(given);
            target.strip_prefix("/dev/").unwrap_or(target).to_string()
        } else {
            given.to_string()
        };
        if name.is_empty() || !known(&name) {
            return Err(DiskError::UnknownDevice {
                given: given.to_string(),
                host: host.to_string(),
                known: block_devices(&facts),
            });
        }
        if let Kind::Partition {
            parent: Some(parent),
            ..
        } = kind(&facts, &name)
        {
            out.warnings.push(format!(
                "{name} is a partition of {parent}: util % and queue depth are per disk, \
                 so the usual choice is --device={parent}"
            ));
        }
        if !out.devices.contains(&name) {
            out.devices.push(name);
        }
    }
    Ok(out)
}

/// The block devices worth offering: /proc/diskstats without RAM disks and unused loops.
fn block_devices(f: &DiskFacts) -> String {
    let names: Vec<&str> = f
        .diskstats
        .iter()
        .map(|(n, _, _)| n.as_str())
        .filter(|n| !n.starts_with("ram") && !n.starts_with("loop"))
        .collect();
    if names.is_empty() {
        "none found in /proc/diskstats".into()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(devnames: &str, diskstats: &str, sysfs: &str) -> String {
        format!("==> devnames <==\n{devnames}==> sysfs <==\n{sysfs}==> diskstats <==\n{diskstats}")
    }

    const DISKSTATS: &str = "   8       0 sda 1 0 0 0 0 0 0 0 0 0 0\n   8       1 sda1 1 0 0 0 0 0 0 0 0 0 0\n 253       0 dm-0 1 0 0 0 0 0 0 0 0 0 0\n   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n";
    const SYSFS: &str = "/sys/class/block/sda/dev:8:0\n/sys/class/block/sda1/dev:8:1\n/sys/class/block/sda1/partition:1\n/sys/class/block/dm-0/dev:253:0\n/sys/class/block/dm-0/dm/name:vg-lv\n";

    #[test]
    fn names_are_normalised_and_checked() {
        let out = output(
            "/dev/sda\t/dev/sda\n/dev/mapper/vg-lv\t/dev/dm-0\n",
            DISKSTATS,
            SYSFS,
        );
        let c = check_devices(
            &out,
            &["/dev/sda".into(), "/dev/mapper/vg-lv".into(), "sda".into()],
            "db1",
        )
        .unwrap();
        assert_eq!(c.devices, ["sda", "dm-0"]);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn unknown_names_are_refused_with_the_list() {
        let out = output("/dev/nope\t\n", DISKSTATS, SYSFS);
        for bad in ["sdz9", "/dev/nope", ""] {
            let e = check_devices(&out, &[bad.into()], "db1")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("is not a block device on db1")
                    && e.contains("sda, sda1, dm-0")
                    && !e.contains("loop0"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_partition_is_kept_with_a_warning_naming_its_disk() {
        let c = check_devices(&output("", DISKSTATS, SYSFS), &["sda1".into()], "db1").unwrap();
        assert_eq!(c.devices, ["sda1"]);
        assert!(c.warnings[0].contains("--device=sda"), "{:?}", c.warnings);
    }
}
