//! Rule order where docs/protocol.md gives one (sandbox README "Conventions"): for each action whose
//! rules are numbered, a request that breaks two rules at once gets the earlier rule's code.

mod common;

use common::*;
use serde_json::json;

/// `SingleLogin` rule 3 (bound to another machine, 1022) before rule 4 (blacklist, 1023).
#[test]
fn single_login_rule_3_before_rule_4() {
    let bad = unique_mac();
    let app = App::with(json!({"blacklist": {"enabled": true, "ips": [], "macs": [bad]}}));
    let card = app.day_card(30);
    app.card_token(&card, &unique_mac());
    let v = app.single_login(&card, &bad);
    assert_code(&v, 1022);
    // And rule 3 before rule 6's codes: a disabled card used from another machine.
    let other = app.day_card(30);
    let first = unique_mac();
    app.card_token(&other, &first);
    sb().update_card(&app.id, &other, "disable", Some("r"))
        .expect("disable");
    let v = app.single_login(&other, &unique_mac());
    assert_code(&v, 1022);
    assert_eq!(v["data"]["remark"], first.as_str());
    // Rule 4 alone still applies.
    assert_code(&app.single_login(&app.day_card(1), &bad), 1023);
}

/// `UserLogin` rule 2 (expired, 1005) before rule 5 (another machine, 1022), before rule 3 (wrong
/// password), and rule 4 (banned, 1006) before rule 5.
#[test]
fn user_login_rule_2_before_rules_3_and_5_and_rule_4_before_5() {
    let app = App::new();
    app.account(
        "old",
        "pw",
        json!({"device_id": "MAC-OLD", "expire_at": "2001-01-01 00:00:00"}),
    );
    assert_code(&app.user_login("old", "pw", "MAC-NEW"), 1005);
    assert_code(&app.user_login("old", "wrong", "MAC-OLD"), 1005);
    app.account(
        "ban",
        "pw",
        json!({"device_id": "MAC-B", "status": "banned", "reason": "x"}),
    );
    assert_code(&app.user_login("ban", "pw", "MAC-OTHER"), 1006);
    // Rule 1 (1016) before rule 8 (blacklist).
    let bl = app.other(json!({"blacklist": {"enabled": true, "ips": ["127.0.0.1"], "macs": []}}));
    assert_code(&bl.user_login("nobody", "pw", "M"), 1016);
    // The renewal branch renews an expired account (rule 7), so rule 2 does not stop it.
    let card = app.day_card(3);
    let v = app.call(&[
        ("action", "UserLogin"),
        ("UserName", "old"),
        ("Password", "pw"),
        ("Card", &card),
    ]);
    assert_ok(&v);
}

/// `UserHeartbeat` rule 1 (Type invalid, 1013) before rule 2 (unknown token, 1007).
#[test]
fn heartbeat_rule_1_before_rule_2() {
    let app = App::new();
    let v = app.call(&[
        ("action", "UserHeartbeat"),
        ("Token", "0000000000000000000000000000000000000000"),
        ("Type", "weird"),
    ]);
    assert_code(&v, 1013);
}

/// `UserRecharge` rule 3 (banned, 1006) before rule 4 (unknown card, 1004), and rule 4 before rule 5.
#[test]
fn recharge_rule_3_before_rule_4() {
    let app = App::new();
    app.account("rb", "pw", json!({"status": "banned", "reason": "no"}));
    let v = app.call(&[
        ("action", "UserRecharge"),
        ("UserName", "rb"),
        ("Card", "NOPE-NOPE-NOPE-NOPE"),
    ]);
    assert_code(&v, 1006);
    // Rule 2 (unknown user) before rule 4.
    let v = app.call(&[
        ("action", "UserRecharge"),
        ("UserName", "nobody"),
        ("Card", "NOPE-NOPE-NOPE-NOPE"),
    ]);
    assert_code(&v, 1016);
}

/// `ChangeBind` rule 3 (wrong password, 1003) before rule 4 (same machine, 1020), and rule 4 before
/// rule 5 (rebind cap, 1021).
#[test]
fn change_bind_rule_3_before_4_before_5() {
    let app = App::with(json!({"max_rebinds": 1}));
    app.account("cb", "pw", json!({"device_id": "MAC-1", "bind_count": 1}));
    let change = |pwd: &str, mac: &str| {
        app.call(&[
            ("action", "ChangeBind"),
            ("UserName", "cb"),
            ("Password", pwd),
            ("Mac", mac),
        ])
    };
    assert_code(&change("wrong", "MAC-1"), 1003);
    assert_code(&change("pw", "MAC-1"), 1020);
    assert_code(&change("pw", "MAC-2"), 1021);
}
