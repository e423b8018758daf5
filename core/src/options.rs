//! The settings of a client: mirrors, trust, proxy, plain-http opt-in, timeouts and the log
//! hook. They only grow: hosts set what they need and keep the defaults for the rest.

use std::fmt;
use std::time::Duration;

pub use crate::log::{LogHook, LogLevel};
use crate::tls::Trust;

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

/// Default time allowed to connect (TCP and TLS): 10 seconds.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time allowed for a whole host call (lazy Init, re-Init, connects and resends
/// included): 30 seconds.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// The settings of a client (see [`crate::Client::with_options`]).
#[derive(Clone)]
pub struct Options {
    /// Other base URLs of the same service, tried in order after the first when it cannot
    /// be reached (connect, DNS or TLS failure). Default: none.
    pub mirrors: Vec<String>,
    /// What TLS trusts. Default: Mozilla's roots.
    pub trust: Trust,
    /// The proxy. Default: the system's settings. Loopback never goes through a proxy.
    pub proxy: ProxyChoice,
    /// Allow plain `http://` to a host that is not loopback (the api password then travels
    /// in clear). Default: false.
    pub allow_insecure_http: bool,
    /// Time allowed for each connect (TCP, proxy, TLS), within the call's. Default 10 s.
    pub connect_timeout: Duration,
    /// Time allowed for a whole call. Default 30 s.
    pub call_timeout: Duration,
    /// The log hook. Default: none.
    pub log: Option<LogHook>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mirrors: Vec::new(),
            trust: Trust::default(),
            proxy: ProxyChoice::default(),
            allow_insecure_http: false,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            log: None,
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("mirrors", &self.mirrors)
            .field("trust", &self.trust)
            .field("proxy", &self.proxy)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("connect_timeout", &self.connect_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("log", &self.log.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_credentials_are_never_printed() {
        let choice = ProxyChoice::Url("http://user:s3cret@proxy.example:3128/x".into());
        let shown = format!("{choice:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("user"),
            "{shown}"
        );
        assert!(shown.contains("proxy.example:3128"), "{shown}");
    }
}
