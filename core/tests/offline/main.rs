//! Offline-first against the sandbox: a start with the server stopped is licensed from the
//! stored verdict; every refusal clears it and gives none; a store from another machine, or
//! changed, or cut, does not open; the clock moved back, the grace run out and an expiry
//! passed offline are refused with their codes; a start budget answers in time from the
//! store while the login goes on in the background, which the keeper follows to ONLINE or
//! ENDED; a card banned while offline ends the session on reconnect; each card and account
//! keeps a verdict of its own, a bounded number per mode.
//!
//! Each test has a sandbox of its own, paused as a server outage (`Sandbox::pause`) and
//! resumed; the sandbox clock moves instead of sleeping.

#[path = "../../../tests/common/mod.rs"]
mod common;

mod clock;
mod identities;
mod keepers;
mod outages;
mod password;
mod pieces;
mod refusals;
mod stores;

use stores::*;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use common::events::{fast, first, recorder};
use common::net::BlackHole;
use common::{eventually, unique, APP_KEY};
use serde_json::json;
use verify_core::{codes, Client, ErrorKind, EventKind, Keeper, KeeperState, Options, StateFolder};
use verify_sandbox::{Config, Fault, FaultKind, Fixtures, Sandbox};

const PATIENCE: Duration = Duration::from_secs(20);
const DAY: u64 = 24 * 3600;

/// A sandbox of its own with a program, its state folder, and a log of the client.
struct Lab {
    sandbox: Sandbox,
    app_id: String,
    folder: PathBuf,
    /// The time mark's second place (never the user's configuration folder).
    mark_folder: PathBuf,
    log: Arc<Mutex<Vec<String>>>,
}

impl Lab {
    fn new() -> Lab {
        let sandbox = Sandbox::start(Config::default()).expect("sandbox");
        let app_id = unique("off");
        sandbox
            .load(
                Fixtures::from_value(json!({
                    "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}],
                }))
                .expect("fixtures"),
            )
            .expect("load");
        let folder = std::env::temp_dir().join(format!("verify-offline-{app_id}"));
        let _ = std::fs::remove_dir_all(&folder);
        let mark_folder = std::env::temp_dir().join(format!("verify-mark-{app_id}"));
        let _ = std::fs::remove_dir_all(&mark_folder);
        Lab {
            sandbox,
            app_id,
            folder,
            mark_folder,
            log: Arc::default(),
        }
    }

    fn card(&self, days: u32) -> String {
        let card = format!("OFFL-{}", &unique("")[..]).replace('x', "-");
        self.sandbox
            .load(
                Fixtures::from_value(json!({"cards": [{"app_id": self.app_id, "card": card,
                    "kind": "duration", "duration": days}]}))
                .expect("card"),
            )
            .expect("load");
        card
    }

    fn account(&self, user: &str) {
        self.sandbox
            .load(
                Fixtures::from_value(json!({"accounts": [{"app_id": self.app_id,
                    "username": user, "password": "pw", "expire_at": "2099-01-01 00:00:00",
                    "status": "active"}]}))
                .expect("account"),
            )
            .expect("load");
    }

    /// Options with offline verdicts on (a grace of 7 days), and the log recorded.
    fn options(&self) -> Options {
        let log = Arc::clone(&self.log);
        Options {
            state_folder: Some(StateFolder::Path(self.folder.clone())),
            clock_mark_folder: Some(self.mark_folder.clone()),
            offline_grace: Some(Duration::from_secs(7 * DAY)),
            connect_timeout: Duration::from_secs(2),
            call_timeout: Duration::from_secs(5),
            log: Some(Arc::new(move |_, line: &str| {
                log.lock().expect("log").push(line.to_owned());
            })),
            ..Options::default()
        }
    }

    fn client(&self) -> Client {
        self.client_with(self.options())
    }

    fn client_with(&self, options: Options) -> Client {
        Client::with_options(&self.sandbox.base_url(), &self.app_id, APP_KEY, options)
            .expect("client")
    }

    fn logged(&self, what: &str) -> bool {
        self.log
            .lock()
            .expect("log")
            .iter()
            .any(|l| l.contains(what))
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
        let _ = std::fs::remove_dir_all(&self.mark_folder);
    }
}

fn near(time: SystemTime, expected: SystemTime, slack: Duration) -> bool {
    match time.duration_since(expected) {
        Ok(after) => after <= slack,
        Err(before) => before.duration() <= slack,
    }
}

/// Eight processes of one program storing verdicts in one folder at once: every offline
/// start meanwhile answers from a whole store, and no temporary file is left. The test
/// runs itself as the eight writers (`VERIFY_OFFLINE_WRITER` set).
#[test]
fn eight_processes_writing_at_once() {
    if let Ok(spec) = std::env::var("VERIFY_OFFLINE_WRITER") {
        let parts: Vec<&str> = spec.split('\n').collect();
        let [base_url, app_id, card, folder, mark_folder] = parts[..] else {
            panic!("writer spec {spec:?}");
        };
        let options = Options {
            state_folder: Some(StateFolder::Path(folder.into())),
            clock_mark_folder: Some(mark_folder.into()),
            offline_grace: Some(Duration::from_secs(7 * DAY)),
            ..Options::default()
        };
        for _ in 0..10 {
            Client::with_options(base_url, app_id, APP_KEY, options.clone())
                .expect("client")
                .single_login(card, "M", None)
                .expect("online login");
        }
        return;
    }
    let lab = Lab::new();
    let card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", listener.local_addr().expect("addr"))
    };
    let spec = [
        lab.sandbox.base_url(),
        lab.app_id.clone(),
        card.clone(),
        lab.folder.display().to_string(),
        lab.mark_folder.display().to_string(),
    ]
    .join("\n");
    let exe = std::env::current_exe().expect("the test binary");
    let mut writers: Vec<_> = (0..8)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "eight_processes_writing_at_once",
                    "--test-threads=1",
                ])
                .env("VERIFY_OFFLINE_WRITER", &spec)
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("a writer")
        })
        .collect();
    let mut starts = 0;
    while writers
        .iter_mut()
        .any(|w| w.try_wait().expect("wait").is_none())
    {
        let offline = Client::with_options(&closed, &lab.app_id, APP_KEY, lab.options())
            .expect("client")
            .single_login(&card, "M", None)
            .expect("a whole store answers");
        assert_eq!(offline.reply().code(), codes::OFFLINE);
        starts += 1;
    }
    for mut writer in writers {
        assert!(writer.wait().expect("wait").success(), "a writer failed");
    }
    assert!(starts > 0);
    assert!(!lab.logged("does not open"), "a torn store was read");
    let left: Vec<String> = files(&lab.folder)
        .into_keys()
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
