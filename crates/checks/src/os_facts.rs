//! Facts about the database server's machine: CPU model and count, memory, kernel,
//! host name, boot id, free space under MySQL's directories and block device sizes.
//!
//! One POSIX `sh` script prints them under `==> name <==` headers (the monitor crate's
//! convention); it runs over SSH or locally through [`dbdyno_monitor::host::HostShell`],
//! so both paths parse the same text. Every command may be missing (busybox,
//! containers): its section is then empty and the field `None`.
//!
//! Non-goals: no sampling (the monitor crate does it), no decisions.

use std::collections::BTreeMap;

use dbdyno_monitor::disk::facts::split_sections;
use dbdyno_ssh::sh_quote;
use serde::{Deserialize, Serialize};

/// What the script found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OsFacts {
    pub hostname: Option<String>,
    /// `uname -r`.
    pub kernel: Option<String>,
    pub cpu_model: Option<String>,
    /// Logical CPUs online (what the scheduler uses).
    pub cpus: Option<u32>,
    /// Distinct (socket, core) pairs in /proc/cpuinfo; `None` where it does not say (VMs, ARM).
    pub physical_cores: Option<u32>,
    pub mem_total_mb: Option<f64>,
    /// /proc/sys/kernel/random/boot_id: equal on both ends means one kernel, one machine.
    pub boot_id: Option<String>,
    /// `df -Pk` of each path asked about.
    pub filesystems: Vec<FsSpace>,
    /// Size of every block device in bytes, by kernel name.
    pub block_device_bytes: BTreeMap<String, u64>,
}

/// Space on the filesystem that holds `path`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FsSpace {
    pub path: String,
    pub mount_point: String,
    pub total_bytes: u64,
    pub avail_bytes: u64,
}

/// The script; `paths` are the directories whose filesystems matter (datadir, logs).
pub fn os_facts_script(paths: &[String]) -> String {
    let quoted: Vec<String> = paths.iter().map(|p| sh_quote(p)).collect();
    format!(
        r#"export LC_ALL=C
echo '==> hostname <=='
hostname 2>/dev/null || cat /proc/sys/kernel/hostname 2>/dev/null
echo '==> kernel <=='
uname -r 2>/dev/null
echo '==> cpu_model <=='
grep -m1 -E '^(model name|Hardware|cpu model|uarch)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2-
echo '==> cpus <=='
getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c '^processor' /proc/cpuinfo 2>/dev/null
echo '==> cores <=='
awk -F: '/^physical id/ {{p=$2}} /^core id/ {{print p ":" $2}}' /proc/cpuinfo 2>/dev/null | sort -u | wc -l
echo '==> meminfo <=='
grep -m1 '^MemTotal:' /proc/meminfo 2>/dev/null
echo '==> boot_id <=='
cat /proc/sys/kernel/random/boot_id 2>/dev/null
echo '==> df <=='
for p in {paths}; do
  df -Pk "$p" 2>/dev/null | awk -v p="$p" 'NR==2 {{ m=$6; for (i=7; i<=NF; i++) m=m " " $i; print p "\t" $2 "\t" $4 "\t" m }}'
done
echo '==> block_sizes <=='
for f in /sys/class/block/*/size; do
  [ -r "$f" ] || continue
  d=${{f%/size}}; read s < "$f" && echo "${{d##*/}} $s"
done
exit 0
"#,
        paths = if quoted.is_empty() {
            "/".to_string()
        } else {
            quoted.join(" ")
        }
    )
}

impl OsFacts {
    pub fn parse(output: &str) -> OsFacts {
        let s = split_sections(output);
        let first = |k: &str| {
            s.get(k)
                .and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty()))
                .map(str::to_string)
        };
        let filesystems = s
            .get("df")
            .map(|t| t.lines().filter_map(parse_df_line).collect())
            .unwrap_or_default();
        let block_device_bytes = s
            .get("block_sizes")
            .map(|t| {
                t.lines()
                    .filter_map(|l| {
                        let (name, sectors) = l.trim().split_once(' ')?;
                        // /sys/class/block/*/size counts 512-byte sectors whatever the device's own block size.
                        Some((name.to_string(), sectors.trim().parse::<u64>().ok()? * 512))
                    })
                    .collect()
            })
            .unwrap_or_default();
        OsFacts {
            hostname: first("hostname"),
            kernel: first("kernel"),
            cpu_model: first("cpu_model")
                .map(|m| m.split_whitespace().collect::<Vec<_>>().join(" ")),
            cpus: first("cpus")
                .and_then(|c| c.parse().ok())
                .filter(|c| *c > 0),
            physical_cores: first("cores")
                .and_then(|c| c.parse().ok())
                .filter(|c| *c > 0),
            mem_total_mb: first("meminfo").and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<f64>().ok())
                    .map(|kb| kb / 1024.0)
            }),
            boot_id: first("boot_id"),
            filesystems,
            block_device_bytes,
        }
    }

    /// The filesystem holding `path`, if the script could tell.
    pub fn filesystem(&self, path: &str) -> Option<&FsSpace> {
        self.filesystems.iter().find(|f| f.path == path)
    }
}

fn parse_df_line(line: &str) -> Option<FsSpace> {
    let mut parts = line.split('\t');
    let path = parts.next()?.to_string();
    let total_kb: u64 = parts.next()?.trim().parse().ok()?;
    let avail_kb: u64 = parts.next()?.trim().parse().ok()?;
    let mount_point = parts.next()?.trim().to_string();
    Some(FsSpace {
        path,
        mount_point,
        total_bytes: total_kb * 1024,
        avail_bytes: avail_kb * 1024,
    })
}

/// This machine's boot id (to tell whether the server is this machine).
pub fn local_boot_id() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output of the script on a Debian 12 VM (block list shortened).
    const CAPTURE: &str = "==> hostname <==\nvm\n==> kernel <==\n6.1.0-28-amd64\n==> cpu_model <==\n AMD EPYC 7B13\n==> cpus <==\n2\n==> cores <==\n1\n==> meminfo <==\nMemTotal:       24683652 kB\n==> boot_id <==\n5f0c7c39-3d0a-4b8e-9d9f-1c2b7f6c1a11\n==> df <==\n/var/lib/mysql/\t102626232\t60123456\t/\n/data/redo log\t51200000\t51000000\t/data/redo log\n==> block_sizes <==\nvda 209715200\nvda1 209713152\n";

    #[test]
    fn parses_the_script_output() {
        let f = OsFacts::parse(CAPTURE);
        assert_eq!(f.hostname.as_deref(), Some("vm"));
        assert_eq!(f.kernel.as_deref(), Some("6.1.0-28-amd64"));
        assert_eq!(f.cpu_model.as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!((f.cpus, f.physical_cores), (Some(2), Some(1)));
        assert!((f.mem_total_mb.unwrap() - 24105.1).abs() < 0.1);
        let fs = f.filesystem("/var/lib/mysql/").unwrap();
        assert_eq!(
            (fs.total_bytes, fs.avail_bytes, fs.mount_point.as_str()),
            (102626232 * 1024, 60123456 * 1024, "/")
        );
        assert_eq!(
            f.filesystem("/data/redo log").unwrap().mount_point,
            "/data/redo log"
        );
        assert_eq!(f.block_device_bytes["vda"], 209715200 * 512);
    }

    #[test]
    fn missing_commands_leave_fields_empty() {
        let f = OsFacts::parse("==> hostname <==\n==> cpus <==\n0\n==> df <==\ngarbage\n");
        assert_eq!(f, OsFacts::default());
    }

    #[test]
    fn the_script_runs_here() {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(os_facts_script(&["/".into()]))
            .output()
            .unwrap();
        let f = OsFacts::parse(&String::from_utf8_lossy(&out.stdout));
        assert!(
            f.cpus.unwrap() >= 1 && f.mem_total_mb.unwrap() > 0.0,
            "{f:?}"
        );
        assert_eq!(f.boot_id, local_boot_id());
        assert!(f.filesystem("/").unwrap().total_bytes > 0, "{f:?}");
    }
}
