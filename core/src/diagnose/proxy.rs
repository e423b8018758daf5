//! The doctor's proxy step: the proxy the client would use (given, or the system's) and
//! where that setting came from (the options, a variable, the Windows registry), found and
//! reached, and its answer to a tunnel request (http `CONNECT`) or a SOCKS5 greeting; then
//! TLS through the tunnel for https. A proxy auto-config script of the system (Windows'
//! `AutoConfigURL`), which the client does not read, is named.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::handshake::{handshake, Path};
use super::reach::{connect, look_up, Line};
use super::report::{Step, Verdict};
use super::stop::Stop;
use super::table::StepKind;
use crate::net::proxy::{without_credentials, ProxyChoice};
use crate::options::Options;

/// The environment variables of the system's proxy, in the order the client reads them.
const PROXY_VARIABLES: [&str; 6] = [
    "ALL_PROXY",
    "all_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
];

/// The proxy the client would use, when there is one.
pub(crate) struct ProxyPlan {
    proxy: ureq::Proxy,
    /// `scheme://host:port`, no credentials.
    label: String,
    /// Where the setting came from, in words: `the options`, `the variable HTTPS_PROXY`,
    /// `the Windows registry (Internet Settings)`.
    source: String,
    /// The same as a token for the report's details and sentences: `options`, the
    /// variable's name, `registry`.
    setting: String,
}

/// Where the system's proxy setting comes from, in words and as a token: the first proxy
/// variable that is set, else (on Windows) the registry's Internet Settings.
fn system_source() -> (String, String) {
    PROXY_VARIABLES
        .iter()
        .find(|name| std::env::var(name).is_ok_and(|value| !value.is_empty()))
        .map_or_else(
            || {
                (
                    "the Windows registry (Internet Settings)".to_owned(),
                    "registry".to_owned(),
                )
            },
            |name| (format!("the variable {name}"), (*name).to_owned()),
        )
}

/// The proxy auto-config script the system names (Windows' `AutoConfigURL` of the user's
/// Internet Settings), which the client does not read.
pub(crate) fn auto_config() -> Option<String> {
    #[cfg(windows)]
    {
        use winreg::enums::HKEY_CURRENT_USER;
        let settings = winreg::RegKey::predef(HKEY_CURRENT_USER)
            .open_subkey("Software\\Microsoft\\Windows\\CurrentVersion\\Internet Settings")
            .ok()?;
        settings
            .get_value::<String, _>("AutoConfigURL")
            .ok()
            .filter(|url| !url.is_empty())
    }
    #[cfg(not(windows))]
    {
        None
    }
}

impl ProxyPlan {
    /// The proxy of `options` (`None`: no proxy, or a URL that does not parse, which the
    /// options step reports).
    pub(crate) fn of(options: &Options) -> Option<ProxyPlan> {
        match &options.proxy {
            ProxyChoice::None => None,
            ProxyChoice::System => ureq::Proxy::try_from_env().map(|proxy| {
                let (source, setting) = system_source();
                ProxyPlan {
                    label: format!("{}:{}", proxy.host(), proxy.port()),
                    proxy,
                    source,
                    setting,
                }
            }),
            ProxyChoice::Url(url) => ureq::Proxy::new(url).ok().map(|proxy| ProxyPlan {
                proxy,
                label: without_credentials(url),
                source: "the options".to_owned(),
                setting: "options".to_owned(),
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
    stop: &Stop,
) -> Vec<Step> {
    let proxy = &plan.proxy;
    let origin = format!("{} (from {})", plan.label, plan.source);
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
    let (lookup, addrs) = look_up(&proxy_line, options, stop);
    let fail = |key, message: String| {
        Step::new(StepKind::Proxy, Verdict::Fail, key, message)
            .line(&line.label)
            .detail("proxy", plan.label.as_str())
            .detail("proxy_source", plan.setting.as_str())
    };
    let Some(addr) = addrs.and_then(|a| a.first().copied()) else {
        steps.push(fail(
            "proxy.not_found",
            format!("the proxy {origin} cannot be found: {}", lookup.message),
        ));
        return steps;
    };
    let started = Instant::now();
    let (tcp, stream) = connect(addr, options.connect_timeout, stop);
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
        ureq::ProxyProtocol::Http => tunnel(&mut stream, line, proxy, stop),
        ureq::ProxyProtocol::Socks5 | ureq::ProxyProtocol::Socks5h => {
            socks_greeting(&mut stream, proxy, stop).map(|_| false)
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
                .detail("proxy", plan.label.as_str())
                .detail("proxy_source", plan.setting.as_str()),
            );
            if tunnelled && line.https {
                steps.push(
                    handshake(line, stream, &options.trust, Path::Tunnel, stop)
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
        Err(("cancelled", _)) => steps.push(
            Step::new(StepKind::Proxy, Verdict::Skip, "cancelled", "cancelled")
                .line(&line.label)
                .took(took),
        ),
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
    stop: &Stop,
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
    let left = stop.remaining().max(Duration::from_millis(1));
    let _ = stream.set_write_timeout(Some(left));
    stream
        .write_all(request.as_bytes())
        .map_err(|err| ("proxy.closed", format!("closed the connection ({err})")))?;
    // The head, byte by byte up to its end: what follows belongs to TLS.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
        wait_slice(stream, stop)?;
        match stream.read(&mut byte) {
            Ok(0) => break,
            Ok(_) => head.push(byte[0]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                ) => {}
            Err(err) => return Err(("proxy.closed", format!("closed the connection ({err})"))),
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
    stop: &Stop,
) -> Result<(), (&'static str, String)> {
    let left = stop.remaining().max(Duration::from_millis(1));
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

/// Sets the next read's timeout to a slice of the time left; the proxy's failure to
/// answer in time, or a cancel (reported as `cancelled`), when nothing is left.
fn wait_slice(stream: &TcpStream, stop: &Stop) -> Result<(), (&'static str, String)> {
    if stop.cancelled() {
        return Err(("cancelled", "cancelled".to_owned()));
    }
    let slice = stop.slice();
    if slice.is_zero() {
        return Err((
            "proxy.timeout",
            "did not answer the tunnel request in time".to_owned(),
        ));
    }
    let _ = stream.set_read_timeout(Some(slice));
    Ok(())
}
