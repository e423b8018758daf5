//! One business request: an action, its plaintext parameters, whose values (cards,
//! passwords, tokens) are wiped from memory when the request is dropped, and its purpose
//! ([`Purpose`]: a card login, an account login, a heartbeat ...). Built by the action
//! table's request builders, which give the purpose, sent by the client (which checks its
//! size), kept by a keeper or an offline verdict to send again.

use std::fmt;

use crate::session::SessionKind;
use crate::util::wiped::Wiped;

/// What a request is for, as far as the offline verdicts and the reply's session kind are
/// concerned. The action table's request builders give it; a request built without the
/// table ([`ActionRequest::new`], the generic call) has the purpose of its action and
/// parameters ([`Purpose::of_wire`]).
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
    /// The purpose of a request built without the action table, from its action and its
    /// parameter keys, as the table would have built it: `SingleLogin` is a card login;
    /// `UserLogin` with a `Card` is a renewal, else with a `LoginType` a social login, else
    /// an account login; `UserHeartbeat` with `Type` `card` or `user` is a heartbeat of that
    /// kind; `UpdatePwd` is a password change.
    pub(crate) fn of_wire(request: &ActionRequest) -> Purpose {
        let value = |key| request.value(key);
        match request.action.as_str() {
            "SingleLogin" => Purpose::CardLogin,
            "UserLogin" if value("Card").is_some() => Purpose::Renewal,
            "UserLogin" if value("LoginType").is_some() => Purpose::SocialLogin,
            "UserLogin" => Purpose::AccountLogin,
            "UserHeartbeat" => match value("Type") {
                Some("card") => Purpose::Heartbeat(SessionKind::Card),
                Some("user") => Purpose::Heartbeat(SessionKind::User),
                _ => Purpose::Other,
            },
            "UpdatePwd" => Purpose::PasswordChange,
            _ => Purpose::Other,
        }
    }

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
}

impl ActionRequest {
    /// A request for `action` with no parameters yet.
    pub fn new(action: &str, repeatable: bool) -> ActionRequest {
        ActionRequest {
            action: action.to_owned(),
            params: Vec::new(),
            repeatable,
            purpose: None,
        }
    }

    /// The request with the purpose the action table gives it.
    pub(crate) fn with_purpose(mut self, purpose: Purpose) -> ActionRequest {
        self.purpose = Some(purpose);
        self
    }

    /// What the request is for: the action table's purpose, or for a request built without
    /// the table, that of its action and parameters ([`Purpose::of_wire`]).
    pub(crate) fn purpose(&self) -> Purpose {
        self.purpose.unwrap_or_else(|| Purpose::of_wire(self))
    }

    /// Adds a parameter.
    pub fn param(mut self, key: &str, value: &str) -> ActionRequest {
        self.params
            .push((key.to_owned(), Wiped::new(value.to_owned())));
        self
    }

    /// Adds a parameter when `value` is present and not empty (an empty optional value is
    /// not sent, whatever the action).
    pub fn opt_param(self, key: &str, value: Option<&str>) -> ActionRequest {
        match value {
            Some(value) if !value.is_empty() => self.param(key, value),
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

    /// The value of the parameter `key`, when the request has it.
    pub(crate) fn value(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(held, _)| held == key)
            .map(|(_, value)| value.as_str())
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
