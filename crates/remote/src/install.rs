//! Putting a binary into the host's per-user cache, checked by SHA-256, reused when
//! already there.
//!
//! The cache is `${XDG_CACHE_HOME:-$HOME/.cache}/dbdyno/bin/<sha256>/dbdyno`: a
//! directory per checksum, so different versions live side by side and a path names
//! its content. A copy is written to a temporary name of its own, checked, made
//! executable, tried once (`--version`), then renamed into place: rename is atomic, so
//! two installs at once into the same home each put a whole, identical file there, and a
//! process already running the old file keeps it.
//!
//! Every new build is a new checksum, so a client host would keep one copy per version
//! it ever ran (a debug build is over 200 MB): after a copy, only the [`KEEP_VERSIONS`]
//! most recently placed versions stay.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use ssh2::{OpenFlags, OpenType};

use crate::checksum::{parse_sum_line, sha256_file};
use crate::shell::{receive_header, RECEIVE};
use crate::{RemoteError, RemoteHost};
use dbdyno_ssh::sh_quote;

/// The binary's file name in its cache directory.
const FILE_NAME: &str = "dbdyno";
/// How many versions a host's cache keeps: the one just copied and the two before it,
/// so that a team moving between two versions does not copy back and forth.
pub const KEEP_VERSIONS: usize = 3;

/// A binary in place on a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// Absolute path on the host.
    pub path: String,
    /// Lowercase hex SHA-256 of its content.
    pub sha256: String,
    /// False when the file was already there with this checksum.
    pub copied: bool,
    /// How it was copied (`None` when it was not).
    pub via: Option<Transfer>,
}

/// How the bytes went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transfer {
    /// The server's SFTP subsystem.
    Sftp,
    /// `cat` into the file over an exec channel, for servers without SFTP.
    Exec,
}

/// What the cache looks like for one checksum.
#[derive(Debug, PartialEq, Eq)]
struct CacheSlot {
    dir: String,
    /// The checksum command that works there (`sha256sum`, `shasum -a 256`).
    sum: String,
    /// The checksum of the executable file already in place, if any.
    have: Option<String>,
}

/// The script lines that set `$base` to the cache directory.
fn base_dir_script(cache_dir: Option<&str>) -> String {
    match cache_dir {
        Some(dir) => format!("base={}\n", sh_quote(dir)),
        // XDG says a relative XDG_CACHE_HOME is to be ignored.
        None => "base=${XDG_CACHE_HOME:-}\n\
                 case $base in /*) ;; *) base=$HOME/.cache ;; esac\n\
                 base=$base/dbdyno/bin\n"
            .to_string(),
    }
}

fn slot_script(cache_dir: Option<&str>, sha256: &str) -> String {
    format!(
        "{base}dir=$base/{sha256}\n\
         if command -v sha256sum >/dev/null 2>&1; then sum=sha256sum\n\
         elif command -v shasum >/dev/null 2>&1; then sum='shasum -a 256'\n\
         else echo nosum; exit 0; fi\n\
         mkdir -p \"$dir\" && chmod 700 \"$dir\" || exit 1\n\
         echo \"dir $dir\"\n\
         echo \"sum $sum\"\n\
         f=$dir/{FILE_NAME}\n\
         if [ -f \"$f\" ] && [ -x \"$f\" ]; then echo \"have $($sum \"$f\")\"; fi\n",
        base = base_dir_script(cache_dir),
    )
}

/// `None` when the host has no checksum tool.
fn parse_slot(out: &str) -> Option<CacheSlot> {
    let mut dir = None;
    let mut sum = None;
    let mut have = None;
    for line in out.lines() {
        if line == "nosum" {
            return None;
        } else if let Some(d) = line.strip_prefix("dir ") {
            dir = Some(d.to_string());
        } else if let Some(s) = line.strip_prefix("sum ") {
            sum = Some(s.to_string());
        } else if let Some(h) = line.strip_prefix("have ") {
            have = parse_sum_line(h);
        }
    }
    Some(CacheSlot {
        dir: dir?,
        sum: sum?,
        have,
    })
}

/// Checks the copy at `tmp`, makes it executable, tries it, renames it to `dest`,
/// then removes the versions beyond the newest [`KEEP_VERSIONS`] (only directories named
/// like a checksum: nothing else in the cache is touched). Prints `ok`, or `mismatch <sum>`, or `wontrun <status>` and the output (the copy
/// is then removed).
fn finish_script(sum: &str, tmp: &str, dest: &str, sha256: &str) -> String {
    format!(
        "tmp={tmp}; dest={dest}\n\
         set -- $({sum} \"$tmp\")\n\
         if [ \"$1\" != {sha256} ]; then rm -f \"$tmp\"; echo \"mismatch $1\"; exit 0; fi\n\
         chmod 755 \"$tmp\" || exit 1\n\
         out=$(\"$tmp\" --version 2>&1 </dev/null); st=$?\n\
         if [ $st -ne 0 ]; then rm -f \"$tmp\"; echo \"wontrun $st\"; printf '%s\\n' \"$out\"; exit 0; fi\n\
         mv -f \"$tmp\" \"$dest\" || exit 1\n\
         base=${{dest%/*/*}}\n\
         ls -1t \"$base\" 2>/dev/null | grep -E '^[0-9a-f]{{64}}$' | tail -n +{first_pruned} |\n\
           while read -r d; do rm -rf \"$base/$d\"; done\n\
         echo ok\n",
        tmp = sh_quote(tmp),
        dest = sh_quote(dest),
        sum = sum,
        sha256 = sha256,
        first_pruned = KEEP_VERSIONS + 1,
    )
}

impl RemoteHost {
    /// Installs `local_binary` into the host's cache and returns where it is.
    ///
    /// Refuses a host of another OS or CPU first ([`RemoteError::Platform`], both named).
    /// Reuses the file already there when its checksum matches (`copied: false`);
    /// replaces one that does not. Copies by SFTP when the server offers it, else over
    /// an exec channel.
    pub fn install(&self, local_binary: &Path) -> Result<Installed, RemoteError> {
        let remote = self.platform()?;
        if remote != self.local_platform {
            return Err(RemoteError::Platform {
                host: self.name.clone(),
                local: self.local_platform.clone(),
                remote,
            });
        }
        let sha256 = sha256_file(local_binary)?;
        let out = self.run_script(
            &slot_script(self.cache_dir.as_deref(), &sha256),
            "preparing the binary cache",
        )?;
        let slot = parse_slot(&out).ok_or_else(|| RemoteError::NoChecksumTool {
            host: self.name.clone(),
        })?;
        let path = format!("{}/{FILE_NAME}", slot.dir);
        if slot.have.as_deref() == Some(sha256.as_str()) {
            return Ok(Installed {
                path,
                sha256,
                copied: false,
                via: None,
            });
        }

        let tmp = format!("{}/.{FILE_NAME}.{}.part", slot.dir, unique_suffix());
        let via = self.upload(local_binary, &tmp)?;
        let out = self.run_script(
            &finish_script(&slot.sum, &tmp, &path, &sha256),
            "checking and placing the copied binary",
        )?;
        let mut lines = out.lines();
        let first = lines.next().unwrap_or_default();
        if let Some(actual) = first.strip_prefix("mismatch") {
            return Err(RemoteError::ChecksumMismatch {
                host: self.name.clone(),
                path,
                expected: sha256,
                actual: actual.trim().to_string(),
            });
        }
        if let Some(status) = first.strip_prefix("wontrun ") {
            return Err(RemoteError::WontRun {
                host: self.name.clone(),
                path,
                status: status.trim().parse().unwrap_or(-1),
                stderr: lines.collect::<Vec<_>>().join("\n"),
            });
        }
        if first != "ok" {
            return Err(RemoteError::Command {
                host: self.name.clone(),
                doing: "placing the copied binary",
                status: 0,
                stderr: out,
            });
        }
        Ok(Installed {
            path,
            sha256,
            copied: true,
            via: Some(via),
        })
    }

    /// The directory the binaries go to on this host (`<it>/<sha256>/dbdyno`).
    pub fn cache_dir(&self) -> Result<String, RemoteError> {
        let script = format!(
            "{}echo \"$base\"\n",
            base_dir_script(self.cache_dir.as_deref())
        );
        let out = self.run_script(&script, "finding the binary cache")?;
        Ok(out.trim_end_matches('\n').to_string())
    }

    fn upload(&self, local: &Path, tmp: &str) -> Result<Transfer, RemoteError> {
        let mut file = std::fs::File::open(local).map_err(|source| RemoteError::ReadLocal {
            path: local.to_path_buf(),
            source,
        })?;
        // A server without an SFTP subsystem refuses it at once; anything that goes wrong
        // after SFTP opened is a real failure, not a reason to try the other way.
        match self.conn.sftp() {
            Ok(sftp) => {
                let mut remote = sftp
                    .open_mode(
                        Path::new(tmp),
                        OpenFlags::WRITE | OpenFlags::CREATE | OpenFlags::TRUNCATE,
                        0o600,
                        OpenType::File,
                    )
                    .map_err(|source| self.channel_err("creating the copy (SFTP)", source))?;
                self.copy_bytes(local, &mut file, &mut remote, "copying the binary (SFTP)")?;
                drop(remote);
                Ok(Transfer::Sftp)
            }
            Err(_) => {
                self.upload_exec(local, &mut file, tmp)?;
                Ok(Transfer::Exec)
            }
        }
    }

    fn upload_exec(
        &self,
        local: &Path,
        file: &mut std::fs::File,
        tmp: &str,
    ) -> Result<(), RemoteError> {
        let mut ch = self.conn.exec(RECEIVE)?;
        let doing = "copying the binary (cat over SSH)";
        let sent = ch
            .write_all(&receive_header(tmp))
            .map_err(|source| self.io_err(doing, source))
            .and_then(|()| self.copy_bytes(local, file, &mut ch, doing))
            .and_then(|()| ch.send_eof().map_err(|e| self.channel_err(doing, e)));
        // Whatever happened, the remote side's own words say most.
        let mut stderr = String::new();
        let _ = ch.stderr().read_to_string(&mut stderr);
        let _ = ch.wait_close();
        let status = ch.exit_status().unwrap_or(-1);
        match sent {
            Ok(()) if status == 0 => Ok(()),
            Ok(()) => Err(RemoteError::Command {
                host: self.name.clone(),
                doing,
                status,
                stderr,
            }),
            Err(e) if !stderr.trim().is_empty() => Err(RemoteError::Command {
                host: self.name.clone(),
                doing,
                status,
                stderr: format!("{stderr} ({e})"),
            }),
            Err(e) => Err(e),
        }
    }

    fn copy_bytes(
        &self,
        local: &Path,
        from: &mut std::fs::File,
        to: &mut impl Write,
        doing: &'static str,
    ) -> Result<(), RemoteError> {
        // Large writes let libssh2 keep several SFTP packets in flight.
        let mut buf = vec![0u8; 4 << 20];
        loop {
            let n = from
                .read(&mut buf)
                .map_err(|source| RemoteError::ReadLocal {
                    path: local.to_path_buf(),
                    source,
                })?;
            if n == 0 {
                return Ok(());
            }
            to.write_all(&buf[..n])
                .map_err(|source| self.io_err(doing, source))?;
        }
    }

    fn io_err(&self, doing: &'static str, source: std::io::Error) -> RemoteError {
        RemoteError::Io {
            host: self.name.clone(),
            doing,
            source,
        }
    }

    fn channel_err(&self, doing: &'static str, source: ssh2::Error) -> RemoteError {
        RemoteError::Channel {
            host: self.name.clone(),
            doing,
            source,
        }
    }
}

/// Distinct for every install from any process on any machine writing to one home.
fn unique_suffix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{nanos}-{n}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    const SHA: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn sh(script: &str) -> String {
        let out = Command::new("sh").arg("-c").arg(script).output().unwrap();
        assert!(out.status.success(), "{script}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    #[test]
    fn slot_output_is_read() {
        let out = format!("dir /h/.cache/dbdyno/bin/{SHA}\nsum sha256sum\nhave {SHA}  /h/x\n");
        assert_eq!(
            parse_slot(&out),
            Some(CacheSlot {
                dir: format!("/h/.cache/dbdyno/bin/{SHA}"),
                sum: "sha256sum".into(),
                have: Some(SHA.into()),
            })
        );
        let empty = parse_slot("dir /d\nsum shasum -a 256\n").unwrap();
        assert_eq!((empty.sum.as_str(), empty.have), ("shasum -a 256", None));
        assert_eq!(parse_slot("nosum\n"), None);
        assert_eq!(parse_slot(""), None);
    }

    #[test]
    fn the_slot_script_makes_the_directory_and_sums_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache dir");
        let script = slot_script(Some(cache.to_str().unwrap()), SHA);
        let slot = parse_slot(&sh(&script)).unwrap();
        assert_eq!(slot.dir, format!("{}/{SHA}", cache.display()));
        assert_eq!(slot.have, None);
        let bin = Path::new(&slot.dir).join(FILE_NAME);
        std::fs::write(&bin, b"").unwrap();
        // Not executable: not reusable.
        assert_eq!(parse_slot(&sh(&script)).unwrap().have, None);
        sh(&format!("chmod 755 {}", sh_quote(bin.to_str().unwrap())));
        assert_eq!(parse_slot(&sh(&script)).unwrap().have, Some(SHA.into()));
    }

    /// Runs the slot script with only `tools` (and the shell) on PATH.
    fn slot_with_tools(tools: &[&str], fake_shasum: bool) -> Option<CacheSlot> {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        for tool in tools {
            let real = sh(&format!("command -v {tool}"));
            std::os::unix::fs::symlink(real.trim(), bin.join(tool)).unwrap();
        }
        if fake_shasum {
            let f = bin.join("shasum");
            std::fs::write(&f, format!("#!/bin/sh\necho {SHA}  \"$3\"\n")).unwrap();
            sh(&format!("chmod 755 {}", sh_quote(f.to_str().unwrap())));
        }
        let script = slot_script(Some(dir.path().join("cache").to_str().unwrap()), SHA);
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(script)
            .env("PATH", &bin)
            .output()
            .unwrap();
        parse_slot(&String::from_utf8_lossy(&out.stdout))
    }

    #[test]
    fn a_host_without_sha256sum_uses_shasum_or_is_refused() {
        let with_shasum = slot_with_tools(&["mkdir", "chmod"], true).unwrap();
        assert_eq!(with_shasum.sum, "shasum -a 256");
        assert_eq!(slot_with_tools(&["mkdir", "chmod"], false), None);
        let with_both = slot_with_tools(&["mkdir", "chmod", "sha256sum"], true).unwrap();
        assert_eq!(with_both.sum, "sha256sum");
    }

    #[test]
    fn the_default_cache_is_under_xdg_cache_home_or_home() {
        let script = format!("{}echo \"$base\"", base_dir_script(None));
        let run = |xdg: &str| {
            let out = Command::new("sh")
                .arg("-c")
                .arg(&script)
                .env("HOME", "/home/u")
                .env("XDG_CACHE_HOME", xdg)
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        assert_eq!(run(""), "/home/u/.cache/dbdyno/bin");
        assert_eq!(run("/xdg"), "/xdg/dbdyno/bin");
        assert_eq!(run("relative"), "/home/u/.cache/dbdyno/bin");
    }

    #[test]
    fn the_finish_script_places_a_good_copy_and_removes_a_bad_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let (tmp, dest) = (format!("{d}/.part"), format!("{d}/dbdyno"));
        // An executable that answers --version.
        let script = "#!/bin/sh\necho v1\n";
        std::fs::write(&tmp, script).unwrap();
        let good = sha256_file(Path::new(&tmp)).unwrap();
        assert_eq!(sh(&finish_script("sha256sum", &tmp, &dest, &good)), "ok\n");
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), script);
        assert!(!Path::new(&tmp).exists());

        std::fs::write(&tmp, "#!/bin/sh\necho v2\n").unwrap();
        let out = sh(&finish_script("sha256sum", &tmp, &dest, &good));
        assert!(out.starts_with("mismatch "), "{out}");
        assert!(!Path::new(&tmp).exists());
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), script);

        std::fs::write(&tmp, "#!/bin/sh\necho cannot >&2; exit 3\n").unwrap();
        let broken = sha256_file(Path::new(&tmp)).unwrap();
        let out = sh(&finish_script("sha256sum", &tmp, &dest, &broken));
        assert_eq!(out, "wontrun 3\ncannot\n");
        assert!(!Path::new(&tmp).exists());
    }

    #[test]
    fn suffixes_differ() {
        assert_ne!(unique_suffix(), unique_suffix());
    }
}
