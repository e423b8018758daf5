//! One business request: an action, its plaintext parameters, whose values (cards,
//! passwords, tokens) are wiped from memory when the request is dropped, and its purpose
//! ([`Purpose`]: a card login, an account login, a heartbeat ...) and the login it carries
//! ([`LoginRole`]: which parameter is the identity, the machine code, the password). Built by
//! the action table's request builders, which give both, sent by the client (which checks
//! its size), kept by a keeper or an offline verdict to send again.

use std::fmt;

use crate::session::SessionKind;
use crate::util::wiped::Wiped;

/// What a request is for, as far as the offline verdicts and the reply's session kind are
/// concerned: the action table's purpose column ([`crate::actions::ActionPurpose`]), with a
/// heartbeat's session kind. The table's request builders give it; the generic call and
/// [`crate::Client::send`] take it from the table's row of the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// `SingleLogin`: a card-mode login.
    CardLogin,
    /// A password `UserLogin` without a card: an account-mode login.
    AccountLogin,
    /// A social `UserLogin` (step 1 or 2, `LoginType`): an account-mode session, never
    /// answered by a stored verdict (it has no password to check).
    SocialLogin,
    /// `UserLogin` with a card: renews the account and returns no session.
    Renewal,
    /// `UserHeartbeat` of a card or an account session.
    Heartbeat(SessionKind),
    /// `UpdatePwd`: an account's password change.
    PasswordChange,
    /// Anything else.
    Other,
}

impl Purpose {
    /// The kind of session the reply of a login opens: card for a card login, account for a
    /// password or social login; `None` for anything else.
    pub(crate) fn session(self) -> Option<SessionKind> {
        match self {
            Purpose::CardLogin => Some(SessionKind::Card),
            Purpose::AccountLogin | Purpose::SocialLogin => Some(SessionKind::User),
            _ => None,
        }
    }
}

/// What a parameter stands for in a login, a password change or a heartbeat: the action
/// table's column (`card: required "Card" as identity`), so that nothing reads a login back
/// out of its wire keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginRole {
    /// The card key (card mode) or the username (account mode).
    Identity,
    /// The machine code.
    Machine,
    /// The account's password.
    Password,
    /// The account's new password (a password change).
    NewPassword,
    /// The session's token (a heartbeat: the offline store finds the verdict of its login).
    Token,
}

impl LoginRole {
    fn index(self) -> usize {
        match self {
            LoginRole::Identity => 0,
            LoginRole::Machine => 1,
            LoginRole::Password => 2,
            LoginRole::NewPassword => 3,
            LoginRole::Token => 4,
        }
    }
}

/// A login that the offline store answers for, as the request describes it: its mode,
/// identity, machine code and, in account mode, password (for the offline hash).
#[derive(Clone, Copy)]
pub(crate) struct Login<'a> {
    pub(crate) kind: SessionKind,
    pub(crate) identity: &'a str,
    pub(crate) machine: &'a str,
    pub(crate) password: Option<&'a str>,
}

impl fmt::Debug for Login<'_> {
    /// The identity, machine code and password are never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Login")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// One business request: the action and its plaintext parameters, in order.
#[derive(Clone)]
pub struct ActionRequest {
    /// The `action` value.
    pub action: String,
    /// The other parameters, in the order they are sent. The values (cards, passwords,
    /// tokens) are wiped from memory when the request is dropped.
    params: Vec<(String, Wiped<String>)>,
    /// Whether sending the request twice is harmless. A request that may have reached the
    /// server (read timeout, connection reset after sending) is sent again only when this is
    /// true; requests that surely did not reach it are always sent again once.
    pub repeatable: bool,
    /// The purpose the action table gave; `None` for a request built without it.
    purpose: Option<Purpose>,
    /// Where each [`LoginRole`] is among the parameters (by [`LoginRole`]'s order).
    roles: [Option<usize>; 5],
}

impl ActionRequest {
    /// A request for `action` with no parameters yet.
    pub fn new(action: &str, repeatable: bool) -> ActionRequest {
        ActionRequest {
            action: action.to_owned(),
            params: Vec::new(),
            repeatable,
            purpose: None,
            roles: [None; 5],
        }
    }

    /// The request with the purpose the action table gives it.
    pub(crate) fn with_purpose(mut self, purpose: Purpose) -> ActionRequest {
        self.purpose = Some(purpose);
        self
    }

    /// Whether the action table gave the request its purpose.
    pub(crate) fn has_purpose(&self) -> bool {
        self.purpose.is_some()
    }

    /// What the request is for: the action table's purpose; `Other` for a request built
    /// without the table and sent without it ([`crate::Client::exchange`]).
    pub(crate) fn purpose(&self) -> Purpose {
        self.purpose.unwrap_or(Purpose::Other)
    }

    /// The parameter that stands for `role`, when the table says one does.
    pub(crate) fn role(&self, role: LoginRole) -> Option<&str> {
        let at = self.roles[role.index()]?;
        self.params.get(at).map(|(_, value)| value.as_str())
    }

    /// The parameter at `at` stands for `role`.
    pub(crate) fn with_role(mut self, at: usize, role: LoginRole) -> ActionRequest {
        self.roles[role.index()] = Some(at);
        self
    }

    /// The login the request carries (a card login, or an account's password login without
    /// a card, by its purpose), for the offline store; `None` for anything else and for a
    /// login without its identity.
    pub(crate) fn login(&self) -> Option<Login<'_>> {
        let kind = match self.purpose() {
            Purpose::CardLogin => SessionKind::Card,
            Purpose::AccountLogin => SessionKind::User,
            _ => return None,
        };
        Some(Login {
            kind,
            identity: self.role(LoginRole::Identity)?,
            machine: self.role(LoginRole::Machine).unwrap_or(""),
            password: (kind == SessionKind::User)
                .then(|| self.role(LoginRole::Password).unwrap_or("")),
        })
    }

    /// The session kind of a heartbeat request.
    pub(crate) fn heartbeat_kind(&self) -> Option<SessionKind> {
        match self.purpose() {
            Purpose::Heartbeat(kind) => Some(kind),
            _ => None,
        }
    }

    /// Adds a parameter.
    pub fn param(mut self, key: &str, value: &str) -> ActionRequest {
        self.params
            .push((key.to_owned(), Wiped::new(value.to_owned())));
        self
    }

    /// Adds a parameter that stands for `role` (when given) in the request's login.
    pub(crate) fn param_as(self, key: &str, value: &str, role: Option<LoginRole>) -> ActionRequest {
        let at = self.params.len();
        let request = self.param(key, value);
        match role {
            Some(role) => request.with_role(at, role),
            None => request,
        }
    }

    /// Adds a parameter when `value` is present and not empty (an empty optional value is
    /// not sent, whatever the action).
    pub fn opt_param(self, key: &str, value: Option<&str>) -> ActionRequest {
        self.opt_param_as(key, value, None)
    }

    /// [`ActionRequest::opt_param`] of a parameter that stands for `role` (when given).
    pub(crate) fn opt_param_as(
        self,
        key: &str,
        value: Option<&str>,
        role: Option<LoginRole>,
    ) -> ActionRequest {
        match value {
            Some(value) if !value.is_empty() => self.param_as(key, value, role),
            _ => self,
        }
    }

    /// The parameter keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|(key, _)| key.as_str())
    }

    /// The parameters after `action`, in order (their values are wiped when dropped).
    pub(crate) fn params(&self) -> &[(String, Wiped<String>)] {
        &self.params
    }
}

impl fmt::Debug for ActionRequest {
    /// Parameter values are not printed: they hold passwords, cards and tokens.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<&str> = self.keys().collect();
        f.debug_struct("ActionRequest")
            .field("action", &self.action)
            .field("param_keys", &keys)
            .field("repeatable", &self.repeatable)
            .finish()
    }
}
