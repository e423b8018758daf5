//! Social sign-in and social registration (docs/protocol.md: the social rows of #states, #social-sign-in, #userregin; README social).

mod common;

use common::*;
use serde_json::{json, Value};

const URL_PREFIX: &str = "https://social.example.invalid/oauth/authorize?state=";

fn step1(app: &App) -> (String, String) {
    let v = app.call(&[("action", "UserLogin"), ("LoginType", "social")]);
    let d = assert_ok(&v);
    let url = d["url"].as_str().expect("url").to_string();
    let state = d["state"].as_str().expect("state").to_string();
    assert!(!state.is_empty(), "{v}");
    assert_eq!(url, format!("{URL_PREFIX}{state}"), "{v}");
    (url, state)
}

fn step2(app: &App, state: &str, mac: Option<&str>) -> Value {
    let mut p = vec![
        ("action", "UserLogin"),
        ("LoginType", "social"),
        ("State", state),
    ];
    if let Some(m) = mac {
        p.push(("Mac", m));
    }
    app.call(&p)
}

#[test]
fn social_login_step1_gives_url_and_state() {
    let app = App::new();
    let (_, s1) = step1(&app);
    let (_, s2) = step1(&app);
    assert_ne!(s1, s2, "each step 1 starts a new authorization");
}

#[test]
fn social_login_pending_then_authorized() {
    let app = App::new();
    app.account(
        "fiona",
        "pw",
        json!({"social_id": "sid-fiona", "expire_at": "2032-02-02 02:02:02"}),
    );
    let (_, state) = step1(&app);
    for _ in 0..2 {
        let v = step2(&app, &state, None);
        assert_eq!(v["code"], 201, "pending: {v}");
        assert!(v["message"].is_string());
    }
    sb().authorize_social(&state, "sid-fiona", "Fiona F.")
        .expect("authorize");
    let mac = unique_mac();
    let v = step2(&app, &state, Some(&mac));
    let d = assert_ok(&v);
    assert_eq!(d["username"], "fiona");
    assert_eq!(d["remark"], "Fiona F.", "remark is the display name: {v}");
    assert_eq!(d["status"], "active");
    assert_eq!(d["expire_at"], "2032-02-02 02:02:02");
    assert_eq!(
        d["device_id"],
        mac.as_str(),
        "Mac is updated onto the account: {v}"
    );
    assert_token(&d["token"]);
    assert_eq!(
        app.account_record("fiona").unwrap()["device_id"],
        mac.as_str()
    );
    // the token is a live user session
    assert_ok(&app.heartbeat(d["token"].as_str().unwrap(), "user"));
    // the state was consumed by the answer that ended it
    assert_code(&step2(&app, &state, None), 1013);
}

#[test]
fn social_login_with_unbound_identity_is_1016() {
    let app = App::new();
    app.account("gabe", "pw", json!({"social_id": "sid-gabe"}));
    let (_, state) = step1(&app);
    sb().authorize_social(&state, "sid-stranger", "Stranger")
        .expect("authorize");
    assert_code(&step2(&app, &state, None), 1016);
    // an identity bound in another program does not count
    let other = app.other(json!({}));
    other.account("hank", "pw", json!({"social_id": "sid-hank"}));
    let (_, state) = step1(&app);
    sb().authorize_social(&state, "sid-hank", "Hank")
        .expect("authorize");
    assert_code(&step2(&app, &state, None), 1016);
}

#[test]
fn social_login_unknown_state_is_1013() {
    let app = App::new();
    assert_code(&step2(&app, "no-such-state", None), 1013);
}

#[test]
fn authorize_unknown_state_is_refused() {
    let _g = shared_clock();
    assert!(sb()
        .authorize_social("never-issued-state", "x", "y")
        .is_err());
}

fn social_regin(app: &App, user: &str) -> String {
    let v = app.call(&[
        ("action", "UserRegin"),
        ("UserName", user),
        ("BindSocial", "1"),
    ]);
    let d = assert_ok(&v);
    let url = d["url"].as_str().expect("url");
    assert!(url.starts_with(URL_PREFIX), "{v}");
    let state = url[URL_PREFIX.len()..].to_string();
    assert!(!state.is_empty());
    state
}

#[test]
fn social_registration_creates_the_account_only_after_authorization() {
    let app = App::new();
    let state = social_regin(&app, "iris");
    assert!(
        app.account_record("iris").is_none(),
        "not created before authorization"
    );
    sb().authorize_social(&state, "sid-iris", "Iris")
        .expect("authorize");
    let rec = app
        .account_record("iris")
        .expect("created after authorization");
    assert_eq!(rec["social_id"], "sid-iris", "{rec}");
    assert!(
        parse_bj(rec["expire_at"].as_str().unwrap()) <= now(),
        "no card: expired: {rec}"
    );
    // the new account is bound to the identity: a social login finds it (not 1016)
    let (_, s) = step1(&app);
    sb().authorize_social(&s, "sid-iris", "Iris")
        .expect("authorize");
    let v = step2(&app, &s, None);
    assert_ne!(code(&v), 1016, "identity bound by registration: {v}");
    assert_ne!(code(&v), 201, "{v}");
}

#[test]
fn social_registration_does_not_reserve_the_username() {
    let app = App::new();
    let state = social_regin(&app, "jack");
    // somebody else registers the name meanwhile
    assert_ok(&app.call(&[
        ("action", "UserRegin"),
        ("UserName", "jack"),
        ("Password", "pw"),
    ]));
    assert!(
        sb().authorize_social(&state, "sid-jack", "Jack").is_err(),
        "authorization refused: name taken"
    );
    let rec = app.account_record("jack").unwrap();
    assert!(
        rec["social_id"].is_null(),
        "the password account is untouched: {rec}"
    );
    assert_code(&app.user_login("jack", "pw", &unique_mac()), 1005);
}

#[test]
fn social_registration_needs_username_but_not_password() {
    let app = App::new();
    assert_code(
        &app.call(&[("action", "UserRegin"), ("BindSocial", "1")]),
        1013,
    );
    social_regin(&app, "kate");
}
