//! A reply of the service ready to be written, and what happens to it on its way out.

use bytes::Bytes;
use serde_json::json;

/// What happens to a reply on its way out (faults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Normal,
    Delay(u64),
    Drop,
    Truncate,
}

/// A reply ready to be written.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// `true` for the HTML page of the `http_502` fault.
    pub html: bool,
    pub body: Bytes,
    pub fate: Fate,
}

impl Reply {
    /// A JSON envelope with an HTTP status (404, 405, 413).
    pub fn http_error(status: u16, message: &str) -> Reply {
        let body = json!({"code": status, "message": message, "data": null});
        Reply {
            status,
            html: false,
            body: Bytes::from(body.to_string()),
            fate: Fate::Normal,
        }
    }
}
