//! The data-disk resolver on every layout under tests/fixtures/disk/, with and without
//! each optional command, and live on this machine.

use dbdyno_monitor::disk::{self, facts::SECTIONS, DiskFacts};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/disk")
}

struct Layout {
    name: String,
    sections: BTreeMap<String, String>,
    expected: serde_json::Value,
}

fn layouts() -> Vec<Layout> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures/disk exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut sections = BTreeMap::new();
        for s in SECTIONS {
            if let Ok(text) = std::fs::read_to_string(dir.join(format!("{s}.txt"))) {
                sections.insert(s.to_string(), text);
            }
        }
        let expected = serde_json::from_str(
            &std::fs::read_to_string(dir.join("expected.json")).expect("expected.json"),
        )
        .expect("expected.json parses");
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(Layout {
            name,
            sections,
            expected,
        });
    }
    out
}

/// What the facts script would print for these sections.
fn script_output(sections: &BTreeMap<String, String>) -> String {
    SECTIONS
        .iter()
        .filter_map(|s| sections.get(*s).map(|t| format!("==> {s} <==\n{t}")))
        .collect()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_layout_resolves_as_expected() {
    let all = layouts();
    let names: Vec<&str> = all.iter().map(|l| l.name.as_str()).collect();
    for required in [
        // Captured on real kernels by capture.sh (see the README).
        "loop-whole-disk",
        "loop-partition",
        "lvm-on-partition",
        "lvm-over-md-raid1",
        "md-raid1",
        "dm-crypt",
        "lvm-multi-pv",
        "vda-whole-disk",
        // Synthetic: device names no test machine here has.
        "plain-disk",
        "partition-sda",
        "nvme-partition",
        "xvda",
        "overlay",
    ] {
        assert!(
            names.contains(&required),
            "fixture {required} missing (have {names:?})"
        );
    }
    for l in &all {
        let d = disk::resolve(&DiskFacts::parse(&script_output(&l.sections)))
            .unwrap_or_else(|e| panic!("{}: {e}", l.name));
        println!("{}: {:?}\n  {}", l.name, d.devices, d.chain.join("\n  "));
        let e = &l.expected;
        assert_eq!(d.devices, strings(&e["devices"]), "{}: devices", l.name);
        assert_eq!(Some(d.path.as_str()), e["path"].as_str(), "{}", l.name);
        assert_eq!(
            Some(d.mount_point.as_str()),
            e["mount_point"].as_str(),
            "{}",
            l.name
        );
        assert_eq!(
            Some(d.fs_type.as_str()),
            e["fs_type"].as_str(),
            "{}",
            l.name
        );
        assert_eq!(Some(d.source.as_str()), e["source"].as_str(), "{}", l.name);
        for phrase in strings(&e["chain_contains"]) {
            assert!(
                d.chain.iter().any(|c| c.contains(&phrase)),
                "{}: no step contains {phrase:?}: {:#?}",
                l.name,
                d.chain
            );
        }
    }
}

/// The README says of every fixture whether it is a real capture (its expected.json then
/// records the kernel and distribution it came from) or synthetic.
#[test]
fn readme_says_which_fixtures_are_real_captures() {
    let readme = std::fs::read_to_string(fixtures_dir().join("README.md")).expect("README.md");
    let (real, synthetic) = readme
        .split_once("## Synthetic fixtures")
        .expect("README has a Synthetic fixtures section");
    let real = real
        .split_once("## Real captures")
        .expect("README has a Real captures section")
        .1;
    for l in layouts() {
        let row = format!("| `{}` |", l.name);
        let captured = l.expected["captured"].as_str().unwrap_or("");
        if l.name == "vda-whole-disk" || !captured.is_empty() {
            assert!(
                real.contains(&row),
                "{} not listed as a real capture",
                l.name
            );
        } else {
            assert!(
                synthetic.contains(&row),
                "{} not listed as synthetic",
                l.name
            );
        }
        if !captured.is_empty() {
            let kernel = captured.split_whitespace().next().unwrap_or_default();
            let line = real.lines().find(|x| x.starts_with(&row)).unwrap_or("");
            assert!(
                line.contains(kernel),
                "{}: README row does not name kernel {kernel}: {line}",
                l.name
            );
        }
    }
}

/// Each fallback path alone must reach the same devices: df+mountinfo without findmnt,
/// sysfs without lsblk, lsblk without sysfs, and (where the layout allows) the naming
/// rules with neither.
#[test]
fn fallbacks_reach_the_same_devices() {
    let variants: [(&str, &[&str]); 4] = [
        ("no findmnt", &["findmnt"]),
        ("no lsblk", &["lsblk"]),
        ("no sysfs", &["sysfs", "sysclass"]),
        ("no lsblk, no sysfs", &["lsblk", "sysfs", "sysclass"]),
    ];
    for l in layouts() {
        let want = strings(&l.expected["devices"]);
        for (label, drop) in variants {
            if drop.len() == 3 && l.expected["name_rules_suffice"] != serde_json::Value::Bool(true)
            {
                continue;
            }
            let mut s = l.sections.clone();
            for d in drop {
                s.insert(d.to_string(), String::new());
            }
            let d = disk::resolve(&DiskFacts::parse(&script_output(&s)))
                .unwrap_or_else(|e| panic!("{} ({label}): {e}", l.name));
            assert_eq!(d.devices, want, "{} ({label}): {:#?}", l.name, d.chain);
        }
    }
}

#[test]
fn mountinfo_alone_and_nothing_at_all() {
    let l = layouts()
        .into_iter()
        .find(|l| l.name == "lvm-on-partition")
        .expect("fixture");
    let mut s = l.sections.clone();
    for d in ["findmnt", "df", "source"] {
        s.insert(d.into(), String::new());
    }
    let d = disk::resolve(&DiskFacts::parse(&script_output(&s))).expect("mountinfo suffices");
    assert_eq!(
        (Some(d.mount_point.as_str()), d.devices.clone()),
        (
            l.expected["mount_point"].as_str(),
            strings(&l.expected["devices"])
        )
    );
    // The capture's LV on a partition: two devices, the dm device first.
    assert_eq!(d.devices.len(), 2, "{:?}", d.devices);
    assert!(d.devices[0].starts_with("dm-"), "{:?}", d.devices);
    assert!(d.chain[0].contains("/proc/self/mountinfo"), "{:?}", d.chain);

    let err = disk::resolve(&DiskFacts::parse("==> path <==\n/var/lib/mysql\nexists\n"))
        .expect_err("no facts");
    assert!(err.to_string().contains("/var/lib/mysql"), "{err}");
}

#[test]
fn missing_path_btrfs_subvolume_and_user_override() {
    let l = layouts()
        .into_iter()
        .find(|l| l.name == "nvme-partition")
        .expect("fixture");
    let mut s = l.sections.clone();
    s.insert("path".into(), "/var/lib/mysql\nmissing\n".into());
    // findmnt prints btrfs subvolumes and bind mounts with the root in brackets.
    s.insert("findmnt".into(), "/dev/nvme0n1p2[/@] /      btrfs\n".into());
    let d = disk::resolve(&DiskFacts::parse(&script_output(&s))).expect("resolves");
    assert_eq!(d.source, "/dev/nvme0n1p2");
    assert_eq!(d.devices, vec!["nvme0n1"]);
    assert!(
        d.chain[0].starts_with("warning: /var/lib/mysql does not exist"),
        "{:?}",
        d.chain
    );

    let o = d.clone().with_device_override(vec!["nvme1n1".into()]);
    assert!(o.overridden);
    assert_eq!(o.devices, vec!["nvme1n1"]);
    assert!(o
        .chain
        .last()
        .is_some_and(|c| c.contains("--device") && c.contains("nvme0n1")));
    let json = serde_json::to_string(&o).expect("serializes");
    assert_eq!(
        serde_json::from_str::<disk::DataDisk>(&json).expect("deserializes"),
        o
    );
}

#[test]
fn live_root_and_tmp_on_this_machine() {
    let diskstats = std::fs::read_to_string("/proc/diskstats").expect("/proc/diskstats");
    for path in ["/", "/tmp"] {
        let d = disk::resolve_local(path).expect("resolves locally");
        println!(
            "{path}: {:?} ({} on {})\n  {}",
            d.devices,
            d.fs_type,
            d.mount_point,
            d.chain.join("\n  ")
        );
        assert!(!d.chain.is_empty());
        if d.devices.is_empty() {
            // Only acceptable where no block device applies (container overlay, tmpfs).
            assert!(
                d.chain
                    .iter()
                    .any(|c| c.contains("no block device applies")),
                "{:#?}",
                d.chain
            );
        }
        for dev in &d.devices {
            assert!(
                diskstats
                    .lines()
                    .any(|l| l.split_whitespace().nth(2) == Some(dev)),
                "{dev} not in /proc/diskstats"
            );
        }
    }
    assert!(matches!(
        disk::resolve_local("relative/path"),
        Err(disk::DiskError::RelativePath(_))
    ));
}
