//! `/proc/net/dev`: per-interface byte and packet counters.
//!
//! Two header lines, then `  name: rx_bytes rx_packets errs drop fifo frame compressed
//! multicast tx_bytes tx_packets ...`. Old kernels print no space after the colon when
//! the byte count is wide ("eth0:1234567"), so the name is split at the colon.

use super::numbers;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetCounters {
    pub iface: String,
    pub rx_bytes: u64,
    pub rx_packets: u64,
    pub tx_bytes: u64,
    pub tx_packets: u64,
}

pub fn parse_net_dev(text: &str) -> Vec<NetCounters> {
    text.lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(':')?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            if f.len() < 10 {
                return None;
            }
            let n = numbers(&f[..10])?;
            Some(NetCounters {
                iface: name.trim().to_string(),
                rx_bytes: n[0],
                rx_packets: n[1],
                tx_bytes: n[8],
                tx_packets: n[9],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_captured_net_dev() {
        let n = parse_net_dev(include_str!("../../testdata/proc/a/net_dev"));
        let names: Vec<&str> = n.iter().map(|c| c.iface.as_str()).collect();
        assert!(
            names.contains(&"lo") && names.contains(&"eth0"),
            "{names:?}"
        );
        let eth0 = n.iter().find(|c| c.iface == "eth0").expect("eth0");
        assert!(eth0.rx_bytes > 0 && eth0.tx_packets > 0);
    }

    #[test]
    fn old_format_without_space_after_colon() {
        let t = "Inter-|\n face |\n  eth0:123456789 10 0 0 0 0 0 0 987 5 0 0 0 0 0 0\n";
        let n = parse_net_dev(t);
        assert_eq!(n[0].rx_bytes, 123456789);
        assert_eq!(n[0].tx_bytes, 987);
    }
}
