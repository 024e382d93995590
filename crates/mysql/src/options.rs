//! Where and how to connect: host or socket, account, schema, TLS. Shared by every
//! plan, profile and check that reaches the server.

use serde::{Deserialize, Serialize};

/// How to reach the server. The password is never serialized (profiles, history and
/// reports must not hold it) and never printed by `Debug`.
#[derive(Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConnectOptions {
    pub host: String,
    pub port: u16,
    /// Unix socket; when set, host and port are not used.
    pub socket: Option<String>,
    pub user: String,
    #[serde(skip)]
    pub password: Option<String>,
    pub database: String,
    pub tls: TlsMode,
    /// CA certificate (PEM) for `verify_ca` / `verify_identity`.
    pub tls_ca: Option<String>,
    /// A `caching_sha2_password` login over plain TCP that the server has not cached
    /// needs its RSA public key: read from this file (PEM), as the MySQL client's
    /// `--server-public-key-path`...
    pub server_public_key_path: Option<String>,
    /// ...or, when allowed, asked of the server (`--get-server-public-key`; off by
    /// default, as in the MySQL client: a key sent over plain TCP is not authenticated).
    pub get_server_public_key: bool,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            host: "localhost".into(),
            port: 3306,
            socket: None,
            user: "sbtest".into(),
            password: None,
            database: "sbtest".into(),
            tls: TlsMode::Disabled,
            tls_ca: None,
            server_public_key_path: None,
            get_server_public_key: false,
        }
    }
}

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("endpoint", &self.endpoint())
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .field("database", &self.database)
            .field("tls", &self.tls)
            .finish()
    }
}

impl ConnectOptions {
    /// `host:port` or the socket path, for messages.
    pub fn endpoint(&self) -> String {
        match &self.socket {
            Some(s) => format!("socket {s}"),
            None if self.host.contains(':') => format!("[{}]:{}", self.host, self.port),
            None => format!("{}:{}", self.host, self.port),
        }
    }
}

/// TLS to the server. `disabled` is sysbench's default (`--mysql-ssl=off`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TlsMode {
    #[default]
    Disabled,
    /// Encrypt, accept any certificate (sysbench's `--mysql-ssl=on`).
    Required,
    /// Encrypt and check the certificate chain against the CA, not the host name.
    VerifyCa,
    /// Encrypt, check the chain and that the certificate names the host.
    VerifyIdentity,
}

impl TlsMode {
    /// The profile's spelling (`ssl_mode = "verify_ca"`).
    pub fn name(self) -> &'static str {
        match self {
            TlsMode::Disabled => "disabled",
            TlsMode::Required => "required",
            TlsMode::VerifyCa => "verify_ca",
            TlsMode::VerifyIdentity => "verify_identity",
        }
    }
}

impl std::str::FromStr for TlsMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.to_ascii_lowercase().replace('-', "_").as_str() {
            "disabled" | "off" => TlsMode::Disabled,
            "required" | "on" => TlsMode::Required,
            "verify_ca" => TlsMode::VerifyCa,
            "verify_identity" => TlsMode::VerifyIdentity,
            other => {
                return Err(format!(
                    "unknown TLS mode '{other}' (disabled, required, verify_ca, verify_identity)"
                ))
            }
        })
    }
}
