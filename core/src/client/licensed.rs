//! The licensed paths: with offline verdicts on (a state folder and an offline grace), a
//! login's answer is stored (or clears the store) and a local failure answers from the
//! stored verdict when it may; a heartbeat's and a password change's answers are observed.
//! With a start budget, a login runs in the background and the store answers when the
//! server has not within the budget; the client stops and joins such exchanges when it is
//! dropped.

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use super::Shared;
use crate::error::{Error, ErrorKind};
use crate::offline::{is_local, Offline, Pending};
use crate::reply::Reply;
use crate::request::Login;
use crate::request::{ActionRequest, LoginRole, Purpose};
use crate::util::process::Thread;

impl Shared {
    /// [`Client::exchange`]: a login with offline verdicts goes through [`Shared::licensed`].
    pub(super) fn exchange(shared: &Arc<Shared>, request: &ActionRequest) -> Result<Reply, Error> {
        if let (Some(offline), Some(login)) = (&shared.offline, request.login()) {
            return shared.licensed(shared, offline, login, request);
        }
        let outcome = shared.exchange_within(&shared.transport, request, true);
        if let (Some(offline), Some(kind), Some(token)) = (
            &shared.offline,
            request.heartbeat_kind(),
            request.role(LoginRole::Token),
        ) {
            offline.observe_heartbeat(kind, token, &outcome);
        }
        if let (Some(offline), Purpose::PasswordChange) = (&shared.offline, request.purpose()) {
            offline.observe_password_change(request, &outcome);
        }
        shared.logged(request, outcome)
    }

    /// A login with offline verdicts: the server's answer is stored (or clears the store);
    /// a local failure answers from the store when it may. With a start budget and a store
    /// that may answer, the exchange runs in the background: an answer within the budget is
    /// the verdict, else the store answers and the exchange goes on.
    fn licensed(
        &self,
        shared: &Arc<Shared>,
        offline: &Offline,
        login: Login,
        request: &ActionRequest,
    ) -> Result<Reply, Error> {
        let answers = offline.could_answer(&login);
        let Some(budget) = offline.budget().filter(|_| answers) else {
            // A stored verdict that may answer waits for one connect timeout at most: a
            // request that timed out or could not connect is not sent again.
            let outcome = self.exchange_within(&self.transport, request, !answers);
            offline.observe_login(&login, &outcome);
            return match outcome {
                Err(failure) if is_local(&failure) && failure.reply().is_none() => {
                    self.logged(request, offline.answer(&login, request, failure, None))
                }
                other => self.logged(request, other),
            };
        };
        let pending = Arc::new(Pending::default());
        let worker = Arc::clone(shared);
        let finished = Arc::clone(&pending);
        let owned = request.clone();
        let started = std::thread::Builder::new()
            .name("verify-login".into())
            .spawn(move || {
                let _watch = finished.cancel.watch();
                let outcome = worker.exchange_within(&worker.transport, &owned, true);
                if let (Some(offline), Some(login)) = (&worker.offline, owned.login()) {
                    offline.observe_login(&login, &outcome);
                }
                let outcome = worker.logged(&owned, outcome);
                finished.finish(outcome);
            })
            .map_err(|err| Error::system(format!("cannot start the login's thread: {err}")))?;
        self.keep_in_background(Arc::clone(&pending), Thread::new(started));
        // The host's cancel of this call cancels the exchange in the background, which ends
        // the wait (a cancelled login gives no offline verdict).
        let _forward = crate::cancel::watching().map(|token| token.forward_to(&pending.cancel));
        if let Some(outcome) = pending.wait_until(Instant::now() + budget) {
            return match outcome {
                Err(failure) if is_local(&failure) && failure.reply().is_none() => {
                    offline.answer(&login, request, failure, None)
                }
                other => other,
            };
        }
        let failure = Error::local(
            ErrorKind::Timeout,
            format!(
                "the server did not answer within the start budget of {} ms; the exchange \
                 goes on in the background",
                budget.as_millis()
            ),
        );
        offline.answer(&login, request, failure, Some(pending))
    }

    /// Keeps a background exchange, to stop and join it when the client is dropped.
    fn keep_in_background(&self, pending: Arc<Pending>, thread: Thread) {
        let mut background = self
            .background
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        background.retain(|(_, thread)| !thread.is_finished());
        background.push((pending, thread));
    }

    /// Stops the exchanges going on in the background (their connections are shut down) and
    /// joins their threads. A forked child leaves its parent's alone: their sockets are the
    /// parent's too, and their threads run in the parent only.
    pub(super) fn stop_background(&self) {
        let background = std::mem::take(
            &mut *self
                .background
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for (pending, thread) in &background {
            if thread.is_here() {
                pending.cancel.cancel();
            }
        }
        for (_, thread) in background {
            thread.join();
        }
    }
}
