//! Name resolution without a thread per request, and without any work per request on a
//! kept-alive connection.
//!
//! - A host's addresses are, in order: an IP literal as it is; the fixed addresses the host
//!   program gave for the name ([`crate::Options::add_address`], like curl's `--resolve`;
//!   never looked up in DNS); the addresses of a recent lookup (kept 15 minutes, longer than
//!   the 5-minute heartbeat); or a new lookup of every address of the name (IPv6 and IPv4),
//!   through the system's resolver.
//! - A new connection that races its attempts ([`crate::net::race`]) looks names up on threads of
//!   their own ([`Names::lookup_in_background`]), so that the call's deadline bounds the wait
//!   and a slow name does not hold up a mirror's attempt.
//! - ureq asks for addresses before every request, kept-alive connection or not: a direct
//!   request gets none from [`CachingResolver`] (its connector looks the host up when, and
//!   only when, it opens a connection). A request through a proxy that resolves on this side
//!   (SOCKS4, SOCKS5 without `h`) and a SOCKS proxy's own name are looked up when ureq asks
//!   (ureq's resolver, on a thread bounded by the timeout; on a thread a cancel token
//!   watches, on a thread of its own, the wait cancellable).
//! - The cache is emptied when a server cannot be reached, so a moved server is looked up
//!   again at once.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{NextTimeout, ShutdownHandle};

use crate::cancel::{CancelToken, Cancelled};
use crate::log::{log, LogHook, LogLevel};

/// How long the addresses of a host name are reused.
const TTL: Duration = Duration::from_secs(15 * 60);
/// Host names kept (a client has one per base URL).
const ENTRIES: usize = 8;

/// One remembered lookup: `host:port`, when, the addresses.
type Entry = (String, Instant, Vec<SocketAddr>);

/// The names of one client: its fixed addresses and recent lookups, shared by its agents
/// (direct and proxied).
#[derive(Default)]
pub(crate) struct Names {
    cache: Mutex<Vec<Entry>>,
    /// Fixed addresses: lowercase host name, address.
    fixed: Vec<(String, IpAddr)>,
    log: Option<LogHook>,
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Names")
            .field("fixed", &self.fixed)
            .finish_non_exhaustive()
    }
}

/// The host of a URI without IPv6 brackets, and its port (the scheme's by default).
pub(crate) fn host_port(uri: &Uri) -> Option<(&str, u16)> {
    let port = uri.port_u16().or(match uri.scheme_str() {
        Some("https") => Some(443),
        Some("http") => Some(80),
        _ => None,
    })?;
    let host = uri
        .host()
        .map(|h| h.trim_start_matches('[').trim_end_matches(']'))?;
    Some((host, port))
}

impl Names {
    /// Names with `fixed` addresses (lowercase host names) and a log hook.
    pub(crate) fn new(fixed: Vec<(String, IpAddr)>, log: Option<LogHook>) -> Names {
        Names {
            cache: Mutex::default(),
            fixed,
            log,
        }
    }

    fn entries(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Forgets every looked-up address (a server could not be reached).
    pub(crate) fn clear(&self) {
        self.entries().clear();
    }

    /// Whether `host` is never looked up: an IP literal, or a name with fixed addresses.
    pub(crate) fn is_fixed(&self, host: &str) -> bool {
        host.parse::<IpAddr>().is_ok()
            || self
                .fixed
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case(host.trim_end_matches('.')))
    }

    /// The addresses of `host` known without a lookup: an IP literal, fixed addresses, or a
    /// recent lookup.
    pub(crate) fn known(&self, host: &str, port: u16) -> Option<Vec<SocketAddr>> {
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Some(vec![SocketAddr::new(ip, port)]);
        }
        let fixed: Vec<SocketAddr> = self
            .fixed
            .iter()
            .filter(|(name, _)| name.eq_ignore_ascii_case(host.trim_end_matches('.')))
            .map(|(_, ip)| SocketAddr::new(*ip, port))
            .collect();
        if !fixed.is_empty() {
            return Some(fixed);
        }
        let key = format!("{host}:{port}");
        self.entries()
            .iter()
            .find(|(held, at, _)| *held == key && at.elapsed() < TTL)
            .map(|(_, _, addrs)| addrs.clone())
    }

    fn remember(&self, host: &str, port: u16, addrs: &[SocketAddr]) {
        let key = format!("{host}:{port}");
        let mut entries = self.entries();
        entries.retain(|(held, at, _)| *held != key && at.elapsed() < TTL);
        if entries.len() >= ENTRIES {
            entries.remove(0);
        }
        entries.push((key, Instant::now(), addrs.to_vec()));
    }

    /// Looks `host` up on a thread of its own: every address of the name, kept for later;
    /// the outcome (`None`: the name was not found) goes to `done` with `tag`, then `wake`
    /// runs. A lookup that outlives its race still fills the cache.
    pub(crate) fn lookup_in_background(
        self: &Arc<Self>,
        host: &str,
        port: u16,
        tag: usize,
        done: Sender<(usize, Option<Vec<SocketAddr>>)>,
        wake: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<()> {
        log(&self.log, LogLevel::Debug, || {
            format!("looking up {host}:{port}")
        });
        let names = Arc::clone(self);
        let host = host.to_owned();
        // The lookup may outlive the call (a name server that does not answer): it holds the
        // library loaded until it ends (a host may unload it meanwhile; machine-sys).
        let hold = verify_machine_sys::hold_module();
        std::thread::Builder::new()
            .name("verify-lookup".into())
            .spawn(move || {
                // Everything the lookup owns is dropped in here, before the thread ends.
                let lookup = move || {
                    let found = (host.as_str(), port)
                        .to_socket_addrs()
                        .ok()
                        .map(Iterator::collect::<Vec<_>>)
                        .filter(|addrs| !addrs.is_empty());
                    if let Some(addrs) = &found {
                        names.remember(&host, port, addrs);
                    }
                    // The race may be over: nobody listens then.
                    let _ = done.send((tag, found));
                    wake();
                };
                lookup();
                hold.exit_thread();
            })
            .map(|_| ())
    }

    /// [`Names::lookup`]'s lookup of `host` on a thread of its own, waited for until
    /// `timeout` or until `token` is cancelled.
    fn lookup_watched(
        self: &Arc<Self>,
        host: &str,
        port: u16,
        timeout: NextTimeout,
        token: &CancelToken,
    ) -> Result<Vec<SocketAddr>, ureq::Error> {
        /// The tag of a cancel among the lookup's answers.
        const CANCELLED: usize = usize::MAX;
        let (done, results) = mpsc::channel();
        let stop: Arc<dyn ShutdownHandle> = Arc::new(StopWaiting(done.clone()));
        if !token.enter_io(&Arc::downgrade(&stop)) {
            return Err(Cancelled::as_ureq());
        }
        let answer = match self.lookup_in_background(host, port, 0, done, || {}) {
            Ok(()) => match timeout.not_zero() {
                Some(limit) => results.recv_timeout(*limit).ok(),
                None => results.recv().ok(),
            },
            Err(err) => {
                token.leave_io(&Arc::downgrade(&stop));
                return Err(ureq::Error::Io(err));
            }
        };
        token.leave_io(&Arc::downgrade(&stop));
        match answer {
            Some((CANCELLED, _)) => Err(Cancelled::as_ureq()),
            Some((_, Some(found))) => Ok(found),
            Some((_, None)) => Err(ureq::Error::HostNotFound),
            None => Err(ureq::Error::Timeout(ureq::Timeout::Resolve)),
        }
    }

    /// The addresses of `uri`'s host, looked up on the calling side (a thread of ureq's,
    /// bounded by `timeout`) when not known: for connections that do not race (through an
    /// HTTP CONNECT proxy, or a SOCKS proxy's own name).
    fn lookup(
        self: &Arc<Self>,
        system: &DefaultResolver,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let Some((host, port)) = host_port(uri) else {
            return system.resolve(uri, config, timeout);
        };
        let mut addrs = system.empty();
        if let Some(known) = self.known(host, port) {
            known.into_iter().for_each(|addr| addrs.push(addr));
            return Ok(addrs);
        }
        // On a thread a cancel token watches, the lookup is cancellable.
        if let Some(token) = crate::cancel::watching() {
            let found = self.lookup_watched(host, port, timeout, &token)?;
            found.into_iter().for_each(|addr| addrs.push(addr));
            return Ok(addrs);
        }
        log(&self.log, LogLevel::Debug, || {
            format!("looking up {host}:{port}")
        });
        // A failed lookup is a DNS failure, whatever io error carries it.
        let found = system
            .resolve(uri, config, timeout)
            .map_err(|err| match err {
                ureq::Error::Io(_) => ureq::Error::HostNotFound,
                other => other,
            })?;
        let list: Vec<SocketAddr> = found.iter().copied().collect();
        self.remember(host, port, &list);
        Ok(found)
    }
}

/// Ends a wait for a lookup when "shut down" by a cancel.
struct StopWaiting(Sender<(usize, Option<Vec<SocketAddr>>)>);

impl ShutdownHandle for StopWaiting {
    fn shutdown(&self) {
        let _ = self.0.send((usize::MAX, None));
    }
}

/// ureq's resolver for a client's agents (see the module's documentation).
pub(crate) struct CachingResolver {
    system: DefaultResolver,
    names: Arc<Names>,
}

impl std::fmt::Debug for CachingResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CachingResolver")
    }
}

impl CachingResolver {
    pub(crate) fn new(names: Arc<Names>) -> CachingResolver {
        CachingResolver {
            system: DefaultResolver::default(),
            names,
        }
    }

    /// The addresses of `uri`'s host: at once for an IP literal, a fixed or a cached name,
    /// else from a lookup (on a thread of ureq's, bounded by `timeout`).
    pub(crate) fn lookup(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        self.names.lookup(&self.system, uri, config, timeout)
    }
}

impl Resolver for CachingResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        // A direct request: the connector resolves, if it needs a new connection.
        if config.proxy().is_none() {
            return Ok(self.empty());
        }
        self.lookup(uri, config, timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn a_direct_request_resolves_nothing_up_front_and_a_connect_looks_up_once() {
        let lookups = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&lookups);
        let hook: LogHook = Arc::new(move |_, line: &str| {
            if line.starts_with("looking up") {
                counted.fetch_add(1, Ordering::Relaxed);
            }
        });
        let names = Arc::new(Names::new(Vec::new(), Some(hook)));
        let resolver = CachingResolver::new(Arc::clone(&names));
        let direct = ureq::Agent::config_builder().build();
        let uri: Uri = "http://localhost:8080/api/verify".parse().expect("uri");
        let timeout = NextTimeout::default();
        // What ureq asks before every request on a direct agent: no address, no lookup.
        for _ in 0..3 {
            let addrs = resolver.resolve(&uri, &direct, timeout).expect("resolve");
            assert!(addrs.is_empty());
        }
        assert_eq!(lookups.load(Ordering::Relaxed), 0);
        // What a connector asks for a new connection: looked up once, then cached.
        for _ in 0..3 {
            let addrs = resolver.lookup(&uri, &direct, timeout).expect("localhost");
            assert!(addrs.iter().all(|addr| addr.port() == 8080) && !addrs.is_empty());
        }
        assert_eq!(lookups.load(Ordering::Relaxed), 1);
        // An IP address is never looked up; a cleared cache looks the name up again.
        let ip: Uri = "http://127.0.0.1:9/".parse().expect("uri");
        assert_eq!(resolver.lookup(&ip, &direct, timeout).expect("ip").len(), 1);
        names.clear();
        resolver.lookup(&uri, &direct, timeout).expect("localhost");
        assert_eq!(lookups.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn fixed_addresses_are_never_looked_up() {
        let v4: IpAddr = "192.0.2.7".parse().expect("ip");
        let v6: IpAddr = "2001:db8::7".parse().expect("ip");
        let names = Names::new(
            vec![
                ("licensing.example.test".into(), v6),
                ("licensing.example.test".into(), v4),
            ],
            None,
        );
        assert_eq!(
            names.known("Licensing.Example.Test.", 443),
            Some(vec![SocketAddr::new(v6, 443), SocketAddr::new(v4, 443)])
        );
        assert_eq!(names.known("other.example.test", 443), None);
    }

    #[test]
    fn a_background_lookup_reports_and_fills_the_cache() {
        let names = Arc::new(Names::default());
        let (done, results) = std::sync::mpsc::channel();
        names
            .lookup_in_background("localhost", 80, 7, done.clone(), || {})
            .expect("thread");
        let (tag, found) = results
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer");
        assert_eq!(tag, 7);
        assert!(found.is_some_and(|addrs| !addrs.is_empty()));
        assert!(names.known("localhost", 80).is_some(), "cached");
        names
            .lookup_in_background("no-such-name.invalid", 80, 8, done, || {})
            .expect("thread");
        let (tag, found) = results
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer");
        assert_eq!((tag, found), (8, None));
    }
}
