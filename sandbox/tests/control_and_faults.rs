//! The control API over HTTP, `control: false`, verification statistics, the request log,
//! and fault injection (README "Control API" and "Faults").

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use verify_sandbox::{Config, Fault, FaultKind, Sandbox};

fn ctl_post(path: &str, body: Value) -> (u16, Value) {
    let r = post_body(path, "application/json", body.to_string().into_bytes());
    (r.status, r.json())
}

fn ctl_ok(path: &str, body: Value) -> Value {
    let (st, v) = ctl_post(path, body.clone());
    assert_eq!(st, 200, "{path} {body}: {v}");
    assert_eq!(v["ok"], true, "{path} {body}: {v}");
    v
}

fn ctl_get(path: &str) -> (u16, Value) {
    let r = get(path);
    (r.status, r.json())
}

// ---------------------------------------------------------------------------------------
// Control API
// ---------------------------------------------------------------------------------------

#[test]
fn control_creates_program_card_and_account() {
    let _g = shared_clock();
    let id = unique_app_id();
    let key = unique_app_key();
    ctl_ok(
        "/_sandbox/programs",
        json!({"app_id": id, "app_key": key, "status": "approved", "bulletin": "via control"}),
    );
    let (c, v) = init(&id, &key);
    assert_eq!(c, 200, "{v}");
    let pw = v["data"]["api_password"].as_str().unwrap().to_string();
    assert_eq!(
        assert_ok(&handle(&pw, &[("action", "GetBulletin")]))["bulletin"],
        "via control"
    );

    // a card without key: generated and returned
    let v = ctl_ok(
        "/_sandbox/cards",
        json!({"app_id": id, "type_name": "月卡", "kind": "duration", "duration": 30, "duration_type": "day"}),
    );
    let card = v["card"].as_str().expect("card key returned").to_string();
    let parts: Vec<&str> = card.split('-').collect();
    assert_eq!(parts.len(), 4, "XXXX-XXXX-XXXX-XXXX: {card}");
    assert!(parts.iter().all(|p| p.len() == 4), "{card}");
    let mac = unique_mac();
    assert_ok(&handle(
        &pw,
        &[("action", "SingleLogin"), ("Card", &card), ("Mac", &mac)],
    ));
    let (st, rec) = ctl_get(&format!("/_sandbox/cards/get?app_id={id}&card={card}"));
    assert_eq!(st, 200, "{rec}");
    let rec_s = rec.to_string();
    assert!(
        rec_s.contains(&mac),
        "stored record shows the binding: {rec}"
    );

    // an account
    let v = ctl_ok(
        "/_sandbox/accounts",
        json!({"app_id": id, "username": "ctl-user", "password": "pw", "expire_at": "2090-01-01 00:00:00"}),
    );
    assert!(v["user_id"].is_i64(), "{v}");
    let v = handle(
        &pw,
        &[
            ("action", "UserLogin"),
            ("UserName", "ctl-user"),
            ("Password", "pw"),
            ("Mac", &mac),
        ],
    );
    assert_ok(&v);
    let (st, rec) = ctl_get(&format!(
        "/_sandbox/accounts/get?app_id={id}&username=ctl-user"
    ));
    assert_eq!(st, 200);
    assert!(rec.to_string().contains(&mac), "{rec}");
    // Rust API sees the same store
    assert_eq!(
        sb().account(&id, "ctl-user").unwrap()["device_id"],
        mac.as_str()
    );
}

#[test]
fn control_fixtures_and_program_status() {
    let _g = shared_clock();
    let id = unique_app_id();
    let key = unique_app_key();
    let card = unique_card_key();
    ctl_ok(
        "/_sandbox/fixtures",
        json!({
            "programs": [{"app_id": id, "app_key": key}],
            "cards": [{"app_id": id, "card": card, "type_name": "次卡", "kind": "count", "total": 4, "used": 1}]
        }),
    );
    let (c, v) = init(&id, &key);
    assert_eq!(c, 200, "{v}");
    let pw = v["data"]["api_password"].as_str().unwrap().to_string();
    let v = handle(
        &pw,
        &[("action", "SingleLogin"), ("Card", &card), ("Mac", "M1")],
    );
    assert_eq!(assert_ok(&v)["used"], 2, "{v}");

    ctl_ok(
        "/_sandbox/programs/status",
        json!({"app_id": id, "status": "rejected"}),
    );
    assert_eq!(init(&id, &key).0, 1012);
    assert_code(&handle(&pw, &[("action", "GetBulletin")]), 1012);
    ctl_ok(
        "/_sandbox/programs/status",
        json!({"app_id": id, "status": "approved"}),
    );
    assert_eq!(init(&id, &key).0, 200);
}

#[test]
fn control_updates_cards_accounts_devices_and_messages() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let token = app.card_token(&card, &mac);

    ctl_ok(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": card, "op": "disable", "reason": "ctl-disabled"}),
    );
    let v = app.single_login(&card, &mac);
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "ctl-disabled");
    ctl_ok(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": card, "op": "enable"}),
    );
    assert_ok(&app.single_login(&card, &mac));

    ctl_ok(
        "/_sandbox/devices/update",
        json!({"app_id": app.id, "device_id": mac, "op": "disable", "reason": "ctl-device"}),
    );
    let v = app.heartbeat(&token, "card");
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "ctl-device");
    ctl_ok(
        "/_sandbox/devices/update",
        json!({"app_id": app.id, "device_id": mac, "op": "enable"}),
    );

    ctl_ok(
        "/_sandbox/message",
        json!({"app_id": app.id, "card": card, "message": "hi card"}),
    );
    assert_eq!(assert_ok(&app.heartbeat(&token, "card"))["msg"], "hi card");
    assert_eq!(assert_ok(&app.heartbeat(&token, "card"))["msg"], "");

    app.account("uma", "pw", json!({}));
    let ut = app.user_token("uma", "pw", &unique_mac());
    ctl_ok(
        "/_sandbox/message",
        json!({"app_id": app.id, "username": "uma", "message": "hi user"}),
    );
    assert_eq!(assert_ok(&app.heartbeat(&ut, "user"))["msg"], "hi user");
    ctl_ok(
        "/_sandbox/accounts/update",
        json!({"app_id": app.id, "username": "uma", "op": "ban", "reason": "ctl-ban"}),
    );
    let v = app.heartbeat(&ut, "user");
    assert_code(&v, 1006);
    assert_eq!(v["data"]["remark"], "ctl-ban");
    ctl_ok(
        "/_sandbox/accounts/update",
        json!({"app_id": app.id, "username": "uma", "op": "unban"}),
    );
    assert_ok(&app.heartbeat(&ut, "user"));

    ctl_ok(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": card, "op": "refund"}),
    );
    assert_code(&app.single_login(&card, &mac), 1004);
}

#[test]
fn control_social_authorize() {
    let app = App::new();
    app.account("vera", "pw", json!({"social_id": "sid-vera"}));
    let v = app.call(&[("action", "UserLogin"), ("LoginType", "social")]);
    let state = assert_ok(&v)["state"].as_str().unwrap().to_string();
    ctl_ok(
        "/_sandbox/social/authorize",
        json!({"state": state, "identity": "sid-vera", "display_name": "Vera"}),
    );
    let v = app.call(&[
        ("action", "UserLogin"),
        ("LoginType", "social"),
        ("State", &state),
    ]);
    assert_eq!(assert_ok(&v)["remark"], "Vera");
}

#[test]
fn control_bad_requests_are_400() {
    let _g = shared_clock();
    let r = post_body(
        "/_sandbox/programs",
        "application/json",
        b"{not json".to_vec(),
    );
    assert_eq!(r.status, 400, "{r:?}");
    let v = r.json();
    assert_eq!(v["ok"], false);
    assert!(v["error"].is_string(), "{v}");
    let (st, v) = ctl_post(
        "/_sandbox/programs/status",
        json!({"app_id": unique_app_id(), "status": "approved"}),
    );
    assert_eq!(st, 400, "unknown program: {v}");
    assert_eq!(v["ok"], false);
    let app = App::new();
    let (st, v) = ctl_post(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": unique_card_key(), "op": "disable"}),
    );
    assert_eq!(st, 400, "unknown card: {v}");
    let card = app.day_card(1);
    let (st, v) = ctl_post(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": card, "op": "explode"}),
    );
    assert_eq!(st, 400, "unknown op: {v}");
    let (st, v) = ctl_post(
        "/_sandbox/faults",
        json!({"kind": "meteor", "app_id": app.id}),
    );
    assert_eq!(st, 400, "unknown fault kind: {v}");
}

#[test]
fn control_clock_and_date_header() {
    let app = App::exclusive(json!({}));
    let (st, v) = ctl_get("/_sandbox/clock");
    assert_eq!(st, 200);
    let n0 = v["now"].as_i64().expect("now");
    assert!((n0 - system_now()).abs() <= 2, "offset 0 at start: {v}");
    assert_eq!(v["offset"].as_i64(), Some(0), "{v}");

    ctl_ok("/_sandbox/clock", json!({"shift": 10 * DAY}));
    let (_, v) = ctl_get("/_sandbox/clock");
    assert!(
        (v["now"].as_i64().unwrap() - (system_now() + 10 * DAY)).abs() <= 2,
        "{v}"
    );
    assert_eq!(v["offset"].as_i64(), Some(10 * DAY));
    assert!((sb().now() - (system_now() + 10 * DAY)).abs() <= 2);

    // the Date header of a service reply follows the sandbox clock
    let r = handle_raw(&app.pw, b"action=GetBulletin");
    assert_eq!(r.status, 200);
    let date = r.date.clone().expect("Date header");
    let t = httpdate::parse_http_date(&date).expect("HTTP date");
    let t = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!(
        (t - (system_now() + 10 * DAY)).abs() <= 3,
        "Date {date} follows the sandbox clock"
    );

    // a client on the system clock is now outside the window
    let data = encrypt_hex(&app.pw, b"action=GetBulletin");
    let ts = system_now().to_string();
    let sign = handle_sign(&app.pw, &ts, &data);
    let v = handle_form(
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    );
    assert_code(&v, 1014);

    ctl_ok("/_sandbox/clock", json!({"offset": -3600}));
    let (_, v) = ctl_get("/_sandbox/clock");
    assert_eq!(v["offset"].as_i64(), Some(-3600));
    assert!(
        (v["now"].as_i64().unwrap() - (system_now() - 3600)).abs() <= 2,
        "{v}"
    );
    ctl_ok("/_sandbox/clock", json!({"offset": 0}));
}

// ---------------------------------------------------------------------------------------
// Log and statistics
// ---------------------------------------------------------------------------------------

#[test]
fn request_log_records_service_requests() {
    let app = App::new();
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert_code(&app.call(&[("action", "Nope")]), 1015);
    assert_code(&app.single_login(&unique_card_key(), "m"), 1004);

    let log = sb().request_log(Some(&app.id));
    assert!(
        log.iter()
            .all(|e| e.app_id.as_deref() == Some(app.id.as_str())),
        "filtered by app_id"
    );
    let find = |a: &str| {
        log.iter()
            .find(|e| e.action.as_deref() == Some(a))
            .unwrap_or_else(|| panic!("no {a} in log"))
    };
    assert_eq!(find("GetBulletin").code, 200);
    assert_eq!(find("Nope").code, 1015);
    assert_eq!(find("SingleLogin").code, 1004);
    assert!(find("GetBulletin").path.starts_with("/api/verify"));
    assert!(log.len() >= 4, "Init + 3 Handle requests: {}", log.len());
    for w in log.windows(2) {
        assert!(w[0].seq < w[1].seq, "seq increases");
    }

    let (st, v) = ctl_get(&format!("/_sandbox/log?app_id={}", app.id));
    assert_eq!(st, 200);
    let arr = v
        .as_array()
        .cloned()
        .or_else(|| v["log"].as_array().cloned())
        .expect("log array");
    assert_eq!(arr.len(), log.len(), "HTTP and Rust logs agree");
    let e = arr
        .iter()
        .find(|e| e["action"] == "Nope")
        .expect("Nope entry");
    assert_eq!(e["code"], 1015);
    assert_eq!(e["app_id"], app.id.as_str());
    assert!(
        e["seq"].is_number() && e["conn"].is_number() && e["path"].is_string(),
        "{e}"
    );
}

#[test]
fn request_log_numbers_connections() {
    let app = App::new();
    let keep = new_agent();
    let send = |agent: &ureq::Agent| {
        let (ts, data, sign) = seal(&app.pw, b"action=GetVariable");
        let r = try_post_form_with(
            agent,
            &base(),
            "/api/verify",
            &[("X-Api-Password", &app.pw)],
            &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
        )
        .expect("reply");
        assert_ok(&r.json());
    };
    send(&keep);
    send(&keep);
    let fresh = fresh_agent();
    send(&fresh);
    send(&fresh);
    let log: Vec<_> = sb()
        .request_log(Some(&app.id))
        .into_iter()
        .filter(|e| e.action.as_deref() == Some("GetVariable"))
        .collect();
    assert_eq!(log.len(), 4);
    assert_eq!(log[0].conn, log[1].conn, "keep-alive: one connection");
    assert_ne!(log[1].conn, log[2].conn);
    assert_ne!(log[2].conn, log[3].conn, "no pooling: new connections");
}

#[test]
fn verification_stats_count_only_single_login_and_user_login() {
    let app = App::new();
    let card = app.day_card(30);
    let mac = unique_mac();
    let token = app.card_token(&card, &mac); // SingleLogin ok
    assert_code(&app.single_login(&unique_card_key(), &mac), 1004); // SingleLogin refused
    assert_code(&app.call(&[("action", "SingleLogin")]), 1013); // reached the action, refused
    app.account("walt", "pw", json!({"expire_at": "2030-01-01 00:00:00"}));
    assert_ok(&app.user_login("walt", "pw", &mac)); // UserLogin ok
    assert_code(&app.user_login("walt", "bad", &mac), 1003); // UserLogin refused
                                                             // not counted
    assert_ok(&app.call(&[
        ("action", "UserRegin"),
        ("UserName", "x1"),
        ("Password", "pw"),
    ]));
    assert_ok(&app.heartbeat(&token, "card"));
    assert_ok(&app.call(&[
        ("action", "UserRecharge"),
        ("UserName", "walt"),
        ("Card", &app.day_card(1)),
    ]));
    assert_ok(&app.call(&[
        ("action", "ChangeBind"),
        ("UserName", "walt"),
        ("Password", "pw"),
        ("Mac", &unique_mac()),
    ]));
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    let _ = init(&app.id, &app.key);

    let s = sb().verification_stats(&app.id);
    assert_eq!(s.single_login, 3, "SingleLogin requests");
    assert_eq!(s.user_login, 2, "UserLogin requests");

    let (st, v) = ctl_get("/_sandbox/stats");
    assert_eq!(st, 200);
    assert!(v["connections_accepted"].as_u64().unwrap() >= 1, "{v}");
    assert!(v["requests"].as_u64().is_some(), "{v}");
    let mine = &v["verifications"][&app.id];
    assert_eq!(mine["SingleLogin"], 3, "{v}");
    assert_eq!(mine["UserLogin"], 2, "{v}");
}

// ---------------------------------------------------------------------------------------
// control: false
// ---------------------------------------------------------------------------------------

#[test]
fn control_off_answers_404() {
    let _g = shared_clock();
    let off = Sandbox::start(Config {
        control: false,
        ..Config::default()
    })
    .expect("start");
    let agent = new_agent();
    let url = off.base_url();
    for path in ["/_sandbox/clock", "/_sandbox/stats", "/_sandbox/log"] {
        let mut r = agent.get(format!("{url}{path}")).call().expect("reply");
        assert_eq!(r.status().as_u16(), 404, "{path}");
        let body = r.body_mut().read_to_string().unwrap();
        let v: Value = serde_json::from_str(&body).expect("JSON envelope");
        assert_eq!(v["code"], 404, "{body}");
    }
    let mut r = agent
        .post(format!("{url}/_sandbox/programs"))
        .header("Content-Type", "application/json")
        .send(json!({"app_id": "X1", "app_key": unique_app_key()}).to_string())
        .expect("reply");
    assert_eq!(r.status().as_u16(), 404);
    let _ = r.body_mut().read_to_string();
    // the service itself works, with programs loaded through the library
    let key = unique_app_key();
    off.load(
        verify_sandbox::Fixtures::from_value(
            json!({"programs": [{"app_id": "OFF1", "app_key": key}]}),
        )
        .unwrap(),
    )
    .unwrap();
    let ts = off.now().to_string();
    let sign = init_sign("OFF1", &key, &ts);
    let r = try_post_form_with(
        &agent,
        &url,
        "/api/verify",
        &[],
        &[
            ("AppId", "OFF1"),
            ("AppKey", &key),
            ("TimeStamp", &ts),
            ("Sign", &sign),
        ],
    )
    .unwrap();
    assert_eq!(r.json()["code"], 200, "{r:?}");
    off.stop();
}

// ---------------------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------------------

fn fault(kind: FaultKind, app: &App, action: Option<&str>, count: Option<u32>, delay_ms: u64) {
    sb().set_fault(Fault {
        kind,
        app_id: Some(app.id.clone()),
        action: action.map(|s| s.to_string()),
        count,
        delay_ms,
    });
}

fn login_raw(app: &App, card: &str, mac: &str, agent: &ureq::Agent) -> Result<Raw, ureq::Error> {
    let (ts, data, sign) = seal(
        &app.pw,
        encode_plain(&[("action", "SingleLogin"), ("Card", card), ("Mac", mac)]).as_bytes(),
    );
    try_post_form_with(
        agent,
        &base(),
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    )
}

#[test]
fn fault_delay() {
    let app = App::new();
    fault(FaultKind::Delay, &app, Some("GetBulletin"), Some(1), 700);
    let t = Instant::now();
    let v = app.call(&[("action", "GetBulletin")]);
    let el = t.elapsed();
    assert_ok(&v);
    assert!(
        el >= Duration::from_millis(700),
        "delayed reply after {el:?}"
    );
    // count 1: the next one is not delayed
    let t = Instant::now();
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert!(
        t.elapsed() < Duration::from_millis(700),
        "second reply after {:?}",
        t.elapsed()
    );
}

#[test]
fn fault_drop_runs_the_action_then_closes() {
    let app = App::new();
    let card = app.count_card(5, 0);
    let mac = unique_mac();
    fault(FaultKind::Drop, &app, Some("SingleLogin"), Some(1), 0);
    let r = login_raw(&app, &card, &mac, &fresh_agent());
    assert!(r.is_err(), "no reply expected, got {r:?}");
    assert_eq!(app.card_record(&card)["used"], 1, "the action took effect");
    let v = app.single_login(&card, &mac);
    assert_eq!(assert_ok(&v)["used"], 2);
}

#[test]
fn fault_non_json_does_not_run_the_action() {
    let app = App::new();
    let card = app.count_card(5, 0);
    let mac = unique_mac();
    fault(FaultKind::NonJson, &app, Some("SingleLogin"), Some(2), 0);
    for _ in 0..2 {
        let r = login_raw(&app, &card, &mac, agent()).expect("reply");
        assert_eq!(r.status, 200);
        assert_eq!(r.body, "this is not json");
    }
    assert_eq!(app.card_record(&card)["used"], 0, "the action did not run");
    // count 2 honoured
    let v = app.single_login(&card, &mac);
    assert_eq!(assert_ok(&v)["used"], 1);
}

#[test]
fn fault_http_502_html() {
    let app = App::new();
    let card = app.count_card(5, 0);
    let mac = unique_mac();
    fault(FaultKind::Http502, &app, Some("SingleLogin"), Some(1), 0);
    let r = login_raw(&app, &card, &mac, agent()).expect("reply");
    assert_eq!(r.status, 502);
    assert!(
        r.body.to_ascii_lowercase().contains("<html"),
        "HTML page: {:?}",
        r.body
    );
    assert!(serde_json::from_str::<Value>(&r.body).is_err());
    assert_eq!(app.card_record(&card)["used"], 0, "the action did not run");
    assert_ok(&app.single_login(&card, &mac));
}

/// The outages a client meets in the field: a reverse proxy's 503 (HTML) and 504 (empty), a
/// CDN's 522 (HTML), a captive portal's login page (HTTP 200, HTML). None runs the action.
#[test]
fn fault_proxy_cdn_and_captive_portal_pages() {
    let app = App::new();
    let card = app.count_card(5, 0);
    let mac = unique_mac();
    let cases = [
        (
            FaultKind::Http503,
            503,
            "503 Service Temporarily Unavailable",
        ),
        (FaultKind::Http504, 504, ""),
        (FaultKind::Http522, 522, "Error code 522"),
        (FaultKind::CaptivePortal, 200, "<form"),
    ];
    for (kind, status, holds) in cases {
        fault(kind, &app, Some("SingleLogin"), Some(1), 0);
        let r = login_raw(&app, &card, &mac, agent()).expect("reply");
        assert_eq!(r.status, status, "{kind:?}");
        assert!(r.body.contains(holds), "{kind:?}: {:?}", r.body);
        if holds.is_empty() {
            assert!(r.body.is_empty(), "{kind:?}: {:?}", r.body);
        }
        assert!(serde_json::from_str::<Value>(&r.body).is_err(), "{kind:?}");
    }
    assert_eq!(app.card_record(&card)["used"], 0, "the action did not run");
    assert_ok(&app.single_login(&card, &mac));
}

#[test]
fn fault_truncated_json_after_the_action() {
    let app = App::new();
    let card = app.count_card(5, 0);
    let mac = unique_mac();
    fault(
        FaultKind::TruncatedJson,
        &app,
        Some("SingleLogin"),
        Some(1),
        0,
    );
    let r = login_raw(&app, &card, &mac, agent()).expect("a complete body per Content-Length");
    assert_eq!(r.status, 200);
    assert!(!r.body.is_empty());
    assert!(r.body.starts_with('{'), "cut JSON: {:?}", r.body);
    assert!(
        serde_json::from_str::<Value>(&r.body).is_err(),
        "must not parse: {:?}",
        r.body
    );
    assert_eq!(app.card_record(&card)["used"], 1, "the action ran");
    assert_eq!(assert_ok(&app.single_login(&card, &mac))["used"], 2);
}

#[test]
fn fault_on_init_and_until_cleared() {
    let app = App::new();
    fault(FaultKind::NonJson, &app, Some("Init"), None, 0);
    for _ in 0..3 {
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
        assert_eq!(r.body, "this is not json");
    }
    // Handle requests are not matched by an Init fault
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    sb().clear_faults(Some(&app.id));
    assert_eq!(init(&app.id, &app.key).0, 200);
}

#[test]
fn fault_scoped_to_program_and_action() {
    let app = App::new();
    let other = app.other(json!({}));
    fault(FaultKind::Http502, &app, None, None, 0);
    // every action of this program
    for a in ["GetBulletin", "GetVariable"] {
        let r = handle_raw(&app.pw, format!("action={a}").as_bytes());
        assert_eq!(r.status, 502, "{a}");
    }
    // not the other program, not the control API
    assert_ok(&other.call(&[("action", "GetBulletin")]));
    let (st, _) = ctl_get("/_sandbox/clock");
    assert_eq!(st, 200);
    sb().clear_faults(Some(&app.id));
    assert_ok(&app.call(&[("action", "GetBulletin")]));

    fault(FaultKind::NonJson, &app, Some("GetVariable"), None, 0);
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert_eq!(
        handle_raw(&app.pw, b"action=GetVariable").body,
        "this is not json"
    );
    sb().clear_faults(Some(&app.id));
    assert_ok(&app.call(&[("action", "GetVariable")]));
}

#[test]
fn fault_over_http_control() {
    let app = App::new();
    ctl_ok(
        "/_sandbox/faults",
        json!({"kind": "http_502", "app_id": app.id, "action": "GetBulletin", "count": 1}),
    );
    assert_eq!(handle_raw(&app.pw, b"action=GetBulletin").status, 502);
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    ctl_ok(
        "/_sandbox/faults",
        json!({"kind": "delay", "app_id": app.id, "delay_ms": 300}),
    );
    let t = Instant::now();
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert!(t.elapsed() >= Duration::from_millis(300));
    ctl_ok("/_sandbox/faults/clear", json!({"app_id": app.id}));
    let t = Instant::now();
    assert_ok(&app.call(&[("action", "GetBulletin")]));
    assert!(t.elapsed() < Duration::from_millis(300), "cleared");
    ctl_ok(
        "/_sandbox/faults",
        json!({"kind": "truncated_json", "app_id": app.id, "count": 1}),
    );
    assert!(
        serde_json::from_str::<Value>(&handle_raw(&app.pw, b"action=GetBulletin").body).is_err()
    );
    ctl_ok(
        "/_sandbox/faults",
        json!({"kind": "non_json", "app_id": app.id, "action": "GetVariable", "count": 1}),
    );
    assert_eq!(
        handle_raw(&app.pw, b"action=GetVariable").body,
        "this is not json"
    );
    ctl_ok(
        "/_sandbox/faults",
        json!({"kind": "drop", "app_id": app.id, "action": "GetVariable", "count": 1}),
    );
    let (ts, data, sign) = seal(&app.pw, b"action=GetVariable");
    let r = try_post_form_with(
        &fresh_agent(),
        &base(),
        "/api/verify",
        &[("X-Api-Password", &app.pw)],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    );
    assert!(r.is_err(), "dropped: {r:?}");
    assert_ok(&app.call(&[("action", "GetVariable")]));
}

#[test]
fn restart_on_the_port_of_a_stopped_sandbox() {
    let _g = shared_clock();
    let first = Sandbox::start(Config::default()).expect("start");
    let port = first.port();
    assert_eq!(first.base_url(), format!("http://127.0.0.1:{port}"));
    first.stop();
    let second = Sandbox::start(Config {
        port,
        ..Config::default()
    })
    .expect("restart on the same port");
    assert_eq!(second.port(), port);
    let agent = new_agent();
    let mut r = agent
        .get(format!("{}/_sandbox/clock", second.base_url()))
        .call()
        .expect("reply");
    assert_eq!(r.status().as_u16(), 200);
    let _ = r.body_mut().read_to_string();
    second.stop();
}

#[test]
fn a_delayed_reply_does_not_hold_up_other_requests() {
    let app = App::new();
    let other = app.other(json!({}));
    fault(FaultKind::Delay, &app, Some("GetBulletin"), Some(1), 1500);
    let pw = app.pw.clone();
    let slow = std::thread::spawn(move || {
        let t = Instant::now();
        let v = handle(&pw, &[("action", "GetBulletin")]);
        (t.elapsed(), v)
    });
    // wait until the delayed request has reached the sandbox (it is logged before the reply)
    let deadline = Instant::now() + Duration::from_secs(5);
    while !sb()
        .request_log(Some(&app.id))
        .iter()
        .any(|e| e.action.as_deref() == Some("GetBulletin"))
    {
        assert!(
            Instant::now() < deadline,
            "the delayed request never arrived"
        );
        std::thread::yield_now();
    }
    let t = Instant::now();
    assert_ok(&other.call(&[("action", "GetBulletin")]));
    assert_ok(&app.call(&[("action", "GetVariable")]));
    assert!(
        t.elapsed() < Duration::from_millis(1000),
        "other requests served meanwhile: {:?}",
        t.elapsed()
    );
    let (el, v) = slow.join().unwrap();
    assert_ok(&v);
    assert!(el >= Duration::from_millis(1500));
}
