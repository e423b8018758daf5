//! Who answers a name lookup: the hosts file (Unix `/etc/hosts`, Windows
//! `%SystemRoot%\System32\drivers\etc\hosts`) when it names the host (a licence crack
//! often points the licensing host there), else the name servers (on Unix those of
//! `/etc/resolv.conf`). Read only.

use std::net::IpAddr;
use std::path::PathBuf;

use serde_json::{json, Value};

/// The largest hosts file read.
const MAX_HOSTS_FILE: u64 = 1024 * 1024;

/// What answers a lookup of one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolver {
    /// The host is an address: nothing is looked up.
    Literal,
    /// Fixed addresses of the client's options.
    Fixed,
    /// The hosts file names the host: these addresses.
    HostsFile {
        path: String,
        addresses: Vec<IpAddr>,
    },
    /// The system's resolver, with its name servers where they are known.
    NameServers(Vec<String>),
}

impl Resolver {
    /// What answers a lookup of `host` on this machine (no fixed address, not a literal).
    pub(crate) fn system(host: &str) -> Resolver {
        let path = hosts_path();
        let listed = path.as_ref().and_then(|path| {
            let text = read_limited(path)?;
            let addresses = entries(&text, host);
            (!addresses.is_empty()).then(|| (path.display().to_string(), addresses))
        });
        match listed {
            Some((path, addresses)) if files_first() => Resolver::HostsFile { path, addresses },
            _ => Resolver::NameServers(name_servers()),
        }
    }

    /// In words, for the step's English sentence.
    pub(crate) fn words(&self) -> String {
        match self {
            Resolver::Literal => "an address, no lookup".to_owned(),
            Resolver::Fixed => "fixed addresses of the options".to_owned(),
            Resolver::HostsFile { path, .. } => format!("the hosts file {path}"),
            Resolver::NameServers(servers) if servers.is_empty() => {
                "the system resolver".to_owned()
            }
            Resolver::NameServers(servers) => format!(
                "the system resolver (name servers {} in /etc/resolv.conf)",
                servers.join(", ")
            ),
        }
    }

    /// As the JSON's `details.resolver`: `{"kind": "literal" | "fixed" | "hosts_file" |
    /// "name_servers", ...}`.
    pub(crate) fn to_json(&self) -> Value {
        match self {
            Resolver::Literal => json!({"kind": "literal"}),
            Resolver::Fixed => json!({"kind": "fixed"}),
            Resolver::HostsFile { path, addresses } => json!({
                "kind": "hosts_file",
                "path": path,
                "addresses": addresses.iter().map(ToString::to_string).collect::<Vec<_>>(),
            }),
            Resolver::NameServers(servers) => json!({
                "kind": "name_servers",
                "name_servers": servers,
            }),
        }
    }
}

/// The hosts file of this system.
fn hosts_path() -> Option<PathBuf> {
    if cfg!(windows) {
        let root = std::env::var_os("SystemRoot").unwrap_or_else(|| "C:\\Windows".into());
        Some(
            PathBuf::from(root)
                .join("System32")
                .join("drivers")
                .join("etc")
                .join("hosts"),
        )
    } else {
        Some(PathBuf::from("/etc/hosts"))
    }
}

fn read_limited(path: &std::path::Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_HOSTS_FILE)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The addresses a hosts file's text gives `host` (case-insensitive, comments ignored).
pub(crate) fn entries(text: &str, host: &str) -> Vec<IpAddr> {
    text.lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("");
            let mut words = line.split_whitespace();
            let address: IpAddr = words.next()?.parse().ok()?;
            words
                .any(|name| name.trim_end_matches('.').eq_ignore_ascii_case(host))
                .then_some(address)
        })
        .collect()
}

/// Whether the hosts file is read before the name servers (`/etc/nsswitch.conf`'s `hosts:`
/// line; so it is on Windows and macOS, and without the file).
fn files_first() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let Some(text) = read_limited(std::path::Path::new("/etc/nsswitch.conf")) else {
        return true;
    };
    let Some(sources) = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("hosts:"))
    else {
        return true;
    };
    let sources: Vec<&str> = sources.split_whitespace().collect();
    let files = sources.iter().position(|s| *s == "files");
    let dns = sources.iter().position(|s| *s == "dns");
    match (files, dns) {
        (Some(files), Some(dns)) => files < dns,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The name servers of `/etc/resolv.conf` (none known elsewhere).
fn name_servers() -> Vec<String> {
    if !cfg!(unix) {
        return Vec::new();
    }
    read_limited(std::path::Path::new("/etc/resolv.conf"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("nameserver"))
                .then(|| words.next().map(str::to_owned))
                .flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hosts_file_names_a_host_case_insensitively_and_comments_do_not() {
        let text = "127.0.0.1 localhost\n# 10.0.0.1 licensing.example.com\n\
                    127.0.0.1\tLicensing.Example.com  other # crack\n::1 licensing.example.com.\n\
                    not-an-address licensing.example.com\n";
        assert_eq!(
            entries(text, "licensing.example.com"),
            vec![
                "127.0.0.1".parse::<IpAddr>().expect("ip"),
                "::1".parse().expect("ip")
            ]
        );
        assert!(entries(text, "example.com").is_empty());
    }
}
