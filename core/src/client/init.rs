//! Init: the handshake that gives a client its session secret, held until the server no
//! longer knows it (a re-Init on 1001) and owned by the base URL that issued it; failing
//! over to the next base URL while one cannot be reached; the offset to the server's clock,
//! learned from a 1014 refusal's `Date` header, on every `TimeStamp` sent.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::body::parse;
use super::Shared;
use crate::codes;
use crate::error::Error;
use crate::log::{log, LogLevel};
use crate::net::transport::{
    none_reachable, wiped_shared, HeaderValue, HttpReply, SendError, Transport, Uri,
};
use crate::reply::Reply;
use crate::util::deadline::Deadline;
use crate::util::wiped::{Wipe, Wiped};
use crate::wire;

/// The session secret of one Init, shared by the calls that use it; wiped when the last
/// user drops it. It belongs to the server (endpoint) that issued it.
#[derive(Clone)]
pub(super) struct Session {
    pub(super) api_password: Arc<Wiped<String>>,
    /// `{base}/api/verify/{ApiPassword}`, parsed once per session over wiped bytes (its
    /// clones, one per call, share them).
    pub(super) handle_url: Uri,
    /// The `X-Api-Password` header, the same way.
    pub(super) password_header: HeaderValue,
    pub(super) generation: u64,
    pub(super) endpoint: usize,
}

impl Shared {
    pub(super) fn init_exchange(&self) -> Result<Reply, Error> {
        let generation = self.lock_session().as_ref().map(|s| s.generation);
        let deadline = self.call_deadline();
        let start = self.current.load(Ordering::Relaxed);
        self.init_failover(&self.transport, generation, deadline, start, true)
            .map(|(reply, _)| reply)
    }

    /// The held session, or a new one from a lazy Init.
    pub(super) fn current_session(
        &self,
        transport: &Transport,
        deadline: Deadline,
        resend: bool,
    ) -> Result<Session, Error> {
        if let Some(session) = self.lock_session().clone() {
            return Ok(session);
        }
        let start = self.current.load(Ordering::Relaxed);
        self.init_failover(transport, None, deadline, start, resend)
            .map(|(_, session)| session)
    }

    /// Runs Init on the endpoint `start`, then on the next ones while an endpoint cannot be
    /// reached (DNS, connect or TLS failure); the one that answers becomes the current one.
    /// When none can be reached, the error names each URL and why.
    pub(super) fn init_failover(
        &self,
        transport: &Transport,
        stale: Option<u64>,
        deadline: Deadline,
        start: usize,
        resend: bool,
    ) -> Result<(Reply, Session), Error> {
        let count = self.endpoints.len();
        let mut failures: Vec<(String, Error)> = Vec::new();
        let mut index = start % count.max(1);
        let mut moves = 0;
        loop {
            let failure = match self.run_init(transport, stale, deadline, index, resend) {
                Ok(done) => {
                    self.current.store(index, Ordering::Relaxed);
                    return Ok(done);
                }
                Err(failure) => failure,
            };
            let here = &self.endpoints[index].origin;
            // Another base URL won the race for the connection: Init goes there.
            let winner = failure
                .elsewhere
                .as_deref()
                .and_then(|l| self.endpoint_of(l));
            if let Some(winner) = winner.filter(|_| moves < count) {
                moves += 1;
                log(&self.log, LogLevel::Warn, || {
                    format!(
                        "Init: {here} unreachable or slower: {} connected first; Init goes there",
                        self.endpoints[winner].origin
                    )
                });
                index = winner;
                continue;
            }
            if !failure.unreachable {
                return Err(failure.error);
            }
            failures.push((here.clone(), failure.error));
            if failures.len() >= count {
                return Err(if failures.len() == 1 {
                    failures.remove(0).1
                } else {
                    none_reachable(&failures)
                });
            }
            let next = (index + 1) % count;
            log(&self.log, LogLevel::Warn, || {
                format!(
                    "Init: {here} unreachable ({}); trying {}",
                    failures.last().map_or("", |(_, error)| error.message()),
                    self.endpoints[next].origin
                )
            });
            index = next;
        }
    }

    /// Runs Init unless another thread already replaced the session `stale` (then its newer
    /// session is used). Retries once on 1014 with the server's clock, and once when the
    /// request surely did not reach the server.
    pub(super) fn run_init(
        &self,
        transport: &Transport,
        stale: Option<u64>,
        deadline: Deadline,
        endpoint: usize,
        resend: bool,
    ) -> Result<(Reply, Session), SendError> {
        let here = &self.endpoints[endpoint];
        let fail = |error: Error| SendError::new(error, true, false);
        let mut clock_done = false;
        let mut resend_done = !resend;
        loop {
            let timestamp = self.timestamp();
            let sign = wire::init_sign(&self.app_id, &self.app_key, &timestamp);
            let body = wire::form_body(&[
                ("AppId", self.app_id.as_str()),
                ("AppKey", self.app_key.as_str()),
                ("TimeStamp", timestamp.as_str()),
                ("Sign", sign.as_str()),
            ]);
            let sent =
                transport.post_form(&here.init_uri, &[], body.as_bytes(), deadline, here.direct);
            let mut http = match sent {
                Ok(http) => http,
                // Init changes no state on the server: sending it again is harmless, unless
                // another server may answer.
                Err(failure)
                    if failure.worth_resending(true)
                        && !(resend_done
                            || deadline.passed()
                            || (failure.unreachable && self.endpoints.len() > 1)) =>
                {
                    resend_done = true;
                    log(&self.log, LogLevel::Warn, || {
                        format!(
                            "Init to {} failed ({}); sending it again",
                            here.origin,
                            failure.error.message()
                        )
                    });
                    continue;
                }
                Err(failure) => return Err(failure),
            };
            let parsed = parse(&http);
            // The raw body holds the session secret: wipe it as soon as it is parsed.
            http.body.wipe_now();
            // The Date travels with the reply (a refusal's too): the doctor reads the clock.
            let mut reply = parsed.map_err(fail)?.with_date(http.date());
            log(&self.log, LogLevel::Info, || {
                format!("Init with {}: code {}", here.init_url, reply.code())
            });
            if reply.code() == codes::TIMESTAMP_SKEW && !clock_done && self.learn_clock(&http) {
                clock_done = true;
                continue;
            }
            if reply.code() != codes::OK {
                return Err(fail(Error::refused(reply)));
            }
            // The secret is taken out of the reply: hosts see the reply, never the secret.
            let api_password = match reply.take_field("api_password") {
                // It keys RC4 and travels in a header and in the path: 1 to 256 bytes without
                // control characters (a line break could never travel in the header).
                Some(Value::String(secret))
                    if (1..=256).contains(&secret.len())
                        && !secret.chars().any(char::is_control) =>
                {
                    Wiped::new(secret)
                }
                Some(Value::String(mut secret)) => {
                    secret.wipe();
                    return Err(fail(Error::protocol(
                        "Init reply `api_password` is empty, longer than 256 bytes, or holds a \
                         control character",
                    )));
                }
                _ => {
                    return Err(fail(Error::protocol(
                        "Init reply (code 200) has no string `api_password`",
                    )))
                }
            };
            let mut held = self.lock_session();
            if let (Some(current), Some(stale)) = (held.as_ref(), stale) {
                if current.generation != stale {
                    // Another thread re-initialized meanwhile; keep its session.
                    return Ok((reply, current.clone()));
                }
            }
            let encoded = Wiped::new(wire::encode_component(&api_password));
            let handle_url = Wiped::new(format!("{}/{}", here.init_url, encoded.as_str()));
            // Percent-encoded, the secret makes a valid path; without control characters, a
            // valid header value: these only keep a failure free of a panic.
            let handle_url = Uri::from_maybe_shared(wiped_shared(handle_url.as_bytes()))
                .map_err(|_| fail(Error::protocol("Init reply `api_password` makes no URL")))?;
            let mut password_header = HeaderValue::from_maybe_shared(wiped_shared(
                api_password.as_bytes(),
            ))
            .map_err(|_| {
                fail(Error::protocol(
                    "Init reply `api_password` is no header value",
                ))
            })?;
            // Its `Debug` prints `Sensitive`, not the secret.
            password_header.set_sensitive(true);
            let session = Session {
                api_password: Arc::new(api_password),
                handle_url,
                password_header,
                generation: self.generations.fetch_add(1, Ordering::Relaxed) + 1,
                endpoint,
            };
            *held = Some(session.clone());
            return Ok((reply, session));
        }
    }

    /// Keeps the offset to the server's clock from a reply's `Date` header. Returns whether
    /// it changed (only then is a retry useful).
    pub(super) fn learn_clock(&self, http: &HttpReply) -> bool {
        let Some(server) = http.date().map(unix_seconds) else {
            return false;
        };
        let offset = server.saturating_sub(unix_seconds(SystemTime::now()));
        let changed = self.clock_offset.swap(offset, Ordering::Relaxed) != offset;
        if changed {
            log(&self.log, LogLevel::Warn, || {
                format!("timestamp refused (1014): the clock is corrected by {offset} s from the reply's Date header; sending again")
            });
        }
        changed
    }

    /// `TimeStamp`: Unix seconds on the corrected clock, taken per request.
    pub(super) fn timestamp(&self) -> String {
        (unix_seconds(SystemTime::now()) + self.clock_offset.load(Ordering::Relaxed)).to_string()
    }
}

fn unix_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}
