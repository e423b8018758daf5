//! UserHeartbeat (docs/protocol.md: the session row of #states, #userheartbeat; README messages and remarks).

mod common;

use common::*;
use serde_json::json;

#[test]
fn card_heartbeat() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let login = app.single_login(&card, &mac);
    let ld = assert_ok(&login);
    let token = ld["token"].as_str().unwrap();
    let v = app.heartbeat(token, "card");
    let d = assert_ok(&v);
    assert_eq!(d["expire_at"], ld["expire_at"], "{v}");
    assert_eq!(d["status"], "active");
    assert_eq!(d["msg"], "", "empty when no message: {v}");
    // aliases and the optional IP
    let v = app.call(&[
        ("action", "UserHeartbeat"),
        ("token", token),
        ("type", "card"),
        ("IP", "10.0.0.1"),
    ]);
    assert_ok(&v);
}

#[test]
fn count_card_heartbeat_has_far_future_expiry() {
    let app = App::new();
    let token = app.card_token(&app.count_card(2, 0), &unique_mac());
    let v = app.heartbeat(&token, "card");
    assert_eq!(assert_ok(&v)["expire_at"], FAR_FUTURE);
}

#[test]
fn user_heartbeat() {
    let app = App::new();
    app.account("ann", "pw", json!({"expire_at": "2031-05-05 05:05:05"}));
    let token = app.user_token("ann", "pw", &unique_mac());
    let v = app.heartbeat(&token, "user");
    let d = assert_ok(&v);
    assert_eq!(d["expire_at"], "2031-05-05 05:05:05");
    assert_eq!(d["status"], "active");
    assert_eq!(d["msg"], "");
    let v = app.call(&[
        ("action", "UserHeartbeat"),
        ("Token", &token),
        ("type", "user"),
    ]);
    assert_ok(&v);
}

#[test]
fn heartbeat_missing_or_bad_fields_is_1013() {
    let app = App::new();
    let token = app.card_token(&app.day_card(30), &unique_mac());
    assert_code(
        &app.call(&[("action", "UserHeartbeat"), ("Type", "card")]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "UserHeartbeat"), ("Token", &token)]),
        1013,
    );
    assert_code(&app.heartbeat(&token, "device"), 1013);
    assert_code(&app.heartbeat(&token, ""), 1013);
    assert_code(&app.heartbeat("", "card"), 1013);
}

#[test]
fn unknown_token_is_1007() {
    let app = App::new();
    let fake = "0123456789abcdef0123456789abcdef01234567";
    assert_code(&app.heartbeat(fake, "card"), 1007);
    assert_code(&app.heartbeat(fake, "user"), 1007);
    // a token of another program is unknown here
    let other = app.other(json!({}));
    let t = other.card_token(&other.day_card(30), &unique_mac());
    assert_code(&app.heartbeat(&t, "card"), 1007);
}

#[test]
fn disabled_card_or_device_or_banned_account_is_1006_with_remark() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let token = app.card_token(&card, &mac);
    sb().update_card(&app.id, &card, "disable", Some("refund requested"))
        .expect("control op");
    let v = app.heartbeat(&token, "card");
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "refund requested", "{v}");
    sb().update_card(&app.id, &card, "enable", None)
        .expect("control op");
    assert_ok(&app.heartbeat(&token, "card"));

    sb().update_device(&app.id, &mac, "disable", Some("bad device"))
        .expect("control op");
    let v = app.heartbeat(&token, "card");
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "bad device", "{v}");
    sb().update_device(&app.id, &mac, "enable", None)
        .expect("control op");
    assert_ok(&app.heartbeat(&token, "card"));

    app.account("bea", "pw", json!({}));
    let ut = app.user_token("bea", "pw", &unique_mac());
    sb().update_account(&app.id, "bea", "ban", Some("chargeback"))
        .expect("control op");
    let v = app.heartbeat(&ut, "user");
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "chargeback", "{v}");
}

#[test]
fn refunded_card_session_is_not_alive() {
    let app = App::new();
    let card = app.day_card(30);
    let token = app.card_token(&card, &unique_mac());
    sb().update_card(&app.id, &card, "refund", None)
        .expect("control op");
    let v = app.heartbeat(&token, "card");
    assert_ne!(
        code(&v),
        200,
        "a refunded card's session must not stay alive: {v}"
    );
}

#[test]
fn expired_sessions_are_1005() {
    let app = App::exclusive(json!({}));
    let card = app.hour_card(1);
    let token = app.card_token(&card, &unique_mac());
    let t = app.day_card(1);
    let utok = {
        let r = app.call(&[
            ("action", "UserRegin"),
            ("UserName", "cat"),
            ("Password", "pw"),
            ("Card", &t),
        ]);
        assert_ok(&r)["token"].as_str().unwrap().to_string()
    };
    assert_ok(&app.heartbeat(&token, "card"));
    assert_ok(&app.heartbeat(&utok, "user"));
    sb().shift_clock(3600 + 10);
    assert_code(&app.heartbeat(&token, "card"), 1005);
    assert_ok(&app.heartbeat(&utok, "user"));
    sb().shift_clock(DAY);
    assert_code(&app.heartbeat(&utok, "user"), 1005);
}

#[test]
fn card_message_is_returned_once() {
    let app = App::new();
    let card = app.day_card(30);
    let token = app.card_token(&card, &unique_mac());
    sb().leave_card_message(&app.id, &card, "maintenance tonight")
        .expect("control op");
    let v = app.heartbeat(&token, "card");
    assert_eq!(assert_ok(&v)["msg"], "maintenance tonight", "{v}");
    let v = app.heartbeat(&token, "card");
    assert_eq!(assert_ok(&v)["msg"], "", "delivered once then cleared: {v}");
}

#[test]
fn account_message_is_the_remark_and_returned_once() {
    let app = App::new();
    app.account("dan", "pw", json!({}));
    let mac = unique_mac();
    let token = app.user_token("dan", "pw", &mac);
    sb().leave_account_message(&app.id, "dan", "please update")
        .expect("control op");
    // UserLogin shows the note as remark
    let v = app.user_login("dan", "pw", &mac);
    assert_eq!(assert_ok(&v)["remark"], "please update", "{v}");
    let v = app.heartbeat(&token, "user");
    assert_eq!(assert_ok(&v)["msg"], "please update", "{v}");
    let v = app.heartbeat(&token, "user");
    assert_eq!(assert_ok(&v)["msg"], "");
    let v = app.user_login("dan", "pw", &mac);
    assert_eq!(assert_ok(&v)["remark"], "", "cleared by the heartbeat: {v}");
}

#[test]
fn fixture_remark_is_delivered_by_heartbeat() {
    let app = App::new();
    app.account("eli", "pw", json!({"remark": "from fixtures"}));
    let token = app.user_token("eli", "pw", &unique_mac());
    assert_eq!(
        assert_ok(&app.heartbeat(&token, "user"))["msg"],
        "from fixtures"
    );
    assert_eq!(assert_ok(&app.heartbeat(&token, "user"))["msg"], "");
}

#[test]
fn heartbeats_are_not_verifications() {
    let app = App::new();
    let token = app.card_token(&app.day_card(30), &unique_mac());
    for _ in 0..3 {
        assert_ok(&app.heartbeat(&token, "card"));
    }
    let s = sb().verification_stats(&app.id);
    assert_eq!(s.single_login, 1);
    assert_eq!(s.user_login, 0);
}
