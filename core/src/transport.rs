//! One form POST: the HTTP agent, timeouts, the body cap, the `Date` header.
//!
//! Replies of every HTTP status are read as the service's JSON (the service may answer a
//! refusal with any status). Connections are kept alive and reused by one [`Transport`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::deadline::Deadline;
use crate::error::{Error, ErrorKind};

/// Replies larger than this are refused as a protocol error.
pub const MAX_REPLY_BYTES: u64 = 1 << 20;

/// Idle connections kept open per transport (one per thread that shares a client).
const MAX_IDLE_CONNECTIONS: usize = 32;

/// A request that starts within this of its call's start gets the whole call timeout.
const FRESH_SLACK: Duration = Duration::from_millis(20);

/// Default time allowed to connect (TCP and TLS): 10 seconds.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time allowed for a whole host call (lazy Init, re-Init, connects and resends
/// included): 30 seconds.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// The body, at most [`MAX_REPLY_BYTES`].
    pub body: Vec<u8>,
}

impl SendError {
    /// Whether sending the request again may help and is safe: only after a network failure
    /// or a timeout (a reply that breaks the protocol would break it again), and, when the
    /// request may have been delivered, only if sending it twice is harmless.
    pub fn worth_resending(&self, repeatable: bool) -> bool {
        matches!(self.error.kind(), ErrorKind::Network | ErrorKind::Timeout)
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
}

/// The HTTP client of one `Client`: one connection pool, timeouts changeable at any time.
pub struct Transport {
    agent: ureq::Agent,
    connect_ms: AtomicU64,
    call_ms: AtomicU64,
}

impl Transport {
    /// A transport with the default timeouts.
    pub fn new() -> Transport {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("verify/", env!("CARGO_PKG_VERSION")))
            .max_redirects(0)
            .timeout_connect(Some(DEFAULT_CONNECT_TIMEOUT))
            .timeout_global(Some(DEFAULT_CALL_TIMEOUT))
            // Threads sharing a client each keep their connection (ureq keeps 3 by default).
            .max_idle_connections(MAX_IDLE_CONNECTIONS)
            .max_idle_connections_per_host(MAX_IDLE_CONNECTIONS)
            .build();
        Transport {
            agent: ureq::Agent::with_parts(
                config,
                ureq::unversioned::transport::DefaultConnector::new(),
                resolve::CachingResolver::default(),
            ),
            connect_ms: AtomicU64::new(duration_ms(DEFAULT_CONNECT_TIMEOUT)),
            call_ms: AtomicU64::new(duration_ms(DEFAULT_CALL_TIMEOUT)),
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

    /// A new transport (its own connection pool) with the same timeouts, for work that
    /// must be cancellable on its own (the keeper, a social wait).
    pub fn sibling(&self) -> Transport {
        let sibling = Transport::new();
        sibling
            .connect_ms
            .store(self.connect_ms.load(Ordering::Relaxed), Ordering::Relaxed);
        sibling
            .call_ms
            .store(self.call_ms.load(Ordering::Relaxed), Ordering::Relaxed);
        sibling
    }

    /// Closes every connection of this transport, interrupting a request in flight (it
    /// fails at once with a network error); later requests fail too. A TCP connect in
    /// progress is not interrupted: it is bounded by the connect timeout.
    pub fn shutdown(&self) {
        self.agent.clone().shutdown();
    }

    /// The current (connect, call) timeouts.
    pub fn timeouts(&self) -> (Duration, Duration) {
        (
            Duration::from_millis(self.connect_ms.load(Ordering::Relaxed)),
            Duration::from_millis(self.call_ms.load(Ordering::Relaxed)),
        )
    }

    /// POSTs `form` as `application/x-www-form-urlencoded` with extra `headers`, to finish
    /// by `deadline` (the whole host call's): the request gets the time left, and its
    /// connect at most the connect timeout within it.
    pub fn post_form(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        form: &[(&str, &str)],
        deadline: Deadline,
    ) -> Result<HttpReply, SendError> {
        let (connect, call) = self.timeouts();
        let remaining = deadline.remaining();
        if remaining.is_zero() {
            return Err(SendError {
                error: Error::local(
                    ErrorKind::Timeout,
                    format!("the call timeout of {} ms ran out", call.as_millis()),
                ),
                maybe_delivered: false,
            });
        }
        let mut request = self.agent.post(url);
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
            request = request.header(*name, *value);
        }
        let mut response = request.send_form(form.iter().copied()).map_err(classify)?;
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
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_REPLY_BYTES)
            .read_to_vec()
            .map_err(|err| match err {
                ureq::Error::BodyExceedsLimit(_) => SendError {
                    error: Error::protocol(format!(
                        "reply body is larger than {MAX_REPLY_BYTES} bytes"
                    )),
                    maybe_delivered: true,
                },
                other => classify(other),
            })?;
        Ok(HttpReply {
            status,
            date,
            location,
            body,
        })
    }
}

impl Default for Transport {
    fn default() -> Self {
        Transport::new()
    }
}

/// `scheme://host[:port]` of a URL (or of a relative reference: `(same server)`), so that a
/// path or query holding a secret never reaches a message.
fn origin_of(location: &str) -> String {
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

/// Maps a ureq error to our error kinds, and tells whether the request may have been
/// delivered.
fn classify(err: ureq::Error) -> SendError {
    use std::io::ErrorKind as Io;
    use ureq::Timeout;
    let (kind, maybe_delivered) = match &err {
        ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => (ErrorKind::Timeout, false),
        ureq::Error::Timeout(_) => (ErrorKind::Timeout, true),
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => (ErrorKind::Network, false),
        ureq::Error::BadUri(_) | ureq::Error::InvalidProxyUrl | ureq::Error::Http(_) => {
            (ErrorKind::InvalidArgument, false)
        }
        ureq::Error::Io(io)
            if io
                .get_ref()
                .is_some_and(|inner| inner.is::<rustls::Error>()) =>
        {
            (ErrorKind::Tls, false)
        }
        ureq::Error::Io(io) => match io.kind() {
            Io::ConnectionRefused
            | Io::AddrNotAvailable
            | Io::NetworkUnreachable
            | Io::HostUnreachable
            | Io::AddrInUse => (ErrorKind::Network, false),
            Io::TimedOut | Io::WouldBlock => (ErrorKind::Timeout, true),
            _ => (ErrorKind::Network, true),
        },
        ureq::Error::Tls(_) | ureq::Error::Pem(_) | ureq::Error::Rustls(_) => {
            (ErrorKind::Tls, false)
        }
        ureq::Error::Protocol(_) => (ErrorKind::Protocol, true),
        _ => (ErrorKind::Network, true),
    };
    SendError {
        error: Error::local(kind, err.to_string()),
        maybe_delivered,
    }
}

/// Name resolution without a thread per request.
///
/// ureq resolves the host before every request, kept-alive connection or not, and with a
/// timeout set its default resolver starts a thread for each lookup. This resolver answers
/// an IP address at once and keeps a host name's addresses for 30 seconds.
mod resolve {
    use std::net::{IpAddr, SocketAddr};
    use std::sync::{Mutex, PoisonError};
    use std::time::{Duration, Instant};

    use ureq::config::Config;
    use ureq::http::Uri;
    use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
    use ureq::unversioned::transport::NextTimeout;

    /// How long the addresses of a host name are reused.
    const TTL: Duration = Duration::from_secs(30);

    #[derive(Debug, Default)]
    pub(super) struct CachingResolver {
        lookup: DefaultResolver,
        last: Mutex<Option<(String, Instant, ResolvedSocketAddrs)>>,
    }

    impl Resolver for CachingResolver {
        fn resolve(
            &self,
            uri: &Uri,
            config: &Config,
            timeout: NextTimeout,
        ) -> Result<ResolvedSocketAddrs, ureq::Error> {
            let port = uri.port_u16().or(match uri.scheme_str() {
                Some("https") => Some(443),
                Some("http") => Some(80),
                _ => None,
            });
            let host = uri
                .host()
                .map(|h| h.trim_start_matches('[').trim_end_matches(']'));
            let (Some(host), Some(port)) = (host, port) else {
                return self.lookup.resolve(uri, config, timeout);
            };
            if let Ok(ip) = host.parse::<IpAddr>() {
                let mut addrs = self.empty();
                addrs.push(SocketAddr::new(ip, port));
                return Ok(addrs);
            }
            let key = format!("{host}:{port}");
            let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((held, at, addrs)) = last.as_ref() {
                if *held == key && at.elapsed() < TTL {
                    return Ok(addrs.clone());
                }
            }
            drop(last);
            let addrs = self.lookup.resolve(uri, config, timeout)?;
            last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
            *last = Some((key, Instant::now(), addrs.clone()));
            Ok(addrs)
        }
    }
}
