//! The run path: the engine on its own thread, its events folded into snapshots
//! ([`live`]) that a driver thread ([`driver`]) sends to the window at most four times
//! a second through a `tauri::ipc::Channel`.

pub mod driver;
pub mod live;
pub mod snapshot;
