//! The log hook: how much a message matters, the hook's type, and the one way to send it.
//! A module of its own at the bottom of the layers, so that every layer may log.

use std::sync::Arc;

/// How much a log message matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// A call failed because of it.
    Error = 1,
    /// Something went wrong and was handled (a retry, a failover).
    Warn = 2,
    /// A notable step (a new connection, a TLS handshake, an Init).
    Info = 3,
    /// Detail (the proxy a request goes through).
    Debug = 4,
}

/// A log hook: called on the thread that makes the call (or the keeper's thread) with a
/// level and an English message. It never receives a secret: no api password, AppKey, card
/// key, password, token or machine code.
pub type LogHook = Arc<dyn Fn(LogLevel, &str) + Send + Sync>;

/// Sends a message to a log hook, if there is one.
pub(crate) fn log(hook: &Option<LogHook>, level: LogLevel, message: impl FnOnce() -> String) {
    if let Some(hook) = hook {
        send(hook, level, message());
    }
}

/// The hook's call and the message's drop, once for every call site of [`log`] (about 30).
#[inline(never)]
fn send(hook: &LogHook, level: LogLevel, message: String) {
    hook(level, &message);
}
