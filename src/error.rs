//! Errors: the server's refusals (its code, localized message and remark kept together) and
//! local failures, all in one code space (DESIGN section 5).

use std::fmt;

use crate::reply::Reply;

/// Success.
pub const CODE_OK: i32 = 200;
/// Waiting for social authorization: not an error, keep polling.
pub const CODE_PENDING: i32 = 201;

/// Kind of an [`Error`]. Every kind maps to one integer code ([`ErrorKind::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The server answered with a code other than 200 (and 201 where that is not pending).
    Server(i32),
    /// An argument was missing, empty, too long or out of range (code -1).
    InvalidArgument,
    /// A string argument was not valid UTF-8 (code -2).
    InvalidUtf8,
    /// The server could not be reached, or the connection broke (code -3).
    Network,
    /// A connect or whole-call timeout ran out (code -4).
    Timeout,
    /// The TLS handshake or certificate check failed (code -5).
    Tls,
    /// The server's reply is not the service's JSON: not JSON, wrong types, too large (code -6).
    Protocol,
    /// The call was cancelled by the host (code -7).
    Cancelled,
    /// A panic inside the library was caught at the boundary (code -8).
    Panic,
    /// A reply field that was asked for is absent or of another type (code -9).
    NoSuchField,
}

/// Local failure codes, negative so that they never collide with the server's codes.
pub mod local {
    /// See [`super::ErrorKind::InvalidArgument`].
    pub const INVALID_ARGUMENT: i32 = -1;
    /// See [`super::ErrorKind::InvalidUtf8`].
    pub const INVALID_UTF8: i32 = -2;
    /// See [`super::ErrorKind::Network`].
    pub const NETWORK: i32 = -3;
    /// See [`super::ErrorKind::Timeout`].
    pub const TIMEOUT: i32 = -4;
    /// See [`super::ErrorKind::Tls`].
    pub const TLS: i32 = -5;
    /// See [`super::ErrorKind::Protocol`].
    pub const PROTOCOL: i32 = -6;
    /// See [`super::ErrorKind::Cancelled`].
    pub const CANCELLED: i32 = -7;
    /// See [`super::ErrorKind::Panic`].
    pub const PANIC: i32 = -8;
    /// See [`super::ErrorKind::NoSuchField`].
    pub const NO_SUCH_FIELD: i32 = -9;
}

impl ErrorKind {
    /// The integer code: the server's own code, or a negative local code.
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::Server(code) => code,
            ErrorKind::InvalidArgument => local::INVALID_ARGUMENT,
            ErrorKind::InvalidUtf8 => local::INVALID_UTF8,
            ErrorKind::Network => local::NETWORK,
            ErrorKind::Timeout => local::TIMEOUT,
            ErrorKind::Tls => local::TLS,
            ErrorKind::Protocol => local::PROTOCOL,
            ErrorKind::Cancelled => local::CANCELLED,
            ErrorKind::Panic => local::PANIC,
            ErrorKind::NoSuchField => local::NO_SUCH_FIELD,
        }
    }
}

/// An English description of any code: the server's codes of spec section 7, 200, 201,
/// and the local codes. Unknown codes get a generic text.
pub fn describe(code: i32) -> &'static str {
    describe_c(code).to_str().unwrap_or_default()
}

/// [`describe`] as a C string, for the C ABI.
pub(crate) fn describe_c(code: i32) -> &'static std::ffi::CStr {
    match code {
        200 => c"success",
        201 => c"waiting for social authorization; keep polling",
        1001 => c"program not found (or session secret unknown to the server)",
        1003 => c"wrong password",
        1004 => c"card invalid, refunded, or not of this program",
        1005 => c"expired, not activated, or count card used up",
        1006 => c"disabled, frozen or banned; the remark carries the reason",
        1007 => c"token invalid; log in again",
        1010 => c"signature error",
        1011 => c"program key (AppKey) wrong",
        1012 => c"program not approved (pending, rejected, or plan expired)",
        1013 => c"incomplete parameters, or invalid heartbeat type",
        1014 => c"timestamp outside the server's tolerance of 300 seconds",
        1015 => c"unknown action",
        1016 => c"user not registered, or social identity not bound",
        1017 => c"username already registered",
        1019 => c"registration limit per IP address reached",
        1020 => c"new machine code equals the current one",
        1021 => c"rebind limit reached",
        1022 => c"machine code changed; the remark is the previously bound code",
        1023 => c"blacklisted (IP address or machine code)",
        1024 => c"count card not allowed here",
        local::INVALID_ARGUMENT => c"invalid argument",
        local::INVALID_UTF8 => c"string argument is not valid UTF-8",
        local::NETWORK => c"network error: server unreachable or connection broken",
        local::TIMEOUT => c"timed out",
        local::TLS => c"TLS error",
        local::PROTOCOL => c"protocol error: the reply is not the service's JSON",
        local::CANCELLED => c"cancelled",
        local::PANIC => c"internal error (panic caught at the library boundary)",
        local::NO_SUCH_FIELD => c"no such field in the reply, or of another type",
        _ if code > 0 => c"error code not documented by the service",
        _ => c"unknown local error",
    }
}

/// An error of a call: a refusal by the server (with its reply) or a local failure.
///
/// `Debug` and `Display` never print secrets: a server refusal shows its code, message and
/// remark only.
#[derive(Clone)]
pub struct Error {
    kind: ErrorKind,
    detail: String,
    reply: Option<Box<Reply>>,
}

impl Error {
    /// A local failure of `kind` with an English explanation.
    pub fn local(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            kind,
            detail: detail.into(),
            reply: None,
        }
    }

    /// A refusal by the server: the reply's code becomes the error's code.
    pub fn refused(reply: Reply) -> Error {
        Error {
            kind: ErrorKind::Server(reply.code()),
            detail: String::new(),
            reply: Some(Box::new(reply)),
        }
    }

    /// A reply whose code was success but whose `data` does not have the documented shape.
    pub fn bad_shape(reply: Reply, detail: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Protocol,
            detail: detail.into(),
            reply: Some(Box::new(reply)),
        }
    }

    pub(crate) fn invalid_argument(detail: impl Into<String>) -> Error {
        Error::local(ErrorKind::InvalidArgument, detail)
    }

    pub(crate) fn protocol(detail: impl Into<String>) -> Error {
        Error::local(ErrorKind::Protocol, detail)
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The integer code: the server's code, or a negative local code.
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// The server's (localized) message for a refusal, else the local explanation.
    pub fn message(&self) -> &str {
        match (&self.kind, &self.reply) {
            (ErrorKind::Server(_), Some(reply)) => reply.message(),
            _ => &self.detail,
        }
    }

    /// `data.remark` of the server's reply, when it carried one (1006, 1022).
    pub fn remark(&self) -> Option<&str> {
        self.reply.as_deref().and_then(Reply::remark)
    }

    /// The server's whole reply, when the server answered.
    pub fn reply(&self) -> Option<&Reply> {
        self.reply.as_deref()
    }

    /// Takes the server's reply out of the error.
    pub fn into_reply(self) -> Option<Reply> {
        self.reply.map(|reply| *reply)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code();
        write!(f, "{} ({code})", describe(code))?;
        if !self.message().is_empty() {
            write!(f, ": {}", self.message())?;
        }
        if let Some(remark) = self.remark() {
            write!(f, " [remark: {remark}]")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("code", &self.code())
            .field("message", &self.message())
            .field("remark", &self.remark())
            .finish()
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_code_has_its_own_description() {
        let codes = [
            200, 201, 1001, 1003, 1004, 1005, 1006, 1007, 1010, 1011, 1012, 1013, 1014, 1015, 1016,
            1017, 1019, 1020, 1021, 1022, 1023, 1024, -1, -2, -3, -4, -5, -6, -7, -8, -9,
        ];
        let mut seen = std::collections::HashSet::new();
        for code in codes {
            let text = describe(code);
            assert!(!text.starts_with("error code not documented"), "{code}");
            assert!(!text.starts_with("unknown local"), "{code}");
            assert!(seen.insert(text), "{code} shares its description");
        }
        assert_eq!(describe(1002), "error code not documented by the service");
        assert_eq!(describe(-100), "unknown local error");
    }

    #[test]
    fn local_kinds_have_distinct_negative_codes() {
        let kinds = [
            ErrorKind::InvalidArgument,
            ErrorKind::InvalidUtf8,
            ErrorKind::Network,
            ErrorKind::Timeout,
            ErrorKind::Tls,
            ErrorKind::Protocol,
            ErrorKind::Cancelled,
            ErrorKind::Panic,
            ErrorKind::NoSuchField,
        ];
        let codes: std::collections::HashSet<i32> = kinds.iter().map(|k| k.code()).collect();
        assert_eq!(codes.len(), kinds.len());
        assert!(codes.iter().all(|c| *c < 0));
    }
}
