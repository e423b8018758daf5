//! Account mode: UserRegin, UserLogin (password), UserRecharge, ChangeBind
//! (docs/protocol.md: the account rows of #states, #userlogin, #userregin, #userrecharge, #changebind; README conventions).

mod common;

use common::*;
use serde_json::{json, Value};

fn regin(app: &App, user: &str, pwd: &str, extra: &[(&str, &str)]) -> Value {
    let mut p = vec![
        ("action", "UserRegin"),
        ("UserName", user),
        ("Password", pwd),
    ];
    p.extend_from_slice(extra);
    app.call(&p)
}

fn recharge(app: &App, user: &str, card: &str) -> Value {
    app.call(&[
        ("action", "UserRecharge"),
        ("UserName", user),
        ("Card", card),
    ])
}

fn change_bind(app: &App, user: &str, pwd: &str, mac: &str) -> Value {
    app.call(&[
        ("action", "ChangeBind"),
        ("UserName", user),
        ("Password", pwd),
        ("Mac", mac),
    ])
}

fn login_with_card(app: &App, user: &str, pwd: &str, card: &str) -> Value {
    app.call(&[
        ("action", "UserLogin"),
        ("UserName", user),
        ("Password", pwd),
        ("Card", card),
    ])
}

fn absent(d: &Value, k: &str) -> bool {
    !matches!(d.get(k), Some(x) if !x.is_null())
}

// ---------------------------------------------------------------------------------------
// UserRegin
// ---------------------------------------------------------------------------------------

#[test]
fn regin_without_card_creates_an_expired_account() {
    let app = App::new();
    let mac = unique_mac();
    let t0 = now();
    let v = regin(&app, "bob", "pw-1", &[("Mac", &mac)]);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "bob");
    assert!(d["user_id"].is_i64(), "user_id int: {v}");
    assert_time_near(&d["expire_at"], t0, 5);
    assert!(absent(d, "token"), "no token without card: {v}");
    let rec = app.account_record("bob").expect("account created");
    assert_eq!(rec["device_id"], mac.as_str(), "{rec}");
    // docs/protocol.md#states: UserLogin then returns 1005
    assert_code(&app.user_login("bob", "pw-1", &mac), 1005);
}

#[test]
fn regin_with_duration_card_creates_an_active_account_with_token() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let t0 = now();
    let v = regin(&app, "carol", "pw", &[("Card", &card), ("Mac", &mac)]);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "carol");
    assert!(d["user_id"].is_i64(), "{v}");
    assert_token(&d["token"]);
    assert_eq!(d["status"], "active");
    assert_time_near(&d["expire_at"], t0 + 30 * DAY, 5);
    // the token is a live session
    assert_ok(&app.heartbeat(d["token"].as_str().unwrap(), "user"));
    // the card is consumed
    assert_eq!(app.card_record(&card)["state"], "used");
    let v = regin(&app, "carol2", "pw", &[("Card", &card)]);
    assert_code(&v, 1004);
    assert!(
        app.account_record("carol2").is_none(),
        "a refused registration creates nothing"
    );
    // login works
    let d2 = app.user_login("carol", "pw", &mac);
    assert_eq!(assert_ok(&d2)["expire_at"], d["expire_at"]);
}

#[test]
fn regin_user_ids_are_distinct() {
    let app = App::new();
    let a = regin(&app, "u1", "p", &[]);
    let b = regin(&app, "u2", "p", &[]);
    assert_ne!(assert_ok(&a)["user_id"], assert_ok(&b)["user_id"]);
}

#[test]
fn regin_aliases() {
    let app = App::new();
    let card = app.day_card(7);
    let mac = unique_mac();
    let v = app.call(&[
        ("action", "UserRegin"),
        ("username", "dave"),
        ("pwd", "pw"),
        ("card", &card),
        ("mac", &mac),
        ("Device", "laptop"),
    ]);
    assert_ok(&v);
    assert_eq!(
        app.account_record("dave").expect("dave")["device_id"],
        mac.as_str()
    );
    let mac2 = unique_mac();
    let v = app.call(&[
        ("action", "UserRegin"),
        ("UserName", "erin"),
        ("Pwd", "pw"),
        ("DeviceId", &mac2),
        ("DeviceName", "pc"),
    ]);
    assert_ok(&v);
    assert_eq!(
        app.account_record("erin").expect("erin")["device_id"],
        mac2.as_str()
    );
    assert_ok(&app.user_login("dave", "pw", &mac));
}

#[test]
fn regin_missing_username_or_password_is_1013() {
    let app = App::new();
    assert_code(
        &app.call(&[("action", "UserRegin"), ("Password", "pw")]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "UserRegin"), ("UserName", "frank")]),
        1013,
    );
    assert_code(&regin(&app, "", "pw", &[]), 1013);
    assert!(app.account_record("frank").is_none());
}

#[test]
fn regin_taken_username_is_1017() {
    let app = App::new();
    app.account("grace", "pw", json!({}));
    assert_code(&regin(&app, "grace", "other", &[]), 1017);
    assert_ok(&regin(&app, "heidi", "pw", &[]));
    assert_code(&regin(&app, "heidi", "pw", &[]), 1017);
    // the same username in another program is free
    let other = app.other(json!({}));
    assert_ok(&regin(&other, "heidi", "pw", &[]));
}

#[test]
fn regin_per_ip_cap_is_1019_naming_the_cap() {
    let app = App::with(json!({"max_registrations_per_ip": 3}));
    for i in 0..3 {
        assert_ok(&regin(&app, &format!("user{i}"), "pw", &[]));
    }
    let v = regin(&app, "user3", "pw", &[]);
    assert_code(&v, 1019);
    assert!(
        v["message"].as_str().unwrap().contains('3'),
        "message names the cap: {v}"
    );
    assert!(app.account_record("user3").is_none());
    // cap off: no limit
    let free = app.other(json!({"max_registrations_per_ip": null}));
    for i in 0..5 {
        assert_ok(&regin(&free, &format!("user{i}"), "pw", &[]));
    }
}

#[test]
fn regin_invalid_card_is_1004_and_creates_nothing() {
    let app = App::new();
    assert_code(
        &regin(&app, "ivan", "pw", &[("Card", &unique_card_key())]),
        1004,
    );
    assert!(app.account_record("ivan").is_none());
    let refunded = app.card(json!({"state": "refunded"}));
    assert_code(&regin(&app, "ivan", "pw", &[("Card", &refunded)]), 1004);
    let foreign = app.other(json!({})).day_card(30);
    assert_code(&regin(&app, "ivan", "pw", &[("Card", &foreign)]), 1004);
    // the username was not taken by the refused attempts
    assert_ok(&regin(&app, "ivan", "pw", &[]));
}

#[test]
fn regin_expired_card_is_1005() {
    let app = App::new();
    let card = app.card(json!({"state": "expired"}));
    assert_code(&regin(&app, "judy", "pw", &[("Card", &card)]), 1005);
    assert!(app.account_record("judy").is_none());
}

#[test]
fn regin_count_card_is_1024() {
    let app = App::new();
    let card = app.count_card(5, 0);
    assert_code(&regin(&app, "ken", "pw", &[("Card", &card)]), 1024);
    assert!(app.account_record("ken").is_none());
    assert_eq!(app.card_record(&card)["used"], 0);
}

#[test]
fn registrations_are_not_verifications() {
    let app = App::new();
    assert_ok(&regin(&app, "leo", "pw", &[("Card", &app.day_card(30))]));
    let s = sb().verification_stats(&app.id);
    assert_eq!(s.single_login, 0);
    assert_eq!(s.user_login, 0);
}

// ---------------------------------------------------------------------------------------
// UserLogin (password)
// ---------------------------------------------------------------------------------------

#[test]
fn login_success_payload() {
    let app = App::new();
    app.account("mallory", "s3cret", json!({"remark": "welcome back"}));
    let mac = unique_mac();
    let v = app.user_login("mallory", "s3cret", &mac);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "mallory");
    assert_eq!(
        d["device_id"],
        mac.as_str(),
        "an unbound account is bound on login"
    );
    assert_eq!(d["expire_at"], "2090-01-01 00:00:00");
    assert_eq!(d["status"], "active");
    assert_token(&d["token"]);
    assert_eq!(d["remark"], "welcome back");
    let rec = app.account_record("mallory").unwrap();
    assert_eq!(rec["device_id"], mac.as_str());
    assert_eq!(
        rec["bind_count"], 0,
        "binding an unbound account is not a rebind: {rec}"
    );
}

#[test]
fn login_remark_is_empty_without_note_and_device_empty_when_unbound() {
    let app = App::new();
    app.account("nina", "pw", json!({}));
    let v = app.call(&[
        ("action", "UserLogin"),
        ("UserName", "nina"),
        ("Password", "pw"),
    ]);
    let d = assert_ok(&v);
    assert_eq!(d["remark"], "");
    assert_eq!(d["device_id"], "");
}

#[test]
fn login_aliases() {
    let app = App::new();
    app.account("oscar", "pw", json!({}));
    let mac = unique_mac();
    for (u, p, m) in [
        ("username", "pwd", "mac"),
        ("UserName", "Pwd", "DeviceId"),
        ("username", "Password", "Mac"),
    ] {
        let v = app.call(&[("action", "UserLogin"), (u, "oscar"), (p, "pw"), (m, &mac)]);
        assert_eq!(
            assert_ok(&v)["device_id"],
            mac.as_str(),
            "aliases {u} {p} {m}"
        );
    }
}

#[test]
fn login_unregistered_is_1016() {
    let app = App::new();
    assert_code(&app.user_login("nobody", "pw", &unique_mac()), 1016);
    // an account of another program does not count
    let other = app.other(json!({}));
    other.account("peggy", "pw", json!({}));
    assert_code(&app.user_login("peggy", "pw", &unique_mac()), 1016);
}

#[test]
fn login_expired_account_is_1005() {
    let app = App::new();
    app.account("quinn", "pw", json!({"expire_at": "2020-01-01 00:00:00"}));
    assert_code(&app.user_login("quinn", "pw", &unique_mac()), 1005);
}

#[test]
fn login_wrong_password_is_1003() {
    let app = App::new();
    app.account("rupert", "right", json!({}));
    assert_code(&app.user_login("rupert", "wrong", &unique_mac()), 1003);
    assert_code(&app.user_login("rupert", "Right", &unique_mac()), 1003);
}

#[test]
fn login_banned_is_1006_with_remark() {
    let app = App::new();
    app.account(
        "sybil",
        "pw",
        json!({"status": "banned", "reason": "fraud"}),
    );
    let v = app.user_login("sybil", "pw", &unique_mac());
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "fraud", "{v}");
    // wrong password is reported before the ban (README order 1003, 1006)
    assert_code(&app.user_login("sybil", "bad", &unique_mac()), 1003);

    app.account("trent", "pw", json!({}));
    let mac = unique_mac();
    assert_ok(&app.user_login("trent", "pw", &mac));
    sb().update_account(&app.id, "trent", "ban", Some("sharing"))
        .expect("control op");
    let v = app.user_login("trent", "pw", &mac);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "sharing", "{v}");
    sb().update_account(&app.id, "trent", "unban", None)
        .expect("control op");
    assert_ok(&app.user_login("trent", "pw", &mac));
}

#[test]
fn login_from_another_machine_is_1022_with_old_code() {
    let app = App::with(json!({"max_rebinds": 3}));
    let a = unique_mac();
    app.account("ursula", "pw", json!({"device_id": a}));
    let v = app.user_login("ursula", "pw", &unique_mac());
    assert_code(&v, 1022);
    assert_eq!(v["data"]["remark"], a.as_str(), "{v}");
    assert_eq!(
        app.account_record("ursula").unwrap()["device_id"],
        a.as_str()
    );
    assert_ok(&app.user_login("ursula", "pw", &a));
    // Mac omitted: no rebind detection
    assert_ok(&app.call(&[
        ("action", "UserLogin"),
        ("UserName", "ursula"),
        ("Password", "pw"),
    ]));
}

#[test]
fn login_rebind_cap_1021_comes_before_1022() {
    let app = App::with(json!({"max_rebinds": 1}));
    let a = unique_mac();
    app.account("victor", "pw", json!({"device_id": a, "bind_count": 1}));
    app.account("wendy", "pw", json!({"device_id": a, "bind_count": 0}));
    assert_code(&app.user_login("victor", "pw", &unique_mac()), 1021);
    assert_code(&app.user_login("wendy", "pw", &unique_mac()), 1022);
    // on its own machine the capped account logs in
    assert_ok(&app.user_login("victor", "pw", &a));
}

#[test]
fn login_missing_username_or_password_is_1013() {
    let app = App::new();
    app.account("walter", "pw", json!({}));
    assert_code(
        &app.call(&[("action", "UserLogin"), ("Password", "pw")]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "UserLogin"), ("UserName", "walter")]),
        1013,
    );
    assert_code(
        &app.call(&[
            ("action", "UserLogin"),
            ("UserName", "walter"),
            ("Password", ""),
        ]),
        1013,
    );
}

#[test]
fn login_blacklisted_ip_or_mac_is_1023() {
    let app = App::with(json!({"blacklist": {"enabled": true, "ips": ["127.0.0.1"], "macs": []}}));
    app.account("xavier", "pw", json!({}));
    assert_code(&app.user_login("xavier", "pw", &unique_mac()), 1023);
    // docs/protocol.md#userlogin: rule 1 (1016) comes before rule 8 (blacklist)
    assert_code(&app.user_login("nobody", "pw", &unique_mac()), 1016);

    let bad = unique_mac();
    let app2 = app.other(json!({"blacklist": {"enabled": true, "ips": [], "macs": [bad]}}));
    app2.account("yvonne", "pw", json!({}));
    assert_code(&app2.user_login("yvonne", "pw", &bad), 1023);
    assert_ok(&app2.user_login("yvonne", "pw", &unique_mac()));
}

// ---------------------------------------------------------------------------------------
// UserLogin renewal branch (with Card)
// ---------------------------------------------------------------------------------------

#[test]
fn login_with_card_renews_unexpired_account_from_old_expiry() {
    let app = App::new();
    app.account("zoe", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    let card = app.day_card(30);
    let v = login_with_card(&app, "zoe", "pw", &card);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "zoe");
    assert_eq!(
        d["expire_at"], "2030-01-31 00:00:00",
        "added to the old expiry: {v}"
    );
    assert_eq!(d["added_days"], 30, "added_days is an int: {v}");
    assert!(d["added_days"].is_i64(), "{v}");
    assert_eq!(d["status"], "active");
    assert!(absent(d, "token"), "no token in the renewal branch: {v}");
    assert_eq!(app.card_record(&card)["state"], "used");
    assert_eq!(
        app.account_record("zoe").unwrap()["expire_at"],
        "2030-01-31 00:00:00"
    );
    // card alias, and a consumed card is 1004
    let v = app.call(&[
        ("action", "UserLogin"),
        ("username", "zoe"),
        ("pwd", "pw"),
        ("card", &card),
    ]);
    assert_code(&v, 1004);
}

#[test]
fn login_with_card_renews_expired_account_from_now() {
    let app = App::new();
    app.account("amy", "pw", json!({"expire_at": "2020-01-01 00:00:00"}));
    let t0 = now();
    let v = login_with_card(&app, "amy", "pw", &app.day_card(10));
    let d = assert_ok(&v);
    assert_time_near(&d["expire_at"], t0 + 10 * DAY, 5);
    assert_eq!(d["added_days"], 10);
    // now the account logs in without card and gets a token
    assert_token(&assert_ok(&app.user_login("amy", "pw", &unique_mac()))["token"]);
}

#[test]
fn registered_without_card_then_renewed_by_login_card() {
    let app = App::new();
    assert_ok(&regin(&app, "ben", "pw", &[]));
    assert_code(&app.user_login("ben", "pw", &unique_mac()), 1005);
    let t0 = now();
    let v = login_with_card(&app, "ben", "pw", &app.day_card(30));
    assert_time_near(&assert_ok(&v)["expire_at"], t0 + 30 * DAY, 5);
    assert_ok(&app.user_login("ben", "pw", &unique_mac()));
}

#[test]
fn login_with_hour_card_reports_whole_days() {
    let app = App::new();
    app.account("cleo", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    let v = login_with_card(&app, "cleo", "pw", &app.hour_card(48));
    let d = assert_ok(&v);
    assert_eq!(d["added_days"], 2, "{v}");
    assert_eq!(d["expire_at"], "2030-01-03 00:00:00", "{v}");
}

#[test]
fn login_with_bad_card_is_1004_1024_1005_1003() {
    let app = App::new();
    app.account("dora", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    assert_code(
        &login_with_card(&app, "dora", "pw", &unique_card_key()),
        1004,
    );
    let refunded = app.card(json!({"state": "refunded"}));
    assert_code(&login_with_card(&app, "dora", "pw", &refunded), 1004);
    let count = app.count_card(3, 0);
    assert_code(&login_with_card(&app, "dora", "pw", &count), 1024);
    assert_eq!(app.card_record(&count)["used"], 0);
    let expired = app.card(json!({"state": "expired"}));
    assert_code(&login_with_card(&app, "dora", "pw", &expired), 1005);
    // wrong password first
    let good = app.day_card(30);
    assert_code(&login_with_card(&app, "dora", "bad", &good), 1003);
    assert_eq!(app.card_record(&good)["state"], "unused", "not consumed");
    assert_eq!(
        app.account_record("dora").unwrap()["expire_at"],
        "2030-01-01 00:00:00"
    );
}

#[test]
fn renewal_across_clock_shifts() {
    const EVE_MAC: &str = "EVE-MACHINE";
    let app = App::exclusive(json!({}));
    // unexpired: registered with a 30-day card, 10 days later a 30-day recharge adds to it
    let t0 = now();
    let v = regin(&app, "eve", "pw", &[("Card", &app.day_card(30))]);
    let e0 = parse_bj(assert_ok(&v)["expire_at"].as_str().unwrap());
    assert!((e0 - (t0 + 30 * DAY)).abs() <= 5);
    sb().shift_clock(10 * DAY);
    let v = login_with_card(&app, "eve", "pw", &app.day_card(30));
    let d = assert_ok(&v);
    assert_eq!(
        parse_bj(d["expire_at"].as_str().unwrap()),
        e0 + 30 * DAY,
        "old expiry + 30 days: {v}"
    );
    // expired: 61 more days later the account is expired; a card counts from now
    sb().shift_clock(61 * DAY);
    assert_code(&app.user_login("eve", "pw", EVE_MAC), 1005);
    let t1 = now();
    let v = login_with_card(&app, "eve", "pw", &app.day_card(5));
    assert_time_near(&assert_ok(&v)["expire_at"], t1 + 5 * DAY, 5);
    assert_ok(&app.user_login("eve", "pw", EVE_MAC));
    // and UserRecharge on an expired account counts from now too
    sb().shift_clock(6 * DAY);
    assert_code(&app.user_login("eve", "pw", EVE_MAC), 1005);
    let t2 = now();
    let v = recharge(&app, "eve", &app.hour_card(3));
    assert_time_near(&assert_ok(&v)["expire_at"], t2 + 3 * 3600, 5);
}

// ---------------------------------------------------------------------------------------
// UserRecharge
// ---------------------------------------------------------------------------------------

#[test]
fn recharge_adds_days_to_unexpired_account() {
    let app = App::new();
    app.account("fay", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    let card = app.day_card(30);
    let v = recharge(&app, "fay", &card);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "fay");
    assert_eq!(d["expire_at"], "2030-01-31 00:00:00");
    assert_eq!(d["added_days"], "30天", "a string with its unit: {v}");
    assert_eq!(d["status"], "active");
    assert_eq!(app.card_record(&card)["state"], "used");
    assert_code(&recharge(&app, "fay", &card), 1004);
}

#[test]
fn recharge_hour_card_adds_hours() {
    let app = App::new();
    app.account("gus", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    let v = app.call(&[
        ("action", "UserRecharge"),
        ("username", "gus"),
        ("card", &app.hour_card(2)),
    ]);
    let d = assert_ok(&v);
    assert_eq!(d["added_days"], "2小时", "{v}");
    assert_eq!(d["expire_at"], "2030-01-01 02:00:00");
}

#[test]
fn recharge_expired_account_counts_from_now() {
    let app = App::new();
    app.account("hal", "pw", json!({"expire_at": "2021-06-01 00:00:00"}));
    let t0 = now();
    let v = recharge(&app, "hal", &app.day_card(7));
    assert_time_near(&assert_ok(&v)["expire_at"], t0 + 7 * DAY, 5);
    assert_ok(&app.user_login("hal", "pw", &unique_mac()));
}

#[test]
fn recharge_errors() {
    let app = App::new();
    app.account("ida", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    app.account("jon", "pw", json!({"status": "banned", "reason": "spam"}));
    let card = app.day_card(30);
    assert_code(
        &app.call(&[("action", "UserRecharge"), ("Card", &card)]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "UserRecharge"), ("UserName", "ida")]),
        1013,
    );
    assert_code(&recharge(&app, "nobody", &card), 1016);
    let v = recharge(&app, "jon", &card);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "spam", "{v}");
    assert_code(&recharge(&app, "ida", &unique_card_key()), 1004);
    assert_code(
        &recharge(&app, "ida", &app.card(json!({"state": "refunded"}))),
        1004,
    );
    let foreign = app.other(json!({})).day_card(30);
    assert_code(&recharge(&app, "ida", &foreign), 1004);
    assert_code(&recharge(&app, "ida", &app.count_card(3, 0)), 1024);
    assert_eq!(
        app.card_record(&card)["state"],
        "unused",
        "refusals consume nothing"
    );
    assert_eq!(
        app.account_record("ida").unwrap()["expire_at"],
        "2030-01-01 00:00:00"
    );
}

// ---------------------------------------------------------------------------------------
// ChangeBind
// ---------------------------------------------------------------------------------------

#[test]
fn change_bind_moves_the_account_to_the_new_machine() {
    let app = App::with(json!({"max_rebinds": 3}));
    let a = unique_mac();
    let b = unique_mac();
    app.account("kim", "pw", json!({"device_id": a}));
    assert_ok(&app.user_login("kim", "pw", &a));
    let v = change_bind(&app, "kim", "pw", &b);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "kim");
    assert_eq!(d["device_id"], b.as_str());
    assert_eq!(d["bind_count"], 1);
    assert_eq!(d["bind_limit"], 3);
    let rec = app.account_record("kim").unwrap();
    assert_eq!(rec["device_id"], b.as_str());
    assert_eq!(rec["bind_count"], 1);
    // login with the new code works; the old one is now "another machine"
    assert_eq!(
        assert_ok(&app.user_login("kim", "pw", &b))["device_id"],
        b.as_str()
    );
    let v = app.user_login("kim", "pw", &a);
    assert_code(&v, 1022);
    assert_eq!(v["data"]["remark"], b.as_str());
}

#[test]
fn change_bind_aliases_and_limit_off() {
    let app = App::new();
    app.account("lou", "pw", json!({"device_id": unique_mac()}));
    let mut count = 0;
    for (p, m) in [("Password", "NewMac"), ("pwd", "mac"), ("Pwd", "DeviceId")] {
        let mac = unique_mac();
        let v = app.call(&[
            ("action", "ChangeBind"),
            ("username", "lou"),
            (p, "pw"),
            (m, &mac),
        ]);
        count += 1;
        let d = assert_ok(&v);
        assert_eq!(d["device_id"], mac.as_str(), "alias {m}: {v}");
        assert_eq!(d["bind_count"], count);
        assert_eq!(d["bind_limit"], 0, "0 when the cap is off: {v}");
    }
}

#[test]
fn change_bind_errors() {
    let app = App::with(json!({"max_rebinds": 1}));
    let a = unique_mac();
    app.account("max", "pw", json!({"device_id": a}));
    let b = unique_mac();
    assert_code(
        &app.call(&[("action", "ChangeBind"), ("Password", "pw"), ("Mac", &b)]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "ChangeBind"), ("UserName", "max"), ("Mac", &b)]),
        1013,
    );
    assert_code(
        &app.call(&[
            ("action", "ChangeBind"),
            ("UserName", "max"),
            ("Password", "pw"),
        ]),
        1013,
    );
    assert_code(&change_bind(&app, "nobody", "pw", &b), 1016);
    assert_code(&change_bind(&app, "max", "bad", &b), 1003);
    assert_code(&change_bind(&app, "max", "pw", &a), 1020);
    assert_eq!(
        app.account_record("max").unwrap()["bind_count"],
        0,
        "refusals do not count"
    );
    assert_ok(&change_bind(&app, "max", "pw", &b));
    let v = change_bind(&app, "max", "pw", &unique_mac());
    assert_code(&v, 1021);
    let rec = app.account_record("max").unwrap();
    assert_eq!(rec["device_id"], b.as_str());
    assert_eq!(rec["bind_count"], 1);
    // and UserLogin from another machine is now 1021 too
    assert_code(&app.user_login("max", "pw", &unique_mac()), 1021);
}

#[test]
fn activated_count_card_is_still_1024_for_accounts() {
    // docs/protocol.md: #cards-and-accounts, UserLogin rule 6, #userregin, UserRecharge rule 5: a count card is valid only for SingleLogin;
    // using one in UserRegin, UserLogin (renewal) or UserRecharge is 1024, also once it has
    // been activated by a SingleLogin (it is neither unknown nor of another product: not 1004).
    let app = App::new();
    app.account("nick", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    let card = app.count_card(5, 0);
    assert_ok(&app.single_login(&card, &unique_mac()));
    assert_code(&regin(&app, "olaf", "pw", &[("Card", &card)]), 1024);
    assert_code(&recharge(&app, "nick", &card), 1024);
    assert_code(&login_with_card(&app, "nick", "pw", &card), 1024);
    assert_eq!(app.card_record(&card)["used"], 1);
}
