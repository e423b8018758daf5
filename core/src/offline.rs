//! Offline-first: the sealed store of the last good verdict, the offline verdict that a
//! login may give when the server cannot be reached, and trusted time (docs/architecture.md,
//! "New connections, and what outlives the process").
//!
//! Opt-in: a client keeps a verdict only when the host gave a state folder and an offline
//! grace period. Then:
//! - after every successful login (`SingleLogin`, or a password `UserLogin` without a card)
//!   and heartbeat, the store holds the mode, a keyed hash of the identity (never the card
//!   key or the username), the machine code, the server's data of the licence (expiry, card
//!   type and counts; never the token), when the server last confirmed it, and the latest
//!   server time seen (the reply's `Date`);
//! - a login that fails for an outage (DNS, connect, timeout, TLS handshake, proxy; or a
//!   reply that is not the service's: an HTTP 5xx or other error page, HTML, an empty or
//!   cut body, a captive portal's page or redirect: the service was not reached) answers
//!   from the store when it holds a verdict for the same program (the store is sealed per
//!   program), identity and machine, confirmed within the grace period, not expired, and the
//!   local clock was not moved back: an offline verdict, code 202, whose reply holds the
//!   stored data and says why the server could not be reached;
//! - a reply of the service (a JSON object with a `code`) is never an outage: a refusal
//!   never gives an offline verdict, and clears the stored verdict of the identity it
//!   concerns (another card's or account's stays); a refusal about the program (1001, 1012)
//!   clears every verdict of the program; the refusals that say nothing of the licence
//!   (1010, 1011, 1014: the request or this client's key) keep it;
//! - time offline is judged by the later of the local clock and the latest server time seen.
//!
//! The service signs nothing: the store protects against outages, casual edits and copying
//! to another machine, not against someone who controls the machine and the program
//! (SECURITY.md).

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::cancel::CancelToken;
use crate::clock_mark::{ClockMark, Stamp, Vouched};
use crate::codes;
use crate::error::{Error, ErrorKind};
use crate::log::{log, LogHook, LogLevel};
use crate::password_hash::PasswordHash;
use crate::reply::{OfflineInfo, Reply};
use crate::request::{ActionRequest, Purpose};
use crate::session::SessionKind;
use crate::state::Sealed;

/// The state file of the verdict of a session kind (one per mode: a program that uses both
/// card and account logins keeps both).
fn verdict_file(kind: SessionKind) -> String {
    format!("verdict-{}", kind.as_str())
}
/// The format of the verdict file's contents (3: with the stamp of the time mark it was
/// written under; 2: with the password's hash in account mode; a verdict of format 1 or 2 is
/// judged as then until its next online login, and one of format 1 answers in card mode
/// only).
const FORMAT: i64 = 3;
/// The service's times (`YYYY-MM-DD HH:mm:ss`) are Beijing time, UTC+08:00.
const SERVICE_OFFSET: i64 = 8 * 3600;

#[doc(inline)]
pub use crate::options::DEFAULT_CLOCK_TOLERANCE;

/// A login that the store answers for: its mode, identity, machine code and, in account
/// mode, password.
#[derive(Clone, Copy)]
pub(crate) struct Login<'a> {
    pub(crate) kind: SessionKind,
    identity: &'a str,
    machine: &'a str,
    password: Option<&'a str>,
}

impl std::fmt::Debug for Login<'_> {
    /// The identity, machine code and password are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl<'a> Login<'a> {
    /// The login of `request`: a card login (card mode), or a password login without a card
    /// (account mode), by its purpose; `None` for anything else (a renewal, a social login,
    /// other actions) and for a login without its identity (`Card` or `UserName`).
    pub(crate) fn of(request: &'a ActionRequest) -> Option<Login<'a>> {
        match request.purpose() {
            Purpose::CardLogin => Some(Login {
                kind: SessionKind::Card,
                identity: request.value("Card")?,
                machine: request.value("Mac").unwrap_or(""),
                password: None,
            }),
            Purpose::AccountLogin => Some(Login {
                kind: SessionKind::User,
                identity: request.value("UserName")?,
                machine: request.value("Mac").unwrap_or(""),
                password: Some(request.value("Password").unwrap_or("")),
            }),
            _ => None,
        }
    }
}

/// The session kind of a heartbeat request.
pub(crate) fn heartbeat_kind(request: &ActionRequest) -> Option<SessionKind> {
    match request.purpose() {
        Purpose::Heartbeat(kind) => Some(kind),
        _ => None,
    }
}

/// The session kind of a login request's reply: card for a card login, user for an account
/// login that returns a token (password or social); `None` for other requests.
pub(crate) fn session_of(request: &ActionRequest) -> Option<SessionKind> {
    request.purpose().session()
}

/// What an offline verdict needs to go on: the login to send again once the server can be
/// reached (its values are wiped when dropped), and the attempt to confirm it (at first the
/// exchange still going on in the background after a start budget). Held by the reply
/// ([`OfflineInfo`]), shared by every keeper started from it: one offline verdict is
/// confirmed by one login, however many keepers start from it (a count card never loses
/// two uses to one start).
#[derive(Debug)]
pub(crate) struct Resume {
    pub(crate) login: ActionRequest,
    attempt: Mutex<Option<Arc<Pending>>>,
}

impl Resume {
    pub(crate) fn new(login: ActionRequest, pending: Option<Arc<Pending>>) -> Resume {
        Resume {
            login,
            attempt: Mutex::new(pending),
        }
    }

    /// The attempt to follow, and whether the caller must run it (send the login and
    /// [`Pending::finish`] it): the attempt going on, or the one the server answered, is
    /// shared; a new one is made only when there is none, or when the one the caller
    /// already saw (`seen`) failed locally.
    pub(crate) fn attempt(&self, seen: Option<&Arc<Pending>>) -> (Arc<Pending>, bool) {
        let mut slot = self.attempt.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(current) = slot.as_ref() {
            let unseen = seen.is_none_or(|seen| !Arc::ptr_eq(seen, current));
            if unseen || !current.failed_locally() {
                return (Arc::clone(current), false);
            }
        }
        let fresh = Arc::new(Pending::default());
        *slot = Some(Arc::clone(&fresh));
        (fresh, true)
    }
}

/// The outcome of an exchange that goes on in the background.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    outcome: Mutex<Option<Result<Reply, Error>>>,
    done: Condvar,
    /// Cancels the exchange (the client is being freed).
    pub(crate) cancel: CancelToken,
}

impl Pending {
    pub(crate) fn finish(&self, outcome: Result<Reply, Error>) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        self.done.notify_all();
    }

    /// Finishes it with `outcome` unless it has an outcome already.
    pub(crate) fn finish_if_open(&self, outcome: impl FnOnce() -> Result<Reply, Error>) {
        let mut held = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        if held.is_none() {
            *held = Some(outcome());
            self.done.notify_all();
        }
    }

    /// Whether it ended without an answer of the server (a local failure).
    fn failed_locally(&self) -> bool {
        matches!(
            &*self.outcome.lock().unwrap_or_else(PoisonError::into_inner),
            Some(Err(error)) if error.reply().is_none()
        )
    }

    /// The outcome once there is one, waiting until `until` at most.
    pub(crate) fn wait_until(&self, until: Instant) -> Option<Result<Reply, Error>> {
        let mut outcome = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(done) = outcome.as_ref() {
                return Some(done.clone());
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            outcome = self
                .done
                .wait_timeout(outcome, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// The stored verdict.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    kind: SessionKind,
    /// A keyed hash of the card key or username.
    identity: String,
    machine: String,
    /// The server's `data` of the licence, without the token.
    data: Map<String, Value>,
    /// Unix seconds of the last confirmation by the server (its `Date`, else the local
    /// clock).
    confirmed_at: i64,
    /// Unix seconds of the latest server time seen.
    server_time: i64,
    /// Account mode: the slow salted hash of the password of the last online login.
    password: Option<PasswordHash>,
    /// The time mark the verdict was written under.
    marked: Marked,
}

/// What a verdict records of the time mark it was written under.
#[derive(Debug, Clone, PartialEq)]
enum Marked {
    /// Its stamp: the pieces must vouch for it offline ([`ClockMark::vouch`]).
    By(Stamp),
    /// The mark could not be stored in both places when the verdict was written (a place
    /// not writable, no second place): it cannot answer offline.
    Unmarked,
    /// Stored by a version before marks had an identity (formats 1 and 2): judged as then
    /// until its next online login ([`ClockMark::latest_unstamped`]).
    Unstamped,
}

impl Marked {
    fn of(stamp: Option<Stamp>) -> Marked {
        stamp.map_or(Marked::Unmarked, Marked::By)
    }
}

impl Verdict {
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        // An unstamped verdict (its password hash changed online) keeps its format.
        let format = match self.marked {
            Marked::Unstamped => 2,
            Marked::By(_) | Marked::Unmarked => FORMAT,
        };
        json!({
            "format": format,
            "mode": self.kind.as_str(),
            "identity": self.identity,
            "machine": self.machine,
            "data": self.data,
            "confirmed_at": self.confirmed_at,
            "server_time": self.server_time,
            "password": self.password.as_ref().map(|hash| json!({
                "salt": hex::encode(&hash.salt),
                "hash": hex::encode(&hash.hash),
                "rounds": hash.rounds,
            })),
            "mark": match &self.marked {
                Marked::By(stamp) => stamp.to_json(),
                Marked::Unmarked | Marked::Unstamped => Value::Null,
            },
        })
        .to_string()
        .into_bytes()
    }

    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Verdict> {
        let value: Value = serde_json::from_slice(bytes).ok()?;
        let format = value.get("format")?.as_i64()?;
        let marked = match format {
            1 | 2 => Marked::Unstamped,
            FORMAT => match value.get("mark") {
                None | Some(Value::Null) => Marked::Unmarked,
                Some(stamp) => Marked::By(Stamp::from_json(stamp)?),
            },
            _ => return None,
        };
        let password = match value.get("password") {
            None | Some(Value::Null) => None,
            Some(hash) => Some(PasswordHash {
                salt: hex::decode(hash.get("salt")?.as_str()?).ok()?,
                hash: hex::decode(hash.get("hash")?.as_str()?).ok()?,
                rounds: u32::try_from(hash.get("rounds")?.as_u64()?).ok()?,
            }),
        };
        Some(Verdict {
            kind: match value.get("mode")?.as_str()? {
                "card" => SessionKind::Card,
                "user" => SessionKind::User,
                _ => return None,
            },
            identity: value.get("identity")?.as_str()?.to_owned(),
            machine: value.get("machine")?.as_str()?.to_owned(),
            data: value.get("data")?.as_object()?.clone(),
            confirmed_at: value.get("confirmed_at")?.as_i64()?,
            server_time: value.get("server_time")?.as_i64()?,
            password,
            marked,
        })
    }

    /// The licence's expiry, from the service's `expire_at`.
    pub(crate) fn expiry(&self) -> Option<i64> {
        self.data
            .get("expire_at")
            .and_then(Value::as_str)
            .and_then(service_time)
    }
}

/// Unix seconds of a service time `YYYY-MM-DD HH:mm:ss` (UTC+08:00).
pub fn service_time(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, time) = text.split_once([' ', 'T'])?;
    let mut date = date.split('-').map(|part| part.parse::<i64>().ok());
    let (year, month, day) = (date.next()??, date.next()??, date.next()??);
    let mut time = time.split(':').map(|part| part.parse::<i64>().ok());
    let (hour, minute) = (time.next()??, time.next()??);
    let second = time.next().flatten().unwrap_or(0);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || !(0..24).contains(&hour)
        || !(0..60).contains(&minute)
        || !(0..=60).contains(&second)
        || !(1..=9999).contains(&year)
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - SERVICE_OFFSET)
}

fn unix(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

fn system_time(unix: i64) -> SystemTime {
    let magnitude = Duration::from_secs(unix.unsigned_abs());
    if unix >= 0 {
        UNIX_EPOCH.checked_add(magnitude).unwrap_or(UNIX_EPOCH)
    } else {
        UNIX_EPOCH.checked_sub(magnitude).unwrap_or(UNIX_EPOCH)
    }
}

/// "3 h 20 min", "45 s": a span in words.
fn span(seconds: i64) -> String {
    let seconds = seconds.unsigned_abs();
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7199 => format!("{} min", seconds / 60),
        7200..=172_799 => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
        _ => format!("{} days", seconds / 86_400),
    }
}

/// Whether a failure is an outage (the service was not reached, or did not answer): only
/// then may a login answer from the store. A failed connection, a timeout, a TLS handshake
/// or a proxy; and a reply that is not the service's (an HTTP 5xx or other error page, HTML,
/// an empty or cut body, a captive portal's page or redirect). A reply of the service (a
/// JSON object with a `code`) never is, whatever its code.
pub(crate) fn is_local(error: &Error) -> bool {
    error.reply().is_none()
        && (matches!(
            error.kind(),
            ErrorKind::Network | ErrorKind::Timeout | ErrorKind::Tls | ErrorKind::Proxy
        ) || error.is_not_the_service())
}

/// Refusals that say nothing of the licence (the client handles them itself, or they are
/// about this client's request or key, not the licence): they keep the stored verdict.
fn keeps_verdict(code: i32) -> bool {
    matches!(
        code,
        codes::SIGNATURE_ERROR | codes::APP_KEY_WRONG | codes::TIMESTAMP_SKEW
    )
}

/// A stored verdict as the doctor sees it ([`Offline::inspect`]).
pub(crate) struct Inspected {
    /// The server's last confirmation.
    pub(crate) confirmed_at: SystemTime,
    /// The end of the offline grace.
    pub(crate) grace_end: SystemTime,
    /// Whether its times let it answer now, or the code and why not.
    pub(crate) answers: Result<(), (ErrorKind, String)>,
}

/// Refusals about the program itself (it is gone, or not approved): they clear the stored
/// verdicts of every identity of the program.
fn about_the_program(code: i32) -> bool {
    matches!(code, codes::PROGRAM_NOT_FOUND | codes::NOT_APPROVED)
}

/// Compares two hashes in a time that does not depend on where they differ.
fn constant_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The offline settings and store of one client.
pub(crate) struct Offline {
    store: Arc<Sealed>,
    mark: ClockMark,
    grace: Duration,
    tolerance: Duration,
    budget: Option<Duration>,
    log: Option<LogHook>,
}

impl std::fmt::Debug for Offline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offline")
            .field("grace", &self.grace)
            .field("tolerance", &self.tolerance)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

/// How a stored verdict was judged.
enum Judged {
    /// It answers: the last confirmation and the end of the grace.
    Answers {
        confirmed_at: SystemTime,
        grace_end: SystemTime,
    },
    /// It may not answer: the code and why.
    Refused(ErrorKind, String),
}

impl Offline {
    pub(crate) fn new(
        store: Arc<Sealed>,
        mark: ClockMark,
        grace: Duration,
        tolerance: Duration,
        budget: Option<Duration>,
        log: Option<LogHook>,
    ) -> Offline {
        Offline {
            store,
            mark,
            grace,
            tolerance,
            budget,
            log,
        }
    }

    /// The start budget, if the host set one.
    pub(crate) fn budget(&self) -> Option<Duration> {
        self.budget
    }

    fn identity(&self, login: &Login) -> String {
        self.store
            .keyed_hash(login.kind.as_str().as_bytes(), login.identity.as_bytes())
    }

    fn load(&self, kind: SessionKind) -> Option<Verdict> {
        let bytes = self.store.read(&verdict_file(kind))?;
        let verdict = Verdict::from_bytes(&bytes);
        if verdict.is_none() {
            log(&self.log, LogLevel::Warn, || {
                "the stored verdict opens but does not read as one; it is ignored".to_owned()
            });
        }
        verdict
    }

    fn save(&self, verdict: &Verdict) {
        if let Err(err) = self
            .store
            .write(&verdict_file(verdict.kind), &verdict.to_bytes())
        {
            log(&self.log, LogLevel::Warn, || {
                format!("the verdict is not stored: {}", err.message())
            });
        }
    }

    fn clear(&self, kind: SessionKind, why: &str) {
        let file = verdict_file(kind);
        if self.store.exists(&file) {
            log(&self.log, LogLevel::Info, || {
                format!(
                    "the stored verdict ({} mode) is cleared: {why}",
                    kind.as_str()
                )
            });
            self.store.remove(&file);
        }
    }

    /// After a login: a success is stored, a refusal clears the stored verdict.
    pub(crate) fn observe_login(&self, login: &Login, outcome: &Result<Reply, Error>) {
        let reply = match outcome {
            Ok(reply) if reply.code() == codes::OK => reply,
            Ok(reply) if reply.offline().is_some() => return,
            Ok(reply) => return self.refused_login(login, reply.code()),
            Err(error) => match error.reply() {
                Some(reply) => return self.refused_login(login, reply.code()),
                None => return,
            },
        };
        let now = self.mark.local_now();
        let server = reply.date().map(unix);
        let stamp = self.mark.confirm(server, now);
        let mut data = reply.data().as_object().cloned().unwrap_or_default();
        data.remove("token");
        let previous = self.load(login.kind).map_or(i64::MIN, |v| v.server_time);
        let password = match login.password.map(PasswordHash::new) {
            None => None,
            Some(Ok(hash)) => Some(hash),
            Some(Err(err)) => {
                // Without its hash, an account's verdict could not check the password.
                log(&self.log, LogLevel::Warn, || {
                    format!("the verdict is not stored: {}", err.message())
                });
                return self.clear(login.kind, "the password could not be hashed");
            }
        };
        self.save(&Verdict {
            kind: login.kind,
            identity: self.identity(login),
            machine: login.machine.to_owned(),
            data,
            confirmed_at: server.unwrap_or(now),
            server_time: server.unwrap_or(i64::MIN).max(previous),
            password,
            marked: Marked::of(stamp),
        });
    }

    /// After an `UpdatePwd` (`request`) for an account: accepted, the stored verdict of that
    /// account keeps the new password's hash; refused for a wrong password (1003), the
    /// verdict of that account is cleared.
    pub(crate) fn observe_password_change(
        &self,
        request: &ActionRequest,
        outcome: &Result<Reply, Error>,
    ) {
        let (Some(user), Some(new)) = (request.value("UserName"), request.value("NewPassword"))
        else {
            return;
        };
        let code = match outcome {
            Ok(reply) => reply.code(),
            Err(error) => match error.reply() {
                Some(reply) => reply.code(),
                None => return,
            },
        };
        let identity = self
            .store
            .keyed_hash(SessionKind::User.as_str().as_bytes(), user.as_bytes());
        let Some(mut verdict) = self
            .load(SessionKind::User)
            .filter(|stored| constant_eq(&stored.identity, &identity))
        else {
            return;
        };
        match code {
            codes::OK => match PasswordHash::new(new) {
                Ok(hash) => {
                    verdict.password = Some(hash);
                    self.save(&verdict);
                }
                Err(_) => self.clear(SessionKind::User, "the new password could not be hashed"),
            },
            codes::WRONG_PASSWORD => self.clear(
                SessionKind::User,
                "the server refused the account's password (1003)",
            ),
            _ => {}
        }
    }

    /// After a heartbeat of a session of `kind`: a success confirms the stored verdict of
    /// that mode (and its new expiry), a refusal (the session's end: 1005, 1006, 1007)
    /// clears it.
    pub(crate) fn observe_heartbeat(&self, kind: SessionKind, outcome: &Result<Reply, Error>) {
        let reply = match outcome {
            Ok(reply) if reply.code() == codes::OK => reply,
            Ok(reply) => return self.refused(kind, reply.code()),
            Err(error) => match error.reply() {
                Some(reply) => return self.refused(kind, reply.code()),
                None => return,
            },
        };
        let now = self.mark.local_now();
        let server = reply.date().map(unix);
        let stamp = self.mark.confirm(server, now);
        let Some(mut verdict) = self.load(kind) else {
            return;
        };
        verdict.confirmed_at = server.unwrap_or(now);
        verdict.marked = Marked::of(stamp);
        if let Some(server) = server {
            verdict.server_time = verdict.server_time.max(server);
        }
        if let Some(expire_at) = reply.str_field("expire_at") {
            verdict
                .data
                .insert("expire_at".to_owned(), Value::from(expire_at));
        }
        self.save(&verdict);
    }

    /// A refusal of a session of `kind` (a heartbeat's): it clears that mode's verdict, or
    /// every verdict of the program for a refusal about the program.
    fn refused(&self, kind: SessionKind, code: i32) {
        if about_the_program(code) {
            self.clear_all(code);
        } else if !keeps_verdict(code) {
            self.clear(kind, &format!("the server refused with {code}"));
        }
    }

    /// A refusal of `login`: it clears the verdict of that identity only (a wrong card typed
    /// once never costs the good card its verdict), or every verdict of the program for a
    /// refusal about the program.
    fn refused_login(&self, login: &Login, code: i32) {
        if about_the_program(code) {
            self.clear_all(code);
        } else if !keeps_verdict(code) {
            let identity = self.identity(login);
            if self
                .load(login.kind)
                .is_some_and(|stored| constant_eq(&stored.identity, &identity))
            {
                self.clear(
                    login.kind,
                    &format!("the server refused this identity with {code}"),
                );
            }
        }
    }

    fn clear_all(&self, code: i32) {
        for kind in [SessionKind::Card, SessionKind::User] {
            self.clear(kind, &format!("the server refused the program with {code}"));
        }
    }

    /// Judges the stored verdict for `login` at the local time `local` (Unix seconds):
    /// `None` when the store holds none for it. The clock is judged against the latest time
    /// seen: the verdict's server times and the time mark. In account mode the password is checked first (the slow hash),
    /// unless `password` is false (only whether the store may answer is asked).
    fn judge(&self, login: &Login, local: i64, password: bool) -> Option<(Verdict, Judged)> {
        let verdict = self.load(login.kind)?;
        if verdict.kind != login.kind
            || !constant_eq(&verdict.identity, &self.identity(login))
            || verdict.machine != login.machine
        {
            return None;
        }
        if login.kind == SessionKind::User {
            let Some(hash) = &verdict.password else {
                log(&self.log, LogLevel::Warn, || {
                    "the stored verdict of the account holds no password hash (stored by an \
                     older version); it is ignored"
                        .to_owned()
                });
                return None;
            };
            if password && !hash.matches(login.password.unwrap_or("")) {
                let why = "the password does not match the one of the last online login".to_owned();
                return Some((verdict, Judged::Refused(ErrorKind::OfflinePassword, why)));
            }
        }
        Some(self.judge_times(verdict, local))
    }

    /// Judges a stored verdict's times (the pieces of the store that vouch for it, the clock
    /// against the latest time seen, the grace, the licence's expiry) at the local time
    /// `local` (Unix seconds).
    fn judge_times(&self, verdict: Verdict, local: i64) -> (Verdict, Judged) {
        let vouched = match &verdict.marked {
            Marked::By(stamp) => self.mark.vouch(stamp),
            Marked::Unstamped => self.mark.latest_unstamped(),
            Marked::Unmarked => Vouched::Unconfirmed(format!(
                "the time mark could not be stored in both places when the licence was stored                  (second place: {})",
                self.mark.second_place()
            )),
        };
        let latest = match vouched {
            Vouched::Latest(latest) => latest,
            Vouched::Unconfirmed(why) => {
                let why = format!(
                    "the offline time check cannot be confirmed: {why}; log in online once"
                );
                return (verdict, Judged::Refused(ErrorKind::TimeUnconfirmed, why));
            }
        };
        let mark = verdict.server_time.max(verdict.confirmed_at).max(latest);
        let tolerance = i64::try_from(self.tolerance.as_secs()).unwrap_or(i64::MAX);
        let grace = i64::try_from(self.grace.as_secs()).unwrap_or(i64::MAX);
        let trusted = local.max(mark);
        let grace_end = verdict.confirmed_at.saturating_add(grace);
        let judged = if local < mark.saturating_sub(tolerance) {
            Judged::Refused(
                ErrorKind::ClockBack,
                format!(
                    "the local clock is {} earlier than the latest time seen (more than the \
                     tolerance of {}): it was moved back",
                    span(mark - local),
                    span(tolerance)
                ),
            )
        } else if trusted > grace_end {
            Judged::Refused(
                ErrorKind::GraceOver,
                format!(
                    "the server last confirmed the licence {} ago, more than the offline grace \
                     period of {}",
                    span(trusted - verdict.confirmed_at),
                    span(grace)
                ),
            )
        } else if let Some(expiry) = verdict.expiry().filter(|expiry| trusted >= *expiry) {
            Judged::Refused(
                ErrorKind::OfflineExpired,
                format!("the stored licence expired {} ago", span(trusted - expiry)),
            )
        } else {
            Judged::Answers {
                confirmed_at: system_time(verdict.confirmed_at),
                grace_end: system_time(grace_end),
            }
        };
        (verdict, judged)
    }

    /// What the doctor reports of the stored verdict of `kind`, without a login to match it
    /// against: `None` when the store holds none; else its last confirmation, the end of its
    /// grace, and whether its times would let it answer now (`Err`: the code and why not).
    /// Whose verdict it is (card or account, machine, password) is checked only by a login.
    pub(crate) fn inspect(&self, kind: SessionKind, now: SystemTime) -> Option<Inspected> {
        let verdict = self.load(kind)?;
        let grace = i64::try_from(self.grace.as_secs()).unwrap_or(i64::MAX);
        let confirmed_at = system_time(verdict.confirmed_at);
        let grace_end = system_time(verdict.confirmed_at.saturating_add(grace));
        let answers = match self.judge_times(verdict, unix(now)).1 {
            Judged::Answers { .. } => Ok(()),
            Judged::Refused(kind, why) => Err((kind, why)),
        };
        Some(Inspected {
            confirmed_at,
            grace_end,
            answers,
        })
    }

    /// Whether the store may answer `login` now (a start budget applies only then).
    pub(crate) fn could_answer(&self, login: &Login) -> bool {
        matches!(
            self.judge(login, self.mark.local_now(), false),
            Some((_, Judged::Answers { .. }))
        )
    }

    /// The last confirmation and the end of the grace of the stored verdict of `kind`, if
    /// any.
    pub(crate) fn confirmation(&self, kind: SessionKind) -> Option<(SystemTime, SystemTime)> {
        let verdict = self.load(kind)?;
        let grace = i64::try_from(self.grace.as_secs()).unwrap_or(i64::MAX);
        Some((
            system_time(verdict.confirmed_at),
            system_time(verdict.confirmed_at.saturating_add(grace)),
        ))
    }

    /// The answer to `login` (`request`) after the local failure `failure`: an offline
    /// verdict (code 202) when the store may give one, else the failure (the store's reason
    /// added, with its own code, when a stored verdict was refused). `pending` is the
    /// exchange that goes on in the background, if any.
    pub(crate) fn answer(
        &self,
        login: &Login,
        request: &ActionRequest,
        failure: Error,
        pending: Option<Arc<Pending>>,
    ) -> Result<Reply, Error> {
        let local = self.mark.local_now();
        let judged = self.judge(login, local, true);
        self.mark.advance(local);
        let Some((verdict, judged)) = judged else {
            return Err(failure);
        };
        match judged {
            Judged::Refused(kind, why) => {
                log(&self.log, LogLevel::Warn, || {
                    format!("no offline verdict: {why}")
                });
                Err(Error::local(
                    kind,
                    format!(
                        "the server could not be reached ({}), and the stored verdict cannot \
                         answer: {why}",
                        failure.message()
                    ),
                ))
            }
            Judged::Answers {
                confirmed_at,
                grace_end,
            } => {
                log(&self.log, LogLevel::Warn, || {
                    format!(
                        "licensed offline from the stored verdict (the server could not be \
                         reached: {})",
                        failure.message()
                    )
                });
                let envelope = json!({
                    "code": codes::OFFLINE,
                    "message": format!("licensed offline: the server could not be reached ({})", failure.message()),
                    "data": verdict.data,
                });
                Ok(Reply::offline_verdict(
                    envelope,
                    OfflineInfo {
                        confirmed_at,
                        grace_end,
                        reason_code: failure.code(),
                        reason: failure.message().to_owned(),
                        kind: login.kind,
                        resume: Arc::new(Resume::new(request.clone(), pending)),
                    },
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_times_are_beijing_time() {
        // 2024-01-01 08:00:00 in Beijing is 2024-01-01 00:00:00 UTC.
        assert_eq!(service_time("2024-01-01 08:00:00"), Some(1_704_067_200));
        assert_eq!(service_time("1970-01-01 08:00:00"), Some(0));
        assert_eq!(service_time("2099-12-31 23:59:59"), Some(4_102_415_999));
        for bad in [
            "",
            "2024-13-01 00:00:00",
            "2024-01-01",
            "x-y-z 1:2:3",
            "2024-01-01 25:00:00",
        ] {
            assert_eq!(service_time(bad), None, "{bad:?}");
        }
    }

    /// A store of the previous version (a format 2 verdict, marks without an identity) is
    /// judged as then, and migrated by the next online login; put back afterwards, the old
    /// verdict no longer answers.
    #[test]
    fn a_verdict_of_the_previous_format_answers_until_the_next_online_login() {
        let root =
            std::env::temp_dir().join(format!("verify-offline-migrate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (folder, second) = (root.join("state"), root.join("second"));
        let store = Arc::new(
            Sealed::new(folder.clone(), "10001", b"APPKEY", b"machine-a", None).expect("store"),
        );
        let options = crate::options::Options {
            clock_mark_folder: Some(second.clone()),
            ..Default::default()
        };
        let mark = ClockMark::open(
            Arc::clone(&store),
            &folder,
            "10001",
            b"APPKEY",
            b"machine-a",
            &options,
        )
        .expect("mark");
        let offline = Offline::new(
            Arc::clone(&store),
            mark,
            Duration::from_secs(7 * 86_400),
            Duration::from_secs(600),
            None,
            None,
        );
        let login = Login {
            kind: SessionKind::Card,
            identity: "CARD-1",
            machine: "M",
            password: None,
        };
        let now = unix(SystemTime::now());
        // As the previous version wrote them: no mark stamp, marks without an identity.
        let mut older: Value = serde_json::from_slice(
            &Verdict {
                kind: SessionKind::Card,
                identity: offline.identity(&login),
                machine: "M".into(),
                data: Map::new(),
                confirmed_at: now - 3600,
                server_time: now - 3600,
                password: None,
                marked: Marked::Unstamped,
            }
            .to_bytes(),
        )
        .expect("json");
        older.as_object_mut().expect("object").remove("mark");
        let older = older.to_string();
        store
            .write("verdict-card", older.as_bytes())
            .expect("verdict");
        let legacy_mark = json!({"mark": now - 3600, "floor": i64::MIN}).to_string();
        store.write("clock", legacy_mark.as_bytes()).expect("mark");
        Sealed::new(second.clone(), "10001", b"APPKEY", b"machine-a", None)
            .expect("second")
            .write("clock", legacy_mark.as_bytes())
            .expect("mark");
        assert!(offline.could_answer(&login), "judged as before the upgrade");

        // The next online login migrates: a stamped verdict, marks with an identity.
        let reply = Reply::from_body(
            br#"{"code":200,"message":"ok","data":{"expire_at":"2099-01-01 00:00:00"}}"#,
        )
        .expect("reply")
        .with_date(Some(SystemTime::now()));
        offline.observe_login(&login, &Ok(reply));
        let stored = offline.load(SessionKind::Card).expect("verdict");
        assert!(matches!(stored.marked, Marked::By(_)), "{stored:?}");
        assert!(offline.could_answer(&login), "migrated");

        // The old verdict put back: the marks have moved on, it answers no more.
        store
            .write("verdict-card", older.as_bytes())
            .expect("put back");
        assert!(
            !offline.could_answer(&login),
            "an older verdict put back after the upgrade"
        );
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn spans_read_as_words() {
        assert_eq!(span(45), "45 s");
        assert_eq!(span(-600), "10 min");
        assert_eq!(span(3 * 3600 + 1200), "3 h 20 min");
        assert_eq!(span(3 * 86_400), "3 days");
    }

    #[test]
    fn verdicts_round_trip() {
        let verdict = Verdict {
            kind: SessionKind::User,
            identity: "ab".into(),
            machine: "M".into(),
            data: json!({"expire_at": "2099-01-01 00:00:00"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            confirmed_at: 1,
            server_time: 2,
            password: Some(PasswordHash {
                salt: vec![1; 16],
                hash: vec![2; 32],
                rounds: 30_000,
            }),
            marked: Marked::By(Stamp {
                id: "00ff".into(),
                at: 3,
                second: "ab".into(),
            }),
        };
        assert_eq!(
            Verdict::from_bytes(&verdict.to_bytes()),
            Some(verdict.clone())
        );
        assert_eq!(Verdict::from_bytes(b"{}"), None);
        let unmarked = Verdict {
            marked: Marked::Unmarked,
            ..verdict.clone()
        };
        assert_eq!(
            Verdict::from_bytes(&unmarked.to_bytes()),
            Some(unmarked.clone())
        );
        // A verdict of the previous format reads as unstamped.
        let mut older: Value = serde_json::from_slice(&verdict.to_bytes()).expect("json");
        older["format"] = json!(2);
        let older = Verdict::from_bytes(older.to_string().as_bytes()).expect("format 2");
        assert_eq!(older.marked, Marked::Unstamped);
        assert_eq!(Verdict::from_bytes(&older.to_bytes()), Some(older));
        assert_eq!(verdict.expiry(), service_time("2099-01-01 00:00:00"));
    }
}
