//! Import of the seed toolkit's `benchmark_config.conf` as a new user profile.

use dbdyno_profile::store::PasswordOutcome;
use tauri::AppHandle;
use tauri_plugin_dialog::DialogExt;

use super::{free_name, store, written, EnvironmentEntry, HEADER};
use crate::error::{blocking, AppError, AppResult, ErrorCode};

/// Imports a seed toolkit `benchmark_config.conf` chosen in a file dialog (opened by
/// the app, so the page never names a file): a new user profile, and the password, if
/// the file had one, into the keyring. The name is checked before the dialog opens, so
/// a taken or invalid name never costs the user a trip through it.
#[tauri::command]
#[specta::specta]
pub async fn import_seed_config(app: AppHandle, name: String) -> AppResult<EnvironmentEntry> {
    let name = free_name(&name)?;
    let picked = app
        .dialog()
        .file()
        .set_title("Import benchmark_config.conf")
        .add_filter("Seed config", &["conf", "sh", "txt"])
        .blocking_pick_file()
        .ok_or_else(|| AppError::new(ErrorCode::Dismissed, "no file chosen"))?;
    let path = picked
        .into_path()
        .map_err(|e| AppError::new(ErrorCode::Io, format!("not a local file: {e}")))?;
    blocking(move || {
        let text = std::fs::read_to_string(&path)?;
        let file = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("config");
        // The store checks the name again: it may have been taken while the dialog was open.
        let imp = store()?.import_seed_config(&text, file, &name, HEADER)?;
        if let PasswordOutcome::KeyringRefused(e) = imp.password {
            return Err(e.into());
        }
        Ok(written(imp.loaded))
    })
    .await
}
