//! Requests the HTTP side answered itself: an unknown path, another method, a body too
//! large or too slow.

use bytes::Bytes;
use serde_json::json;

use super::seen::error;
use crate::inspect::detail::{detail, Answered, Detail, Diagnosis, Meta};
use crate::inspect::mask::mask_path;

/// An unknown path, another method, a body too large or too slow.
fn http(meta: &Meta, path: &str, status: u16) -> Vec<Diagnosis> {
    let shown = mask_path(path);
    let d = match status {
        404 => {
            let near = path.to_ascii_lowercase().starts_with("/api/verify")
                || path.trim_end_matches('/').eq_ignore_ascii_case("/api/verify");
            error(
                "wrong_path",
                format!("{shown} is not a service path"),
                format!(
                    "the service is POST /api/verify (Init) and POST /api/verify/{{ApiPassword}} \
                     (Handle){}",
                    if near {
                        "; paths are case-sensitive and take one segment after /api/verify/"
                    } else {
                        ""
                    }
                ),
            )
        }
        405 => error(
            "wrong_method",
            format!("{} {shown}: the service takes POST only", meta.method),
            "send the form as the body of a POST (application/x-www-form-urlencoded)".to_string(),
        ),
        413 => error(
            "body_too_large",
            "the body is over 1 MiB".to_string(),
            "no request of the service needs that much: is a file or a whole log in a value?"
                .to_string(),
        ),
        408 => error(
            "body_too_slow",
            "the body did not arrive in time".to_string(),
            "the client announced more bytes (Content-Length) than it sent, or sent them too slowly"
                .to_string(),
        ),
        _ => return Vec::new(),
    };
    vec![d]
}

/// The detail of a request the HTTP side answered itself (unknown path, another method, a
/// body too large or too slow).
pub fn http_detail(meta: &Meta, path: &str, now: i64, status: u16, message: &str) -> Detail {
    let diagnoses = http(meta, path, status);
    let reply = json!({"code": status, "message": message, "data": null}).to_string();
    detail(Answered {
        meta,
        now,
        form: Vec::new(),
        api_password_from: None,
        plaintext: None,
        params: None,
        reply: Bytes::from(reply),
        code: i64::from(status),
        message: message.to_string(),
        http_status: status,
        fault: None,
        fault_delay_ms: 0,
        handle_ms: 0.0,
        diagnoses,
    })
}
