//! The doctor's reach of one line: its name lookup (which resolver, how long) and the TCP
//! connect to one address, each as a step. `lines.rs` (direct), `proxy.rs` (through a proxy)
//! and `handshake.rs` (TLS) build on these.

use std::io;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::report::{Step, StepKind, Verdict};
use crate::net::race::interleave;
use crate::options::Options;
use crate::util::deadline::Deadline;

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
fn resolver(line: &Line, options: &Options) -> (Option<Vec<IpAddr>>, String) {
    if let Ok(ip) = line.host.parse::<IpAddr>() {
        return (Some(vec![ip]), "an address, no lookup".to_owned());
    }
    let fixed: Vec<IpAddr> = options
        .addresses
        .iter()
        .filter(|(host, _)| *host == line.host)
        .map(|(_, ip)| *ip)
        .collect();
    if !fixed.is_empty() {
        return (Some(fixed), "fixed addresses of the options".to_owned());
    }
    (None, system_resolver())
}

/// The system resolver, with its name servers where they are known.
fn system_resolver() -> String {
    #[cfg(unix)]
    {
        let servers: Vec<String> = std::fs::read_to_string("/etc/resolv.conf")
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("nameserver"))
                    .then(|| words.next().map(str::to_owned))
                    .flatten()
            })
            .collect();
        if !servers.is_empty() {
            return format!(
                "the system resolver (name servers {} in /etc/resolv.conf)",
                servers.join(", ")
            );
        }
    }
    "the system resolver".to_owned()
}

/// The lookup step of a line, and the addresses to try (interleaved, at most
/// [`MAX_ADDRESSES`]).
pub(crate) fn look_up(
    line: &Line,
    options: &Options,
    deadline: Deadline,
) -> (Step, Option<Vec<SocketAddr>>) {
    let started = Instant::now();
    let (known, source) = resolver(line, options);
    let step = |verdict, key, message: String| {
        Step::new(StepKind::Lookup, verdict, key, message)
            .line(&line.label)
            .detail("host", line.host.as_str())
            .detail("resolver", source.as_str())
    };
    let found = match known {
        Some(ips) => Ok(ips
            .into_iter()
            .map(|ip| SocketAddr::new(ip, line.port))
            .collect::<Vec<_>>()),
        None => resolve(&line.host, line.port, deadline),
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
            let (verdict, key, message) = if took > SLOW_LOOKUP {
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
                    .detail("found", all),
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
}

/// A system lookup on a thread of its own, waited for until `deadline` (a lookup still
/// under way then ends on its own).
fn resolve(host: &str, port: u16, deadline: Deadline) -> Result<Vec<SocketAddr>, Lookup> {
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
    match result.recv_timeout(deadline.remaining()) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(why)) => Err(Lookup::NotFound(why)),
        Err(_) => Err(Lookup::TimedOut),
    }
}

/// The TCP connect step, and the stream when it connected.
pub(crate) fn connect(
    addr: SocketAddr,
    timeout: Duration,
    deadline: Deadline,
) -> (Step, Option<TcpStream>) {
    let allowed = timeout.min(deadline.remaining());
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
    let result = TcpStream::connect_timeout(&addr, allowed);
    let took = started.elapsed();
    match result {
        Ok(stream) => (
            Step::new(StepKind::Tcp, Verdict::Pass, "tcp.ok", "connected").took(took),
            Some(stream),
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
