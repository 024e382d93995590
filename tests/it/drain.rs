//! The driver's drain (`Conn::exec_drain` / `query_drain`, vendor/mysql/PATCH.md): the
//! engine reads every response through it, so it must read exactly what the server
//! sent (every row, every result set, errors anywhere) and leave the connection ready
//! for the next statement.

use mysql::prelude::Queryable;
use mysql::{Conn, DrainStats};

use dbdyno_tests::*;

/// A table of `rows` rows (id 1..=rows, k = id) in a fresh schema.
fn schema_with_rows(tag: &str, rows: u32) -> (TestSchema, Conn) {
    let schema = TestSchema::new(tag);
    let mut conn = schema.conn();
    conn.query_drop("CREATE TABLE t (id INT PRIMARY KEY, k INT, c CHAR(60))")
        .unwrap();
    let values: Vec<String> = (1..=rows)
        .map(|i| format!("({i}, {i}, REPEAT('x', 60))"))
        .collect();
    conn.query_drop(format!("INSERT INTO t VALUES {}", values.join(",")))
        .unwrap();
    (schema, conn)
}

/// The connection still answers, in order: nothing of the last response is left unread.
fn assert_in_sync(conn: &mut Conn) {
    let v: Option<i64> = conn.query_first("SELECT 424242").unwrap();
    assert_eq!(v, Some(424242));
    let stmt = conn.prep("SELECT COUNT(*) FROM t").unwrap();
    let n: Option<i64> = conn.exec_first(&stmt, ()).unwrap();
    assert!(n.unwrap() > 0);
}

fn server_code(e: &mysql::Error) -> u16 {
    match e {
        mysql::Error::MySqlError(me) => me.code,
        other => panic!("expected a server error, got {other}"),
    }
}

#[test]
fn drain_counts_the_rows_the_decoding_reader_sees() {
    let _server = shared_server();
    let (_schema, mut conn) = schema_with_rows("drain_rows", 250);
    let range = conn
        .prep("SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c")
        .unwrap();
    for (lo, hi) in [(1, 100), (151, 250), (240, 400)] {
        let decoded: Vec<String> = conn.exec(&range, (lo, hi)).unwrap();
        let drained = conn.exec_drain(&range, (lo, hi)).unwrap();
        assert_eq!(
            drained,
            DrainStats {
                result_sets: 1,
                rows: decoded.len() as u64,
                affected_rows: 0
            },
            "range {lo}..{hi}"
        );
    }
    let text = conn.query_drain("SELECT id, k, c FROM t").unwrap();
    assert_eq!(text.rows, 250);
    assert_in_sync(&mut conn);
}

#[test]
fn drain_reads_zero_row_results_and_ok_packets() {
    let _server = shared_server();
    let (_schema, mut conn) = schema_with_rows("drain_zero", 10);
    let none = conn.prep("SELECT c FROM t WHERE id = ?").unwrap();
    let empty = conn.exec_drain(&none, (1_000_000,)).unwrap();
    assert_eq!((empty.result_sets, empty.rows), (1, 0));
    assert_eq!(
        conn.query_drain("SELECT * FROM t WHERE 1 = 0")
            .unwrap()
            .rows,
        0
    );

    let update = conn.prep("UPDATE t SET k = k + 1 WHERE id <= ?").unwrap();
    let updated = conn.exec_drain(&update, (4,)).unwrap();
    assert_eq!(
        updated,
        DrainStats {
            result_sets: 1,
            rows: 0,
            affected_rows: 4
        }
    );
    // The OK packet reaches the connection as `exec_drop` leaves it.
    assert_eq!(conn.affected_rows(), 4);
    let begin = conn.query_drain("BEGIN").unwrap();
    assert_eq!((begin.result_sets, begin.rows), (1, 0));
    conn.query_drain("COMMIT").unwrap();
    assert_in_sync(&mut conn);
}

#[test]
fn drain_reads_every_result_set() {
    let _server = shared_server();
    let (_schema, mut conn) = schema_with_rows("drain_sets", 30);
    // A multi-statement query: rows, an OK packet, rows again.
    let multi = conn
        .query_drain("SELECT id FROM t WHERE id <= 5; UPDATE t SET k = 0 WHERE id = 1; SELECT 1, 2")
        .unwrap();
    assert_eq!(
        multi,
        DrainStats {
            result_sets: 3,
            rows: 6,
            affected_rows: 1
        }
    );
    // A procedure through a prepared CALL: two row sets and the CALL's own OK packet.
    conn.query_drop(
        "CREATE PROCEDURE two_sets(n INT) BEGIN \
           SELECT id FROM t WHERE id <= n; SELECT c FROM t; END",
    )
    .unwrap();
    let call = conn.prep("CALL two_sets(?)").unwrap();
    for _ in 0..3 {
        let stats = conn.exec_drain(&call, (7,)).unwrap();
        assert_eq!((stats.result_sets, stats.rows), (3, 37));
    }
    assert_in_sync(&mut conn);
}

#[test]
fn drain_returns_an_error_that_arrives_mid_response() {
    let _server = shared_server();
    let (_schema, mut conn) = schema_with_rows("drain_errors", 3);

    // The first statement fails: the error comes instead of a result set header.
    let missing = conn.query_drain("SELECT * FROM no_such_table").unwrap_err();
    assert_eq!(server_code(&missing), 1146);
    assert_in_sync(&mut conn);

    // The first result set is complete, the second fails. `query_drop` reports
    // success here (its drop swallows the error); the drain must not.
    conn.query_drop("SELECT id FROM t; SELECT * FROM no_such_table")
        .expect("the upstream drop swallows a second set's error (PATCH.md)");
    assert_in_sync(&mut conn);
    let second = conn
        .query_drain("SELECT id FROM t; SELECT * FROM no_such_table; SELECT 1")
        .unwrap_err();
    assert_eq!(server_code(&second), 1146);
    assert_in_sync(&mut conn);

    // The error arrives within one result set: the row for id 3 is sent, the row for
    // id 2 fails ("Subquery returns more than 1 row").
    let in_rows = conn
        .prep("SELECT t0.id, (SELECT k FROM t WHERE k >= t0.id) FROM t t0 WHERE t0.id > ? ORDER BY t0.id DESC")
        .unwrap();
    let failing = conn.exec_drain(&in_rows, (0,)).unwrap_err();
    assert_eq!(server_code(&failing), 1242);
    assert_in_sync(&mut conn);

    // A procedure whose first set succeeds and whose body then signals an error.
    conn.query_drop(
        "CREATE PROCEDURE then_fail() BEGIN \
           SELECT id FROM t; SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'drain test', MYSQL_ERRNO = 1644; END",
    )
    .unwrap();
    let call = conn.prep("CALL then_fail()").unwrap();
    let signalled = conn.exec_drain(&call, ()).unwrap_err();
    assert_eq!(server_code(&signalled), 1644);
    assert_in_sync(&mut conn);
}

/// An admin connection over the sandbox's Unix socket, with this read timeout.
fn socket_conn(schema: &TestSchema, read_timeout: Option<std::time::Duration>) -> Conn {
    let socket = std::env::var("DBDYNO_TEST_MYSQL_SOCKET")
        .expect("DBDYNO_TEST_MYSQL_SOCKET (scripts/sandbox.sh env)");
    let opts = mysql::OptsBuilder::new()
        .socket(Some(socket))
        .user(Some(schema.sandbox.admin_user.clone()))
        .pass(Some(schema.sandbox.admin_password.clone()))
        .db_name(Some(schema.name.clone()))
        .read_timeout(read_timeout);
    Conn::new(opts).expect("socket connection to the sandbox MariaDB")
}

/// Unix socket reads wait in poll (vendor/mysql/PATCH.md): a response that is late
/// still arrives whole, and the socket's read timeout still bounds the wait.
#[test]
fn socket_reads_wait_for_late_responses_and_keep_the_read_timeout() {
    let _server = shared_server();
    let (schema, _) = schema_with_rows("drain_socket", 120);
    let mut conn = socket_conn(&schema, None);
    let late = conn
        .query_drain("SELECT SLEEP(0.3); SELECT id FROM t")
        .unwrap();
    assert_eq!((late.result_sets, late.rows), (2, 121));
    let range = conn
        .prep("SELECT c FROM t WHERE id BETWEEN ? AND ?")
        .unwrap();
    for _ in 0..200 {
        assert_eq!(conn.exec_drain(&range, (1, 100)).unwrap().rows, 100);
    }
    assert_in_sync(&mut conn);

    let mut bounded = socket_conn(&schema, Some(std::time::Duration::from_millis(200)));
    let t0 = std::time::Instant::now();
    let err = bounded.query_drain("SELECT SLEEP(3)").unwrap_err();
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(2),
        "the read timeout ended the wait: {:?}, {err}",
        t0.elapsed()
    );
    // What a blocking read that times out gives: EAGAIN from the framing.
    assert!(
        matches!(err, mysql::Error::CodecError(_)) && err.to_string().contains("os error 11"),
        "{err:?}"
    );
}

/// The socket's reads wait for the timeout the driver knows (vendor/mysql/PATCH.md):
/// one lifted on the open connection lets a slow statement finish, and one set again
/// ends the next wait, as the engine's connections rely on after the handshake.
#[test]
fn socket_read_timeout_can_be_lifted_and_set_again() {
    let _server = shared_server();
    let (schema, _) = schema_with_rows("drain_timeout", 1);
    let short = std::time::Duration::from_millis(200);
    let mut conn = socket_conn(&schema, Some(short));
    conn.set_read_timeout(None).unwrap();
    let slow = conn.query_drain("SELECT SLEEP(0.6)").unwrap();
    assert_eq!((slow.result_sets, slow.rows), (1, 1));
    assert_in_sync(&mut conn);

    conn.set_read_timeout(Some(short)).unwrap();
    let t0 = std::time::Instant::now();
    let err = conn.query_drain("SELECT SLEEP(3)").unwrap_err();
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(2),
        "the timeout set again ended the wait: {:?}, {err}",
        t0.elapsed()
    );
    assert!(err.to_string().contains("os error 11"), "{err:?}");
}
