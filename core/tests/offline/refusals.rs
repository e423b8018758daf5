//! Refusals: a refusal never gives an offline verdict and clears the stored one (only the
//! identity it concerns), and a card banned while offline ends the session on reconnect.

use super::*;

/// A login refused by the server after a good one: never an offline verdict, and the
/// stored one is cleared (a later start with the server stopped is not licensed).
pub(crate) fn refusal_clears(
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
pub(crate) fn a_refusal_never_gives_an_offline_verdict_and_clears_the_stored_one() {
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
pub(crate) fn a_card_banned_while_offline_ends_the_session_on_reconnect() {
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

/// A refusal clears the verdict of the identity it concerns: a card mistyped once (1004)
/// leaves the good card's verdict; an account's wrong password leaves another account's;
/// a refusal about the program (1012) clears every verdict of the program.
#[test]
pub(crate) fn a_refusal_clears_only_the_identity_it_concerns() {
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
