//! The service's reply envelope `{code, message, data}`, kept whole so that every field,
//! documented or not, can be read.

use std::fmt;

use serde_json::Value;

use crate::error::Error;

/// A reply of the server: `code`, `message` and `data` (object or null), plus any unknown
/// top-level fields, exactly as received.
///
/// `Debug` prints the code, message and remark only: `data` may hold a token.
#[derive(Clone, PartialEq)]
pub struct Reply {
    code: i32,
    envelope: Value,
}

impl Reply {
    /// Parses a reply body. A body that is not JSON, or whose `code`, `message` or `data` is
    /// of another type than the spec says, is a protocol error that quotes the body's start.
    pub fn from_body(body: &[u8]) -> Result<Reply, Error> {
        let mut envelope: Value = serde_json::from_slice(body).map_err(|err| {
            Error::protocol(format!(
                "reply is not JSON ({err}); it starts with: {}",
                quote_start(body)
            ))
        })?;
        let Some(fields) = envelope.as_object_mut() else {
            return Err(Error::protocol(format!(
                "reply is not a JSON object; it starts with: {}",
                quote_start(body)
            )));
        };
        let code = match fields.get("code") {
            Some(Value::Number(n)) => n.as_i64().and_then(|c| i32::try_from(c).ok()),
            _ => None,
        }
        .ok_or_else(|| {
            Error::protocol(format!(
                "reply has no integer `code`; it starts with: {}",
                quote_start(body)
            ))
        })?;
        match fields.get("message") {
            None | Some(Value::String(_)) => {}
            Some(other) => {
                return Err(Error::protocol(format!(
                    "reply `message` is {}, not a string",
                    type_name(other)
                )))
            }
        }
        match fields.get("data") {
            None | Some(Value::Null) | Some(Value::Object(_)) => {}
            // PHP encodes an empty array as `[]`: an empty `data` is no data.
            Some(Value::Array(items)) if items.is_empty() => {
                fields.insert("data".into(), Value::Null);
            }
            Some(other) => {
                return Err(Error::protocol(format!(
                    "reply `data` is {}, not an object or null",
                    type_name(other)
                )))
            }
        }
        Ok(Reply { code, envelope })
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
        self.field("remark").and_then(Value::as_str)
    }

    /// A field of `data` by name; a dotted path reads nested objects (`variables.name`) and
    /// arrays by index (`messages.0`).
    pub fn field(&self, path: &str) -> Option<&Value> {
        path.split('.')
            .try_fold(self.data(), |value, key| match value {
                Value::Object(map) => map.get(key),
                Value::Array(items) => items.get(key.parse::<usize>().ok()?),
                _ => None,
            })
    }

    /// Removes a field of `data` and returns it (used to keep secrets out of replies).
    pub(crate) fn take_field(&mut self, key: &str) -> Option<Value> {
        self.envelope.get_mut("data")?.as_object_mut()?.remove(key)
    }

    /// The whole envelope as received (unknown fields included).
    pub fn json(&self) -> &Value {
        &self.envelope
    }

    /// The reply as typed data when its code is 200, else the server's refusal as an error.
    pub fn into_typed<T: FromData>(self) -> Result<T, Error> {
        if self.code != crate::error::CODE_OK {
            return Err(Error::refused(self));
        }
        match T::from_data(self.data()) {
            Ok(typed) => Ok(typed),
            Err(detail) => Err(Error::bad_shape(self, detail)),
        }
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

/// Typed `data` of a successful reply.
pub trait FromData: Sized {
    /// Reads the typed value from `data`; the error names the field and what was wrong.
    fn from_data(data: &Value) -> Result<Self, String>;
}

/// Reads fields of a reply's `data` with clear errors for absent fields and wrong types.
pub(crate) struct Fields<'a> {
    action: &'static str,
    data: &'a serde_json::Map<String, Value>,
}

impl<'a> Fields<'a> {
    pub(crate) fn of(action: &'static str, data: &'a Value) -> Result<Fields<'a>, String> {
        match data.as_object() {
            Some(map) => Ok(Fields { action, data: map }),
            None => Err(format!(
                "{action} reply `data` is {}, not an object",
                type_name(data)
            )),
        }
    }

    fn wrong(&self, key: &str, expected: &str, got: &Value) -> String {
        format!(
            "{} reply field `{key}` is {}, not {expected}",
            self.action,
            type_name(got)
        )
    }

    pub(crate) fn opt_str(&self, key: &str) -> Result<Option<String>, String> {
        match self.data.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    pub(crate) fn str(&self, key: &str) -> Result<String, String> {
        self.opt_str(key)?
            .ok_or_else(|| format!("{} reply has no field `{key}`", self.action))
    }

    pub(crate) fn opt_int(&self, key: &str) -> Result<Option<i64>, String> {
        match self.data.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.wrong(key, "an integer", &Value::Number(n.clone()))),
            Some(other) => Err(self.wrong(key, "an integer", other)),
        }
    }

    pub(crate) fn int(&self, key: &str) -> Result<i64, String> {
        self.opt_int(key)?
            .ok_or_else(|| format!("{} reply has no field `{key}`", self.action))
    }

    pub(crate) fn opt_bool(&self, key: &str) -> Result<Option<bool>, String> {
        match self.data.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(other) => Err(self.wrong(key, "a boolean", other)),
        }
    }

    pub(crate) fn bool(&self, key: &str) -> Result<bool, String> {
        self.opt_bool(key)?
            .ok_or_else(|| format!("{} reply has no field `{key}`", self.action))
    }

    pub(crate) fn object(&self, key: &str) -> Result<&'a serde_json::Map<String, Value>, String> {
        match self.data.get(key) {
            Some(Value::Object(map)) => Ok(map),
            Some(other) => Err(self.wrong(key, "an object", other)),
            None => Err(format!("{} reply has no field `{key}`", self.action)),
        }
    }
}

/// The JSON type of a value, for error messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The first 120 characters of a body, for error messages (lossy UTF-8, one line).
fn quote_start(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(480)]);
    let mut quoted: String = text
        .chars()
        .take(120)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().count() > 120 || body.len() > 480 {
        quoted.push('…');
    }
    format!("{quoted:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_envelope_and_nested_fields() {
        let reply =
            Reply::from_body(br#"{"code":1006,"message":"m","data":{"remark":"r","a":{"b":2}}}"#)
                .expect("valid");
        assert_eq!(reply.code(), 1006);
        assert_eq!(reply.message(), "m");
        assert_eq!(reply.remark(), Some("r"));
        assert_eq!(reply.field("a.b"), Some(&Value::from(2)));
        assert_eq!(reply.field("a.c"), None);
        let list = Reply::from_body(br#"{"code":200,"data":{"l":["x","y"]}}"#).expect("valid");
        assert_eq!(list.field("l.1"), Some(&Value::from("y")));
        assert_eq!(list.field("l.2"), None);
        assert_eq!(list.field("l.x"), None);
    }

    #[test]
    fn non_json_is_a_protocol_error_quoting_the_start() {
        let err = Reply::from_body(b"<html>502 Bad Gateway</html>").expect_err("not json");
        assert_eq!(err.code(), crate::error::local::PROTOCOL);
        assert!(err.message().contains("<html>502 Bad Gateway"), "{err}");
    }

    #[test]
    fn wrong_types_are_protocol_errors() {
        for body in [
            &br#"{"code":"200","message":"","data":null}"#[..],
            br#"{"code":200,"message":5,"data":null}"#,
            br#"{"code":200,"message":"","data":"x"}"#,
            br#"[1,2]"#,
            br#"{"code":200.5}"#,
        ] {
            let err = Reply::from_body(body).expect_err("bad shape");
            assert_eq!(err.code(), crate::error::local::PROTOCOL, "{err}");
        }
    }

    #[test]
    fn empty_array_data_reads_as_null() {
        let reply = Reply::from_body(br#"{"code":200,"message":"ok","data":[]}"#).expect("valid");
        assert_eq!(reply.data(), &Value::Null);
    }
}
