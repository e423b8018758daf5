//! The state file: what it holds (`Saved`: everything but the request log, the faults and
//! the statistics of connections), the state saved to it and restored from it, and how it
//! is written (atomically, readable by its owner only).

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};

use serde::{Deserialize, Serialize};

use super::records::{AccountRec, CardRec, Session, SocialPending, VerificationStats};
use super::state::{key, State};
use crate::fixtures::Program;

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
