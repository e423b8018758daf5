//! Errors: the server's refusals (its code, localized message and remark kept together) and
//! local failures, all in one code space (docs/architecture.md, "C ABI conventions").

use std::fmt;

use crate::reply::Reply;

use crate::codes;

/// Kind of an [`Error`]. Every kind maps to one integer code ([`ErrorKind::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The server answered with a code other than 200 (and 201 where that is not pending).
    Server(i32),
    /// An argument was missing, empty, too long or out of range.
    InvalidArgument,
    /// A string argument was not valid UTF-8.
    InvalidUtf8,
    /// The server could not be reached, or the connection broke.
    Network,
    /// A connect or whole-call timeout ran out.
    Timeout,
    /// The TLS handshake or certificate check failed.
    Tls,
    /// The server's reply is not the service's JSON envelope (not JSON, wrong types, too
    /// large).
    Protocol,
    /// The call was cancelled by the host.
    Cancelled,
    /// A panic inside the library was caught at the boundary.
    Panic,
    /// A reply field that was asked for is absent or of another type.
    NoSuchField,
    /// The operating system failed (thread, machine identity, randomness).
    System,
    /// The server's certificate chain is valid but matches none of the pinned keys.
    Pin,
    /// The proxy is unreachable, refused the credentials or the tunnel.
    Proxy,
    /// The request is larger than the library sends; nothing was sent.
    TooLarge,
    /// An offline verdict was refused: the local clock is earlier than the latest server
    /// time seen by more than the tolerance.
    ClockBack,
    /// An offline verdict was refused: the offline grace period is over.
    GraceOver,
    /// An offline verdict was refused: the stored licence has expired.
    OfflineExpired,
    /// An offline verdict was refused: the password does not match the one of the last
    /// online login of the account.
    OfflinePassword,
    /// Offline verdicts are on but the state folder cannot be created or written.
    StateFolder,
    /// An offline verdict was refused: the time cannot be confirmed offline (a piece of the
    /// store that vouches for it, the time mark in the state folder or in its second place,
    /// is missing, foreign, older than the verdict or elsewhere); a login that reaches the
    /// server heals it.
    TimeUnconfirmed,
}

impl ErrorKind {
    /// The integer code: the server's own code, or a negative local code of [`codes`].
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::Server(code) => code,
            ErrorKind::InvalidArgument => codes::ERR_INVALID_ARGUMENT,
            ErrorKind::InvalidUtf8 => codes::ERR_INVALID_UTF8,
            ErrorKind::Network => codes::ERR_NETWORK,
            ErrorKind::Timeout => codes::ERR_TIMEOUT,
            ErrorKind::Tls => codes::ERR_TLS,
            ErrorKind::Protocol => codes::ERR_PROTOCOL,
            ErrorKind::Cancelled => codes::ERR_CANCELLED,
            ErrorKind::Panic => codes::ERR_PANIC,
            ErrorKind::NoSuchField => codes::ERR_NO_SUCH_FIELD,
            ErrorKind::System => codes::ERR_SYSTEM,
            ErrorKind::Pin => codes::ERR_PIN,
            ErrorKind::Proxy => codes::ERR_PROXY,
            ErrorKind::TooLarge => codes::ERR_TOO_LARGE,
            ErrorKind::ClockBack => codes::ERR_CLOCK_BACK,
            ErrorKind::GraceOver => codes::ERR_GRACE_OVER,
            ErrorKind::OfflineExpired => codes::ERR_OFFLINE_EXPIRED,
            ErrorKind::OfflinePassword => codes::ERR_OFFLINE_PASSWORD,
            ErrorKind::StateFolder => codes::ERR_STATE_FOLDER,
            ErrorKind::TimeUnconfirmed => codes::ERR_TIME_UNCONFIRMED,
        }
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
    /// A reply came, but not the service's: an HTTP error page, HTML, an empty or cut body
    /// (a reverse proxy, a CDN, a captive portal answered instead of the service).
    not_the_service: bool,
    /// What that reply showed (its status, a few headers, the page's title).
    http: Option<Box<HttpFacts>>,
}

/// What an HTTP reply that was not the service's showed, as `curl -i` would: the status,
/// the `Server` and `Via` headers, the content type, the `Date`, and for an HTML page its
/// title and the start of its text (at most [`HttpFacts::BODY_START`] characters, control
/// characters left out). For the doctor. A body that is not a page (JSON cut short, which
/// may hold the session secret or a token; plain text) is never quoted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpFacts {
    /// The HTTP status.
    pub status: u16,
    /// The `Server` header.
    pub server: Option<String>,
    /// The `Via` header (a proxy on the way).
    pub via: Option<String>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The `Date` header, as sent.
    pub date: Option<String>,
    /// Whether the body is an HTML page.
    pub html: bool,
    /// The `<title>` of an HTML page.
    pub title: Option<String>,
    /// The start of an HTML page's text (empty for any other body).
    pub body_start: String,
}

impl HttpFacts {
    /// How many characters of the body [`HttpFacts::body_start`] keeps.
    pub const BODY_START: usize = 200;

    /// The `Date` as a time, when well formed.
    pub fn date_time(&self) -> Option<std::time::SystemTime> {
        self.date
            .as_deref()
            .and_then(|text| httpdate::parse_http_date(text).ok())
    }
}

impl Error {
    /// A local failure of `kind` with an English explanation.
    pub fn local(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            kind,
            detail: detail.into(),
            reply: None,
            not_the_service: false,
            http: None,
        }
    }

    /// A refusal by the server: the reply's code becomes the error's code.
    pub fn refused(reply: Reply) -> Error {
        Error {
            kind: ErrorKind::Server(reply.code()),
            detail: String::new(),
            reply: Some(Box::new(reply)),
            not_the_service: false,
            http: None,
        }
    }

    pub(crate) fn invalid_argument(detail: impl Into<String>) -> Error {
        Error::local(ErrorKind::InvalidArgument, detail)
    }

    pub(crate) fn protocol(detail: impl Into<String>) -> Error {
        Error::local(ErrorKind::Protocol, detail)
    }

    /// A protocol error for a reply that is not the service's (no JSON object with a
    /// `code`): something else answered in its place, so the service was not reached.
    pub(crate) fn not_the_service(detail: impl Into<String>) -> Error {
        Error {
            not_the_service: true,
            ..Error::protocol(detail)
        }
    }

    /// Whether this is a reply that was not the service's (an HTTP 5xx or other error page,
    /// HTML, an empty or cut body, a redirect): an outage, as a failed connection is.
    pub(crate) fn is_not_the_service(&self) -> bool {
        self.not_the_service
    }

    /// This error with what the HTTP reply that was not the service's showed.
    pub(crate) fn with_http(mut self, facts: HttpFacts) -> Error {
        self.http = Some(Box::new(facts));
        self
    }

    /// What the HTTP reply showed, when a reply came that was not the service's (an error
    /// page, HTML, a redirect).
    pub fn http_facts(&self) -> Option<&HttpFacts> {
        self.http.as_deref()
    }

    pub(crate) fn system(detail: impl Into<String>) -> Error {
        Error::local(ErrorKind::System, detail)
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
        write!(f, "{} ({code})", codes::describe(code))?;
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

/// How many characters of an argument a message shows.
const QUOTED_CHARS: usize = 64;

/// A caller's argument as a message shows it: its first 64 characters in quotes, control
/// characters, quotes and backslashes escaped, and when it is longer, "..." and its length.
/// A message never copies a whole argument (a 64 KiB path would make a 64 KiB message).
pub fn quoted(value: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = value.chars();
    for c in chars.by_ref().take(QUOTED_CHARS) {
        out.extend(c.escape_debug());
    }
    out.push('"');
    if chars.next().is_some() {
        out.push_str(&format!("... ({} bytes)", value.len()));
    }
    out
}

/// A path as a message shows it: [`quoted`] (its first 64 characters).
pub fn quoted_path(path: &std::path::Path) -> String {
    quoted(&path.to_string_lossy())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_arguments_are_short_and_escaped() {
        assert_eq!(quoted("a.example"), "\"a.example\"");
        assert_eq!(quoted("a\tb\u{1}\"c"), "\"a\\tb\\u{1}\\\"c\"");
        let long = "x".repeat(65536);
        let shown = quoted(&long);
        assert!(shown.len() < 100, "{shown}");
        assert!(shown.ends_with("... (65536 bytes)"), "{shown}");
    }

    #[test]
    fn local_kinds_have_distinct_codes_of_the_table() {
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
            ErrorKind::System,
            ErrorKind::Pin,
            ErrorKind::Proxy,
            ErrorKind::TooLarge,
            ErrorKind::ClockBack,
            ErrorKind::GraceOver,
            ErrorKind::OfflineExpired,
            ErrorKind::OfflinePassword,
            ErrorKind::StateFolder,
            ErrorKind::TimeUnconfirmed,
        ];
        let codes: std::collections::HashSet<i32> = kinds.iter().map(|k| k.code()).collect();
        assert_eq!(codes.len(), kinds.len());
        for code in codes {
            assert!(code < 0 && codes::info(code).is_some(), "{code}");
        }
    }
}
