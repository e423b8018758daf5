//! The `alternate` response dialect (README "Dialects"): other field names, extra fields and
//! missing documented ones in five replies, still code 200; per program; switched by the
//! control API or `Sandbox::set_dialect`.

mod common;

use common::*;
use serde_json::{json, Value};

fn set(app: &App, dialect: &str) -> Raw {
    post_body(
        "/_sandbox/dialect",
        "application/json",
        json!({"app_id": app.id, "dialect": dialect})
            .to_string()
            .into_bytes(),
    )
}

#[track_caller]
fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v["data"]
        .as_object()
        .unwrap_or_else(|| panic!("data object: {v}"))
        .keys()
        .cloned()
        .collect();
    k.sort();
    k
}

fn calls(app: &App, card: &str) -> [Value; 6] {
    [
        app.call(&[("action", "GetLatestVersion"), ("Version", "1.0.0")]),
        app.call(&[("action", "GetBulletin")]),
        app.call(&[("action", "GetVariable"), ("Name", "greeting")]),
        app.call(&[("action", "GetVariable")]),
        app.call(&[
            ("action", "GetUserInfo"),
            ("UserName", "ann"),
            ("Password", "pw"),
        ]),
        app.call(&[("action", "GetCardInfo"), ("Card", card)]),
    ]
}

#[test]
fn alternate_renames_adds_and_drops_fields_with_code_200() {
    let app = App::new();
    app.account("ann", "pw", json!({}));
    let card = app.day_card(30);
    let standard = calls(&app, &card);
    for v in &standard {
        assert_ok(v);
    }
    assert_eq!(
        keys(&standard[0]),
        [
            "changelog",
            "download_url",
            "force_update",
            "has_update",
            "version"
        ]
    );

    let r = set(&app, "alternate");
    assert_eq!(r.status, 200, "{}", r.body);
    let alt = calls(&app, &card);
    for v in &alt {
        assert_ok(v);
    }
    let [ver, bul, var, vars, user, cardinfo] = &alt;
    assert_eq!(
        keys(ver),
        [
            "build",
            "download",
            "force_update",
            "latest_version",
            "published_at",
            "release_notes"
        ]
    );
    assert_eq!(ver["data"]["latest_version"], "1.2.0");
    assert_eq!(ver["data"]["download"], standard[0]["data"]["download_url"]);
    assert_eq!(keys(bul), ["id", "notice", "pinned", "update_time"]);
    assert_eq!(bul["data"]["notice"], standard[1]["data"]["bulletin"]);
    assert_eq!(keys(var), ["key", "type", "val"]);
    assert_eq!(var["data"]["val"], "hello");
    assert_eq!(keys(vars), ["count", "vars"]);
    assert_eq!(vars["data"]["vars"], standard[3]["data"]["variables"]);
    let u = keys(user);
    for present in [
        "user_name",
        "expire_time",
        "vip_level",
        "email",
        "user_id",
        "status",
    ] {
        assert!(u.contains(&present.to_string()), "{present}: {u:?}");
    }
    for absent in ["username", "expire_at", "bind_limit", "created_at"] {
        assert!(!u.contains(&absent.to_string()), "{absent}: {u:?}");
    }
    let c = keys(cardinfo);
    for present in [
        "card_no",
        "type_name",
        "expire_time",
        "price",
        "batch",
        "status",
    ] {
        assert!(c.contains(&present.to_string()), "{present}: {c:?}");
    }
    for absent in ["card", "card_type", "expire_at", "activated_at"] {
        assert!(!c.contains(&absent.to_string()), "{absent}: {c:?}");
    }

    // Errors and the other actions are unchanged.
    let e = app.call(&[("action", "GetVariable"), ("Name", "nope")]);
    assert_code(&e, 1013);
    let login = app.single_login(&card, "MAC-DIALECT");
    assert!(assert_ok(&login)["token"].is_string());

    // Per program: another program keeps the standard names.
    let other = app.other(json!({}));
    let v = other.call(&[("action", "GetBulletin")]);
    assert_eq!(keys(&v), ["bulletin", "updated_at"]);

    // Back to standard, through the library.
    sb().set_dialect(&app.id, "standard").expect("set_dialect");
    let back = calls(&app, &card);
    for (a, b) in back.iter().zip(standard.iter()) {
        assert_eq!(keys(a), keys(b));
    }
}

#[test]
fn unknown_dialects_and_programs_are_refused() {
    let app = App::new();
    let r = set(&app, "klingon");
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("klingon"), "{}", r.body);
    assert!(sb().set_dialect("no-such-program", "alternate").is_err());
    // In fixtures too.
    let bad = verify_sandbox::Fixtures::from_value(
        json!({"programs": [{"app_id": "d1", "app_key": "K", "dialect": "x"}]}),
    )
    .expect("parses");
    assert!(sb().load(bad).is_err());
    let good = verify_sandbox::Fixtures::from_value(
        json!({"programs": [{"app_id": unique_app_id(), "app_key": "K", "dialect": "alternate"}]}),
    )
    .expect("parses");
    assert!(sb().load(good).is_ok());
}
