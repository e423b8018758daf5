//! One business request: an action and its plaintext parameters, whose values (cards,
//! passwords, tokens) are wiped from memory when the request is dropped. Built by the action
//! table's request builders, sent by the client (which checks its size), kept by a keeper or
//! an offline verdict to send again.

use std::fmt;

use crate::wiped::Wiped;

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
}

impl ActionRequest {
    /// A request for `action` with no parameters yet.
    pub fn new(action: &str, repeatable: bool) -> ActionRequest {
        ActionRequest {
            action: action.to_owned(),
            params: Vec::new(),
            repeatable,
        }
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
