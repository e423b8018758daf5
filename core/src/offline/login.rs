//! Which requests the store answers for: a card login or an account's password login, and
//! the session kind of a heartbeat or a login's reply.

use crate::request::{ActionRequest, Purpose};
use crate::session::SessionKind;

/// A login that the store answers for: its mode, identity, machine code and, in account
/// mode, password.
#[derive(Clone, Copy)]
pub(crate) struct Login<'a> {
    pub(crate) kind: SessionKind,
    pub(crate) identity: &'a str,
    pub(crate) machine: &'a str,
    pub(crate) password: Option<&'a str>,
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
