//! What `dbdyno monitor` shows, tsar-style: which disk to watch (the user's names
//! checked against the server, else the one under MySQL's datadir), and one line per
//! sample in the layout of `tsar --cpu --io -I <disk> -l -i1` (seed 000).
//!
//! Non-goals: no sampling (see [`crate::Monitor`]), no printing: the lines and the notes
//! about the disk choice come back as text.

use crate::disk::DiskError;
use crate::host::HostShell;
use crate::ServerSample;

/// The devices to watch and what to say about the choice (one line each).
#[derive(Debug, Default)]
pub struct Watched {
    pub devices: Vec<String>,
    pub notes: Vec<String>,
}

/// The disk to show: the user's `--device` names, checked against the server's
/// /proc/diskstats (an unknown name is an error, a partition a warning), else the
/// one under `datadir` as the resolver finds it.
pub fn choose_devices(
    shell: &HostShell,
    given: &[String],
    datadir: &str,
) -> Result<Watched, DiskError> {
    if given.is_empty() {
        return Ok(resolve_devices(shell, datadir));
    }
    let c = shell.check_devices(given)?;
    let mut notes = vec![format!("disk: {} (--device)", c.devices.join(", "))];
    notes.extend(c.warnings.iter().map(|w| format!("WARNING: {w}")));
    Ok(Watched {
        devices: c.devices,
        notes,
    })
}

/// The data disk under `datadir`. No silent fallback: a path that is not there, or
/// one on a filesystem without a block device (tmpfs, overlay), gives no device and
/// says why; `--datadir=/` asks for the root filesystem's disk.
fn resolve_devices(shell: &HostShell, datadir: &str) -> Watched {
    let exists = shell
        .run_script(&format!(
            "if [ -e {} ]; then echo yes; else echo no; fi\n",
            dbdyno_ssh::sh_quote(datadir)
        ))
        .map(|o| o.trim() == "yes");
    let (devices, note) = match exists {
        Ok(false) => (
            Vec::new(),
            format!("disk: no block device: {datadir} does not exist on the server"),
        ),
        _ => match shell.resolve_disk(datadir) {
            Ok(d) if !d.devices.is_empty() => {
                let note = format!(
                    "disk: {} ({} is on {}, {}; override with --device)",
                    d.devices.join(", "),
                    datadir,
                    d.mount_point,
                    d.fs_type
                );
                (d.devices, note)
            }
            Ok(d) => (
                Vec::new(),
                format!(
                    "disk: no block device: {datadir} is on {} ({}): {}",
                    d.mount_point,
                    d.fs_type,
                    d.chain.join(" / ")
                ),
            ),
            Err(e) => (Vec::new(), format!("disk: no block device: {datadir}: {e}")),
        },
    };
    let mut notes = vec![note];
    if devices.is_empty() {
        notes.push(
            "disk: the disk columns stay empty: give --device=NAME, or --datadir=/ for the root filesystem's disk".into(),
        );
    }
    Watched { devices, notes }
}

/// The disk columns: r/s, w/s, rkB/s, wkB/s, await, aqu-sz, util (iostat's), 60 wide.
pub const DISK_COLS: [(&str, usize); 7] = [
    ("r/s", 8),
    ("w/s", 8),
    ("rkB/s", 9),
    ("wkB/s", 9),
    ("await", 7),
    ("aqu-sz", 7),
    ("util", 6),
];

/// The two header lines (device names over their columns).
pub fn header(devices: &[String]) -> String {
    let mut top = format!("{:<18} {:-^41}", "Time (UTC)", "cpu");
    let mut cols = format!(
        "{:<18} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "Time (UTC)", "user", "sys", "wait", "steal", "idle", "util"
    );
    let names: Vec<String> = if devices.is_empty() {
        vec!["no disk".into()]
    } else {
        devices.to_vec()
    };
    let width: usize = DISK_COLS.iter().map(|(_, w)| w + 1).sum::<usize>() - 1;
    for d in &names {
        top.push_str(&format!(" {:-^width$}", d));
        for (name, w) in DISK_COLS {
            cols.push_str(&format!(" {name:>w$}"));
        }
    }
    format!("{top}\n{cols}")
}

/// One sample: the time is the server's own stamp, as tsar prints the server's time.
/// A device without figures in this sample (none chosen, or gone) keeps its columns,
/// filled with "-".
pub fn line(time: &str, s: &ServerSample, devices: &[String]) -> String {
    let mut out = format!("{time:<18}");
    match s.cpu {
        Some(c) => out.push_str(&format!(
            " {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>6.1}",
            c.user, c.system, c.iowait, c.steal, c.idle, c.util
        )),
        None => out.push_str(&format!(" {:>41}", "-")),
    }
    let slots: Vec<Option<&crate::rates::DiskRates>> = if devices.is_empty() {
        vec![None]
    } else {
        devices
            .iter()
            .map(|d| s.disks.iter().find(|x| &x.name == d))
            .collect()
    };
    for d in slots {
        match d {
            Some(d) => out.push_str(&format!(
                " {:>8.2} {:>8.2} {:>9.2} {:>9.2} {:>7.2} {:>7.2} {:>6.1}",
                d.r_per_s, d.w_per_s, d.rkb_per_s, d.wkb_per_s, d.await_ms, d.aqu_sz, d.util_pct
            )),
            None => {
                for (_, w) in DISK_COLS {
                    out.push_str(&format!(" {:>w$}", "-"));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_with_and_without_a_device() {
        let header_width = {
            let width: usize = DISK_COLS.iter().map(|(_, w)| w + 1).sum::<usize>();
            18 + 42 + width
        };
        let sample: ServerSample = serde_json::from_value(serde_json::json!({
            "server_unix_ms": 0, "local_unix_ms": 0, "interval_s": 1.0,
            "cpu": null, "disks": [], "mem": null, "swap": null, "net": [], "load": null,
            "sampler": null
        }))
        .expect("a sample without figures");
        for devices in [vec![], vec!["vda".to_string()]] {
            let l = line("01/01/70-00:00:00", &sample, &devices);
            assert_eq!(l.len(), header_width, "{l:?}");
            assert_eq!(
                l.split_whitespace().count(),
                1 + 1 + DISK_COLS.len(),
                "{l:?}"
            );
        }
    }
}
