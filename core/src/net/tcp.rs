//! The TCP transport under every connection (direct, or to an HTTP CONNECT proxy; a SOCKS
//! proxy keeps ureq's own), made for one short request and reply at a time on a kept-alive
//! connection:
//!
//! - the request head is held back and goes out with the body in one `writev`, so that the
//!   server reads the whole request at once (ureq's own transport makes a write for each);
//! - socket timeouts are changed only when the time left asks for it, not before every read
//!   and write (each change is a `setsockopt`): the socket's timeout is at most the time
//!   left, and a read or write that stops at it while time is left goes on;
//! - the liveness probe of an idle connection is one non-blocking `recv(MSG_PEEK)` where the
//!   platform has it, instead of switching the socket to non-blocking mode and back.
//!
//! Connecting follows ureq's `TcpConnector`: the addresses in turn, each with a share of the
//! connect time (half of what is left, the last one all of it, at least 10 ms each),
//! cancellable on a thread a cancel token watches (`cancel.rs`), Nagle's algorithm off; and TCP keepalive probes keep an idle connection known to the
//! NATs and firewalls on the way ([`prepare`]).

use std::io::{self, IoSlice, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use mio::{Events, Interest, Poll, Token, Waker};

use crate::util::wiped::Wiped;
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, Either, NextTimeout, ShutdownHandle, Transport,
};
use ureq::Timeout;

use crate::cancel::{CancelToken, Cancelled, WakePoll};
use crate::net::buffers::WipedBuffers;
use crate::util::deadline::Deadline;

/// A request head of at most this many bytes is held back to go out with the body.
const HOLD_AT_MOST: usize = 4096;

/// Silence after which TCP keepalive probes start (see [`prepare`]): below the idle timeouts
/// of common NATs and firewalls (a few minutes, some 60 s).
const KEEPALIVE_IDLE: Duration = Duration::from_secs(45);

/// Time between keepalive probes that get no answer.
#[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(15);

/// No address gets less connect time than this.
const MIN_CONNECT_PER_ADDRESS: Duration = Duration::from_millis(10);

/// Opens [`Tcp`] connections (it replaces ureq's `TcpConnector` in the chain).
#[derive(Debug, Default)]
pub(crate) struct TcpConnector;

impl<In: Transport> Connector<In> for TcpConnector {
    type Out = Either<In, Tcp>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        if let Some(chained) = chained {
            // A SOCKS connection made earlier in the chain.
            return Ok(Some(Either::A(chained)));
        }
        let limit = details.timeout.not_zero().map(|after| *after);
        let stream = connect(&details.addrs, limit, details.timeout.reason)?;
        prepare(&stream, details.config.no_delay())?;
        let buffers = WipedBuffers::new(
            details.config.input_buffer_size(),
            details.config.output_buffer_size(),
        );
        let transport = Tcp::new(stream, buffers);
        (details.register_shutdown)(transport.shutdown_handle())?;
        Ok(Some(Either::B(transport)))
    }
}

/// Sets up a new connection: Nagle's algorithm off (ureq's default), and TCP keepalive
/// probes after [`KEEPALIVE_IDLE`] of silence, every [`KEEPALIVE_INTERVAL`]: an idle
/// connection is kept 10 minutes for the next heartbeat, and a NAT or firewall on the way
/// may forget a silent one sooner and drop its packets without a word. The probes keep it
/// known, or tell that the path is gone (the next use then opens a new connection instead of
/// waiting out the call's timeout on a dead one).
pub(crate) fn prepare(stream: &TcpStream, no_delay: bool) -> io::Result<()> {
    if no_delay {
        stream.set_nodelay(true)?;
    }
    let keepalive = socket2::TcpKeepalive::new().with_time(KEEPALIVE_IDLE);
    #[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
    let keepalive = keepalive.with_interval(KEEPALIVE_INTERVAL);
    // Without keepalive the connection still works: a failure here is not the call's.
    let _ = socket2::SockRef::from(stream).set_tcp_keepalive(&keepalive);
    Ok(())
}

/// Connects to the first of `addrs` that answers within `limit` (no limit: `None`).
fn connect(
    addrs: &[std::net::SocketAddr],
    limit: Option<Duration>,
    reason: Timeout,
) -> Result<TcpStream, ureq::Error> {
    let start = Instant::now();
    let mut last: Option<ureq::Error> = None;
    // On a thread a token watches, a connect is cancellable (a proxy that does not answer).
    let token = crate::cancel::watching();
    for (index, addr) in addrs.iter().enumerate() {
        // Half of what is left to the first address, a quarter to the second, ...: the
        // shares of n addresses add up to the whole (the last gets what is left).
        let share = limit.map(|limit| {
            let left = limit.saturating_sub(start.elapsed());
            let share = if index + 1 == addrs.len() {
                left
            } else {
                left / 2
            };
            share.max(MIN_CONNECT_PER_ADDRESS)
        });
        let attempt = match (&token, share) {
            (Some(token), share) => connect_watched(addr, share, token),
            (None, Some(share)) => TcpStream::connect_timeout(addr, share),
            (None, None) => TcpStream::connect(addr),
        };
        match attempt {
            Err(err) if err.kind() == io::ErrorKind::Interrupted && is_cancelled(&token) => {
                return Err(Cancelled::as_ureq());
            }
            Ok(stream) => return Ok(stream),
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                ) =>
            {
                if limit.is_some_and(|limit| start.elapsed() >= limit) {
                    return Err(ureq::Error::Timeout(reason));
                }
                last = Some(ureq::Error::Timeout(Timeout::Connect));
            }
            // Refused or unreachable: this address only; the next may work.
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::ConnectionRefused
                        | io::ErrorKind::HostUnreachable
                        | io::ErrorKind::NetworkUnreachable
                        | io::ErrorKind::AddrNotAvailable
                ) =>
            {
                last = Some(ureq::Error::Io(err));
            }
            Err(err) => return Err(ureq::Error::Io(err)),
        }
    }
    Err(last.unwrap_or_else(|| {
        ureq::Error::Io(io::Error::new(
            io::ErrorKind::ConnectionRefused,
            "Connection refused",
        ))
    }))
}

/// Whether a `peer_addr` error means "still connecting" (EINPROGRESS on some systems).
pub(crate) fn in_progress(err: &io::Error) -> bool {
    #[cfg(unix)]
    {
        err.raw_os_error() == Some(libc::EINPROGRESS)
    }
    #[cfg(not(unix))]
    {
        let _ = err;
        false
    }
}

fn is_cancelled(token: &Option<CancelToken>) -> bool {
    token.as_ref().is_some_and(CancelToken::is_cancelled)
}

/// Connects to `addr` within `limit` (none: `None`) unless `token` is cancelled first
/// (`Interrupted`): a non-blocking connect waited for with the cancel's waker.
fn connect_watched(
    addr: &SocketAddr,
    limit: Option<Duration>,
    token: &CancelToken,
) -> io::Result<TcpStream> {
    const SOCKET: Token = Token(0);
    const WAKE: Token = Token(1);
    let mut poll = Poll::new()?;
    let wake: Arc<dyn ShutdownHandle> =
        Arc::new(WakePoll(Arc::new(Waker::new(poll.registry(), WAKE)?)));
    let cancelled = || io::Error::new(io::ErrorKind::Interrupted, "cancelled");
    if !token.enter_io(&Arc::downgrade(&wake)) {
        return Err(cancelled());
    }
    let deadline = limit.map(|limit| Instant::now() + limit);
    let connected = (|| {
        let mut socket = mio::net::TcpStream::connect(*addr)?;
        poll.registry()
            .register(&mut socket, SOCKET, Interest::WRITABLE)?;
        let mut events = Events::with_capacity(4);
        loop {
            if token.is_cancelled() {
                return Err(cancelled());
            }
            let wait = deadline.map(|at| at.saturating_duration_since(Instant::now()));
            if wait.is_some_and(|wait| wait.is_zero()) {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "connect timed out"));
            }
            match poll.poll(&mut events, wait) {
                Ok(()) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            }
            if !events.iter().any(|event| event.token() == SOCKET) {
                continue;
            }
            if let Some(err) = socket.take_error()? {
                return Err(err);
            }
            match socket.peer_addr() {
                Ok(_) => break,
                Err(err) if err.kind() == io::ErrorKind::NotConnected || in_progress(&err) => {
                    continue
                }
                Err(err) => return Err(err),
            }
        }
        poll.registry().deregister(&mut socket)?;
        let stream = TcpStream::from(socket);
        stream.set_nonblocking(false)?;
        Ok(stream)
    })();
    token.leave_io(&Arc::downgrade(&wake));
    connected
}

/// One TCP connection with ureq's buffers.
pub(crate) struct Tcp {
    /// Shared (weakly) with the shutdown handle, which may shut it down from another thread.
    stream: Arc<TcpStream>,
    buffers: WipedBuffers,
    /// Output held back (a request head), to go out with the next output in one write, or
    /// before the next read. It holds the session secret (the Handle path, `X-Api-Password`):
    /// allocated once at its largest, so that it never moves, and wiped when dropped.
    held: Wiped<Vec<u8>>,
    read_timeout: SocketTimeout,
    write_timeout: SocketTimeout,
}

impl std::fmt::Debug for Tcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tcp")
            .field("peer", &self.stream.peer_addr().ok())
            .finish()
    }
}

impl Tcp {
    pub(crate) fn new(stream: TcpStream, buffers: WipedBuffers) -> Tcp {
        Tcp {
            stream: Arc::new(stream),
            buffers,
            held: Wiped::new(Vec::with_capacity(HOLD_AT_MOST)),
            read_timeout: SocketTimeout::default(),
            write_timeout: SocketTimeout::default(),
        }
    }

    pub(crate) fn shutdown_handle(&self) -> Weak<dyn ShutdownHandle> {
        let weak: Weak<TcpStream> = Arc::downgrade(&self.stream);
        weak
    }

    /// Sends what is held back, if anything.
    fn flush_held(&mut self, timeout: NextTimeout) -> Result<(), ureq::Error> {
        if self.held.is_empty() {
            return Ok(());
        }
        let sent = write_all(
            &self.stream,
            &mut self.write_timeout,
            &self.held,
            &[],
            Budget::new(timeout),
        );
        self.held.clear();
        sent
    }

    /// How many times a socket timeout was changed (a `setsockopt` each).
    #[cfg(test)]
    fn timeout_changes(&self) -> u32 {
        self.read_timeout.changes + self.write_timeout.changes
    }
}

impl Transport for Tcp {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let timeout = timeout.for_write();
        if timeout.after.is_zero() {
            return Err(ureq::Error::Timeout(timeout.reason));
        }
        let output = self.buffers.output();
        let output = output.get(..amount).unwrap_or(output);
        if self.held.is_empty() && output.len() <= HOLD_AT_MOST {
            // Most likely a request head: its body follows, or a read does.
            self.held.extend_from_slice(output);
            return Ok(());
        }
        let sent = write_all(
            &self.stream,
            &mut self.write_timeout,
            &self.held,
            output,
            Budget::new(timeout),
        );
        self.held.clear();
        sent
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.flush_held(timeout.for_write())?;
        let mut budget = Budget::new(timeout.for_read());
        let input = self.buffers.input_append_buf();
        let mut stream = &*self.stream;
        let amount = loop {
            let left = budget.left()?;
            self.read_timeout
                .at_most(left, |limit| stream.set_read_timeout(limit))?;
            match stream.read(input) {
                Ok(amount) => break amount,
                // A signal, or the socket's timeout before the deadline: go on.
                Err(err) if is_retry(&err) => continue,
                Err(err) => return Err(ureq::Error::Io(err)),
            }
        };
        self.buffers.input_appended(amount);
        Ok(amount > 0)
    }

    fn is_open(&mut self) -> bool {
        self.held.is_empty() && probe(&self.stream)
    }
}

/// Whether an idle connection is still open: nothing to read (the server neither closed it
/// nor sent anything unasked).
#[cfg(unix)]
fn probe(stream: &TcpStream) -> bool {
    let mut byte = [std::mem::MaybeUninit::new(0u8)];
    let peeked = socket2::SockRef::from(stream)
        .recv_with_flags(&mut byte, libc::MSG_PEEK | libc::MSG_DONTWAIT);
    matches!(peeked, Err(err) if err.kind() == io::ErrorKind::WouldBlock)
}

/// Whether an idle connection is still open (no non-blocking flag for a single `recv`:
/// the socket is made non-blocking for the peek).
#[cfg(not(unix))]
fn probe(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let peeked = stream.peek(&mut [0u8]);
    stream.set_nonblocking(false).is_ok()
        && matches!(peeked, Err(err) if err.kind() == io::ErrorKind::WouldBlock)
}

/// Whether a failed read or write may go on: interrupted by a signal, or stopped by the
/// socket's timeout (which may be shorter than the time left; [`Budget::left`] decides).
fn is_retry(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Writes `first` then `second`, in one `writev` when the socket takes them at once.
fn write_all(
    mut stream: &TcpStream,
    timeout: &mut SocketTimeout,
    mut first: &[u8],
    mut second: &[u8],
    mut budget: Budget,
) -> Result<(), ureq::Error> {
    while !first.is_empty() || !second.is_empty() {
        let left = budget.left()?;
        timeout.at_most(left, |limit| stream.set_write_timeout(limit))?;
        let written = if first.is_empty() {
            stream.write(second)
        } else if second.is_empty() {
            stream.write(first)
        } else {
            stream.write_vectored(&[IoSlice::new(first), IoSlice::new(second)])
        };
        match written {
            Ok(0) => {
                return Err(ureq::Error::Io(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "the connection took no more bytes",
                )))
            }
            Ok(written) => {
                let from_first = written.min(first.len());
                first = &first[from_first..];
                second = second.get(written - from_first..).unwrap_or_default();
            }
            Err(err) if is_retry(&err) => continue,
            Err(err) => return Err(ureq::Error::Io(err)),
        }
    }
    Ok(())
}

/// The time of one read or write, from ureq's [`NextTimeout`]: the first attempt gets all
/// of it without a look at the clock; the deadline tells what is left for any later one
/// (after a signal, or the socket's timeout).
struct Budget {
    /// `None`: no limit.
    deadline: Option<Deadline>,
    first: Option<Duration>,
    reason: Timeout,
}

impl Budget {
    fn new(timeout: NextTimeout) -> Budget {
        let after = (!timeout.after.is_not_happening()).then(|| *timeout.after);
        Budget {
            deadline: after.map(Deadline::after),
            first: after,
            reason: timeout.reason,
        }
    }

    /// The time left for the next attempt (`None`: no limit), or the timeout error when
    /// none is.
    fn left(&mut self) -> Result<Option<Duration>, ureq::Error> {
        let Some(deadline) = self.deadline else {
            return Ok(None);
        };
        let left = self.first.take().unwrap_or_else(|| deadline.remaining());
        if left.is_zero() {
            Err(ureq::Error::Timeout(self.reason))
        } else {
            Ok(Some(left))
        }
    }
}

/// The timeout set on the socket for one direction, changed only when needed.
#[derive(Default)]
struct SocketTimeout {
    /// What the socket has: `None` before the first change, and for "no timeout".
    set: Option<Duration>,
    /// Whether `set` was ever applied (a new socket has no timeout).
    applied: bool,
    #[cfg(test)]
    changes: u32,
}

impl SocketTimeout {
    /// Makes the socket's timeout at most `left` (so that an I/O never outlasts the time
    /// left) and at least a quarter of it (so that a slow server costs a few wakeups, not
    /// many). A change sets half the time left: the following calls, which start with about
    /// as much time, keep it.
    fn at_most(
        &mut self,
        left: Option<Duration>,
        apply: impl FnOnce(Option<Duration>) -> io::Result<()>,
    ) -> io::Result<()> {
        let fits = match (self.set, left) {
            (_, None) => self.applied && self.set.is_none(),
            (Some(set), Some(left)) => self.applied && set <= left && set >= left / 4,
            (None, Some(_)) => false,
        };
        if fits {
            return Ok(());
        }
        // At least 1 ms: a zero timeout means "none" to the socket.
        let wanted = left.map(|left| (left / 2).max(Duration::from_millis(1)).min(left));
        apply(wanted)?;
        self.set = wanted;
        self.applied = true;
        #[cfg(test)]
        {
            self.changes += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn pair() -> (Tcp, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        (
            Tcp::new(client, WipedBuffers::new(16 * 1024, 16 * 1024)),
            server,
        )
    }

    fn timeout(after: Duration) -> NextTimeout {
        NextTimeout {
            after: ureq::unversioned::transport::time::Duration::Exact(after),
            reason: Timeout::Global,
            per_read: None,
            per_write: None,
        }
    }

    fn transmit(tcp: &mut Tcp, bytes: &[u8]) {
        tcp.buffers().output()[..bytes.len()].copy_from_slice(bytes);
        tcp.transmit_output(bytes.len(), timeout(Duration::from_secs(10)))
            .expect("transmit");
    }

    #[test]
    fn the_head_goes_out_with_the_body_in_one_write() {
        let (mut tcp, mut server) = pair();
        server.set_nonblocking(true).expect("nonblocking");
        transmit(&mut tcp, b"POST / HTTP/1.1\r\ncontent-length: 4\r\n\r\n");
        // Held back: nothing reached the server yet.
        let mut buf = [0u8; 256];
        let early = server.read(&mut buf);
        assert!(
            matches!(&early, Err(err) if err.kind() == io::ErrorKind::WouldBlock),
            "the head went out alone: {early:?}"
        );
        transmit(&mut tcp, b"body");
        server.set_nonblocking(false).expect("blocking");
        let read = server.read(&mut buf).expect("read");
        assert_eq!(
            &buf[..read],
            b"POST / HTTP/1.1\r\ncontent-length: 4\r\n\r\nbody",
            "one read gets head and body"
        );
    }

    #[test]
    fn held_output_is_sent_before_a_read() {
        let (mut tcp, mut server) = pair();
        transmit(&mut tcp, b"GET / HTTP/1.1\r\n\r\n");
        let echo = std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            let read = server.read(&mut buf).expect("read");
            server.write_all(&buf[..read]).expect("write");
            server
        });
        assert!(tcp
            .await_input(timeout(Duration::from_secs(10)))
            .expect("read"));
        assert_eq!(tcp.buffers().input(), b"GET / HTTP/1.1\r\n\r\n");
        drop(echo.join().expect("server"));
    }

    #[test]
    fn a_large_output_is_not_held() {
        let (mut tcp, mut server) = pair();
        let big = vec![b'x'; HOLD_AT_MOST + 1];
        let reader = std::thread::spawn(move || {
            let mut got = vec![0u8; HOLD_AT_MOST + 1];
            server.read_exact(&mut got).expect("read");
            got
        });
        transmit(&mut tcp, &big);
        assert_eq!(reader.join().expect("reader"), big);
    }

    #[test]
    fn calls_with_about_the_same_time_left_change_no_socket_timeout() {
        let (mut tcp, mut server) = pair();
        let echo = std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            for _ in 0..100 {
                let read = server.read(&mut buf).expect("read");
                server.write_all(&buf[..read]).expect("write");
            }
        });
        for _ in 0..100 {
            transmit(&mut tcp, b"ping");
            tcp.await_input(timeout(Duration::from_secs(10)))
                .expect("read");
            let got = tcp.buffers().input().len();
            tcp.buffers().input_consume(got);
        }
        echo.join().expect("server");
        // One change for writes, one for reads: not one per call.
        assert_eq!(tcp.timeout_changes(), 2);
    }

    #[test]
    fn a_read_ends_at_the_deadline_with_a_timeout() {
        let (mut tcp, _server) = pair();
        let start = Instant::now();
        let outcome = tcp.await_input(timeout(Duration::from_millis(150)));
        let took = start.elapsed();
        assert!(
            matches!(outcome, Err(ureq::Error::Timeout(Timeout::Global))),
            "{outcome:?}"
        );
        assert!(took >= Duration::from_millis(150), "ended early: {took:?}");
        assert!(took < Duration::from_secs(2), "ended late: {took:?}");
    }

    #[test]
    fn the_probe_tells_an_idle_connection_from_a_closed_or_chatty_one() {
        let (mut open, _server) = pair();
        assert!(open.is_open());
        assert!(
            open.is_open(),
            "the probe consumes nothing and changes nothing"
        );

        let (mut closed, server) = pair();
        drop(server);
        let deadline = Instant::now() + Duration::from_secs(5);
        while closed.is_open() {
            assert!(Instant::now() < deadline, "the close was never seen");
            std::thread::yield_now();
        }

        let (mut chatty, mut server) = pair();
        server.write_all(b"unasked").expect("write");
        let deadline = Instant::now() + Duration::from_secs(5);
        while chatty.is_open() {
            assert!(
                Instant::now() < deadline,
                "the unasked bytes were never seen"
            );
            std::thread::yield_now();
        }
        // The bytes are still there to read: the probe only peeked.
        assert!(chatty
            .await_input(timeout(Duration::from_secs(5)))
            .expect("read"));
        assert_eq!(chatty.buffers().input(), b"unasked");
    }

    #[test]
    fn a_new_connection_sends_keepalive_probes_and_no_nagle_delay() {
        let (tcp, _server) = pair();
        prepare(&tcp.stream, true).expect("prepare");
        let socket = socket2::SockRef::from(&*tcp.stream);
        assert!(tcp.stream.nodelay().expect("nodelay"));
        assert!(socket.keepalive().expect("keepalive"));
        #[cfg(target_os = "linux")]
        {
            assert_eq!(socket.tcp_keepalive_time().expect("time"), KEEPALIVE_IDLE);
            assert_eq!(
                socket.tcp_keepalive_interval().expect("interval"),
                KEEPALIVE_INTERVAL
            );
        }
    }

    #[test]
    fn a_socket_timeout_is_never_longer_than_the_time_left() {
        let mut timeout = SocketTimeout::default();
        let mut seen = Vec::new();
        for left in [10_000, 9_990, 9_000, 4_000, 2_000, 1_000, 3] {
            let left = Duration::from_millis(left);
            timeout
                .at_most(Some(left), |set| {
                    seen.push(set);
                    Ok(())
                })
                .expect("apply");
            let set = timeout.set.expect("a timeout");
            assert!(set <= left && set >= left / 4, "{set:?} for {left:?}");
        }
        // 10 s, 9.99 s and 9 s share 5 s; 4 s needs less (2 s), which 2 s keeps; 1 s
        // needs less again (0.5 s); 3 ms gets 1.5 ms.
        assert_eq!(
            seen,
            [5_000_000, 2_000_000, 500_000, 1_500]
                .map(|us| Some(Duration::from_micros(us)))
                .to_vec()
        );
    }
}
