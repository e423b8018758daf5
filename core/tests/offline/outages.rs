//! Outages: a start with the server stopped is licensed from the stored verdict, a kept
//! session goes offline and back online within the store's grace, an error page or a captive
//! portal is an outage, and a black-holed server costs one connect timeout at most.

use super::*;

#[test]
pub(crate) fn a_start_with_the_server_stopped_is_licensed_offline() {
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

#[test]
pub(crate) fn a_kept_session_goes_offline_and_online_with_the_grace_of_the_store() {
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
pub(crate) fn an_error_page_or_a_captive_portal_is_an_outage() {
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

/// A black-holed server, no start budget: the stored verdict answers after one connect
/// timeout at most (the Init that timed out is not sent again); without a stored verdict
/// that may answer, the resend is kept.
#[test]
pub(crate) fn a_black_holed_server_costs_one_connect_timeout_at_most() {
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
