//! A client's clock against this machine's, NTP-style: this machine notes when it
//! asked and when the answer came; the client's reading is taken to be from halfway.

/// One exchange: this machine's send and receive times and the client's reading,
/// all µs since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockSample {
    pub sent_us: i64,
    pub client_us: i64,
    pub received_us: i64,
}

/// The client's clock minus this machine's, and the round trip it was measured over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockOffset {
    pub offset_us: i64,
    pub rtt_us: i64,
}

impl ClockSample {
    pub fn offset(&self) -> ClockOffset {
        let rtt_us = (self.received_us - self.sent_us).max(0);
        ClockOffset {
            offset_us: self.client_us - (self.sent_us + rtt_us / 2),
            rtt_us,
        }
    }
}

/// The sample with the shortest round trip: its halfway guess is the tightest.
pub fn best_offset(samples: &[ClockSample]) -> Option<ClockOffset> {
    samples
        .iter()
        .map(ClockSample::offset)
        .min_by_key(|o| o.rtt_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_is_taken_halfway_through_the_fastest_exchange() {
        // The client is 5 ms ahead; the first exchange was slow one way.
        let samples = [
            ClockSample {
                sent_us: 1_000,
                client_us: 1_000 + 5_000 + 9_000,
                received_us: 1_000 + 10_000,
            },
            ClockSample {
                sent_us: 50_000,
                client_us: 50_000 + 5_000 + 500,
                received_us: 51_000,
            },
        ];
        let best = best_offset(&samples).unwrap();
        assert_eq!(
            best,
            ClockOffset {
                offset_us: 5_000,
                rtt_us: 1_000
            }
        );
        assert_eq!(best_offset(&[]), None);
    }
}
