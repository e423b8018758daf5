//! One form POST: the HTTP agent, timeouts, the body cap, the `Date` header.
//!
//! Replies of every HTTP status are read as the service's JSON (the service may answer a
//! refusal with any status). Connections are kept alive and reused by one [`Transport`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use std::sync::{Mutex, PoisonError, Weak};

use ureq::unversioned::transport::{
    Buffers, ConnectProxyConnector, ConnectionDetails, Connector, NextTimeout, ShutdownHandle,
    SocksConnector,
};

use crate::cancel::{CancelToken, Cancelled};
use crate::error::{Error, ErrorKind};
use crate::log::{log, LogHook, LogLevel};
use crate::net::connect::{ConnectedElsewhere, Lines, NoneConnected, Origin, RaceConnector};
use crate::net::proxy::{without_credentials, ProxyChoice};
use crate::net::resolve::{CachingResolver, Names};
use crate::net::tls::TlsConnector;
use crate::net::trust::Trust;
use crate::state::Sealed;
use crate::util::deadline::Deadline;
use crate::util::process::Born;
use crate::util::wiped::Wiped;

pub use ureq::http::{HeaderValue, Uri};

/// `bytes` in a shared buffer that is wiped when its last user drops it. A [`Uri`] or a
/// [`HeaderValue`] made from it (`from_maybe_shared`) slices it instead of copying it, and so
/// do the clones ureq keeps (the response's `ResponseUri`): a URL or header holding the
/// session secret leaves no copy behind (SECURITY.md).
pub(crate) fn wiped_shared(bytes: &[u8]) -> bytes::Bytes {
    bytes::Bytes::from_owner(Wiped::new(bytes.to_vec()))
}

/// Default time allowed to connect (TCP and TLS): 10 seconds.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time allowed for a whole host call (lazy Init, re-Init, connects and resends
/// included): 30 seconds.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// What the connection code takes from a client's options ([`crate::Options`]).
pub(crate) struct Choices<'a> {
    pub(crate) trust: &'a Trust,
    pub(crate) proxy: &'a ProxyChoice,
    /// Fixed addresses of host names.
    pub(crate) addresses: &'a [(String, std::net::IpAddr)],
    pub(crate) attempt_delay: Duration,
    pub(crate) remembered_addresses_max_age: Duration,
    pub(crate) log: Option<LogHook>,
}

/// Replies larger than this are refused as a protocol error.
pub const MAX_REPLY_BYTES: u64 = 1 << 20;

/// Idle connections kept open per transport (one per thread that shares a client).
const MAX_IDLE_CONNECTIONS: usize = 32;

/// Size of each connection's input and output buffers (ureq's default is 128 KiB each,
/// zero-filled on the first request of every connection: a large share of a cold start's
/// instructions and page faults; BENCHMARKS.md has the figures). Bodies stream through them.
const CONNECTION_BUFFER: usize = 16 * 1024;

/// The largest reply head (status line and headers) accepted: a head of the service is a
/// few hundred bytes, and nginx in front of a server passes at most 4 or 8 KiB
/// (`proxy_buffer_size`). Below the input buffer, so that a longer head is reported as such.
const MAX_REPLY_HEAD: usize = 8 * 1024;

/// How long an idle connection is kept for reuse: longer than the keeper's default
/// heartbeat interval (300 s and its jitter of at most 10 s), so that a kept session uses
/// one connection as long as the server keeps it open (ureq's default is 15 s).
const MAX_IDLE_AGE: Duration = Duration::from_secs(10 * 60);

/// No attempt is started with less time than this left: the call has timed out.
const MIN_ATTEMPT: Duration = Duration::from_millis(5);

/// A request that starts within this of its call's start gets the whole call timeout.
const FRESH_SLACK: Duration = Duration::from_millis(20);

/// What came back from one POST.
#[derive(Debug)]
pub struct HttpReply {
    /// The HTTP status (the service's code is in the body).
    pub status: u16,
    /// The `Date` header, when present (parsed only when needed: [`HttpReply::date`]).
    pub date: Option<String>,
    /// The `Location` header of a redirect (3xx), with its path and query left out: they
    /// may hold the session secret. Redirects are not followed.
    pub location: Option<String>,
    /// The body, at most [`MAX_REPLY_BYTES`]; wiped when dropped (it may hold a token or,
    /// for Init, the session secret).
    pub body: Wiped<Vec<u8>>,
    /// The reply's headers (moved out of the response, not copied): what a reply that is
    /// not the service's showed is read from them (`client/body.rs`).
    pub headers: ureq::http::HeaderMap,
}

impl SendError {
    /// A failure that `maybe_delivered` the request, after which another server may help
    /// when `unreachable`.
    pub(crate) fn new(error: Error, maybe_delivered: bool, unreachable: bool) -> SendError {
        SendError {
            error,
            maybe_delivered,
            unreachable,
            elsewhere: None,
        }
    }

    /// Whether sending the request again may help and is safe: only after a network failure
    /// or a timeout (a reply that breaks the protocol would break it again), and, when the
    /// request may have been delivered, only if sending it twice is harmless; never when
    /// another server won the connection (the request goes there instead).
    pub fn worth_resending(&self, repeatable: bool) -> bool {
        self.elsewhere.is_none()
            && matches!(self.error.kind(), ErrorKind::Network | ErrorKind::Timeout)
            && (!self.maybe_delivered || repeatable)
    }
}

impl HttpReply {
    /// The `Date` header as a time, when present and well formed.
    pub fn date(&self) -> Option<SystemTime> {
        self.date
            .as_deref()
            .and_then(|text| httpdate::parse_http_date(text).ok())
    }
}

/// A failed POST, with whether the request may have reached the server.
#[derive(Debug)]
pub struct SendError {
    /// The failure, as the caller will report it.
    pub error: Error,
    /// `false` when the request surely did not reach the server (resolve or connect
    /// failure): then it is safe to send it again whatever the action.
    pub maybe_delivered: bool,
    /// The server could not be reached (DNS, connect or TLS failure): another server of the
    /// service (a mirror) may help.
    pub unreachable: bool,
    /// Another server of the service (this base URL's origin, `scheme://host:port`) won the
    /// race for the new connection: nothing was sent; the request goes there, after an Init
    /// there.
    pub elsewhere: Option<String>,
}

/// What a transport is made of.
pub(crate) struct Settings {
    tls: TlsConnector,
    /// Fixed and resolved host names, shared by the client's agents (direct and proxied).
    names: Arc<Names>,
    /// The racing connections of the direct agent.
    lines: Arc<Lines>,
    proxy: Option<ureq::Proxy>,
    /// The proxy as it may be shown: `scheme://host:port`, no credentials.
    proxy_label: String,
    log: Option<LogHook>,
}

impl Settings {
    /// The settings of `options` for a service at `service` (each base URL's origin and
    /// whether it is loopback, in order), with the state folder's files in `store`.
    pub(crate) fn new(
        options: Choices<'_>,
        service: &[(Origin, bool)],
        store: Option<Arc<Sealed>>,
    ) -> Result<Settings, Error> {
        if !options.trust.is_usable() {
            return Err(Error::invalid_argument(
                "nothing to trust: enable Mozilla's or the system's roots, add a root or a pin",
            ));
        }
        let (proxy, proxy_label) = match options.proxy {
            ProxyChoice::None => (None, String::new()),
            ProxyChoice::System => match ureq::Proxy::try_from_env() {
                Some(proxy) => {
                    let label = format!(
                        "{}:{} (from the system settings)",
                        proxy.host(),
                        proxy.port()
                    );
                    (Some(proxy), label)
                }
                None => (None, String::new()),
            },
            ProxyChoice::Url(url) => {
                let label = without_credentials(url);
                let proxy = ureq::Proxy::new(url).map_err(|err| {
                    Error::invalid_argument(format!(
                        "proxy {} is not a proxy URL (http://, https://, socks5://, \
                         socks5h://): {err}",
                        crate::error::quoted(&label)
                    ))
                })?;
                (Some(proxy), label)
            }
        };
        let hosts = service
            .iter()
            .map(|(origin, _)| origin.host.clone())
            .collect();
        let tls = TlsConnector::new(options.trust, hosts, options.log.clone())?;
        let names = Arc::new(Names::new(options.addresses.to_vec(), options.log.clone()));
        // Through a proxy, only loopback connects directly; the proxy connects the rest.
        let direct = service
            .iter()
            .filter(|(_, loopback)| proxy.is_none() || *loopback)
            .map(|(origin, _)| origin.clone())
            .collect();
        let lines = Arc::new(Lines::new(
            direct,
            Arc::clone(&names),
            tls.clone(),
            options.attempt_delay,
            (store, options.remembered_addresses_max_age),
            options.log.clone(),
        ));
        Ok(Settings {
            tls,
            names,
            lines,
            proxy,
            proxy_label,
            log: options.log.clone(),
        })
    }

    /// The racing connections' lines (the remembered one among them).
    pub(crate) fn lines(&self) -> &Lines {
        &self.lines
    }

    fn agent(&self, proxy: Option<ureq::Proxy>) -> ureq::Agent {
        let direct = proxy.is_none();
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("verify/", env!("CARGO_PKG_VERSION")))
            .max_redirects(0)
            .proxy(proxy)
            .timeout_connect(Some(DEFAULT_CONNECT_TIMEOUT))
            .timeout_global(Some(DEFAULT_CALL_TIMEOUT))
            // Threads sharing a client each keep their connection (ureq keeps 3 by default).
            .max_idle_connections(MAX_IDLE_CONNECTIONS)
            .max_idle_connections_per_host(MAX_IDLE_CONNECTIONS)
            .max_idle_age(MAX_IDLE_AGE)
            .input_buffer_size(CONNECTION_BUFFER)
            .output_buffer_size(CONNECTION_BUFFER)
            .max_response_header_size(MAX_REPLY_HEAD)
            .build();
        let resolver = CachingResolver::new(Arc::clone(&self.names));
        if direct {
            let connector = Watchable(RaceConnector(Arc::clone(&self.lines)));
            return ureq::Agent::with_parts(config, connector, resolver);
        }
        let connector = Watchable(
            ().chain(SocksConnector::default())
                .chain(ConnectProxyConnector::default())
                .chain(LazyTcp(
                    crate::net::tcp::TcpConnector,
                    CachingResolver::new(Arc::clone(&self.names)),
                ))
                .chain(LogConnector(self.log.clone()))
                .chain(self.tls.clone()),
        );
        ureq::Agent::with_parts(config, connector, resolver)
    }
}

/// The HTTP client of one `Client`: its connection pools (one direct, one through the
/// proxy when there is one), timeouts changeable at any time.
pub struct Transport {
    settings: Arc<Settings>,
    direct: ureq::Agent,
    proxied: Option<ureq::Agent>,
    connect_ms: AtomicU64,
    call_ms: AtomicU64,
}

impl Transport {
    /// A transport with `settings` and the given timeouts.
    pub(crate) fn new(settings: Arc<Settings>, connect: Duration, call: Duration) -> Transport {
        let direct = settings.agent(None);
        let proxied = settings
            .proxy
            .clone()
            .map(|proxy| settings.agent(Some(proxy)));
        Transport {
            settings,
            direct,
            proxied,
            connect_ms: AtomicU64::new(duration_ms(connect)),
            call_ms: AtomicU64::new(duration_ms(call)),
        }
    }

    /// Sets the connect and whole-call timeouts for the calls that start from now on.
    /// Both must be at least 1 ms; the call timeout bounds the connect time too.
    pub fn set_timeouts(&self, connect: Duration, call: Duration) -> Result<(), Error> {
        if connect.is_zero() || call.is_zero() {
            return Err(Error::invalid_argument(
                "timeouts must be at least 1 millisecond",
            ));
        }
        self.connect_ms
            .store(duration_ms(connect), Ordering::Relaxed);
        self.call_ms.store(duration_ms(call), Ordering::Relaxed);
        Ok(())
    }

    /// The current (connect, call) timeouts.
    pub fn timeouts(&self) -> (Duration, Duration) {
        (
            Duration::from_millis(self.connect_ms.load(Ordering::Relaxed)),
            Duration::from_millis(self.call_ms.load(Ordering::Relaxed)),
        )
    }

    /// POSTs `body`, a finished `application/x-www-form-urlencoded` body (built by
    /// [`crate::wire::form_body`], in a buffer the caller wipes: an Init body holds the
    /// AppKey; or [`crate::wire::handle_body`]), to `url` (parsed once by the caller; a URL
    /// or header value holding a secret is made over self-wiping shared bytes,
    /// `wiped_shared`) with extra `headers`, to finish by `deadline` (the whole host call's):
    /// the request gets the time left, and its connect at most the connect timeout within
    /// it. A `direct` request (to a loopback host) never goes through the proxy.
    pub fn post_form(
        &self,
        url: &Uri,
        headers: &[(&str, &HeaderValue)],
        body: &[u8],
        deadline: Deadline,
        direct: bool,
    ) -> Result<HttpReply, SendError> {
        let (connect, call) = self.timeouts();
        // A call on a thread a token watches: cancelled, it starts nothing; else what of the
        // request leaves is followed from here (see `cancel.rs`).
        let token = crate::cancel::watching();
        if let Some(token) = &token {
            if token.is_cancelled() {
                return Err(cancelled(false));
            }
            crate::cancel::request_starts();
        }
        let remaining = deadline.remaining();
        // Too little time left for an attempt (and a connect timeout that rounds to zero
        // would mean "no timeout" to the socket): the call's time ran out.
        if remaining < MIN_ATTEMPT {
            return Err(SendError::new(
                Error::local(
                    ErrorKind::Timeout,
                    format!("the call timeout of {} ms ran out", call.as_millis()),
                ),
                false,
                false,
            ));
        }
        let (agent, via_proxy) = match (&self.proxied, direct) {
            (Some(proxied), false) => (proxied, true),
            _ => (&self.direct, false),
        };
        // Clones share the parsed URL's bytes: nothing is parsed or copied per call.
        let mut request = agent.post(url.clone());
        // A request-scoped config costs an allocation and a copy: only when it differs from
        // the agent's (the defaults, with the whole call's time still left).
        let fresh = call.saturating_sub(remaining) < FRESH_SLACK;
        if !fresh || (connect, call) != (DEFAULT_CONNECT_TIMEOUT, DEFAULT_CALL_TIMEOUT) {
            request = request
                .config()
                .timeout_connect(Some(connect.min(remaining)))
                .timeout_global(Some(remaining))
                .build();
        }
        for (name, value) in headers {
            request = request.header(*name, HeaderValue::clone(value));
        }
        let classify = |err| {
            // Whatever a cancel broke (a race, a socket shut down under a read): cancelled.
            if token.as_ref().is_some_and(CancelToken::is_cancelled) {
                return cancelled(crate::cancel::request_may_have_left());
            }
            let failure = classify(err, via_proxy.then_some(self.settings.proxy_label.as_str()));
            if failure.unreachable {
                self.settings.names.clear();
            }
            failure
        };
        let mut response = request
            .header("content-type", "application/x-www-form-urlencoded")
            .send(body)
            .map_err(classify)?;
        let status = response.status().as_u16();
        let date = response
            .headers()
            .get("date")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let location = (300..400)
            .contains(&status)
            .then(|| response.headers().get("location"))
            .flatten()
            .and_then(|value| value.to_str().ok())
            .map(origin_of);
        let body = read_body(&mut response, &classify)?;
        Ok(HttpReply {
            status,
            date,
            location,
            body,
            headers: std::mem::take(response.headers_mut()),
        })
    }
}

/// The failure of a call cancelled by the host (the token watching its thread), after its
/// request `may_have_left` or before. The client says it in the action's words
/// (`client/exchange.rs`); it is never sent again.
fn cancelled(may_have_left: bool) -> SendError {
    let words = if may_have_left {
        "cancelled by the host after the request was sent"
    } else {
        "cancelled by the host before the request was sent"
    };
    SendError::new(
        Error::local(ErrorKind::Cancelled, words),
        may_have_left,
        false,
    )
}

/// Reads a reply body of at most [`MAX_REPLY_BYTES`] into buffers that are wiped: every
/// buffer it outgrows is wiped when dropped (ureq's `read_to_vec` would free them as they
/// are).
fn read_body(
    response: &mut ureq::http::Response<ureq::Body>,
    classify: &dyn Fn(ureq::Error) -> SendError,
) -> Result<Wiped<Vec<u8>>, SendError> {
    use std::io::Read;
    let cap = usize::try_from(MAX_REPLY_BYTES).unwrap_or(usize::MAX);
    let announced = response
        .headers()
        .get("content-length")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    let mut body = Wiped::new(Vec::with_capacity(
        announced.map_or(4096, |length| length.min(cap).saturating_add(1)),
    ));
    let too_large = || {
        SendError::new(
            Error::not_the_service(format!("reply body is larger than {MAX_REPLY_BYTES} bytes")),
            true,
            false,
        )
    };
    // ureq fails once `limit` bytes are read: one more, so that a body of exactly the cap
    // is accepted.
    let mut reader = response
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES + 1)
        .reader();
    // Read straight into the wiped buffer (an intermediate buffer would have to be wiped
    // too: 8 KiB of volatile writes a call).
    loop {
        if body.len() == body.capacity() {
            let mut bigger = Wiped::new(Vec::with_capacity(
                body.capacity().saturating_mul(2).max(4096),
            ));
            bigger.extend_from_slice(&body);
            body = bigger;
        }
        let start = body.len();
        let room = body.capacity() - start;
        body.resize(start + room, 0);
        let read = match reader.read(&mut body[start..]) {
            Ok(read) => read,
            Err(io) => {
                body.truncate(start);
                // ureq's own errors (the limit, a timeout) come wrapped in the io error.
                let err = if io.get_ref().is_some_and(|e| e.is::<ureq::Error>()) {
                    match io.into_inner().map(|e| e.downcast::<ureq::Error>()) {
                        Some(Ok(err)) => *err,
                        _ => ureq::Error::Io(std::io::Error::other("reading the reply failed")),
                    }
                } else {
                    ureq::Error::Io(io)
                };
                return Err(match err {
                    ureq::Error::BodyExceedsLimit(_) => too_large(),
                    other => classify(other),
                });
            }
        };
        body.truncate(start + read);
        if read == 0 {
            return Ok(body);
        }
        if body.len() > cap {
            return Err(too_large());
        }
    }
}

/// `scheme://host[:port]` of a URL (or of a relative reference: `(same server)`), so that a
/// path or query holding a secret never reaches a message.
fn origin_of(location: &str) -> String {
    // A scheme-relative reference (`//host/path`) names a host too.
    let location = match location.strip_prefix("//") {
        Some(rest) => return origin_of(&format!("same-scheme://{rest}")),
        None => location,
    };
    match location.split_once("://") {
        Some((scheme, rest)) => {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            let authority = authority.rsplit('@').next().unwrap_or(authority);
            format!("{scheme}://{authority}/...")
        }
        None => "(a path on the same server)".to_owned(),
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// Maps a ureq error to our error kinds with a message naming the cause, and tells whether
/// the request may have been delivered and whether another server (a mirror) may help.
/// `proxy` is the proxy the request went through, if any.
fn classify(err: ureq::Error, proxy: Option<&str>) -> SendError {
    use std::io::ErrorKind as Io;
    use ureq::Timeout;
    // The outcomes of a race (connect.rs) that are not a single connect's.
    let err = match err {
        ureq::Error::Other(other) if other.is::<Cancelled>() => {
            return cancelled(crate::cancel::request_may_have_left())
        }
        ureq::Error::Other(other) => match other.downcast::<ConnectedElsewhere>() {
            Ok(elsewhere) => {
                let mut failure = SendError::new(
                    Error::local(ErrorKind::Network, elsewhere.to_string()),
                    false,
                    false,
                );
                failure.elsewhere = Some(elsewhere.0.label());
                return failure;
            }
            Err(other) => match other.downcast::<NoneConnected>() {
                Ok(none) => {
                    let failures: Vec<(String, Error)> = none
                        .0
                        .into_iter()
                        .map(|(label, err)| (label, classify(err, proxy).error))
                        .collect();
                    return SendError::new(none_reachable(&failures), false, false);
                }
                Err(other) => ureq::Error::Other(other),
            },
        },
        err => err,
    };
    let undelivered = |kind, message: String, unreachable| {
        SendError::new(Error::local(kind, message), false, unreachable)
    };
    let tls = tls_cause(&err);
    match (&err, proxy) {
        (_, _) if tls.is_some() => {
            let (kind, message) = tls.unwrap_or((ErrorKind::Tls, String::new()));
            undelivered(kind, message, true)
        }
        (ureq::Error::ConnectProxyFailed(reason), Some(proxy)) => {
            let why = if reason.contains("407") {
                format!("proxy {proxy} requires authentication (407): check its user and password")
            } else {
                format!("proxy {proxy} refused the tunnel: {reason}")
            };
            undelivered(ErrorKind::Proxy, why, false)
        }
        // SOCKS: wrong credentials, or credentials required and none given.
        (ureq::Error::Io(io), Some(proxy))
            if io.kind() == Io::PermissionDenied || io.to_string().contains("auth") =>
        {
            undelivered(
                ErrorKind::Proxy,
                format!("proxy {proxy} requires authentication or refused the credentials ({io})"),
                false,
            )
        }
        (
            ureq::Error::HostNotFound | ureq::Error::ConnectionFailed | ureq::Error::Io(_),
            Some(proxy),
        ) if is_connect_failure(&err) => undelivered(
            ErrorKind::Proxy,
            format!("proxy {proxy} unreachable: {err}"),
            false,
        ),
        (ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect), _) => undelivered(
            ErrorKind::Timeout,
            format!("connect timed out ({err})"),
            true,
        ),
        (ureq::Error::Timeout(Timeout::Global), _) => SendError::new(
            Error::local(
                ErrorKind::Timeout,
                "the call timeout ran out while waiting for the reply",
            ),
            true,
            false,
        ),
        (ureq::Error::Timeout(_), _) => SendError::new(
            Error::local(ErrorKind::Timeout, format!("timed out ({err})")),
            true,
            false,
        ),
        (ureq::Error::HostNotFound, _) => undelivered(
            ErrorKind::Network,
            "DNS: the host name was not found".to_owned(),
            true,
        ),
        (ureq::Error::ConnectionFailed, _) => {
            undelivered(ErrorKind::Network, format!("cannot connect: {err}"), true)
        }
        (ureq::Error::BadUri(_) | ureq::Error::InvalidProxyUrl | ureq::Error::Http(_), _) => {
            undelivered(ErrorKind::InvalidArgument, err.to_string(), false)
        }
        (ureq::Error::Io(io), _) => match io.kind() {
            Io::ConnectionRefused => undelivered(
                ErrorKind::Network,
                "connection refused (no server listens there)".to_owned(),
                true,
            ),
            Io::AddrNotAvailable | Io::NetworkUnreachable | Io::HostUnreachable | Io::AddrInUse => {
                undelivered(ErrorKind::Network, format!("cannot connect: {io}"), true)
            }
            Io::TimedOut | Io::WouldBlock => SendError::new(
                Error::local(ErrorKind::Timeout, format!("timed out ({io})")),
                true,
                false,
            ),
            _ => SendError::new(
                Error::local(ErrorKind::Network, format!("connection broken: {io}")),
                true,
                false,
            ),
        },
        (ureq::Error::LargeResponseHeader(..), _) => SendError::new(
            Error::not_the_service(format!(
                "the reply's HTTP head is larger than {MAX_REPLY_HEAD} bytes"
            )),
            true,
            false,
        ),
        (ureq::Error::Protocol(_), _) => SendError::new(
            Error::not_the_service(format!("HTTP protocol error: {err}")),
            true,
            false,
        ),
        _ => SendError::new(
            Error::local(ErrorKind::Network, err.to_string()),
            true,
            false,
        ),
    }
}

/// The error of a call that no base URL of the service could take: each URL and why, of the
/// kind of the last failure.
pub(crate) fn none_reachable(failures: &[(String, Error)]) -> Error {
    let summary: Vec<String> = failures
        .iter()
        .map(|(url, error)| format!("{url}: {}", error.message()))
        .collect();
    let kind = failures
        .last()
        .map_or(ErrorKind::Network, |(_, error)| error.kind());
    Error::local(
        kind,
        format!(
            "no server of the service could be reached: {}",
            summary.join("; ")
        ),
    )
}

/// Whether a ureq error happened while connecting (nothing was sent).
fn is_connect_failure(err: &ureq::Error) -> bool {
    use std::io::ErrorKind as Io;
    match err {
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => true,
        ureq::Error::Io(io) => matches!(
            io.kind(),
            Io::ConnectionRefused
                | Io::AddrNotAvailable
                | Io::NetworkUnreachable
                | Io::HostUnreachable
        ),
        _ => false,
    }
}

/// The kind and message of a TLS failure, when `err` is one.
fn tls_cause(err: &ureq::Error) -> Option<(ErrorKind, String)> {
    let rustls_error = match err {
        ureq::Error::Rustls(inner) => Some(inner),
        ureq::Error::Io(io) => io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>()),
        _ => None,
    };
    let Some(rustls_error) = rustls_error else {
        return match err {
            ureq::Error::Tls(what) => Some((ErrorKind::Tls, format!("TLS: {what}"))),
            ureq::Error::Pem(pem) => Some((ErrorKind::Tls, format!("TLS: {pem}"))),
            _ => None,
        };
    };
    Some(crate::net::tls::refusal(rustls_error))
}

/// Logs every new connection (connectors run only for connections not taken from the pool).
struct LogConnector(Option<LogHook>);

impl std::fmt::Debug for LogConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogConnector")
    }
}

impl<In: ureq::unversioned::transport::Transport> Connector<In> for LogConnector {
    type Out = In;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<In>, ureq::Error> {
        if chained.is_some() {
            let authority = details.uri.authority().map_or("?", |a| a.as_str());
            let proxy = details
                .config
                .proxy()
                .filter(|proxy| !proxy.is_no_proxy(details.uri))
                .map(|proxy| format!(" through proxy {}:{}", proxy.host(), proxy.port()))
                .unwrap_or_default();
            log(&self.0, LogLevel::Info, || {
                format!(
                    "connected to {authority}{proxy}{}",
                    if details.needs_tls() {
                        "; TLS handshake next"
                    } else {
                        ""
                    }
                )
            });
        }
        Ok(chained)
    }
}

/// The outermost connector: makes every new connection a [`Watched`] one, remembering the
/// socket under it (the one the connector chain registers for ureq's shutdown), so that a
/// [`CancelToken`](crate::cancel::CancelToken) watching the thread can interrupt its I/O.
struct Watchable<C>(C);

impl<C> std::fmt::Debug for Watchable<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watchable")
    }
}

impl<C: Connector<()>> Connector<()> for Watchable<C> {
    type Out = Watched<C::Out>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        _chained: Option<()>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        // The sockets the chain registers (the last is the connection's).
        let sockets: Arc<Mutex<Vec<Weak<dyn ShutdownHandle>>>> = Arc::default();
        let register = Arc::clone(&details.register_shutdown);
        let seen = Arc::clone(&sockets);
        // On a watched thread a socket is watched from the moment it is connected: the
        // handshakes that follow in the chain (a proxy's, TLS through it) are cancellable too.
        let token = crate::cancel::watching();
        let watcher = token.clone();
        let details = altered(
            details,
            details.addrs.clone(),
            Arc::new(move |handle: Weak<dyn ShutdownHandle>| {
                if let Some(token) = &watcher {
                    if !token.enter_io(&handle) {
                        return Err(Cancelled::as_ureq());
                    }
                }
                seen.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(Weak::clone(&handle));
                register(handle)
            }),
        );
        let born = Born::here();
        let connected = self.0.connect(&details, None);
        let mut sockets =
            std::mem::take(&mut *sockets.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some(token) = &token {
            for socket in &sockets {
                token.leave_io(socket);
            }
        }
        let socket = sockets.pop();
        Ok(connected?.map(|inner| Watched {
            inner,
            socket,
            born,
        }))
    }
}

/// How a connector registers a socket for ureq's shutdown (ureq's own alias is private).
type RegisterShutdown = dyn Fn(Weak<dyn ShutdownHandle>) -> Result<(), ureq::Error> + Send + Sync;

/// `details` with other addresses and another shutdown registration (the rest is shared).
fn altered<'a>(
    details: &ConnectionDetails<'a>,
    addrs: ureq::unversioned::resolver::ResolvedSocketAddrs,
    register_shutdown: Arc<RegisterShutdown>,
) -> ConnectionDetails<'a> {
    ConnectionDetails {
        uri: details.uri,
        addrs,
        config: details.config,
        request_level: details.request_level,
        resolver: details.resolver,
        now: details.now,
        timeout: details.timeout,
        current_time: Arc::clone(&details.current_time),
        run_connector: Arc::clone(&details.run_connector),
        register_shutdown,
    }
}

/// A connection whose reads and writes, on a thread a cancel token watches, can be
/// interrupted by that token (it shuts the socket down). Elsewhere it only forwards. In a
/// forked child it is closed, never reused (`util/process.rs`).
struct Watched<T> {
    inner: T,
    socket: Option<Weak<dyn ShutdownHandle>>,
    /// The process that connected it.
    born: Born,
}

impl<T> std::fmt::Debug for Watched<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watched")
    }
}

impl<T> Watched<T> {
    /// Runs `io` registered with the token watching this thread, if any; `sends`: it writes
    /// the request (then its bytes may leave). Cancelled before or during `io`, it fails as
    /// cancelled, whatever `io` made of the socket shut down under it.
    fn watched<R>(
        &mut self,
        sends: bool,
        io: impl FnOnce(&mut T) -> Result<R, ureq::Error>,
    ) -> Result<R, ureq::Error> {
        let (Some(token), Some(socket)) = (crate::cancel::watching(), &self.socket) else {
            return io(&mut self.inner);
        };
        if !token.enter_io(socket) {
            return Err(Cancelled::as_ureq());
        }
        if sends {
            crate::cancel::request_leaves();
        }
        let outcome = io(&mut self.inner);
        token.leave_io(socket);
        if outcome.is_err() && token.is_cancelled() {
            return Err(Cancelled::as_ureq());
        }
        outcome
    }
}

impl<T: ureq::unversioned::transport::Transport> ureq::unversioned::transport::Transport
    for Watched<T>
{
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.watched(true, |inner| inner.transmit_output(amount, timeout))
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.watched(false, |inner| inner.await_input(timeout))
    }

    /// ureq asks before it reuses a pooled connection. One the process inherited from its
    /// parent is not probed (a probe reads the socket and sets it non-blocking, under the
    /// parent's feet): it is not open, so ureq drops it (closing this process's file
    /// descriptor only) and connects again.
    fn is_open(&mut self) -> bool {
        self.born.is_here() && self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}

/// ureq's TCP connector, resolving the host name only when a new connection is made: the
/// resolver gives no address for a direct request (a kept-alive connection needs none, and
/// ureq asks before every request), so this connector looks the host up here, in the
/// shared cache.
struct LazyTcp<C>(C, CachingResolver);

impl<C> std::fmt::Debug for LazyTcp<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LazyTcp")
    }
}

impl<In: ureq::unversioned::transport::Transport, C: Connector<In>> Connector<In> for LazyTcp<C> {
    type Out = C::Out;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        if chained.is_some() || !details.addrs.is_empty() {
            return self.0.connect(details, chained);
        }
        let addrs = self
            .1
            .lookup(details.uri, details.config, details.timeout)?;
        let details = altered(details, addrs, Arc::clone(&details.register_shutdown));
        self.0.connect(&details, None)
    }
}
