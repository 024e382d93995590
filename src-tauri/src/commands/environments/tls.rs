//! TLS to the server on the environment's form: `ssl_mode` and `ssl_ca` of the
//! profile's `[mysql]` section, the command line's `--mysql-ssl-mode` and
//! `--mysql-ssl-ca`. They belong to the server, not to one run: "Test MySQL", the
//! checks and every run of the environment connect the same way.

use std::path::Path;

use dbdyno_engine::plan::TlsMode;
use serde::{Deserialize, Serialize};

use crate::error::{AppError, AppResult};

/// The profile's `ssl_mode`, as the form's list offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TlsSetting {
    /// No TLS (sysbench's default).
    Disabled,
    /// Encrypt, accept any certificate.
    Required,
    /// Encrypt and check the certificate chain, not the host name.
    VerifyCa,
    /// Encrypt, check the chain and that the certificate names the host.
    VerifyIdentity,
}

impl From<TlsMode> for TlsSetting {
    fn from(m: TlsMode) -> Self {
        match m {
            TlsMode::Disabled => TlsSetting::Disabled,
            TlsMode::Required => TlsSetting::Required,
            TlsMode::VerifyCa => TlsSetting::VerifyCa,
            TlsMode::VerifyIdentity => TlsSetting::VerifyIdentity,
        }
    }
}

impl From<TlsSetting> for TlsMode {
    fn from(s: TlsSetting) -> Self {
        match s {
            TlsSetting::Disabled => TlsMode::Disabled,
            TlsSetting::Required => TlsMode::Required,
            TlsSetting::VerifyCa => TlsMode::VerifyCa,
            TlsSetting::VerifyIdentity => TlsMode::VerifyIdentity,
        }
    }
}

/// Refuses a CA file that is not there: the app runs the benchmark on this machine, so
/// the file must be here, and a typo found at save time is better than a failed run.
/// Without a CA file, verification uses the system's certificates.
pub fn check_ca_file(ca: Option<&str>) -> AppResult<()> {
    let Some(ca) = ca.map(str::trim).filter(|c| !c.is_empty()) else {
        return Ok(());
    };
    if Path::new(ca).is_file() {
        Ok(())
    } else {
        Err(AppError::invalid(format!(
            "mysql.ssl_ca: no CA certificate file at {ca}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use dbdyno_profile::Profile;

    use super::super::{apply_form, form_of};
    use super::*;

    /// TLS set on the environment's form makes the connection the command line's
    /// `--mysql-ssl-mode` and `--mysql-ssl-ca` make, and comes back on the form.
    #[test]
    fn the_form_connects_as_the_command_line_does() {
        let ca = tempfile::NamedTempFile::new().unwrap();
        let ca_path = ca.path().display().to_string();
        for (setting, option) in [
            (TlsSetting::Disabled, "disabled"),
            (TlsSetting::Required, "required"),
            (TlsSetting::VerifyCa, "verify_ca"),
            (TlsSetting::VerifyIdentity, "verify_identity"),
        ] {
            let mut form = form_of(&Profile::named("tls"));
            form.mysql_ssl_mode = setting;
            form.mysql_ssl_ca = Some(ca_path.clone());
            let profile = apply_form(Profile::named("tls"), &form);
            let mode = format!("--mysql-ssl-mode={option}");
            let ca_flag = format!("--mysql-ssl-ca={ca_path}");
            let typed = dbdyno_cli::ladder_plan_of(&["--env=tls", &mode, &ca_flag]).unwrap();
            assert_eq!(profile.connect_options(), typed.connect, "{option}");
            assert_eq!(form_of(&profile), form, "{option} comes back");
        }
    }

    #[test]
    fn a_missing_ca_file_is_refused_and_none_is_fine() {
        let ca = tempfile::NamedTempFile::new().unwrap();
        assert!(check_ca_file(Some(&ca.path().display().to_string())).is_ok());
        assert!(check_ca_file(None).is_ok());
        assert!(check_ca_file(Some("  ")).is_ok());
        let e = check_ca_file(Some("/no/such/ca.pem")).unwrap_err();
        assert!(e.message.contains("mysql.ssl_ca"), "{}", e.message);
    }
}
