//! The settings of a client: mirrors, trust, proxy, plain-http opt-in, timeouts, the
//! attempt delay of racing connections, fixed addresses, the state folder (and how old the
//! addresses remembered there may be) and the log hook.
//! They only grow: hosts set what they need and keep the defaults for the rest.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::{quoted, Error};
pub use crate::log::{LogHook, LogLevel};
pub use crate::net::addresses::DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE;
pub use crate::net::proxy::ProxyChoice;
use crate::net::transport::Choices;
pub use crate::net::transport::{DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT};
use crate::net::trust::Trust;
pub use crate::state::StateFolder;

/// Default attempt delay: a new connection attempt (the next address of a name, or the next
/// mirror) starts when the earlier ones have not connected within 250 ms (RFC 8305's
/// "Connection Attempt Delay").
pub const DEFAULT_ATTEMPT_DELAY: Duration = Duration::from_millis(250);
/// The longest attempt delay accepted: 10 seconds.
pub const MAX_ATTEMPT_DELAY: Duration = Duration::from_secs(10);

/// Default tolerance of the clock (see [`Options::clock_tolerance`]): a local clock earlier
/// than the latest time seen (of the server, or of this machine) by more than this refuses
/// offline verdicts.
pub const DEFAULT_CLOCK_TOLERANCE: Duration = Duration::from_secs(10 * 60);

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
    /// How long a new connection waits for its attempt to connect before the next attempt
    /// (the next address of the name, IPv6 and IPv4 in turn, then the next mirror) starts
    /// beside it; the first to connect (TCP, and TLS for https) wins and the others are
    /// closed. Zero starts every attempt at once. Default 250 ms, at most 10 s.
    pub attempt_delay: Duration,
    /// Fixed addresses for host names, like curl's `--resolve`: a name listed here is never
    /// looked up in DNS (a domain poisoned or blocked in DNS still works); TLS still checks
    /// the name. Add them with [`Options::add_address`]. Default: none.
    pub addresses: Vec<(String, IpAddr)>,
    /// Where state that outlives the process is kept (the remembered winning line and its
    /// addresses, and more): a folder, or the per-user default. Default: none (nothing is
    /// written).
    pub state_folder: Option<StateFolder>,
    /// With a state folder: how long the addresses of the winning line's host name (an https
    /// base URL's) stay in use after they were last seen connecting. A later start connects to them at once,
    /// beside a fresh lookup of the name (the fresh answer joins when it comes), so that it
    /// does not wait for a slow name server; TLS still checks the name, and fixed addresses
    /// ([`Options::add_address`]) still win. Zero: addresses are neither remembered nor
    /// used. Default: a day.
    pub remembered_addresses_max_age: Duration,
    /// Offline verdicts: how long after the server's last confirmation a login that cannot
    /// reach the server (DNS, connect, timeout, TLS handshake, proxy) may still answer from
    /// the stored verdict (code 202). Needs a state folder. Default: none (no offline
    /// verdicts; nothing changes for the host).
    pub offline_grace: Option<Duration>,
    /// A start that never waits long: a login whose stored verdict may answer waits this
    /// long for the server; past it the stored verdict answers (code 202) and the exchange
    /// goes on in the background. Needs an offline grace. Default: none (wait for the
    /// server within the call timeout).
    pub start_budget: Option<Duration>,
    /// How far the local clock may be behind the latest server time seen before offline
    /// verdicts are refused as a clock moved back. Default 10 minutes.
    pub clock_tolerance: Duration,
    /// The machine identity that the state folder's key is derived from, instead of the
    /// operating system's (`/etc/machine-id`, `MachineGuid`, `IOPlatformUUID`): for a
    /// program with an identity of its own, and for tests. Default: none (the OS's).
    pub machine_identity: Option<String>,
    /// With offline verdicts: the folder of the second copy of the time high-water mark
    /// (outside the state folder, so that an older copy of the state folder put back does
    /// not roll the mark back; a verdict records where it was, and answers offline only
    /// while it is still there). Default: none: the user's configuration folder
    /// (`$XDG_CONFIG_HOME/verify` or `~/.config/verify`, `~/Library/Preferences/verify` on
    /// macOS), or on Windows the user's registry (`HKEY_CURRENT_USER\Software\verify`, a
    /// value per program). No environment variable of the library's own names it.
    pub clock_mark_folder: Option<PathBuf>,
    /// Seconds added to the local clock where the offline store reads it (its checks and the
    /// time mark): tests move the clock back or ahead with it. Default 0.
    pub clock_shift: i64,
    /// The log hook. Default: none.
    pub log: Option<LogHook>,
}

impl Options {
    /// What the connection code takes of these options.
    pub(crate) fn connection(&self) -> Choices<'_> {
        Choices {
            trust: &self.trust,
            proxy: &self.proxy,
            addresses: &self.addresses,
            attempt_delay: self.attempt_delay,
            remembered_addresses_max_age: self.remembered_addresses_max_age,
            log: self.log.clone(),
        }
    }

    /// Adds a fixed address for a host name (see [`Options::addresses`]); `ip` is an IPv4 or
    /// IPv6 address. Several addresses of one name are all used.
    pub fn add_address(&mut self, host: &str, ip: &str) -> Result<(), Error> {
        let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
        if let Some(why) = not_a_host_name(&name) {
            return Err(Error::invalid_argument(format!(
                "host {} is not a host name: {why}",
                quoted(host)
            )));
        }
        let bare = match (ip.strip_prefix('['), ip.strip_suffix(']')) {
            (Some(_), Some(_)) if ip.len() >= 2 => &ip[1..ip.len() - 1],
            (None, None) => ip,
            _ => "",
        };
        let ip: IpAddr = bare.parse().map_err(|_| {
            Error::invalid_argument(format!("ip {} is not an IPv4 or IPv6 address", quoted(ip)))
        })?;
        if !self.addresses.contains(&(name.clone(), ip)) {
            self.addresses.push((name, ip));
        }
        Ok(())
    }
}

/// Why `name` (lowercase, without a final dot) is not a host name, if it is not: at most 253
/// characters in labels of 1 to 63 letters, digits, hyphens (not first or last) and
/// underscores, joined by dots. An international name is given in its `xn--` form.
fn not_a_host_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("it is empty");
    }
    if name.len() > 253 {
        return Some("it is longer than 253 characters");
    }
    for label in name.split('.') {
        if label.is_empty() {
            return Some("it has an empty label");
        }
        if label.len() > 63 {
            return Some("it has a label longer than 63 characters");
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Some("a label starts or ends with a hyphen");
        }
        if !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Some(
                "only letters, digits, hyphens and dots (an international name in its xn-- form)",
            );
        }
    }
    None
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
            attempt_delay: DEFAULT_ATTEMPT_DELAY,
            addresses: Vec::new(),
            state_folder: None,
            remembered_addresses_max_age: DEFAULT_REMEMBERED_ADDRESSES_MAX_AGE,
            offline_grace: None,
            start_budget: None,
            clock_tolerance: DEFAULT_CLOCK_TOLERANCE,
            machine_identity: None,
            clock_mark_folder: None,
            clock_shift: 0,
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
            .field("attempt_delay", &self.attempt_delay)
            .field("addresses", &self.addresses)
            .field("state_folder", &self.state_folder)
            .field(
                "remembered_addresses_max_age",
                &self.remembered_addresses_max_age,
            )
            .field("offline_grace", &self.offline_grace)
            .field("start_budget", &self.start_budget)
            .field("clock_tolerance", &self.clock_tolerance)
            .field("machine_identity", &self.machine_identity.is_some())
            .field("clock_mark_folder", &self.clock_mark_folder)
            .field("clock_shift", &self.clock_shift)
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
