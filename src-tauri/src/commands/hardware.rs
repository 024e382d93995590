//! Checks screen, "Measure the server": the database host's disk, CPU and memory
//! measured over SSH by the same library as `dbdyno hwtest` (crates/hwremote). The page
//! asks for a proposal, shows it for the user to confirm or change, starts the
//! measurement with a progress channel, and may cancel it; every line it shows is
//! worded here.

use std::sync::atomic::{AtomicBool, Ordering};

use dbdyno_history::hardware::{HardwareSource, Headline, NewHardwareRecord};
use dbdyno_history::host_lock::{lock_host, HostUse};
use dbdyno_hwremote::{HwRemoteError, Progress, Settings};
use dbdyno_remote::RemoteHost;
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{blocking, AppError, AppResult};
use crate::resolve;
use crate::state::AppState;

/// Set by `cancel_measurement`; a measurement checks it between the agent's lines.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// The sizes and times of a measurement, with the library's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct MeasureSettings {
    pub file_total_size: String,
    /// "direct", or "" for none (tmpfs).
    pub file_extra_flags: String,
    pub threads: u32,
    pub fileio_time_s: u32,
    pub cpu_time_s: u32,
    pub memory_time_s: u32,
}

impl From<Settings> for MeasureSettings {
    fn from(s: Settings) -> Self {
        MeasureSettings {
            file_total_size: s.file_total_size,
            file_extra_flags: s.file_extra_flags,
            threads: s.threads,
            fileio_time_s: s.fileio_time_s as u32,
            cpu_time_s: s.cpu_time_s as u32,
            memory_time_s: s.memory_time_s as u32,
        }
    }
}

impl From<MeasureSettings> for Settings {
    fn from(s: MeasureSettings) -> Self {
        Settings {
            file_total_size: s.file_total_size,
            file_extra_flags: s.file_extra_flags,
            threads: s.threads,
            fileio_time_s: s.fileio_time_s.into(),
            cpu_time_s: s.cpu_time_s.into(),
            memory_time_s: s.memory_time_s.into(),
        }
    }
}

/// Where the files would go, for the user to confirm before anything is written.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MeasureProposal {
    /// `user@host:port`.
    pub host: String,
    pub datadir: String,
    /// `None`: no directory on the data disk's filesystem outside the data directory;
    /// the user types one.
    pub dir: Option<String>,
    pub why: String,
    /// "MySQL is busy (…)": shown, not a refusal.
    pub busy_warning: Option<String>,
    pub settings: MeasureSettings,
}

/// One progress line.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MeasureProgress {
    pub text: String,
}

/// One test's headline, as the page lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MeasuredFigure {
    pub label: String,
    pub value: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct MeasureResult {
    pub host: String,
    pub dir: String,
    pub figures: Vec<MeasuredFigure>,
    /// The hardware record in the history.
    pub record_id: Option<u32>,
}

fn hw_error(e: HwRemoteError) -> AppError {
    match e {
        HwRemoteError::Ssh(e) => e.into(),
        other => AppError::invalid(other.to_string()),
    }
}

/// Reads the server's data directory and load, and proposes a directory on its disk.
#[tauri::command]
#[specta::specta]
pub async fn propose_measurement(
    state: State<'_, AppState>,
    env: String,
) -> AppResult<MeasureProposal> {
    let known_hosts = state.known_hosts_file();
    blocking(move || {
        let p = resolve::load_profile(&env)?;
        let target = resolve::ssh_target(&p, &known_hosts)?.ok_or_else(|| {
            AppError::invalid(
                "measuring the server needs its SSH login: fill in the environment's SSH section",
            )
        })?;
        let login = resolve::connect_options(&p)?;
        let mut conn = dbdyno_engine::driver::connect(&login)
            .map_err(|e| AppError::invalid(format!("MySQL: {e}")))?;
        let server = dbdyno_hwremote::server_state(&mut conn)
            .map_err(|e| AppError::invalid(format!("reading @@datadir: {e}")))?;
        let (_, proposal) =
            dbdyno_hwremote::propose_on_host(&target, &server.datadir).map_err(hw_error)?;
        Ok(MeasureProposal {
            host: format!("{}@{}", target.user, target.addr()),
            datadir: server.datadir,
            dir: proposal.dir,
            why: proposal.why,
            busy_warning: dbdyno_hwremote::busy_warning(server.threads_running),
            settings: Settings::default().into(),
        })
    })
    .await
}

/// Measures the server in `dir` (confirmed by the user), streaming progress lines;
/// files the result as the environment's hardware record.
#[tauri::command]
#[specta::specta]
pub async fn measure_server(
    state: State<'_, AppState>,
    env: String,
    dir: String,
    settings: MeasureSettings,
    on_progress: Channel<MeasureProgress>,
) -> AppResult<MeasureResult> {
    let known_hosts = state.known_hosts_file();
    let data_dir = state.data_dir.clone();
    CANCEL.store(false, Ordering::SeqCst);
    blocking(move || {
        let p = resolve::load_profile(&env)?;
        let target = resolve::ssh_target(&p, &known_hosts)?.ok_or_else(|| {
            AppError::invalid(
                "measuring the server needs its SSH login: fill in the environment's SSH section",
            )
        })?;
        let mysql_host = p.connect_options().host;
        let _lock = lock_host(
            &data_dir,
            &[target.host.as_str(), mysql_host.as_str()],
            HostUse::HardwareTest,
        )
        .map_err(|e| AppError::invalid(e.to_string()))?;
        // The data disk and CPU the record names (what cannot be read stays unnamed).
        let disk = resolve::connect_options(&p)
            .ok()
            .and_then(|login| dbdyno_engine::driver::connect(&login).ok())
            .and_then(|mut conn| dbdyno_hwremote::server_state(&mut conn).ok())
            .and_then(|server| dbdyno_hwremote::propose_on_host(&target, &server.datadir).ok())
            .map(|(disk, _)| disk);
        let host = RemoteHost::connect(&target).map_err(|e| AppError::invalid(e.to_string()))?;
        let devices = disk.as_ref().map(|d| d.devices.clone()).unwrap_or_default();
        let facts = dbdyno_hwremote::host_facts(&host, &devices);
        let settings: Settings = settings.into();
        let say = |text: String| {
            let _ = on_progress.send(MeasureProgress { text });
        };
        let m = dbdyno_hwremote::measure(&host, &dir, &settings, &CANCEL, &mut |p| {
            if let Some(text) = progress_line(&p) {
                say(text);
            }
        })
        .map_err(hw_error)?;
        let headline = Headline::of(&m.results);
        let record_id = dbdyno_history::BlockingHistory::open(&data_dir)
            .and_then(|h| {
                h.insert_hardware(&NewHardwareRecord {
                    env: p.name.clone(),
                    recorded_at_ms: dbdyno_history::time::now_ms(),
                    source: HardwareSource::Measured,
                    host: Some(target.host.clone()),
                    disk_device: Some(devices.join(",")).filter(|d| !d.is_empty()),
                    disk_model: facts.disk.map(|(_, model)| model),
                    cpu_model: facts.cpu_model,
                    results: m.results.clone(),
                })
            })
            .ok()
            .map(|id| id as u32);
        Ok(MeasureResult {
            host: m.host,
            dir: m.dir,
            figures: figures(&headline),
            record_id,
        })
    })
    .await
}

/// Stops a measurement in progress; its files are removed on the host.
#[tauri::command]
#[specta::specta]
pub fn cancel_measurement() -> bool {
    CANCEL.store(true, Ordering::SeqCst);
    true
}

fn progress_line(p: &Progress) -> Option<String> {
    Some(match p {
        Progress::Installed { path, copied } => {
            format!(
                "DB Dyno {} {path}",
                if *copied { "copied to" } else { "already at" }
            )
        }
        Progress::Started { work_dir } => format!("Working in {work_dir}"),
        Progress::Stage { test, stage } => format!("{test}: {}", stage.name()),
        Progress::Interval { test, figures: f } => match test.as_str() {
            "fileio" => format!(
                "[{}s] fileio: read {:.1} MiB/s, written {:.1} MiB/s",
                f.elapsed_s,
                f.read_mib_per_s.unwrap_or(0.0),
                f.written_mib_per_s.unwrap_or(0.0)
            ),
            "memory" => format!(
                "[{}s] memory: {:.1} MiB/s",
                f.elapsed_s,
                f.mib_per_s.unwrap_or(0.0)
            ),
            _ => format!(
                "[{}s] {test}: {:.1} events/s",
                f.elapsed_s,
                f.events_per_s.unwrap_or(0.0)
            ),
        },
        Progress::Result { .. } => return None,
    })
}

fn figures(h: &Headline) -> Vec<MeasuredFigure> {
    let rows = [
        ("Random read IOPS", h.rnd_read_iops),
        ("Random write IOPS", h.rnd_write_iops),
        ("fsyncs/s", h.fsyncs_per_s),
        ("Sequential read MiB/s", h.seq_mib_per_s),
        ("CPU events/s", h.cpu_events_per_s),
        ("Memory MiB/s", h.memory_mib_per_s),
    ];
    rows.iter()
        .filter_map(|(label, v)| {
            v.map(|v| MeasuredFigure {
                label: label.to_string(),
                value: format!("{v:.2}"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_go_both_ways_unchanged() {
        let s = Settings::default();
        let back: Settings = MeasureSettings::from(s.clone()).into();
        assert_eq!(back, s);
    }

    #[test]
    fn only_known_figures_are_listed() {
        let h = Headline {
            rnd_write_iops: Some(3331.66),
            ..Headline::default()
        };
        let f = figures(&h);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].label.as_str(), f[0].value.as_str()),
            ("Random write IOPS", "3331.66")
        );
    }
}
