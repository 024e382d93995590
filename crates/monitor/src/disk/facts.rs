//! Raw facts about where a path lives, gathered by one shell script on the server,
//! and their parsing into plain structs.
//!
//! The script prints each command's ordinary output under a `==> name <==` header:
//! `findmnt -n -o SOURCE,TARGET,FSTYPE -T PATH`, `df -P PATH`, `readlink -f` of the
//! path and of the mount source, `lsblk -P -o NAME,KNAME,PKNAME,TYPE,MOUNTPOINT,SIZE`,
//! `grep -H '' /sys/class/block/*/{dev,partition,dm/name,dm/uuid,md/level}`, the
//! `/sys/class/block/*/slaves/*` links, `ls -l /sys/class/block/`,
//! `/proc/self/mountinfo` and `/proc/diskstats`. Any of them may be missing
//! (busybox, containers, old distributions): its section is then empty and the
//! resolver falls back to the others.
//!
//! Non-goals: no decisions here (see `resolve`), no ZFS/btrfs pool introspection.

use dbdyno_ssh::sh_quote;
use std::collections::BTreeMap;

/// Section names, in the order the script prints them.
pub const SECTIONS: [&str; 10] = [
    "path",
    "realpath",
    "findmnt",
    "df",
    "source",
    "lsblk",
    "sysfs",
    "sysclass",
    "mountinfo",
    "diskstats",
];

/// The script for `path` (absolute; quoted here for sh).
pub fn facts_script(path: &str) -> String {
    format!(
        r#"P={quoted}
export LC_ALL=C
echo '==> path <=='
printf '%s\n' "$P"
if [ -e "$P" ]; then echo exists; else echo missing; fi
echo '==> realpath <=='
readlink -f "$P" 2>/dev/null
echo '==> findmnt <=='
findmnt -n -o SOURCE,TARGET,FSTYPE -T "$P" 2>/dev/null
echo '==> df <=='
df -P "$P" 2>/dev/null
src=$(findmnt -n -o SOURCE -T "$P" 2>/dev/null)
[ -n "$src" ] || src=$(df -P "$P" 2>/dev/null | awk 'NR==2 {{print $1}}')
echo '==> source <=='
case "$src" in /dev/*) readlink -f "${{src%%\[*}}" 2>/dev/null ;; esac
echo '==> lsblk <=='
lsblk -P -o NAME,KNAME,PKNAME,TYPE,MOUNTPOINT,SIZE 2>/dev/null
echo '==> sysfs <=='
grep -H '' /sys/class/block/*/dev /sys/class/block/*/partition /sys/class/block/*/dm/name /sys/class/block/*/dm/uuid /sys/class/block/*/md/level 2>/dev/null
for f in /sys/class/block/*/slaves/*; do [ -e "$f" ] && echo "$f"; done
echo '==> sysclass <=='
ls -l /sys/class/block/ 2>/dev/null
echo '==> mountinfo <=='
cat /proc/self/mountinfo 2>/dev/null
echo '==> diskstats <=='
cat /proc/diskstats 2>/dev/null
exit 0
"#,
        quoted = sh_quote(path)
    )
}

/// Splits script output into `(section, text)`; text before the first header is ignored.
pub fn split_sections(output: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in output.lines() {
        if let Some(name) = line
            .strip_prefix("==> ")
            .and_then(|l| l.strip_suffix(" <=="))
        {
            current = Some(name.to_string());
            map.entry(name.to_string()).or_insert_with(String::new);
        } else if let Some(name) = &current {
            if let Some(text) = map.get_mut(name) {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    map
}

/// Everything the resolver may use, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiskFacts {
    pub path: String,
    /// `None` when the script did not say (older output).
    pub path_exists: Option<bool>,
    pub realpath: Option<String>,
    pub findmnt: Option<MountRow>,
    pub df: Option<MountRow>,
    /// `readlink -f` of the mount source: `/dev/dm-0` for `/dev/mapper/vg-lv`.
    pub source_realpath: Option<String>,
    pub lsblk: Vec<LsblkRow>,
    pub sys: BTreeMap<String, SysDev>,
    pub mountinfo: Vec<MountInfoRow>,
    /// Device names in /proc/diskstats with their numbers.
    pub diskstats: Vec<(String, u32, u32)>,
}

/// A mount as findmnt or df report it (df has no type: `fs_type` is then `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountRow {
    pub source: String,
    pub target: String,
    pub fs_type: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LsblkRow {
    pub name: String,
    pub kname: String,
    pub pkname: String,
    pub kind: String,
    pub mountpoint: String,
    pub size: String,
}

/// What sysfs says about one block device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SysDev {
    pub dev: Option<(u32, u32)>,
    /// Partition number when the device is a partition.
    pub partition: Option<u32>,
    pub dm_name: Option<String>,
    pub dm_uuid: Option<String>,
    pub md_level: Option<String>,
    pub slaves: Vec<String>,
    /// For partitions: the disk it belongs to, from the sysfs link path.
    pub parent: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountInfoRow {
    pub dev: (u32, u32),
    pub root: String,
    pub mount_point: String,
    pub fs_type: String,
    pub source: String,
}

impl DiskFacts {
    /// Parses the script's whole output.
    pub fn parse(output: &str) -> DiskFacts {
        Self::from_sections(&split_sections(output))
    }

    pub fn from_sections(s: &BTreeMap<String, String>) -> DiskFacts {
        let get = |k: &str| s.get(k).map(String::as_str).unwrap_or("");
        let first_line = |k: &str| {
            get(k)
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_string)
        };
        let mut path_lines = get("path").lines();
        let path = path_lines.next().unwrap_or("").to_string();
        let path_exists = match path_lines.next().map(str::trim) {
            Some("exists") => Some(true),
            Some("missing") => Some(false),
            _ => None,
        };
        DiskFacts {
            path,
            path_exists,
            realpath: first_line("realpath"),
            findmnt: parse_findmnt(get("findmnt")),
            df: parse_df(get("df")),
            source_realpath: first_line("source"),
            lsblk: parse_lsblk(get("lsblk")),
            sys: parse_sysfs(get("sysfs"), get("sysclass")),
            mountinfo: parse_mountinfo(get("mountinfo")),
            diskstats: get("diskstats")
                .lines()
                .filter_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    Some((
                        f.get(2)?.to_string(),
                        f.first()?.parse().ok()?,
                        f.get(1)?.parse().ok()?,
                    ))
                })
                .collect(),
        }
    }
}

/// `SOURCE TARGET FSTYPE` padded into columns; the target may contain spaces.
fn parse_findmnt(text: &str) -> Option<MountRow> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 3 {
        return None;
    }
    Some(MountRow {
        source: f[0].to_string(),
        target: f[1..f.len() - 1].join(" "),
        fs_type: Some(f[f.len() - 1].to_string()),
    })
}

/// `df -P`: a header, then `Filesystem 1024-blocks Used Available Capacity Mounted-on`.
fn parse_df(text: &str) -> Option<MountRow> {
    let line = text.lines().skip(1).find(|l| !l.trim().is_empty())?;
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.len() < 6 {
        return None;
    }
    Some(MountRow {
        source: f[0].to_string(),
        target: f[5..].join(" "),
        fs_type: None,
    })
}

/// `NAME="sda1" KNAME="sda1" ...`; values use `\x20`-style escapes.
fn parse_lsblk(text: &str) -> Vec<LsblkRow> {
    text.lines()
        .filter_map(|line| {
            let kv = parse_pairs(line);
            let get = |k: &str| kv.get(k).cloned().unwrap_or_default();
            let kname = kv.get("KNAME").or_else(|| kv.get("NAME"))?.clone();
            Some(LsblkRow {
                name: get("NAME"),
                kname,
                pkname: get("PKNAME"),
                kind: get("TYPE"),
                mountpoint: get("MOUNTPOINT"),
                size: get("SIZE"),
            })
        })
        .collect()
}

fn parse_pairs(line: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = line.trim();
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq].trim().to_string();
        let after = &rest[eq + 2..];
        let Some(end) = after.find('"') else { break };
        out.insert(key, unescape_hex(&after[..end]));
        rest = &after[end + 1..];
    }
    out
}

fn unescape_hex(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\\x") {
        out.push_str(&rest[..i]);
        match rest
            .get(i + 2..i + 4)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            Some(b) => {
                out.push(b as char);
                rest = &rest[i + 4..];
            }
            None => {
                out.push_str("\\x");
                rest = &rest[i + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `grep -H` lines (`/sys/class/block/NAME/FILE:value`), slave link paths
/// (`/sys/class/block/NAME/slaves/SLAVE`) and `ls -l` of /sys/class/block.
fn parse_sysfs(grep: &str, ls: &str) -> BTreeMap<String, SysDev> {
    let mut map: BTreeMap<String, SysDev> = BTreeMap::new();
    for line in grep.lines() {
        let Some(rest) = line.trim().strip_prefix("/sys/class/block/") else {
            continue;
        };
        let Some((name, what)) = rest.split_once('/') else {
            continue;
        };
        let dev = map.entry(name.to_string()).or_default();
        if let Some(slave) = what.strip_prefix("slaves/") {
            dev.slaves.push(slave.to_string());
            continue;
        }
        let Some((file, value)) = what.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match file {
            "dev" => {
                dev.dev = value
                    .split_once(':')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            }
            "partition" => dev.partition = value.parse().ok(),
            "dm/name" => dev.dm_name = Some(value.to_string()),
            "dm/uuid" => dev.dm_uuid = Some(value.to_string()),
            "md/level" => dev.md_level = Some(value.to_string()),
            _ => {}
        }
    }
    for line in ls.lines() {
        // lrwxrwxrwx 1 root root 0 Nov 29 23:07 sda1 -> ../../devices/.../block/sda/sda1
        let Some((left, target)) = line.split_once(" -> ") else {
            continue;
        };
        let Some(name) = left.split_whitespace().last() else {
            continue;
        };
        let parts: Vec<&str> = target.trim().split('/').collect();
        if parts.len() >= 2 && parts[parts.len() - 1] == name {
            let up = parts[parts.len() - 2];
            map.entry(name.to_string()).or_default().parent = Some(up.to_string());
        }
    }
    // `parent` from the link is only meaningful for partitions; for a whole disk it
    // is the controller's directory (e.g. "nvme0" or "block").
    for dev in map.values_mut() {
        if dev.partition.is_none() {
            dev.parent = None;
        }
    }
    map
}

/// `/proc/self/mountinfo` (proc(5)): fields up to " - " then type, source, options.
fn parse_mountinfo(text: &str) -> Vec<MountInfoRow> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split_whitespace().collect();
            let r: Vec<&str> = right.split_whitespace().collect();
            let (maj, min) = l.get(2)?.split_once(':')?;
            Some(MountInfoRow {
                dev: (maj.parse().ok()?, min.parse().ok()?),
                root: unescape_octal(l.get(3)?),
                mount_point: unescape_octal(l.get(4)?),
                fs_type: r.first()?.to_string(),
                source: unescape_octal(r.get(1).copied().unwrap_or("none")),
            })
        })
        .collect()
}

/// mountinfo escapes space, tab, newline and backslash as `\040` etc.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findmnt_df_lsblk_mountinfo_lines() {
        let m = parse_findmnt("/dev/sda1 /srv/my data ext4\n").expect("row");
        assert_eq!(
            (m.source.as_str(), m.target.as_str()),
            ("/dev/sda1", "/srv/my data")
        );
        let d = parse_df("Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/vda 264212084 12330112  82955776      13% /\n")
            .expect("row");
        assert_eq!((d.source.as_str(), d.target.as_str()), ("/dev/vda", "/"));
        let l = parse_lsblk("NAME=\"vg0-my\\x20lv\" KNAME=\"dm-0\" PKNAME=\"sda2\" TYPE=\"lvm\" MOUNTPOINT=\"/a b\" SIZE=\"10G\"\n");
        assert_eq!(
            (
                l[0].name.as_str(),
                l[0].kname.as_str(),
                l[0].pkname.as_str()
            ),
            ("vg0-my lv", "dm-0", "sda2")
        );
        let mi =
            parse_mountinfo("27 1 254:0 / /my\\040dir rw,relatime shared:1 - ext4 /dev/vda rw\n");
        assert_eq!(mi[0].mount_point, "/my dir");
        assert_eq!(mi[0].dev, (254, 0));
    }

    #[test]
    fn sysfs_facts() {
        let grep = "/sys/class/block/sda/dev:8:0\n/sys/class/block/sda1/dev:8:1\n/sys/class/block/sda1/partition:1\n/sys/class/block/dm-0/dm/name:vg0-mysql\n/sys/class/block/dm-0/slaves/sda1\n";
        let ls = "lrwxrwxrwx 1 root root 0 Jan  1 00:00 sda -> ../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda\nlrwxrwxrwx 1 root root 0 Jan  1 00:00 sda1 -> ../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1\n";
        let s = parse_sysfs(grep, ls);
        assert_eq!(s["sda1"].partition, Some(1));
        assert_eq!(s["sda1"].parent.as_deref(), Some("sda"));
        assert_eq!(s["sda"].parent, None);
        assert_eq!(s["dm-0"].slaves, vec!["sda1"]);
        assert_eq!(s["sda"].dev, Some((8, 0)));
    }
}
