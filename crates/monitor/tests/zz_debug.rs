mod common;
use dbdyno_monitor::{Monitor, MonitorConfig, SamplerEvent, Target};
use std::time::{Duration, Instant};
#[test]
fn debug_stream() {
    let Some(sb) = common::sandbox("dbg") else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    for round in 0..6 {
        let monitor = Monitor::start(MonitorConfig::new(Target::Ssh(sb.key_target(dir.path())))).expect("start");
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(4) {
            match monitor.events().recv_timeout(Duration::from_millis(4500)) {
                Ok(SamplerEvent::Sample(s)) => eprintln!("{round} {:?} sample {}", t0.elapsed(), s.server_unix_ms),
                Ok(e) => eprintln!("{round} {:?} EVENT {e:?}", t0.elapsed()),
                Err(_) => break,
            }
        }
        monitor.stop();
    }
}
