//! Offline-first: the sealed store of the last good verdict, the offline verdict that a
//! login may give when the server cannot be reached, and trusted time (docs/architecture.md,
//! "New connections, and what outlives the process").
//!
//! Opt-in: a client keeps a verdict only when the host gave a state folder and an offline
//! grace period. Then:
//! - after every successful login (`SingleLogin`, or a password `UserLogin` without a card)
//!   and heartbeat, the store holds, in a file of that identity, the mode, a keyed hash of the
//!   identity (never the card key or the username), the machine code, the server's data of the
//!   licence (expiry, card type and counts; never the token), a keyed hash of the session's
//!   token (a heartbeat finds its verdict by it), when the server last confirmed it, and the
//!   latest server time seen (the reply's `Date`). One verdict per identity (card or account),
//!   at most [`MAX_VERDICTS_PER_MODE`] per mode, the one written longest ago dropped first:
//!   a program used with several cards on one machine keeps each card's;
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
//!
//! The folder: this file, the store of one client (`Offline`: what a login's answer does
//! to it, and whether it may answer); `verdict.rs`, a stored verdict and its file format;
//! `clock_mark.rs`, the time mark in its two places; `password_hash.rs`, the account's
//! password hash; `pending.rs`, an exchange that goes on in the background after a start
//! budget. Which requests are logins, and their identity, machine code and password, each
//! request says itself (`ActionRequest::login`, from the action table). The client's path through them is
//! `client/licensed.rs`.

pub(crate) mod clock_mark;
mod password_hash;
mod pending;
mod verdict;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::codes;
use crate::error::{Error, ErrorKind};
use crate::log::{log, LogHook, LogLevel};
use crate::reply::{OfflineInfo, Reply};
use crate::request::{ActionRequest, Login, LoginRole};
use crate::session::SessionKind;
use crate::state::Sealed;
use clock_mark::{ClockMark, Stamp, Vouched};
use password_hash::PasswordHash;
use verdict::{system_time, unix, Marked};

pub(crate) use verdict::Verdict;

pub(crate) use pending::{Pending, Resume};
pub use verdict::service_time;

/// How many verdicts the store keeps per mode (card, account): one per identity (a card key,
/// an account), so that a program used with several cards on one machine, or a keeper's login
/// with a second card, keeps the first card's verdict. Past it, the verdict written longest
/// ago (by a login or a heartbeat that the server confirmed) is dropped.
pub const MAX_VERDICTS_PER_MODE: usize = 8;

/// The state file of the verdict of `identity` (its keyed hash) in the mode `kind`.
fn verdict_file(kind: SessionKind, identity: &str) -> String {
    let short = identity.get(..16).unwrap_or(identity);
    format!("{}-{short}", mode_files(kind))
}

/// What the names of a mode's verdict files start with; alone, the one verdict per mode that
/// versions before 0.2 kept (read until the next online login of its identity).
pub(crate) fn mode_files(kind: SessionKind) -> String {
    format!("verdict-{}", kind.as_str())
}

#[doc(inline)]
pub use crate::options::DEFAULT_CLOCK_TOLERANCE;

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
    codes::CodeClass::KeepsOfflineVerdict.has(code)
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
pub(crate) fn constant_eq(a: &str, b: &str) -> bool {
    crate::util::constant_eq(a.as_bytes(), b.as_bytes())
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

    fn load_file(&self, file: &str) -> Option<Verdict> {
        let bytes = self.store.read(file)?;
        let verdict = Verdict::from_bytes(&bytes);
        if verdict.is_none() {
            log(&self.log, LogLevel::Warn, || {
                "a stored verdict opens but does not read as one; it is ignored".to_owned()
            });
        }
        verdict
    }

    /// The stored verdict of `identity` (a keyed hash) in the mode `kind`: its own file, or
    /// the one verdict per mode of an earlier version when it is that identity's.
    fn load(&self, kind: SessionKind, identity: &str) -> Option<Verdict> {
        if let Some(verdict) = self.load_file(&verdict_file(kind, identity)) {
            return Some(verdict).filter(|v| constant_eq(&v.identity, identity));
        }
        self.load_file(&mode_files(kind))
            .filter(|v| v.kind == kind && constant_eq(&v.identity, identity))
    }

    /// Every stored verdict of the mode `kind`, with its file, the file written longest ago
    /// first.
    fn all(&self, kind: SessionKind) -> Vec<(String, Verdict)> {
        let mut files = self.store.names_starting(&mode_files(kind));
        files.sort_by_key(|(_, written)| *written);
        files
            .into_iter()
            .filter_map(|(file, _)| {
                let verdict = self.load_file(&file)?;
                Some((file, verdict)).filter(|(_, v)| v.kind == kind)
            })
            .collect()
    }

    /// The verdict of the mode `kind` the server confirmed last, if any.
    fn latest(&self, kind: SessionKind) -> Option<Verdict> {
        self.all(kind)
            .into_iter()
            .map(|(_, verdict)| verdict)
            .max_by_key(|verdict| verdict.confirmed_at)
    }

    /// The verdict of the session of a heartbeat's `token`, with its file: the one whose
    /// login gave that token.
    fn of_token(&self, kind: SessionKind, token: &str) -> Option<(String, Verdict)> {
        let hash = self.token_hash(token);
        self.all(kind).into_iter().find(|(_, verdict)| {
            verdict
                .token
                .as_deref()
                .is_some_and(|held| constant_eq(held, &hash))
        })
    }

    fn token_hash(&self, token: &str) -> String {
        self.store.keyed_hash(b"token", token.as_bytes())
    }

    /// Stores `verdict` in its identity's file (the earlier version's one per mode goes when
    /// it was that identity's), then keeps at most [`MAX_VERDICTS_PER_MODE`] of its mode.
    fn save(&self, verdict: &Verdict) {
        let file = verdict_file(verdict.kind, &verdict.identity);
        if let Err(err) = self.store.write(&file, &verdict.to_bytes()) {
            log(&self.log, LogLevel::Warn, || {
                format!("the verdict is not stored: {}", err.message())
            });
            return;
        }
        let legacy = mode_files(verdict.kind);
        if self
            .load_file(&legacy)
            .is_some_and(|old| constant_eq(&old.identity, &verdict.identity))
        {
            self.store.remove(&legacy);
        }
        let all = self.all(verdict.kind);
        if all.len() > MAX_VERDICTS_PER_MODE {
            let extra = all.len() - MAX_VERDICTS_PER_MODE;
            for (old, _) in all.into_iter().take(extra) {
                log(&self.log, LogLevel::Info, || {
                    format!(
                        "a stored verdict ({} mode) is dropped: the store keeps the \
                         {MAX_VERDICTS_PER_MODE} written last",
                        verdict.kind.as_str()
                    )
                });
                self.store.remove(&old);
            }
        }
    }

    /// Clears the verdict of `identity` in the mode `kind` (its file, or the earlier
    /// version's one per mode when it is that identity's).
    fn clear(&self, kind: SessionKind, identity: &str, why: &str) {
        let own = verdict_file(kind, identity);
        let legacy = mode_files(kind);
        let files = [own, legacy]
            .into_iter()
            .filter(|file| {
                self.load_file(file)
                    .is_some_and(|stored| constant_eq(&stored.identity, identity))
            })
            .collect::<Vec<_>>();
        for file in files {
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
        let (now, server, stamp) = self.confirmed(reply);
        let mut data = reply.data().as_object().cloned().unwrap_or_default();
        let token = match data.remove("token") {
            Some(Value::String(token)) => Some(self.token_hash(&token)),
            _ => None,
        };
        let identity = self.identity(login);
        let previous = self
            .load(login.kind, &identity)
            .map_or(i64::MIN, |v| v.server_time);
        let password = match login.password.map(PasswordHash::new) {
            None => None,
            Some(Ok(hash)) => Some(hash),
            Some(Err(err)) => {
                // Without its hash, an account's verdict could not check the password.
                log(&self.log, LogLevel::Warn, || {
                    format!("the verdict is not stored: {}", err.message())
                });
                return self.clear(login.kind, &identity, "the password could not be hashed");
            }
        };
        self.save(&Verdict {
            kind: login.kind,
            identity,
            machine: login.machine.to_owned(),
            data,
            confirmed_at: server.unwrap_or(now),
            server_time: server.unwrap_or(i64::MIN).max(previous),
            password,
            marked: Marked::of(stamp),
            token,
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
        let (Some(user), Some(new)) = (
            request.role(LoginRole::Identity),
            request.role(LoginRole::NewPassword),
        ) else {
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
        let Some(mut verdict) = self.load(SessionKind::User, &identity) else {
            return;
        };
        match code {
            codes::OK => match PasswordHash::new(new) {
                Ok(hash) => {
                    verdict.password = Some(hash);
                    self.save(&verdict);
                }
                Err(_) => self.clear(
                    SessionKind::User,
                    &identity,
                    "the new password could not be hashed",
                ),
            },
            codes::WRONG_PASSWORD => self.clear(
                SessionKind::User,
                &identity,
                "the server refused the account's password (1003)",
            ),
            _ => {}
        }
    }

    /// The server's confirmation in `reply`: the time mark set to its time (its `Date`,
    /// else the local time). The local time, the server's time, and the stamp of the mark
    /// for a verdict written now.
    fn confirmed(&self, reply: &Reply) -> (i64, Option<i64>, Option<Stamp>) {
        let now = self.mark.local_now();
        let server = reply.date().map(unix);
        (now, server, self.mark.confirm(server, now))
    }

    /// After a heartbeat of the session of `token` (of `kind`): a success confirms the stored
    /// verdict of that session's identity (and its new expiry), a refusal (the session's end:
    /// 1005, 1006, 1007) clears it. A token no stored verdict's login gave touches none.
    pub(crate) fn observe_heartbeat(
        &self,
        kind: SessionKind,
        token: &str,
        outcome: &Result<Reply, Error>,
    ) {
        let reply = match outcome {
            Ok(reply) if reply.code() == codes::OK => reply,
            Ok(reply) => return self.refused(kind, token, reply.code()),
            Err(error) => match error.reply() {
                Some(reply) => return self.refused(kind, token, reply.code()),
                None => return,
            },
        };
        let (now, server, stamp) = self.confirmed(reply);
        let Some((_, mut verdict)) = self.of_token(kind, token) else {
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

    /// A refusal of the session of `token` (a heartbeat's): it clears that session's verdict,
    /// or every verdict of the program for a refusal about the program.
    fn refused(&self, kind: SessionKind, token: &str, code: i32) {
        if about_the_program(code) {
            self.clear_all(code);
        } else if !keeps_verdict(code) {
            if let Some((_, verdict)) = self.of_token(kind, token) {
                self.clear(
                    kind,
                    &verdict.identity,
                    &format!("the server refused its session with {code}"),
                );
            }
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
            self.clear(
                login.kind,
                &identity,
                &format!("the server refused this identity with {code}"),
            );
        }
    }

    fn clear_all(&self, code: i32) {
        for kind in [SessionKind::Card, SessionKind::User] {
            for (file, _) in self.all(kind) {
                log(&self.log, LogLevel::Info, || {
                    format!(
                        "the stored verdict ({} mode) is cleared: the server refused the program \
                         with {code}",
                        kind.as_str()
                    )
                });
                self.store.remove(&file);
            }
        }
    }

    /// Judges the stored verdict for `login` at the local time `local` (Unix seconds):
    /// `None` when the store holds none for it. The clock is judged against the latest time
    /// seen: the verdict's server times and the time mark. In account mode the password is checked first (the slow hash),
    /// unless `password` is false (only whether the store may answer is asked).
    fn judge(&self, login: &Login, local: i64, password: bool) -> Option<(Verdict, Judged)> {
        let verdict = self.load(login.kind, &self.identity(login))?;
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

    /// What the doctor reports of the stored verdicts of `kind`, without a login to match
    /// them against: `None` when the store holds none; else the one the server confirmed last:
    /// its last confirmation, the end of its grace, and whether its times would let it answer
    /// now (`Err`: the code and why not). Whose verdict it is (card or account, machine,
    /// password) is checked only by a login.
    pub(crate) fn inspect(&self, kind: SessionKind, now: SystemTime) -> Option<Inspected> {
        let verdict = self.latest(kind)?;
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

    /// The last confirmation and the end of the grace of the stored verdict of `kind` the
    /// server confirmed last, if any.
    pub(crate) fn confirmation(&self, kind: SessionKind) -> Option<(SystemTime, SystemTime)> {
        self.latest(kind).map(|verdict| self.times_of(&verdict))
    }

    /// The last confirmation and the end of the grace of the stored verdict of `request`'s
    /// session: a login's identity, or the session of a heartbeat's token.
    pub(crate) fn confirmation_of(
        &self,
        request: &ActionRequest,
    ) -> Option<(SystemTime, SystemTime)> {
        let verdict = match (request.login(), request.heartbeat_kind()) {
            (Some(login), _) => self.load(login.kind, &self.identity(&login))?,
            (None, Some(kind)) => self.of_token(kind, request.role(LoginRole::Token)?)?.1,
            (None, None) => return None,
        };
        Some(self.times_of(&verdict))
    }

    fn times_of(&self, verdict: &Verdict) -> (SystemTime, SystemTime) {
        let grace = i64::try_from(self.grace.as_secs()).unwrap_or(i64::MAX);
        (
            system_time(verdict.confirmed_at),
            system_time(verdict.confirmed_at.saturating_add(grace)),
        )
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
    use serde_json::Map;

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
                token: None,
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
        let identity = offline.identity(&login);
        let stored = offline.load(SessionKind::Card, &identity).expect("verdict");
        assert!(matches!(stored.marked, Marked::By(_)), "{stored:?}");
        assert!(offline.could_answer(&login), "migrated");
        assert!(
            !store.exists("verdict-card"),
            "the one verdict per mode of the previous version went with its migration"
        );

        // The old verdict put back: the marks have moved on, it answers no more.
        store
            .write(
                &verdict_file(SessionKind::Card, &identity),
                older.as_bytes(),
            )
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
}
