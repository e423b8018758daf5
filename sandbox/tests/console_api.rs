//! The control endpoints the console uses (README "Control API"): lists of programs, cards,
//! accounts, sessions and pending social sign-ins (secrets masked), bulk cards, delete,
//! recharge, deny, reset, and the console's own files.

mod common;

use common::*;
use serde_json::{json, Value};
use verify_sandbox::{Config, Sandbox};

fn ctl(path: &str, body: Value) -> Raw {
    post_body(path, "application/json", body.to_string().into_bytes())
}

fn ok_json(r: &Raw) -> Value {
    let v = r.json();
    assert_eq!(r.status, 200, "{v}");
    assert_eq!(v["ok"], true, "{v}");
    v
}

#[test]
fn programs_list_masks_the_app_key_and_hides_session_secrets() {
    let app = App::new();
    let r = get("/_sandbox/programs");
    assert!(!r.body.contains(&app.key), "app key shown: {}", r.body);
    assert!(!r.body.contains(&app.pw), "api password shown");
    let v = ok_json(&r);
    let p = v["programs"]
        .as_array()
        .expect("programs")
        .iter()
        .find(|p| p["app_id"] == app.id.as_str())
        .expect("our program")
        .clone();
    assert_eq!(p["app_key"], format!("{}****", &app.key[..4]), "{p}");
    assert!(p.get("api_passwords").is_none(), "{p}");
    assert_eq!(p["api_password_count"], 1, "{p}");
    assert_eq!(p["dialect"], "standard", "{p}");
}

#[test]
fn bulk_cards_are_created_listed_and_filtered() {
    let app = App::new();
    let v = ok_json(&ctl(
        "/_sandbox/cards/bulk",
        json!({"app_id": app.id, "count": 5, "kind": "duration", "duration": 2, "duration_type": "hour"}),
    ));
    let keys: Vec<String> = v["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .map(|k| k.as_str().expect("key").to_string())
        .collect();
    assert_eq!(keys.len(), 5);
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5, "{keys:?}");
    let counted = ok_json(&ctl(
        "/_sandbox/cards/bulk",
        json!({"app_id": app.id, "count": 2, "kind": "count", "total": 3}),
    ));
    let count_key = counted["cards"][0].as_str().expect("key").to_string();

    // Use one card: it becomes active with a device and a use count.
    app.card_token(&keys[0], "MAC-BULK-1");
    app.card_token(&count_key, "MAC-BULK-2");

    let all = ok_json(&get(&format!("/_sandbox/cards?app_id={}", app.id)));
    assert_eq!(all["cards"].as_array().expect("list").len(), 7, "{all}");
    let c0 = all["cards"]
        .as_array()
        .expect("list")
        .iter()
        .find(|c| c["card"] == keys[0].as_str())
        .expect("card 0")
        .clone();
    assert_eq!(c0["type_name"], "2小时卡", "{c0}");
    assert_eq!(c0["status"], "active");
    assert_eq!(c0["device_id"], "MAC-BULK-1");
    let cc = ok_json(&get(&format!(
        "/_sandbox/cards?app_id={}&q={}",
        app.id, count_key
    )));
    assert_eq!(cc["cards"].as_array().expect("list").len(), 1, "{cc}");
    assert_eq!(cc["cards"][0]["used"], 1);
    assert_eq!(cc["cards"][0]["remaining"], 2);

    let unused = ok_json(&get(&format!(
        "/_sandbox/cards?app_id={}&status=unused",
        app.id
    )));
    assert_eq!(
        unused["cards"].as_array().expect("list").len(),
        5,
        "{unused}"
    );
    let active = ok_json(&get(&format!(
        "/_sandbox/cards?app_id={}&status=active",
        app.id
    )));
    assert_eq!(
        active["cards"].as_array().expect("list").len(),
        2,
        "{active}"
    );

    for bad in [
        json!({"app_id": app.id, "count": 0}),
        json!({"app_id": app.id, "count": 1001}),
        json!({"app_id": app.id, "count": 1, "card": "FIXE-DKEY-0000-0001"}),
        json!({"app_id": app.id, "count": 1, "kind": "weird"}),
    ] {
        let r = ctl("/_sandbox/cards/bulk", bad.clone());
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        assert_eq!(r.json()["ok"], false);
    }
}

#[test]
fn ban_unban_and_delete_a_card() {
    let app = App::new();
    let card = app.day_card(30);
    let token = app.card_token(&card, "MAC-DEL-1");
    ok_json(&ctl(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": card, "op": "disable", "reason": "chargeback"}),
    ));
    let hb = app.heartbeat(&token, "card");
    assert_code(&hb, 1006);
    assert_eq!(hb["data"]["remark"], "chargeback");
    ok_json(&ctl(
        "/_sandbox/cards/update",
        json!({"app_id": app.id, "card": card, "op": "enable"}),
    ));
    assert_ok(&app.heartbeat(&token, "card"));

    ok_json(&ctl(
        "/_sandbox/cards/delete",
        json!({"app_id": app.id, "card": card}),
    ));
    assert_eq!(
        get(&format!(
            "/_sandbox/cards/get?app_id={}&card={card}",
            app.id
        ))
        .status,
        400
    );
    assert_code(&app.heartbeat(&token, "card"), 1007);
    assert_code(&app.single_login(&card, "MAC-DEL-1"), 1004);
    let r = ctl(
        "/_sandbox/cards/delete",
        json!({"app_id": app.id, "card": card}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
}

#[test]
fn accounts_list_masks_passwords_and_recharge_extends_the_expiry() {
    let app = App::new();
    app.account(
        "carol",
        "hunter2-secret",
        json!({"expire_at": "2001-01-01 00:00:00"}),
    );
    app.account("dave", "pw", json!({}));
    assert_code(&app.user_login("carol", "hunter2-secret", "MAC-C"), 1005);

    let r = get(&format!("/_sandbox/accounts?app_id={}", app.id));
    assert!(!r.body.contains("hunter2-secret"), "{}", r.body);
    let v = ok_json(&r);
    let list = v["accounts"].as_array().expect("accounts");
    assert_eq!(list.len(), 2, "{v}");
    assert_eq!(list[0]["username"], "carol");
    assert_eq!(list[0]["password"], "hunt****");
    assert_eq!(list[0]["status"], "expired");
    assert_eq!(list[1]["status"], "active");

    // Expired: counted from now.
    let v = ok_json(&ctl(
        "/_sandbox/accounts/recharge",
        json!({"app_id": app.id, "username": "carol", "days": 3}),
    ));
    assert_time_near(&v["expire_at"], now() + 3 * DAY, 5);
    let token = app.user_token("carol", "hunter2-secret", "MAC-C");
    assert_ok(&app.heartbeat(&token, "user"));
    // Not expired: added to the expiry.
    let v = ok_json(&ctl(
        "/_sandbox/accounts/recharge",
        json!({"app_id": app.id, "username": "carol", "hours": 12}),
    ));
    assert_time_near(&v["expire_at"], now() + 3 * DAY + 12 * 3600, 5);
    let list = ok_json(&get(&format!("/_sandbox/accounts?app_id={}&q=car", app.id)));
    assert_eq!(list["accounts"].as_array().expect("list").len(), 1);
    assert_eq!(
        list["accounts"][0]["device_id"], "MAC-C",
        "bound machine shown"
    );

    ok_json(&ctl(
        "/_sandbox/accounts/update",
        json!({"app_id": app.id, "username": "carol", "op": "ban", "reason": "abuse"}),
    ));
    let list = ok_json(&get(&format!(
        "/_sandbox/accounts?app_id={}&q=carol",
        app.id
    )));
    assert_eq!(list["accounts"][0]["status"], "banned");
    assert_code(&app.heartbeat(&token, "user"), 1006);

    for bad in [
        json!({"app_id": app.id, "username": "carol"}),
        json!({"app_id": app.id, "username": "nobody", "days": 1}),
    ] {
        assert_eq!(ctl("/_sandbox/accounts/recharge", bad).status, 400);
    }
}

#[test]
fn sessions_list_shows_heartbeats_with_masked_tokens() {
    let app = App::new();
    let card = app.day_card(30);
    let token = app.card_token(&card, "MAC-SESS-1");
    app.account("erin", "pw", json!({}));
    let utoken = app.user_token("erin", "pw", "MAC-SESS-2");
    assert_ok(&app.heartbeat(&token, "card"));
    let r = get(&format!("/_sandbox/sessions?app_id={}", app.id));
    assert!(
        !r.body.contains(&token) && !r.body.contains(&utoken),
        "{}",
        r.body
    );
    let v = ok_json(&r);
    let list = v["sessions"].as_array().expect("sessions");
    assert_eq!(list.len(), 2, "{v}");
    let c = list
        .iter()
        .find(|s| s["type"] == "card")
        .expect("card session");
    assert_eq!(c["subject"], card.as_str());
    assert_eq!(c["device_id"], "MAC-SESS-1");
    assert_eq!(c["token"], format!("{}****", &token[..4]));
    assert_time_near(&c["heartbeat_at"], now(), 5);
    let u = list
        .iter()
        .find(|s| s["type"] == "user")
        .expect("user session");
    assert_eq!(u["subject"], "erin");
}

#[test]
fn pending_social_sign_ins_are_listed_and_can_be_denied() {
    let app = App::new();
    app.account("frank", "pw", json!({"social_id": "wx-frank"}));
    let step1 = app.call(&[("action", "UserLogin"), ("LoginType", "social")]);
    let state = assert_ok(&step1)["state"]
        .as_str()
        .expect("state")
        .to_string();
    let reg = app.call(&[
        ("action", "UserRegin"),
        ("UserName", "gina"),
        ("BindSocial", "1"),
    ]);
    assert_ok(&reg);

    let v = ok_json(&get(&format!("/_sandbox/social?app_id={}", app.id)));
    let list = v["pending"].as_array().expect("pending");
    assert_eq!(list.len(), 2, "{v}");
    let login = list.iter().find(|p| p["kind"] == "login").expect("login");
    assert_eq!(login["state"], state.as_str());
    assert_eq!(login["authorized"], false);
    let register = list
        .iter()
        .find(|p| p["kind"] == "register")
        .expect("register");
    assert_eq!(register["username"], "gina");
    let reg_state = register["state"].as_str().expect("state").to_string();

    // Deny the login: its poll answers 1016 and ends the state.
    ok_json(&ctl("/_sandbox/social/deny", json!({"state": state})));
    let poll = app.call(&[
        ("action", "UserLogin"),
        ("LoginType", "social"),
        ("State", &state),
    ]);
    assert_code(&poll, 1016);
    // Deny the registration: no account is created.
    ok_json(&ctl("/_sandbox/social/deny", json!({"state": reg_state})));
    assert!(app.account_record("gina").is_none());
    let v = ok_json(&get(&format!("/_sandbox/social?app_id={}", app.id)));
    assert_eq!(v["pending"].as_array().expect("pending").len(), 0, "{v}");
    assert_eq!(
        ctl("/_sandbox/social/deny", json!({"state": "nope"})).status,
        400
    );
}

#[test]
fn reset_forgets_everything() {
    let sb = Sandbox::start(Config::default()).expect("start");
    let agent = new_agent();
    let base = sb.base_url();
    let post = |path: &str, body: Value| -> Value {
        let mut r = agent
            .post(format!("{base}{path}"))
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .expect("reply");
        serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON")
    };
    post(
        "/_sandbox/programs",
        json!({"app_id": "r1", "app_key": "K"}),
    );
    post(
        "/_sandbox/cards",
        json!({"app_id": "r1", "card": "RESE-T000-0000-0001"}),
    );
    post("/_sandbox/clock", json!({"shift": 3600}));
    assert!(sb.card("r1", "RESE-T000-0000-0001").is_some());
    let v = post("/_sandbox/reset", json!({}));
    assert_eq!(v["ok"], true, "{v}");
    assert!(sb.card("r1", "RESE-T000-0000-0001").is_none());
    let mut r = agent
        .get(format!("{base}/_sandbox/programs"))
        .call()
        .expect("reply");
    let v: Value =
        serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON");
    assert_eq!(v["programs"], json!([]), "{v}");
    assert!((sb.now() - system_now()).abs() <= 2, "the clock is back");
}

#[test]
fn console_files_are_served_and_only_with_get() {
    let page = get("/_sandbox/");
    assert_eq!(page.status, 200);
    assert!(
        page.content_type.starts_with("text/html"),
        "{}",
        page.content_type
    );
    assert!(page.body.contains("console.js"), "{}", page.body);
    assert!(
        !page.body.contains("http://") && !page.body.contains("https://"),
        "offline"
    );
    assert_eq!(get("/_sandbox").status, 200);
    let js = get("/_sandbox/console.js");
    assert_eq!(js.status, 200);
    assert!(js.content_type.starts_with("text/javascript"));
    assert!(js.body.contains("/_sandbox/cards/bulk"));
    let css = get("/_sandbox/console.css");
    assert_eq!(css.status, 200);
    assert!(css.content_type.starts_with("text/css"));
    assert_eq!(get("/_sandbox/nothing-here").status, 404);
    assert_eq!(get("/_sandbox/reset").status, 405);
    assert_eq!(ctl("/_sandbox/sessions", json!({})).status, 405);

    let off = Sandbox::start(Config {
        control: false,
        ..Config::default()
    })
    .expect("start");
    let mut r = new_agent()
        .get(format!("{}/_sandbox/", off.base_url()))
        .call()
        .expect("reply");
    assert_eq!(r.status().as_u16(), 404);
    let _ = r.body_mut().read_to_string();
}

/// What `scripts/demo.sh --url` relies on: loading the demo fixtures again puts the demo's
/// spent cards back as new, so the demo passes against a long-lived sandbox every time.
#[test]
fn reloading_the_demo_fixtures_makes_spent_cards_new_again() {
    let _clock = shared_clock();
    let demo = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/demo.json"))
        .expect("demo.json");
    let r = post_body("/_sandbox/fixtures", "application/json", demo.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    let (code, v) = init("10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
    assert_eq!(code, 200, "{v}");
    let pw = v["data"]["api_password"].as_str().expect("pw").to_string();
    let login = |mac: &str| {
        handle(
            &pw,
            &[
                ("action", "SingleLogin"),
                ("Card", "DEMO-CARD-0000-0001"),
                ("Mac", mac),
            ],
        )
    };
    assert_ok(&login("FIRST-RUN-MACHINE"));
    assert_code(&login("SECOND-RUN-MACHINE"), 1022);
    let r = post_body("/_sandbox/fixtures", "application/json", demo);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_ok(&login("SECOND-RUN-MACHINE"));
}

#[test]
fn faults_are_listed_with_the_uses_left() {
    let app = App::new();
    let set = |body: Value| ok_json(&ctl("/_sandbox/faults", body));
    set(json!({"kind": "delay", "app_id": app.id, "action": "GetBulletin", "delay_ms": 5}));
    set(json!({"kind": "http_502", "app_id": app.id, "action": "GetVariable", "count": 2}));
    let list = |app_id: &str| {
        ok_json(&get(&format!("/_sandbox/faults?app_id={app_id}")))["faults"]
            .as_array()
            .expect("faults")
            .clone()
    };
    let faults = list(&app.id);
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert_eq!(faults[0]["kind"], "delay");
    assert_eq!(faults[0]["count"], Value::Null);
    assert_eq!(faults[1]["count"], 2);
    // One use of the counted fault is spent by a matching request.
    let r = handle_raw(&app.pw, b"action=GetVariable");
    assert_eq!(r.status, 502);
    assert_eq!(list(&app.id)[1]["count"], 1);
    assert!(list("another-program")
        .iter()
        .all(|f| f["app_id"] != app.id.as_str()));
    ok_json(&ctl("/_sandbox/faults/clear", json!({"app_id": app.id})));
    assert_eq!(list(&app.id).len(), 0);
}
