//! Offline-first against the sandbox: a start with the server stopped is licensed from the
//! stored verdict; every refusal clears it and gives none; a store from another machine, or
//! changed, or cut, does not open; the clock moved back, the grace run out and an expiry
//! passed offline are refused with their codes; a start budget answers in time from the
//! store while the login goes on in the background, which the keeper follows to ONLINE or
//! ENDED; a card banned while offline ends the session on reconnect.
//!
//! Each test has a sandbox of its own, paused as a server outage (`Sandbox::pause`) and
//! resumed; the sandbox clock moves instead of sleeping.

#[path = "../../tests/common/mod.rs"]
mod common;

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

#[test]
fn a_start_with_the_server_stopped_is_licensed_offline() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.account("olga");
    let online = lab
        .client()
        .single_login(&card, "MAC-1", None)
        .expect("online login");
    assert_eq!(online.reply().code(), codes::OK);
    assert!(online.reply().offline().is_none());
    lab.client()
        .user_login("olga", "pw", Some("MAC-1"))
        .expect("account login");
    // The store holds no secret in clear.
    for entry in std::fs::read_dir(&lab.folder).expect("the folder") {
        let bytes = std::fs::read(entry.expect("entry").path()).expect("read");
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(&card) && !text.contains("olga") && !text.contains("MAC-1"));
    }

    lab.sandbox.pause();
    // One verdict per mode: the account's answers the account.
    let started = Instant::now();
    let offline = lab
        .client()
        .user_login("olga", "pw", Some("MAC-1"))
        .expect("licensed offline");
    let took = started.elapsed();
    let reply = offline.reply();
    assert_eq!(reply.code(), codes::OFFLINE);
    let info = reply.offline().expect("an offline verdict");
    assert_eq!(info.reason_code, codes::ERR_NETWORK, "{}", info.reason);
    assert!(
        reply.message().contains("could not be reached"),
        "{}",
        reply.message()
    );
    assert_eq!(offline.expire_at(), Some("2099-01-01 00:00:00"));
    assert_eq!(offline.token(), None, "no token offline");
    assert!(near(
        info.confirmed_at,
        SystemTime::now(),
        Duration::from_secs(60)
    ));
    assert!(near(
        info.grace_end,
        info.confirmed_at + Duration::from_secs(7 * DAY),
        Duration::from_secs(1)
    ));
    assert!(took < Duration::from_millis(500), "{took:?}");
    assert!(lab.logged("licensed offline"));

    // Another identity, another machine, or a host that never opted in: the failure as it is.
    let err = lab
        .client()
        .user_login("someone", "pw", Some("MAC-1"))
        .expect_err("no verdict for another identity");
    assert_eq!(err.kind(), ErrorKind::Network);
    let err = lab
        .client()
        .user_login("olga", "pw", Some("MAC-2"))
        .expect_err("no verdict for another machine");
    assert_eq!(err.kind(), ErrorKind::Network);
    let plain = Client::new(&lab.sandbox.base_url(), &lab.app_id, APP_KEY).expect("client");
    let err = plain
        .user_login("olga", "pw", Some("MAC-1"))
        .expect_err("no opt-in, no change");
    assert_eq!(err.kind(), ErrorKind::Network);

    // The card's verdict, stored by a login while online, answers the card.
    lab.sandbox.resume().expect("resume");
    lab.client()
        .single_login(&card, "MAC-1", None)
        .expect("online again");
    lab.sandbox.pause();
    let offline = lab
        .client()
        .single_login(&card, "MAC-1", None)
        .expect("licensed offline");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    assert!(offline.expire_at().is_some());
}

/// A login refused by the server after a good one: never an offline verdict, and the
/// stored one is cleared (a later start with the server stopped is not licensed).
fn refusal_clears(
    lab: &mut Lab,
    name: &str,
    login: &dyn Fn(&Client) -> Result<(), verify_core::Error>,
    refuse: &dyn Fn(&Lab),
    expected: i32,
) {
    login(&lab.client()).unwrap_or_else(|e| panic!("{name}: the first login: {e}"));
    refuse(lab);
    let err = login(&lab.client()).expect_err(name);
    assert_eq!(err.code(), expected, "{name}: {err}");
    lab.sandbox.pause();
    let err = login(&lab.client()).expect_err(name);
    assert_eq!(
        err.kind(),
        ErrorKind::Network,
        "{name}: no offline verdict: {err}"
    );
    lab.sandbox.resume().expect("resume");
}

#[test]
fn a_refusal_never_gives_an_offline_verdict_and_clears_the_stored_one() {
    let mut lab = Lab::new();
    let app = lab.app_id.clone();

    let card = lab.card(30);
    let with = |card: String, mac: &'static str| {
        move |client: &Client| client.single_login(&card, mac, None).map(|_| ())
    };
    refusal_clears(
        &mut lab,
        "1006 disabled card",
        &with(card.clone(), "M"),
        &|lab| {
            lab.sandbox
                .update_card(&app, &card, "disable", Some("chargeback"))
                .expect("disable");
        },
        codes::DISABLED,
    );
    let card = lab.card(30);
    refusal_clears(
        &mut lab,
        "1004 refunded card",
        &with(card.clone(), "M"),
        &|lab| {
            lab.sandbox
                .update_card(&app, &card, "refund", None)
                .expect("refund");
        },
        codes::CARD_INVALID,
    );
    let card = lab.card(1);
    refusal_clears(
        &mut lab,
        "1005 expired card",
        &with(card.clone(), "M"),
        &|lab| lab.sandbox.shift_clock(2 * DAY as i64),
        codes::EXPIRED,
    );
    lab.sandbox.set_clock_offset(0);
    let card = lab.card(30);
    refusal_clears(
        &mut lab,
        "1023 blacklisted machine",
        &with(card, "BLACK-MAC"),
        &|lab| {
            lab.sandbox
                .load(
                    Fixtures::from_value(json!({"programs": [{"app_id": app, "app_key": APP_KEY,
                        "status": "approved",
                        "blacklist": {"enabled": true, "ips": [], "macs": ["BLACK-MAC"]}}]}))
                    .expect("program"),
                )
                .expect("load");
        },
        codes::BLACKLISTED,
    );
    // An account bound to UM-1 logs in from UM-2: 1022, which clears the stored UM-1
    // verdict too (a refusal clears whatever is stored).
    lab.account("ulla");
    lab.client()
        .user_login("ulla", "pw", Some("UM-1"))
        .expect("binds UM-1");
    let err = lab
        .client()
        .user_login("ulla", "pw", Some("UM-2"))
        .expect_err("another machine");
    assert_eq!(err.code(), codes::MACHINE_CHANGED);
    lab.sandbox.pause();
    let err = lab
        .client()
        .user_login("ulla", "pw", Some("UM-1"))
        .expect_err("cleared");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
    lab.sandbox.resume().expect("resume");
}

#[test]
fn a_store_from_another_machine_or_changed_or_cut_does_not_open() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online login");
    lab.sandbox.pause();
    let file = std::fs::read_dir(&lab.folder)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("verdict"))
        .expect("the verdict file");
    let good = std::fs::read(&file).expect("read");

    // Copied to a machine with another identity.
    let mut elsewhere = lab.options();
    elsewhere.machine_identity = Some("another machine".into());
    let err = lab
        .client_with(elsewhere)
        .single_login(&card, "M", None)
        .expect_err("sealed for another machine");
    assert_eq!(err.kind(), ErrorKind::Network);
    assert!(lab.logged("sealed on another machine"));

    // One byte flipped, anywhere; or cut short.
    for at in [0, 5, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&file, &bad).expect("write");
        let err = lab
            .client()
            .single_login(&card, "M", None)
            .expect_err("changed");
        assert_eq!(err.kind(), ErrorKind::Network, "byte {at}");
    }
    for len in [0, 10, good.len() - 1] {
        std::fs::write(&file, &good[..len]).expect("write");
        lab.client()
            .single_login(&card, "M", None)
            .expect_err("cut short");
    }
    assert!(lab.logged("it is damaged"));
    // The good file still answers.
    std::fs::write(&file, &good).expect("write");
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("the good store");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
}

#[test]
fn the_clock_moved_back_the_grace_run_out_and_an_expiry_passed_are_refused() {
    // The server's clock two hours ahead: the local clock is two hours behind the latest
    // server time seen when offline.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.sandbox.shift_clock(2 * 3600);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online (the clock learned from 1014)");
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("clock back");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    assert!(err.message().contains("moved back"), "{err}");
    assert!(
        err.message().contains("could not be reached"),
        "the network's reason: {err}"
    );
    let mut tolerant = lab.options();
    tolerant.clock_tolerance = Duration::from_secs(3 * 3600);
    let offline = lab
        .client_with(tolerant)
        .single_login(&card, "M", None)
        .expect("within a tolerance of 3 h");
    assert_eq!(offline.reply().code(), codes::OFFLINE);

    // Confirmed two hours ago (the server's clock behind): a grace of 1 h has run out.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.sandbox.shift_clock(-2 * 3600);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let mut short = lab.options();
    short.offline_grace = Some(Duration::from_secs(3600));
    let err = lab
        .client_with(short)
        .single_login(&card, "M", None)
        .expect_err("grace over");
    assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("within 7 days");
    assert!(near(
        offline.reply().offline().expect("offline").confirmed_at,
        SystemTime::now() - Duration::from_secs(2 * 3600),
        Duration::from_secs(120)
    ));

    // A one-day card activated two days ago (by the server's clock): expired offline.
    let mut lab = Lab::new();
    let card = lab.card(1);
    lab.sandbox.shift_clock(-2 * DAY as i64);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("expired");
    assert_eq!(err.kind(), ErrorKind::OfflineExpired, "{err}");
}

#[test]
fn a_start_budget_answers_from_the_store_and_the_keeper_follows_the_login() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    let mut budgeted = lab.options();
    budgeted.start_budget = Some(Duration::from_millis(300));
    // Nothing stored yet: the budget does not apply; the server's answer is awaited.
    lab.client_with(budgeted.clone())
        .single_login(&card, "M", None)
        .expect("online");

    // A black-holed server: the verdict comes from the store in about 300 ms.
    let hole = BlackHole::at("127.0.0.1:0");
    let client =
        Client::with_options(&hole.url(), &lab.app_id, APP_KEY, budgeted.clone()).expect("client");
    let started = Instant::now();
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    let took = started.elapsed();
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    assert!(
        took >= Duration::from_millis(290) && took < Duration::from_millis(600),
        "{took:?}"
    );
    let info = offline.reply().offline().expect("offline");
    assert_eq!(info.reason_code, codes::ERR_TIMEOUT);
    // Dropping the client stops the login still going on in the background at once.
    let stopping = Instant::now();
    drop(client);
    assert!(
        stopping.elapsed() < Duration::from_secs(1),
        "{:?}",
        stopping.elapsed()
    );

    // A slow server that answers after the budget: the keeper reports it confirmed online.
    lab.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(lab.app_id.clone()),
        action: Some("SingleLogin".into()),
        count: Some(1),
        delay_ms: 1500,
    });
    let client = Arc::new(lab.client_with(budgeted.clone()));
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let (events, callback) = recorder();
    let keeper = Keeper::start_from(Arc::clone(&client), offline.reply(), fast(), Some(callback))
        .expect("keeper");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Online).is_some()));
    assert!(eventually(PATIENCE, || first(&events, EventKind::Alive).is_some()));
    assert_eq!(keeper.status().state, KeeperState::Alive);
    assert!(first(&events, EventKind::Ended).is_none());
    drop(keeper);

    // The same, banned meanwhile: the store answers within the budget, then the keeper
    // reports the end with the reason, and the stored verdict is cleared.
    lab.sandbox
        .update_card(&lab.app_id, &card, "disable", Some("refunded by the bank"))
        .expect("disable");
    lab.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(lab.app_id.clone()),
        action: Some("SingleLogin".into()),
        count: Some(1),
        delay_ms: 1500,
    });
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let (events, callback) = recorder();
    let _keeper = Keeper::start_from(Arc::clone(&client), offline.reply(), fast(), Some(callback))
        .expect("keeper");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Ended).is_some()));
    let ended = first(&events, EventKind::Ended).expect("ended");
    assert_eq!(ended.code, codes::DISABLED);
    assert_eq!(ended.remark.as_deref(), Some("refunded by the bank"));
    assert!(first(&events, EventKind::Online).is_none());
    lab.sandbox.pause();
    let err = lab
        .client_with(budgeted)
        .single_login(&card, "M", None)
        .expect_err("cleared");
    assert_eq!(err.kind(), ErrorKind::Network);
}

#[test]
fn a_card_banned_while_offline_ends_the_session_on_reconnect() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let client = Arc::new(lab.client());
    let offline = client.single_login(&card, "M", None).expect("offline");
    let (events, callback) = recorder();
    let keeper = Keeper::start_from(Arc::clone(&client), offline.reply(), fast(), Some(callback))
        .expect("keeper");
    let started = first(&events, EventKind::Offline);
    assert!(
        eventually(PATIENCE, || first(&events, EventKind::Offline).is_some()),
        "{started:?}"
    );
    let status = keeper.status();
    assert_eq!(status.state, KeeperState::Grace);
    assert!(status.grace_end.is_some() && status.last_confirmed.is_some());
    // Offline for a while: the keeper retries the login and reports trouble.
    assert!(eventually(PATIENCE, || first(&events, EventKind::Trouble).is_some()));
    lab.sandbox
        .update_card(&lab.app_id, &card, "disable", Some("banned while offline"))
        .expect("disable");
    lab.sandbox.resume().expect("back online");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Ended).is_some()));
    let ended = first(&events, EventKind::Ended).expect("ended");
    assert_eq!(
        (ended.code, ended.remark.as_deref()),
        (codes::DISABLED, Some("banned while offline"))
    );
    assert!(first(&events, EventKind::Online).is_none());
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("the store was cleared");
    assert_eq!(err.kind(), ErrorKind::Network);
}

#[test]
fn a_kept_session_goes_offline_and_online_with_the_grace_of_the_store() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    let client = Arc::new(lab.client());
    let login = client.single_login(&card, "M", None).expect("online");
    let (events, callback) = recorder();
    let keeper = Keeper::start_from(Arc::clone(&client), login.reply(), fast(), Some(callback))
        .expect("keeper");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Alive).is_some()));
    let confirmed = keeper.status().last_confirmed.expect("confirmed");
    lab.sandbox.pause();
    assert!(eventually(PATIENCE, || first(&events, EventKind::Offline).is_some()));
    let offline = first(&events, EventKind::Offline).expect("offline");
    let grace_end = offline.grace_end.expect("grace end");
    // The grace is the store's: 7 days from the last confirmation, not 15 minutes.
    assert!(near(
        grace_end,
        confirmed + Duration::from_secs(7 * DAY),
        Duration::from_secs(120)
    ));
    assert_eq!(keeper.status().state, KeeperState::Grace);
    lab.sandbox.resume().expect("back");
    assert!(eventually(PATIENCE, || first(&events, EventKind::Online).is_some()));
    assert!(eventually(PATIENCE, || keeper.status().state == KeeperState::Alive));
    assert!(first(&events, EventKind::Ended).is_none());
}

/// Every outage is an outage: a reverse proxy's 502/503/504, a CDN's 522, a captive
/// portal's page, a reply that is not JSON or is cut short, whether it stands in for Init or
/// for the login, gives the offline verdict (202) with the reason readable; a host that never
/// turned offline verdicts on sees the protocol error (-6) as before.
#[test]
fn an_error_page_or_a_captive_portal_is_an_outage() {
    let lab = Lab::new();
    let card = lab.card(30);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online login");
    let plain = || Client::new(&lab.sandbox.base_url(), &lab.app_id, APP_KEY).expect("client");
    let cases = [
        (FaultKind::Http502, "HTTP 502"),
        (FaultKind::Http503, "HTTP 503"),
        (FaultKind::Http504, "HTTP 504"),
        (FaultKind::Http522, "HTTP 522"),
        (FaultKind::CaptivePortal, "HTML"),
        (FaultKind::NonJson, "not JSON"),
        (FaultKind::TruncatedJson, "not JSON"),
    ];
    for (kind, reason) in cases {
        for action in [None, Some("SingleLogin")] {
            let name = format!("{} on {}", kind.name(), action.unwrap_or("every request"));
            lab.sandbox.set_fault(Fault {
                kind,
                app_id: Some(lab.app_id.clone()),
                action: action.map(str::to_owned),
                count: None,
                delay_ms: 0,
            });
            let offline = lab
                .client()
                .single_login(&card, "M", None)
                .unwrap_or_else(|e| panic!("{name}: not licensed offline: {e}"));
            assert_eq!(offline.reply().code(), codes::OFFLINE, "{name}");
            let info = offline.reply().offline().expect("an offline verdict");
            assert_eq!(info.reason_code, codes::ERR_PROTOCOL, "{name}");
            assert!(info.reason.contains(reason), "{name}: {}", info.reason);
            // Without offline verdicts, nothing changes: the protocol error.
            let err = plain()
                .single_login(&card, "M", None)
                .expect_err("no opt-in");
            assert_eq!(err.kind(), ErrorKind::Protocol, "{name}: {err}");
            lab.sandbox.clear_faults(Some(&lab.app_id));
        }
    }
    // The service's own refusal (a JSON reply with a code) is never an outage: no 202, and
    // the stored verdict is cleared.
    lab.sandbox
        .update_card(&lab.app_id, &card, "refund", None)
        .expect("refund");
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("refused");
    assert_eq!(err.code(), codes::CARD_INVALID);
    lab.sandbox.set_fault(Fault {
        kind: FaultKind::Http502,
        app_id: Some(lab.app_id.clone()),
        action: None,
        count: None,
        delay_ms: 0,
    });
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("the store was cleared");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err}");
}

/// A refusal clears the verdict of the identity it concerns: a card mistyped once (1004)
/// leaves the good card's verdict; an account's wrong password leaves another account's;
/// a refusal about the program (1012) clears every verdict of the program.
#[test]
fn a_refusal_clears_only_the_identity_it_concerns() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online login");
    let err = lab
        .client()
        .single_login("MISTYPED-CARD", "M", None)
        .expect_err("no such card");
    assert_eq!(err.code(), codes::CARD_INVALID);
    lab.sandbox.pause();
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("the good card still starts offline");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    lab.sandbox.resume().expect("resume");

    // The program is not approved any more: every verdict of the program goes.
    lab.account("petra");
    lab.client()
        .user_login("petra", "pw", Some("M"))
        .expect("account login");
    lab.sandbox
        .set_program_status(&lab.app_id, "pending")
        .expect("status");
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("not approved");
    assert_eq!(err.code(), codes::NOT_APPROVED, "{err}");
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("the card's verdict is cleared");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
    let err = lab
        .client()
        .user_login("petra", "pw", Some("M"))
        .expect_err("the account's verdict is cleared");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
}

/// The password is checked offline: the store keeps a slow salted hash of the account's
/// password (never the password); a wrong password offline gets its own code, after a slow
/// check (20 ms at least); a password changed online (UpdatePwd) is the one checked from
/// then on; a wrong password online (1003) clears the account's verdict.
#[test]
fn the_password_is_checked_offline() {
    let mut lab = Lab::new();
    lab.account("wanda");
    lab.client()
        .user_login("wanda", "pw", Some("M"))
        .expect("online login");
    for entry in std::fs::read_dir(&lab.folder).expect("the folder") {
        let bytes = std::fs::read(entry.expect("entry").path()).expect("read");
        assert!(!bytes.windows(2).any(|w| w == b"pw"));
    }
    lab.sandbox.pause();
    for wrong in ["p", "PW", "pw ", "anything"] {
        let started = Instant::now();
        let err = lab
            .client()
            .user_login("wanda", wrong, Some("M"))
            .expect_err("a wrong password offline");
        let took = started.elapsed();
        assert_eq!(err.kind(), ErrorKind::OfflinePassword, "{wrong:?}: {err}");
        assert_eq!(err.code(), codes::ERR_OFFLINE_PASSWORD);
        assert!(err.message().contains("password"), "{err}");
        assert!(took >= Duration::from_millis(20), "a guess took {took:?}");
    }
    let offline = lab
        .client()
        .user_login("wanda", "pw", Some("M"))
        .expect("the right password");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    lab.sandbox.resume().expect("resume");

    // The password changed online: the new one opens, the old one does not.
    lab.client()
        .update_password("wanda", "pw", "pw2")
        .expect("password changed");
    lab.sandbox.pause();
    let err = lab
        .client()
        .user_login("wanda", "pw", Some("M"))
        .expect_err("the old password");
    assert_eq!(err.kind(), ErrorKind::OfflinePassword, "{err}");
    let offline = lab
        .client()
        .user_login("wanda", "pw2", Some("M"))
        .expect("the new password");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    lab.sandbox.resume().expect("resume");

    // A wrong password online: the account's verdict is cleared.
    let err = lab
        .client()
        .user_login("wanda", "guess", Some("M"))
        .expect_err("1003");
    assert_eq!(err.code(), codes::WRONG_PASSWORD);
    lab.sandbox.pause();
    let err = lab
        .client()
        .user_login("wanda", "pw2", Some("M"))
        .expect_err("cleared");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
}

/// The files of a folder, by name.
fn files(folder: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").path())
                .filter(|p| p.is_file())
                .map(|p| {
                    let name = p.file_name().expect("name").to_string_lossy().into_owned();
                    (name, std::fs::read(&p).expect("read"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn put_back(folder: &std::path::Path, copy: &std::collections::BTreeMap<String, Vec<u8>>) {
    let _ = std::fs::remove_dir_all(folder);
    std::fs::create_dir_all(folder).expect("folder");
    for (name, bytes) in copy {
        std::fs::write(folder.join(name), bytes).expect("write");
    }
}

/// Time that cannot be wound back: the latest time seen is kept (in the state folder and in
/// a second place outside it), so that a clock set back after the grace ran out, or an older
/// copy of the state folder put back, is refused; a clock set ahead past the grace is the
/// grace over; a warm start writes nothing new.
#[test]
fn time_cannot_be_wound_back() {
    // Confirmed at T (the server's clock two hours behind), grace 1 h: grace over now; the
    // clock set back to T + 30 min is then refused as moved back.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.sandbox.shift_clock(-2 * 3600);
    let mut hour = lab.options();
    hour.offline_grace = Some(Duration::from_secs(3600));
    lab.client_with(hour.clone())
        .single_login(&card, "M", None)
        .expect("online");
    lab.sandbox.pause();
    let err = lab
        .client_with(hour.clone())
        .single_login(&card, "M", None)
        .expect_err("grace over");
    assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
    let mut back = hour.clone();
    back.clock_shift = -90 * 60;
    let err = lab
        .client_with(back)
        .single_login(&card, "M", None)
        .expect_err("the clock set back into the grace");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    assert!(err.message().contains("moved back"), "{err}");
    // A day back, and ahead past the grace.
    let mut day_back = lab.options();
    day_back.clock_shift = -(DAY as i64);
    let err = lab
        .client_with(day_back)
        .single_login(&card, "M", None)
        .expect_err("a day back");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    let mut ahead = lab.options();
    ahead.clock_shift = 8 * DAY as i64;
    let err = lab
        .client_with(ahead)
        .single_login(&card, "M", None)
        .expect_err("ahead past the grace");
    assert_eq!(err.kind(), ErrorKind::GraceOver, "{err}");
    // The clock once ahead by mistake costs offline starts only until the next online one:
    // the server's confirmation sets the mark to its time.
    lab.sandbox.resume().expect("resume");
    lab.sandbox.set_clock_offset(0);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("offline again");
    assert_eq!(offline.reply().code(), codes::OFFLINE);

    // A warm start writes nothing new: the mark moves by a minute or more, or stays.
    let before = (files(&lab.folder), files(&lab.mark_folder));
    assert!(!before.1.is_empty(), "the second place holds the mark");
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("offline again");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    assert!(
        before == (files(&lab.folder), files(&lab.mark_folder)),
        "a warm start wrote"
    );

    // An older copy of the state folder put back (the second place untouched): refused.
    let mut lab = Lab::new();
    let card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    let older = files(&lab.folder);
    lab.sandbox.shift_clock(DAY as i64);
    lab.client()
        .single_login(&card, "M", None)
        .expect("online a day later");
    lab.sandbox.pause();
    put_back(&lab.folder, &older);
    let err = lab
        .client()
        .single_login(&card, "M", None)
        .expect_err("the older copy put back");
    assert_eq!(err.kind(), ErrorKind::ClockBack, "{err}");
    // Both places put back: the older state answers (SECURITY.md says so).
    let _ = std::fs::remove_dir_all(&lab.mark_folder);
    put_back(&lab.folder, &older);
    let offline = lab
        .client()
        .single_login(&card, "M", None)
        .expect("both places rolled back");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
}

/// A black-holed server, no start budget: the stored verdict answers after one connect
/// timeout at most (the Init that timed out is not sent again); without a stored verdict
/// that may answer, the resend is kept.
#[test]
fn a_black_holed_server_costs_one_connect_timeout_at_most() {
    let lab = Lab::new();
    let card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    let hole = BlackHole::at("127.0.0.1:0");
    let mut options = lab.options();
    options.connect_timeout = Duration::from_secs(1);
    options.call_timeout = Duration::from_secs(10);
    let client =
        Client::with_options(&hole.url(), &lab.app_id, APP_KEY, options.clone()).expect("client");
    let started = Instant::now();
    let offline = client
        .single_login(&card, "M", None)
        .expect("from the store");
    let took = started.elapsed();
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    assert_eq!(
        offline.reply().offline().expect("offline").reason_code,
        codes::ERR_TIMEOUT
    );
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(1600),
        "{took:?}"
    );
    // Another card has no verdict here: its login is sent again as before.
    let client = Client::with_options(&hole.url(), &lab.app_id, APP_KEY, options).expect("client");
    let started = Instant::now();
    let err = client
        .single_login("NO-VERDICT-CARD", "M", None)
        .expect_err("no verdict");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(
        started.elapsed() >= Duration::from_millis(1900),
        "{:?}",
        started.elapsed()
    );
}

/// One login per offline verdict: two keepers started from the same offline verdict of a
/// count card confirm it with one login sent again (one use spent), and both go online
/// with it.
#[test]
fn two_keepers_from_one_offline_verdict_spend_one_use() {
    let mut lab = Lab::new();
    let card = "OFFL-COUN-T000-0001";
    lab.sandbox
        .load(
            Fixtures::from_value(json!({"cards": [{"app_id": lab.app_id, "card": card,
                "type_name": "count", "kind": "count", "total": 5, "used": 0}]}))
            .expect("card"),
        )
        .expect("load");
    let used = |lab: &Lab| lab.sandbox.card(&lab.app_id, card).expect("card")["used"].as_u64();
    lab.client().single_login(card, "M", None).expect("online");
    assert_eq!(used(&lab), Some(1));
    lab.sandbox.pause();
    let client = Arc::new(lab.client());
    let offline = client.single_login(card, "M", None).expect("offline");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let (first_events, first_callback) = recorder();
    let (second_events, second_callback) = recorder();
    let keepers = [
        Keeper::start_from(
            Arc::clone(&client),
            offline.reply(),
            fast(),
            Some(first_callback),
        )
        .expect("keeper"),
        Keeper::start_from(
            Arc::clone(&client),
            offline.reply(),
            fast(),
            Some(second_callback),
        )
        .expect("keeper"),
    ];
    assert!(eventually(PATIENCE, || first(
        &first_events,
        EventKind::Trouble
    )
    .is_some()));
    lab.sandbox.resume().expect("back online");
    for events in [&first_events, &second_events] {
        assert!(eventually(PATIENCE, || first(events, EventKind::Online).is_some()));
    }
    for keeper in &keepers {
        assert!(eventually(PATIENCE, || keeper.status().state == KeeperState::Alive));
    }
    assert_eq!(used(&lab), Some(2), "one use for the offline start");
    let logins = lab
        .sandbox
        .request_log(Some(&lab.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("SingleLogin") && entry.code == 200)
        .count();
    assert_eq!(
        logins, 2,
        "the first login and one to confirm the offline verdict"
    );
}

/// A store that cannot work says so: offline verdicts on with a state folder that is a
/// file, under `/proc`, 64 KiB long, or not writable, refuse the client at once with
/// `ERR_STATE_FOLDER` and a message naming the folder; without offline verdicts nothing
/// changes; a good folder holds nothing more after the check.
#[test]
fn an_unwritable_state_folder_refuses_the_client() {
    let lab = Lab::new();
    let scratch = std::env::temp_dir().join(format!("verify-unwritable-{}", lab.app_id));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let a_file = scratch.join("a-file");
    std::fs::write(&a_file, b"not a folder").expect("file");
    let mut bad = vec![
        a_file.clone(),
        a_file.join("below"),
        PathBuf::from("/proc/verify-offline-store"),
        scratch.join("x".repeat(64 * 1024)),
    ];
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = scratch.join("locked");
        std::fs::create_dir_all(&locked).expect("locked");
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).expect("chmod");
        // Root writes anyway: the row is checked where the permission holds.
        if std::fs::write(locked.join("try"), b"x").is_err() {
            bad.push(locked);
        }
    }
    for folder in bad {
        let mut options = lab.options();
        options.state_folder = Some(StateFolder::Path(folder.clone()));
        let err = Client::with_options(&lab.sandbox.base_url(), &lab.app_id, APP_KEY, options)
            .expect_err("an unwritable state folder");
        assert_eq!(
            err.code(),
            codes::ERR_STATE_FOLDER,
            "{}: {err}",
            folder.display()
        );
        assert_eq!(err.kind(), ErrorKind::StateFolder);
        assert!(err.message().contains("state folder"), "{err}");
        // Without offline verdicts, the client is made as before.
        let mut plain = Options {
            state_folder: Some(StateFolder::Path(folder.clone())),
            ..Options::default()
        };
        plain.machine_identity = Some("a machine".into());
        Client::with_options(&lab.sandbox.base_url(), &lab.app_id, APP_KEY, plain)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    }
    // A good folder: the check leaves nothing behind.
    lab.client();
    assert!(
        files(&lab.folder).is_empty(),
        "{:?}",
        files(&lab.folder).keys()
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The store's file of the card verdict.
fn verdict_file(folder: &std::path::Path) -> PathBuf {
    std::fs::read_dir(folder)
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .find(|p| p.to_string_lossy().contains("verdict-card"))
        .expect("the verdict file")
}

/// The attack table: a verdict stored for one card, program and machine never answers
/// another card, another program (AppId) or another AppKey; a store replaced by random
/// bytes does not open; a symlink planted at a store's file makes nothing outside the
/// folder written.
#[test]
fn the_store_answers_no_one_else() {
    let mut lab = Lab::new();
    let card = lab.card(30);
    let other_card = lab.card(30);
    lab.client().single_login(&card, "M", None).expect("online");
    lab.sandbox.pause();
    let no_verdict = |client: Client, card: &str, row: &str| {
        let err = client.single_login(card, "M", None).expect_err(row);
        assert_eq!(err.kind(), ErrorKind::Network, "{row}: {err}");
    };
    no_verdict(lab.client(), &other_card, "another card");
    let other_app = Client::with_options(&lab.sandbox.base_url(), "99999", APP_KEY, lab.options())
        .expect("client");
    no_verdict(other_app, &card, "another AppId");
    let other_key = Client::with_options(
        &lab.sandbox.base_url(),
        &lab.app_id,
        "another-app-key",
        lab.options(),
    )
    .expect("client");
    no_verdict(other_key, &card, "another AppKey");
    assert!(lab.logged("sealed on another machine or for another program"));

    // Random bytes in place of the store.
    let file = verdict_file(&lab.folder);
    let good = std::fs::read(&file).expect("read");
    let mut random = vec![0u8; good.len()];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(std::process::id());
    for byte in &mut random {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        *byte = seed as u8;
    }
    std::fs::write(&file, &random).expect("write");
    no_verdict(lab.client(), &card, "random bytes");
    std::fs::write(&file, b"").expect("write");
    no_verdict(lab.client(), &card, "emptied");
    std::fs::write(&file, &good).expect("write");
    let offline = lab.client().single_login(&card, "M", None).expect("good");
    assert_eq!(offline.reply().code(), codes::OFFLINE);

    // A symlink planted at the store's files: a login writes the folder's own files, never
    // the target outside it.
    #[cfg(unix)]
    {
        lab.sandbox.resume().expect("resume");
        let outside = std::env::temp_dir().join(format!("verify-outside-{}", lab.app_id));
        std::fs::create_dir_all(&outside).expect("outside");
        let mut planted = Vec::new();
        for path in std::fs::read_dir(&lab.folder)
            .expect("folder")
            .map(|e| e.expect("entry").path())
        {
            let target = outside.join(path.file_name().expect("name"));
            std::fs::write(&target, b"the user's own file").expect("target");
            std::fs::remove_file(&path).expect("remove");
            std::os::unix::fs::symlink(&target, &path).expect("symlink");
            planted.push(target);
        }
        assert!(!planted.is_empty());
        lab.client().single_login(&card, "M", None).expect("online");
        for target in &planted {
            assert_eq!(
                std::fs::read(target).expect("target"),
                b"the user's own file",
                "{} was written through the symlink",
                target.display()
            );
        }
        lab.sandbox.set_clock_offset(0);
        lab.sandbox.pause();
        let offline = lab
            .client()
            .single_login(&card, "M", None)
            .expect("offline");
        assert_eq!(offline.reply().code(), codes::OFFLINE);
        let _ = std::fs::remove_dir_all(&outside);
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
