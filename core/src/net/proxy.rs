//! How requests reach the service: directly, through the system's proxy settings or through
//! a given proxy (a setting of the client, [`crate::Options::proxy`]), and how a proxy is shown
//! without its credentials.

use std::fmt;

/// How requests reach the service.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum ProxyChoice {
    /// The system's settings (the default): the `ALL_PROXY`, `HTTPS_PROXY`, `HTTP_PROXY`
    /// variables (and lowercase) with `NO_PROXY`, and on Windows the registry's Internet
    /// settings when no variable is set.
    #[default]
    System,
    /// No proxy.
    None,
    /// This proxy: `http://`, `https://` (CONNECT, TLS to the proxy), `socks5://` (the
    /// client resolves names) or `socks5h://` (the proxy does), with optional
    /// `user:password@`.
    Url(String),
}

impl fmt::Debug for ProxyChoice {
    /// Credentials in a proxy URL are not printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyChoice::System => f.write_str("System"),
            ProxyChoice::None => f.write_str("None"),
            ProxyChoice::Url(url) => write!(f, "Url({})", without_credentials(url)),
        }
    }
}

/// `scheme://host:port` of a proxy URL: no credentials, no path.
pub(crate) fn without_credentials(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or(authority);
    format!("{scheme}://{host}")
}
