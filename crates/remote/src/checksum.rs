//! SHA-256 here (the `sha2` crate) and there (`sha256sum` or `shasum -a 256`).

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::RemoteError;

/// The lowercase hex SHA-256 of a local file.
pub fn sha256_file(path: &Path) -> Result<String, RemoteError> {
    let read_err = |source| RemoteError::ReadLocal {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(read_err)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(read_err)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// The digest in one line of `sha256sum` / `shasum -a 256` output (`<hex>  <name>`, or
/// `<hex> *<name>` in binary mode, or `\<hex>  <name>` when the name was escaped).
pub fn parse_sum_line(line: &str) -> Option<String> {
    let first = line.split_whitespace().next()?;
    let hex = first.strip_prefix('\\').unwrap_or(first);
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| hex.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    #[test]
    fn sums_a_file_as_sha256sum_does() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"").unwrap();
        assert_eq!(sha256_file(&f).unwrap(), EMPTY);
        std::fs::write(&f, vec![7u8; 3 << 20]).unwrap();
        let out = std::process::Command::new("sha256sum")
            .arg(&f)
            .output()
            .expect("sha256sum");
        let theirs = parse_sum_line(&String::from_utf8_lossy(&out.stdout)).unwrap();
        assert_eq!(sha256_file(&f).unwrap(), theirs);
    }

    #[test]
    fn a_missing_file_names_its_path() {
        let err = sha256_file(Path::new("no/such/binary")).unwrap_err();
        assert!(err.to_string().contains("no/such/binary"), "{err}");
    }

    #[test]
    fn reads_every_sum_format() {
        assert_eq!(
            parse_sum_line(&format!("{EMPTY}  /home/u/.cache/dbdyno/bin/x/dbdyno\n")),
            Some(EMPTY.into())
        );
        assert_eq!(
            parse_sum_line(&format!("{EMPTY} *file")),
            Some(EMPTY.into())
        );
        assert_eq!(
            parse_sum_line(&format!("\\{EMPTY}  odd\\nname")),
            Some(EMPTY.into())
        );
        assert_eq!(
            parse_sum_line(&EMPTY.to_ascii_uppercase()),
            Some(EMPTY.into())
        );
    }

    #[test]
    fn refuses_what_is_not_a_digest() {
        assert_eq!(parse_sum_line(""), None);
        assert_eq!(
            parse_sum_line("sha256sum: f: No such file or directory"),
            None
        );
        assert_eq!(parse_sum_line(&EMPTY[..63]), None);
        assert_eq!(parse_sum_line(&format!("{}g", &EMPTY[..63])), None);
    }
}
