//! The JSON views of the control API and the console: records as stored, lists filtered
//! and sorted, secrets masked, the clock and the statistics.

use serde_json::{json, Value};

use super::records::{AccountRec, CardRec, SessionKind, SocialKind, VerificationStats};
use super::state::{key, State};
use crate::inspect::mask_secret;
use crate::time;

impl State {
    pub fn verification_stats(&self, app_id: &str) -> VerificationStats {
        self.stats.get(app_id).copied().unwrap_or_default()
    }

    pub fn card_json(&self, app_id: &str, card: &str) -> Option<Value> {
        let now = self.now();
        self.cards.get(&key(app_id, card)).map(|c| c.to_json(now))
    }

    pub fn account_json(&self, app_id: &str, username: &str) -> Option<Value> {
        let now = self.now();
        self.accounts
            .get(&key(app_id, username))
            .map(|a| a.to_json(now))
    }

    /// `{now, offset}` of the control API.
    pub fn clock_json(&self) -> Value {
        json!({"ok": true, "now": self.now(), "offset": self.clock_offset})
    }

    /// `{connections_accepted, requests, verifications}` of the control API.
    pub fn stats_json(&self, connections_accepted: u64) -> Value {
        let verifications: serde_json::Map<String, Value> = self
            .stats
            .iter()
            .map(|(app, s)| {
                (
                    app.clone(),
                    json!({"SingleLogin": s.single_login, "UserLogin": s.user_login}),
                )
            })
            .collect();
        json!({
            "ok": true,
            "connections_accepted": connections_accepted,
            "requests": self.requests,
            "verifications": verifications,
        })
    }

    /// Programs for the console: app keys masked, session secrets counted.
    pub fn programs_json(&self) -> Value {
        let list: Vec<Value> = self
            .programs
            .values()
            .map(|p| {
                let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert("app_key".into(), json!(mask_secret(&p.app_key)));
                    m.remove("api_passwords");
                    let n = self
                        .api_password_order
                        .get(&p.app_id)
                        .map_or(0, |q| q.len());
                    m.insert("api_password_count".into(), json!(n));
                }
                v
            })
            .collect();
        Value::Array(list)
    }

    /// Cards of one program (or all), filtered by status and a substring of the key.
    pub fn cards_json(&self, app_id: Option<&str>, status: Option<&str>, q: Option<&str>) -> Value {
        let now = self.now();
        let mut list: Vec<&CardRec> = self
            .cards
            .values()
            .filter(|c| app_id.is_none_or(|a| c.app_id == a))
            .filter(|c| status.is_none_or(|s| c.status(now) == s))
            .filter(|c| q.is_none_or(|q| c.key.contains(q)))
            .collect();
        list.sort_by(|a, b| (&a.app_id, &a.key).cmp(&(&b.app_id, &b.key)));
        Value::Array(list.into_iter().map(|c| c.to_json(now)).collect())
    }

    /// Accounts of one program (or all), passwords masked.
    pub fn accounts_json(&self, app_id: Option<&str>, q: Option<&str>) -> Value {
        let now = self.now();
        let mut list: Vec<&AccountRec> = self
            .accounts
            .values()
            .filter(|a| app_id.is_none_or(|x| a.app_id == x))
            .filter(|a| q.is_none_or(|q| a.username.contains(q)))
            .collect();
        list.sort_by(|a, b| (&a.app_id, &a.username).cmp(&(&b.app_id, &b.username)));
        Value::Array(
            list.into_iter()
                .map(|a| {
                    let mut v = a.to_json(now);
                    if let Value::Object(m) = &mut v {
                        m.insert("password".into(), json!(mask_secret(&a.password)));
                        m.insert("status".into(), json!(a.status(now)));
                    }
                    v
                })
                .collect(),
        )
    }

    /// Login sessions, tokens masked.
    pub fn sessions_json(&self, app_id: Option<&str>) -> Value {
        let mut list: Vec<Value> = self
            .sessions
            .iter()
            .filter(|(_, s)| app_id.is_none_or(|a| s.app_id == a))
            .map(|(token, s)| {
                let (kind, subject) = match &s.kind {
                    SessionKind::Card(c) => ("card", c.as_str()),
                    SessionKind::User(u) => ("user", u.as_str()),
                };
                json!({
                    "token": mask_secret(token),
                    "app_id": s.app_id,
                    "type": kind,
                    "subject": subject,
                    "device_id": s.device_id,
                    "heartbeat_at": time::format(s.heartbeat_at),
                    "heartbeat_unix": s.heartbeat_at,
                    "ip": s.ip,
                })
            })
            .collect();
        list.sort_by(|a, b| {
            b["heartbeat_unix"]
                .as_i64()
                .cmp(&a["heartbeat_unix"].as_i64())
        });
        Value::Array(list)
    }

    /// Social sign-ins waiting for the back office.
    pub fn socials_json(&self, app_id: Option<&str>) -> Value {
        let mut list: Vec<Value> = self
            .socials
            .iter()
            .filter(|(_, s)| app_id.is_none_or(|a| s.app_id == a))
            .map(|(state, s)| {
                let (kind, username) = match &s.kind {
                    SocialKind::Login { .. } => ("login", None),
                    SocialKind::Register { username, .. } => ("register", Some(username)),
                };
                json!({
                    "state": state,
                    "app_id": s.app_id,
                    "kind": kind,
                    "username": username,
                    "authorized": s.authorized.is_some(),
                })
            })
            .collect();
        list.sort_by(|a, b| a["state"].as_str().cmp(&b["state"].as_str()));
        Value::Array(list)
    }
}
