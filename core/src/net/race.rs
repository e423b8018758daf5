//! Racing connection attempts, after RFC 8305 (Happy Eyeballs v2): a new connection to the
//! service is the first of several attempts to finish TCP, and TLS for https.
//!
//! The targets are the service's base URLs in order of preference (the one asked for first,
//! then the mirrors). Every address of every name is used:
//! - each target's addresses are ordered IPv6 and IPv4 in turn (the system's order within a
//!   family), the remembered winning address first;
//! - attempts go in rounds: the first address of each target, then the second of each, and
//!   so on;
//! - a new attempt starts when the earlier ones have not connected within the attempt delay
//!   (250 ms by default), or at once when every attempt under way has failed. An attempt that
//!   finished TCP and is in its TLS handshake holds the next one off for the delay plus two
//!   of its round trips (a handshake takes one or two), so that a slow link does not start
//!   needless attempts while a server that accepts but never answers TLS does not hold the
//!   call for the whole connect timeout;
//! - names are looked up on threads of their own, all at once; a target whose name is still
//!   being looked up holds later targets off for one delay, so that a mirror known at once
//!   does not win over a primary that needs a lookup;
//! - a target with addresses remembered from an earlier start ([`crate::net::addresses`]) tries
//!   them at once while its name is looked up again: the fresh answer's new addresses join
//!   the race when it comes (after the remembered ones), and a remembered address that no
//!   longer answers holds the next attempt off for one delay, like any other;
//! - the first attempt to finish wins; the others are closed at once.
//!
//! Everything happens in the calling thread with non-blocking sockets (mio), until the
//! deadline: nothing is left running when the race returns, but lookups still under way
//! (which end on their own and fill the name cache). No request byte is written during a
//! race, so a request is never sent twice because of it.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mio::net::TcpStream as Socket;
use mio::{Events, Interest, Poll, Token, Waker};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection};
use ureq::unversioned::transport::ShutdownHandle;

use crate::cancel::{CancelToken, WakePoll};
use crate::log::{log, LogHook, LogLevel};
use crate::net::resolve::Names;
use crate::net::tcp::in_progress;
use crate::util::deadline::Deadline;

/// The token of the waker (lookups done, or the race cancelled).
const WAKE: Token = Token(usize::MAX);

/// One base URL of the service in a race.
pub(crate) struct Target {
    /// The host (no brackets) and port.
    pub(crate) host: String,
    pub(crate) port: u16,
    /// The TLS configuration for https, `None` for http.
    pub(crate) tls: Option<Arc<ClientConfig>>,
    /// An address to try first when the name has it (the remembered winning line).
    pub(crate) preferred: Option<SocketAddr>,
    /// Addresses remembered from an earlier start, tried at once while the name is looked up
    /// (unused when the addresses are known without a lookup: fixed, literal or cached).
    pub(crate) remembered: Vec<SocketAddr>,
    /// `scheme://host:port`, for the log.
    pub(crate) label: String,
}

/// The connection that won.
pub(crate) struct Won {
    /// The index of its target.
    pub(crate) target: usize,
    /// The address it connected to.
    pub(crate) addr: SocketAddr,
    /// The socket, blocking again.
    pub(crate) stream: TcpStream,
    /// The finished TLS session, for https.
    pub(crate) tls: Option<ClientConnection>,
}

/// Why an attempt, or a target, failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The name was not found.
    NotFound,
    /// The TCP connect failed (refused, unreachable...).
    Connect(io::Error),
    /// TLS refused the server (certificate, protocol).
    Tls(rustls::Error),
    /// The connection closed or broke during the TLS handshake.
    Closed(io::Error),
}

/// How a race ended without a winner.
#[derive(Debug)]
pub(crate) struct Lost {
    /// For each target, the last failure (`None`: no attempt finished, or none started).
    pub(crate) failures: Vec<Option<Failure>>,
    /// Whether each target got at least one attempt (or its name was not found).
    pub(crate) tried: Vec<bool>,
    /// The deadline passed.
    pub(crate) timed_out: bool,
    /// The race was cancelled (a keeper being stopped).
    pub(crate) cancelled: bool,
}

/// What a target's addresses are, during a race.
enum Addresses {
    /// Being looked up since then.
    Resolving(Instant),
    /// Known, in the order they are tried.
    Known(Vec<SocketAddr>),
    /// The name was not found.
    Failed,
}

enum Phase {
    /// TCP connect under way.
    Connecting,
    /// TCP done at that time after that round trip; TLS handshake under way.
    Handshaking { since: Instant, rtt: Duration },
}

struct Attempt {
    target: usize,
    addr: SocketAddr,
    number: usize,
    socket: Socket,
    tls: Option<ClientConnection>,
    started: Instant,
    phase: Phase,
}

impl Attempt {
    /// Until when this attempt holds the next one off.
    fn holds_off_until(&self, delay: Duration) -> Instant {
        match self.phase {
            Phase::Connecting => self.started + delay,
            Phase::Handshaking { since, rtt } => since + delay + rtt.saturating_mul(2),
        }
    }
}

/// Orders addresses IPv6 and IPv4 in turn, keeping each family's own order; `preferred`
/// first when it is among them.
pub(crate) fn interleave(addrs: Vec<SocketAddr>, preferred: Option<SocketAddr>) -> Vec<SocketAddr> {
    let mut first: Vec<SocketAddr> = Vec::new();
    if let Some(preferred) = preferred.filter(|p| addrs.contains(p)) {
        first.push(preferred);
    }
    let lead_v6 = first
        .first()
        .or(addrs.first())
        .is_some_and(SocketAddr::is_ipv6);
    let rest: Vec<SocketAddr> = addrs.into_iter().filter(|addr| !first.contains(addr)).fold(
        Vec::new(),
        |mut seen, addr| {
            if !seen.contains(&addr) {
                seen.push(addr);
            }
            seen
        },
    );
    let (mut six, mut four): (Vec<_>, Vec<_>) = rest.into_iter().partition(SocketAddr::is_ipv6);
    six.reverse();
    four.reverse();
    // After the preferred address, the other family goes next.
    let mut want_v6 = if first.is_empty() { lead_v6 } else { !lead_v6 };
    while !six.is_empty() || !four.is_empty() {
        let next = if want_v6 { six.pop() } else { four.pop() };
        match next {
            Some(addr) => first.push(addr),
            None => first.extend(six.pop().into_iter().chain(four.pop())),
        }
        want_v6 = !want_v6;
    }
    first
}

/// Races connections to `targets` (see the module's documentation) until `deadline`.
/// `cancel`, when given, ends the race at once when cancelled.
pub(crate) fn race(
    targets: &[Target],
    names: &Arc<Names>,
    delay: Duration,
    deadline: Deadline,
    cancel: Option<&CancelToken>,
    hook: &Option<LogHook>,
) -> Result<Won, Lost> {
    let start = Instant::now();
    let mut lost = Lost {
        failures: targets.iter().map(|_| None).collect(),
        tried: vec![false; targets.len()],
        timed_out: false,
        cancelled: false,
    };
    let (mut poll, waker) = match Poll::new().and_then(|poll| {
        let waker = Waker::new(poll.registry(), WAKE)?;
        Ok((poll, Arc::new(waker)))
    }) {
        Ok(made) => made,
        Err(err) => {
            for failure in &mut lost.failures {
                *failure = Some(Failure::Connect(io::Error::new(
                    err.kind(),
                    format!("cannot wait for connections: {err}"),
                )));
            }
            lost.tried.fill(true);
            return Err(lost);
        }
    };
    // A cancel wakes the race (it "shuts down" the waker).
    let wake: Arc<dyn ShutdownHandle> = Arc::new(WakePoll(Arc::clone(&waker)));
    let watched = cancel.map(|token| (token, Arc::downgrade(&wake)));
    if let Some((token, handle)) = &watched {
        if !token.enter_io(handle) {
            lost.cancelled = true;
            return Err(lost);
        }
    }
    let outcome = Race {
        targets,
        names,
        delay,
        deadline,
        cancel,
        hook,
        start,
        poll: &mut poll,
        waker: &waker,
        addresses: Vec::new(),
        looking: vec![false; targets.len()],
        next_address: vec![0; targets.len()],
        attempts: Vec::new(),
        started: 0,
        lost,
    }
    .run();
    if let Some((token, handle)) = &watched {
        token.leave_io(handle);
    }
    outcome
}

struct Race<'a> {
    targets: &'a [Target],
    names: &'a Arc<Names>,
    delay: Duration,
    deadline: Deadline,
    cancel: Option<&'a CancelToken>,
    hook: &'a Option<LogHook>,
    start: Instant,
    poll: &'a mut Poll,
    waker: &'a Arc<Waker>,
    addresses: Vec<Addresses>,
    /// Per target: a lookup under way while its remembered addresses are tried.
    looking: Vec<bool>,
    /// Per target: how many of its addresses were tried.
    next_address: Vec<usize>,
    /// Attempts under way (slots of finished ones are `None`).
    attempts: Vec<Option<Attempt>>,
    started: usize,
    lost: Lost,
}

impl Race<'_> {
    fn run(mut self) -> Result<Won, Lost> {
        let lookups = self.look_up();
        let mut events = Events::with_capacity(16);
        loop {
            if let Some(results) = &lookups {
                while let Ok((target, found)) = results.try_recv() {
                    self.resolved(target, found);
                }
            }
            if self.cancel.is_some_and(CancelToken::is_cancelled) {
                self.lost.cancelled = true;
                return Err(self.lost);
            }
            let now = Instant::now();
            if now >= self.deadline.instant() {
                self.lost.timed_out = true;
                return Err(self.give_up(now));
            }
            self.start_due(now);
            if self.in_flight() == 0 && !self.more_to_come() {
                return Err(self.lost);
            }
            let wait = self.next_change(now).saturating_duration_since(now);
            if let Err(err) = self.poll.poll(&mut events, Some(wait)) {
                if err.kind() != io::ErrorKind::Interrupted {
                    self.fail_all(err);
                    return Err(self.lost);
                }
            }
            for event in events.iter() {
                if event.token() == WAKE {
                    continue;
                }
                if let Some(won) = self.progress(event.token().0) {
                    return Ok(self.finish(won));
                }
            }
        }
    }

    /// The addresses known now; lookups started for the others.
    fn look_up(&mut self) -> Option<Receiver<(usize, Option<Vec<SocketAddr>>)>> {
        let (done, results) = mpsc::channel();
        let mut waiting = false;
        for (index, target) in self.targets.iter().enumerate() {
            let state = match self.names.known(&target.host, target.port) {
                Some(addrs) => Addresses::Known(interleave(addrs, target.preferred)),
                None => {
                    let waker = Arc::clone(self.waker);
                    let started = self.names.lookup_in_background(
                        &target.host,
                        target.port,
                        index,
                        done.clone(),
                        move || {
                            let _ = waker.wake();
                        },
                    );
                    match started {
                        Ok(()) if !target.remembered.is_empty() => {
                            waiting = true;
                            self.looking[index] = true;
                            log(self.hook, LogLevel::Debug, || {
                                format!(
                                    "{}: trying {} remembered address(es) while the name is \
                                     looked up",
                                    target.label,
                                    target.remembered.len()
                                )
                            });
                            let preferred = target.preferred.or(target.remembered.first().copied());
                            Addresses::Known(interleave(target.remembered.clone(), preferred))
                        }
                        Ok(()) => {
                            waiting = true;
                            Addresses::Resolving(Instant::now())
                        }
                        Err(_) if !target.remembered.is_empty() => {
                            let preferred = target.preferred.or(target.remembered.first().copied());
                            Addresses::Known(interleave(target.remembered.clone(), preferred))
                        }
                        Err(err) => {
                            self.lost.failures[index] = Some(Failure::Connect(io::Error::new(
                                err.kind(),
                                format!("cannot start a name lookup: {err}"),
                            )));
                            self.lost.tried[index] = true;
                            Addresses::Failed
                        }
                    }
                }
            };
            self.addresses.push(state);
        }
        waiting.then_some(results)
    }

    fn resolved(&mut self, target: usize, found: Option<Vec<SocketAddr>>) {
        let label = &self.targets[target].label;
        let elapsed = self.start.elapsed();
        if std::mem::take(&mut self.looking[target]) {
            if let Addresses::Known(known) = &mut self.addresses[target] {
                // The remembered addresses are being tried: the new ones join after them.
                let before = known.len();
                if let Some(addrs) = found {
                    for addr in interleave(addrs, self.targets[target].preferred) {
                        if !known.contains(&addr) {
                            known.push(addr);
                        }
                    }
                }
                let added = known.len() - before;
                log(self.hook, LogLevel::Debug, || {
                    format!(
                        "{label}: the lookup answered in {} ms, {added} address(es) beside the \
                         remembered ones",
                        elapsed.as_millis()
                    )
                });
                return;
            }
        }
        self.addresses[target] = match found {
            Some(addrs) => {
                log(self.hook, LogLevel::Debug, || {
                    format!(
                        "{label}: {} address(es) found in {} ms",
                        addrs.len(),
                        elapsed.as_millis()
                    )
                });
                Addresses::Known(interleave(addrs, self.targets[target].preferred))
            }
            None => {
                log(self.hook, LogLevel::Warn, || {
                    format!(
                        "{label}: the name was not found ({} ms)",
                        elapsed.as_millis()
                    )
                });
                self.lost.failures[target] = Some(Failure::NotFound);
                self.lost.tried[target] = true;
                Addresses::Failed
            }
        };
    }

    fn in_flight(&self) -> usize {
        self.attempts.iter().flatten().count()
    }

    /// Whether an address may still come: one not tried yet, or a lookup under way.
    fn more_to_come(&self) -> bool {
        self.addresses
            .iter()
            .zip(&self.next_address)
            .zip(&self.looking)
            .any(|((state, next), looking)| match state {
                Addresses::Resolving(_) => true,
                Addresses::Known(addrs) => *looking || *next < addrs.len(),
                Addresses::Failed => false,
            })
    }

    /// The next address to try, in rounds over the targets: `None` when there is none yet,
    /// or when a target before it is still being looked up (for less than a delay).
    fn next_candidate(&self, now: Instant) -> Option<(usize, SocketAddr)> {
        let rounds = self
            .addresses
            .iter()
            .map(|state| match state {
                Addresses::Known(addrs) => addrs.len(),
                _ => 1,
            })
            .max()
            .unwrap_or(0);
        for round in 0..rounds {
            for (target, state) in self.addresses.iter().enumerate() {
                match state {
                    Addresses::Resolving(since) if now < *since + self.delay => return None,
                    Addresses::Known(addrs) if self.next_address[target] == round => {
                        if let Some(addr) = addrs.get(round) {
                            return Some((target, *addr));
                        }
                    }
                    _ => {}
                }
            }
        }
        None
    }

    /// Starts the attempts that are due: the next one when every attempt under way has held
    /// it off long enough, or when none is under way.
    fn start_due(&mut self, now: Instant) {
        loop {
            let held_off = self
                .attempts
                .iter()
                .flatten()
                .any(|attempt| now < attempt.holds_off_until(self.delay));
            if held_off {
                return;
            }
            let Some((target, addr)) = self.next_candidate(now) else {
                return;
            };
            self.next_address[target] += 1;
            self.lost.tried[target] = true;
            self.start_attempt(target, addr, now);
        }
    }

    /// Starts one attempt (an attempt that fails at once is recorded as failed).
    fn start_attempt(&mut self, target: usize, addr: SocketAddr, now: Instant) {
        self.started += 1;
        let number = self.started;
        let label = &self.targets[target].label;
        let since = now.saturating_duration_since(self.start).as_millis();
        let opened = Socket::connect(addr).and_then(|mut socket| {
            socket.set_nodelay(true)?;
            self.poll.registry().register(
                &mut socket,
                Token(self.attempts.len()),
                Interest::READABLE | Interest::WRITABLE,
            )?;
            Ok(socket)
        });
        match opened {
            Ok(socket) => {
                log(self.hook, LogLevel::Info, || {
                    format!("attempt {number}: {label} at {addr}, started at {since} ms")
                });
                self.attempts.push(Some(Attempt {
                    target,
                    addr,
                    number,
                    socket,
                    tls: None,
                    started: now,
                    phase: Phase::Connecting,
                }));
            }
            Err(err) => {
                log(self.hook, LogLevel::Info, || {
                    format!("attempt {number}: {label} at {addr} failed at once: {err}")
                });
                self.lost.failures[target] = Some(Failure::Connect(err));
            }
        }
    }

    /// When something may next change without an event: an attempt's hold-off ends, a slow
    /// lookup stops holding later targets, or the deadline.
    fn next_change(&self, now: Instant) -> Instant {
        let mut next = self.deadline.instant();
        if self.more_to_come() {
            let holds = self
                .attempts
                .iter()
                .flatten()
                .map(|attempt| attempt.holds_off_until(self.delay))
                .filter(|at| *at > now)
                .max();
            let unblocks = self
                .addresses
                .iter()
                .filter_map(|state| match state {
                    Addresses::Resolving(since) => Some(*since + self.delay),
                    _ => None,
                })
                .filter(|at| *at > now)
                .min();
            for at in [holds, unblocks].into_iter().flatten() {
                next = next.min(at);
            }
        }
        next
    }

    /// Moves the attempt in slot `slot` on after an event; its connection when it won.
    fn progress(&mut self, slot: usize) -> Option<Attempt> {
        let mut attempt = self.attempts.get_mut(slot)?.take()?;
        match self.advance(&mut attempt) {
            Ok(true) => Some(attempt),
            Ok(false) => {
                self.attempts[slot] = Some(attempt);
                None
            }
            Err(failure) => {
                let label = &self.targets[attempt.target].label;
                log(self.hook, LogLevel::Info, || {
                    format!(
                        "attempt {}: {label} at {} failed after {} ms: {}",
                        attempt.number,
                        attempt.addr,
                        attempt.started.elapsed().as_millis(),
                        describe(&failure)
                    )
                });
                let _ = self.poll.registry().deregister(&mut attempt.socket);
                self.lost.failures[attempt.target] = Some(failure);
                None
            }
        }
    }

    /// Connect, then TLS: `Ok(true)` when done, `Ok(false)` to wait for the next event.
    fn advance(&mut self, attempt: &mut Attempt) -> Result<bool, Failure> {
        if let Phase::Connecting = attempt.phase {
            if let Some(err) = attempt.socket.take_error().map_err(Failure::Connect)? {
                return Err(Failure::Connect(err));
            }
            match attempt.socket.peer_addr() {
                Ok(_) => {}
                Err(err) if err.kind() == io::ErrorKind::NotConnected || in_progress(&err) => {
                    return Ok(false)
                }
                Err(err) => return Err(Failure::Connect(err)),
            }
            let now = Instant::now();
            let target = &self.targets[attempt.target];
            let Some(config) = &target.tls else {
                return Ok(true);
            };
            let name = ServerName::try_from(target.host.clone()).map_err(|_| {
                Failure::Tls(rustls::Error::General(
                    "the host is not a valid TLS server name".into(),
                ))
            })?;
            let connection =
                ClientConnection::new(Arc::clone(config), name).map_err(Failure::Tls)?;
            attempt.tls = Some(connection);
            attempt.phase = Phase::Handshaking {
                since: now,
                rtt: now.saturating_duration_since(attempt.started),
            };
        }
        let Some(connection) = attempt.tls.as_mut() else {
            return Ok(true);
        };
        handshake(connection, &mut attempt.socket)
    }

    /// The winner, made blocking; every other attempt closed.
    fn finish(mut self, mut won: Attempt) -> Won {
        let _ = self.poll.registry().deregister(&mut won.socket);
        let closed = self.attempts.iter().flatten().count();
        let target = &self.targets[won.target];
        let tcp = match won.phase {
            Phase::Connecting => won.started.elapsed(),
            Phase::Handshaking { rtt, .. } => rtt,
        };
        let total = won.started.elapsed();
        log(self.hook, LogLevel::Info, || {
            let tls = if won.tls.is_some() {
                format!(", TLS {} ms", total.saturating_sub(tcp).as_millis())
            } else {
                String::new()
            };
            format!(
                "connected to {} at {}: attempt {} won (TCP {} ms{tls}; {} ms into the race); \
                 {closed} other attempt(s) closed",
                target.label,
                won.addr,
                won.number,
                tcp.as_millis(),
                self.start.elapsed().as_millis()
            )
        });
        for mut other in self.attempts.drain(..).flatten() {
            let _ = self.poll.registry().deregister(&mut other.socket);
        }
        let stream = TcpStream::from(won.socket);
        Won {
            target: won.target,
            addr: won.addr,
            stream,
            tls: won.tls,
        }
    }

    /// The attempts still under way at the deadline, logged and closed.
    fn give_up(mut self, now: Instant) -> Lost {
        for mut attempt in self.attempts.drain(..).flatten() {
            let label = &self.targets[attempt.target].label;
            log(self.hook, LogLevel::Info, || {
                format!(
                    "attempt {}: {label} at {} had not connected after {} ms",
                    attempt.number,
                    attempt.addr,
                    now.saturating_duration_since(attempt.started).as_millis()
                )
            });
            let _ = self.poll.registry().deregister(&mut attempt.socket);
        }
        self.lost
    }

    fn fail_all(&mut self, err: io::Error) {
        for attempt in self.attempts.drain(..).flatten() {
            self.lost.failures[attempt.target] = Some(Failure::Connect(io::Error::new(
                err.kind(),
                format!("waiting for the connection failed: {err}"),
            )));
        }
    }
}

/// Runs a TLS handshake on a non-blocking socket as far as it goes: `Ok(true)` when done.
fn handshake(connection: &mut ClientConnection, socket: &mut Socket) -> Result<bool, Failure> {
    loop {
        while connection.wants_write() {
            match connection.write_tls(socket) {
                Ok(_) => {}
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(Failure::Closed(err)),
            }
        }
        if !connection.is_handshaking() {
            return Ok(true);
        }
        match connection.read_tls(socket) {
            Ok(0) => {
                return Err(Failure::Closed(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection during the TLS handshake",
                )))
            }
            Ok(_) => {
                if let Err(err) = connection.process_new_packets() {
                    // Tell the server why (the alert), as a blocking handshake would.
                    let _ = connection.write_tls(socket);
                    return Err(Failure::Tls(err));
                }
            }
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(Failure::Closed(err)),
        }
    }
}

/// A failure in words, for the log.
fn describe(failure: &Failure) -> String {
    match failure {
        Failure::NotFound => "the name was not found".to_owned(),
        Failure::Connect(err) => err.to_string(),
        // The words of the call's own refusal (tls.rs), not rustls's debug forms.
        Failure::Tls(err) => crate::net::tls::refusal(err).1,
        Failure::Closed(err) => format!("closed during the TLS handshake: {err}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn addr(text: &str) -> SocketAddr {
        text.parse().expect("address")
    }

    #[test]
    fn addresses_alternate_families_and_the_preferred_one_goes_first() {
        let v6a = addr("[2001:db8::1]:443");
        let v6b = addr("[2001:db8::2]:443");
        let v4a = addr("192.0.2.1:443");
        let v4b = addr("192.0.2.2:443");
        assert_eq!(
            interleave(vec![v6a, v6b, v4a, v4b], None),
            vec![v6a, v4a, v6b, v4b]
        );
        assert_eq!(interleave(vec![v4a, v4b, v6a], None), vec![v4a, v6a, v4b]);
        assert_eq!(
            interleave(vec![v6a, v6b, v4a, v4b], Some(v4b)),
            vec![v4b, v6a, v4a, v6b]
        );
        assert_eq!(interleave(vec![v4a, v4a], Some(v6a)), vec![v4a]);
    }

    fn target(port: u16) -> Target {
        Target {
            host: "127.0.0.1".into(),
            port,
            tls: None,
            preferred: None,
            remembered: Vec::new(),
            label: format!("http://127.0.0.1:{port}"),
        }
    }

    #[test]
    fn a_refused_target_lets_the_next_one_start_at_once() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let open = listener.local_addr().expect("addr").port();
        let closed = {
            let gone = TcpListener::bind("127.0.0.1:0").expect("bind");
            gone.local_addr().expect("addr").port()
        };
        let names = Arc::new(Names::default());
        let started = Instant::now();
        let won = race(
            &[target(closed), target(open)],
            &names,
            Duration::from_secs(5),
            Deadline::after(Duration::from_secs(10)),
            None,
            &None,
        )
        .map_err(|lost| format!("{lost:?}"))
        .expect("the second target wins");
        assert_eq!(won.target, 1);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "waited for the delay: {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn nothing_listening_anywhere_ends_with_each_failure() {
        let closed = {
            let gone = TcpListener::bind("127.0.0.1:0").expect("bind");
            gone.local_addr().expect("addr").port()
        };
        let names = Arc::new(Names::default());
        let lost = race(
            &[target(closed), target(closed)],
            &names,
            Duration::from_millis(250),
            Deadline::after(Duration::from_secs(10)),
            None,
            &None,
        )
        .err()
        .expect("no winner");
        assert!(!lost.timed_out && !lost.cancelled);
        assert_eq!(lost.tried, vec![true, true]);
        assert!(lost
            .failures
            .iter()
            .all(|f| matches!(f, Some(Failure::Connect(err)) if err.kind() == io::ErrorKind::ConnectionRefused)));
    }

    fn listener() -> (TcpListener, u16) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        (listener, port)
    }

    #[test]
    fn a_remembered_address_is_tried_at_once_and_wins_though_the_name_is_not_found() {
        let (_listener, open) = listener();
        let names = Arc::new(Names::default());
        let mut remembered = target(open);
        remembered.host = "no-such-name.invalid".into();
        remembered.remembered = vec![addr(&format!("127.0.0.1:{open}"))];
        let started = Instant::now();
        let won = race(
            &[remembered],
            &names,
            Duration::from_secs(5),
            Deadline::after(Duration::from_secs(30)),
            None,
            &None,
        )
        .map_err(|lost| format!("{lost:?}"))
        .expect("the remembered address wins");
        assert_eq!(won.addr, addr(&format!("127.0.0.1:{open}")));
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "waited for the lookup: {:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_failing_remembered_address_lets_the_fresh_answer_win() {
        let (_listener, open) = listener();
        let names = Arc::new(Names::default());
        let mut moved = target(open);
        moved.host = "localhost".into();
        // 127.0.0.2 is loopback too, but nothing listens there: refused at once.
        moved.remembered = vec![addr(&format!("127.0.0.2:{open}"))];
        let won = race(
            &[moved],
            &names,
            Duration::from_secs(5),
            Deadline::after(Duration::from_secs(30)),
            None,
            &None,
        )
        .map_err(|lost| format!("{lost:?}"))
        .expect("the looked-up address wins");
        assert_eq!(won.addr, addr(&format!("127.0.0.1:{open}")));
        assert!(
            names.known("localhost", open).is_some(),
            "the answer is cached"
        );
    }

    #[test]
    fn fixed_addresses_win_over_remembered_ones() {
        let (_listener, open) = listener();
        let names = Arc::new(Names::new(
            vec![(
                "licensing.example.test".into(),
                "127.0.0.1".parse().expect("ip"),
            )],
            None,
        ));
        let mut fixed = target(open);
        fixed.host = "licensing.example.test".into();
        fixed.remembered = vec![addr(&format!("127.0.0.2:{open}"))];
        let won = race(
            &[fixed],
            &names,
            Duration::from_secs(5),
            Deadline::after(Duration::from_secs(30)),
            None,
            &None,
        )
        .map_err(|lost| format!("{lost:?}"))
        .expect("the fixed address wins");
        assert_eq!(won.addr, addr(&format!("127.0.0.1:{open}")));
    }

    #[test]
    fn a_cancelled_race_ends_at_once() {
        let names = Arc::new(Names::default());
        let token = CancelToken::new();
        token.cancel();
        let lost = race(
            &[target(9)],
            &names,
            Duration::from_millis(250),
            Deadline::after(Duration::from_secs(10)),
            Some(&token),
            &None,
        )
        .err()
        .expect("cancelled");
        assert!(lost.cancelled);
    }
}
