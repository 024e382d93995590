//! Jump hosts (OpenSSH's `ProxyJump`): reaching a host that only a bastion can reach.
//!
//! Each hop is an authenticated session of its own, host key checked like any other. A
//! `direct-tcpip` channel on hop N is the byte stream hop N+1's session runs over. libssh2
//! wants a socket for a session, not a channel, so each channel is bridged to one end of
//! a loopback TCP pair by a pump thread, and the next session takes the other end. Being
//! a real socket, that end keeps every caller's habits: a timeout on it, `shutdown` from
//! another thread to wake a blocking read, `poll` on it for non-blocking use.
//!
//! The `ProxyJump` text is parsed by the profile (`dbdyno_profile::parse_jump_hosts`).
//!
//! Non-goals: `ProxyCommand` (a program of the user's, not DB Dyno's), agent forwarding.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::thread::JoinHandle;

use ssh2::Channel;

use crate::{SshConnection, SshError};

/// A pump thread carrying one hop's channel; stopping it ends the hop's session.
pub(crate) struct Tunnel {
    /// A second handle on the pump's end of the loopback pair: shutting it down wakes
    /// the pump, which then closes the channel and the hop's session.
    local: TcpStream,
    pump: Option<JoinHandle<()>>,
}

impl Drop for Tunnel {
    fn drop(&mut self) {
        let _ = self.local.shutdown(Shutdown::Both);
        if let Some(pump) = self.pump.take() {
            let _ = pump.join();
        }
    }
}

/// Every hop below one session, nearest last so that each is stopped before the one
/// it runs over (a Vec would drop the nearest first).
#[derive(Default)]
pub(crate) struct Tunnels(Vec<Tunnel>);

impl Tunnels {
    pub(crate) fn push(&mut self, tunnel: Tunnel) {
        self.0.push(tunnel);
    }
}

impl Drop for Tunnels {
    fn drop(&mut self) {
        while self.0.pop().is_some() {}
    }
}

/// Opens `host:port` as seen from `via` and returns the socket a session to it runs
/// over, with the tunnel that carries it. `via` belongs to the pump from now on.
pub(crate) fn open(
    via: SshConnection,
    host: &str,
    port: u16,
) -> Result<(TcpStream, Tunnel), SshError> {
    let to = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let channel = via
        .session
        .channel_direct_tcpip(host, port, None)
        .map_err(|source| SshError::Forward {
            via: via.addr.clone(),
            to: to.clone(),
            source,
        })?;
    let io = |doing: &'static str| {
        let to = to.clone();
        move |source| SshError::Io {
            addr: to,
            doing,
            source,
        }
    };
    let (near, far) = loopback_pair().map_err(io("making the jump host's local socket"))?;
    far.set_nonblocking(true)
        .map_err(io("making the jump host's local socket"))?;
    let local = far
        .try_clone()
        .map_err(io("making the jump host's local socket"))?;
    via.session.set_blocking(false);
    let pump = std::thread::Builder::new()
        .name(format!("ssh jump to {to}"))
        .spawn(move || pump(via, channel, far))
        .map_err(io("starting the jump host's pump"))?;
    Ok((
        near,
        Tunnel {
            local,
            pump: Some(pump),
        },
    ))
}

/// Two connected sockets on 127.0.0.1. The listener lives for one accept; a stranger
/// connecting first is turned away by comparing the peer with our own end.
fn loopback_pair() -> std::io::Result<(TcpStream, TcpStream)> {
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let near = TcpStream::connect(listener.local_addr()?)?;
    let _ = near.set_nodelay(true);
    loop {
        let (far, peer) = listener.accept()?;
        if peer == near.local_addr()? {
            let _ = far.set_nodelay(true);
            return Ok((near, far));
        }
    }
}

/// libssh2's "would block" (include/libssh2.h), on calls that return its own errors.
const LIBSSH2_ERROR_EAGAIN: i32 = -37;

/// At most this much waits in either direction before reading more from its source.
const PENDING_LIMIT: usize = 256 * 1024;

/// Moves bytes between the hop's channel and the local socket until either side ends.
/// Non-blocking on both, waiting in `poll` when neither can move: one thread, no lock
/// held across a wait (libssh2 allows one caller on a session at a time).
fn pump(via: SshConnection, mut channel: Channel, mut local: TcpStream) {
    let mut to_channel: Vec<u8> = Vec::new();
    let mut to_local: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 32 * 1024];
    let (mut local_eof, mut channel_eof, mut eof_sent) = (false, false, false);
    loop {
        let mut moved = false;
        if !local_eof && to_channel.len() < PENDING_LIMIT {
            match read_into(&mut local, &mut buf, &mut to_channel) {
                Ok(Some(0)) => {
                    local_eof = true;
                    moved = true;
                }
                Ok(Some(_)) => moved = true,
                Ok(None) => {}
                Err(()) => break,
            }
        }
        match write_from(&mut channel, &mut to_channel) {
            Ok(n) => moved |= n > 0,
            Err(()) => break,
        }
        if local_eof && to_channel.is_empty() && !eof_sent {
            match channel.send_eof() {
                Ok(()) => eof_sent = true,
                Err(e) if crate::auth::code(&e) == Some(LIBSSH2_ERROR_EAGAIN) => {}
                Err(_) => break,
            }
        }
        if !channel_eof && to_local.len() < PENDING_LIMIT {
            match read_into(&mut channel, &mut buf, &mut to_local) {
                // A channel's 0 is "nothing now" until libssh2 has seen its EOF.
                Ok(Some(0)) => channel_eof = channel.eof(),
                Ok(Some(_)) => moved = true,
                Ok(None) => {}
                Err(()) => break,
            }
        }
        match write_from(&mut local, &mut to_local) {
            Ok(n) => moved |= n > 0,
            Err(()) => break,
        }
        if channel_eof && to_local.is_empty() {
            let _ = local.shutdown(Shutdown::Write);
            if local_eof {
                break;
            }
        }
        if !moved {
            // Keeps the hop's session alive while the session above is idle.
            let _ = via.session.keepalive_send();
            wait(&via, &local, !to_local.is_empty());
        }
    }
    let _ = local.shutdown(Shutdown::Both);
    // Best effort, then blocking for the goodbye so it is not cut off half-sent.
    via.session.set_blocking(true);
    via.session.set_timeout(2000);
    let _ = channel.close();
    via.close();
}

/// One non-blocking read from `from`, appended to `pending`: Some(bytes read, 0 at
/// end of stream), None when nothing is there yet, Err when the stream broke.
fn read_into(
    from: &mut impl Read,
    buf: &mut [u8],
    pending: &mut Vec<u8>,
) -> Result<Option<usize>, ()> {
    match from.read(buf) {
        Ok(n) => {
            pending.extend_from_slice(&buf[..n]);
            Ok(Some(n))
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(None),
        Err(_) => Err(()),
    }
}

/// One non-blocking write of what `pending` holds; returns how much went (and left it).
fn write_from(to: &mut impl Write, pending: &mut Vec<u8>) -> Result<usize, ()> {
    if pending.is_empty() {
        return Ok(0);
    }
    match to.write(pending) {
        Ok(n) => {
            pending.drain(..n);
            Ok(n)
        }
        Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(0),
        Err(_) => Err(()),
    }
}

/// Sleeps until the hop's socket or the local one can move bytes, or a second passes
/// (for keepalives).
fn wait(via: &SshConnection, local: &TcpStream, local_writable: bool) {
    let dirs = via.session.block_directions();
    let mut hop_events = libc::POLLIN;
    if matches!(
        dirs,
        ssh2::BlockDirections::Outbound | ssh2::BlockDirections::Both
    ) {
        hop_events |= libc::POLLOUT;
    }
    let mut local_events = libc::POLLIN;
    if local_writable {
        local_events |= libc::POLLOUT;
    }
    let mut fds = [
        libc::pollfd {
            fd: via.socket.as_raw_fd(),
            events: hop_events,
            revents: 0,
        },
        libc::pollfd {
            fd: local.as_raw_fd(),
            events: local_events,
            revents: 0,
        },
    ];
    // SAFETY: `fds` is a valid array of two pollfd for the duration of the call.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 1000) };
}
