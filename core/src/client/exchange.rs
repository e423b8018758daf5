//! One business request on the session: its size checked before anything is sent, the
//! Handle POST, and when it is sent again: once for a failure on the way (a timeout, a
//! broken connection) when the action may be repeated; to another base URL when this one
//! cannot be reached or another won the race for the connection (a new Init there); after a
//! re-Init when the server no longer knows the session (1001), and after a clock correction
//! (1014).

use super::body::parse;
use super::init::Session;
use super::Shared;
use crate::codes;
use crate::error::{Error, ErrorKind};
use crate::log::{log, LogLevel};
use crate::net::transport::{HttpReply, SendError, Transport};
use crate::reply::Reply;
use crate::request::ActionRequest;
use crate::util::deadline::Deadline;
use crate::util::wiped::Wiped;
use crate::wire;

/// The largest request body the library sends: 1 MiB (servers of this kind cap theirs).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;
/// The body around `Data`: `TimeStamp=..&Data=&Sign=<32 hex>` (see `wire::handle_body`).
const BODY_OVERHEAD: usize = 96;

/// What the client checks of a request before anything is sent.
impl ActionRequest {
    /// Refuses a request whose body would exceed [`MAX_REQUEST_BYTES`] (`Data` is the hex of
    /// the plaintext: twice its length), before anything is sent.
    pub fn check_size(&self) -> Result<(), Error> {
        // Percent-encoding at most triples a character: this bound is exact enough.
        let bound: usize = self.action.len() * 3
            + self
                .params()
                .iter()
                .map(|(k, v)| 2 + 3 * (k.len() + v.len()))
                .sum::<usize>();
        let body = |plaintext: usize| plaintext.saturating_mul(2).saturating_add(BODY_OVERHEAD);
        if body(bound) <= MAX_REQUEST_BYTES {
            return Ok(());
        }
        let exact = Wiped::new(wire::plaintext(&self.action, self.params())).len();
        if body(exact) <= MAX_REQUEST_BYTES {
            return Ok(());
        }
        Err(Error::local(
            ErrorKind::TooLarge,
            format!(
                "{} request of {} bytes of parameters would make a body of {} bytes, over the \
                 {MAX_REQUEST_BYTES} the library sends",
                self.action,
                exact,
                body(exact)
            ),
        ))
    }
}

/// A cancelled call's error in the words of its action (`request`), whose request
/// `may_have_left` or surely did not; any other error as it is. An action that changes state
/// on the server, cancelled after its request may have left, says that the server may have
/// received it: it is not sent again, so a retry by the host is the host's choice.
fn cancelled_in_words(error: Error, request: &ActionRequest, may_have_left: bool) -> Error {
    if error.kind() != ErrorKind::Cancelled {
        return error;
    }
    let action = &request.action;
    Error::local(
        ErrorKind::Cancelled,
        match (may_have_left, request.repeatable) {
            (false, _) => format!(
                "{action} cancelled by the host before its request was sent: the server did not \
                 receive it"
            ),
            (true, true) => format!(
                "{action} cancelled by the host while its reply was awaited: the server may have \
                 received the request (it changes nothing there)"
            ),
            (true, false) => format!(
                "{action} cancelled by the host after its request was sent: the server may have \
                 received it and acted on it (it changes state there); it was not sent again: \
                 look at the result (a login, the card's or account's state) before sending it \
                 again"
            ),
        },
    )
}

impl Shared {
    /// Sends `request` on the current session (a lazy Init first); `resend`: whether a
    /// request that failed on the way (a timeout, a broken connection) may be sent again
    /// once.
    pub(super) fn exchange_within(
        &self,
        transport: &Transport,
        request: &ActionRequest,
        resend: bool,
    ) -> Result<Reply, Error> {
        request.check_size()?;
        let deadline = self.call_deadline();
        let mut session = self
            .current_session(transport, deadline, resend)
            .map_err(|error| cancelled_in_words(error, request, false))?;
        let mut reinit_done = false;
        let mut clock_done = false;
        let mut resend_done = !resend;
        let mut failovers = 0;
        let mut moves = 0;
        loop {
            let http = match self.post_handle(transport, &session, request, deadline) {
                Ok(http) => http,
                Err(failure) if failure.error.kind() == ErrorKind::Cancelled => {
                    // Never sent again: the host asked to stop.
                    return Err(cancelled_in_words(
                        failure.error,
                        request,
                        failure.maybe_delivered,
                    ));
                }
                Err(failure) => {
                    let here = &self.endpoints[session.endpoint];
                    // Another base URL won the race for the connection: nothing was sent;
                    // the session moves there (a new Init there).
                    let winner = failure
                        .elsewhere
                        .as_deref()
                        .and_then(|l| self.endpoint_of(l));
                    if let Some(winner) = winner.filter(|_| moves < self.endpoints.len()) {
                        moves += 1;
                        log(&self.log, LogLevel::Warn, || {
                            format!(
                                "{}: {} unreachable or slower: {} connected first; running \
                                 Init there",
                                request.action, here.origin, self.endpoints[winner].origin
                            )
                        });
                        session = self
                            .init_failover(
                                transport,
                                Some(session.generation),
                                deadline,
                                winner,
                                resend,
                            )
                            .map_err(|error| cancelled_in_words(error, request, false))?
                            .1;
                        continue;
                    }
                    // The request never reached this server: another one may take it (a new
                    // Init there: the session belongs to the server that issued it).
                    if failure.unreachable && failovers + 1 < self.endpoints.len() {
                        failovers += 1;
                        let next = (session.endpoint + 1) % self.endpoints.len();
                        log(&self.log, LogLevel::Warn, || {
                            format!(
                                "{}: {} unreachable ({}); failing over",
                                request.action,
                                here.origin,
                                failure.error.message()
                            )
                        });
                        session = self
                            .init_failover(
                                transport,
                                Some(session.generation),
                                deadline,
                                next,
                                resend,
                            )
                            .map_err(|error| cancelled_in_words(error, request, false))?
                            .1;
                        continue;
                    }
                    if !resend_done
                        && failure.worth_resending(request.repeatable)
                        && !deadline.passed()
                    {
                        resend_done = true;
                        log(&self.log, LogLevel::Warn, || {
                            format!(
                                "{} to {} failed ({}); sending it again",
                                request.action,
                                here.origin,
                                failure.error.message()
                            )
                        });
                        continue;
                    }
                    return Err(failure.error);
                }
            };
            let reply = parse(&http)?
                .with_date(http.date())
                .with_session(request.purpose().session());
            match reply.code() {
                codes::PROGRAM_NOT_FOUND if !reinit_done => {
                    reinit_done = true;
                    log(&self.log, LogLevel::Warn, || {
                        format!(
                            "{}: the server no longer knows the session (1001); running Init \
                             again",
                            request.action
                        )
                    });
                    session = self
                        .run_init(
                            transport,
                            Some(session.generation),
                            deadline,
                            session.endpoint,
                            resend,
                        )
                        .map_err(|failure| cancelled_in_words(failure.error, request, false))?
                        .1;
                }
                codes::TIMESTAMP_SKEW if !clock_done && self.learn_clock(&http) => {
                    clock_done = true;
                }
                _ => return Ok(reply),
            }
        }
    }

    fn post_handle(
        &self,
        transport: &Transport,
        session: &Session,
        request: &ActionRequest,
        deadline: Deadline,
    ) -> Result<HttpReply, SendError> {
        let api_password = session.api_password.as_str();
        let plaintext = Wiped::new(wire::plaintext(&request.action, request.params()));
        let timestamp = self.timestamp();
        let body = wire::handle_body(api_password, &plaintext, &timestamp).map_err(|bad| {
            SendError::new(
                Error::protocol(format!("session secret of {} bytes cannot key RC4", bad.0)),
                false,
                false,
            )
        })?;

        let endpoint = &self.endpoints[session.endpoint];
        transport.post_form(
            &session.handle_url,
            &[("X-Api-Password", &session.password_header)],
            &body,
            deadline,
            endpoint.direct,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_requests_are_refused_before_sending() {
        let fits = ActionRequest::new("GetVariable", true).param("Name", &"a".repeat(400_000));
        assert!(fits.check_size().is_ok());
        let big = ActionRequest::new("GetVariable", true).param("Name", &"a".repeat(600_000));
        let err = big.check_size().expect_err("over 1 MiB of body");
        assert_eq!(err.code(), codes::ERR_TOO_LARGE);
        assert!(err.message().contains("1048576"), "{}", err.message());
        // Escaped characters count three times: 200k of them is over the cap.
        let escaped = ActionRequest::new("GetVariable", true).param("Name", &"&".repeat(200_000));
        assert!(escaped.check_size().is_err());
    }
}
