//! New direct connections of a client (not through a proxy): raced across every address of
//! every base URL ([`crate::net::race`]), with the winning line remembered.
//!
//! ureq asks its connector for a connection to one URL. [`RaceConnector`] races that URL's
//! addresses and, after the attempt delay, the other base URLs of the service (mirrors).
//! When the URL asked for wins, its connection goes to ureq. When a mirror wins, the
//! connection is kept aside as a spare for that mirror and the request fails with
//! [`ConnectedElsewhere`] before any byte is written: the client then moves its session to
//! that mirror (Init there), and ureq's request to the mirror takes the spare.
//!
//! The winning line (base URL and address) is kept for later connections, and across starts
//! in the state folder when the host gave one, so that a primary blocked for weeks costs
//! nothing after the first start; racing still runs when the remembered line fails. The
//! addresses of the winning line's name are kept there too ([`crate::net::addresses`]): a later
//! start connects to them at once, beside a fresh lookup, instead of waiting for the name
//! server.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use ureq::http::Uri;
use ureq::unversioned::transport::{
    ConnectionDetails, Connector, Either, ShutdownHandle, Transport, TransportAdapter,
};

use crate::log::{log, LogHook, LogLevel};
use crate::net::addresses::Remembered;
use crate::net::buffers::WipedBuffers;
use crate::net::race::{self, Failure, Lost, Target};
use crate::net::resolve::{host_port, Names};
use crate::net::tcp::{prepare, Tcp};
use crate::net::tls::{TlsConnector, TlsTransport, HANDSHAKE_CLOSED};
use crate::net::url::BaseUrl;
use crate::state::Sealed;
use crate::util::deadline::Deadline;
use crate::util::process::Born;

/// How long a connection won for a mirror waits for its request (normally it is taken at
/// once, by the Init that follows on the same thread).
const SPARE_AGE: Duration = Duration::from_secs(10);

/// The state file of the remembered line.
const LINE_FILE: &str = "line";

/// One base URL of the service, as connections see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) https: bool,
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl Origin {
    /// The origin of a base URL (as it was parsed, once).
    pub(crate) fn of_base(base: &BaseUrl) -> Origin {
        Origin {
            https: base.is_https(),
            host: base.host().to_owned(),
            port: base.port(),
        }
    }

    /// The origin of a URL.
    pub(crate) fn of(uri: &Uri) -> Option<Origin> {
        let (host, port) = host_port(uri)?;
        Some(Origin {
            https: uri.scheme_str() == Some("https"),
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// `scheme://host:port`.
    pub(crate) fn label(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        if self.host.contains(':') {
            format!("{scheme}://[{}]:{}", self.host, self.port)
        } else {
            format!("{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// A new connection: plain TCP, or TLS over it.
type Connection = Either<Tcp, TlsTransport>;

/// A connection won for another base URL than the one asked for, waiting for its request.
struct Spare {
    origin: usize,
    at: Instant,
    /// The process that connected it: a forked child drops its parent's spares unused.
    born: Born,
    socket: Weak<dyn ShutdownHandle>,
    transport: Connection,
}

/// What the racing connector of a client knows and keeps.
pub(crate) struct Lines {
    /// The base URLs that connect directly (all of them, or the loopback ones when a proxy
    /// takes the others).
    origins: Vec<Origin>,
    names: Arc<Names>,
    tls: TlsConnector,
    delay: Duration,
    spares: Mutex<Vec<Spare>>,
    /// The winning line: base URL (index in `origins`) and address.
    line: Mutex<Option<(usize, SocketAddr)>>,
    /// The addresses of the names, remembered across starts.
    addresses: Remembered,
    store: Option<Arc<Sealed>>,
    log: Option<LogHook>,
}

impl std::fmt::Debug for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lines")
            .field("origins", &self.origins)
            .field("delay", &self.delay)
            .finish_non_exhaustive()
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Lines {
    /// The lines of `origins`; the remembered line, and the addresses seen within
    /// `addresses_max_age`, are read from `store`.
    pub(crate) fn new(
        origins: Vec<Origin>,
        names: Arc<Names>,
        tls: TlsConnector,
        delay: Duration,
        (store, addresses_max_age): (Option<Arc<Sealed>>, Duration),
        hook: Option<LogHook>,
    ) -> Lines {
        let remembered = store
            .as_deref()
            .and_then(|store| store.read(LINE_FILE))
            .and_then(|bytes| {
                let text = std::str::from_utf8(&bytes).ok()?.to_owned();
                let (label, addr) = text.split_once('\n')?;
                let origin = origins.iter().position(|o| o.label() == label)?;
                Some((origin, addr.trim().parse().ok()?))
            });
        if let Some((origin, addr)) = remembered {
            let label = origins[origin].label();
            log(&hook, LogLevel::Info, || {
                format!("the remembered line is {label} at {addr}")
            });
        }
        Lines {
            origins,
            names,
            tls,
            delay,
            spares: Mutex::default(),
            line: Mutex::new(remembered),
            addresses: Remembered::new(store.clone(), addresses_max_age, hook.clone()),
            store,
            log: hook,
        }
    }

    /// The base URL of the remembered line, if any.
    pub(crate) fn remembered(&self) -> Option<&Origin> {
        locked(&self.line).map(|(origin, _)| &self.origins[origin])
    }

    /// Keeps the winning line, and writes it to the state folder when it changed; keeps its
    /// name's addresses there too (see [`Lines::uses_remembered`]).
    fn remember(&self, origin: usize, addr: SocketAddr) {
        let Origin { host, port, .. } = &self.origins[origin];
        if self.uses_remembered(&self.origins[origin]) {
            let fresh = self.names.known(host, *port);
            self.addresses.keep(host, *port, addr, fresh);
        }
        let changed = locked(&self.line).replace((origin, addr)) != Some((origin, addr));
        if let (true, Some(store)) = (changed, &self.store) {
            let text = format!("{}\n{addr}", self.origins[origin].label());
            // Without a flush to disk: this is on the connection's path, and only a help.
            if let Err(err) = store.write_unflushed(LINE_FILE, text.as_bytes()) {
                log(&self.log, LogLevel::Warn, || {
                    format!("the winning line is not remembered: {}", err.message())
                });
            }
        }
    }

    /// Whether `origin`'s addresses are remembered across starts: a name that is looked up
    /// (not an IP literal, no fixed addresses), over https, where TLS checks that a remembered
    /// address still serves the name (over plain http nothing would).
    fn uses_remembered(&self, origin: &Origin) -> bool {
        origin.https && !self.names.is_fixed(&origin.host)
    }

    fn take_spare(&self, origin: usize) -> Option<Spare> {
        let mut spares = locked(&self.spares);
        spares.retain(|spare| spare.at.elapsed() < SPARE_AGE && spare.born.is_here());
        let index = spares.iter().position(|spare| spare.origin == origin)?;
        // Not probed like an idle connection: over TLS 1.3 the server's session tickets wait
        // unread on a fresh one.
        Some(spares.swap_remove(index))
    }

    fn targets(
        &self,
        first: Option<usize>,
        uri_origin: Origin,
    ) -> (Vec<Target>, Vec<Option<usize>>) {
        let line = *locked(&self.line);
        let order: Vec<Option<usize>> = match first {
            Some(first) => (0..self.origins.len())
                .map(|step| Some((first + step) % self.origins.len()))
                .collect(),
            None => vec![None],
        };
        let targets = order
            .iter()
            .map(|index| {
                let origin = index.map_or(&uri_origin, |index| &self.origins[index]);
                Target {
                    host: origin.host.clone(),
                    port: origin.port,
                    tls: origin.https.then(|| self.tls.config_for(&origin.host).0),
                    preferred: line
                        .filter(|(remembered, _)| Some(*remembered) == *index)
                        .map(|(_, addr)| addr),
                    remembered: match index {
                        Some(_) if self.uses_remembered(origin) => {
                            self.addresses.addresses(&origin.host, origin.port)
                        }
                        _ => Vec::new(),
                    },
                    label: origin.label(),
                }
            })
            .collect();
        (targets, order)
    }
}

/// The connector of a client's direct agent: races a new connection (see the module).
#[derive(Debug)]
pub(crate) struct RaceConnector(pub(crate) Arc<Lines>);

/// A request's connection was won by another base URL of the service (its index among the
/// client's base URLs that connect directly): send it there, after an Init there.
#[derive(Debug)]
pub(crate) struct ConnectedElsewhere(pub(crate) Origin);

impl std::fmt::Display for ConnectedElsewhere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} connected first", self.0.label())
    }
}

impl std::error::Error for ConnectedElsewhere {}

/// Every base URL of the service was tried and none connected: each one's failure.
#[derive(Debug)]
pub(crate) struct NoneConnected(pub(crate) Vec<(String, ureq::Error)>);

impl std::fmt::Display for NoneConnected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no server of the service connected")
    }
}

impl std::error::Error for NoneConnected {}

impl Connector<()> for RaceConnector {
    type Out = Connection;

    fn connect(
        &self,
        details: &ConnectionDetails,
        _chained: Option<()>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let lines = &self.0;
        let asked = Origin::of(details.uri)
            .ok_or_else(|| ureq::Error::BadUri("the URL has no host or port".into()))?;
        let first = lines.origins.iter().position(|origin| *origin == asked);
        if let Some(spare) = first.and_then(|first| lines.take_spare(first)) {
            (details.register_shutdown)(spare.socket)?;
            return Ok(Some(spare.transport));
        }
        let (targets, order) = lines.targets(first, asked);
        let deadline = match details.timeout.after {
            ureq::unversioned::transport::time::Duration::Exact(after) => Deadline::after(after),
            _ => Deadline::after(Duration::MAX),
        };
        let cancel = crate::cancel::watching();
        let won = race::race(
            &targets,
            &lines.names,
            lines.delay,
            deadline,
            cancel.as_ref(),
            &lines.log,
        )
        .map_err(|lost| failure(lost, &targets, details.timeout.reason))?;
        let origin = order[won.target];
        if let Some(origin) = origin {
            lines.remember(origin, won.addr);
        }
        let (socket, transport) = wrap(won, details)?;
        match origin {
            Some(origin) if Some(origin) != first => {
                let label = lines.origins[origin].clone();
                locked(&lines.spares).push(Spare {
                    origin,
                    at: Instant::now(),
                    born: Born::here(),
                    socket,
                    transport,
                });
                Err(ureq::Error::Other(Box::new(ConnectedElsewhere(label))))
            }
            _ => {
                (details.register_shutdown)(socket)?;
                Ok(Some(transport))
            }
        }
    }
}

/// The winner as a ureq transport: TCP, with TLS over it for https.
fn wrap(
    won: race::Won,
    details: &ConnectionDetails,
) -> Result<(Weak<dyn ShutdownHandle>, Connection), ureq::Error> {
    won.stream.set_nonblocking(false)?;
    prepare(&won.stream, details.config.no_delay())?;
    let buffers = WipedBuffers::new(
        details.config.input_buffer_size(),
        details.config.output_buffer_size(),
    );
    let tcp = Tcp::new(won.stream, buffers);
    let socket = tcp.shutdown_handle();
    let transport = match won.tls {
        None => Either::A(tcp),
        Some(connection) => Either::B(TlsTransport::established(
            connection,
            TransportAdapter::new(tcp.boxed(), details.current_time.clone()),
            details.config,
        )),
    };
    Ok((socket, transport))
}

/// A lost race as ureq's error: the one target's failure as it is (so that it is reported
/// as a single connect would be), or, when several base URLs were all tried,
/// [`NoneConnected`] with each one's.
fn failure(lost: Lost, targets: &[Target], reason: ureq::Timeout) -> ureq::Error {
    if lost.cancelled {
        return crate::cancel::Cancelled::as_ureq();
    }
    let timed_out = lost.timed_out;
    let all_tried = lost.tried.iter().all(|tried| *tried);
    let mut each = lost.failures.into_iter().map(|failure| match failure {
        Some(failure) => error_of(failure),
        None if timed_out => ureq::Error::Timeout(reason),
        None => ureq::Error::ConnectionFailed,
    });
    if targets.len() == 1 || !all_tried {
        // The first target's own failure; the client moves to the next base URL.
        let first = each.next().unwrap_or(ureq::Error::ConnectionFailed);
        return if timed_out && !all_tried {
            ureq::Error::Timeout(reason)
        } else {
            first
        };
    }
    ureq::Error::Other(Box::new(NoneConnected(
        targets
            .iter()
            .map(|target| target.label.clone())
            .zip(each)
            .collect(),
    )))
}

fn error_of(failure: Failure) -> ureq::Error {
    match failure {
        Failure::NotFound => ureq::Error::HostNotFound,
        Failure::Connect(err) => ureq::Error::Io(err),
        Failure::Tls(err) => ureq::Error::Rustls(err),
        Failure::Closed(_) => ureq::Error::Tls(HANDSHAKE_CLOSED),
    }
}
