//! The back office: the operations of the control API and of the `Sandbox` methods (one
//! function for both): fixtures, programs, cards, accounts, machine codes, messages, social
//! sign-ins, the clock and faults.

use super::faults::Fault;
use super::records::{
    duration_secs, AccountRec, Activation, CardRec, CardState, SessionKind, SocialKind,
};
use super::state::{key, State};
use crate::fixtures::{Account, Card, Fixtures, Program};
use crate::time;

const PROGRAM_STATUSES: [&str; 4] = ["approved", "pending", "rejected", "expired"];

impl State {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
