//! How the client reads a reply body: the service's JSON envelope, or a failure that says
//! whether the service answered at all (a redirect, an error page, an empty or cut body are
//! not the service's: for an offline verdict, an outage).

use serde_json::Value;

use crate::error::{Error, HttpFacts};
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
        ))
        .with_http(facts(http)));
    }
    Reply::from_body(&http.body).map_err(|detail| {
        let status = match http.status {
            200 => String::new(),
            status => format!("HTTP {status}: "),
        };
        if has_code(&http.body) {
            Error::protocol(format!("{status}{detail}"))
        } else {
            Error::not_the_service(format!("{status}{detail}")).with_http(facts(http))
        }
    })
}

/// What a reply that is not the service's showed: its status, a few headers, the page's
/// title and the start of its text.
fn facts(http: &HttpReply) -> HttpFacts {
    let header = |name: &str| {
        http.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(|text| text.chars().take(200).collect::<String>())
    };
    // Only a page is quoted: any other body (the service's JSON cut short) may hold the
    // session secret or a token.
    let html = http.body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<');
    let text = if html {
        String::from_utf8_lossy(&http.body[..http.body.len().min(64 * 1024)]).into_owned()
    } else {
        String::new()
    };
    let title = {
        let lower = text.to_ascii_lowercase();
        lower.find("<title").and_then(|open| {
            let start = open + lower[open..].find('>')? + 1;
            let end = start + lower[start..].find("</title")?;
            let title: String = text[start..end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            (!title.is_empty()).then(|| title.chars().take(200).collect())
        })
    };
    let body_start = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(HttpFacts::BODY_START)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    HttpFacts {
        status: http.status,
        server: header("server"),
        via: header("via"),
        content_type: header("content-type"),
        date: http.date.clone(),
        html,
        title,
        body_start,
    }
}

/// Whether `body` is a JSON object with a `code` member (the service's, whatever else is
/// wrong with it).
fn has_code(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, Value>>(body)
        .is_ok_and(|object| object.contains_key("code"))
}
