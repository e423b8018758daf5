//! Card mode: SingleLogin (docs/protocol.md: the card rows of #states, #singlelogin; README conventions on count cards,
//! duration cards and the second machine).

mod common;

use common::*;
use serde_json::{json, Value};

fn absent(d: &Value, k: &str) -> bool {
    !matches!(d.get(k), Some(x) if !x.is_null())
}

#[test]
fn first_login_activates_and_binds_a_duration_card() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let t0 = now();
    let v = app.single_login(&card, &mac);
    let d = assert_ok(&v);
    assert_token(&d["token"]);
    assert_eq!(d["status"], "active");
    assert_eq!(d["is_times"], false);
    assert_eq!(d["card_type"], "天卡");
    assert_time_near(&d["expire_at"], t0 + 30 * DAY, 5);
    for k in ["total", "used", "remaining"] {
        assert!(absent(d, k), "{k} only for count cards: {v}");
    }
    let rec = app.card_record(&card);
    assert_eq!(rec["state"], "active", "{rec}");
    assert_eq!(rec["device_id"], mac.as_str(), "{rec}");
    assert_eq!(rec["expire_at"], d["expire_at"], "{rec}");
    assert!(rec["activated_at"].is_string(), "{rec}");
}

#[test]
fn same_machine_again_refreshes_a_duration_card() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let first = app.single_login(&card, &mac);
    let e1 = assert_ok(&first)["expire_at"].clone();
    let second = app.single_login(&card, &mac);
    let d = assert_ok(&second);
    assert_eq!(d["expire_at"], e1, "a refresh does not move the expiry");
    assert_eq!(d["status"], "active");
    assert_token(&d["token"]);
    assert_eq!(app.card_record(&card)["device_id"], mac.as_str());
}

#[test]
fn hour_card_expires_after_hours() {
    let app = App::new();
    let card = app.hour_card(2);
    let t0 = now();
    let v = app.single_login(&card, &unique_mac());
    assert_time_near(&assert_ok(&v)["expire_at"], t0 + 2 * 3600, 5);
}

#[test]
fn machine_code_aliases_and_device_name() {
    let app = App::new();
    for alias in ["Mac", "mac", "DeviceId"] {
        let card = app.day_card(30);
        let mac = unique_mac();
        let v = app.call(&[
            ("action", "SingleLogin"),
            ("Card", &card),
            (alias, &mac),
            ("DeviceName", "My PC"),
        ]);
        assert_ok(&v);
        assert_eq!(
            app.card_record(&card)["device_id"],
            mac.as_str(),
            "alias {alias}"
        );
    }
    let card = app.day_card(30);
    let v = app.call(&[
        ("action", "SingleLogin"),
        ("Card", &card),
        ("Mac", &unique_mac()),
        ("Device", "Laptop"),
    ]);
    assert_ok(&v);
}

#[test]
fn count_card_consumes_one_use_per_login_until_exhausted() {
    let app = App::new();
    let card = app.count_card(3, 0);
    let mac = unique_mac();
    for i in 1..=3 {
        let v = app.single_login(&card, &mac);
        let d = assert_ok(&v);
        assert_eq!(d["is_times"], true, "{v}");
        assert_eq!(d["card_type"], "次卡");
        assert_eq!(d["status"], "active");
        assert_eq!(d["expire_at"], FAR_FUTURE, "far-future expiry: {v}");
        assert_eq!(d["total"], 3, "{v}");
        assert_eq!(d["used"], i, "{v}");
        assert_eq!(d["remaining"], 3 - i, "{v}");
        assert_token(&d["token"]);
    }
    let rec = app.card_record(&card);
    assert_eq!(rec["used"], 3, "{rec}");
    let v = app.single_login(&card, &mac);
    assert_code(&v, 1005);
    assert_eq!(
        app.card_record(&card)["used"],
        3,
        "a refused login consumes nothing"
    );
}

#[test]
fn count_card_with_no_remaining_uses_is_1005() {
    let app = App::new();
    let card = app.count_card(2, 2);
    assert_code(&app.single_login(&card, &unique_mac()), 1005);
}

#[test]
fn unknown_refunded_or_foreign_card_is_1004() {
    let app = App::new();
    assert_code(&app.single_login(&unique_card_key(), &unique_mac()), 1004);
    assert_code(&app.single_login("not-a-card", &unique_mac()), 1004);
    // refunded in the fixtures
    let card = app.card(json!({"state": "refunded"}));
    assert_code(&app.single_login(&card, &unique_mac()), 1004);
    // refunded by the back office after activation
    let card = app.day_card(30);
    let mac = unique_mac();
    assert_ok(&app.single_login(&card, &mac));
    sb().update_card(&app.id, &card, "refund", None)
        .expect("control op");
    assert_code(&app.single_login(&card, &mac), 1004);
    // a card of another program
    let other = app.other(json!({}));
    let foreign = other.day_card(30);
    assert_code(&app.single_login(&foreign, &unique_mac()), 1004);
    assert_eq!(
        other.card_record(&foreign)["state"],
        "unused",
        "the foreign card is untouched"
    );
}

#[test]
fn expired_card_is_1005() {
    let app = App::new();
    let card = app.card(json!({"state": "expired"}));
    assert_code(&app.single_login(&card, &unique_mac()), 1005);
    // an activated card past its expiry
    let mac = unique_mac();
    let card = app.card(json!({
        "state": "active", "device_id": mac,
        "activated_at": "2020-01-01 00:00:00", "expire_at": "2020-01-31 00:00:00"
    }));
    assert_code(&app.single_login(&card, &mac), 1005);
}

#[test]
fn already_active_fixture_card_logs_in_on_its_machine() {
    let app = App::new();
    let mac = unique_mac();
    let card = app.card(json!({
        "state": "active", "device_id": mac,
        "activated_at": "2024-01-01 00:00:00", "expire_at": "2090-01-01 00:00:00"
    }));
    let v = app.single_login(&card, &mac);
    assert_eq!(assert_ok(&v)["expire_at"], "2090-01-01 00:00:00");
}

#[test]
fn disabled_card_is_1006_with_remark() {
    let app = App::new();
    let card = app.card(json!({"state": "disabled", "reason": "chargeback"}));
    let v = app.single_login(&card, &unique_mac());
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "chargeback", "{v}");

    // disabled by the back office after activation, then enabled again
    let card = app.day_card(30);
    let mac = unique_mac();
    assert_ok(&app.single_login(&card, &mac));
    sb().update_card(&app.id, &card, "disable", Some("abuse"))
        .expect("control op");
    let v = app.single_login(&card, &mac);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "abuse", "{v}");
    sb().update_card(&app.id, &card, "enable", None)
        .expect("control op");
    assert_ok(&app.single_login(&card, &mac));
}

#[test]
fn disabled_device_is_1006_with_remark() {
    let bad_mac = unique_mac();
    let app = App::with(json!({"disabled_devices": {bad_mac.clone(): "stolen machine"}}));
    let card = app.day_card(30);
    let v = app.single_login(&card, &bad_mac);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "stolen machine", "{v}");

    // disabled by the back office, then enabled
    let card = app.day_card(30);
    let mac = unique_mac();
    assert_ok(&app.single_login(&card, &mac));
    sb().update_device(&app.id, &mac, "disable", Some("cracked client"))
        .expect("control op");
    let v = app.single_login(&card, &mac);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "cracked client", "{v}");
    sb().update_device(&app.id, &mac, "enable", None)
        .expect("control op");
    assert_ok(&app.single_login(&card, &mac));
}

#[test]
fn missing_card_or_mac_is_1013() {
    let app = App::new();
    let card = app.day_card(30);
    assert_code(
        &app.call(&[("action", "SingleLogin"), ("Mac", &unique_mac())]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "SingleLogin"), ("Card", &card)]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "SingleLogin"), ("Card", &card), ("Mac", "")]),
        1013,
    );
    assert_code(&app.call(&[("action", "SingleLogin")]), 1013);
    assert_eq!(app.card_record(&card)["state"], "unused");
}

#[test]
fn blacklisted_ip_is_1023() {
    let app = App::with(json!({"blacklist": {"enabled": true, "ips": ["127.0.0.1"], "macs": []}}));
    let card = app.day_card(30);
    let v = app.single_login(&card, &unique_mac());
    assert_code(&v, 1023);
    assert_eq!(
        app.card_record(&card)["state"],
        "unused",
        "nothing activated"
    );
}

#[test]
fn blacklisted_mac_is_1023() {
    let bad = unique_mac();
    let app = App::with(json!({"blacklist": {"enabled": true, "ips": [], "macs": [bad]}}));
    let card = app.day_card(30);
    assert_code(&app.single_login(&card, &bad), 1023);
    assert_ok(&app.single_login(&card, &unique_mac()));
}

#[test]
fn disabled_blacklist_does_not_hit() {
    let bad = unique_mac();
    let app =
        App::with(json!({"blacklist": {"enabled": false, "ips": ["127.0.0.1"], "macs": [bad]}}));
    let card = app.day_card(30);
    assert_ok(&app.single_login(&card, &bad));
}

#[test]
fn second_machine_is_1022_with_bound_code() {
    let app = App::new();
    let card = app.day_card(30);
    let a = unique_mac();
    let b = unique_mac();
    assert_ok(&app.single_login(&card, &a));
    let v = app.single_login(&card, &b);
    assert_code(&v, 1022);
    assert_eq!(v["data"]["remark"], a.as_str(), "{v}");
    assert_eq!(
        app.card_record(&card)["device_id"],
        a.as_str(),
        "still bound to A"
    );
    // a count card too, and the refusal consumes nothing
    let cc = app.count_card(5, 0);
    assert_ok(&app.single_login(&cc, &a));
    let v = app.single_login(&cc, &b);
    assert_code(&v, 1022);
    assert_eq!(v["data"]["remark"], a.as_str(), "{v}");
    assert_eq!(app.card_record(&cc)["used"], 1);
}

#[test]
fn tokens_differ_between_cards() {
    let app = App::new();
    let t1 = app.card_token(&app.day_card(30), &unique_mac());
    let t2 = app.card_token(&app.day_card(30), &unique_mac());
    assert_ne!(t1, t2);
}

#[test]
fn card_consumed_by_an_account_is_1004_for_single_login() {
    let app = App::new();
    let card = app.day_card(30);
    let v = app.call(&[
        ("action", "UserRegin"),
        ("UserName", "acc"),
        ("Password", "pw"),
        ("Card", &card),
    ]);
    assert_ok(&v);
    assert_eq!(app.card_record(&card)["state"], "used");
    assert_code(&app.single_login(&card, &unique_mac()), 1004);
}
