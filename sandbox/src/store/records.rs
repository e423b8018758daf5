//! The records the store keeps: request log entries, cards, accounts and their activations, login sessions,
//! pending social sign-ins and verification statistics, with their JSON shapes.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::keys::gen_card_key;
use crate::fixtures::{Account, Card};
use crate::time;

/// One request to a service path, as recorded in the request log.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct LogEntry {
    pub seq: u64,
    /// Number of the TCP connection (1 for the first accepted).
    pub conn: u64,
    pub path: String,
    pub app_id: Option<String>,
    pub action: Option<String>,
    /// The envelope code; the HTTP status for 404/405/413 and the `http_5xx` faults; 0 for
    /// the `non_json` and `captive_portal` faults.
    pub code: i64,
    /// When it arrived: Unix seconds of the sandbox clock.
    pub at: i64,
    /// The title of the first diagnosis of the inspector, if it found something
    /// (`GET /_sandbox/log/{seq}` has them all).
    pub diagnosis: Option<String>,
}

/// Verification statistics of one program: requests that reached these actions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationStats {
    pub single_login: u64,
    pub user_login: u64,
}

/// The state of a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CardState {
    Unused,
    Active,
    Used,
    Disabled,
    Refunded,
    Expired,
}

impl CardState {
    fn parse(s: &str) -> Result<CardState, String> {
        Ok(match s {
            "unused" => CardState::Unused,
            "active" => CardState::Active,
            "used" => CardState::Used,
            "disabled" => CardState::Disabled,
            "refunded" => CardState::Refunded,
            "expired" => CardState::Expired,
            other => return Err(format!("unknown card state {other:?}")),
        })
    }

    fn name(self) -> &'static str {
        match self {
            CardState::Unused => "unused",
            CardState::Active => "active",
            CardState::Used => "used",
            CardState::Disabled => "disabled",
            CardState::Refunded => "refunded",
            CardState::Expired => "expired",
        }
    }
}

/// A stored card.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CardRec {
    pub app_id: String,
    pub key: String,
    pub type_name: String,
    pub is_count: bool,
    pub duration: u32,
    pub hourly: bool,
    pub total: u32,
    pub used: u32,
    pub state: CardState,
    pub reason: String,
    pub remark: String,
    pub device_id: Option<String>,
    pub device_name: String,
    pub activated_at: Option<i64>,
    pub expire_at: Option<i64>,
    pub heartbeat_at: Option<i64>,
    /// The account the card was consumed by.
    pub used_by: Option<String>,
}

impl CardRec {
    pub fn from_fixture(c: Card, now: i64) -> Result<CardRec, String> {
        if c.app_id.is_empty() {
            return Err("card: app_id is required".to_string());
        }
        let is_count = match c.kind.as_str() {
            "duration" => false,
            "count" => true,
            other => return Err(format!("card {}: unknown kind {other:?}", c.card)),
        };
        let hourly = match c.duration_type.as_str() {
            "day" => false,
            "hour" => true,
            other => return Err(format!("card {}: unknown duration_type {other:?}", c.card)),
        };
        if is_count && c.used > c.total {
            return Err(format!("card {}: used is greater than total", c.card));
        }
        let state = CardState::parse(&c.state).map_err(|e| format!("card {}: {e}", c.card))?;
        let parse_opt = |v: &Option<String>| -> Result<Option<i64>, String> {
            match v.as_deref() {
                None | Some("") => Ok(None),
                Some(s) => time::parse(s)
                    .map(Some)
                    .map_err(|e| format!("card {}: {e}", c.card)),
            }
        };
        let mut activated_at = parse_opt(&c.activated_at)?;
        let mut expire_at = parse_opt(&c.expire_at)?;
        if state == CardState::Active {
            let start = *activated_at.get_or_insert(now);
            if expire_at.is_none() {
                expire_at = Some(if is_count {
                    time::FAR_FUTURE
                } else {
                    start.saturating_add(duration_secs(c.duration, hourly))
                });
            }
        }
        let key = if c.card.is_empty() {
            gen_card_key()
        } else {
            c.card
        };
        let type_name = if c.type_name.is_empty() {
            default_type_name(is_count, c.duration, hourly)
        } else {
            c.type_name
        };
        Ok(CardRec {
            app_id: c.app_id,
            key,
            type_name,
            is_count,
            duration: c.duration,
            hourly,
            total: c.total,
            used: c.used,
            state,
            reason: c.reason,
            remark: c.remark,
            device_id: c.device_id.filter(|d| !d.is_empty()),
            device_name: String::new(),
            activated_at,
            expire_at,
            heartbeat_at: None,
            used_by: None,
        })
    }

    pub fn remaining(&self) -> u32 {
        self.total.saturating_sub(self.used)
    }

    /// Seconds this card adds or lasts.
    pub fn secs(&self) -> i64 {
        duration_secs(self.duration, self.hourly)
    }

    /// The status shown by `GetCardInfo`.
    pub fn status(&self, now: i64) -> &'static str {
        match self.state {
            CardState::Disabled | CardState::Refunded | CardState::Used | CardState::Expired => {
                self.state.name()
            }
            _ if self.is_count && self.remaining() == 0 => "exhausted",
            CardState::Active if self.expire_at.is_some_and(|e| e <= now) => "expired",
            s => s.name(),
        }
    }

    /// The stored record: the fixture shape plus the sandbox's own fields.
    pub fn to_json(&self, now: i64) -> Value {
        let fx = Card {
            app_id: self.app_id.clone(),
            card: self.key.clone(),
            type_name: self.type_name.clone(),
            kind: if self.is_count { "count" } else { "duration" }.to_string(),
            duration: self.duration,
            duration_type: if self.hourly { "hour" } else { "day" }.to_string(),
            total: self.total,
            used: self.used,
            state: self.state.name().to_string(),
            reason: self.reason.clone(),
            remark: self.remark.clone(),
            device_id: self.device_id.clone(),
            activated_at: self.activated_at.map(time::format),
            expire_at: self.expire_at.map(time::format),
        };
        let mut v = serde_json::to_value(fx).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("remaining".into(), json!(self.remaining()));
            m.insert("status".into(), json!(self.status(now)));
            m.insert("device_name".into(), json!(self.device_name));
            m.insert(
                "heartbeat_at".into(),
                json!(self.heartbeat_at.map(time::format)),
            );
            m.insert("used_by".into(), json!(self.used_by));
        }
        v
    }
}

pub fn duration_secs(duration: u32, hourly: bool) -> i64 {
    i64::from(duration) * if hourly { 3600 } else { 86_400 }
}

fn default_type_name(is_count: bool, duration: u32, hourly: bool) -> String {
    match (is_count, hourly, duration) {
        (true, _, _) => "次卡".to_string(),
        (false, true, n) => format!("{n}小时卡"),
        (false, false, 1) => "天卡".to_string(),
        (false, false, 7) => "周卡".to_string(),
        (false, false, 30) => "月卡".to_string(),
        (false, false, 365) => "年卡".to_string(),
        (false, false, n) => format!("{n}天卡"),
    }
}

/// An activation record of an account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Activation {
    pub device_id: String,
    pub expire_at: i64,
    pub heartbeat_at: Option<i64>,
}

/// A stored account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccountRec {
    pub app_id: String,
    pub username: String,
    pub password: String,
    pub user_id: i64,
    pub device_id: String,
    pub expire_at: i64,
    pub banned: bool,
    pub bind_count: u32,
    pub remark: String,
    pub reason: String,
    pub social_id: Option<String>,
    pub created_at: i64,
    pub activations: Vec<Activation>,
}

impl AccountRec {
    pub fn expired(&self, now: i64) -> bool {
        self.activations.is_empty() || self.expire_at <= now
    }

    /// Sets the expiry of the account and of its latest activation record.
    pub fn set_expiry(&mut self, expire_at: i64) {
        self.expire_at = expire_at;
        match self.activations.last_mut() {
            Some(a) => a.expire_at = expire_at,
            None => self.activations.push(Activation {
                device_id: self.device_id.clone(),
                expire_at,
                heartbeat_at: None,
            }),
        }
    }

    /// Sets the bound machine code of the account and of its activation records.
    pub fn set_device(&mut self, device_id: &str) {
        self.device_id = device_id.to_string();
        for a in &mut self.activations {
            a.device_id = device_id.to_string();
        }
    }

    pub fn status(&self, now: i64) -> &'static str {
        if self.banned {
            "banned"
        } else if self.expired(now) {
            "expired"
        } else {
            "active"
        }
    }

    pub fn to_json(&self, now: i64) -> Value {
        let fx = Account {
            app_id: self.app_id.clone(),
            username: self.username.clone(),
            password: self.password.clone(),
            user_id: Some(self.user_id),
            device_id: self.device_id.clone(),
            expire_at: Some(time::format(self.expire_at)),
            status: if self.banned { "banned" } else { "active" }.to_string(),
            bind_count: self.bind_count,
            remark: self.remark.clone(),
            reason: self.reason.clone(),
            social_id: self.social_id.clone(),
            created_at: Some(time::format(self.created_at)),
        };
        let mut v = serde_json::to_value(fx).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("expired".into(), json!(self.expired(now)));
            let acts: Vec<Value> = self
                .activations
                .iter()
                .map(|a| {
                    json!({
                        "device_id": a.device_id,
                        "expire_at": time::format(a.expire_at),
                        "heartbeat_at": a.heartbeat_at.map(time::format),
                    })
                })
                .collect();
            m.insert("activations".into(), Value::Array(acts));
        }
        v
    }
}

/// What a login token stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionKind {
    Card(String),
    User(String),
}

/// A login session, found by its token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    pub app_id: String,
    pub kind: SessionKind,
    pub device_id: String,
    pub heartbeat_at: i64,
    pub ip: Option<String>,
}

/// A social sign-in waiting for the external authorization.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum SocialKind {
    Login {
        mac: Option<String>,
    },
    Register {
        username: String,
        mac: Option<String>,
        ip: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SocialPending {
    pub app_id: String,
    pub kind: SocialKind,
    /// `(identity, display_name)` once authorized.
    pub authorized: Option<(String, String)>,
}
