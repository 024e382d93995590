//! The data disk the monitor shows: device names checked against the server's block
//! devices, and a data directory on no disk, which the monitor says while keeping its
//! columns. Not the disk's figures themselves, which the sampling tests read.

use dbdyno_tests::*;

use super::{ladder_args, local_disks};
use crate::sshd::{self, Sshd};

#[test]
fn device_names_are_checked_against_the_servers_block_devices() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let disk = local_disks()
        .into_iter()
        .next()
        .expect("this machine has a block device");

    // An unknown name: an error naming the host and the devices it has, nothing shown.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args(["--device=sdz9", "--duration=1"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "sdz9 is not a block device on {}:{} (block devices: ",
            sb.host, sb.port
        )) && err.contains(&disk),
        "{err}"
    );
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));

    // /dev/NAME is the kernel name NAME, and its columns are filled in.
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args([format!("--device=/dev/{disk}"), "--duration=2".into()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("disk: {disk} (--device)")),
        "{}",
        stderr(&o)
    );
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert!(!rows.is_empty(), "{out}");
    for r in rows {
        // Time, 6 CPU columns and the disk's columns.
        assert!(
            r.split_whitespace().count() >= 12,
            "disk columns missing: {r}\n{out}"
        );
    }

    // `check` fails host.data_disk, and a ladder stops before its first step.
    let s = TestSchema::new("mon_dev");
    let mut args: Vec<String> = vec![
        "check".into(),
        "--scenarios=oltp_point_select".into(),
        "--ladder=1".into(),
        "--prepare".into(),
        "--device=sdz9".into(),
    ];
    args.extend(sb.args(&kh));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = s.dbdyno(&refs);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let line = stdout(&o)
        .lines()
        .find(|l| l.contains("[host.data_disk]"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(line.starts_with("FAIL"), "{}", stdout(&o));
    for extra in [
        &["--device=sdz9"][..],
        &["--device=sdz9", "--skip-checks"][..],
    ] {
        let args = ladder_args(&sb, &kh, extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = s.dbdyno(&refs);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("sdz9 is not a block device"),
            "{extra:?}: {}",
            stderr(&o)
        );
        assert!(
            !stdout(&o).contains("=== [1/"),
            "no step ran: {}",
            stdout(&o)
        );
    }
}

#[test]
fn monitor_says_when_the_datadir_has_no_disk_and_keeps_its_columns() {
    let _g = shared_server();
    for (datadir, why) in [
        (
            "/dev/shm",
            "no block device: /dev/shm is on /dev/shm (tmpfs)",
        ),
        (
            "/no/such/dir",
            "no block device: /no/such/dir does not exist",
        ),
    ] {
        let o = dbdyno_cmd()
            .args(["monitor", &format!("--datadir={datadir}"), "--duration=2"])
            .output()
            .unwrap();
        let (out, err) = (ok(&o), stderr(&o));
        assert!(err.contains(why), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].contains("no disk") && lines[1].contains("aqu-sz"),
            "{out}"
        );
        for disk in local_disks() {
            assert!(!lines[0].contains(&disk), "no fallback to /'s disk: {out}");
        }
        for l in &lines[2..] {
            assert_eq!(l.len(), lines[1].len(), "aligned: {out}");
            assert!(l.ends_with(" -"), "{out}");
        }
    }
    // `--datadir=/` asks for the root filesystem's disk, with its aqu-sz column.
    let o = dbdyno_cmd()
        .args(["monitor", "--datadir=/", "--duration=2"])
        .output()
        .unwrap();
    let out = ok(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(!lines[0].contains("no disk"), "{out}");
    for l in &lines[2..] {
        assert_eq!(l.split_whitespace().count(), 1 + 6 + 7, "{l}");
    }
}
