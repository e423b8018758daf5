//! Everything the sandbox remembers, behind one mutex (`shared.rs`): programs, cards,
//! accounts, session secrets, tokens, pending social sign-ins, the clock offset, the request
//! log, statistics and faults; the clock, the session secrets and the helpers the actions
//! use. The back office, the views and the state file work on it in files of their own.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::faults::Faults;
use super::keys::gen_token;
use super::records::{AccountRec, CardRec, LogEntry, Session, SocialPending, VerificationStats};
use crate::fixtures::Program;
use crate::inspect::{Detail, Known, Retired};
use crate::time;

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

pub(super) fn key(app_id: &str, k: &str) -> (String, String) {
    (app_id.to_string(), k.to_string())
}

impl State {
    /// What the inspector's diagnoses read of the state.
    pub fn known(&self) -> Known<'_> {
        Known {
            clock_offset: self.clock_offset,
            programs: &self.programs,
            api_passwords: &self.api_passwords,
            api_password_order: &self.api_password_order,
            retired: &self.retired,
        }
    }

    pub fn now(&self) -> i64 {
        time::system_now().saturating_add(self.clock_offset)
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
}

/// Helpers for the actions.
impl State {
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
