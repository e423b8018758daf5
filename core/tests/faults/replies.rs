//! Faults of a reply, each given the healthy body of the request it replaces: framing,
//! padding, cut bodies, a clock an hour ahead, redirects to a trap.

use super::*;

/// The healthy reply, with `Content-Length` as given.
pub(crate) fn framed(body: &str, content_length: &str) -> Response {
    Response::raw_http(format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {content_length}\
         \r\n\r\n{body}"
    ))
}

/// A valid Login refusal padded to exactly `length` bytes.
pub(crate) fn padded(length: usize) -> Response {
    let empty = r#"{"code":1005,"message":"","data":null}"#;
    let padding = "p".repeat(length - empty.len());
    Response::raw(
        200,
        format!(r#"{{"code":1005,"message":"{padding}","data":null}}"#),
    )
}

/// The healthy reply, cut in the middle of its body.
pub(crate) fn half(body: &str) -> Response {
    let reply = Response::raw(200, body);
    let keep = reply.bytes().len() - body.len() / 2;
    reply.cut(keep)
}

pub(crate) fn date_in_an_hour() -> String {
    httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3600))
}

/// A server that redirects point to: it must never see a request.
pub(crate) fn trap() -> &'static FakeServer {
    static TRAP: OnceLock<FakeServer> = OnceLock::new();
    TRAP.get_or_init(|| FakeServer::start(healthy))
}

/// A redirect to [`trap`], whose `Location` holds secrets (credentials, an api password, a
/// token).
pub(crate) fn redirect_to_trap(status: u16) -> Response {
    let trap = trap().url().replacen("http://", "", 1);
    Response::raw(status, "<html><body>moved</body></html>").header(
        "Location",
        &format!(
            "http://{USERNAME}:{PASSWORD}@{trap}/api/verify/{}?token={TOKEN}",
            fake::API_PASSWORD
        ),
    )
}

pub(crate) fn trap_untouched(_client: &Client, _server: &FakeServer) {
    assert!(trap().requests().is_empty(), "a redirect was followed");
}

/// A redirect whose `Location` holds secrets (credentials, an api password, a token).
pub(crate) fn redirect(status: u16) -> Response {
    Response::raw(status, "<html><body>moved</body></html>").header(
        "Location",
        &format!(
            "https://{USERNAME}:{PASSWORD}@elsewhere.example:8443/api/verify/{}?token={TOKEN}",
            fake::API_PASSWORD
        ),
    )
}
