//! `caching_sha2_password` over plain TCP, against a server built from the documented
//! exchange (MySQL's "Caching_sha2_password information" in its internals manual):
//! no server on these machines speaks it (Debian ships MariaDB only), so this is the one
//! place a MySQL server is stood in for, at the protocol level only.
//!
//! The exchange after the greeting and the client's scramble
//! (`XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) || nonce))`):
//! - the server has the password cached: `0x01 0x03` (fast auth), then OK;
//! - it has not: `0x01 0x04` (full auth). Over TLS the client sends the password; over
//!   plain TCP it needs the server's RSA public key: from a file it was given, or by
//!   sending `0x02` and reading `0x01 <PEM>`. It then sends
//!   `RSA-OAEP-SHA1(pw || 0x00 XOR nonce)`, and the server answers OK or an error.
//!
//! Each case checks what went over the wire as well as what the client said: that the
//! key is asked for only when allowed, and that a refused login sent no password.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::OnceLock;
use std::thread::JoinHandle;

use dbdyno_mysql::{connect, ConnectOptions};
use rsa::pkcs8::{EncodePublicKey, LineEnding};
use rsa::{Oaep, RsaPrivateKey};
use sha2::{Digest, Sha256};

const PASSWORD: &str = "s3cret-for-sha2";
const NONCE: &[u8; 20] = b"0123456789abcdefghij";

/// The server's RSA key pair, made once for every case (2048 bits, as MySQL makes).
fn server_key() -> &'static RsaPrivateKey {
    static KEY: OnceLock<RsaPrivateKey> = OnceLock::new();
    KEY.get_or_init(|| RsaPrivateKey::new(&mut rand::thread_rng(), 2048).expect("an RSA key"))
}

fn public_pem() -> String {
    server_key()
        .to_public_key()
        .to_public_key_pem(LineEnding::LF)
        .unwrap()
}

/// Whether the server has the account's password in its cache.
#[derive(Clone, Copy)]
enum Cache {
    Hit,
    Miss,
}

/// What the server saw.
#[derive(Debug, Default)]
struct Seen {
    user: String,
    scramble_ok: bool,
    asked_for_key: bool,
    /// The password the client sent, decrypted (full authentication only).
    password: Option<String>,
    /// Bytes received after the client's handshake response when the login ended
    /// there (a refused login's last word).
    after_response: Vec<u8>,
}

fn read_packet(s: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut head = [0u8; 4];
    s.read_exact(&mut head).ok()?;
    let len = u32::from_le_bytes([head[0], head[1], head[2], 0]) as usize;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).ok()?;
    Some((head[3], body))
}

fn write_packet(s: &mut TcpStream, seq: u8, body: &[u8]) {
    let len = (body.len() as u32).to_le_bytes();
    s.write_all(&[len[0], len[1], len[2], seq]).unwrap();
    s.write_all(body).unwrap();
}

fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    assert!(s.len() < 251);
    out.push(s.len() as u8);
    out.extend_from_slice(s);
}

const OK: &[u8] = &[0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00];
const EOF: &[u8] = &[0xfe, 0x00, 0x00, 0x02, 0x00];

/// Protocol::HandshakeV10 from a MySQL 8.4 server whose default plugin is
/// caching_sha2_password and which offers no TLS.
fn greeting() -> Vec<u8> {
    // LONG_PASSWORD | LONG_FLAG | CONNECT_WITH_DB | PROTOCOL_41 | TRANSACTIONS |
    // SECURE_CONNECTION | MULTI_STATEMENTS | MULTI_RESULTS | PS_MULTI_RESULTS |
    // PLUGIN_AUTH | PLUGIN_AUTH_LENENC_CLIENT_DATA; no SSL, no DEPRECATE_EOF.
    let caps: u32 = 0x1
        | 0x4
        | 0x8
        | 0x200
        | 0x2000
        | 0x8000
        | 0x10000
        | 0x20000
        | 0x40000
        | 0x80000
        | 0x200000;
    let mut g = vec![10u8];
    g.extend_from_slice(b"8.4.3\0");
    g.extend_from_slice(&7u32.to_le_bytes());
    g.extend_from_slice(&NONCE[..8]);
    g.push(0);
    g.extend_from_slice(&(caps as u16).to_le_bytes());
    g.push(255); // utf8mb4_0900_ai_ci
    g.extend_from_slice(&2u16.to_le_bytes());
    g.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    g.push(21);
    g.extend_from_slice(&[0; 10]);
    g.extend_from_slice(&NONCE[8..]);
    g.push(0);
    g.extend_from_slice(b"caching_sha2_password\0");
    g
}

/// The documented fast-auth scramble for [`PASSWORD`] and [`NONCE`].
fn expected_scramble() -> Vec<u8> {
    let stage1 = Sha256::digest(PASSWORD.as_bytes());
    let stage2 = Sha256::digest(stage1);
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(NONCE);
    let mix = h.finalize();
    stage1.iter().zip(mix.iter()).map(|(a, b)| a ^ b).collect()
}

/// Protocol::HandshakeResponse41: the user and the auth response.
fn parse_response(body: &[u8]) -> (String, Vec<u8>) {
    let rest = &body[32..];
    let nul = rest.iter().position(|&b| b == 0).unwrap();
    let user = String::from_utf8_lossy(&rest[..nul]).into_owned();
    let rest = &rest[nul + 1..];
    let len = rest[0] as usize; // lenenc, < 251 here
    (user, rest[1..1 + len].to_vec())
}

/// Answers `SELECT @@max_allowed_packet` (the driver's first query) and anything else
/// with OK, until the client quits or hangs up.
fn serve_queries(s: &mut TcpStream) {
    while let Some((_, q)) = read_packet(s) {
        match q.first() {
            Some(0x01) | None => return,
            Some(0x03) if q[1..].starts_with(b"SELECT @@max_allowed_packet") => {
                write_packet(s, 1, &[0x01]);
                let mut col = Vec::new();
                for part in [&b"def"[..], b"", b"", b"", b"@@max_allowed_packet", b""] {
                    lenenc_str(&mut col, part);
                }
                col.push(0x0c);
                col.extend_from_slice(&63u16.to_le_bytes());
                col.extend_from_slice(&21u32.to_le_bytes());
                col.push(0x08); // LONGLONG
                col.extend_from_slice(&[0x81, 0x00, 0x00, 0x00, 0x00]);
                write_packet(s, 2, &col);
                write_packet(s, 3, EOF);
                let mut row = Vec::new();
                lenenc_str(&mut row, b"67108864");
                write_packet(s, 4, &row);
                write_packet(s, 5, EOF);
            }
            Some(_) => write_packet(s, 1, OK),
        }
    }
}

/// One connection's worth of server, on a thread; its report when the client is gone.
fn start_server(cache: Cache) -> (u16, JoinHandle<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut seen = Seen::default();
        write_packet(&mut s, 0, &greeting());
        let (_, response) = read_packet(&mut s).expect("a handshake response");
        let (user, scramble) = parse_response(&response);
        seen.user = user;
        seen.scramble_ok = scramble == expected_scramble();
        if let Cache::Hit = cache {
            write_packet(&mut s, 2, &[0x01, 0x03]);
            write_packet(&mut s, 3, OK);
            serve_queries(&mut s);
            return seen;
        }
        write_packet(&mut s, 2, &[0x01, 0x04]);
        let Some((_, mut next)) = read_packet(&mut s) else {
            return seen;
        };
        let mut seq = 4;
        if next == [0x02] {
            seen.asked_for_key = true;
            let mut reply = vec![0x01];
            reply.extend_from_slice(public_pem().as_bytes());
            write_packet(&mut s, seq, &reply);
            seq += 2;
            match read_packet(&mut s) {
                Some((_, p)) => next = p,
                None => return seen,
            }
        }
        match server_key().decrypt(Oaep::new::<sha1::Sha1>(), &next) {
            Ok(mut plain) => {
                for (i, b) in plain.iter_mut().enumerate() {
                    *b ^= NONCE[i % NONCE.len()];
                }
                let text = plain.strip_suffix(&[0]).unwrap_or(&plain);
                seen.password = Some(String::from_utf8_lossy(text).into_owned());
                write_packet(&mut s, seq, OK);
                serve_queries(&mut s);
            }
            // Not an encrypted password: whatever the client said instead.
            Err(_) => seen.after_response = next,
        }
        seen
    });
    (port, handle)
}

fn options(port: u16) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        user: "bench".into(),
        password: Some(PASSWORD.into()),
        ..ConnectOptions::default()
    }
}

#[test]
fn a_cached_password_logs_in_over_plain_tcp_without_any_key() {
    let (port, server) = start_server(Cache::Hit);
    drop(connect(&options(port)).expect("fast authentication"));
    let seen = server.join().unwrap();
    assert_eq!(seen.user, "bench");
    assert!(
        seen.scramble_ok,
        "the scramble is the documented SHA-256 one"
    );
    assert!(!seen.asked_for_key && seen.password.is_none());
}

#[test]
fn full_authentication_asks_for_the_servers_key_only_when_allowed() {
    // Not allowed (the default): refused before the password leaves, saying what to do.
    let (port, server) = start_server(Cache::Miss);
    let e = connect(&options(port)).expect_err("refused").to_string();
    let seen = server.join().unwrap();
    assert!(!seen.asked_for_key, "the key was not asked for");
    assert!(seen.password.is_none());
    assert!(
        !String::from_utf8_lossy(&seen.after_response).contains(PASSWORD),
        "no password on the wire: {:?}",
        seen.after_response
    );
    for fix in [
        "caching_sha2_password",
        "--mysql-ssl-mode=required",
        "--mysql-server-public-key-path",
        "--mysql-get-server-public-key",
    ] {
        assert!(e.contains(fix), "{fix} in: {e}");
    }

    // Allowed: the key is fetched and the password goes encrypted with it.
    let (port, server) = start_server(Cache::Miss);
    let mut o = options(port);
    o.get_server_public_key = true;
    drop(connect(&o).expect("full authentication with the fetched key"));
    let seen = server.join().unwrap();
    assert!(seen.asked_for_key && seen.scramble_ok);
    assert_eq!(seen.password.as_deref(), Some(PASSWORD));
}

#[test]
fn full_authentication_with_the_key_file_never_asks_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let pem = dir.path().join("public_key.pem");
    std::fs::write(&pem, public_pem()).unwrap();
    let (port, server) = start_server(Cache::Miss);
    let mut o = options(port);
    o.server_public_key_path = Some(pem.display().to_string());
    drop(connect(&o).expect("full authentication with the given key"));
    let seen = server.join().unwrap();
    assert!(!seen.asked_for_key);
    assert_eq!(seen.password.as_deref(), Some(PASSWORD));
}
