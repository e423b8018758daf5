//! The protocol inspector: what the request log keeps of each service request beyond its
//! one-line entry (`GET /_sandbox/log/{seq}`, the console's entry view): the decoded form,
//! the decrypted plaintext and its parameters, the reply, timings, the connection, and the
//! diagnoses of `diagnose/`.
//!
//! A request's parts are kept as the service had them (moved, not copied, and cut when
//! large) and masked when the detail is shown, so that the service does not pay for the
//! inspector while it holds the state's lock; headers are masked when the request arrives.

use std::net::SocketAddr;
use std::time::Instant;

use bytes::Bytes;
use serde::Serialize;
use serde_json::{json, Value};

use super::mask::{cut, form_masked, mask_reply, mask_secret, params_masked, plaintext_masked};
use crate::wire::Params;

/// Details are kept for this many of the newest log entries (and never more than the log
/// holds): each is a few KiB at most.
pub const DETAILS_KEPT: usize = 1000;

/// Longest form, plaintext or reply kept whole; a larger one is cut when recorded.
const KEPT_MAX: usize = 16 * 1024;

/// Headers kept of one request.
const HEADERS_MAX: usize = 32;

/// The connection a request came on, and its place on it.
#[derive(Debug, Clone)]
pub struct Connection {
    pub id: u64,
    pub peer: SocketAddr,
    pub local: SocketAddr,
    pub tls: bool,
    pub accepted: Instant,
}

/// What the HTTP side knows of a service request before the service sees it.
#[derive(Debug, Clone)]
pub struct Meta {
    pub conn: Connection,
    /// 1 for the first request on its connection.
    pub nth: u64,
    pub method: hyper::Method,
    pub version: hyper::Version,
    /// `name: value` lines, masked (empty when the inspector is off).
    pub headers: String,
    pub content_type: Option<String>,
    /// When the request head had arrived.
    pub started: Instant,
    /// Milliseconds to read the body.
    pub read_ms: f64,
}

impl Meta {
    /// The masked headers of a request, `name: value` lines.
    pub fn headers_of(headers: &hyper::HeaderMap) -> String {
        let mut out = String::with_capacity(256);
        for (name, value) in headers.iter().take(HEADERS_MAX) {
            let value = String::from_utf8_lossy(value.as_bytes());
            out.push_str(name.as_str());
            out.push_str(": ");
            match name.as_str() {
                "x-api-password" => out.push_str(&mask_secret(value.trim())),
                "authorization" | "cookie" => out.push_str("****"),
                _ => out.push_str(&cut(&value)),
            }
            out.push('\n');
        }
        out
    }
}

/// One request as the inspector keeps it; masked and turned into JSON by
/// [`Detail::to_json`] when asked for.
#[derive(Debug, Clone)]
pub struct Detail {
    received_unix: i64,
    conn: u64,
    peer: SocketAddr,
    local: SocketAddr,
    tls: bool,
    nth: u64,
    age_ms: f64,
    method: hyper::Method,
    version: hyper::Version,
    content_type: Option<String>,
    headers: String,
    form: Vec<(String, String)>,
    api_password_from: Option<&'static str>,
    plaintext: Option<Vec<u8>>,
    params: Option<Params>,
    /// The reply's body as sent (JSON, or a fault's other body).
    reply: Bytes,
    http_status: u16,
    fault: Option<&'static str>,
    read_ms: f64,
    handle_ms: f64,
    fault_delay_ms: u64,
    /// `(code, message, why)` of a refusal.
    refusal: Option<(i64, String, String)>,
    pub diagnoses: Vec<Diagnosis>,
}

/// One parameter an action looked up (for the inspector: which names it reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// The name and its aliases, in the order they are tried.
    pub names: &'static [&'static str],
    pub required: bool,
    pub found: bool,
}

/// How a diagnosis (`diagnose/`) weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Why this request was refused.
    Error,
    /// Accepted here, but wrong: another server may refuse it or read it otherwise.
    Warning,
}

/// One finding about a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnosis {
    /// A stable name of the mistake (README "The inspector" lists them).
    pub kind: &'static str,
    pub severity: Severity,
    /// One line that names the mistake.
    pub title: String,
    /// The first difference, and what to do.
    pub detail: String,
    /// For a signature: what the sandbox signed and what it expected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signed: Option<Signed>,
}

/// The string the sandbox signed (secrets masked), and the signatures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Signed {
    pub formula: &'static str,
    /// The string the sandbox signed, secrets masked.
    pub string: String,
    /// Lowercase hex MD5 of the UTF-8 bytes of the unmasked string.
    pub expected: String,
    pub sent: String,
    /// The string the client signed, when a known mistake reproduces its Sign (masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_string: Option<String>,
}

fn pairs_json(pairs: &[(String, String)]) -> Vec<Value> {
    pairs.iter().map(|(k, v)| pair(k, v.clone())).collect()
}

fn round3(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

impl Detail {
    /// The JSON of `GET /_sandbox/log/{seq}` (without the log entry's own fields), secrets
    /// masked.
    pub fn to_json(&self, path: &str) -> Value {
        let headers: Vec<Value> = self
            .headers
            .lines()
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| pair(k, v.to_string()))
            .collect();
        let reply = serde_json::from_slice::<Value>(&self.reply).map_or_else(
            |_| Value::String(cut(&String::from_utf8_lossy(&self.reply))),
            |v| mask_reply(&v),
        );
        json!({
            "received_at": crate::time::format(self.received_unix),
            "received_unix": self.received_unix,
            "connection": {
                "id": self.conn,
                "peer": self.peer.to_string(),
                "local": self.local.to_string(),
                "tls": self.tls,
                "request_on_connection": self.nth,
                "connection_age_ms": self.age_ms,
            },
            "request": {
                "method": self.method.as_str(),
                "path": path,
                "http_version": format!("{:?}", self.version),
                "content_type": self.content_type,
                "headers": headers,
            },
            "form": pairs_json(&form_masked(&self.form)),
            "api_password_from": self.api_password_from,
            "plaintext": self.plaintext.as_deref().map(plaintext_masked),
            "params": self.params.as_ref().map(|p| pairs_json(&params_masked(p))).unwrap_or_default(),
            "reply": reply,
            "http_status": self.http_status,
            "fault": self.fault,
            "timings": {
                "read_body_ms": self.read_ms,
                "handle_ms": self.handle_ms,
                "fault_delay_ms": self.fault_delay_ms,
            },
            "refusal": self.refusal.as_ref().map(|(code, message, why)| {
                json!({"code": code, "message": message, "why": why})
            }),
            "diagnoses": self.diagnoses,
        })
    }
}

fn pair(name: &str, value: String) -> Value {
    json!({ "name": name, "value": value })
}

fn ms(d: std::time::Duration) -> f64 {
    round3(d.as_secs_f64() * 1000.0)
}

/// `s` if it is short, else its first [`KEPT_MAX`] bytes (at a character boundary).
fn kept(s: String) -> String {
    if s.len() <= KEPT_MAX {
        return s;
    }
    let mut end = KEPT_MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// What the service knows of a request once it has answered: moved into the detail.
pub struct Answered<'a> {
    pub meta: &'a Meta,
    pub now: i64,
    pub form: Vec<(String, String)>,
    pub api_password_from: Option<&'static str>,
    pub plaintext: Option<Vec<u8>>,
    pub params: Option<Params>,
    /// The reply's body as sent.
    pub reply: Bytes,
    /// The envelope's code and message (the HTTP status and its text for a reply the HTTP
    /// side made, 0 when a fault replaced the body).
    pub code: i64,
    pub message: String,
    pub http_status: u16,
    pub fault: Option<&'static str>,
    pub fault_delay_ms: u64,
    pub handle_ms: f64,
    pub diagnoses: Vec<Diagnosis>,
}

/// The detail of one answered request.
pub fn detail(a: Answered) -> Detail {
    let refusal = (a.code != 200 && a.code != 201).then(|| {
        let why = a
            .diagnoses
            .iter()
            .find(|d| d.severity == Severity::Error)
            .map_or_else(|| a.message.clone(), |d| d.title.clone());
        (a.code, a.message, why)
    });
    let m = a.meta;
    let mut form = a.form;
    if form.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>() > KEPT_MAX {
        form = form.into_iter().map(|(k, v)| (kept(k), kept(v))).collect();
    }
    let plaintext = a.plaintext.map(|mut p| {
        p.truncate(KEPT_MAX);
        p
    });
    let reply = if a.reply.len() > KEPT_MAX {
        a.reply.slice(..KEPT_MAX)
    } else {
        a.reply
    };
    Detail {
        received_unix: a.now,
        conn: m.conn.id,
        peer: m.conn.peer,
        local: m.conn.local,
        tls: m.conn.tls,
        nth: m.nth,
        age_ms: ms(m.started.saturating_duration_since(m.conn.accepted)),
        method: m.method.clone(),
        version: m.version,
        content_type: m.content_type.clone(),
        headers: m.headers.clone(),
        form,
        api_password_from: a.api_password_from,
        plaintext,
        params: a.params,
        reply,
        http_status: a.http_status,
        fault: a.fault,
        read_ms: round3(m.read_ms),
        handle_ms: round3(a.handle_ms),
        fault_delay_ms: a.fault_delay_ms,
        refusal,
        diagnoses: a.diagnoses,
    }
}
