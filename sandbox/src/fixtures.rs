//! The configuration and fixtures types: the JSON shape of the README's "Fixtures" section.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How to start a [`crate::Sandbox`].
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to bind.
    pub host: String,
    /// Port to bind; `0` picks a free one.
    pub port: u16,
    /// Whether the back-office control API (`/_sandbox/...`) is served.
    pub control: bool,
    /// Fixtures loaded before the first request (only when `state_file` does not exist yet).
    pub fixtures: Option<Fixtures>,
    /// Serve https too (on `https_port`, same host); `None`: http only.
    pub tls: Option<Tls>,
    /// Port of the https listener; `0` picks a free one.
    pub https_port: u16,
    /// Entries kept in the request log (a ring: the oldest go first).
    pub log_size: usize,
    /// Loaded at start when it exists, saved (atomically) after every change.
    pub state_file: Option<PathBuf>,
    /// Read timeouts, connection and session-secret limits.
    pub limits: Limits,
    /// The token the console and the control API need (README "The door"). `None`: a
    /// random one when `host` is not loopback, none on loopback; `Some`: this one, required
    /// on any address.
    pub token: Option<String>,
    /// Names served as `Host` by the console and the control API, beside the bound
    /// address, loopback and `localhost`; `.example.test` allows a domain and its
    /// subdomains.
    pub allowed_hosts: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            host: "127.0.0.1".to_string(),
            port: 0,
            control: true,
            fixtures: None,
            tls: None,
            https_port: 0,
            log_size: DEFAULT_LOG_SIZE,
            state_file: None,
            limits: Limits::default(),
            token: None,
            allowed_hosts: Vec::new(),
        }
    }
}

/// Default size of the request-log ring.
pub const DEFAULT_LOG_SIZE: usize = 10_000;

/// The certificate of the https listener.
#[derive(Debug, Clone)]
pub enum Tls {
    /// A CA and a server certificate for `127.0.0.1`, `::1` and `localhost`, generated at
    /// start; the CA is [`crate::Sandbox::ca_pem`].
    Generated,
    /// A server certificate chain and its private key, PEM.
    Pem { cert_chain: String, key: String },
}

/// Abuse limits of the server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// A connection that has not sent a complete request head within this time (idle
    /// kept-alive connections included) is closed.
    pub header_timeout: Duration,
    /// A request whose body is not complete within this time gets 408 and the connection is
    /// closed.
    pub body_timeout: Duration,
    /// Open connections (http and https together) above this are refused with 503.
    pub max_connections: usize,
    /// Session secrets (`api_password`) kept per program; each Init beyond it retires the
    /// oldest.
    pub api_passwords_per_program: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            max_connections: 1024,
            api_passwords_per_program: 1000,
        }
    }
}

/// A fixtures document: programs, cards and accounts. Every list is optional.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Fixtures {
    pub programs: Vec<Program>,
    pub cards: Vec<Card>,
    pub accounts: Vec<Account>,
}

impl Fixtures {
    /// Parses a fixtures document from JSON text.
    pub fn from_json(s: &str) -> Result<Fixtures, String> {
        serde_json::from_str(s).map_err(|e| format!("invalid fixtures: {e}"))
    }

    /// Converts a JSON value into a fixtures document.
    pub fn from_value(v: serde_json::Value) -> Result<Fixtures, String> {
        serde_json::from_value(v).map_err(|e| format!("invalid fixtures: {e}"))
    }

    /// Reads and parses a fixtures file.
    pub fn from_file(path: &Path) -> Result<Fixtures, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Fixtures::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// A program's blacklist: client IPs and machine codes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Blacklist {
    pub enabled: bool,
    pub ips: Vec<String>,
    pub macs: Vec<String>,
}

/// The latest version of a program, returned by `GetLatestVersion`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct VersionInfo {
    pub version: String,
    pub changelog: String,
    pub download_url: String,
    pub force_update: bool,
}

impl Default for VersionInfo {
    fn default() -> Self {
        VersionInfo {
            version: "1.0.0".to_string(),
            changelog: String::new(),
            download_url: String::new(),
            force_update: false,
        }
    }
}

fn approved() -> String {
    "approved".to_string()
}

/// A registered program and its product settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Program {
    pub app_id: String,
    pub app_key: String,
    /// `approved`, `pending`, `rejected` or `expired`.
    #[serde(default = "approved")]
    pub status: String,
    #[serde(default)]
    pub blacklist: Blacklist,
    /// `None`: no cap.
    #[serde(default)]
    pub max_registrations_per_ip: Option<u32>,
    /// `None`: no cap.
    #[serde(default)]
    pub max_rebinds: Option<u32>,
    #[serde(default)]
    pub version: VersionInfo,
    #[serde(default)]
    pub bulletin: String,
    /// `YYYY-MM-DD HH:mm:ss`; when absent, the time the program was loaded.
    #[serde(default)]
    pub bulletin_updated_at: Option<String>,
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    /// Machine code -> reason.
    #[serde(default)]
    pub disabled_devices: BTreeMap<String, String>,
    /// Session secrets valid from the start, as if issued by Init.
    #[serde(default)]
    pub api_passwords: Vec<String>,
    /// `standard` or `alternate` (other field names in some replies, see the README).
    #[serde(default = "standard")]
    pub dialect: String,
}

fn standard() -> String {
    "standard".to_string()
}

impl Default for Program {
    fn default() -> Self {
        Program {
            app_id: String::new(),
            app_key: String::new(),
            status: approved(),
            blacklist: Blacklist::default(),
            max_registrations_per_ip: None,
            max_rebinds: None,
            version: VersionInfo::default(),
            bulletin: String::new(),
            bulletin_updated_at: None,
            variables: BTreeMap::new(),
            disabled_devices: BTreeMap::new(),
            api_passwords: Vec::new(),
            dialect: standard(),
        }
    }
}

fn duration_kind() -> String {
    "duration".to_string()
}
fn thirty() -> u32 {
    30
}
fn day() -> String {
    "day".to_string()
}
fn one() -> u32 {
    1
}
fn unused() -> String {
    "unused".to_string()
}

/// A card (license key).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Card {
    pub app_id: String,
    /// The key; empty in `add_card` generates one.
    #[serde(default)]
    pub card: String,
    /// Display name; empty derives one from the kind and duration.
    #[serde(default)]
    pub type_name: String,
    /// `duration` or `count`.
    #[serde(default = "duration_kind")]
    pub kind: String,
    #[serde(default = "thirty")]
    pub duration: u32,
    /// `day` or `hour`.
    #[serde(default = "day")]
    pub duration_type: String,
    /// Count cards: total uses.
    #[serde(default = "one")]
    pub total: u32,
    /// Count cards: uses consumed.
    #[serde(default)]
    pub used: u32,
    /// `unused`, `active`, `used`, `disabled`, `refunded` or `expired`.
    #[serde(default = "unused")]
    pub state: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub remark: String,
    #[serde(default)]
    pub device_id: Option<String>,
    #[serde(default)]
    pub activated_at: Option<String>,
    #[serde(default)]
    pub expire_at: Option<String>,
}

impl Default for Card {
    fn default() -> Self {
        Card {
            app_id: String::new(),
            card: String::new(),
            type_name: String::new(),
            kind: duration_kind(),
            duration: thirty(),
            duration_type: day(),
            total: one(),
            used: 0,
            state: unused(),
            reason: String::new(),
            remark: String::new(),
            device_id: None,
            activated_at: None,
            expire_at: None,
        }
    }
}

fn active() -> String {
    "active".to_string()
}

/// An account (account mode).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Account {
    pub app_id: String,
    pub username: String,
    #[serde(default)]
    pub password: String,
    /// Assigned when absent.
    #[serde(default)]
    pub user_id: Option<i64>,
    #[serde(default)]
    pub device_id: String,
    /// `YYYY-MM-DD HH:mm:ss`; absent: expired (the time it was loaded).
    #[serde(default)]
    pub expire_at: Option<String>,
    /// `active` or `banned`.
    #[serde(default = "active")]
    pub status: String,
    #[serde(default)]
    pub bind_count: u32,
    #[serde(default)]
    pub remark: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub social_id: Option<String>,
    /// `YYYY-MM-DD HH:mm:ss`; absent: the time it was loaded.
    #[serde(default)]
    pub created_at: Option<String>,
}

impl Default for Account {
    fn default() -> Self {
        Account {
            app_id: String::new(),
            username: String::new(),
            password: String::new(),
            user_id: None,
            device_id: String::new(),
            expire_at: None,
            status: active(),
            bind_count: 0,
            remark: String::new(),
            reason: String::new(),
            social_id: None,
            created_at: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_example_parses_with_defaults() {
        let f = Fixtures::from_json(
            r#"{"programs":[{"app_id":"1","app_key":"K"}],
                "cards":[{"app_id":"1","card":"COUN-TCAR-D000-0001","kind":"count","total":3}],
                "accounts":[{"app_id":"1","username":"alice","password":"x"}]}"#,
        )
        .unwrap();
        assert_eq!(f.programs[0].status, "approved");
        assert_eq!(f.cards[0].state, "unused");
        assert_eq!(f.cards[0].used, 0);
        assert_eq!(f.accounts[0].status, "active");
        assert!(Fixtures::from_json("{\"programs\":[{}]}").is_err());
    }
}
