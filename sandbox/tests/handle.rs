//! Handle: `POST /api/verify/{ApiPassword}` (docs/protocol.md#handle, #two-steps; README check order and
//! plaintext decoding).

mod common;

use common::*;
use serde_json::{json, Value};

fn bulletin_ok(v: &Value, app: &App) {
    assert_eq!(
        assert_ok(v)["bulletin"],
        format!("bulletin of {}", app.id),
        "{v}"
    );
}

fn sealed(app: &App, pairs: &[(&str, &str)]) -> (String, String, String) {
    seal(&app.pw, encode_plain(pairs).as_bytes())
}

#[test]
fn api_password_in_header() {
    let app = App::new();
    let (ts, data, sign) = sealed(&app, &[("action", "GetBulletin")]);
    let v = handle_form(
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    );
    bulletin_ok(&v, &app);
}

#[test]
fn api_password_in_form_field() {
    let app = App::new();
    let (ts, data, sign) = sealed(&app, &[("action", "GetBulletin")]);
    let v = handle_form(
        "/api/verify",
        &[],
        &[
            ("ApiPassword", &app.pw),
            ("TimeStamp", &ts),
            ("Data", &data),
            ("Sign", &sign),
        ],
    );
    bulletin_ok(&v, &app);
}

#[test]
fn api_password_in_path_segment() {
    let app = App::new();
    let (ts, data, sign) = sealed(&app, &[("action", "GetBulletin")]);
    let v = handle_form(
        &format!("/api/verify/{}", app.pw),
        &[],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    );
    bulletin_ok(&v, &app);
}

#[test]
fn api_password_priority_header_form_path() {
    let app = App::new();
    let wrong = "WrongWrongWrongWrongWrongWrong00";
    let (ts, data, sign) = sealed(&app, &[("action", "GetBulletin")]);
    let f = [
        ("TimeStamp", ts.as_str()),
        ("Data", data.as_str()),
        ("Sign", sign.as_str()),
    ];
    // header wins over a wrong path
    let v = handle_form(
        &format!("/api/verify/{wrong}"),
        &[("X-Api-Password", &app.pw)],
        &f,
    );
    bulletin_ok(&v, &app);
    // header wins over a wrong form field
    let mut f2 = f.to_vec();
    f2.push(("ApiPassword", wrong));
    let v = handle_form("/api/verify", &[("X-Api-Password", &app.pw)], &f2);
    bulletin_ok(&v, &app);
    // form field wins over a wrong path
    let mut f3 = f.to_vec();
    f3.push(("ApiPassword", &app.pw));
    let v = handle_form(&format!("/api/verify/{wrong}"), &[], &f3);
    bulletin_ok(&v, &app);
    // a wrong header is used even when the path is right: unknown password
    let v = handle_form(
        &format!("/api/verify/{}", app.pw),
        &[("X-Api-Password", wrong)],
        &f,
    );
    assert_code(&v, 1001);
}

#[test]
fn unknown_api_password_is_1001() {
    let app = App::new();
    let wrong = "Unknown0Unknown0Unknown0Unknown0";
    let (ts, data, sign) = seal(wrong, b"action=GetBulletin");
    let f = [
        ("TimeStamp", ts.as_str()),
        ("Data", data.as_str()),
        ("Sign", sign.as_str()),
    ];
    assert_code(
        &handle_form("/api/verify", &[("X-Api-Password", wrong)], &f),
        1001,
    );
    assert_code(&handle_form(&format!("/api/verify/{wrong}"), &[], &f), 1001);
    // no ApiPassword at all
    let v = handle_form("/api/verify", &[], &f);
    let c = code(&v);
    assert!(c == 1001 || c == 1013, "no ApiPassword anywhere: {v}");
    drop(app);
}

#[test]
fn handle_timestamp_tolerance() {
    let app = App::new();
    let data = encrypt_hex(&app.pw, b"action=GetBulletin");
    for (delta, expected) in [
        (301, 1014),
        (-301, 1014),
        (299, 200),
        (-299, 200),
        (100_000, 1014),
    ] {
        let c = at_stable_second(|n| {
            let ts = (n + delta).to_string();
            let sign = handle_sign(&app.pw, &ts, &data);
            code(&handle_form(
                "/api/verify",
                &[("X-Api-Password", &app.pw)],
                &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
            ))
        });
        assert_eq!(c, expected, "TimeStamp now{delta:+}");
    }
    // missing TimeStamp
    let sign = handle_sign(&app.pw, "", &data);
    let v = handle_form(
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("Data", &data), ("Sign", &sign)],
    );
    assert_code(&v, 1013);
}

#[test]
fn wrong_sign_is_1010() {
    let app = App::new();
    let (ts, data, sign) = sealed(&app, &[("action", "GetBulletin")]);
    let h = [("X-Api-Password", app.pw.as_str())];
    // flipped digit
    let mut bad = sign.clone().into_bytes();
    bad[31] = if bad[31] == b'0' { b'1' } else { b'0' };
    let bad = String::from_utf8(bad).unwrap();
    assert_code(
        &handle_form(
            "/api/verify",
            &h,
            &[("TimeStamp", &ts), ("Data", &data), ("Sign", &bad)],
        ),
        1010,
    );
    // uppercase hex of the right digest: compared strictly as a string
    let upper = sign.to_uppercase();
    assert_ne!(upper, sign);
    assert_code(
        &handle_form(
            "/api/verify",
            &h,
            &[("TimeStamp", &ts), ("Data", &data), ("Sign", &upper)],
        ),
        1010,
    );
    // signed with another timestamp
    let other = handle_sign(&app.pw, &(now() - 5).to_string(), &data);
    assert_code(
        &handle_form(
            "/api/verify",
            &h,
            &[("TimeStamp", &ts), ("Data", &data), ("Sign", &other)],
        ),
        1010,
    );
    // missing Sign
    let c = code(&handle_form(
        "/api/verify",
        &h,
        &[("TimeStamp", &ts), ("Data", &data)],
    ));
    assert!(c == 1010 || c == 1013, "missing Sign: {c}");
}

#[test]
fn lowercase_hex_data_is_accepted() {
    let app = App::new();
    let ts = now().to_string();
    let data = encrypt_hex(&app.pw, b"action=GetBulletin").to_lowercase();
    let sign = handle_sign(&app.pw, &ts, &data);
    let v = handle_form(
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    );
    bulletin_ok(&v, &app);
}

fn post_data(app: &App, data: &str) -> Value {
    let ts = now().to_string();
    let sign = handle_sign(&app.pw, &ts, data);
    handle_form(
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", data), ("Sign", &sign)],
    )
}

#[test]
fn bad_data_gives_clear_1013() {
    let app = App::new();
    let good = encrypt_hex(&app.pw, b"action=GetBulletin");
    for data in [&good[..good.len() - 1], "ZZ", "0G", "12 34", ""] {
        let v = post_data(&app, data);
        assert_code(&v, 1013);
        assert!(
            !v["message"].as_str().unwrap().is_empty(),
            "message says why: {v}"
        );
        assert!(v["data"].is_null(), "{v}");
    }
}

#[test]
fn non_utf8_plaintext_is_1013() {
    let app = App::new();
    let v = handle_bytes(&app.pw, &[0x61, 0x63, 0xff, 0xfe, 0x3d, 0x80]);
    assert_code(&v, 1013);
    // valid UTF-8 plaintext whose decoded value is not UTF-8
    let v = app.plain("action=GetVariable&Name=%FF%FE");
    assert_code(&v, 1013);
}

#[test]
fn missing_action_is_1013_and_unknown_action_is_1015() {
    let app = App::new();
    assert_code(&app.call(&[("Card", "AAAA-BBBB-CCCC-DDDD")]), 1013);
    assert_code(&app.plain(""), 1013);
    assert_code(&app.call(&[("action", "")]), 1013);
    for action in ["Unbind", "Init", "Webhook", "singlelogin_", "GetSomething"] {
        let v = app.call(&[("action", action)]);
        assert_code(&v, 1015);
        assert!(v["data"].is_null(), "{v}");
    }
}

#[test]
fn program_set_pending_gives_1012_on_handle() {
    let app = App::new();
    bulletin_ok(&app.call(&[("action", "GetBulletin")]), &app);
    sb().set_program_status(&app.id, "pending")
        .expect("control op");
    assert_code(&app.call(&[("action", "GetBulletin")]), 1012);
    // 1012 is checked before the timestamp
    let data = encrypt_hex(&app.pw, b"action=GetBulletin");
    let ts = (now() - 10_000).to_string();
    let sign = handle_sign(&app.pw, &ts, &data);
    let v = handle_form(
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    );
    assert_code(&v, 1012);
    sb().set_program_status(&app.id, "approved")
        .expect("control op");
    bulletin_ok(&app.call(&[("action", "GetBulletin")]), &app);
}

#[test]
fn check_order_time_before_sign_before_data() {
    let app = App::new();
    let h = [("X-Api-Password", app.pw.as_str())];
    // bad time and bad sign: 1014
    let old = (now() - 1000).to_string();
    assert_code(
        &handle_form(
            "/api/verify",
            &h,
            &[("TimeStamp", &old), ("Data", "ZZ"), ("Sign", "x")],
        ),
        1014,
    );
    // good time, bad sign, bad data: 1010
    let ts = now().to_string();
    assert_code(
        &handle_form(
            "/api/verify",
            &h,
            &[("TimeStamp", &ts), ("Data", "ZZ"), ("Sign", "x")],
        ),
        1010,
    );
}

#[test]
fn plus_decodes_as_space_and_percent_2b_as_plus() {
    let app = App::with(json!({"variables": {"a b": "space", "a+b": "plus"}}));
    let v = app.plain("action=GetVariable&Name=a+b");
    assert_eq!(assert_ok(&v)["value"], "space", "{v}");
    let v = app.plain("action=GetVariable&Name=a%2Bb");
    assert_eq!(assert_ok(&v)["value"], "plus", "{v}");
    let v = app.plain("action=GetVariable&Name=a%20b");
    assert_eq!(assert_ok(&v)["value"], "space", "{v}");
    // lowercase percent escapes and encoded keys
    let v = app.plain("action=GetVariable&%4Eame=a%2bb");
    assert_eq!(assert_ok(&v)["value"], "plus", "{v}");
}

#[test]
fn value_split_on_first_equals_and_pair_order_free() {
    let app = App::with(json!({"variables": {"k=v": "eq"}}));
    // the value keeps every '=' after the first
    let v = app.plain("action=GetVariable&Name=k=v");
    assert_eq!(assert_ok(&v)["value"], "eq", "{v}");
    // action need not be first
    let v = app.plain("Name=k%3Dv&action=GetVariable");
    assert_eq!(assert_ok(&v)["value"], "eq", "{v}");
    // encoded '&' inside a value
    let app2 = app.other(json!({"variables": {"x&y": "amp"}}));
    let v = handle_plain(&app2.pw, "action=GetVariable&Name=x%26y");
    assert_eq!(assert_ok(&v)["value"], "amp", "{v}");
}

#[test]
fn password_of_another_program_addresses_that_program() {
    let a = App::new();
    let b = a.other(json!({}));
    bulletin_ok(&handle(&a.pw, &[("action", "GetBulletin")]), &a);
    bulletin_ok(&handle(&b.pw, &[("action", "GetBulletin")]), &b);
}

#[test]
fn stale_timestamp_is_reported_before_missing_sign_or_data() {
    // README order: ... TimeStamp present and within ±300 s (1013, 1014), then Sign (1010),
    // then Data (1013). A stale TimeStamp is 1014 whatever is wrong with Sign or Data.
    let app = App::new();
    let h = [("X-Api-Password", app.pw.as_str())];
    let old = (now() - 1000).to_string();
    let data = encrypt_hex(&app.pw, b"action=GetBulletin");
    let sign = handle_sign(&app.pw, &old, &data);
    assert_code(
        &handle_form("/api/verify", &h, &[("TimeStamp", &old), ("Sign", &sign)]),
        1014,
    );
    assert_code(
        &handle_form("/api/verify", &h, &[("TimeStamp", &old), ("Data", &data)]),
        1014,
    );
}
