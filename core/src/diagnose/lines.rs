//! The doctor's network steps, per line (base URL) and per address: the name lookup, the
//! TCP connect, the proxy, the TLS handshake. Blocking sockets with timeouts cut to the
//! doctor's deadline; nothing is written to a connection but a proxy's `CONNECT` (or a
//! SOCKS greeting) and the TLS handshake, and every connection is closed at the end.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::ClientConnection;
use serde_json::{json, Value};

use super::cert;
use super::report::{rfc3339_of, span, Step, StepKind, Verdict};
use crate::deadline::Deadline;
use crate::options::{without_credentials, Options, ProxyChoice};
use crate::race::interleave;
use crate::tls::{PinMismatch, Seen, SelfSigned, Trust};

/// At most this many addresses of one name are tried.
const MAX_ADDRESSES: usize = 4;
/// A lookup slower than this is reported as slow.
const SLOW_LOOKUP: Duration = Duration::from_millis(1000);
/// A certificate that ends within this is reported.
const EXPIRES_SOON: i64 = 14 * 86_400;

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

/// The proxy the client would use, when there is one.
pub(crate) struct ProxyPlan {
    proxy: ureq::Proxy,
    /// `scheme://host:port`, no credentials.
    label: String,
    from_system: bool,
}

impl ProxyPlan {
    /// The proxy of `options` (`None`: no proxy, or a URL that does not parse, which the
    /// options step reports).
    pub(crate) fn of(options: &Options) -> Option<ProxyPlan> {
        match &options.proxy {
            ProxyChoice::None => None,
            ProxyChoice::System => ureq::Proxy::try_from_env().map(|proxy| ProxyPlan {
                label: format!("{}:{}", proxy.host(), proxy.port()),
                proxy,
                from_system: true,
            }),
            ProxyChoice::Url(url) => ureq::Proxy::new(url).ok().map(|proxy| ProxyPlan {
                proxy,
                label: without_credentials(url),
                from_system: false,
            }),
        }
    }

    /// Whether `line` goes through it (loopback never does, nor a `NO_PROXY` host).
    fn takes(&self, line: &Line) -> bool {
        if line.loopback {
            return false;
        }
        match ureq::http::Uri::try_from(line.label.as_str()) {
            Ok(uri) => !self.proxy.is_no_proxy(&uri),
            Err(_) => true,
        }
    }

    /// The proxy's password, to redact.
    pub(crate) fn secrets(&self) -> Vec<String> {
        self.proxy
            .password()
            .map(str::to_owned)
            .into_iter()
            .collect()
    }
}

/// The steps of every line, the lines probed at once (each bounded by `deadline`).
pub(crate) fn probe(
    lines: &[Line],
    options: &Options,
    proxy: Option<&ProxyPlan>,
    deadline: Deadline,
) -> Vec<Step> {
    let trust = &options.trust;
    let tls = trust.config_seen(true, None).ok();
    std::thread::scope(|scope| {
        let probes: Vec<_> = lines
            .iter()
            .map(|line| {
                let tls = tls.clone();
                scope.spawn(move || match proxy.filter(|p| p.takes(line)) {
                    Some(proxy) => through_proxy(line, proxy, options, deadline),
                    None => direct(line, options, tls.is_some(), deadline),
                })
            })
            .collect();
        probes
            .into_iter()
            .zip(lines)
            .flat_map(|(probe, line)| {
                probe.join().unwrap_or_else(|_| {
                    vec![Step::new(
                        StepKind::Tcp,
                        Verdict::Fail,
                        "internal",
                        "the probe of this line stopped on an internal error",
                    )
                    .line(&line.label)]
                })
            })
            .collect()
    })
}

/// A line without a proxy: the lookup, then each address's TCP connect and TLS handshake.
fn direct(line: &Line, options: &Options, tls_usable: bool, deadline: Deadline) -> Vec<Step> {
    let (lookup, addrs) = look_up(line, options, deadline);
    let mut steps = vec![lookup];
    let Some(addrs) = addrs else {
        return steps;
    };
    let probes: Vec<Vec<Step>> = std::thread::scope(|scope| {
        let running: Vec<_> = addrs
            .iter()
            .map(|addr| scope.spawn(move || one_address(line, *addr, options, deadline)))
            .collect();
        running
            .into_iter()
            .map(|probe| probe.join().unwrap_or_default())
            .collect()
    });
    // An address that failed while another one of the line connected is a warning: the
    // client's racing takes the one that works.
    let good = probes
        .iter()
        .any(|steps| steps.iter().all(|s| s.verdict != Verdict::Fail));
    for mut address in probes {
        if good {
            for step in &mut address {
                if step.verdict == Verdict::Fail {
                    step.verdict = Verdict::Warn;
                    step.message
                        .push_str(" (another address of this line works)");
                }
            }
        }
        steps.extend(address);
    }
    if line.https && !tls_usable {
        steps.push(
            Step::new(
                StepKind::Tls,
                Verdict::Fail,
                "tls.no_trust",
                "no TLS configuration can be made from the trust options",
            )
            .line(&line.label),
        );
    }
    steps
}

/// The TCP connect and, for https, the TLS handshake with one address.
fn one_address(line: &Line, addr: SocketAddr, options: &Options, deadline: Deadline) -> Vec<Step> {
    let (tcp, stream) = connect(addr, options.connect_timeout, deadline);
    let mut steps = vec![tcp.line(&line.label).address(addr)];
    if let (Some(stream), true) = (stream, line.https) {
        steps.push(
            handshake(line, stream, &options.trust, deadline)
                .line(&line.label)
                .address(addr),
        );
    }
    steps
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
fn look_up(line: &Line, options: &Options, deadline: Deadline) -> (Step, Option<Vec<SocketAddr>>) {
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
fn connect(addr: SocketAddr, timeout: Duration, deadline: Deadline) -> (Step, Option<TcpStream>) {
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

/// The TLS step over a connected stream: the client's own trust and pins, and what the
/// server showed (protocol, chain, validity), even when it is refused.
fn handshake(line: &Line, mut stream: TcpStream, trust: &Trust, deadline: Deadline) -> Step {
    let started = Instant::now();
    let seen: Seen = Arc::default();
    let fail = |key, message: String| Step::new(StepKind::Tls, Verdict::Fail, key, message);
    let config = match trust.config_seen(true, Some(Arc::clone(&seen))) {
        Ok(config) => config,
        Err(err) => return fail("tls.no_trust", err.message().to_owned()),
    };
    let Ok(name) = ServerName::try_from(line.host.clone()) else {
        return fail(
            "tls.bad_name",
            format!("{} is not a valid TLS server name", line.host),
        );
    };
    let mut connection = match ClientConnection::new(config, name) {
        Ok(connection) => connection,
        Err(err) => return fail("tls.refused", crate::tls::refusal(&err).1),
    };
    let outcome = drive(&mut connection, &mut stream, deadline);
    let took = started.elapsed();
    let chain: Vec<cert::CertFacts> = seen
        .lock()
        .map(|chain| chain.iter().filter_map(|c| cert::facts(c)).collect())
        .unwrap_or_default();
    let pinned = seen
        .lock()
        .map(|chain| chain.iter().position(|c| trust.pins_key_of(c)))
        .unwrap_or(None);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let mut step = match outcome {
        Ok(()) => passed(&connection, &chain, pinned, trust.pin_count()),
        Err(Shake::Tls(err)) => {
            let (_, words) = crate::tls::refusal(&err);
            fail(tls_key(&err), words)
        }
        Err(Shake::TimedOut) => fail(
            "tls.timeout",
            format!(
                "the server accepted the connection but did not finish the TLS handshake \
                 within {} ms (is it a TLS server? a middlebox holding it?)",
                took.as_millis()
            ),
        ),
        Err(Shake::Closed(err)) => fail(
            "tls.closed",
            format!(
                "the server closed the connection during the TLS handshake ({err}): a \
                 filter, or a server that does not speak TLS on this port"
            ),
        ),
    };
    step = step.took(took).detail(
        "chain",
        chain
            .iter()
            .map(|c| {
                json!({
                    "subject": c.subject,
                    "issuer": c.issuer,
                    "not_before": rfc3339_of(c.not_before),
                    "not_after": rfc3339_of(c.not_after),
                })
            })
            .collect::<Vec<_>>(),
    );
    step.detail("pins", trust.pin_count())
}

/// The step of a finished handshake.
fn passed(
    connection: &ClientConnection,
    chain: &[cert::CertFacts],
    pinned: Option<usize>,
    pins: usize,
) -> Step {
    let protocol = match connection.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLS 1.3".to_owned(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLS 1.2".to_owned(),
        Some(other) => format!("{other:?}"),
        None => "TLS".to_owned(),
    };
    let pin_words = match (pins, pinned) {
        (0, _) => "no pins set".to_owned(),
        (_, Some(0)) => "the server's own key is pinned".to_owned(),
        (_, Some(at)) => format!("the key of certificate {} of the chain is pinned", at + 1),
        (_, None) => "a pinned key matched".to_owned(),
    };
    let now = crate::diagnose::unix_now();
    let (verdict, key, words) = match chain.first() {
        Some(leaf) => {
            let left = leaf.not_after.saturating_sub(now);
            let verdict = if left < EXPIRES_SOON {
                (Verdict::Warn, "tls.expires_soon")
            } else {
                (Verdict::Pass, "tls.ok")
            };
            (
                verdict.0,
                verdict.1,
                format!(
                    "{protocol}; certificate {} issued by {}, valid until {} ({} left); {pin_words}",
                    leaf.subject,
                    leaf.issuer,
                    rfc3339_of(leaf.not_after),
                    span(left)
                ),
            )
        }
        None => (Verdict::Pass, "tls.ok", format!("{protocol}; {pin_words}")),
    };
    Step::new(StepKind::Tls, verdict, key, words)
        .detail("protocol", protocol)
        // A finished handshake with pins set means one matched.
        .detail(
            "pin_matched",
            if pins == 0 { Value::Null } else { json!(true) },
        )
        .detail("pinned_certificate", pinned.map(|at| at + 1))
}

/// The key of a TLS refusal.
#[allow(deprecated)] // rustls still reports the variants it deprecated
fn tls_key(err: &rustls::Error) -> &'static str {
    use rustls::CertificateError as Cert;
    let rustls::Error::InvalidCertificate(cert) = err else {
        return "tls.refused";
    };
    match cert {
        Cert::Other(other) if other.0.downcast_ref::<PinMismatch>().is_some() => "tls.pin_mismatch",
        Cert::Other(other) if other.0.downcast_ref::<SelfSigned>().is_some() => "tls.self_signed",
        Cert::Other(other)
            if matches!(
                other.0.downcast_ref::<webpki::Error>(),
                Some(webpki::Error::CaUsedAsEndEntity)
            ) =>
        {
            "tls.self_signed"
        }
        Cert::Expired | Cert::ExpiredContext { .. } => "tls.expired",
        Cert::NotValidYet | Cert::NotValidYetContext { .. } => "tls.not_yet_valid",
        Cert::UnknownIssuer => "tls.unknown_issuer",
        Cert::NotValidForName | Cert::NotValidForNameContext { .. } => "tls.wrong_name",
        _ => "tls.refused",
    }
}

enum Shake {
    Tls(rustls::Error),
    TimedOut,
    Closed(io::Error),
}

/// Runs a handshake on a blocking socket, every read and write bounded by `deadline`.
fn drive(
    connection: &mut ClientConnection,
    stream: &mut TcpStream,
    deadline: Deadline,
) -> Result<(), Shake> {
    let timed_out = |err: &io::Error| {
        matches!(
            err.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        )
    };
    loop {
        let left = deadline.remaining();
        if left < Duration::from_millis(1) {
            return Err(Shake::TimedOut);
        }
        let _ = stream.set_read_timeout(Some(left));
        let _ = stream.set_write_timeout(Some(left));
        while connection.wants_write() {
            match connection.write_tls(stream) {
                Ok(_) => {}
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if timed_out(&err) => return Err(Shake::TimedOut),
                Err(err) => return Err(Shake::Closed(err)),
            }
        }
        if !connection.is_handshaking() {
            return Ok(());
        }
        match connection.read_tls(stream) {
            Ok(0) => {
                return Err(Shake::Closed(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "end of stream",
                )))
            }
            Ok(_) => {
                if let Err(err) = connection.process_new_packets() {
                    // Tell the server why (the alert), as the client does.
                    let _ = connection.write_tls(stream);
                    return Err(Shake::Tls(err));
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) if timed_out(&err) => return Err(Shake::TimedOut),
            Err(err) => return Err(Shake::Closed(err)),
        }
    }
}

/// A line through the proxy: the proxy's lookup and connect, its answer to a tunnel (or a
/// SOCKS greeting), then TLS through the tunnel for https.
fn through_proxy(
    line: &Line,
    plan: &ProxyPlan,
    options: &Options,
    deadline: Deadline,
) -> Vec<Step> {
    let proxy = &plan.proxy;
    let origin = if plan.from_system {
        format!("{} (from the system settings)", plan.label)
    } else {
        plan.label.clone()
    };
    let proxy_line = Line {
        label: plan.label.clone(),
        host: proxy.host().to_owned(),
        port: proxy.port(),
        https: false,
        loopback: false,
    };
    let mut steps = vec![Step::new(
        StepKind::Lookup,
        Verdict::Skip,
        "lookup.by_proxy",
        format!(
            "the name {} is looked up through the proxy {origin}",
            line.host
        ),
    )
    .line(&line.label)];
    let (lookup, addrs) = look_up(&proxy_line, options, deadline);
    let fail = |key, message: String| {
        Step::new(StepKind::Proxy, Verdict::Fail, key, message)
            .line(&line.label)
            .detail("proxy", plan.label.as_str())
    };
    let Some(addr) = addrs.and_then(|a| a.first().copied()) else {
        steps.push(fail(
            "proxy.not_found",
            format!("the proxy {origin} cannot be found: {}", lookup.message),
        ));
        return steps;
    };
    let started = Instant::now();
    let (tcp, stream) = connect(addr, options.connect_timeout, deadline);
    let Some(mut stream) = stream else {
        steps.push(
            fail(
                "proxy.unreachable",
                format!("the proxy {origin} cannot be reached: {}", tcp.message),
            )
            .address(addr)
            .took(started.elapsed()),
        );
        return steps;
    };
    let answer = match proxy.protocol() {
        ureq::ProxyProtocol::Http => tunnel(&mut stream, line, proxy, deadline),
        ureq::ProxyProtocol::Socks5 | ureq::ProxyProtocol::Socks5h => {
            socks_greeting(&mut stream, proxy, deadline).map(|_| false)
        }
        _ => Ok(false),
    };
    let took = started.elapsed();
    match answer {
        Ok(tunnelled) => {
            steps.push(
                Step::new(
                    StepKind::Proxy,
                    Verdict::Pass,
                    "proxy.ok",
                    if tunnelled {
                        format!("the proxy {origin} opened a tunnel to {}", line.label)
                    } else {
                        format!("the proxy {origin} answered")
                    },
                )
                .line(&line.label)
                .address(addr)
                .took(took)
                .detail("proxy", plan.label.as_str()),
            );
            if tunnelled && line.https {
                steps.push(
                    handshake(line, stream, &options.trust, deadline)
                        .line(&line.label)
                        .detail("through", plan.label.as_str()),
                );
            } else if line.https {
                steps.push(
                    Step::new(
                        StepKind::Tls,
                        Verdict::Skip,
                        "tls.by_init",
                        "TLS through this proxy is checked by Init",
                    )
                    .line(&line.label),
                );
            }
        }
        Err((key, why)) => steps.push(
            fail(key, format!("the proxy {origin} {why}"))
                .address(addr)
                .took(took),
        ),
    }
    steps
}

/// Asks an http proxy for a tunnel to `line`: `Ok(true)` when it opened one.
fn tunnel(
    stream: &mut TcpStream,
    line: &Line,
    proxy: &ureq::Proxy,
    deadline: Deadline,
) -> Result<bool, (&'static str, String)> {
    use base64::Engine;
    let authority = if line.host.contains(':') {
        format!("[{}]:{}", line.host, line.port)
    } else {
        format!("{}:{}", line.host, line.port)
    };
    let mut request = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
    if let Some(user) = proxy.username() {
        let pair = format!("{user}:{}", proxy.password().unwrap_or(""));
        let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
        request.push_str(&format!("Proxy-Authorization: Basic {encoded}\r\n"));
    }
    request.push_str("\r\n");
    let left = deadline.remaining().max(Duration::from_millis(1));
    let _ = stream.set_read_timeout(Some(left));
    let _ = stream.set_write_timeout(Some(left));
    stream
        .write_all(request.as_bytes())
        .map_err(|err| ("proxy.closed", format!("closed the connection ({err})")))?;
    // The head, byte by byte up to its end: what follows belongs to TLS.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
        match stream.read(&mut byte) {
            Ok(0) => break,
            Ok(_) => head.push(byte[0]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => {
                return Err(match err.kind() {
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => (
                        "proxy.timeout",
                        "did not answer the tunnel request in time".to_owned(),
                    ),
                    _ => ("proxy.closed", format!("closed the connection ({err})")),
                })
            }
        }
    }
    let status_line = String::from_utf8_lossy(&head)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned();
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    match status {
        200..=299 => Ok(true),
        407 => Err((
            "proxy.auth",
            "requires authentication (407): check its user and password".to_owned(),
        )),
        0 => Err((
            "proxy.closed",
            "closed the connection without answering the tunnel request".to_owned(),
        )),
        _ => Err((
            "proxy.refused",
            format!("refused the tunnel to {authority}: {status_line}"),
        )),
    }
}

/// Sends a SOCKS5 greeting and reads the proxy's choice of method.
fn socks_greeting(
    stream: &mut TcpStream,
    proxy: &ureq::Proxy,
    deadline: Deadline,
) -> Result<(), (&'static str, String)> {
    let left = deadline.remaining().max(Duration::from_millis(1));
    let _ = stream.set_read_timeout(Some(left));
    let _ = stream.set_write_timeout(Some(left));
    let greeting: &[u8] = if proxy.username().is_some() {
        &[5, 2, 0, 2]
    } else {
        &[5, 1, 0]
    };
    let mut answer = [0u8; 2];
    stream
        .write_all(greeting)
        .and_then(|()| stream.read_exact(&mut answer))
        .map_err(|err| ("proxy.closed", format!("did not answer as SOCKS5 ({err})")))?;
    match answer {
        [5, 0xff] => Err((
            "proxy.auth",
            "accepts none of the offered SOCKS5 methods: it wants credentials".to_owned(),
        )),
        [5, _] => Ok(()),
        _ => Err((
            "proxy.refused",
            "is not a SOCKS5 proxy (its answer is not SOCKS5)".to_owned(),
        )),
    }
}
