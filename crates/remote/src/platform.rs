//! The OS and CPU a binary is built for, and those a host runs, in one vocabulary
//! (Rust's `std::env::consts` names), so the two can be compared before a copy.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    /// `linux`, `macos`, `freebsd`, … (`std::env::consts::OS`).
    pub os: String,
    /// `x86_64`, `aarch64`, `arm`, `x86`, … (`std::env::consts::ARCH`).
    pub arch: String,
}

impl Platform {
    pub fn new(os: impl Into<String>, arch: impl Into<String>) -> Platform {
        Platform {
            os: os.into(),
            arch: arch.into(),
        }
    }

    /// The platform this program was built for.
    pub fn local() -> Platform {
        Platform::new(std::env::consts::OS, std::env::consts::ARCH)
    }

    /// Reads `uname -sm` output ("Linux x86_64", "Darwin arm64"); `None` when it is not
    /// two words.
    pub fn from_uname(output: &str) -> Option<Platform> {
        let mut words = output.split_whitespace();
        let (os, machine) = (words.next()?, words.next()?);
        if words.next().is_some() {
            return None;
        }
        Some(Platform::new(os_name(os), arch_name(machine)))
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.os, self.arch)
    }
}

fn os_name(uname_s: &str) -> String {
    match uname_s {
        "Darwin" => "macos".into(),
        other => other.to_ascii_lowercase(),
    }
}

fn arch_name(uname_m: &str) -> String {
    match uname_m {
        "amd64" | "x86_64" => "x86_64".into(),
        "arm64" | "aarch64" => "aarch64".into(),
        "i386" | "i486" | "i586" | "i686" => "x86".into(),
        "ppc64le" => "powerpc64".into(),
        m if m.starts_with("armv") => "arm".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uname_names_become_rusts() {
        assert_eq!(
            Platform::from_uname("Linux x86_64\n"),
            Some(Platform::new("linux", "x86_64"))
        );
        assert_eq!(
            Platform::from_uname("Darwin arm64"),
            Some(Platform::new("macos", "aarch64"))
        );
        assert_eq!(
            Platform::from_uname("FreeBSD amd64"),
            Some(Platform::new("freebsd", "x86_64"))
        );
        assert_eq!(
            Platform::from_uname("Linux armv7l"),
            Some(Platform::new("linux", "arm"))
        );
        assert_eq!(
            Platform::from_uname("Linux i686"),
            Some(Platform::new("linux", "x86"))
        );
    }

    #[test]
    fn anything_but_two_words_is_not_a_platform() {
        assert_eq!(Platform::from_uname(""), None);
        assert_eq!(Platform::from_uname("Linux"), None);
        assert_eq!(Platform::from_uname("Linux host 6.1 x86_64"), None);
    }

    #[test]
    fn this_machine_matches_its_own_uname() {
        let out = std::process::Command::new("uname")
            .arg("-sm")
            .output()
            .expect("uname");
        let seen = Platform::from_uname(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(seen, Some(Platform::local()));
    }
}
