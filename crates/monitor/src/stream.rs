//! The remote sampling loop: one long-lived POSIX `sh` script per host that prints a
//! block of raw /proc text once per interval, and the parser for its output.
//!
//! Why a shell loop and not N `ssh cat` calls: one SSH channel and, per sample, two
//! short-lived processes (`head` for the multi-line files, `sleep` to wait) — the
//! one-line files are read with the `read` builtin. That keeps the observer's cost
//! far below 1 % of a core, and it is measured: every block carries the loop shell's
//! own `/proc/$$/stat` (children included) and its parent's (the sshd session).
//!
//! Timing: the script prints the server's wall clock once at start next to
//! `/proc/uptime`; each block then carries its uptime, so sample times are on the
//! server's clock (10 ms resolution) without a `date` per sample. Sleeps aim at a
//! fixed schedule, so samples do not drift by the loop's run time.
//!
//! Output format (every line ends with '\n'):
//! ```text
//! @@DBDYNO START v1 uptime0=U epoch=E uptime1=U clk_tck=100 ncpu=2 pid=P ppid=Q
//! @@DBDYNO BEGIN <seq>
//! ==> /proc/uptime <==      one-line files the script prints itself
//! ==> /proc/stat <==        (first line only: the aggregate cpu line)
//! ==> /proc/loadavg <==
//! ==> sampler <==           /proc/$$/stat
//! ==> transport <==         /proc/$PPID/stat (empty when unreadable)
//! ==> /proc/meminfo <==     the rest as `head` prints several files
//! ==> /proc/vmstat <==
//! ==> /proc/diskstats <==
//! ==> /proc/net/dev <==
//! @@DBDYNO END <seq>
//! ```
//! A block is only used once its END line arrives, so a stream cut mid-block never
//! yields a half-read sample.
//!
//! Non-goals: no shell other than POSIX sh features (runs on dash, bash, busybox
//! ash), no persistence on the server, nothing written to the server's disk.

use crate::procfs::RawSnapshot;
use std::time::Duration;

/// Marker that starts every control line of the stream.
const MARK: &str = "@@DBDYNO ";

/// The shell script for an interval (rounded to 10 ms, at least 100 ms). It is fed to
/// `sh -s` on stdin, so the login shell's quoting rules (bash, zsh, fish…) never apply.
pub fn sampler_script(interval: Duration) -> String {
    let cs = interval_centis(interval);
    format!(
        r#"export LC_ALL=C
iv={cs}
tck=$(getconf CLK_TCK 2>/dev/null) || tck=100
[ -n "$tck" ] || tck=100
ncpu=$(grep -c '^cpu[0-9]' /proc/stat 2>/dev/null)
read u0 _ < /proc/uptime
ep=$(date +%s.%N 2>/dev/null)
read u1 _ < /proc/uptime
printf '@@DBDYNO START v1 uptime0=%s epoch=%s uptime1=%s clk_tck=%s ncpu=%s pid=%s ppid=%s\n' "$u0" "$ep" "$u1" "$tck" "$ncpu" "$$" "$PPID" || exit 0
exec 2>/dev/null
s=${{u1%.*}}; c=${{u1#*.}}; c=${{c#0}}; t0=$((s*100+c))
i=0
while :; do
  read up _ < /proc/uptime
  read cpu < /proc/stat
  read la < /proc/loadavg
  read me < /proc/$$/stat
  pa=; read pa < /proc/$PPID/stat
  printf '@@DBDYNO BEGIN %s\n==> /proc/uptime <==\n%s\n==> /proc/stat <==\n%s\n==> /proc/loadavg <==\n%s\n==> sampler <==\n%s\n==> transport <==\n%s\n' "$i" "$up" "$cpu" "$la" "$me" "$pa" || exit 0
  head -n 1000000 /proc/meminfo /proc/vmstat /proc/diskstats /proc/net/dev
  printf '@@DBDYNO END %s\n' "$i" || exit 0
  i=$((i+1))
  read up _ < /proc/uptime
  s=${{up%.*}}; c=${{up#*.}}; c=${{c#0}}; now=$((s*100+c))
  d=$((t0 + i*iv - now))
  if [ "$d" -le 0 ]; then t0=$((now - i*iv)); continue; fi
  sleep $((d/100)).$((d%100/10))$((d%10))
done
"#
    )
}

fn interval_centis(interval: Duration) -> u64 {
    (interval.as_millis() / 10).clamp(10, 360_000) as u64
}

/// The START line: how to put server wall-clock times on blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamHeader {
    /// Server wall clock (Unix seconds) at `uptime_at_epoch`; `None` if `date` failed.
    pub epoch_s: Option<f64>,
    pub uptime_at_epoch: f64,
    pub clk_tck: u32,
    pub ncpu: Option<u32>,
    /// PID of the remote loop shell (useful for diagnosing a stuck loop).
    pub pid: Option<u32>,
}

impl StreamHeader {
    /// Server wall-clock time (Unix ms) for a block captured at `uptime_s`.
    pub fn server_unix_ms(&self, uptime_s: f64) -> Option<i64> {
        let epoch = self.epoch_s?;
        Some(((epoch + (uptime_s - self.uptime_at_epoch)) * 1000.0).round() as i64)
    }
}

/// One complete block.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamBlock {
    pub seq: u64,
    pub snapshot: RawSnapshot,
}

/// What a line of output completed, if anything.
// Produced once a second and consumed at once: not worth boxing the block.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    Header(StreamHeader),
    Block(StreamBlock),
}

/// Incremental parser: feed it lines in order, it yields headers and whole blocks.
#[derive(Debug, Default)]
pub struct StreamParser {
    block: Option<(u64, Vec<(String, String)>)>,
}

impl StreamParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one line (with or without its trailing newline).
    pub fn feed_line(&mut self, line: &str) -> Option<StreamItem> {
        let line = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = line.strip_prefix(MARK) {
            return self.control(rest);
        }
        let (_, sections) = self.block.as_mut()?;
        if let Some(name) = line
            .strip_prefix("==> ")
            .and_then(|l| l.strip_suffix(" <=="))
        {
            sections.push((name.to_string(), String::new()));
        } else if !line.is_empty() {
            // Text before the first header of a block is noise (e.g. a login banner
            // printed by a shell rc file); drop it.
            if let Some((_, text)) = sections.last_mut() {
                text.push_str(line);
                text.push('\n');
            }
        }
        None
    }

    fn control(&mut self, rest: &str) -> Option<StreamItem> {
        let mut words = rest.split_whitespace();
        match words.next() {
            Some("START") => parse_header(words).map(StreamItem::Header),
            Some("BEGIN") => {
                let seq = words.next().and_then(|s| s.parse().ok())?;
                self.block = Some((seq, Vec::new()));
                None
            }
            Some("END") => {
                let seq: u64 = words.next().and_then(|s| s.parse().ok())?;
                let (begun, sections) = self.block.take()?;
                if begun != seq {
                    return None;
                }
                let snapshot = RawSnapshot::from_sections(
                    sections
                        .iter()
                        .filter(|(_, t)| !t.is_empty())
                        .map(|(n, t)| (n.as_str(), t.as_str())),
                );
                Some(StreamItem::Block(StreamBlock { seq, snapshot }))
            }
            _ => None,
        }
    }
}

fn parse_header<'a>(words: impl Iterator<Item = &'a str>) -> Option<StreamHeader> {
    let mut kv = std::collections::HashMap::new();
    for w in words {
        if let Some((k, v)) = w.split_once('=') {
            kv.insert(k, v);
        }
    }
    let f = |k: &str| kv.get(k).and_then(|v| v.parse::<f64>().ok());
    let u0 = f("uptime0")?;
    let u1 = f("uptime1").unwrap_or(u0);
    // `date +%N` is a GNU extension: busybox prints a literal "N"; then only the
    // whole seconds before the dot are usable.
    let epoch_s = f("epoch").or_else(|| {
        kv.get("epoch")
            .and_then(|v| v.split('.').next())
            .and_then(|s| s.parse::<f64>().ok())
    });
    Some(StreamHeader {
        epoch_s,
        uptime_at_epoch: (u0 + u1) / 2.0,
        clk_tck: kv
            .get("clk_tck")
            .and_then(|v| v.parse().ok())
            .filter(|t| *t > 0)
            .unwrap_or(100),
        ncpu: kv.get("ncpu").and_then(|v| v.parse().ok()),
        pid: kv.get("pid").and_then(|v| v.parse().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real output of the script through the sandbox sshd (Debian 12, dash), cut in
    /// the middle of its third block as a dropped connection would.
    const CAPTURE: &str = include_str!("../testdata/stream/sshd-3-blocks-cut.txt");

    #[test]
    fn parses_header_and_whole_blocks_only() {
        let mut p = StreamParser::new();
        let items: Vec<StreamItem> = CAPTURE.lines().filter_map(|l| p.feed_line(l)).collect();
        assert_eq!(
            items.len(),
            3,
            "header + 2 blocks; the cut third block is not emitted"
        );
        let StreamItem::Header(h) = &items[0] else {
            panic!("header first")
        };
        assert_eq!((h.clk_tck, h.ncpu, h.pid), (100, Some(2), Some(20013)));
        assert_eq!(h.server_unix_ms(3055.50), Some(1795996332052));
        let StreamItem::Block(b0) = &items[1] else {
            panic!("block")
        };
        let StreamItem::Block(b1) = &items[2] else {
            panic!("block")
        };
        assert_eq!((b0.seq, b1.seq), (0, 1));
        for b in [b0, b1] {
            let s = &b.snapshot;
            assert!(s.warnings.is_empty(), "{:?}", s.warnings);
            assert!(s.cpu.is_some() && s.mem.is_some() && s.load.is_some() && s.swap_io.is_some());
            assert!(s.disks.iter().any(|d| d.name == "vda"));
            assert!(s.net.iter().any(|n| n.iface == "eth0"));
            assert!(s.transport_ticks.is_some());
        }
        assert_eq!(
            (b0.snapshot.uptime_s, b1.snapshot.uptime_s),
            (Some(3054.50), Some(3055.50))
        );
        // utime+stime+cutime+cstime of the loop shell (0+0+11+2: startup's getconf, grep
        // and date) and of sshd (0+0): a second of sampling cost under one 10 ms tick.
        assert_eq!(
            (b0.snapshot.sampler_ticks, b1.snapshot.sampler_ticks),
            (Some(13), Some(13))
        );
        assert_eq!(b1.snapshot.transport_ticks, Some(0));
    }

    #[test]
    fn unreadable_parent_stat_gives_no_transport_figure_and_no_warning() {
        // A server mounting /proc with hidepid=2 makes `read pa < /proc/$PPID/stat` fail.
        let text = "@@DBDYNO BEGIN 7\n==> /proc/uptime <==\n10.00\n==> transport <==\n\n==> /proc/loadavg <==\n0.1 0.2 0.3 1/2 3\n@@DBDYNO END 7\n";
        let mut p = StreamParser::new();
        let block = text.lines().find_map(|l| p.feed_line(l));
        let Some(StreamItem::Block(b)) = block else {
            panic!("block")
        };
        assert_eq!(b.snapshot.transport_ticks, None);
        assert!(b.snapshot.warnings.is_empty(), "{:?}", b.snapshot.warnings);
        assert!(b.snapshot.load.is_some());
    }

    #[test]
    fn busybox_date_without_nanoseconds_and_mismatched_end() {
        let mut p = StreamParser::new();
        let h = p.feed_line(
            "@@DBDYNO START v1 uptime0=10.00 epoch=1700000000.N uptime1=10.00 clk_tck=0",
        );
        let Some(StreamItem::Header(h)) = h else {
            panic!("header")
        };
        assert_eq!(h.epoch_s, Some(1_700_000_000.0));
        assert_eq!(h.clk_tck, 100);
        assert!(p.feed_line("@@DBDYNO BEGIN 4").is_none());
        assert!(p.feed_line("@@DBDYNO END 5").is_none());
        assert!(p.feed_line("garbage before anything").is_none());
        assert!(p.feed_line("@@DBDYNO START v1 epoch=x").is_none());
    }

    #[test]
    fn script_interval_is_in_centiseconds() {
        assert!(sampler_script(Duration::from_millis(1000)).contains("iv=100\n"));
        assert!(sampler_script(Duration::from_millis(1)).contains("iv=10\n"));
    }
}
