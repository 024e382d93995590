//! Waiting for a non-blocking SSH session's socket without a thread per stream.
//!
//! libssh2 keeps its socket in non-blocking mode whatever the session's mode, so the
//! socket cannot simply be read with a timeout: poll(2) on it says when libssh2 can
//! make progress.

use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::Duration;

use ssh2::BlockDirections;

/// Waits at most `timeout` for the socket to be ready in the directions libssh2 is
/// blocked on (readable when it says none). Returns early on readiness, hang-up or a
/// signal; the caller simply tries again.
pub fn wait(socket: &TcpStream, directions: BlockDirections, timeout: Duration) {
    let events = match directions {
        BlockDirections::Outbound => libc::POLLOUT,
        BlockDirections::Both => libc::POLLIN | libc::POLLOUT,
        BlockDirections::Inbound | BlockDirections::None => libc::POLLIN,
    };
    let mut fd = libc::pollfd {
        fd: socket.as_raw_fd(),
        events,
        revents: 0,
    };
    let ms = timeout.as_millis().clamp(0, i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd, alive for the call; the fd stays open (we hold `socket`).
    unsafe {
        libc::poll(&mut fd, 1, ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::net::TcpListener;
    use std::time::Instant;

    #[test]
    fn waits_for_data_or_the_timeout() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut server, _) = listener.accept().unwrap();

        let start = Instant::now();
        wait(
            &client,
            BlockDirections::Inbound,
            Duration::from_millis(150),
        );
        assert!(
            start.elapsed() >= Duration::from_millis(140),
            "returned early"
        );

        server.write_all(b"x").unwrap();
        let start = Instant::now();
        wait(&client, BlockDirections::Inbound, Duration::from_secs(5));
        assert!(start.elapsed() < Duration::from_secs(2), "missed the data");
    }
}
