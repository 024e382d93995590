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
        if let Some(name) = line.strip_prefix("==> ").and_then(|l| l.strip_suffix(" <==")) {
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
                    sections.iter().filter(|(_, t)| !t.is_empty()).map(|(n, t)| (n.as_str(), t.as_str())),
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
        kv.get("epoch").and_then(|v| v.split('.').next()).and_then(|s| s.parse::<f64>().ok())
    });
    Some(StreamHeader {
        epoch_s,
        uptime_at_epoch: (u0 + u1) / 2.0,
        clk_tck: kv.get("clk_tck").and_then(|v| v.parse().ok()).filter(|t| *t > 0).unwrap_or(100),
        ncpu: kv.get("ncpu").and_then(|v| v.parse().ok()),
        pid: kv.get("pid").and_then(|v| v.parse().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real output of the script on this machine (Debian 12, dash), two blocks, with
    /// the multi-line files shortened.
    const CAPTURE: &str = "\
@@DBDYNO START v1 uptime0=1203.51 epoch=1764458093.519262634 uptime1=1203.51 clk_tck=100 ncpu=2 pid=9001 ppid=8990
@@DBDYNO BEGIN 0
==> /proc/uptime <==
1203.52
==> /proc/stat <==
cpu  20410 0 4171 230213 441 0 61 21 0 0
==> /proc/loadavg <==
0.31 0.40 0.30 1/130 9003
==> sampler <==
9001 (sh) S 8990 9001 9001 0 -1 4194304 170 346 0 0 0 0 0 0 20 0 1 0 120350 2600960 224 18446744073709551615 1 1 0 0 0 0 0 4 65538 0 0 0 17 0 0 0 0 0 0
==> transport <==
8990 (sshd) S 8985 8985 8985 0 -1 4194624 550 0 0 0 1 0 0 0 20 0 1 0 120320 17424384 1822 18446744073709551615 1 1 0 0 0 0 0 4096 81926 0 0 0 17 1 0 0 0 0 0
==> /proc/meminfo <==
MemTotal:       24683652 kB
MemFree:        22931000 kB
MemAvailable:   24021000 kB
Buffers:            9900 kB
Cached:          1183000 kB

==> /proc/vmstat <==
pswpin 0
pswpout 0

==> /proc/diskstats <==
 254       0 vda 61502 11253 3963394 28232 51981 28578 5441968 20303 0 13972 50762 9888 30 1076304 993 10744 1232

==> /proc/net/dev <==
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:    3193      29    0    0    0     0          0         0     3193      29    0    0    0     0       0          0
@@DBDYNO END 0
@@DBDYNO BEGIN 1
==> /proc/uptime <==
1204.52
==> /proc/stat <==
cpu  20420 0 4175 230400 441 0 61 21 0 0
==> /proc/loadavg <==
0.31 0.40 0.30 1/130 9005
==> sampler <==
9001 (sh) S 8990 9001 9001 0 -1 4194304 170 346 0 0 0 0 0 1 20 0 1 0 120350 2600960 224 18446744073709551615 1 1 0 0 0 0 0 4 65538 0 0 0 17 0 0 0 0 0 0
==> transport <==

==> /proc/meminfo <==
MemTotal:       24683652 kB
@@DBDYNO END 1
@@DBDYNO BEGIN 2
==> /proc/uptime <==
1205.52
";

    #[test]
    fn parses_header_and_whole_blocks_only() {
        let mut p = StreamParser::new();
        let items: Vec<StreamItem> = CAPTURE.lines().filter_map(|l| p.feed_line(l)).collect();
        assert_eq!(items.len(), 3, "header + 2 blocks; the cut third block is not emitted");
        let StreamItem::Header(h) = &items[0] else { panic!("header first") };
        assert_eq!((h.clk_tck, h.ncpu, h.pid), (100, Some(2), Some(9001)));
        assert_eq!(h.server_unix_ms(1204.51), Some(1764458094519));
        let StreamItem::Block(b0) = &items[1] else { panic!("block") };
        assert_eq!(b0.seq, 0);
        let s = &b0.snapshot;
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.uptime_s, Some(1203.52));
        assert_eq!(s.cpu.map(|c| c.idle), Some(230213));
        assert_eq!(s.disks.len(), 1);
        assert_eq!(s.net.len(), 1);
        assert_eq!(s.sampler_ticks, Some(0));
        assert_eq!(s.transport_ticks, Some(1));
        let StreamItem::Block(b1) = &items[2] else { panic!("block") };
        // Unreadable parent stat: no transport figure, and no warning spam either.
        assert_eq!(b1.snapshot.transport_ticks, None);
        assert_eq!(b1.snapshot.sampler_ticks, Some(1));
        assert!(b1.snapshot.warnings.is_empty());
    }

    #[test]
    fn busybox_date_without_nanoseconds_and_mismatched_end() {
        let mut p = StreamParser::new();
        let h = p.feed_line("@@DBDYNO START v1 uptime0=10.00 epoch=1700000000.N uptime1=10.00 clk_tck=0");
        let Some(StreamItem::Header(h)) = h else { panic!("header") };
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
