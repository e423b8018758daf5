//! The doctor's reach of one line: its name lookup (which resolver, how long) and the TCP
//! connect to one address, each as a step. `lines.rs` (direct), `proxy.rs` (through a proxy)
//! and `handshake.rs` (TLS) build on these.

use std::io;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::hosts::Resolver;
use super::report::{Step, Verdict};
use super::stop::Stop;
use super::table::StepKind;
use crate::net::race::interleave;
use crate::options::Options;

/// At most this many addresses of one name are tried.
const MAX_ADDRESSES: usize = 4;
/// A lookup slower than this is reported as slow.
const SLOW_LOOKUP: Duration = Duration::from_millis(1000);

/// One base URL of the service, as the doctor probes it.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// `scheme://host:port`.
    pub(crate) label: String,
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) https: bool,
    pub(crate) loopback: bool,
}

/// Where a line's addresses come from.
fn resolver(line: &Line, options: &Options) -> (Option<Vec<IpAddr>>, Resolver) {
    if let Ok(ip) = line.host.parse::<IpAddr>() {
        return (Some(vec![ip]), Resolver::Literal);
    }
    let fixed: Vec<IpAddr> = options
        .addresses
        .iter()
        .filter(|(host, _)| *host == line.host)
        .map(|(_, ip)| *ip)
        .collect();
    if !fixed.is_empty() {
        return (Some(fixed), Resolver::Fixed);
    }
    (None, Resolver::system(&line.host))
}

/// The lookup step of a line, and the addresses to try (interleaved, at most
/// [`MAX_ADDRESSES`]).
pub(crate) fn look_up(
    line: &Line,
    options: &Options,
    stop: &Stop,
) -> (Step, Option<Vec<SocketAddr>>) {
    let started = Instant::now();
    let (known, resolver) = resolver(line, options);
    let source = resolver.words();
    let step = |verdict, key, message: String| {
        let step = Step::new(StepKind::Lookup, verdict, key, message)
            .line(&line.label)
            .detail("host", line.host.as_str())
            .detail("resolver", resolver.to_json());
        match &resolver {
            Resolver::HostsFile { path, addresses } => {
                step.detail("hosts_path", path.as_str()).detail(
                    "hosts_address",
                    addresses
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            }
            _ => step,
        }
    };
    let found = match known {
        Some(ips) => Ok(ips
            .into_iter()
            .map(|ip| SocketAddr::new(ip, line.port))
            .collect::<Vec<_>>()),
        None => resolve(&line.host, line.port, stop),
    };
    let took = started.elapsed();
    match found {
        Ok(addrs) if addrs.is_empty() => (
            step(
                Verdict::Fail,
                "lookup.not_found",
                format!("{} has no address ({source})", line.host),
            )
            .took(took),
            None,
        ),
        Ok(addrs) => {
            let mut addrs = interleave(addrs, None);
            let all = addrs.len();
            addrs.truncate(MAX_ADDRESSES);
            let listed: Vec<Value> = addrs.iter().map(|a| json!(a.ip().to_string())).collect();
            let hosts_file = matches!(resolver, Resolver::HostsFile { .. });
            let (verdict, key, message) = if hosts_file {
                // A licensing host in the hosts file: a warning while the service answers
                // through it, the cause when it does not (`diagnose/mod.rs`).
                (
                    Verdict::Warn,
                    "lookup.hosts_file",
                    format!(
                        "{} from {source}: the hosts file, not the name servers, sets the \
                         licensing server's address",
                        plural(all, "address", "addresses"),
                    ),
                )
            } else if took > SLOW_LOOKUP {
                (
                    Verdict::Warn,
                    "lookup.slow",
                    format!(
                        "{} found in {} ms from {source}: a slow name server delays every new \
                         connection (fixed addresses in the options avoid it)",
                        plural(all, "address", "addresses"),
                        took.as_millis()
                    ),
                )
            } else {
                (
                    Verdict::Pass,
                    "lookup.ok",
                    format!("{} from {source}", plural(all, "address", "addresses")),
                )
            };
            (
                step(verdict, key, message)
                    .took(took)
                    .detail("addresses", listed)
                    .detail("found", all)
                    .detail("took_ms", super::report::millis(took)),
                Some(addrs),
            )
        }
        Err(Lookup::NotFound(why)) => (
            step(
                Verdict::Fail,
                "lookup.not_found",
                format!(
                    "the name {} was not found by {source} ({why}): check the URL, or the \
                     network's name server",
                    line.host
                ),
            )
            .took(took),
            None,
        ),
        Err(Lookup::Cancelled) => (
            Step::new(StepKind::Lookup, Verdict::Skip, "cancelled", "cancelled")
                .line(&line.label)
                .took(took),
            None,
        ),
        Err(Lookup::TimedOut) => (
            step(
                Verdict::Fail,
                "lookup.timeout",
                format!(
                    "no answer from {source} for {} within {} ms: the name server is slow or \
                     unreachable (fixed addresses in the options avoid it)",
                    line.host,
                    took.as_millis()
                ),
            )
            .took(took),
            None,
        ),
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

enum Lookup {
    NotFound(String),
    TimedOut,
    Cancelled,
}

/// A system lookup on a thread of its own, waited for until the deadline or a cancel (a
/// lookup still under way then ends on its own).
fn resolve(host: &str, port: u16, stop: &Stop) -> Result<Vec<SocketAddr>, Lookup> {
    let (done, result) = mpsc::channel();
    let name = format!("{host}:{port}");
    let spawned = std::thread::Builder::new()
        .name("verify-doctor-lookup".into())
        .spawn(move || {
            let found = name
                .to_socket_addrs()
                .map(Iterator::collect::<Vec<_>>)
                .map_err(|err| err.to_string());
            let _ = done.send(found);
        });
    if let Err(err) = spawned {
        return Err(Lookup::NotFound(format!("cannot start a lookup: {err}")));
    }
    loop {
        if stop.cancelled() {
            return Err(Lookup::Cancelled);
        }
        let slice = stop.slice();
        if slice.is_zero() {
            return Err(Lookup::TimedOut);
        }
        match result.recv_timeout(slice) {
            Ok(Ok(addrs)) => return Ok(addrs),
            Ok(Err(why)) => return Err(Lookup::NotFound(why)),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Lookup::TimedOut),
        }
    }
}

/// The TCP connect step, and the stream when it connected (blocking, for the steps after
/// it). The connect is non-blocking, waited for in slices so that a cancel stops it.
pub(crate) fn connect(
    addr: SocketAddr,
    timeout: Duration,
    stop: &Stop,
) -> (Step, Option<TcpStream>) {
    let allowed = timeout.min(stop.remaining());
    if stop.cancelled() {
        return (
            Step::new(StepKind::Tcp, Verdict::Skip, "cancelled", "cancelled"),
            None,
        );
    }
    if allowed < Duration::from_millis(5) {
        return (
            Step::new(
                StepKind::Tcp,
                Verdict::Skip,
                "tcp.no_time",
                "not tried: the doctor's deadline ran out",
            ),
            None,
        );
    }
    let started = Instant::now();
    let result = connect_within(addr, started + allowed, stop);
    let took = started.elapsed();
    match result {
        Ok(stream) => (
            Step::new(StepKind::Tcp, Verdict::Pass, "tcp.ok", "connected").took(took),
            Some(stream),
        ),
        Err(err) if err.kind() == io::ErrorKind::Interrupted => (
            Step::new(StepKind::Tcp, Verdict::Skip, "cancelled", "cancelled").took(took),
            None,
        ),
        Err(err) => {
            let (key, message) = match err.kind() {
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => (
                    "tcp.timeout",
                    format!(
                        "no answer within {} ms: a firewall drops the packets, or the server \
                         is down",
                        took.as_millis()
                    ),
                ),
                io::ErrorKind::ConnectionRefused => (
                    "tcp.refused",
                    "connection refused: nothing listens on this port (wrong port, or the \
                     server is stopped)"
                        .to_owned(),
                ),
                io::ErrorKind::NetworkUnreachable
                | io::ErrorKind::HostUnreachable
                | io::ErrorKind::AddrNotAvailable => (
                    "tcp.unreachable",
                    format!("no route to this address ({err})"),
                ),
                _ => ("tcp.failed", format!("the connect failed: {err}")),
            };
            (
                Step::new(StepKind::Tcp, Verdict::Fail, key, message)
                    .took(took)
                    .detail("error", err.to_string()),
                None,
            )
        }
    }
}

/// A non-blocking connect to `addr`, waited for until `until` in slices; `Interrupted`
/// when cancelled, `TimedOut` at `until`. The stream comes back blocking.
fn connect_within(addr: SocketAddr, until: Instant, stop: &Stop) -> io::Result<TcpStream> {
    use mio::{Events, Interest, Poll, Token};
    let mut stream = mio::net::TcpStream::connect(addr)?;
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut stream, Token(0), Interest::WRITABLE)?;
    let mut events = Events::with_capacity(4);
    loop {
        if stop.cancelled() {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        match poll.poll(&mut events, Some(left.min(super::stop::SLICE))) {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        }
        if events.is_empty() {
            continue;
        }
        if let Some(err) = stream.take_error()? {
            return Err(err);
        }
        match stream.peer_addr() {
            Ok(_) => {
                poll.registry().deregister(&mut stream)?;
                let stream = TcpStream::from(stream);
                stream.set_nonblocking(false)?;
                return Ok(stream);
            }
            Err(err)
                if err.kind() == io::ErrorKind::NotConnected
                    || err.raw_os_error() == Some(libc_einprogress()) => {}
            Err(err) => return Err(err),
        }
    }
}

/// `EINPROGRESS`, which `peer_addr` may give while a connect is under way.
fn libc_einprogress() -> i32 {
    #[cfg(unix)]
    {
        libc::EINPROGRESS
    }
    #[cfg(not(unix))]
    {
        10036 // WSAEINPROGRESS
    }
}
