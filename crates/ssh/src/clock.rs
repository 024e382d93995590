//! Clock offset between the server and this machine, measured at connect.
//!
//! Method: one channel running a tiny `while read; do date; done` loop; we send a line
//! and time the reply. The server read its clock somewhere inside that round trip;
//! assuming the middle gives an error of at most half the round trip, so the round
//! with the smallest round trip of a few is kept (NTP's classic filter).
//!
//! Non-goals: no continuous tracking (samples carry the server's own timestamps), no
//! attempt to set either clock.

use super::{SshConnection, SshError};
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Result of [`SshConnection::clock_sync`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClockSync {
    /// server clock − local clock, in ms (positive: the server is ahead).
    pub offset_ms: f64,
    /// Round trip of the best exchange, in ms: the offset's uncertainty is half of it.
    pub rtt_ms: f64,
    /// Resolution of the server's clock reading: 1e-6 with GNU date, 1000 without %N.
    pub server_resolution_ms: f64,
    pub rounds: u32,
}

const SCRIPT: &str = "sh -c 'while read -r _; do date +%s.%N; done'";

impl SshConnection {
    /// Measures the clock offset with `rounds` exchanges (at least 1).
    pub fn clock_sync(&self, rounds: u32) -> Result<ClockSync, SshError> {
        let mut ch = self.exec(SCRIPT)?;
        let mut best: Option<ClockSync> = None;
        for _ in 0..rounds.max(1) {
            let sent_wall = unix_ms_now();
            let sent = Instant::now();
            ch.write_all(b"t\n")
                .map_err(|source| self.io_err("timing the server clock", source))?;
            ch.flush()
                .map_err(|source| self.io_err("timing the server clock", source))?;
            let line = read_line(&mut ch)
                .map_err(|source| self.io_err("timing the server clock", source))?;
            let rtt_ms = sent.elapsed().as_secs_f64() * 1000.0;
            let (server_s, resolution_ms) =
                parse_date(&line).ok_or_else(|| SshError::BadOutput {
                    addr: self.addr.clone(),
                    doing: "reading the server clock (date +%s.%N)",
                    output: line.clone(),
                })?;
            let offset_ms = server_s * 1000.0 - (sent_wall + rtt_ms / 2.0);
            let round = ClockSync {
                offset_ms,
                rtt_ms,
                server_resolution_ms: resolution_ms,
                rounds: 0,
            };
            match best {
                Some(b) if b.rtt_ms <= rtt_ms => {}
                _ => best = Some(round),
            }
        }
        let _ = ch.send_eof();
        let _ = ch.close();
        // `best` is Some: the loop runs at least once and every path either sets it or returns.
        let mut best = best.ok_or_else(|| SshError::BadOutput {
            addr: self.addr.clone(),
            doing: "timing the server clock",
            output: String::new(),
        })?;
        best.rounds = rounds.max(1);
        Ok(best)
    }
}

fn unix_ms_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

fn read_line(r: &mut impl Read) -> std::io::Result<String> {
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match r.read(&mut byte)? {
            0 => break,
            _ if byte[0] == b'\n' => break,
            _ => out.push(byte[0]),
        }
        if out.len() > 256 {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// "1700000000.123456789" → (seconds, 1e-6 ms); busybox's "1700000000.N" → whole seconds.
fn parse_date(line: &str) -> Option<(f64, f64)> {
    if let Ok(v) = line.parse::<f64>() {
        return Some((v, if line.contains('.') { 1e-6 } else { 1000.0 }));
    }
    let whole = line.split('.').next()?.parse::<f64>().ok()?;
    Some((whole + 0.5, 1000.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_formats() {
        assert_eq!(
            parse_date("1700000000.250000000"),
            Some((1_700_000_000.25, 1e-6))
        );
        assert_eq!(parse_date("1700000000.N"), Some((1_700_000_000.5, 1000.0)));
        assert_eq!(parse_date("garbage"), None);
    }
}
