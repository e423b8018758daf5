//! The door of the back office (`/_sandbox/...`: the console and the control API): which
//! requests get in. The service (`/api/verify...`) never goes through it.
//!
//! In order:
//! 1. the `Host` (and an absolute request target's authority) must name the address the
//!    connection came in on, a loopback address, `localhost` (or `*.localhost`), or a name
//!    given with `--allowed-host` (a leading dot allows a domain and its subdomains): a page
//!    of another site that rebinds its name to this address is refused (DNS rebinding);
//! 2. when a token is in force (a bind to anything but loopback, or `--token`), it must come
//!    as `Authorization: Bearer TOKEN` or in the console's cookie; `GET /_sandbox/?token=`
//!    sets the cookie and redirects to the console without the token in the address;
//! 3. a state-changing request (any method but GET, HEAD, OPTIONS) must not come from
//!    another origin: its `Origin` must be this very origin, or, without `Origin`, its
//!    `Sec-Fetch-Site` must be `same-origin` or `none` (a program sends neither);
//! 4. and it must be `Content-Type: application/json`, which no cross-site form or simple
//!    request can send without a CORS preflight (that the sandbox never grants).

use std::net::{IpAddr, SocketAddr};

use hyper::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, HOST, ORIGIN};
use hyper::{HeaderMap, Method, Uri};

/// How the back office is guarded: the token (when one is in force) and the names allowed
/// in `Host` beside the bound address and loopback.
#[derive(Debug, Clone, Default)]
pub struct Door {
    pub token: Option<String>,
    pub allowed_hosts: Vec<String>,
}

/// Where a request came in.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    /// The address of this end of the connection (the bound address, or the interface's
    /// address under a wildcard bind).
    pub local: SocketAddr,
    pub tls: bool,
}

/// A request the door turns away: HTTP status and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub error: String,
}

/// What the door lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pass {
    /// Serve the request.
    In,
    /// `GET /_sandbox/?token=TOKEN`: set this cookie (a whole `Set-Cookie` value) and
    /// redirect to `location`, the same path without the token.
    SetCookie { cookie: String, location: String },
}

/// Checks a token against another without an early exit on the first different byte.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The characters a token may have: they go in a cookie and a header unquoted.
pub fn token_ok(token: &str) -> Result<(), String> {
    if token.is_empty() || token.len() > 256 {
        return Err("the token must be 1 to 256 characters".to_string());
    }
    if let Some(c) = token
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-._~".contains(*c)))
    {
        return Err(format!(
            "the token may hold A-Z a-z 0-9 - . _ ~ only, not {c:?}"
        ));
    }
    Ok(())
}

/// A fresh token: 32 random bytes in hex.
pub fn gen_token() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// `(host, port)` of a `Host` value or URI authority: `name`, `name:port`, `[v6]:port`.
fn split_host(value: &str) -> Option<(String, Option<u16>)> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse().ok()?),
            None if after.is_empty() => None,
            None => return None,
        };
        (format!("[{inside}]"), port)
    } else {
        match value.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p.parse().ok()?)),
            None => (value.to_string(), None),
        }
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    Some((host, port))
}

fn as_ip(host: &str) -> Option<IpAddr> {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<IpAddr>()
        .ok()
        .map(|ip| ip.to_canonical())
}

/// The cookie that keeps the token, one per port so that two sandboxes on one host do not
/// overwrite each other's.
pub fn cookie_name(port: u16) -> String {
    format!("verify_sandbox_token_{port}")
}

impl Door {
    /// Whether `host` (lowercase, no port) may be served.
    fn host_allowed(&self, host: &str, local: IpAddr) -> bool {
        if let Some(ip) = as_ip(host) {
            return ip.is_loopback()
                || ip == local.to_canonical()
                || self.allowed_hosts.iter().any(|a| as_ip(a) == Some(ip));
        }
        if host == "localhost" || host.ends_with(".localhost") {
            return true;
        }
        self.allowed_hosts.iter().any(|allowed| {
            let allowed = allowed.trim_end_matches('.').to_ascii_lowercase();
            match allowed.strip_prefix('.') {
                Some(domain) => host == domain || host.ends_with(&allowed),
                None => host == allowed,
            }
        })
    }

    fn check_host(&self, uri: &Uri, headers: &HeaderMap, at: Arrival) -> Result<(), Refusal> {
        let forbidden = |what: &str, value: &str| Refusal {
            status: 403,
            error: format!(
                "{what} {value:?} is not this sandbox's address, loopback or an --allowed-host: \
                 refused (a page of another site may have rebound its name to this address)"
            ),
        };
        let host = headers.get(HOST).map(|v| v.to_str().unwrap_or("\u{fffd}"));
        let Some(host) = host else {
            return Err(Refusal {
                status: 403,
                error: "no Host header: the back office needs one".to_string(),
            });
        };
        match split_host(host) {
            Some((h, _)) if self.host_allowed(&h, at.local.ip()) => {}
            _ => return Err(forbidden("Host", host)),
        }
        if let Some(authority) = uri.authority() {
            match split_host(authority.as_str()) {
                Some((h, _)) if self.host_allowed(&h, at.local.ip()) => {}
                _ => return Err(forbidden("the request target's host", authority.as_str())),
            }
        }
        Ok(())
    }

    /// The token sent as `Authorization: Bearer` or in the cookie, when it is right.
    fn token_sent(&self, token: &str, headers: &HeaderMap, port: u16) -> bool {
        let bearer = headers
            .get_all(AUTHORIZATION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| {
                let (scheme, value) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| value.trim())
            })
            .any(|v| same_secret(v, token));
        if bearer {
            return true;
        }
        let name = cookie_name(port);
        headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(k, v)| k == name && same_secret(v, token))
    }

    /// The door's verdict on one back-office request.
    pub fn check(
        &self,
        method: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        at: Arrival,
    ) -> Result<Pass, Refusal> {
        self.check_host(uri, headers, at)?;
        let mut pass = Pass::In;
        if let Some(token) = &self.token {
            let from_address =
                *method == Method::GET && query_token(uri).is_some_and(|t| same_secret(&t, token));
            if from_address {
                // Into the cookie, and out of the address bar and the history.
                let secure = if at.tls { "; Secure" } else { "" };
                let location = match uri.path() {
                    "/_sandbox" => "/_sandbox/",
                    path => path,
                };
                pass = Pass::SetCookie {
                    cookie: format!(
                        "{}={token}; Path=/_sandbox; HttpOnly; SameSite=Strict{secure}",
                        cookie_name(at.local.port())
                    ),
                    location: location.to_string(),
                };
            } else if !self.token_sent(token, headers, at.local.port()) {
                return Err(Refusal {
                    status: 401,
                    error: "this sandbox needs its token (printed at start as `token: ...`): send \
                            `Authorization: Bearer TOKEN`, or open the console once at \
                            /_sandbox/?token=TOKEN"
                        .to_string(),
                });
            }
        }
        if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            return Ok(pass);
        }
        check_origin(headers, at)?;
        let media = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
        if media.as_deref() != Some("application/json") {
            return Err(Refusal {
                status: 415,
                error: format!(
                    "control requests are JSON: send `Content-Type: application/json` (got {})",
                    media.map_or("none".to_string(), |m| format!("{m:?}"))
                ),
            });
        }
        Ok(pass)
    }
}

/// `token` of the query string.
fn query_token(uri: &Uri) -> Option<String> {
    form_urlencoded::parse(uri.query()?.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
}

/// Refuses a state-changing request of another origin.
fn check_origin(headers: &HeaderMap, at: Arrival) -> Result<(), Refusal> {
    let refuse = |why: String| Refusal {
        status: 403,
        error: format!("{why}: a state-changing request from another origin is refused"),
    };
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin.to_str().unwrap_or("\u{fffd}");
        let host = headers
            .get(HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if same_origin(origin, host, at.tls) {
            return Ok(());
        }
        return Err(refuse(format!(
            "Origin {origin:?} is not this sandbox ({}://{host})",
            if at.tls { "https" } else { "http" }
        )));
    }
    match headers
        .get("sec-fetch-site")
        .map(|v| v.to_str().unwrap_or("\u{fffd}").to_ascii_lowercase())
    {
        None => Ok(()),
        Some(site) if site == "same-origin" || site == "none" => Ok(()),
        Some(site) => Err(refuse(format!("Sec-Fetch-Site is {site:?}"))),
    }
}

/// Whether `origin` (`scheme://host[:port]`) is the origin of a request with this `Host`.
fn same_origin(origin: &str, host: &str, tls: bool) -> bool {
    let scheme = if tls { "https" } else { "http" };
    let default_port = if tls { 443 } else { 80 };
    let Some(rest) = origin
        .trim()
        .strip_prefix(scheme)
        .and_then(|r| r.strip_prefix("://"))
    else {
        return false;
    };
    match (split_host(rest), split_host(host)) {
        (Some((oh, op)), Some((hh, hp))) => {
            oh == hh && op.unwrap_or(default_port) == hp.unwrap_or(default_port)
        }
        _ => false,
    }
}

/// Whether binding `host` exposes the sandbox to the network: any address it names that is
/// not loopback.
pub fn exposed(addrs: &[SocketAddr]) -> bool {
    addrs.is_empty() || addrs.iter().any(|a| !a.ip().to_canonical().is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn at() -> Arrival {
        Arrival {
            local: "127.0.0.1:8080".parse().unwrap(),
            tls: false,
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn post(door: &Door, h: &[(&'static str, &str)]) -> Result<Pass, Refusal> {
        door.check(
            &Method::POST,
            &"/_sandbox/reset".parse().unwrap(),
            &headers(h),
            at(),
        )
    }

    #[test]
    fn hosts() {
        let door = Door {
            token: None,
            allowed_hosts: vec!["sandbox.test".into(), ".lab.test".into(), "10.0.2.2".into()],
        };
        let local: IpAddr = "10.0.0.5".parse().unwrap();
        for ok in [
            "127.0.0.1",
            "127.3.4.5",
            "[::1]",
            "localhost",
            "app.localhost",
            "10.0.0.5",
            "10.0.2.2",
            "sandbox.test",
            "lab.test",
            "a.lab.test",
            "SANDBOX.TEST.",
        ] {
            let (h, _) = split_host(ok).unwrap();
            assert!(door.host_allowed(&h, local), "{ok}");
        }
        for bad in [
            "evil.example",
            "10.0.0.6",
            "sandbox.test.evil",
            "xlab.test",
            "localhost.evil",
        ] {
            let (h, _) = split_host(bad).unwrap();
            assert!(!door.host_allowed(&h, local), "{bad}");
        }
        assert_eq!(
            split_host("[::1]:8080"),
            Some(("[::1]".to_string(), Some(8080)))
        );
        assert_eq!(split_host("a:b"), None);
    }

    #[test]
    fn origins() {
        assert!(same_origin(
            "http://127.0.0.1:8080",
            "127.0.0.1:8080",
            false
        ));
        assert!(same_origin("http://LOCALHOST:80", "localhost", false));
        assert!(!same_origin(
            "https://127.0.0.1:8080",
            "127.0.0.1:8080",
            false
        ));
        assert!(!same_origin(
            "http://127.0.0.1:9090",
            "127.0.0.1:8080",
            false
        ));
        assert!(!same_origin("null", "127.0.0.1:8080", false));
        let door = Door::default();
        let json = ("content-type", "application/json");
        let host = ("host", "127.0.0.1:8080");
        assert_eq!(post(&door, &[host, json]), Ok(Pass::In));
        assert_eq!(
            post(&door, &[host, json, ("origin", "http://127.0.0.1:8080")]),
            Ok(Pass::In)
        );
        assert_eq!(
            post(&door, &[host, json, ("origin", "http://evil.example")])
                .unwrap_err()
                .status,
            403
        );
        assert_eq!(
            post(&door, &[host, json, ("sec-fetch-site", "same-site")])
                .unwrap_err()
                .status,
            403
        );
        assert_eq!(
            post(&door, &[host, ("content-type", "text/plain")])
                .unwrap_err()
                .status,
            415
        );
    }

    #[test]
    fn tokens() {
        let door = Door {
            token: Some("abc123".into()),
            allowed_hosts: vec![],
        };
        let host = ("host", "127.0.0.1:8080");
        let get = |uri: &str, h: &[(&'static str, &str)]| {
            door.check(&Method::GET, &uri.parse().unwrap(), &headers(h), at())
        };
        assert_eq!(get("/_sandbox/clock", &[host]).unwrap_err().status, 401);
        assert_eq!(
            get(
                "/_sandbox/clock",
                &[host, ("authorization", "Bearer abc123")]
            ),
            Ok(Pass::In)
        );
        assert_eq!(
            get(
                "/_sandbox/clock",
                &[host, ("authorization", "Bearer abc124")]
            )
            .unwrap_err()
            .status,
            401
        );
        assert_eq!(
            get(
                "/_sandbox/clock",
                &[host, ("cookie", "a=b; verify_sandbox_token_8080=abc123")]
            ),
            Ok(Pass::In)
        );
        match get("/_sandbox/?token=abc123", &[host]) {
            Ok(Pass::SetCookie { cookie, location }) => {
                assert!(cookie.starts_with("verify_sandbox_token_8080=abc123;"));
                assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
                assert_eq!(location, "/_sandbox/");
            }
            other => panic!("{other:?}"),
        }
        // The address's token is taken out of the address even with the cookie already set.
        let jar = ("cookie", "verify_sandbox_token_8080=abc123");
        assert!(matches!(
            get("/_sandbox?token=abc123", &[host, jar]),
            Ok(Pass::SetCookie { location, .. }) if location == "/_sandbox/"
        ));
        assert!(token_ok("a-b_c.d~e").is_ok());
        assert!(token_ok("").is_err());
        assert!(token_ok("a;b").is_err());
    }
}
