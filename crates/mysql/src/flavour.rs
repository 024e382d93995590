//! Which server answered and what it speaks: the family and version from `@@version`
//! and `@@version_comment` ([`ServerVersion`]), and the flavour table of the statements
//! and names that differ between MySQL 5.7, 8.0, 8.4 and MariaDB ([`crate::dialect`]).

use serde::{Deserialize, Serialize};

/// Which server family answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Flavour {
    Mysql,
    Percona,
    Mariadb,
    /// Something that speaks the protocol but is neither (TiDB, a proxy…).
    Other,
}

impl Flavour {
    /// The name as documents spell it ("mysql", "mariadb"): its serde name.
    pub fn key(self) -> &'static str {
        match self {
            Flavour::Mysql => "mysql",
            Flavour::Percona => "percona",
            Flavour::Mariadb => "mariadb",
            Flavour::Other => "other",
        }
    }
}

impl std::fmt::Display for Flavour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Flavour::Mysql => "MySQL",
            Flavour::Percona => "Percona Server",
            Flavour::Mariadb => "MariaDB",
            Flavour::Other => "unknown server",
        })
    }
}

/// `@@version` and `@@version_comment`, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServerVersion {
    pub text: String,
    pub comment: String,
    pub flavour: Flavour,
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl ServerVersion {
    pub fn parse(version: &str, comment: &str) -> ServerVersion {
        let lower = format!("{version} {comment}").to_ascii_lowercase();
        let flavour = if lower.contains("mariadb") {
            Flavour::Mariadb
        } else if lower.contains("tidb") || lower.contains("vitess") {
            Flavour::Other
        } else if lower.contains("percona") {
            Flavour::Percona
        } else if version.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            Flavour::Mysql
        } else {
            Flavour::Other
        };
        // MariaDB behind old replication code reports "5.5.5-10.x": the real version follows.
        let core = version.strip_prefix("5.5.5-").unwrap_or(version);
        let mut nums = core
            .split(|c: char| !c.is_ascii_digit())
            .take(3)
            .map(|n| n.parse::<u32>().unwrap_or(0));
        ServerVersion {
            text: version.to_string(),
            comment: comment.to_string(),
            flavour,
            major: nums.next().unwrap_or(0),
            minor: nums.next().unwrap_or(0),
            patch: nums.next().unwrap_or(0),
        }
    }

    /// `Ok(note)` when supported (the note flags versions newer than tested), `Err(why)`
    /// when not: MySQL and Percona 5.7+, MariaDB 10.3+.
    pub fn support(&self) -> Result<Option<String>, String> {
        let v = (self.major, self.minor);
        match self.flavour {
            Flavour::Mysql | Flavour::Percona if v < (5, 7) => Err(format!(
                "{} {} is older than 5.7, the oldest supported {}",
                self.flavour, self.text, self.flavour
            )),
            Flavour::Mysql | Flavour::Percona if self.major > 8 => Ok(Some(format!(
                "{} {} is newer than the 8.x series DB Dyno is tested with",
                self.flavour, self.text
            ))),
            Flavour::Mariadb if v < (10, 3) => Err(format!(
                "MariaDB {} is older than 10.3, the oldest supported MariaDB",
                self.text
            )),
            Flavour::Other => Ok(Some(format!(
                "'{}' ({}) is neither MySQL nor MariaDB: sysbench workloads may behave differently",
                self.text, self.comment
            ))),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flavours_and_versions() {
        let m = ServerVersion::parse("10.11.19-MariaDB-0+deb12u1", "Debian 12");
        assert_eq!(
            (m.flavour, m.major, m.minor, m.patch),
            (Flavour::Mariadb, 10, 11, 19)
        );
        assert_eq!(m.support(), Ok(None));
        let old = ServerVersion::parse("5.5.5-10.1.48-MariaDB", "mariadb.org binary distribution");
        assert_eq!((old.major, old.minor), (10, 1));
        assert!(old.support().unwrap_err().contains("older than 10.3"));
        let my = ServerVersion::parse("8.0.36", "MySQL Community Server - GPL");
        assert_eq!(my.flavour, Flavour::Mysql);
        assert_eq!(my.support(), Ok(None));
        let p = ServerVersion::parse("5.7.44-48", "Percona Server (GPL), Release 48");
        assert_eq!(p.flavour, Flavour::Percona);
        assert!(p.support().is_ok());
        assert!(
            ServerVersion::parse("5.6.51", "MySQL Community Server (GPL)")
                .support()
                .is_err()
        );
        assert!(
            ServerVersion::parse("9.1.0", "MySQL Community Server - GPL")
                .support()
                .unwrap()
                .is_some()
        );
        let tidb = ServerVersion::parse("5.7.25-TiDB-v7.1.0", "");
        assert_eq!(tidb.flavour, Flavour::Other);
        assert!(tidb.support().unwrap().unwrap().contains("neither"));
    }
}
