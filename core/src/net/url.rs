//! Base URLs of the service, parsed in full when a client is made: a malformed one is an
//! invalid argument at once, never a late DNS or connect error.

use std::net::{IpAddr, Ipv6Addr};

use crate::error::Error;

/// A parsed base URL: `http(s)://host[:port][/prefix]`, without a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// The URL as it is used: lowercase scheme, no trailing `/`.
    text: String,
    https: bool,
    host: String,
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
        if let Some(port) = port {
            match port.parse::<u32>() {
                Ok(1..=65535) if port.bytes().all(|b| b.is_ascii_digit()) => {}
                _ => return Err(bad("has a port outside 1..65535")),
            }
        }
        let lower_path = path.to_ascii_lowercase();
        if lower_path.ends_with("/api/verify") || lower_path.contains("/api/verify/") {
            return Err(bad(&format!(
                "must not include /api/verify (the client adds it): pass {scheme}://{authority}{}",
                &path[..lower_path.find("/api/verify").unwrap_or(0)]
            )));
        }
        Ok(BaseUrl {
            text: format!("{}://{rest}", if https { "https" } else { "http" }),
            https,
            host: host.to_ascii_lowercase(),
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
