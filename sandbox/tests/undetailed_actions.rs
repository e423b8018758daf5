//! The six actions the spec does not detail (README table).

mod common;

use common::*;
use serde_json::json;

// ---------------------------------------------------------------------------------------
// UpdatePwd
// ---------------------------------------------------------------------------------------

#[test]
fn update_pwd_changes_the_password() {
    let app = App::new();
    app.account("lily", "old", json!({}));
    let v = app.call(&[
        ("action", "UpdatePwd"),
        ("UserName", "lily"),
        ("Password", "old"),
        ("NewPassword", "new"),
    ]);
    assert_eq!(assert_ok(&v)["username"], "lily");
    assert_code(&app.user_login("lily", "old", &unique_mac()), 1003);
    assert_ok(&app.user_login("lily", "new", &unique_mac()));
}

#[test]
fn update_pwd_aliases() {
    let app = App::new();
    app.account("mia", "p0", json!({}));
    let steps = [
        ("username", "Password", "p0", "NewPwd", "p1"),
        ("UserName", "pwd", "p1", "newpwd", "p2"),
        ("username", "Pwd", "p2", "NewPassword", "p3"),
    ];
    for (u, p, old, n, new) in steps {
        let v = app.call(&[("action", "UpdatePwd"), (u, "mia"), (p, old), (n, new)]);
        assert_ok(&v);
    }
    assert_ok(&app.call(&[
        ("action", "UserLogin"),
        ("UserName", "mia"),
        ("Password", "p3"),
    ]));
}

#[test]
fn update_pwd_errors() {
    let app = App::new();
    app.account("ned", "pw", json!({}));
    app.account("olga", "pw", json!({"status": "banned", "reason": "abuse"}));
    assert_code(
        &app.call(&[
            ("action", "UpdatePwd"),
            ("Password", "pw"),
            ("NewPassword", "x"),
        ]),
        1013,
    );
    assert_code(
        &app.call(&[
            ("action", "UpdatePwd"),
            ("UserName", "ned"),
            ("NewPassword", "x"),
        ]),
        1013,
    );
    assert_code(
        &app.call(&[
            ("action", "UpdatePwd"),
            ("UserName", "ned"),
            ("Password", "pw"),
        ]),
        1013,
    );
    assert_code(
        &app.call(&[
            ("action", "UpdatePwd"),
            ("UserName", "nobody"),
            ("Password", "pw"),
            ("NewPassword", "x"),
        ]),
        1016,
    );
    assert_code(
        &app.call(&[
            ("action", "UpdatePwd"),
            ("UserName", "ned"),
            ("Password", "bad"),
            ("NewPassword", "x"),
        ]),
        1003,
    );
    let v = app.call(&[
        ("action", "UpdatePwd"),
        ("UserName", "olga"),
        ("Password", "pw"),
        ("NewPassword", "x"),
    ]);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "abuse", "{v}");
    // the refused changes changed nothing
    assert_ok(&app.user_login("ned", "pw", &unique_mac()));
}

// ---------------------------------------------------------------------------------------
// GetLatestVersion
// ---------------------------------------------------------------------------------------

#[test]
fn latest_version_payload_and_has_update() {
    let app = App::with(
        json!({"version": {"version": "1.10.2", "changelog": "big fixes", "download_url": "https://example.invalid/v1.10.2", "force_update": true}}),
    );
    let v = app.call(&[("action", "GetLatestVersion")]);
    let d = assert_ok(&v);
    assert_eq!(d["version"], "1.10.2");
    assert_eq!(d["changelog"], "big fixes");
    assert_eq!(d["download_url"], "https://example.invalid/v1.10.2");
    assert_eq!(d["force_update"], true);
    assert_eq!(d["has_update"], true, "true without Version: {v}");
    for (mine, expected) in [
        ("1.10.2", false),
        ("1.9.9", true),
        ("1.10.1", true),
        ("1.10.10", false),
        ("2.0", false),
        ("1.2.0", true),
        ("0.9", true),
    ] {
        let v = app.call(&[("action", "GetLatestVersion"), ("Version", mine)]);
        assert_eq!(
            assert_ok(&v)["has_update"],
            expected,
            "client {mine} vs 1.10.2: {v}"
        );
    }
    let v = app.call(&[("action", "GetLatestVersion"), ("version", "1.10.2")]);
    assert_eq!(assert_ok(&v)["has_update"], false, "alias version: {v}");
}

#[test]
fn latest_version_force_update_false() {
    let app = App::new();
    let v = app.call(&[("action", "GetLatestVersion"), ("Version", "1.2.0")]);
    let d = assert_ok(&v);
    assert_eq!(d["version"], "1.2.0");
    assert_eq!(d["force_update"], false);
    assert_eq!(d["has_update"], false);
}

// ---------------------------------------------------------------------------------------
// GetBulletin
// ---------------------------------------------------------------------------------------

#[test]
fn bulletin() {
    let app = App::with(json!({"bulletin": "服务器维护通知"}));
    let v = app.call(&[("action", "GetBulletin")]);
    let d = assert_ok(&v);
    assert_eq!(d["bulletin"], "服务器维护通知");
    assert!(d["updated_at"].is_string(), "{v}");
    // extra parameters are ignored
    assert_ok(&app.call(&[("action", "GetBulletin"), ("Foo", "bar")]));
}

// ---------------------------------------------------------------------------------------
// GetVariable
// ---------------------------------------------------------------------------------------

#[test]
fn variable_one_and_all() {
    let app = App::with(json!({"variables": {"greeting": "你好", "limit": "10"}}));
    for alias in ["Name", "name", "Key"] {
        let v = app.call(&[("action", "GetVariable"), (alias, "greeting")]);
        let d = assert_ok(&v);
        assert_eq!(d["name"], "greeting", "alias {alias}");
        assert_eq!(d["value"], "你好", "alias {alias}");
    }
    let v = app.call(&[("action", "GetVariable")]);
    let vars = &assert_ok(&v)["variables"];
    assert_eq!(vars["greeting"], "你好");
    assert_eq!(vars["limit"], "10");
    assert_eq!(vars["app"], app.id.as_str());
}

#[test]
fn variable_unknown_name_is_1013() {
    let app = App::new();
    let v = app.call(&[("action", "GetVariable"), ("Name", "no_such_var")]);
    assert_code(&v, 1013);
    assert!(!v["message"].as_str().unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------
// GetUserInfo
// ---------------------------------------------------------------------------------------

#[test]
fn user_info_payload() {
    let app = App::with(json!({"max_rebinds": 4}));
    let mac = unique_mac();
    app.account("pat", "pw", json!({"device_id": mac, "bind_count": 2, "remark": "vip", "expire_at": "2033-03-03 03:03:03"}));
    let v = app.call(&[
        ("action", "GetUserInfo"),
        ("UserName", "pat"),
        ("Password", "pw"),
    ]);
    let d = assert_ok(&v);
    assert_eq!(d["username"], "pat");
    assert!(d["user_id"].is_i64(), "{v}");
    assert_eq!(d["device_id"], mac.as_str());
    assert_eq!(d["expire_at"], "2033-03-03 03:03:03");
    assert_eq!(d["status"], "active");
    assert_eq!(d["bind_count"], 2);
    assert_eq!(d["bind_limit"], 4);
    assert_eq!(d["remark"], "vip");
    assert!(d["created_at"].is_string(), "{v}");
    // aliases; nothing consumed: the remark is still there for the heartbeat
    let v = app.call(&[
        ("action", "GetUserInfo"),
        ("username", "pat"),
        ("Pwd", "pw"),
    ]);
    assert_eq!(assert_ok(&v)["remark"], "vip");
    let v = app.call(&[
        ("action", "GetUserInfo"),
        ("username", "pat"),
        ("pwd", "pw"),
    ]);
    assert_ok(&v);
}

#[test]
fn user_info_status_values() {
    let app = App::new();
    app.account("q1", "pw", json!({"expire_at": "2020-01-01 00:00:00"}));
    app.account("q2", "pw", json!({"status": "banned", "reason": "r"}));
    let info = |u: &str| {
        app.call(&[
            ("action", "GetUserInfo"),
            ("UserName", u),
            ("Password", "pw"),
        ])
    };
    let v = info("q1");
    assert_eq!(assert_ok(&v)["status"], "expired", "{v}");
    let v = info("q2");
    assert_eq!(assert_ok(&v)["status"], "banned", "{v}");
    let v = info("q1");
    assert_eq!(assert_ok(&v)["bind_limit"], 0, "cap off: {v}");
}

#[test]
fn user_info_errors() {
    let app = App::new();
    app.account("rae", "pw", json!({}));
    assert_code(
        &app.call(&[("action", "GetUserInfo"), ("UserName", "rae")]),
        1013,
    );
    assert_code(
        &app.call(&[("action", "GetUserInfo"), ("Password", "pw")]),
        1013,
    );
    assert_code(
        &app.call(&[
            ("action", "GetUserInfo"),
            ("UserName", "nobody"),
            ("Password", "pw"),
        ]),
        1016,
    );
    assert_code(
        &app.call(&[
            ("action", "GetUserInfo"),
            ("UserName", "rae"),
            ("Password", "bad"),
        ]),
        1003,
    );
}

// ---------------------------------------------------------------------------------------
// GetCardInfo
// ---------------------------------------------------------------------------------------

#[test]
fn card_info_unused_and_active() {
    let app = App::new();
    let card = app.card(json!({"type_name": "周卡", "duration": 7}));
    let v = app.call(&[("action", "GetCardInfo"), ("Card", &card)]);
    let d = assert_ok(&v);
    assert_eq!(d["card"], card.as_str());
    assert_eq!(d["card_type"], "周卡");
    assert_eq!(d["status"], "unused");
    assert_eq!(d["is_times"], false);
    assert_eq!(d["activated_at"], "", "unset times are \"\": {v}");
    assert_eq!(d["expire_at"], "");
    assert_eq!(d["duration"], 7);
    assert_eq!(d["duration_type"], "day");
    // activation
    let mac = unique_mac();
    let login = app.single_login(&card, &mac);
    let exp = assert_ok(&login)["expire_at"].clone();
    let v = app.call(&[("action", "GetCardInfo"), ("card", &card)]);
    let d = assert_ok(&v);
    assert_eq!(d["status"], "active");
    assert_eq!(d["device_id"], mac.as_str());
    assert_eq!(d["expire_at"], exp);
    assert_time_near(&d["activated_at"], now(), 10);
}

#[test]
fn card_info_count_card_consumes_nothing() {
    let app = App::new();
    let card = app.count_card(2, 0);
    let info = || app.call(&[("action", "GetCardInfo"), ("Card", &card)]);
    for _ in 0..3 {
        let v = info();
        let d = assert_ok(&v);
        assert_eq!(d["is_times"], true);
        assert_eq!(d["total"], 2);
        assert_eq!(d["used"], 0);
        assert_eq!(d["remaining"], 2);
    }
    let mac = unique_mac();
    assert_ok(&app.single_login(&card, &mac));
    assert_ok(&app.single_login(&card, &mac));
    let v = info();
    let d = assert_ok(&v);
    assert_eq!(d["used"], 2);
    assert_eq!(d["remaining"], 0);
    assert_eq!(d["status"], "exhausted", "{v}");
}

#[test]
fn card_info_statuses() {
    let app = App::new();
    let status = |card: &str| {
        let v = app.call(&[("action", "GetCardInfo"), ("Card", card)]);
        assert_ok(&v)["status"].as_str().unwrap().to_string()
    };
    assert_eq!(
        status(&app.card(json!({"state": "disabled", "reason": "x"}))),
        "disabled"
    );
    assert_eq!(status(&app.card(json!({"state": "refunded"}))), "refunded");
    assert_eq!(status(&app.card(json!({"state": "expired"}))), "expired");
    let mac = unique_mac();
    let past = app.card(json!({"state": "active", "device_id": mac, "activated_at": "2020-01-01 00:00:00", "expire_at": "2020-02-01 00:00:00"}));
    assert_eq!(status(&past), "expired");
    let used = app.day_card(30);
    assert_ok(&app.call(&[
        ("action", "UserRegin"),
        ("UserName", "sam"),
        ("Password", "pw"),
        ("Card", &used),
    ]));
    assert_eq!(status(&used), "used");
    let c = app.day_card(30);
    sb().update_card(&app.id, &c, "disable", Some("r"))
        .expect("control op");
    assert_eq!(status(&c), "disabled");
}

#[test]
fn card_info_errors() {
    let app = App::new();
    assert_code(&app.call(&[("action", "GetCardInfo")]), 1013);
    assert_code(
        &app.call(&[("action", "GetCardInfo"), ("Card", &unique_card_key())]),
        1004,
    );
    let foreign = app.other(json!({})).day_card(30);
    assert_code(
        &app.call(&[("action", "GetCardInfo"), ("Card", &foreign)]),
        1004,
    );
}

#[test]
fn undetailed_actions_are_not_verifications() {
    let app = App::new();
    app.account("tom", "pw", json!({}));
    assert_ok(&app.call(&[
        ("action", "GetUserInfo"),
        ("UserName", "tom"),
        ("Password", "pw"),
    ]));
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert_ok(&app.call(&[("action", "GetCardInfo"), ("Card", &app.day_card(1))]));
    let s = sb().verification_stats(&app.id);
    assert_eq!((s.single_login, s.user_login), (0, 0));
}
