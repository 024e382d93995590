//! Writes the results document's JSON Schema to docs/results.schema.json (run from the
//! workspace's root after an intended change to the document's types).

fn main() -> std::io::Result<()> {
    let path = dbdyno_results::schema::COMMITTED_PATH;
    std::fs::write(path, dbdyno_results::schema::schema_text())?;
    eprintln!("wrote {path}");
    Ok(())
}
