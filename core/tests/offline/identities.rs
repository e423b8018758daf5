//! One verdict per identity: each card (and each account) keeps its own stored verdict, at
//! most `MAX_VERDICTS_PER_MODE` per mode; a refusal, or a refused heartbeat, clears only the
//! verdict of the identity it concerns.

use super::*;
use verify_core::offline::MAX_VERDICTS_PER_MODE;
use verify_core::SessionKind;

/// The case: a program logs in with a first card, then a keeper's login with a second
/// card; the second is banned (its heartbeat and its login refused with 1006). The first
/// card's offline start still answers from its own verdict; the banned card's does not.
#[test]
pub(crate) fn each_card_keeps_its_verdict_and_a_ban_clears_only_the_banned_cards() {
    let mut lab = Lab::new();
    let first = lab.card(30);
    let second = lab.card(30);
    let client = lab.client();
    client
        .single_login(&first, "M", None)
        .expect("the first card online");
    let login = client
        .single_login(&second, "M", None)
        .expect("the second card online");
    let token = login.token().expect("a token").to_owned();
    lab.sandbox
        .update_card(&lab.app_id, &second, "disable", Some("shared"))
        .expect("ban");
    let beat = client
        .heartbeat(&token, SessionKind::Card, None)
        .expect_err("the banned card's heartbeat is refused");
    assert_eq!(beat.code(), codes::DISABLED, "{beat}");

    lab.sandbox.pause();
    let offline = lab
        .client()
        .single_login(&first, "M", None)
        .expect("the first card starts offline from its own verdict");
    assert_eq!(offline.reply().code(), codes::OFFLINE);
    let err = lab
        .client()
        .single_login(&second, "M", None)
        .expect_err("the banned card has no verdict any more");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
    lab.sandbox.resume().expect("resume");
}

/// Two accounts on one machine each keep theirs, each checked with its own password.
#[test]
pub(crate) fn each_account_keeps_its_verdict() {
    let mut lab = Lab::new();
    lab.account("ann");
    lab.account("bob");
    let client = lab.client();
    client.user_login("ann", "pw", Some("M")).expect("ann");
    client.user_login("bob", "pw", Some("M")).expect("bob");
    lab.sandbox.pause();
    for user in ["ann", "bob"] {
        let offline = lab
            .client()
            .user_login(user, "pw", Some("M"))
            .unwrap_or_else(|e| panic!("{user} starts offline: {e}"));
        assert_eq!(offline.reply().code(), codes::OFFLINE, "{user}");
    }
    let err = lab
        .client()
        .user_login("ann", "bob's password", Some("M"))
        .expect_err("a password of another account");
    assert_eq!(err.code(), codes::ERR_OFFLINE_PASSWORD, "{err}");
    lab.sandbox.resume().expect("resume");
}

/// The store keeps `MAX_VERDICTS_PER_MODE` verdicts per mode: one card more, and the one
/// written longest ago is dropped; every other card still starts offline.
#[test]
pub(crate) fn the_store_keeps_a_bounded_number_per_mode_and_drops_the_oldest() {
    let mut lab = Lab::new();
    let cards: Vec<String> = (0..=MAX_VERDICTS_PER_MODE).map(|_| lab.card(30)).collect();
    let client = lab.client();
    for card in &cards {
        client.single_login(card, "M", None).expect("online");
    }
    let stored = files(&lab.folder)
        .into_keys()
        .filter(|name| name.starts_with("verdict-card-"))
        .count();
    assert_eq!(stored, MAX_VERDICTS_PER_MODE, "one file per card, bounded");
    lab.sandbox.pause();
    let err = lab
        .client()
        .single_login(&cards[0], "M", None)
        .expect_err("the card written longest ago was dropped");
    assert_eq!(err.kind(), ErrorKind::Network, "{err}");
    for card in &cards[1..] {
        let offline = lab
            .client()
            .single_login(card, "M", None)
            .expect("the others start offline");
        assert_eq!(offline.reply().code(), codes::OFFLINE);
    }
    lab.sandbox.resume().expect("resume");
}
