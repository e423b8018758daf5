//! Shared support of the integration tests: one sandbox per test binary, and a fresh
//! program (with its own cards and accounts) per test, so that tests run in parallel.
#![allow(dead_code)]

pub mod cancel;
pub mod events;
pub mod host;
pub mod net;
pub mod nginx;
pub mod secrets;
pub mod tls;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use verify_core::Client;
use verify_sandbox::{Config, Fixtures, Sandbox};

/// The AppKey of every test program (32 uppercase letters and digits, as the spec says).
pub const APP_KEY: &str = "TESTKEY0123456789ABCDEFGHIJKLMNO";

/// The sandbox of this test binary, started on first use.
pub fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| Sandbox::start(Config::default()).expect("sandbox starts"))
}

/// A sandbox of its own that saves its state (the secrets it issued among it) to a file in a
/// new temporary folder named after `prefix` (the file's parent, for the test to remove);
/// the sandbox and the file's path.
pub fn sandbox_saving_state(prefix: &str) -> (Sandbox, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(unique(prefix));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let state = dir.join("state.json");
    let sandbox = Sandbox::start(Config {
        state_file: Some(state.clone()),
        ..Config::default()
    })
    .expect("sandbox");
    (sandbox, state)
}

/// A name unique in this process: `prefix` + process id + counter.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!(
        "{prefix}{}x{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A test program on a sandbox.
pub struct Program<'a> {
    pub sandbox: &'a Sandbox,
    pub app_id: String,
}

impl<'a> Program<'a> {
    /// A new approved program on `sandbox`; `settings` are extra program fields
    /// (`max_rebinds`, `blacklist`, ...).
    pub fn new(sandbox: &'a Sandbox, settings: Value) -> Program<'a> {
        let app_id = unique("app");
        let mut program = json!({
            "app_id": app_id,
            "app_key": APP_KEY,
            "status": "approved",
            "bulletin": "公告 bulletin",
            "version": {"version": "2.1.0", "changelog": "fixes", "download_url": "https://example.invalid/d", "force_update": false},
            "variables": {"greeting": "你好 & welcome", "limit": "5"}
        });
        if let (Some(base), Some(extra)) = (program.as_object_mut(), settings.as_object()) {
            for (key, value) in extra {
                base.insert(key.clone(), value.clone());
            }
        }
        sandbox
            .load(Fixtures::from_value(json!({ "programs": [program] })).expect("fixtures"))
            .expect("program loads");
        Program { sandbox, app_id }
    }

    /// A new program on this binary's sandbox.
    pub fn fresh() -> Program<'static> {
        Program::new(sandbox(), json!({}))
    }

    /// A client of this program.
    pub fn client(&self) -> Client {
        Client::new(&self.sandbox.base_url(), &self.app_id, APP_KEY).expect("client")
    }

    /// Adds cards (fixture objects without `app_id`).
    pub fn cards(&self, cards: Value) {
        self.load("cards", cards);
    }

    /// Adds accounts (fixture objects without `app_id`).
    pub fn accounts(&self, accounts: Value) {
        self.load("accounts", accounts);
    }

    /// A 30-day duration card, returned by key.
    pub fn day_card(&self, key: &str, days: i64) -> String {
        self.cards(
            json!([{"card": key, "type_name": "月卡", "kind": "duration",
            "duration": days, "duration_type": "day"}]),
        );
        key.to_owned()
    }

    /// A count card with `total` uses.
    pub fn count_card(&self, key: &str, total: i64) -> String {
        self.cards(
            json!([{"card": key, "type_name": "次卡", "kind": "count", "total": total, "used": 0}]),
        );
        key.to_owned()
    }

    /// An active account (expiring in 2099) with `password`.
    pub fn account(&self, username: &str, password: &str) {
        self.accounts(json!([{"username": username, "password": password,
            "expire_at": "2099-01-01 00:00:00", "status": "active"}]));
    }

    fn load(&self, list: &str, mut items: Value) {
        for item in items.as_array_mut().expect("a list") {
            item["app_id"] = json!(self.app_id);
        }
        self.sandbox
            .load(Fixtures::from_value(json!({ list: items })).expect("fixtures"))
            .expect("fixtures load");
    }

    /// Distinct TCP connections that carried this program's requests.
    pub fn connections_used(&self) -> usize {
        let mut conns: Vec<u64> = self
            .sandbox
            .request_log(Some(&self.app_id))
            .iter()
            .map(|entry| entry.conn)
            .collect();
        conns.sort_unstable();
        conns.dedup();
        conns.len()
    }
}

/// Polls `condition` until it holds or `limit` passes; returns whether it held.
pub fn eventually(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
