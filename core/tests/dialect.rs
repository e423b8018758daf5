//! The five actions whose fields the spec does not show (GetLatestVersion, GetBulletin,
//! GetVariable, GetUserInfo, GetCardInfo) against a server that names them its own way: the
//! sandbox's `alternate` dialect renames fields, adds fields no client knows and leaves some
//! out. Each typed call still returns the server's 200 (never a protocol error); a renamed or
//! missing field reads as `None`; an extra field is readable through the reply; the
//! `standard` dialect gives every typed field.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::{unique, Program};
use serde_json::{json, Value};
use verify_core::actions::{FieldType, REPLIES};
use verify_core::{codes, Client, Reply};

/// A program with an account and a count card (so that `GetCardInfo` has every field).
struct Fixture<'a> {
    program: Program<'a>,
    client: Client,
    user: String,
    card: String,
}

fn fixture() -> Fixture<'static> {
    let program = Program::fresh();
    let user = unique("dialect");
    program.account(&user, "pw");
    let card = program.count_card("DIAL-ECTC-ARD0-0001", 3);
    let client = program.client();
    // Bind the account and activate the card, so that no field is empty by accident.
    client
        .user_login(&user, "pw", Some("DIALECT-MAC"))
        .expect("login");
    client
        .single_login(&card, "DIALECT-MAC", None)
        .expect("card login");
    Fixture {
        program,
        client,
        user,
        card,
    }
}

/// The typed fields of the view `view` (from the action table) that `reply` lacks or has
/// with another type, in table order.
fn fields_absent(view: &str, reply: &Reply) -> Vec<&'static str> {
    let spec = REPLIES
        .iter()
        .find(|spec| spec.name == view)
        .unwrap_or_else(|| panic!("no view {view} in the table"));
    spec.fields
        .iter()
        .filter(|field| {
            let value = reply.field(field.name);
            let typed = match field.ty {
                FieldType::Str | FieldType::Time => value.and_then(Value::as_str).is_some(),
                FieldType::Int => value.and_then(Value::as_i64).is_some(),
                FieldType::Bool => value.and_then(Value::as_bool).is_some(),
                FieldType::Map => value.and_then(Value::as_object).is_some(),
            };
            !typed
        })
        .map(|field| field.name)
        .collect()
}

/// One successful reply of each of the five actions (GetVariable twice: with and without a
/// name), with its view's name.
fn replies(f: &Fixture<'_>) -> Vec<(&'static str, Reply)> {
    let client = &f.client;
    vec![
        (
            "LatestVersion",
            client
                .get_latest_version(Some("1.0"))
                .expect("GetLatestVersion")
                .into_reply(),
        ),
        (
            "Bulletin",
            client.get_bulletin().expect("GetBulletin").into_reply(),
        ),
        (
            "Variable",
            client
                .get_variable("greeting")
                .expect("GetVariable")
                .into_reply(),
        ),
        (
            "Variables",
            client
                .get_variables()
                .expect("GetVariable without a name")
                .into_reply(),
        ),
        (
            "UserInfo",
            client
                .get_user_info(&f.user, "pw")
                .expect("GetUserInfo")
                .into_reply(),
        ),
        (
            "CardInfo",
            client
                .get_card_info(&f.card)
                .expect("GetCardInfo")
                .into_reply(),
        ),
    ]
}

fn assert_standard(f: &Fixture<'_>) {
    for (view, reply) in replies(f) {
        assert_eq!(reply.code(), codes::OK, "{view}");
        assert_eq!(
            fields_absent(view, &reply),
            Vec::<&str>::new(),
            "{view}: the standard dialect gives every typed field"
        );
    }
}

#[test]
fn the_standard_dialect_gives_every_typed_field() {
    let f = fixture();
    assert_standard(&f);

    // And through the accessors, with the values of the fixture.
    let client = &f.client;
    let version = client.get_latest_version(Some("1.0")).expect("version");
    assert_eq!(version.version(), Some("2.1.0"));
    assert_eq!(version.changelog(), Some("fixes"));
    assert_eq!(version.download_url(), Some("https://example.invalid/d"));
    assert_eq!(version.force_update(), Some(false));
    assert_eq!(version.has_update(), Some(true));
    let bulletin = client.get_bulletin().expect("bulletin");
    assert_eq!(bulletin.bulletin(), Some("公告 bulletin"));
    assert!(bulletin.updated_at().is_some_and(|at| at.len() == 19));
    let variable = client.get_variable("limit").expect("variable");
    assert_eq!(
        (variable.name(), variable.value()),
        (Some("limit"), Some("5"))
    );
    let variables = client.get_variables().expect("variables");
    assert_eq!(variables.variables().map(|all| all.len()), Some(2));
    let info = client.get_user_info(&f.user, "pw").expect("user info");
    assert_eq!(info.username(), Some(f.user.as_str()));
    assert_eq!(info.device_id(), Some("DIALECT-MAC"));
    assert_eq!(info.expire_at(), Some("2099-01-01 00:00:00"));
    assert_eq!(info.status(), Some("active"));
    assert!(info.user_id().is_some() && info.created_at().is_some());
    assert_eq!((info.bind_count(), info.bind_limit()), (Some(0), Some(0)));
    let card = client.get_card_info(&f.card).expect("card info");
    assert_eq!(card.card(), Some(f.card.as_str()));
    assert_eq!(card.card_type(), Some("次卡"));
    assert_eq!(card.status(), Some("active"));
    assert_eq!(card.is_times(), Some(true));
    assert_eq!(card.device_id(), Some("DIALECT-MAC"));
    assert!(card.activated_at().is_some_and(|at| at.len() == 19));
    assert!(card.expire_at().is_some_and(|at| at.starts_with("2099")));
    assert_eq!(
        (card.total(), card.used(), card.remaining()),
        (Some(3), Some(1), Some(2))
    );
}

#[test]
fn the_alternate_dialect_is_answered_not_refused() {
    let f = fixture();
    f.program
        .sandbox
        .set_dialect(&f.program.app_id, "alternate")
        .expect("dialect");
    let client = &f.client;

    // Which typed fields each view lacks in the alternate dialect (sandbox README,
    // "Dialects"): renamed ones and left-out ones; every other typed field is still there.
    let expected: [(&str, &[&str]); 6] = [
        (
            "LatestVersion",
            &["version", "changelog", "download_url", "has_update"],
        ),
        ("Bulletin", &["bulletin", "updated_at"]),
        ("Variable", &["name", "value"]),
        ("Variables", &["variables"]),
        (
            "UserInfo",
            &["username", "expire_at", "bind_limit", "created_at"],
        ),
        (
            "CardInfo",
            &["card", "card_type", "activated_at", "expire_at"],
        ),
    ];
    let replies = replies(&f);
    assert_eq!(replies.len(), expected.len());
    for ((view, reply), (expected_view, absent)) in replies.iter().zip(expected) {
        assert_eq!(*view, expected_view);
        assert_eq!(reply.code(), codes::OK, "{view}");
        assert_eq!(fields_absent(view, reply), absent, "{view}");
    }

    // The accessors say "absent" for renamed and missing fields, and read the others.
    let version = client.get_latest_version(Some("1.0")).expect("version");
    assert_eq!(version.version(), None);
    assert_eq!(version.changelog(), None);
    assert_eq!(version.download_url(), None);
    assert_eq!(version.has_update(), None, "left out");
    assert_eq!(version.force_update(), Some(false));
    let reply = version.reply();
    assert_eq!(reply.pointer("/data/latest_version"), Some(&json!("2.1.0")));
    assert_eq!(reply.pointer("/data/release_notes"), Some(&json!("fixes")));
    assert_eq!(
        reply.pointer("/data/download"),
        Some(&json!("https://example.invalid/d"))
    );
    assert_eq!(reply.pointer("/data/build"), Some(&json!(1024)));
    assert!(reply
        .pointer("/data/published_at")
        .is_some_and(Value::is_string));

    let bulletin = client.get_bulletin().expect("bulletin");
    assert_eq!((bulletin.bulletin(), bulletin.updated_at()), (None, None));
    let reply = bulletin.reply();
    assert_eq!(reply.pointer("/data/notice"), Some(&json!("公告 bulletin")));
    assert!(reply
        .pointer("/data/update_time")
        .is_some_and(Value::is_string));
    assert_eq!(reply.pointer("/data/id"), Some(&json!(1)));
    assert_eq!(reply.pointer("/data/pinned"), Some(&json!(false)));

    let variable = client.get_variable("greeting").expect("variable");
    assert_eq!((variable.name(), variable.value()), (None, None));
    let reply = variable.reply();
    assert_eq!(reply.pointer("/data/key"), Some(&json!("greeting")));
    assert_eq!(reply.pointer("/data/val"), Some(&json!("你好 & welcome")));
    assert_eq!(reply.str_field("type"), Some("string"));

    let variables = client.get_variables().expect("variables");
    assert_eq!(variables.variables(), None);
    let reply = variables.reply();
    assert_eq!(reply.pointer("/data/vars/limit"), Some(&json!("5")));
    assert_eq!(reply.int_field("count"), Some(2));

    let info = client.get_user_info(&f.user, "pw").expect("user info");
    assert_eq!(info.username(), None);
    assert_eq!(info.expire_at(), None);
    assert_eq!(info.bind_limit(), None, "left out");
    assert_eq!(info.created_at(), None, "left out");
    assert_eq!(info.device_id(), Some("DIALECT-MAC"));
    assert_eq!(info.status(), Some("active"));
    assert_eq!(info.bind_count(), Some(0));
    assert!(info.user_id().is_some());
    let reply = info.reply();
    assert_eq!(
        reply.pointer("/data/user_name"),
        Some(&json!(f.user.as_str()))
    );
    assert_eq!(
        reply.pointer("/data/expire_time"),
        Some(&json!("2099-01-01 00:00:00"))
    );
    assert_eq!(reply.pointer("/data/vip_level"), Some(&json!(0)));
    assert_eq!(reply.pointer("/data/email"), Some(&json!("")));

    let card = client.get_card_info(&f.card).expect("card info");
    assert_eq!(card.card(), None);
    assert_eq!(card.card_type(), None);
    assert_eq!(card.expire_at(), None);
    assert_eq!(card.activated_at(), None, "left out");
    assert_eq!(card.status(), Some("active"));
    assert_eq!(card.is_times(), Some(true));
    assert_eq!(card.device_id(), Some("DIALECT-MAC"));
    assert_eq!(
        (card.total(), card.used(), card.remaining()),
        (Some(3), Some(1), Some(2))
    );
    let reply = card.reply();
    assert_eq!(
        reply.pointer("/data/card_no"),
        Some(&json!(f.card.as_str()))
    );
    assert_eq!(reply.pointer("/data/type_name"), Some(&json!("次卡")));
    assert!(reply
        .pointer("/data/expire_time")
        .and_then(Value::as_str)
        .is_some_and(|at| at.starts_with("2099")));
    assert_eq!(reply.pointer("/data/price"), Some(&json!("0.00")));
    assert_eq!(reply.pointer("/data/batch"), Some(&json!("default")));

    // Refusals are unchanged by the dialect, and so are the other actions.
    assert_eq!(
        client
            .get_card_info("NONE-XIST-0000-0000")
            .expect_err("unknown card")
            .code(),
        codes::CARD_INVALID
    );
    assert_eq!(
        client
            .get_variable("absent")
            .expect_err("unknown variable")
            .code(),
        codes::INCOMPLETE_PARAMETERS
    );
    let login = client
        .user_login(&f.user, "pw", Some("DIALECT-MAC"))
        .expect("login");
    assert_eq!(login.username(), Some(f.user.as_str()));

    // Back to the standard dialect: every field again.
    f.program
        .sandbox
        .set_dialect(&f.program.app_id, "standard")
        .expect("dialect");
    assert_standard(&f);
}

#[test]
fn a_program_can_start_in_the_alternate_dialect() {
    let program = Program::new(common::sandbox(), json!({"dialect": "alternate"}));
    let client = program.client();
    let bulletin = client.get_bulletin().expect("bulletin");
    assert_eq!(bulletin.bulletin(), None);
    assert_eq!(
        bulletin.reply().str_field("notice"),
        Some("公告 bulletin"),
        "{:?}",
        bulletin.reply().json()
    );
}
