//! Writes the TypeScript contract (`ui/src/bindings.ts`) from the app's commands.
//! A unit test in `src/lib.rs` fails when the committed file differs from its output.

fn main() {
    let out = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts")
        });
    if let Err(e) = dbdyno_app::export_bindings(&out) {
        eprintln!("export-bindings: {e}");
        std::process::exit(1);
    }
    println!("wrote {}", out.display());
}
