//! Tauri's build step: embeds the config and turns the app's commands into permissions
//! (`allow-<command>`), so `capabilities/main.json` grants each command by name.

fn main() {
    let commands: &[&str] = &include!("src/commands/names.in");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(commands)),
    )
    .expect("tauri-build failed");
}
