//! Everything the sandbox remembers, behind one mutex: programs, cards, accounts, session
//! secrets, tokens, pending social sign-ins, the clock offset, the request log, statistics
//! and faults. The back-office operations live here too, so that the control API and the
//! `Sandbox` methods call the same functions.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::door::Door;
use crate::faults::{Fault, Faults};
use crate::fixtures::{Account, Card, Fixtures, Program};
use crate::inspect::{mask_path, mask_secret, Detail, DETAILS_KEPT};
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
    fn from_fixture(c: Card, now: i64) -> Result<CardRec, String> {
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

/// Everything behind the mutex.
#[derive(Debug)]
pub struct State {
    pub clock_offset: i64,
    pub programs: BTreeMap<String, Program>,
    pub cards: HashMap<(String, String), CardRec>,
    pub accounts: HashMap<(String, String), AccountRec>,
    /// ApiPassword -> app_id.
    pub api_passwords: HashMap<String, String>,
    /// Token -> session.
    pub sessions: HashMap<String, Session>,
    /// Social state -> pending sign-in.
    pub socials: HashMap<String, SocialPending>,
    /// (app_id, ip) -> registrations.
    pub registrations: HashMap<(String, String), u32>,
    pub next_user_id: i64,
    /// The request log, a ring of at most `log_size` entries.
    pub log: VecDeque<LogEntry>,
    pub log_size: usize,
    /// Session secrets of each program, oldest first (bounded by `api_password_cap`).
    pub api_password_order: HashMap<String, VecDeque<String>>,
    pub api_password_cap: usize,
    pub requests: u64,
    pub stats: BTreeMap<String, VerificationStats>,
    pub faults: Faults,
    /// The inspector's details of the newest log entries, by `seq`, oldest first.
    pub details: VecDeque<(u64, Detail)>,
    /// Session secrets no longer valid, for the inspector (at most [`RETIRED_KEPT`]).
    pub retired: HashMap<String, Retired>,
    pub retired_order: VecDeque<String>,
}

/// A session secret that was valid once.
#[derive(Debug, Clone)]
pub struct Retired {
    pub app_id: String,
    /// When it was retired (sandbox clock).
    pub at: i64,
    pub why: String,
}

/// Retired session secrets remembered for the inspector.
pub const RETIRED_KEPT: usize = 4096;

impl Default for State {
    fn default() -> Self {
        State {
            clock_offset: 0,
            programs: BTreeMap::new(),
            cards: HashMap::new(),
            accounts: HashMap::new(),
            api_passwords: HashMap::new(),
            sessions: HashMap::new(),
            socials: HashMap::new(),
            registrations: HashMap::new(),
            next_user_id: 10001,
            log: VecDeque::new(),
            log_size: crate::fixtures::DEFAULT_LOG_SIZE,
            api_password_order: HashMap::new(),
            api_password_cap: crate::fixtures::Limits::default().api_passwords_per_program,
            requests: 0,
            stats: BTreeMap::new(),
            faults: Faults::default(),
            details: VecDeque::new(),
            retired: HashMap::new(),
            retired_order: VecDeque::new(),
        }
    }
}

fn key(app_id: &str, k: &str) -> (String, String) {
    (app_id.to_string(), k.to_string())
}

fn random_from(charset: &[u8], len: usize) -> String {
    let mut rng = rand::thread_rng();
    (0..len)
        .map(|_| char::from(charset[rng.gen_range(0..charset.len())]))
        .collect()
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_ALNUM: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

pub fn gen_api_password() -> String {
    random_from(ALNUM, 32)
}

pub fn gen_token() -> String {
    random_from(LOWER_ALNUM, 40)
}

pub fn gen_card_key() -> String {
    (0..4)
        .map(|_| random_from(UPPER_ALNUM, 4))
        .collect::<Vec<_>>()
        .join("-")
}

const PROGRAM_STATUSES: [&str; 4] = ["approved", "pending", "rejected", "expired"];

/// The shared part of a running sandbox.
#[derive(Debug)]
pub struct Shared {
    state: Mutex<State>,
    pub connections: AtomicU64,
    /// Connections open now (http and https).
    pub open: std::sync::atomic::AtomicUsize,
    pub control: bool,
    /// Whether the inspector keeps details (the control API is on and the log keeps
    /// entries).
    pub inspect: bool,
    pub limits: crate::fixtures::Limits,
    pub persist: Option<Persist>,
    /// Who may use the control API and the console.
    pub door: Door,
    /// Bumped at every change: the console's server-sent events wait on it.
    pub events: tokio::sync::watch::Sender<u64>,
    /// Requests to the control API and the console that the door let in.
    pub control_requests: AtomicU64,
    /// Event streams open now.
    pub event_streams: std::sync::atomic::AtomicUsize,
}

impl Shared {
    pub fn with(
        control: bool,
        log_size: usize,
        limits: crate::fixtures::Limits,
        state_file: Option<std::path::PathBuf>,
        door: Door,
    ) -> Shared {
        let state = State {
            log_size,
            api_password_cap: limits.api_passwords_per_program,
            ..State::default()
        };
        Shared {
            state: Mutex::new(state),
            connections: AtomicU64::new(0),
            open: std::sync::atomic::AtomicUsize::new(0),
            control,
            inspect: control && log_size > 0,
            limits,
            persist: state_file.map(|path| Persist {
                path,
                dirty: Mutex::new((false, false)),
                wake: Condvar::new(),
            }),
            door,
            events: tokio::sync::watch::Sender::new(0),
            control_requests: AtomicU64::new(0),
            event_streams: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Locks the state. Never held across an await.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Numbers a newly accepted connection (1 for the first).
    pub fn accept_connection(&self) -> u64 {
        self.connections.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub fn connections_accepted(&self) -> u64 {
        self.connections.load(Ordering::SeqCst)
    }

    /// The sandbox clock.
    pub fn now(&self) -> i64 {
        self.lock().now()
    }

    /// Something may have changed: the state file writer saves it, and the console's event
    /// streams say so.
    pub fn changed(&self) {
        self.events.send_modify(|v| *v = v.wrapping_add(1));
        if let Some(p) = &self.persist {
            let mut d = p.dirty.lock().unwrap_or_else(|e| e.into_inner());
            d.0 = true;
            p.wake.notify_all();
        }
    }

    /// The state as the state file holds it.
    pub fn snapshot(&self) -> Vec<u8> {
        let saved = self.lock().save();
        serde_json::to_vec_pretty(&saved).unwrap_or_default()
    }

    /// The state file writer's loop: saves when changed (only when the bytes differ) until
    /// `stop_persist`, then saves once more.
    pub fn persist_loop(&self) {
        let Some(p) = &self.persist else { return };
        let mut last: Vec<u8> = std::fs::read(&p.path).unwrap_or_default();
        loop {
            let stop = {
                let mut d = p.dirty.lock().unwrap_or_else(|e| e.into_inner());
                while !d.0 && !d.1 {
                    d = p.wake.wait(d).unwrap_or_else(|e| e.into_inner());
                }
                d.0 = false;
                d.1
            };
            let bytes = self.snapshot();
            if bytes != last {
                match Persist::write_atomically(&p.path, &bytes) {
                    Ok(()) => last = bytes,
                    Err(e) => eprintln!(
                        "verify-sandbox: cannot save the state to {}: {e}",
                        p.path.display()
                    ),
                }
            }
            if stop {
                return;
            }
            // Coalesce bursts (a load test changes the state at every request): at most
            // one save per 20 ms; the stop request is still served by a last save.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Ends `persist_loop` after a last save.
    pub fn stop_persist(&self) {
        if let Some(p) = &self.persist {
            let mut d = p.dirty.lock().unwrap_or_else(|e| e.into_inner());
            d.1 = true;
            p.wake.notify_all();
        }
    }

    /// Loads the state file when it exists. `Ok(true)` when loaded.
    pub fn load_state_file(&self) -> Result<bool, String> {
        let Some(p) = &self.persist else {
            return Ok(false);
        };
        let text = match std::fs::read(&p.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(format!("cannot read {}: {e}", p.path.display())),
        };
        let saved: Saved = serde_json::from_slice(&text)
            .map_err(|e| format!("{}: invalid state file: {e}", p.path.display()))?;
        self.lock().restore(saved)?;
        Ok(true)
    }
}

/// The back-office operations.
impl State {
    pub fn now(&self) -> i64 {
        time::system_now().saturating_add(self.clock_offset)
    }

    pub fn shift_clock(&mut self, seconds: i64) {
        self.clock_offset = self.clock_offset.saturating_add(seconds);
    }

    pub fn set_clock_offset(&mut self, seconds: i64) {
        self.clock_offset = seconds;
    }

    fn check_program(p: &Program) -> Result<(), String> {
        if p.app_id.is_empty() {
            return Err("program: app_id is required".to_string());
        }
        if !PROGRAM_STATUSES.contains(&p.status.as_str()) {
            return Err(format!(
                "program {}: unknown status {:?}",
                p.app_id, p.status
            ));
        }
        if p.dialect != "standard" && p.dialect != "alternate" {
            return Err(format!(
                "program {}: unknown dialect {:?} (standard, alternate)",
                p.app_id, p.dialect
            ));
        }
        if let Some(t) = p.bulletin_updated_at.as_deref() {
            time::parse(t).map_err(|e| format!("program {}: {e}", p.app_id))?;
        }
        for pw in &p.api_passwords {
            if !crate::wire::key_len_ok(pw.len()) {
                return Err(format!(
                    "program {}: api_password {pw:?} must be 1 to 64 bytes",
                    p.app_id
                ));
            }
        }
        Ok(())
    }

    fn insert_program(&mut self, mut p: Program) {
        let now = self.now();
        if p.bulletin_updated_at.is_none() {
            p.bulletin_updated_at = Some(time::format(now));
        }
        for pw in &p.api_passwords {
            self.add_api_password(pw.clone(), &p.app_id);
        }
        self.programs.insert(p.app_id.clone(), p);
    }

    fn account_from_fixture(&self, a: Account) -> Result<AccountRec, String> {
        if a.app_id.is_empty() || a.username.is_empty() {
            return Err("account: app_id and username are required".to_string());
        }
        let banned = match a.status.as_str() {
            "active" => false,
            "banned" => true,
            other => return Err(format!("account {}: unknown status {other:?}", a.username)),
        };
        let now = self.now();
        let parse_or_now = |v: &Option<String>| -> Result<i64, String> {
            match v.as_deref() {
                None | Some("") => Ok(now),
                Some(s) => time::parse(s).map_err(|e| format!("account {}: {e}", a.username)),
            }
        };
        let expire_at = parse_or_now(&a.expire_at)?;
        let created_at = parse_or_now(&a.created_at)?;
        Ok(AccountRec {
            user_id: a.user_id.unwrap_or(0),
            activations: vec![Activation {
                device_id: a.device_id.clone(),
                expire_at,
                heartbeat_at: None,
            }],
            app_id: a.app_id,
            username: a.username,
            password: a.password,
            device_id: a.device_id,
            expire_at,
            banned,
            bind_count: a.bind_count,
            remark: a.remark,
            reason: a.reason,
            social_id: a.social_id.filter(|s| !s.is_empty()),
            created_at,
        })
    }

    /// Stores an account, assigning a user_id when it has none (0). Returns the user_id.
    pub fn insert_account(&mut self, mut rec: AccountRec) -> i64 {
        let k = key(&rec.app_id, &rec.username);
        if rec.user_id == 0 {
            rec.user_id = match self.accounts.get(&k) {
                Some(old) => old.user_id,
                None => {
                    let id = self.next_user_id;
                    self.next_user_id += 1;
                    id
                }
            };
        } else if rec.user_id >= self.next_user_id {
            self.next_user_id = rec.user_id.saturating_add(1);
        }
        let id = rec.user_id;
        self.accounts.insert(k, rec);
        id
    }

    /// Adds (or replaces, by key) the programs, cards and accounts of a fixtures document.
    /// Nothing changes when any record is invalid.
    pub fn load(&mut self, f: Fixtures) -> Result<(), String> {
        let now = self.now();
        for p in &f.programs {
            State::check_program(p)?;
        }
        let cards = f
            .cards
            .into_iter()
            .map(|c| CardRec::from_fixture(c, now))
            .collect::<Result<Vec<_>, _>>()?;
        let accounts = f
            .accounts
            .into_iter()
            .map(|a| self.account_from_fixture(a))
            .collect::<Result<Vec<_>, _>>()?;
        for p in f.programs {
            self.insert_program(p);
        }
        for c in cards {
            self.cards.insert(key(&c.app_id, &c.key), c);
        }
        for a in accounts {
            self.insert_account(a);
        }
        Ok(())
    }

    pub fn add_program(&mut self, p: Program) -> Result<(), String> {
        State::check_program(&p)?;
        self.insert_program(p);
        Ok(())
    }

    pub fn add_card(&mut self, c: Card) -> Result<String, String> {
        let rec = CardRec::from_fixture(c, self.now())?;
        let k = rec.key.clone();
        self.cards.insert(key(&rec.app_id, &k), rec);
        Ok(k)
    }

    pub fn add_account(&mut self, a: Account) -> Result<i64, String> {
        let rec = self.account_from_fixture(a)?;
        Ok(self.insert_account(rec))
    }

    pub fn set_program_status(&mut self, app_id: &str, status: &str) -> Result<(), String> {
        if !PROGRAM_STATUSES.contains(&status) {
            return Err(format!("unknown program status {status:?}"));
        }
        let p = self
            .programs
            .get_mut(app_id)
            .ok_or_else(|| format!("unknown program {app_id:?}"))?;
        p.status = status.to_string();
        Ok(())
    }

    pub fn update_card(
        &mut self,
        app_id: &str,
        card: &str,
        op: &str,
        reason: Option<&str>,
    ) -> Result<(), String> {
        let c = self
            .cards
            .get_mut(&key(app_id, card))
            .ok_or_else(|| format!("unknown card {card:?} of program {app_id:?}"))?;
        match op {
            "disable" => {
                c.state = CardState::Disabled;
                c.reason = reason.unwrap_or_default().to_string();
            }
            "refund" => {
                c.state = CardState::Refunded;
                c.reason = reason.unwrap_or_default().to_string();
            }
            "enable" => {
                c.state = if c.used_by.is_some() {
                    CardState::Used
                } else if c.activated_at.is_some() {
                    CardState::Active
                } else {
                    CardState::Unused
                };
                c.reason.clear();
            }
            other => {
                return Err(format!(
                    "unknown card op {other:?} (disable, enable, refund)"
                ))
            }
        }
        Ok(())
    }

    pub fn update_account(
        &mut self,
        app_id: &str,
        username: &str,
        op: &str,
        reason: Option<&str>,
    ) -> Result<(), String> {
        let a = self
            .accounts
            .get_mut(&key(app_id, username))
            .ok_or_else(|| format!("unknown account {username:?} of program {app_id:?}"))?;
        match op {
            "ban" => {
                a.banned = true;
                a.reason = reason.unwrap_or_default().to_string();
            }
            "unban" => {
                a.banned = false;
                a.reason.clear();
            }
            other => return Err(format!("unknown account op {other:?} (ban, unban)")),
        }
        Ok(())
    }

    pub fn update_device(
        &mut self,
        app_id: &str,
        device_id: &str,
        op: &str,
        reason: Option<&str>,
    ) -> Result<(), String> {
        let p = self
            .programs
            .get_mut(app_id)
            .ok_or_else(|| format!("unknown program {app_id:?}"))?;
        match op {
            "disable" => {
                p.disabled_devices.insert(
                    device_id.to_string(),
                    reason.unwrap_or_default().to_string(),
                );
            }
            "enable" => {
                p.disabled_devices.remove(device_id);
            }
            other => return Err(format!("unknown device op {other:?} (disable, enable)")),
        }
        Ok(())
    }

    pub fn leave_card_message(
        &mut self,
        app_id: &str,
        card: &str,
        message: &str,
    ) -> Result<(), String> {
        let c = self
            .cards
            .get_mut(&key(app_id, card))
            .ok_or_else(|| format!("unknown card {card:?} of program {app_id:?}"))?;
        c.remark = message.to_string();
        Ok(())
    }

    pub fn leave_account_message(
        &mut self,
        app_id: &str,
        username: &str,
        message: &str,
    ) -> Result<(), String> {
        let a = self
            .accounts
            .get_mut(&key(app_id, username))
            .ok_or_else(|| format!("unknown account {username:?} of program {app_id:?}"))?;
        a.remark = message.to_string();
        Ok(())
    }

    /// Completes a pending social sign-in. A registration creates its account now.
    pub fn authorize_social(
        &mut self,
        state: &str,
        identity: &str,
        display_name: &str,
    ) -> Result<(), String> {
        if identity.is_empty() {
            return Err("identity is required".to_string());
        }
        let pending = self
            .socials
            .get(state)
            .cloned()
            .ok_or_else(|| format!("unknown social state {state:?}"))?;
        match pending.kind {
            SocialKind::Login { .. } => {
                if let Some(p) = self.socials.get_mut(state) {
                    p.authorized = Some((identity.to_string(), display_name.to_string()));
                }
                Ok(())
            }
            SocialKind::Register { username, mac, ip } => {
                self.socials.remove(state);
                if self.accounts.contains_key(&key(&pending.app_id, &username)) {
                    return Err(format!("username {username:?} was registered meanwhile"));
                }
                let now = self.now();
                let device = mac.unwrap_or_default();
                let rec = AccountRec {
                    app_id: pending.app_id.clone(),
                    username,
                    password: String::new(),
                    user_id: 0,
                    device_id: device.clone(),
                    expire_at: now,
                    banned: false,
                    bind_count: 0,
                    remark: String::new(),
                    reason: String::new(),
                    social_id: Some(identity.to_string()),
                    created_at: now,
                    activations: vec![Activation {
                        device_id: device,
                        expire_at: now,
                        heartbeat_at: None,
                    }],
                };
                *self.registrations.entry((pending.app_id, ip)).or_insert(0) += 1;
                self.insert_account(rec);
                Ok(())
            }
        }
    }

    pub fn set_fault(&mut self, f: Fault) {
        self.faults.add(f);
    }

    pub fn clear_faults(&mut self, app_id: Option<&str>) {
        self.faults.clear(app_id);
    }

    /// The newest `limit` entries (all when `None`) of one program or of all, oldest first.
    pub fn request_log_newest(&self, app_id: Option<&str>, limit: Option<usize>) -> Vec<LogEntry> {
        let mut newest: Vec<LogEntry> = self
            .log
            .iter()
            .rev()
            .filter(|e| app_id.is_none() || e.app_id.as_deref() == app_id)
            .take(limit.unwrap_or(usize::MAX))
            .cloned()
            .collect();
        newest.reverse();
        newest
    }

    /// Every entry of one program or of all, oldest first (masked when recorded).
    pub fn request_log(&self, app_id: Option<&str>) -> Vec<LogEntry> {
        self.request_log_newest(app_id, None)
    }

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

    /// Appends to the request log (a ring: the oldest entry goes when it is full), with the
    /// inspector's detail when there is one. The ApiPassword of a Handle path is masked.
    pub fn record(
        &mut self,
        conn: u64,
        path: &str,
        app_id: Option<&str>,
        action: Option<&str>,
        code: i64,
        detail: Option<Detail>,
    ) {
        self.requests += 1;
        if self.log_size == 0 {
            return;
        }
        while self.log.len() >= self.log_size {
            self.log.pop_front();
        }
        let seq = self.requests;
        self.log.push_back(LogEntry {
            seq,
            conn,
            path: mask_path(path),
            app_id: app_id.map(str::to_string),
            action: action.map(str::to_string),
            code,
            at: self.now(),
            diagnosis: detail
                .as_ref()
                .and_then(|d| d.diagnoses.first())
                .map(|d| d.title.clone()),
        });
        if let Some(d) = detail {
            while self.details.len() >= DETAILS_KEPT.min(self.log_size) {
                self.details.pop_front();
            }
            self.details.push_back((seq, d));
        }
    }

    /// One log entry with the inspector's detail (`GET /_sandbox/log/{seq}`): `Ok(None)`
    /// when there is no such entry, `Err` when its detail is no longer kept.
    pub fn log_entry(&self, seq: u64) -> Result<Option<Value>, String> {
        let Some(entry) = self.log.iter().find(|e| e.seq == seq) else {
            return Ok(None);
        };
        let found = self
            .details
            .binary_search_by_key(&seq, |(s, _)| *s)
            .ok()
            .and_then(|i| self.details.get(i));
        let Some((_, detail)) = found else {
            return Err(format!(
                "the details of entry {seq} are no longer kept: the newest {} are",
                DETAILS_KEPT.min(self.log_size)
            ));
        };
        let mut v = serde_json::to_value(entry).unwrap_or(Value::Null);
        if let (Value::Object(m), Value::Object(d)) = (&mut v, detail.to_json(&entry.path)) {
            m.extend(d);
        }
        Ok(Some(v))
    }

    /// Remembers a session secret that is no longer valid, for the inspector.
    pub fn retire(&mut self, pw: String, app_id: &str, why: String) {
        let at = self.now();
        if self.retired.contains_key(&pw) {
            self.retired_order.retain(|p| p != &pw);
        }
        while self.retired_order.len() >= RETIRED_KEPT {
            if let Some(old) = self.retired_order.pop_front() {
                self.retired.remove(&old);
            }
        }
        self.retired_order.push_back(pw.clone());
        self.retired.insert(
            pw,
            Retired {
                app_id: app_id.to_string(),
                at,
                why,
            },
        );
    }

    /// Registers a session secret of a program; beyond the cap, the oldest one of that
    /// program is retired.
    pub fn add_api_password(&mut self, pw: String, app_id: &str) {
        if self.retired.remove(&pw).is_some() {
            self.retired_order.retain(|p| p != &pw);
        }
        if let Some(old_app) = self.api_passwords.insert(pw.clone(), app_id.to_string()) {
            if let Some(q) = self.api_password_order.get_mut(&old_app) {
                q.retain(|p| p != &pw);
            }
        }
        let q = self
            .api_password_order
            .entry(app_id.to_string())
            .or_default();
        q.push_back(pw);
        let cap = self.api_password_cap.max(1);
        let mut gone = Vec::new();
        while q.len() > cap {
            if let Some(old) = q.pop_front() {
                self.api_passwords.remove(&old);
                gone.push(old);
            }
        }
        for old in gone {
            self.retire(
                old,
                app_id,
                format!(
                    "a newer Init retired it: the sandbox keeps {cap} session secret(s) per \
                     program, oldest out first (--max-api-passwords)"
                ),
            );
        }
    }

    /// Helpers for the actions.
    pub fn card_mut(&mut self, app_id: &str, card: &str) -> Option<&mut CardRec> {
        self.cards.get_mut(&key(app_id, card))
    }

    pub fn account_mut(&mut self, app_id: &str, username: &str) -> Option<&mut AccountRec> {
        self.accounts.get_mut(&key(app_id, username))
    }

    pub fn account_exists(&self, app_id: &str, username: &str) -> bool {
        self.accounts.contains_key(&key(app_id, username))
    }

    /// Issues a fresh token for a session.
    pub fn issue_token(&mut self, session: Session) -> String {
        let mut token = gen_token();
        while self.sessions.contains_key(&token) {
            token = gen_token();
        }
        self.sessions.insert(token.clone(), session);
        token
    }
}

/// The state file: everything but the request log, the faults and the statistics of
/// connections.
#[derive(Debug, Serialize, Deserialize)]
pub struct Saved {
    pub format: u32,
    pub clock_offset: i64,
    pub programs: Vec<Program>,
    pub cards: Vec<CardRec>,
    pub accounts: Vec<AccountRec>,
    /// app_id -> session secrets, oldest first.
    pub api_passwords: BTreeMap<String, Vec<String>>,
    pub sessions: BTreeMap<String, Session>,
    pub socials: BTreeMap<String, SocialPending>,
    pub registrations: Vec<(String, String, u32)>,
    pub next_user_id: i64,
    pub stats: BTreeMap<String, VerificationStats>,
}

/// Console and persistence operations.
impl State {
    pub fn save(&self) -> Saved {
        let mut cards: Vec<CardRec> = self.cards.values().cloned().collect();
        cards.sort_by(|a, b| (&a.app_id, &a.key).cmp(&(&b.app_id, &b.key)));
        let mut accounts: Vec<AccountRec> = self.accounts.values().cloned().collect();
        accounts.sort_by(|a, b| (&a.app_id, &a.username).cmp(&(&b.app_id, &b.username)));
        let mut registrations: Vec<(String, String, u32)> = self
            .registrations
            .iter()
            .map(|((a, ip), n)| (a.clone(), ip.clone(), *n))
            .collect();
        registrations.sort();
        Saved {
            format: 1,
            clock_offset: self.clock_offset,
            programs: self.programs.values().cloned().collect(),
            cards,
            accounts,
            api_passwords: self
                .api_password_order
                .iter()
                .map(|(a, q)| (a.clone(), q.iter().cloned().collect()))
                .collect(),
            sessions: self
                .sessions
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            socials: self
                .socials
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            registrations,
            next_user_id: self.next_user_id,
            stats: self.stats.clone(),
        }
    }

    pub fn restore(&mut self, saved: Saved) -> Result<(), String> {
        if saved.format != 1 {
            return Err(format!("unknown state file format {}", saved.format));
        }
        let log_size = self.log_size;
        let cap = self.api_password_cap;
        *self = State {
            log_size,
            api_password_cap: cap,
            ..State::default()
        };
        self.clock_offset = saved.clock_offset;
        for p in saved.programs {
            self.programs.insert(p.app_id.clone(), p);
        }
        for (app, pws) in saved.api_passwords {
            for pw in pws {
                self.add_api_password(pw, &app);
            }
        }
        for c in saved.cards {
            self.cards.insert(key(&c.app_id, &c.key), c);
        }
        for a in saved.accounts {
            self.accounts.insert(key(&a.app_id, &a.username), a);
        }
        self.sessions = saved.sessions.into_iter().collect();
        self.socials = saved.socials.into_iter().collect();
        self.registrations = saved
            .registrations
            .into_iter()
            .map(|(a, ip, n)| ((a, ip), n))
            .collect();
        self.next_user_id = saved.next_user_id;
        self.stats = saved.stats;
        Ok(())
    }

    /// Forgets every program, card, account, session, fault and log entry; the clock goes
    /// back to the system clock.
    pub fn reset(&mut self) {
        let log_size = self.log_size;
        let cap = self.api_password_cap;
        let live: Vec<(String, String)> = self.api_passwords.drain().collect();
        let retired = std::mem::take(&mut self.retired);
        let retired_order = std::mem::take(&mut self.retired_order);
        *self = State {
            log_size,
            api_password_cap: cap,
            retired,
            retired_order,
            ..State::default()
        };
        for (pw, app_id) in live {
            self.retire(
                pw,
                &app_id,
                "a reset forgot it (POST /_sandbox/reset)".to_string(),
            );
        }
    }

    /// `standard` or `alternate`.
    pub fn set_dialect(&mut self, app_id: &str, dialect: &str) -> Result<(), String> {
        if dialect != "standard" && dialect != "alternate" {
            return Err(format!("unknown dialect {dialect:?} (standard, alternate)"));
        }
        let p = self
            .programs
            .get_mut(app_id)
            .ok_or_else(|| format!("unknown program {app_id:?}"))?;
        p.dialect = dialect.to_string();
        Ok(())
    }

    /// Deletes a card and ends its sessions.
    pub fn delete_card(&mut self, app_id: &str, card: &str) -> Result<(), String> {
        self.cards
            .remove(&key(app_id, card))
            .ok_or_else(|| format!("unknown card {card:?} of program {app_id:?}"))?;
        self.sessions
            .retain(|_, s| !(s.app_id == app_id && s.kind == SessionKind::Card(card.to_string())));
        Ok(())
    }

    /// Adds days or hours to an account, from its expiry or from now when it has expired
    /// (as a recharge card would).
    pub fn recharge_account(
        &mut self,
        app_id: &str,
        username: &str,
        days: u32,
        hours: u32,
    ) -> Result<String, String> {
        if days == 0 && hours == 0 {
            return Err("days or hours is required".to_string());
        }
        let now = self.now();
        let a = self
            .accounts
            .get_mut(&key(app_id, username))
            .ok_or_else(|| format!("unknown account {username:?} of program {app_id:?}"))?;
        let from = if a.expired(now) { now } else { a.expire_at };
        let add = duration_secs(days, false).saturating_add(duration_secs(hours, true));
        a.set_expiry(from.saturating_add(add));
        Ok(time::format(a.expire_at))
    }

    /// Refuses a pending social sign-in: a login's next poll answers 1016, a registration
    /// is dropped (no account is created).
    pub fn deny_social(&mut self, state: &str) -> Result<(), String> {
        let pending = self
            .socials
            .get_mut(state)
            .ok_or_else(|| format!("unknown social state {state:?}"))?;
        match pending.kind {
            SocialKind::Login { .. } => {
                pending.authorized = Some((String::new(), String::new()));
            }
            SocialKind::Register { .. } => {
                self.socials.remove(state);
            }
        }
        Ok(())
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

/// The state file writer: a background thread that saves after every change, atomically.
#[derive(Debug)]
pub struct Persist {
    pub path: std::path::PathBuf,
    pub dirty: Mutex<(bool, bool)>,
    pub wake: Condvar,
}

impl Persist {
    /// Writes `bytes` to `path` atomically: a temporary file in the same folder, fsync,
    /// rename, fsync of the folder.
    pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "state".to_string());
        // One temporary file per write: two writers (the background saver and
        // `Sandbox::save_state`) never share one.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.tmp{}-{write}", std::process::id()));
        let result = (|| {
            // The state holds app keys, passwords and tokens: readable by its owner only.
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let mut f = options.open(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            drop(f);
            std::fs::rename(&tmp, path)?;
            if let Ok(d) = std::fs::File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_secrets_have_their_shapes() {
        let pw = gen_api_password();
        assert_eq!(pw.len(), 32);
        assert!(pw.chars().all(|c| c.is_ascii_alphanumeric()));
        let t = gen_token();
        assert_eq!(t.len(), 40);
        assert!(t
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()));
        let k = gen_card_key();
        assert_eq!(k.len(), 19);
        assert_eq!(k.split('-').count(), 4);
    }

    #[test]
    fn load_is_all_or_nothing() {
        let mut st = State::default();
        let f = Fixtures::from_json(
            r#"{"programs":[{"app_id":"1","app_key":"K"}],
                "cards":[{"app_id":"1","card":"A","kind":"weird"}]}"#,
        )
        .unwrap();
        assert!(st.load(f).is_err());
        assert!(st.programs.is_empty());
    }

    #[test]
    fn user_ids_are_assigned_and_kept_on_replace() {
        let mut st = State::default();
        let a = Account {
            app_id: "1".into(),
            username: "u".into(),
            ..Account::default()
        };
        let id = st.add_account(a.clone()).unwrap();
        assert_eq!(st.add_account(a).unwrap(), id);
        let b = Account {
            app_id: "1".into(),
            username: "v".into(),
            ..Account::default()
        };
        assert_eq!(st.add_account(b).unwrap(), id + 1);
    }
}
