//! TLS, proven against a server that takes nothing else: a private MariaDB with a CA of
//! the test's own, a certificate naming 127.0.0.1 and `require_secure_transport = ON`.
//! Each TLS mode connects when it should and, when it should not, fails saying why and
//! what to change: a plain connection (the server wants TLS), `verify_ca` with another CA
//! (not signed by it), `verify_identity` by a name the certificate does not hold. The
//! checks, a monitored ladder (its MySQL sampler opens its own connection) and a ladder
//! with an SSH load client run over TLS too. The load client logs in as another user,
//! who cannot read the test's CA file: its agent connects with the CA the order carried.
//!
//! The certificates come from `openssl` (installed with the system's TLS libraries).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dbdyno_tests::*;
use serde_json::Value;

use crate::clients_profile::{env, fingerprint};
use crate::sshd::Sshd;

/// A CA, a server key and certificate signed by it for IP 127.0.0.1 only, and a
/// second CA that signed nothing here.
struct Certs {
    _dir: tempfile::TempDir,
    ca: PathBuf,
    other_ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl is installed (scripts/deps.sh)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn certs() -> Certs {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (key, pem, cn) in [
        ("ca.key", "ca.pem", "/CN=DB Dyno test CA"),
        ("other.key", "other.pem", "/CN=Another CA"),
    ] {
        openssl(
            d,
            &[
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", key,
                "-out", pem, "-subj", cn,
            ],
        );
    }
    openssl(
        d,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    );
    std::fs::write(
        d.join("server.ext"),
        "subjectAltName = IP:127.0.0.1\nbasicConstraints = CA:FALSE\n\
         keyUsage = digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\n",
    )
    .unwrap();
    openssl(
        d,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            "server.pem",
            "-extfile",
            "server.ext",
        ],
    );
    Certs {
        ca: d.join("ca.pem"),
        other_ca: d.join("other.pem"),
        cert: d.join("server.pem"),
        key: d.join("server.key"),
        _dir: dir,
    }
}

fn both(o: &Output) -> String {
    format!("{}\n{}", stdout(o), stderr(o))
}

#[test]
fn each_tls_mode_connects_or_says_what_to_change_against_a_tls_only_server() {
    let _sshd = crate::sshd::shared();
    let _g = shared_server();
    let c = certs();
    let server = PrivateSandbox::start(
        "tls",
        &format!(
            "ssl_ca = {}\nssl_cert = {}\nssl_key = {}\nrequire_secure_transport = ON",
            c.ca.display(),
            c.cert.display(),
            c.key.display()
        ),
    );
    let ca = format!("--mysql-ssl-ca={}", c.ca.display());
    let other_ca = format!("--mysql-ssl-ca={}", c.other_ca.display());
    // One step of oltp_point_select with these TLS options, to `host` (the private
    // server's connection options come first, so `host` overrides theirs).
    let run_on = |host: &str, tls: &[&str]| {
        let mut a: Vec<String> = server.mysql_args();
        a.push(format!("--mysql-host={host}"));
        a.extend(
            [
                "--tables=1",
                "--table-size=1000",
                "--time=1",
                "--skip-checks",
            ]
            .iter()
            .chain(tls)
            .map(|s| s.to_string()),
        );
        dbdyno_cmd()
            .arg("oltp_point_select")
            .args(&a)
            .arg("run")
            .env("MYSQL_PWD", server.sandbox().password)
            .output()
            .unwrap()
    };
    let run = |tls: &[&str]| run_on("127.0.0.1", tls);

    // A plain connection: the server refuses it, and the message says to use TLS.
    let o = run(&[]);
    assert!(!o.status.success(), "{}", both(&o));
    assert!(
        stderr(&o).contains("the server accepts only TLS connections")
            && stderr(&o).contains("--mysql-ssl-mode=required"),
        "{}",
        stderr(&o)
    );

    ok(&server.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "--mysql-ssl-mode=required",
        "prepare",
    ]));
    ok(&run(&["--mysql-ssl-mode=required"]));
    ok(&run(&["--mysql-ssl-mode=verify_ca", &ca]));
    ok(&run(&["--mysql-ssl-mode=verify_identity", &ca]));

    // Another CA: the certificate is not one it signed.
    for mode in [
        "--mysql-ssl-mode=verify_ca",
        "--mysql-ssl-mode=verify_identity",
    ] {
        let o = run(&[mode, &other_ca]);
        assert!(!o.status.success(), "{mode}: {}", both(&o));
        assert!(
            stderr(&o).contains("not signed by the CA in --mysql-ssl-ca"),
            "{mode}: {}",
            stderr(&o)
        );
    }
    // A name the certificate does not hold: it names 127.0.0.1, not localhost.
    // verify_ca does not check names, so it connects.
    let o = run_on("localhost", &["--mysql-ssl-mode=verify_identity", &ca]);
    assert!(!o.status.success(), "{}", both(&o));
    assert!(
        stderr(&o).contains("does not name localhost"),
        "{}",
        stderr(&o)
    );
    ok(&run_on("localhost", &["--mysql-ssl-mode=verify_ca", &ca]));

    // The checks and a monitored ladder, over TLS with the CA checked and the name.
    let o = server.dbdyno(&[
        "check",
        "--scenarios=oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "--mysql-ssl-mode=verify_identity",
        &ca,
    ]);
    let text = stdout(&o);
    assert!(
        text.lines()
            .any(|l| l.starts_with("PASS") && l.ends_with("[mysql.reachable]")),
        "{text}"
    );
    let json = tempfile::NamedTempFile::new().unwrap();
    let json_arg = format!("--json={}", json.path().display());
    ok(&server.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--ladder=1",
        "--time=2",
        "--tables=1",
        "--table-size=1000",
        "--no-history",
        "--mysql-ssl-mode=verify_identity",
        &ca,
        &json_arg,
    ]));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(json.path()).unwrap()).unwrap();
    let step = &doc["monitoring"]["steps"][0];
    assert!(
        step["mysql"]["covered_s"].as_f64().unwrap_or(0.0) >= 1.5,
        "the MySQL sampler connected over TLS: {step}"
    );

    // A load client over SSH, as another user, who cannot read the CA file in the test's
    // private directory: its agent verifies the server with the CA its orders carried.
    let sshd = Sshd::from_env();
    let client_url = format!(
        "ssh://{}@{}:{}",
        env("DBDYNO_TEST_SSH_PW_USER"),
        env("DBDYNO_TEST_SSH_HOST2"),
        sshd.port
    );
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("tls-clients.toml");
    std::fs::write(
        &profile,
        format!(
            "schema_version = 1\nname = \"tls-clients\"\n\n[mysql]\nhost = \"127.0.0.1\"\n\n\
             [[clients]]\nurl = \"{client_url}\"\nauth = \"password\"\nhost_key_fingerprint = \"{}\"\n",
            fingerprint(&sshd.host_pubkey)
        ),
    )
    .unwrap();
    let mut args: Vec<String> = vec!["ladder".to_string()];
    args.extend(server.mysql_args());
    args.extend(
        [
            &format!("--profile={}", profile.display()),
            "--scenarios=oltp_point_select",
            "--tables=1",
            "--table-size=1000",
            "--threads=2",
            "--time=2",
            "--no-history",
            "--no-monitor",
            "--mysql-ssl-mode=verify_identity",
            &ca,
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let o = dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", server.sandbox().password)
        .env("DBDYNO_SSH_PASSWORD", env("DBDYNO_TEST_SSH_PASSWORD"))
        .output()
        .unwrap();
    let text = ok(&o);
    assert!(
        text.contains(&format!("local 1, {client_url} 1")),
        "both clients ran over TLS: {text}"
    );
}
