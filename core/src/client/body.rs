//! How the client reads a reply body: the service's JSON envelope, or a failure that says
//! whether the service answered at all (a redirect, an error page, an empty or cut body are
//! not the service's: for an offline verdict, an outage).

use serde_json::Value;

use crate::error::Error;
use crate::net::transport::HttpReply;
use crate::reply::Reply;

/// Parses a reply body; a body that is not the service's envelope is a protocol error that
/// names the HTTP status. A redirect (3xx) is never taken as the service's answer, whatever
/// its body: it names its status and the origin of its `Location`. A reply that is not the
/// service's at all (a redirect, or a body that is no JSON object with a `code`: an HTTP
/// error page, HTML, empty, cut short) is marked as such: for an offline verdict it is an
/// outage (the service was not reached); a JSON object with a `code` never is.
pub(super) fn parse(http: &HttpReply) -> Result<Reply, Error> {
    if (300..400).contains(&http.status) {
        let target = http.location.as_deref().unwrap_or("no Location");
        return Err(Error::not_the_service(format!(
            "HTTP {} redirect to {target} (redirects are not followed): the base URL should be \
             the service itself",
            http.status
        )));
    }
    Reply::from_body(&http.body).map_err(|detail| {
        let status = match http.status {
            200 => String::new(),
            status => format!("HTTP {status}: "),
        };
        if has_code(&http.body) {
            Error::protocol(format!("{status}{detail}"))
        } else {
            Error::not_the_service(format!("{status}{detail}"))
        }
    })
}

/// Whether `body` is a JSON object with a `code` member (the service's, whatever else is
/// wrong with it).
fn has_code(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, Value>>(body)
        .is_ok_and(|object| object.contains_key("code"))
}
