//! The app's commands, one file per screen. Each is thin: parse the page's input, call
//! the library, map its error to a message ([`crate::error::AppError`]). The names are
//! listed once more in `names.in`, which `build.rs` turns into permissions.

pub mod checks;
pub mod compare;
mod compare_view;
pub mod environments;
pub mod export;
pub mod hardware;
pub mod history;
pub mod import;
pub mod load_form;
pub mod plan;
pub mod plan_clients;
pub mod run;
pub mod trends;
pub mod workload_form;

use serde::Serialize;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AppInfo {
    pub version: String,
    /// Where the history and the accepted host keys are kept.
    pub data_dir: String,
    /// Where the user's environment profiles are kept.
    pub profiles_dir: Option<String>,
}

#[tauri::command]
#[specta::specta]
pub fn app_info(state: tauri::State<'_, crate::state::AppState>) -> AppInfo {
    AppInfo {
        version: env!("CARGO_PKG_VERSION").to_string(),
        data_dir: state.data_dir.display().to_string(),
        profiles_dir: dbdyno_profile::catalog::user_profiles_dir()
            .ok()
            .map(|p| p.display().to_string()),
    }
}
