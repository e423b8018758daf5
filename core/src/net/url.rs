//! Base URLs of the service, parsed in full, once, when a client is made: a malformed one is
//! an invalid argument at once, never a late DNS or connect error. Everything the client,
//! its connections and the doctor need of a base URL is read here (host, port, the request
//! URL), so that none of them reads the text again.

use std::net::{IpAddr, Ipv6Addr};

use ureq::http::Uri;

use crate::error::Error;

/// A parsed base URL: `http(s)://host[:port][/prefix]`, without a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// The URL as it is used: lowercase scheme, no trailing `/`.
    text: String,
    https: bool,
    host: String,
    /// The port given, or the scheme's (80, 443).
    port: u16,
    /// `scheme://host[:port]` as given (lowercase scheme), for messages.
    origin: String,
    /// `{text}/api/verify`, where every request goes, and the same as ureq takes it.
    request_url: String,
    request_uri: Uri,
}

impl BaseUrl {
    /// Parses `text`: scheme `http` or `https`, a host (a name, an IPv4 address or an
    /// IPv6 address in brackets), an optional port 1..=65535 and an optional path prefix.
    /// No user info, query or fragment; ASCII only (an international domain name is given
    /// in its `xn--` form); not ending in `/api/verify` (the client adds it).
    pub fn parse(text: &str) -> Result<BaseUrl, Error> {
        let bad = |why: &str| Error::invalid_argument(format!("base_url {why}"));
        if !text.is_ascii() {
            return Err(bad(
                "must be ASCII: write an international domain name in its xn-- form",
            ));
        }
        if text.bytes().any(|b| b.is_ascii_control() || b == b' ') {
            return Err(bad("must not contain spaces or control characters"));
        }
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| bad("must start with http:// or https://"))?;
        let rest = rest.trim_end_matches('/');
        let https = if scheme.eq_ignore_ascii_case("https") {
            true
        } else if scheme.eq_ignore_ascii_case("http") {
            false
        } else {
            return Err(bad("must start with http:// or https://"));
        };
        if rest.contains(['?', '#']) {
            return Err(bad("must not have a query (?) or a fragment (#)"));
        }
        let (authority, path) = match rest.find('/') {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(bad("must not carry user information (user@host)"));
        }
        let (host, port) = split_host_port(authority).ok_or_else(|| {
            bad("must name a host: a name, an IPv4 address, or an IPv6 address in brackets")
        })?;
        let port = match port {
            Some(port) => match port.parse::<u16>() {
                Ok(number @ 1..=65535) if port.bytes().all(|b| b.is_ascii_digit()) => number,
                _ => return Err(bad("has a port outside 1..65535")),
            },
            None if https => 443,
            None => 80,
        };
        let lower_path = path.to_ascii_lowercase();
        if lower_path.ends_with("/api/verify") || lower_path.contains("/api/verify/") {
            return Err(bad(&format!(
                "must not include /api/verify (the client adds it): pass {scheme}://{authority}{}",
                &path[..lower_path.find("/api/verify").unwrap_or(0)]
            )));
        }
        let scheme = if https { "https" } else { "http" };
        let text = format!("{scheme}://{rest}");
        let request_url = format!("{text}/api/verify");
        let request_uri = Uri::try_from(request_url.as_str())
            .map_err(|err| bad(&format!("is not a usable URL: {err}")))?;
        Ok(BaseUrl {
            origin: format!("{scheme}://{authority}"),
            text,
            https,
            host: host.to_ascii_lowercase(),
            port,
            request_url,
            request_uri,
        })
    }

    /// The URL, without a trailing `/`.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the scheme is https.
    pub fn is_https(&self) -> bool {
        self.https
    }

    /// The host (lowercase; an IPv6 address without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port given, or the scheme's (80 for http, 443 for https).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `scheme://host[:port]` as given (the scheme in small letters), for messages.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// `{base}/api/verify`: where Init goes, and Handle below it.
    pub fn request_url(&self) -> &str {
        &self.request_url
    }

    /// [`BaseUrl::request_url`] as the HTTP agent takes it.
    pub fn request_uri(&self) -> &Uri {
        &self.request_uri
    }

    /// Whether the host is a loopback address or `localhost`.
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self.host.ends_with(".localhost")
            || self.host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }
}

/// Splits `host[:port]` or `[v6][:port]`; checks the host's characters.
fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        v6.parse::<Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        return Some((v6, port));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let valid = !host.is_empty()
        && host.len() <= 253
        && host
            .split('.')
            .all(|label| !label.is_empty() && label.len() <= 63 && !label.starts_with('-'))
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    valid.then_some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_urls_parse() {
        for (text, expect) in [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("HTTPS://Example.com/", "https://Example.com"),
            ("http://[::1]:99/prefix/", "http://[::1]:99/prefix"),
            ("https://xn--fiqs8s.cn", "https://xn--fiqs8s.cn"),
        ] {
            assert_eq!(BaseUrl::parse(text).expect(text).as_str(), expect);
        }
        assert!(BaseUrl::parse("http://[::1]:1").expect("v6").is_loopback());
        assert!(BaseUrl::parse("http://localhost")
            .expect("name")
            .is_loopback());
        assert!(!BaseUrl::parse("http://10.0.0.1").expect("v4").is_loopback());
    }

    #[test]
    fn one_parse_gives_what_the_client_needs() {
        let v6 = BaseUrl::parse("HTTP://[::1]:99/prefix/").expect("v6");
        assert_eq!(
            (v6.host(), v6.port(), v6.origin(), v6.request_url()),
            (
                "::1",
                99,
                "http://[::1]:99",
                "http://[::1]:99/prefix/api/verify"
            )
        );
        assert_eq!(v6.request_uri().path(), "/prefix/api/verify");
        let named = BaseUrl::parse("https://Example.com").expect("name");
        assert_eq!(
            (named.host(), named.port(), named.origin()),
            ("example.com", 443, "https://Example.com")
        );
        assert_eq!(BaseUrl::parse("http://h").expect("http").port(), 80);
    }

    #[test]
    fn bad_urls_are_refused_with_a_reason() {
        for (text, reason) in [
            ("", "http://"),
            ("ftp://x", "http://"),
            ("http://", "host"),
            ("localhost:80", "http://"),
            ("http://例子.cn", "ASCII"),
            ("http://host:99999", "port"),
            ("http://host:0", "port"),
            ("http://host:8a", "port"),
            ("http://u:p@host", "user"),
            ("http://host/?q", "query"),
            ("http://ho st", "spaces"),
            ("http://[::g]", "host"),
            ("http://host/api/verify", "pass http://host"),
            ("http://host/x/api/verify/", "pass http://host/x"),
        ] {
            let err = BaseUrl::parse(text).expect_err(text);
            assert!(err.message().contains(reason), "{text}: {}", err.message());
        }
    }
}
