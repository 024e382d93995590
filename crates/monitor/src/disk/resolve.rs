//! From [`DiskFacts`] to a [`DataDisk`]: which block devices in /proc/diskstats carry
//! the I/O of a path, and why.
//!
//! Partitions resolve to their whole disk (iostat's util % and queue depth are per
//! disk: the classic mistake is watching `nvme0n1p1` instead of `nvme0n1`);
//! device-mapper (LVM, dm-crypt, multipath) and md RAID devices are kept and expanded
//! into the disks beneath them. Filesystems without a block device (overlay, tmpfs,
//! ZFS, NFS, FUSE) give an empty list and a sentence saying why.
//!
//! Non-goals: no guessing from names when sysfs or lsblk answered; no ZFS vdev lookup.

use super::facts::{DiskFacts, MountInfoRow};
use super::{DataDisk, DiskError};

/// Resolves the facts gathered for one path.
pub fn resolve(facts: &DiskFacts) -> Result<DataDisk, DiskError> {
    let (mut disk, mi) = locate(facts)?;
    if let Some(why) = no_block_device(&disk.fs_type, &disk.source) {
        disk.chain.push(why);
        disk.chain
            .push("no block device applies; pass --device NAME to monitor a disk anyway".into());
        return Ok(disk);
    }

    let Some((kname, matched)) = kernel_name(facts, &disk.source, &disk.mount_point, mi) else {
        disk.chain.push(format!(
            "could not match {} to a device in /proc/diskstats; pass --device NAME (see lsblk) to choose one",
            disk.source
        ));
        return Ok(disk);
    };
    disk.chain.push(matched);
    let mut visited = Vec::new();
    expand(
        facts,
        &kname,
        &mut disk.devices,
        &mut disk.chain,
        &mut visited,
    );
    leave_out_unlisted(facts, &mut disk);
    if disk.devices.is_empty() {
        disk.chain
            .push("no device left to monitor; pass --device NAME to choose one".into());
    } else {
        disk.chain.push(format!(
            "disk figures come from /proc/diskstats for: {}",
            disk.devices.join(", ")
        ));
    }
    Ok(disk)
}

/// The filesystem that holds the path, with the chain so far and no device yet; also
/// the mountinfo row of its mount point, when there is one.
fn locate(facts: &DiskFacts) -> Result<(DataDisk, Option<&MountInfoRow>), DiskError> {
    let path = facts.path.clone();
    let mut chain = Vec::new();
    if facts.path_exists == Some(false) {
        chain.push(format!(
            "warning: {path} does not exist or is not visible to this user; using the filesystem of its nearest existing parent"
        ));
    }
    if let Some(real) = facts
        .realpath
        .as_deref()
        .filter(|r| *r != path && facts.path_exists != Some(false))
    {
        chain.push(format!("{path} resolves to {real}"));
    }
    let lookup_path = facts.realpath.clone().unwrap_or_else(|| path.clone());

    let (source, mount_point, fs_type, how) =
        find_mount(facts, &lookup_path).ok_or_else(|| DiskError::NoMount { path: path.clone() })?;
    let mi = facts
        .mountinfo
        .iter()
        .rev()
        .find(|m| m.mount_point == mount_point);
    let fs_type = fs_type
        .or_else(|| mi.map(|m| m.fs_type.clone()))
        .unwrap_or_else(|| "unknown".into());
    chain.push(format!(
        "{path} is on the {fs_type} filesystem mounted at {mount_point} from {source} ({how})"
    ));
    let disk = DataDisk {
        path,
        mount_point,
        fs_type,
        source,
        devices: Vec::new(),
        chain,
        overridden: false,
    };
    Ok((disk, mi))
}

/// Drops the devices /proc/diskstats does not list (when it was read), saying so.
fn leave_out_unlisted(facts: &DiskFacts, disk: &mut DataDisk) {
    if facts.diskstats.is_empty() {
        return;
    }
    let missing: Vec<String> = disk
        .devices
        .iter()
        .filter(|d| !facts.diskstats.iter().any(|(n, _, _)| n == *d))
        .cloned()
        .collect();
    for m in &missing {
        disk.chain
            .push(format!("warning: {m} is not in /proc/diskstats, left out"));
    }
    disk.devices.retain(|d| !missing.contains(d));
}

/// (source, mount point, fs type if known, how it was found).
fn find_mount(f: &DiskFacts, path: &str) -> Option<(String, String, Option<String>, &'static str)> {
    if let Some(m) = &f.findmnt {
        return Some((
            strip_subvol(&m.source),
            m.target.clone(),
            m.fs_type.clone(),
            "findmnt",
        ));
    }
    if let Some(m) = &f.df {
        return Some((
            strip_subvol(&m.source),
            m.target.clone(),
            None,
            "df -P and /proc/self/mountinfo",
        ));
    }
    // Longest mount point that is a prefix of the path, at a '/' boundary; the last
    // such line wins because later mounts hide earlier ones at the same place.
    let mut best: Option<&MountInfoRow> = None;
    for m in &f.mountinfo {
        let mp = m.mount_point.trim_end_matches('/');
        let under = path == m.mount_point
            || mp.is_empty()
            || path.strip_prefix(mp).is_some_and(|r| r.starts_with('/'));
        let longer = match best {
            None => true,
            Some(b) => m.mount_point.len() >= b.mount_point.len(),
        };
        if under && longer {
            best = Some(m);
        }
    }
    best.map(|m| {
        (
            m.source.clone(),
            m.mount_point.clone(),
            Some(m.fs_type.clone()),
            "/proc/self/mountinfo",
        )
    })
}

/// findmnt shows btrfs subvolumes and bind mounts as `/dev/sda2[/@home]`.
fn strip_subvol(source: &str) -> String {
    match source.find('[') {
        Some(i) if source.starts_with("/dev/") => source[..i].to_string(),
        _ => source.to_string(),
    }
}

fn no_block_device(fs_type: &str, source: &str) -> Option<String> {
    let t = fs_type;
    let why = match t {
        "overlay" | "aufs" => format!(
            "{t} is a union filesystem, typical inside a container: its files live in the container engine's storage on the host, and no block device visible here carries its I/O alone; monitor the host instead"
        ),
        "tmpfs" | "ramfs" | "devtmpfs" => format!("{t} lives in memory: there is no disk I/O to monitor"),
        "zfs" => {
            let pool = source.split('/').next().unwrap_or(source);
            format!("{source} is a ZFS dataset: its I/O goes to the vdevs of pool {pool}; `zpool status {pool}` lists those disks")
        }
        "nfs" | "nfs4" | "cifs" | "smb3" | "smbfs" | "ceph" | "glusterfs" | "9p" | "virtiofs" | "afs" => {
            format!("{t} is a network or host-shared filesystem: its I/O happens on another machine")
        }
        _ if t.starts_with("fuse") => format!("{t} is a FUSE filesystem: its I/O goes through a user-space daemon, not a block device here"),
        _ if !source.starts_with("/dev/") && !source.starts_with("UUID=") => {
            format!("the source {source} of this {t} filesystem is not a device node")
        }
        _ => return None,
    };
    Some(why)
}

/// Maps the mount source to a kernel device name, saying how. The ways are tried from
/// the most direct to the loosest.
fn kernel_name(
    f: &DiskFacts,
    source: &str,
    mount_point: &str,
    mi: Option<&MountInfoRow>,
) -> Option<(String, String)> {
    by_source_realpath(f, source)
        .or_else(|| by_mapper_name(f, source))
        .or_else(|| by_dev_name(f, source))
        .or_else(|| by_device_number(f, source, mi))
        .or_else(|| by_lsblk_mount(f, mount_point))
}

/// A device name that sysfs, /proc/diskstats or lsblk knows.
fn is_known(f: &DiskFacts, n: &str) -> bool {
    f.sys.contains_key(n)
        || f.diskstats.iter().any(|(d, _, _)| d == n)
        || f.lsblk.iter().any(|r| r.kname == n)
}

/// A symlink (`/dev/disk/by-uuid/...`, `/dev/mapper/...`) to a device node.
fn by_source_realpath(f: &DiskFacts, source: &str) -> Option<(String, String)> {
    let real = f
        .source_realpath
        .as_deref()
        .and_then(|r| r.strip_prefix("/dev/"))?;
    (is_known(f, real) && format!("/dev/{real}") != source).then(|| {
        (
            real.to_string(),
            format!("{source} is the device node /dev/{real}"),
        )
    })
}

/// `/dev/mapper/NAME`, by its device-mapper name.
fn by_mapper_name(f: &DiskFacts, source: &str) -> Option<(String, String)> {
    let name = source.strip_prefix("/dev/mapper/")?;
    if let Some((k, _)) = f
        .sys
        .iter()
        .find(|(_, d)| d.dm_name.as_deref() == Some(name))
    {
        return Some((k.clone(), format!("{source} is device-mapper device {k}")));
    }
    f.lsblk.iter().find(|r| r.name == name).map(|r| {
        (
            r.kname.clone(),
            format!("{source} is device-mapper device {}", r.kname),
        )
    })
}

/// `/dev/NAME` itself, or `/dev/VG/LV` through its device-mapper name.
fn by_dev_name(f: &DiskFacts, source: &str) -> Option<(String, String)> {
    let name = source.strip_prefix("/dev/")?;
    if is_known(f, name) {
        return Some((name.to_string(), format!("{source} is block device {name}")));
    }
    // /dev/VG/LV: device-mapper names double dashes inside VG and LV names.
    let (vg, lv) = name.split_once('/')?;
    let dm = format!("{}-{}", vg.replace('-', "--"), lv.replace('-', "--"));
    f.sys
        .iter()
        .find(|(_, d)| d.dm_name.as_deref() == Some(dm.as_str()))
        .map(|(k, _)| {
            (
                k.clone(),
                format!("{source} is LVM volume {dm}, device-mapper device {k}"),
            )
        })
}

/// /dev/root and friends: the device number in mountinfo is authoritative.
fn by_device_number(
    f: &DiskFacts,
    source: &str,
    mi: Option<&MountInfoRow>,
) -> Option<(String, String)> {
    let dev = mi.map(|m| m.dev).filter(|(major, _)| *major != 0)?;
    let by_sys = f
        .sys
        .iter()
        .find(|(_, d)| d.dev == Some(dev))
        .map(|(k, _)| k.clone());
    let by_stats = f
        .diskstats
        .iter()
        .find(|(_, a, b)| (*a, *b) == dev)
        .map(|(n, _, _)| n.clone());
    let k = by_sys.or(by_stats)?;
    let how = format!(
        "{source} has device number {}:{}, which is {k}",
        dev.0, dev.1
    );
    Some((k, how))
}

fn by_lsblk_mount(f: &DiskFacts, mount_point: &str) -> Option<(String, String)> {
    f.lsblk
        .iter()
        .find(|r| r.mountpoint == mount_point && !r.kname.is_empty())
        .map(|r| {
            (
                r.kname.clone(),
                format!("lsblk lists {} as mounted at {mount_point}", r.kname),
            )
        })
}

pub(crate) enum Kind {
    Partition {
        parent: Option<String>,
        number: Option<u32>,
    },
    DeviceMapper,
    Md,
    Disk,
}

pub(crate) fn kind(f: &DiskFacts, name: &str) -> Kind {
    let sys = f.sys.get(name);
    let ls = f.lsblk.iter().find(|r| r.kname == name);
    let ls_type = ls.map(|r| r.kind.as_str()).unwrap_or("");
    let is_part = sys.is_some_and(|s| s.partition.is_some())
        || ls_type == "part"
        // With neither sysfs nor lsblk, fall back to the naming rules, but only when the
        // implied disk really exists.
        || (sys.is_none() && ls.is_none() && partition_parent_by_name(name).is_some_and(|p| f.diskstats.iter().any(|(n, _, _)| *n == p)));
    if is_part {
        let parent = ls
            .map(|r| r.pkname.clone())
            .filter(|p| !p.is_empty())
            .or_else(|| sys.and_then(|s| s.parent.clone()))
            .or_else(|| partition_parent_by_name(name));
        return Kind::Partition {
            parent,
            number: sys.and_then(|s| s.partition),
        };
    }
    if name.starts_with("dm-")
        || sys.is_some_and(|s| s.dm_name.is_some())
        || matches!(ls_type, "lvm" | "crypt" | "dm" | "mpath")
    {
        return Kind::DeviceMapper;
    }
    if sys.is_some_and(|s| s.md_level.is_some())
        || ls_type.starts_with("raid")
        || ls_type == "md"
        || is_md_name(name)
    {
        return Kind::Md;
    }
    Kind::Disk
}

fn is_md_name(name: &str) -> bool {
    name.strip_prefix("md")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// sda1→sda, xvda1→xvda, nvme0n1p2→nvme0n1, mmcblk0p1→mmcblk0, md0p1→md0, loop0p1→loop0.
pub(crate) fn partition_parent_by_name(name: &str) -> Option<String> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if base.len() == name.len() || base.is_empty() {
        return None;
    }
    if let Some(stem) = base.strip_suffix('p') {
        // Names ending in a digit take a "p" before the partition number.
        if stem.ends_with(|c: char| c.is_ascii_digit()) {
            return Some(stem.to_string());
        }
    }
    let letter_disk = ["sd", "vd", "xvd", "hd"]
        .iter()
        .any(|p| base.starts_with(p))
        && base.ends_with(|c: char| c.is_ascii_lowercase());
    letter_disk.then(|| base.to_string())
}

fn lower_devices(f: &DiskFacts, name: &str) -> Vec<String> {
    if let Some(s) = f.sys.get(name).filter(|s| !s.slaves.is_empty()) {
        return s.slaves.clone();
    }
    // lsblk -P prints a stacked device once under each parent.
    let mut out: Vec<String> = Vec::new();
    for r in f
        .lsblk
        .iter()
        .filter(|r| r.kname == name && !r.pkname.is_empty())
    {
        if !out.contains(&r.pkname) {
            out.push(r.pkname.clone());
        }
    }
    out
}

/// Follows `name` down to the devices that carry its I/O, adding them to `devices`
/// and each step to `chain`.
fn expand(
    f: &DiskFacts,
    name: &str,
    devices: &mut Vec<String>,
    chain: &mut Vec<String>,
    visited: &mut Vec<String>,
) {
    // sysfs is a DAG, but never trust remote data not to loop.
    if visited.iter().any(|v| v == name) || visited.len() > 64 {
        return;
    }
    visited.push(name.to_string());
    match kind(f, name) {
        Kind::Partition {
            parent: Some(parent),
            number,
        } => {
            let n = number.map(|n| format!(" {n}")).unwrap_or_default();
            chain.push(format!(
                "{name} is partition{n} of {parent}; the whole device {parent} is monitored, since utilization and queue depth are per device"
            ));
            expand(f, &parent, devices, chain, visited);
        }
        Kind::Partition { parent: None, .. } => {
            chain.push(format!("{name} is a partition whose disk could not be found; monitoring the partition itself"));
            push(devices, name);
        }
        Kind::DeviceMapper => {
            push(devices, name);
            let lower = lower_devices(f, name);
            chain.push(format!(
                "{name} is {} on {}",
                dm_description(f, name),
                listed(&lower, "devices that could not be listed")
            ));
            for l in lower {
                expand(f, &l, devices, chain, visited);
            }
        }
        Kind::Md => {
            push(devices, name);
            let lower = lower_devices(f, name);
            chain.push(format!(
                "{name} is an md {} array of {}",
                md_level(f, name),
                listed(&lower, "members that could not be listed")
            ));
            for l in lower {
                expand(f, &l, devices, chain, visited);
            }
        }
        Kind::Disk => {
            chain.push(format!("{name} is a whole disk"));
            push(devices, name);
        }
    }
}

/// "the LVM logical volume vg-data": what kind of device-mapper device `name` is, and
/// its name when known.
fn dm_description(f: &DiskFacts, name: &str) -> String {
    let sys = f.sys.get(name);
    let ls = f.lsblk.iter().find(|r| r.kname == name);
    let label = sys
        .and_then(|s| s.dm_name.clone())
        .or_else(|| ls.map(|r| r.name.clone()));
    let what = dm_kind(
        sys.and_then(|s| s.dm_uuid.as_deref()),
        ls.map(|r| r.kind.as_str()),
    );
    format!(
        "{what}{}",
        label.map(|l| format!(" {l}")).unwrap_or_default()
    )
}

/// The RAID level of md array `name` ("raid1"), "RAID" when unknown.
fn md_level(f: &DiskFacts, name: &str) -> String {
    f.sys
        .get(name)
        .and_then(|s| s.md_level.clone())
        .or_else(|| {
            f.lsblk
                .iter()
                .find(|r| r.kname == name)
                .map(|r| r.kind.clone())
                .filter(|k| !k.is_empty())
        })
        .unwrap_or_else(|| "RAID".into())
}

/// The lower devices as a list, or `none` when there are none.
fn listed(lower: &[String], none: &str) -> String {
    if lower.is_empty() {
        none.to_string()
    } else {
        lower.join(", ")
    }
}

fn dm_kind(uuid: Option<&str>, lsblk_type: Option<&str>) -> &'static str {
    match (uuid.unwrap_or(""), lsblk_type.unwrap_or("")) {
        (u, _) if u.starts_with("LVM-") => "the LVM logical volume",
        (u, _) if u.starts_with("CRYPT-") => "the dm-crypt volume",
        (u, _) if u.starts_with("mpath-") => "the multipath device",
        (_, "lvm") => "the LVM logical volume",
        (_, "crypt") => "the dm-crypt volume",
        (_, "mpath") => "the multipath device",
        _ => "the device-mapper device",
    }
}

fn push(devices: &mut Vec<String>, name: &str) {
    if !devices.iter().any(|d| d == name) {
        devices.push(name.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_names() {
        let p = |n: &str| partition_parent_by_name(n);
        assert_eq!(p("sda1").as_deref(), Some("sda"));
        assert_eq!(p("sdab12").as_deref(), Some("sdab"));
        assert_eq!(p("xvda1").as_deref(), Some("xvda"));
        assert_eq!(p("vda3").as_deref(), Some("vda"));
        assert_eq!(p("nvme0n1p2").as_deref(), Some("nvme0n1"));
        assert_eq!(p("mmcblk0p1").as_deref(), Some("mmcblk0"));
        assert_eq!(p("md0p1").as_deref(), Some("md0"));
        assert_eq!(p("nvme0n1"), None);
        assert_eq!(p("sda"), None);
        assert_eq!(p("md0"), None);
        assert_eq!(p("dm-0"), None);
        assert_eq!(p("mmcblk0"), None);
    }

    /// Loop devices stand for disks in tests and images: `loopN` is a whole disk
    /// (lsblk says TYPE="loop", not "disk") and `loopNpM` its partition, found from
    /// lsblk, from sysfs, or from the names alone.
    #[test]
    fn loop_devices_are_disks_and_loopnpm_their_partitions() {
        let p = |n: &str| partition_parent_by_name(n);
        assert_eq!(p("loop0p1").as_deref(), Some("loop0"));
        assert_eq!(p("loop12p3").as_deref(), Some("loop12"));
        assert_eq!(p("loop0"), None);
        assert_eq!(p("loop12"), None);

        let diskstats = "   7      12 loop12 9 0 9 0 9 0 9 0 0 9 9\n 259       3 loop12p3 9 0 9 0 9 0 9 0 0 9 9\n   7       7 loop7 9 0 9 0 9 0 9 0 0 9 9\n";
        let lsblk = "NAME=\"loop12\" KNAME=\"loop12\" PKNAME=\"\" TYPE=\"loop\" MOUNTPOINT=\"\" SIZE=\"1G\"\nNAME=\"loop12p3\" KNAME=\"loop12p3\" PKNAME=\"loop12\" TYPE=\"part\" MOUNTPOINT=\"/data\" SIZE=\"1G\"\nNAME=\"loop7\" KNAME=\"loop7\" PKNAME=\"\" TYPE=\"loop\" MOUNTPOINT=\"/srv\" SIZE=\"1G\"\n";
        let sysfs = "/sys/class/block/loop12p3/partition:3\n";
        let sysclass = "lrwxrwxrwx 1 root root 0 Jan  1 00:00 loop12p3 -> ../../devices/virtual/block/loop12/loop12p3\n";
        let facts = |source: &str, mount: &str, lsblk: &str, sysfs: &str, sysclass: &str| {
            DiskFacts::parse(&format!(
                "==> path <==\n{mount}/db\nexists\n==> findmnt <==\n{source} {mount} ext4\n==> lsblk <==\n{lsblk}==> sysfs <==\n{sysfs}==> sysclass <==\n{sysclass}==> diskstats <==\n{diskstats}"
            ))
        };
        for (label, f) in [
            (
                "lsblk and sysfs",
                facts("/dev/loop12p3", "/data", lsblk, sysfs, sysclass),
            ),
            (
                "sysfs only",
                facts("/dev/loop12p3", "/data", "", sysfs, sysclass),
            ),
            ("lsblk only", facts("/dev/loop12p3", "/data", lsblk, "", "")),
            ("names only", facts("/dev/loop12p3", "/data", "", "", "")),
        ] {
            let d = resolve(&f).expect("resolves");
            assert_eq!(d.devices, vec!["loop12"], "{label}: {:#?}", d.chain);
            assert!(
                d.chain
                    .iter()
                    .any(|c| c.starts_with("loop12p3 is partition") && c.contains("of loop12;")),
                "{label}: {:#?}",
                d.chain
            );
        }
        for (label, f) in [
            ("lsblk", facts("/dev/loop7", "/srv", lsblk, "", "")),
            ("names only", facts("/dev/loop7", "/srv", "", "", "")),
        ] {
            let d = resolve(&f).expect("resolves");
            assert_eq!(d.devices, vec!["loop7"], "{label}: {:#?}", d.chain);
            assert!(
                d.chain.iter().any(|c| c == "loop7 is a whole disk"),
                "{label}: {:#?}",
                d.chain
            );
        }
    }
}
