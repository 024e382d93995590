//! The CPU and disk models a hardware record names, read over SSH: the figures mean
//! little without the hardware they came from.

use dbdyno_remote::RemoteHost;
use dbdyno_ssh::sh_quote;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFacts {
    /// `model name` of /proc/cpuinfo.
    pub cpu_model: Option<String>,
    /// The first of `devices` whose /sys/block/<dev>/device/model is set (a physical
    /// disk under a device-mapper or md stack), with that model.
    pub disk: Option<(String, String)>,
}

/// Reads the facts; what cannot be read stays `None` (a container has no disk model).
pub fn host_facts(host: &RemoteHost, devices: &[String]) -> HostFacts {
    let mut script = String::from("sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -n 1\n");
    for d in devices {
        let q = sh_quote(d);
        script.push_str(&format!(
            "m=$(cat /sys/block/{q}/device/model 2>/dev/null) && [ -n \"$m\" ] && echo \"disk {q} $m\" && exit 0\n"
        ));
    }
    let Ok(out) = host.run(&format!("sh -c {}", sh_quote(&script))) else {
        return HostFacts::default();
    };
    parse(&out.stdout)
}

fn parse(out: &str) -> HostFacts {
    let mut facts = HostFacts::default();
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("disk ") {
            if let Some((dev, model)) = rest.split_once(' ') {
                facts.disk = Some((dev.to_string(), model.trim().to_string()));
            }
        } else if facts.cpu_model.is_none() && !line.trim().is_empty() {
            facts.cpu_model = Some(line.trim().to_string());
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_then_disk() {
        let f = parse("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\ndisk sdb INTEL SSDSC2KB96  \n");
        assert_eq!(
            f.cpu_model.as_deref(),
            Some("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz")
        );
        assert_eq!(f.disk, Some(("sdb".into(), "INTEL SSDSC2KB96".into())));
        assert_eq!(parse(""), HostFacts::default());
    }
}
