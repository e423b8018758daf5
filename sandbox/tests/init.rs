//! Init: `POST /api/verify` (docs/protocol.md#init, #two-steps; README check order).

mod common;

use common::*;
use serde_json::json;

#[test]
fn init_success_returns_32_char_api_password() {
    let app = App::new();
    let (c, v) = init(&app.id, &app.key);
    assert_eq!(c, 200, "{v}");
    let pw = v["data"]["api_password"]
        .as_str()
        .expect("api_password string");
    assert_eq!(pw.len(), 32, "{pw}");
    assert!(
        pw.bytes().all(|b| b.is_ascii_alphanumeric()),
        "[A-Za-z0-9]: {pw}"
    );
    assert!(v["message"].is_string());
}

#[test]
fn every_init_issues_a_fresh_password_and_old_ones_stay_valid() {
    let app = App::new();
    let (_, a) = init(&app.id, &app.key);
    let (_, b) = init(&app.id, &app.key);
    let a = a["data"]["api_password"].as_str().unwrap().to_string();
    let b = b["data"]["api_password"].as_str().unwrap().to_string();
    assert_ne!(a, b, "each Init issues a fresh api_password");
    for pw in [&a, &b, &app.pw] {
        let v = handle(pw, &[("action", "GetBulletin")]);
        assert_eq!(assert_ok(&v)["bulletin"], format!("bulletin of {}", app.id));
    }
}

#[test]
fn init_reply_is_http_200_json() {
    let app = App::new();
    let ts = now().to_string();
    let sign = init_sign(&app.id, &app.key, &ts);
    let r = post_form(
        "/api/verify",
        &[],
        &[
            ("AppId", &app.id),
            ("AppKey", &app.key),
            ("TimeStamp", &ts),
            ("Sign", &sign),
        ],
    );
    assert_eq!(r.status, 200);
    assert!(
        r.content_type.starts_with("application/json"),
        "{}",
        r.content_type
    );
    assert!(
        r.content_type
            .to_ascii_lowercase()
            .contains("charset=utf-8"),
        "{}",
        r.content_type
    );
    // an error is HTTP 200 too
    let r = post_form("/api/verify", &[], &[("AppId", &app.id)]);
    assert_eq!(r.status, 200);
    assert_code(&r.json(), 1013);
}

#[test]
fn init_missing_any_field_is_1013() {
    let app = App::new();
    let ts = now().to_string();
    let sign = init_sign(&app.id, &app.key, &ts);
    let all = [
        ("AppId", app.id.as_str()),
        ("AppKey", app.key.as_str()),
        ("TimeStamp", ts.as_str()),
        ("Sign", sign.as_str()),
    ];
    for skip in 0..all.len() {
        let form: Vec<(&str, &str)> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, p)| *p)
            .collect();
        let v = init_form(&form);
        assert_code(&v, 1013);
        assert!(v["data"].is_null(), "{v}");
    }
    // empty value counts as missing
    let v = init_form(&[
        ("AppId", ""),
        ("AppKey", &app.key),
        ("TimeStamp", &ts),
        ("Sign", &sign),
    ]);
    assert_code(&v, 1013);
    // no fields at all
    assert_code(&init_form(&[]), 1013);
}

#[test]
fn init_unknown_program_is_1001() {
    let _g = shared_clock();
    let id = unique_app_id();
    let key = unique_app_key();
    let ts = now().to_string();
    let v = init_at(&id, &key, &ts);
    assert_code(&v, 1001);
    assert!(v["data"].is_null());
}

#[test]
fn init_timestamp_tolerance_is_300_seconds_both_ways() {
    let app = App::new();
    for (delta, expected) in [
        (301, 1014),
        (-301, 1014),
        (299, 200),
        (-299, 200),
        (3600, 1014),
        (-86400, 1014),
    ] {
        let c = at_stable_second(|n| code(&init_at(&app.id, &app.key, &(n + delta).to_string())));
        assert_eq!(c, expected, "TimeStamp now{delta:+}");
    }
    // milliseconds instead of seconds are far outside the window
    let ms = (now() * 1000).to_string();
    assert_code(&init_at(&app.id, &app.key, &ms), 1014);
    // a TimeStamp that is not a number
    let c = code(&init_at(&app.id, &app.key, "yesterday"));
    assert!(c == 1014 || c == 1013, "non-numeric TimeStamp: {c}");
}

#[test]
fn init_wrong_sign_is_1010() {
    let app = App::new();
    let ts = now().to_string();
    let good = init_sign(&app.id, &app.key, &ts);
    let mut bad = good.clone().into_bytes();
    bad[0] = if bad[0] == b'0' { b'1' } else { b'0' };
    let bad = String::from_utf8(bad).unwrap();
    let v = init_form(&[
        ("AppId", &app.id),
        ("AppKey", &app.key),
        ("TimeStamp", &ts),
        ("Sign", &bad),
    ]);
    assert_code(&v, 1010);
    // Sign over another concatenation (AppKey once)
    let wrong = md5_hex(format!("{}{}{}", app.id, app.key, ts).as_bytes());
    let v = init_form(&[
        ("AppId", &app.id),
        ("AppKey", &app.key),
        ("TimeStamp", &ts),
        ("Sign", &wrong),
    ]);
    assert_code(&v, 1010);
}

#[test]
fn init_uppercase_sign_is_1010() {
    let app = App::new();
    let ts = now().to_string();
    let upper = init_sign(&app.id, &app.key, &ts).to_uppercase();
    assert!(
        upper.bytes().any(|b| b.is_ascii_uppercase()),
        "the digest has letters"
    );
    let v = init_form(&[
        ("AppId", &app.id),
        ("AppKey", &app.key),
        ("TimeStamp", &ts),
        ("Sign", &upper),
    ]);
    assert_code(&v, 1010);
}

#[test]
fn init_wrong_app_key_is_1011() {
    let app = App::new();
    let wrong_key = unique_app_key();
    let ts = now().to_string();
    // the Sign is computed correctly from the (wrong) key that is sent
    let v = init_at(&app.id, &wrong_key, &ts);
    assert_code(&v, 1011);
    assert!(v["data"].is_null());
}

#[test]
fn init_not_approved_program_is_1012() {
    for status in ["pending", "rejected", "expired"] {
        let app = App::with(json!({"status": status}));
        let (c, v) = init(&app.id, &app.key);
        assert_eq!(c, 1012, "status {status}: {v}");
        assert!(v["data"].is_null());
        drop(app);
    }
}

#[test]
fn init_check_order() {
    // README: fields (1013), program (1001), approved (1012), time (1014), Sign (1010), AppKey (1011).
    let pending = App::with(json!({"status": "pending"}));
    let app = pending.other(json!({}));
    let old = (now() - 1000).to_string();
    // unknown program beats a bad timestamp
    assert_code(&init_at(&unique_app_id(), &app.key, &old), 1001);
    // not approved beats a bad timestamp and a bad key
    assert_code(&init_at(&pending.id, &unique_app_key(), &old), 1012);
    // a bad timestamp beats a bad sign
    assert_code(
        &init_form(&[
            ("AppId", &app.id),
            ("AppKey", &app.key),
            ("TimeStamp", &old),
            ("Sign", "0000"),
        ]),
        1014,
    );
    // a bad sign beats a wrong key
    let ts = now().to_string();
    let sign_of_right_key = init_sign(&app.id, &app.key, &ts);
    assert_code(
        &init_form(&[
            ("AppId", &app.id),
            ("AppKey", &unique_app_key()),
            ("TimeStamp", &ts),
            ("Sign", &sign_of_right_key),
        ]),
        1010,
    );
}

#[test]
fn program_set_pending_after_approval_fails_init_with_1012() {
    let app = App::new();
    sb().set_program_status(&app.id, "pending")
        .expect("control op");
    let (c, _) = init(&app.id, &app.key);
    assert_eq!(c, 1012);
    sb().set_program_status(&app.id, "approved")
        .expect("control op");
    let (c, _) = init(&app.id, &app.key);
    assert_eq!(c, 200);
}
