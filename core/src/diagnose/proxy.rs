//! The doctor's proxy step: the proxy the client would use (given, or the system's), found
//! and reached, and its answer to a tunnel request (http `CONNECT`) or a SOCKS5 greeting;
//! then TLS through the tunnel for https.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::handshake::handshake;
use super::reach::{connect, look_up, Line};
use super::report::{Step, StepKind, Verdict};
use crate::net::proxy::{without_credentials, ProxyChoice};
use crate::options::Options;
use crate::util::deadline::Deadline;

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
    pub(crate) fn takes(&self, line: &Line) -> bool {
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

/// A line through the proxy: the proxy's lookup and connect, its answer to a tunnel (or a
/// SOCKS greeting), then TLS through the tunnel for https.
pub(crate) fn through_proxy(
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
