//! The service's reply envelope `{code, message, data}`, kept whole so that every field,
//! documented or not, can be read.

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;

use crate::session::SessionKind;

/// What an offline verdict knows besides its data ([`Reply::offline`]).
pub struct OfflineInfo {
    /// When the server last confirmed the licence.
    pub confirmed_at: SystemTime,
    /// When the offline grace period ends (the last confirmation plus the grace).
    pub grace_end: SystemTime,
    /// The code of the local failure that kept the server out of reach (network, timeout,
    /// TLS, proxy).
    pub reason_code: i32,
    /// Its explanation.
    pub reason: String,
    /// The session kind of the login.
    pub kind: SessionKind,
    /// How the session goes on (the offline store's: the login to send again, the exchange
    /// still going on), for a keeper started from the reply.
    pub(crate) resume: Arc<dyn Any + Send + Sync>,
}

impl fmt::Debug for OfflineInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OfflineInfo")
            .field("confirmed_at", &self.confirmed_at)
            .field("grace_end", &self.grace_end)
            .field("reason_code", &self.reason_code)
            .field("reason", &self.reason)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// A reply of the server: `code`, `message` and `data` (object or null), plus any unknown
/// top-level fields, exactly as received.
///
/// An offline verdict (code 202, [`Reply::offline`]) is the exception: the server could not
/// be reached, and its `data` are the stored data of the server's last confirmed login.
///
/// `Debug` prints the code, message and remark only: `data` may hold a token.
#[derive(Clone)]
pub struct Reply {
    code: i32,
    envelope: Value,
    /// The HTTP `Date` of the reply, when it had one.
    date: Option<SystemTime>,
    /// The session kind of a login's reply.
    session: Option<SessionKind>,
    /// What an offline verdict knows besides its data.
    offline: Option<Arc<OfflineInfo>>,
}

impl PartialEq for Reply {
    /// Replies are equal when their code and envelope are (and both are, or neither is, an
    /// offline verdict).
    fn eq(&self, other: &Reply) -> bool {
        self.code == other.code
            && self.envelope == other.envelope
            && self.offline.is_some() == other.offline.is_some()
    }
}

impl Reply {
    /// Parses a reply body. A body that is not JSON, or whose `code`, `message` or `data` is
    /// of another type than the spec says, is refused with an explanation that describes the
    /// body (its length, the JSON error, the keys it has) and never quotes its values: a
    /// malformed reply may still carry a session secret or a token.
    pub fn from_body(body: &[u8]) -> Result<Reply, String> {
        let mut envelope: Value = serde_json::from_slice(body).map_err(|err| {
            let hint = match body.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'<') => " (it starts with `<`: HTML?)",
                None => " (it is empty)",
                _ => "",
            };
            format!(
                "reply of {} bytes is not JSON{hint}: {}",
                body.len(),
                json_error(&err)
            )
        })?;
        let Some(fields) = envelope.as_object_mut() else {
            return Err(format!(
                "reply is {}, not a JSON object",
                type_name(&envelope)
            ));
        };
        let code = match fields.get("code") {
            Some(Value::Number(n)) => n.as_i64().and_then(|c| i32::try_from(c).ok()),
            _ => None,
        }
        .ok_or_else(|| match fields.get("code") {
            Some(other) => format!("reply `code` is {}, not a 32-bit integer", type_name(other)),
            None => format!("reply has no `code` (its keys: {})", keys_of(fields)),
        })?;
        match fields.get("message") {
            None | Some(Value::String(_)) => {}
            Some(other) => {
                return Err(format!(
                    "reply `message` is {}, not a string",
                    type_name(other)
                ))
            }
        }
        match fields.get("data") {
            None | Some(Value::Null) | Some(Value::Object(_)) => {}
            // PHP encodes an empty array as `[]`: an empty `data` is no data.
            Some(Value::Array(items)) if items.is_empty() => {
                fields.insert("data".into(), Value::Null);
            }
            Some(other) => {
                return Err(format!(
                    "reply `data` is {}, not an object or null",
                    type_name(other)
                ))
            }
        }
        Ok(Reply {
            code,
            envelope,
            date: None,
            session: None,
            offline: None,
        })
    }

    /// An offline verdict: `envelope` (code 202, the stored data) and what it knows besides.
    pub(crate) fn offline_verdict(envelope: Value, info: OfflineInfo) -> Reply {
        Reply {
            code: crate::codes::OFFLINE,
            envelope,
            date: None,
            session: Some(info.kind),
            offline: Some(Arc::new(info)),
        }
    }

    /// Sets the HTTP `Date` of the reply.
    pub(crate) fn with_date(mut self, date: Option<SystemTime>) -> Reply {
        self.date = date;
        self
    }

    /// Marks the reply as a login's, of session kind `session`.
    pub(crate) fn with_session(mut self, session: Option<SessionKind>) -> Reply {
        self.session = session;
        self
    }

    /// The HTTP `Date` of the reply (the server's clock), when it had one.
    pub fn date(&self) -> Option<SystemTime> {
        self.date
    }

    /// The session kind of a login's reply (`SingleLogin`: card; `UserLogin`: user).
    pub fn session(&self) -> Option<SessionKind> {
        self.session
    }

    /// What an offline verdict knows besides its data (when the server last confirmed the
    /// licence, when the offline grace ends, why the server could not be reached); `None`
    /// for the server's own replies.
    pub fn offline(&self) -> Option<&OfflineInfo> {
        self.offline.as_deref()
    }

    /// The reply's code: 200 success, 201 pending, otherwise the server's error code.
    pub fn code(&self) -> i32 {
        self.code
    }

    /// The (localized) message; empty when the server sent none.
    pub fn message(&self) -> &str {
        self.envelope
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// `data`, or `Value::Null` when absent.
    pub fn data(&self) -> &Value {
        self.envelope.get("data").unwrap_or(&Value::Null)
    }

    /// `data.remark`, when present and a string.
    pub fn remark(&self) -> Option<&str> {
        self.str_field("remark")
    }

    /// A field of `data` by its name (no path syntax: a name may contain `.` or `/`).
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.data().get(name)
    }

    /// A field of `data` when it is a string.
    pub fn str_field(&self, name: &str) -> Option<&str> {
        self.field(name).and_then(Value::as_str)
    }

    /// A field of `data` when it is an integer that fits in 64 bits.
    pub fn int_field(&self, name: &str) -> Option<i64> {
        self.field(name).and_then(Value::as_i64)
    }

    /// A field of `data` when it is a boolean.
    pub fn bool_field(&self, name: &str) -> Option<bool> {
        self.field(name).and_then(Value::as_bool)
    }

    /// A value anywhere in the envelope by JSON Pointer (RFC 6901): `/data/token`,
    /// `/data/variables/a.b`, `/data/list/0`; `""` is the whole envelope. In a key, `~1`
    /// stands for `/` and `~0` for `~`.
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        self.envelope.pointer(pointer)
    }

    /// Removes a field of `data` and returns it (used to keep secrets out of replies).
    pub(crate) fn take_field(&mut self, key: &str) -> Option<Value> {
        self.envelope.get_mut("data")?.as_object_mut()?.remove(key)
    }

    /// The whole envelope as received (unknown fields included).
    pub fn json(&self) -> &Value {
        &self.envelope
    }
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reply")
            .field("code", &self.code)
            .field("message", &self.message())
            .field("remark", &self.remark())
            .finish_non_exhaustive()
    }
}

/// The JSON type of a value, for error messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON error without the text around it: its category and position.
fn json_error(err: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match err.classify() {
        Category::Io => "read error",
        Category::Syntax => "syntax error",
        Category::Data => "unexpected data",
        Category::Eof => "ends early",
    };
    format!("{what} at line {} column {}", err.line(), err.column())
}

/// The keys of an object, for error messages (never the values).
fn keys_of(fields: &serde_json::Map<String, Value>) -> String {
    let mut keys: Vec<String> = fields.keys().take(16).map(|k| format!("{k:?}")).collect();
    if fields.len() > 16 {
        keys.push("...".into());
    }
    if keys.is_empty() {
        "none".into()
    } else {
        keys.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_envelope_and_pointers() {
        let reply = Reply::from_body(
            br#"{"code":1006,"message":"m","data":{"remark":"r","a":{"b.c":2},"l":["x","y"]}}"#,
        )
        .expect("valid");
        assert_eq!(reply.code(), 1006);
        assert_eq!(reply.message(), "m");
        assert_eq!(reply.remark(), Some("r"));
        assert_eq!(reply.pointer("/data/a/b.c"), Some(&Value::from(2)));
        assert_eq!(reply.pointer("/data/l/1"), Some(&Value::from("y")));
        assert_eq!(reply.pointer("/data/l/2"), None);
        assert_eq!(reply.pointer("/code"), Some(&Value::from(1006)));
        assert_eq!(reply.int_field("remark"), None);
        assert_eq!(reply.str_field("remark"), Some("r"));
    }

    #[test]
    fn errors_describe_the_body_without_quoting_it() {
        let err = Reply::from_body(b"<html>502 Bad Gateway</html>").expect_err("not json");
        assert!(err.contains("HTML"), "{err}");
        assert!(!err.contains("Bad Gateway"), "{err}");
        let secret = br#"{"code":200,"message":"ok","data":{"api_password":"SECRETSECRET"#;
        let err = Reply::from_body(secret).expect_err("truncated");
        assert!(!err.contains("SECRET"), "{err}");
        let err = Reply::from_body(br#"{"token":"SECRETTOKEN"}"#).expect_err("no code");
        assert!(
            err.contains("\"token\"") && !err.contains("SECRETTOKEN"),
            "{err}"
        );
    }

    #[test]
    fn wrong_types_are_refused() {
        for body in [
            &br#"{"code":"200","message":"","data":null}"#[..],
            br#"{"code":200,"message":5,"data":null}"#,
            br#"{"code":200,"message":"","data":"x"}"#,
            br#"[1,2]"#,
            br#"{"code":200.5}"#,
            br#"{"code":99999999999}"#,
        ] {
            assert!(Reply::from_body(body).is_err());
        }
    }

    #[test]
    fn empty_array_data_reads_as_null() {
        let reply = Reply::from_body(br#"{"code":200,"message":"ok","data":[]}"#).expect("valid");
        assert_eq!(reply.data(), &Value::Null);
    }
}
