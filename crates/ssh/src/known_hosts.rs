//! OpenSSH `known_hosts` files: look up a server's host key, and append accepted keys.
//!
//! Purpose: decide Trusted / Unknown / Changed / Revoked with the file and line that
//! decided it, so a changed key can be refused with a message naming both. libssh2's
//! own known-hosts API answers only "mismatch", without a line, hence this module.
//!
//! Supported: plain and hashed (`|1|salt|hmac`) host fields, comma lists, `*`/`?`
//! wildcards, `!` negation, `[host]:port` for non-22 ports, `@revoked` markers.
//! Non-goals: `@cert-authority` lines (host certificates) are ignored, and we never
//! rewrite or reorder a file: accepting a key only appends one plain line.

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A server's public host key as sent in the SSH handshake.
#[derive(Clone, PartialEq, Eq)]
pub struct HostKey {
    /// OpenSSH type name, e.g. "ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa".
    pub key_type: String,
    /// The key blob (what known_hosts stores base64-encoded).
    pub blob: Vec<u8>,
}

impl std::fmt::Debug for HostKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HostKey({} {})",
            self.key_type,
            self.fingerprint_sha256()
        )
    }
}

impl HostKey {
    /// Reads the type name from the blob itself (its first SSH string), so no
    /// mapping from libssh2's enum is needed.
    pub fn from_blob(blob: &[u8]) -> Option<HostKey> {
        let len = u32::from_be_bytes(blob.get(..4)?.try_into().ok()?) as usize;
        let name = std::str::from_utf8(blob.get(4..4usize.checked_add(len)?)?).ok()?;
        if name.is_empty() || !name.is_ascii() {
            return None;
        }
        Some(HostKey {
            key_type: name.to_string(),
            blob: blob.to_vec(),
        })
    }

    /// From the `type base64` pair of a known_hosts or .pub line.
    pub fn from_openssh(key_type: &str, base64_blob: &str) -> Option<HostKey> {
        let blob = STANDARD.decode(base64_blob.trim()).ok()?;
        let key = HostKey::from_blob(&blob)?;
        (key.key_type == key_type).then_some(key)
    }

    /// `SHA256:<base64 without padding>`, exactly as `ssh-keygen -lf` prints it.
    pub fn fingerprint_sha256(&self) -> String {
        format!(
            "SHA256:{}",
            STANDARD_NO_PAD.encode(Sha256::digest(&self.blob))
        )
    }

    pub fn base64(&self) -> String {
        STANDARD.encode(&self.blob)
    }

    /// The line [`append`] writes: `host type base64`.
    pub fn known_hosts_line(&self, host: &str, port: u16) -> String {
        format!(
            "{} {} {}",
            host_pattern(host, port),
            self.key_type,
            self.base64()
        )
    }
}

/// The host field OpenSSH uses: `host` on port 22, `[host]:port` otherwise.
pub fn host_pattern(host: &str, port: u16) -> String {
    if port == 22 {
        host.to_string()
    } else {
        format!("[{host}]:{port}")
    }
}

/// What the known_hosts files say about a server's key (not a benchmark verdict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostKeyStatus {
    /// This exact key is listed for the host.
    Trusted { file: PathBuf, line: usize },
    /// No entry with this key type for the host. `other_types` lists the key types that
    /// are known for it (the server offered a different type).
    Unknown { other_types: Vec<String> },
    /// The host is listed with a different key of the same type.
    Changed { file: PathBuf, line: usize },
    /// The key is marked `@revoked`.
    Revoked { file: PathBuf, line: usize },
}

/// A known_hosts file that could not be read (a missing file is not an error: it just
/// knows no hosts yet).
#[derive(Debug, thiserror::Error)]
#[error("cannot read known_hosts file {}: {source}", path.display())]
pub struct KnownHostsReadError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// Checks `key` for `host:port` against `files` in order.
pub fn check(
    files: &[PathBuf],
    host: &str,
    port: u16,
    key: &HostKey,
) -> Result<HostKeyStatus, KnownHostsReadError> {
    let name = host_pattern(host, port);
    let mut trusted = None;
    let mut changed = None;
    let mut other_types = Vec::new();
    for path in files {
        for entry in read_entries(path)? {
            if entry.marker == Marker::Revoked {
                if entry.key_type == key.key_type && entry.key_b64 == key.base64() {
                    return Ok(HostKeyStatus::Revoked {
                        file: path.clone(),
                        line: entry.line,
                    });
                }
                continue;
            }
            if entry.marker != Marker::None || !hosts_match(&entry.hosts, &name) {
                continue;
            }
            if entry.key_type != key.key_type {
                if !other_types.contains(&entry.key_type) {
                    other_types.push(entry.key_type.clone());
                }
            } else if entry.key_b64 == key.base64() {
                trusted.get_or_insert((path.clone(), entry.line));
            } else {
                changed.get_or_insert((path.clone(), entry.line));
            }
        }
    }
    // A match anywhere wins over a stale line elsewhere, as in OpenSSH.
    Ok(match (trusted, changed) {
        (Some((file, line)), _) => HostKeyStatus::Trusted { file, line },
        (None, Some((file, line))) => HostKeyStatus::Changed { file, line },
        (None, None) => HostKeyStatus::Unknown { other_types },
    })
}

/// Key types listed for `host:port`, so the handshake can ask the server for a type we
/// can verify (a server with ed25519 and ecdsa keys would otherwise pick by its order).
pub fn known_key_types(files: &[PathBuf], host: &str, port: u16) -> Vec<String> {
    let name = host_pattern(host, port);
    let mut types = Vec::new();
    for path in files {
        // Unreadable files are reported by `check`; here they just contribute nothing.
        for entry in read_entries(path).unwrap_or_default() {
            if entry.marker == Marker::None
                && hosts_match(&entry.hosts, &name)
                && !types.contains(&entry.key_type)
            {
                types.push(entry.key_type);
            }
        }
    }
    types
}

/// Appends `host type key` to `file` (created with mode 0600, parents too).
pub fn append(file: &Path, host: &str, port: u16, key: &HostKey) -> io::Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    let needs_newline = match fs::read(file) {
        Ok(bytes) => bytes.last().is_some_and(|b| *b != b'\n'),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    let mut opts = fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(file)?;
    let mut line = String::new();
    if needs_newline {
        line.push('\n');
    }
    line.push_str(&key.known_hosts_line(host, port));
    line.push('\n');
    f.write_all(line.as_bytes())?;
    f.sync_all()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    None,
    Revoked,
    CertAuthority,
}

#[derive(Debug, Clone)]
struct Entry {
    line: usize,
    marker: Marker,
    hosts: String,
    key_type: String,
    key_b64: String,
}

fn read_entries(path: &Path) -> Result<Vec<Entry>, KnownHostsReadError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(parse_entries(&text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(KnownHostsReadError {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn parse_entries(text: &str) -> Vec<Entry> {
    text.lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                return None;
            }
            let mut f = l.split_whitespace();
            let mut first = f.next()?;
            let marker = match first {
                "@revoked" => Marker::Revoked,
                "@cert-authority" => Marker::CertAuthority,
                _ => Marker::None,
            };
            if marker != Marker::None {
                first = f.next()?;
            }
            Some(Entry {
                line: i + 1,
                marker,
                hosts: first.to_string(),
                key_type: f.next()?.to_string(),
                key_b64: f.next()?.to_string(),
            })
        })
        .collect()
}

/// OpenSSH semantics: a hashed field matches by HMAC-SHA1; otherwise a comma list
/// where any `!pattern` match excludes and any plain pattern match includes.
fn hosts_match(field: &str, name: &str) -> bool {
    if let Some(rest) = field.strip_prefix("|1|") {
        return hashed_match(rest, name);
    }
    let name = name.to_ascii_lowercase();
    let mut hit = false;
    for pat in field.split(',') {
        let (negated, pat) = match pat.strip_prefix('!') {
            Some(p) => (true, p),
            None => (false, pat),
        };
        if wildcard_match(&pat.to_ascii_lowercase(), &name) {
            if negated {
                return false;
            }
            hit = true;
        }
    }
    hit
}

fn hashed_match(salt_and_hash: &str, name: &str) -> bool {
    let Some((salt_b64, hash_b64)) = salt_and_hash.split_once('|') else {
        return false;
    };
    let (Ok(salt), Ok(hash)) = (STANDARD.decode(salt_b64), STANDARD.decode(hash_b64)) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<sha1::Sha1>::new_from_slice(&salt) else {
        return false;
    };
    mac.update(name.as_bytes());
    mac.verify_slice(&hash).is_ok()
}

/// `*` matches any run, `?` one character; iterative with backtracking to the last star.
fn wildcard_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two real keys from `ssh-keygen -t ed25519`.
    const ED: &str = "AAAAC3NzaC1lZDI1NTE5AAAAINWPzwP3x+59HD0QEB10qEjH9ypkIIV/7Pr3PNUOWfrR";
    const ED_OTHER: &str = "AAAAC3NzaC1lZDI1NTE5AAAAIAtZyDCJ4XmHP+iFRtqY0vJspqRdIxCqYhTxc64mCvyS";

    fn key(b64: &str) -> HostKey {
        HostKey::from_openssh("ssh-ed25519", b64).expect("valid test key")
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        fs::write(&p, text).expect("write test file");
        p
    }

    #[test]
    fn fingerprint_matches_ssh_keygen_format() {
        // `ssh-keygen -lf` on the .pub of ED printed this fingerprint.
        assert_eq!(
            key(ED).fingerprint_sha256(),
            "SHA256:vtDjD/3BS5K6sm5DUcPRcRifyLKa6WjRuGvx8v/WIY0"
        );
    }

    #[test]
    fn trusted_unknown_changed_revoked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = write(
            dir.path(),
            "kh",
            &format!(
                "# comment\n\nother.example ssh-ed25519 {ED}\n[db1]:2222 ssh-ed25519 {ED_OTHER}\ndb2,10.0.0.2 ssh-ed25519 {ED}\n*.lab,!bad.lab ssh-ed25519 {ED}\n@revoked * ssh-ed25519 {ED_OTHER}\n"
            ),
        );
        let files = [f.clone()];
        assert_eq!(
            check(&files, "db2", 22, &key(ED)).ok(),
            Some(HostKeyStatus::Trusted {
                file: f.clone(),
                line: 5
            })
        );
        assert_eq!(
            check(&files, "x.lab", 22, &key(ED)).ok(),
            Some(HostKeyStatus::Trusted {
                file: f.clone(),
                line: 6
            })
        );
        assert!(matches!(
            check(&files, "bad.lab", 22, &key(ED)),
            Ok(HostKeyStatus::Unknown { .. })
        ));
        // Port matters: db1 on 22 is unknown, on 2222 it is listed with another key.
        assert!(matches!(
            check(&files, "db1", 22, &key(ED)),
            Ok(HostKeyStatus::Unknown { .. })
        ));
        let ed_new = HostKey::from_blob(&{
            let mut b = key(ED).blob;
            let n = b.len();
            b[n - 1] ^= 1;
            b
        })
        .expect("blob");
        assert_eq!(
            check(&files, "db1", 2222, &ed_new).ok(),
            Some(HostKeyStatus::Changed {
                file: f.clone(),
                line: 4
            })
        );
        assert_eq!(
            check(&files, "db1", 2222, &key(ED_OTHER)).ok(),
            Some(HostKeyStatus::Revoked {
                file: f.clone(),
                line: 7
            })
        );
        assert!(matches!(
            check(&[dir.path().join("missing")], "db2", 22, &key(ED)),
            Ok(HostKeyStatus::Unknown { .. })
        ));
    }

    #[test]
    fn hashed_entries_match() {
        // Built the way `ssh-keygen -H` hashes "[127.0.0.1]:22222" (HMAC-SHA1 keyed by the salt);
        // the sandbox test checks a real `ssh-keygen -H` output end to end.
        let salt = [7u8; 20];
        let mut mac = Hmac::<sha1::Sha1>::new_from_slice(&salt).expect("hmac");
        mac.update(b"[127.0.0.1]:22222");
        let hash = mac.finalize().into_bytes();
        let line = format!(
            "|1|{}|{} ssh-ed25519 {ED}\n",
            STANDARD.encode(salt),
            STANDARD.encode(hash)
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let f = write(dir.path(), "kh", &line);
        assert!(matches!(
            check(std::slice::from_ref(&f), "127.0.0.1", 22222, &key(ED)),
            Ok(HostKeyStatus::Trusted { line: 1, .. })
        ));
        assert!(matches!(
            check(&[f], "127.0.0.1", 22, &key(ED)),
            Ok(HostKeyStatus::Unknown { .. })
        ));
    }

    #[test]
    fn append_then_trusted_and_other_types_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = write(dir.path(), "kh", "h1 ecdsa-sha2-nistp256 AAAA"); // no trailing newline
        append(&f, "h1", 22, &key(ED)).expect("append");
        append(&dir.path().join("sub/new_kh"), "h2", 2200, &key(ED)).expect("append creates");
        let text = fs::read_to_string(&f).expect("read");
        assert_eq!(text.lines().count(), 2);
        assert!(matches!(
            check(std::slice::from_ref(&f), "h1", 22, &key(ED)),
            Ok(HostKeyStatus::Trusted { line: 2, .. })
        ));
        assert_eq!(
            known_key_types(std::slice::from_ref(&f), "h1", 22),
            vec!["ecdsa-sha2-nistp256", "ssh-ed25519"]
        );
        let new = fs::read_to_string(dir.path().join("sub/new_kh")).expect("read");
        assert!(new.starts_with("[h2]:2200 ssh-ed25519 "));
    }

    #[test]
    fn wildcards() {
        assert!(wildcard_match("*", "anything"));
        assert!(wildcard_match("db?.lab", "db1.lab"));
        assert!(!wildcard_match("db?.lab", "db12.lab"));
        assert!(wildcard_match("*.l*b", "x.lab"));
        assert!(!wildcard_match("", "x"));
    }

    #[test]
    fn blob_parsing_is_defensive() {
        assert!(HostKey::from_blob(&[]).is_none());
        assert!(HostKey::from_blob(&[0, 0, 0, 200, b's']).is_none());
        assert!(HostKey::from_openssh("ssh-rsa", ED).is_none());
    }
}
