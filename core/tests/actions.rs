//! Every typed call against the sandbox: documented fields of each reply, the refusals
//! with their code, message and remark, and the two social flows.

#[path = "../../tests/common/mod.rs"]
mod common;

use common::{unique, Program};
use serde_json::{json, Value};
use verify_core::{codes, ErrorKind, SessionKind};

#[test]
fn card_mode_login_heartbeat_and_message() {
    let program = Program::fresh();
    let card = program.day_card("DAYC-ARD0-0000-0001", 30);
    let client = program.client();

    let login = client
        .single_login(&card, "MACHINE-A", Some("desk"))
        .expect("login");
    let token = login.token().expect("token");
    assert_eq!(token.len(), 40);
    assert_eq!(login.status(), Some("active"));
    assert_eq!(login.is_times(), Some(false));
    assert_eq!(login.card_type(), Some("月卡"));
    let expire_at = login.expire_at().expect("expire_at");
    assert_eq!(expire_at.len(), 19, "{expire_at}");
    assert_eq!(
        (login.total(), login.used(), login.remaining()),
        (None, None, None),
        "no count fields for a duration card"
    );

    program
        .sandbox
        .leave_card_message(&program.app_id, &card, "维护通知")
        .expect("message");
    let beat = client
        .heartbeat(token, SessionKind::Card, Some("10.0.0.1"))
        .expect("heartbeat");
    assert_eq!(beat.status(), Some("active"));
    assert_eq!(beat.expire_at(), Some(expire_at));
    assert_eq!(beat.msg(), Some("维护通知"));
    let again = client
        .heartbeat(token, SessionKind::Card, None)
        .expect("heartbeat");
    assert_eq!(
        again.msg().filter(|msg| !msg.is_empty()),
        None,
        "the message is delivered once"
    );

    let other = client
        .single_login(&card, "MACHINE-B", None)
        .expect_err("other machine");
    assert_eq!(other.code(), 1022);
    assert_eq!(other.remark(), Some("MACHINE-A"));
}

#[test]
fn count_card_reports_uses_and_runs_out() {
    let program = Program::fresh();
    let card = program.count_card("COUN-TCAR-D000-0001", 2);
    let client = program.client();
    let first = client.single_login(&card, "M1", None).expect("first use");
    assert_eq!(first.is_times(), Some(true));
    assert_eq!(
        (first.total(), first.used(), first.remaining()),
        (Some(2), Some(1), Some(1))
    );
    let expire_at = first.expire_at().unwrap_or_default();
    assert!(expire_at.starts_with("2099"), "{expire_at}");
    let second = client.single_login(&card, "M1", None).expect("second use");
    assert_eq!(second.remaining(), Some(0));
    let third = client.single_login(&card, "M1", None).expect_err("used up");
    assert_eq!(third.code(), 1005);
    assert_eq!(third.kind(), ErrorKind::Server(1005));
    assert!(!third.message().is_empty(), "the server's message is kept");
    let info = client.get_card_info(&card).expect("card info");
    assert_eq!((info.used(), info.remaining()), (Some(2), Some(0)));
}

#[test]
fn refusals_carry_code_message_and_remark() {
    let program = Program::fresh();
    let card = program.day_card("DISA-BLED-0000-0001", 30);
    program
        .sandbox
        .update_card(&program.app_id, &card, "disable", Some("退款处理中"))
        .expect("disable");
    let client = program.client();
    let err = client.single_login(&card, "M", None).expect_err("disabled");
    assert_eq!(err.code(), 1006);
    assert_eq!(err.remark(), Some("退款处理中"));
    let reply = err.reply().expect("the server's reply is kept");
    assert_eq!(reply.code(), 1006);
    assert!(err.to_string().contains("退款处理中"), "{err}");

    let err = client
        .single_login("NONE-XIST-0000-0000", "M", None)
        .expect_err("unknown");
    assert_eq!(err.code(), 1004);

    let err = client.single_login("", "M", None).expect_err("empty card");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn account_flow_register_login_recharge_rebind() {
    let program = Program::new(common::sandbox(), json!({"max_rebinds": 3}));
    let reg_card = program.day_card("REGI-STER-0000-0001", 30);
    let recharge_card = program.day_card("RECH-ARGE-0000-0001", 7);
    let renew_card = program.day_card("RENE-WCAR-D000-0001", 10);
    let client = program.client();
    let user = unique("user");

    let reg = client
        .user_register(
            &user,
            "pw-1",
            Some(&reg_card),
            Some("MAC-A"),
            Some("laptop"),
        )
        .expect("register with card");
    assert_eq!(reg.username(), Some(user.as_str()));
    assert!(reg.user_id().is_some_and(|id| id > 0), "{reg:?}");
    assert_eq!(reg.token().map(str::len), Some(40));
    assert_eq!(reg.status(), Some("active"));

    let session = client
        .user_login(&user, "pw-1", Some("MAC-A"))
        .expect("login");
    assert_eq!(session.username(), Some(user.as_str()));
    assert_eq!(session.device_id(), Some("MAC-A"));
    let token = session.token().expect("token");
    assert_eq!(token.len(), 40);
    let beat = client
        .heartbeat(token, SessionKind::User, None)
        .expect("heartbeat");
    assert!(session.expire_at().is_some());
    assert_eq!(beat.expire_at(), session.expire_at());

    let wrong = client
        .user_login(&user, "nope", Some("MAC-A"))
        .expect_err("password");
    assert_eq!(wrong.code(), 1003);
    let moved = client
        .user_login(&user, "pw-1", Some("MAC-B"))
        .expect_err("machine");
    assert_eq!(moved.code(), 1022);
    assert_eq!(moved.remark(), Some("MAC-A"));

    let recharge = client
        .user_recharge(&user, &recharge_card)
        .expect("recharge");
    assert_eq!(recharge.username(), Some(user.as_str()));
    assert_eq!(recharge.added_days(), Some("7天"));
    let recharged_to = recharge.expire_at().expect("expire_at");
    assert!(Some(recharged_to) > session.expire_at(), "{recharged_to}");

    let renewal = client
        .user_login_with_card(&user, "pw-1", &renew_card, Some("MAC-A"))
        .expect("renewal");
    assert_eq!(renewal.added_days(), Some(10));
    let renewed_to = renewal.expire_at().expect("expire_at");
    assert!(renewed_to > recharged_to, "{renewed_to}");

    let rebind = client.change_bind(&user, "pw-1", "MAC-B").expect("rebind");
    assert_eq!(
        (rebind.device_id(), rebind.bind_count(), rebind.bind_limit()),
        (Some("MAC-B"), Some(1), Some(3))
    );
    let same = client
        .change_bind(&user, "pw-1", "MAC-B")
        .expect_err("same machine");
    assert_eq!(same.code(), 1020);
    let after = client
        .user_login(&user, "pw-1", Some("MAC-B"))
        .expect("login on B");
    assert_eq!(after.device_id(), Some("MAC-B"));

    client
        .update_password(&user, "pw-1", "pw-2")
        .expect("password change");
    assert_eq!(
        client
            .user_login(&user, "pw-1", None)
            .expect_err("old")
            .code(),
        1003
    );
    let info = client.get_user_info(&user, "pw-2").expect("user info");
    assert_eq!(
        (info.username(), info.bind_count(), info.bind_limit()),
        (Some(user.as_str()), Some(1), Some(3))
    );
    assert_eq!(info.user_id(), reg.user_id());
}

#[test]
fn registration_without_card_is_expired_and_login_says_1005() {
    let program = Program::fresh();
    let client = program.client();
    let user = unique("nocard");
    let reg = client
        .user_register(&user, "pw", None, None, None)
        .expect("register");
    assert_eq!(reg.username(), Some(user.as_str()));
    assert_eq!(reg.token(), None);
    assert_eq!(reg.status(), None);
    assert_eq!(
        client
            .user_login(&user, "pw", None)
            .expect_err("expired")
            .code(),
        1005
    );
    let taken = client
        .user_register(&user, "pw", None, None, None)
        .expect_err("taken");
    assert_eq!(taken.code(), 1017);
    let count = program.count_card("COUN-TREG-0000-0001", 3);
    let refused = client
        .user_register(&unique("cc"), "pw", Some(&count), None, None)
        .expect_err("count card");
    assert_eq!(refused.code(), 1024);
}

#[test]
fn heartbeat_refusals() {
    let program = Program::fresh();
    let client = program.client();
    let bogus = "x".repeat(40);
    assert_eq!(
        client
            .heartbeat(&bogus, SessionKind::Card, None)
            .expect_err("no session")
            .code(),
        1007
    );
    let user = unique("ban");
    program.account(&user, "pw");
    let session = client.user_login(&user, "pw", None).expect("login");
    program
        .sandbox
        .update_account(&program.app_id, &user, "ban", Some("违规使用"))
        .expect("ban");
    let err = client
        .heartbeat(session.token().expect("token"), SessionKind::User, None)
        .expect_err("banned");
    assert_eq!(err.code(), 1006);
    assert_eq!(err.remark(), Some("违规使用"));
}

#[test]
fn program_information_actions() {
    let program = Program::fresh();
    let client = program.client();
    let version = client.get_latest_version(Some("2.0.9")).expect("version");
    assert_eq!(version.version(), Some("2.1.0"));
    assert_eq!(version.has_update(), Some(true));
    assert_eq!(version.force_update(), Some(false));
    assert_eq!(version.changelog(), Some("fixes"));
    assert_eq!(version.download_url(), Some("https://example.invalid/d"));
    assert_eq!(
        client
            .get_latest_version(Some("2.1.0"))
            .expect("same")
            .has_update(),
        Some(false)
    );
    assert_eq!(
        client.get_bulletin().expect("bulletin").bulletin(),
        Some("公告 bulletin")
    );
    let greeting = client.get_variable("greeting").expect("variable");
    assert_eq!(greeting.name(), Some("greeting"));
    assert_eq!(greeting.value(), Some("你好 & welcome"));
    let all = client.get_variables().expect("variables");
    let variables = all.variables().expect("variables");
    assert_eq!(variables.get("limit").and_then(Value::as_str), Some("5"));
    assert_eq!(
        variables.get("greeting").and_then(Value::as_str),
        Some("你好 & welcome")
    );
    assert_eq!(
        client.get_variable("absent").expect_err("unknown").code(),
        1013
    );
}

#[test]
fn generic_call_reaches_any_action() {
    let program = Program::fresh();
    let client = program.client();
    let reply = client
        .call("GetVariable", &[("Name", "limit")])
        .expect("call");
    assert_eq!(reply.code(), codes::OK);
    assert_eq!(reply.field("value").and_then(Value::as_str), Some("5"));
    assert_eq!(reply.str_field("value"), Some("5"));
    assert_eq!(
        reply.pointer("/data/value").and_then(Value::as_str),
        Some("5")
    );
    let unknown = client
        .call("NoSuchAction", &[])
        .expect_err("unknown action");
    assert_eq!(unknown.code(), 1015);
}

#[test]
fn social_login_and_registration() {
    let program = Program::fresh();
    let client = program.client();
    let user = unique("social");

    let registration = client
        .social_register_start(&user, Some("MAC-S"), None)
        .expect("social registration");
    let url = registration.url().expect("url");
    assert!(url.starts_with("https://"), "{url}");
    let reg_state = registration.state().expect("state in the URL");
    assert!(
        program.sandbox.account(&program.app_id, &user).is_none(),
        "not created yet"
    );
    program
        .sandbox
        .authorize_social(&reg_state, "openid-42", "小明")
        .expect("authorize registration");
    assert!(program.sandbox.account(&program.app_id, &user).is_some());

    let start = client.social_login_start(Some("MAC-S")).expect("step 1");
    let state = start.state().expect("state");
    assert!(!state.is_empty());
    let pending = client.social_login_poll(state, None).expect("pending");
    assert_eq!(pending.reply().code(), codes::PENDING);
    assert_eq!(pending.token(), None, "no session while pending");
    program
        .sandbox
        .authorize_social(state, "openid-42", "小明")
        .expect("authorize login");
    let session = client.social_login_poll(state, None).expect("step 2");
    assert_eq!(
        session.reply().code(),
        codes::OK,
        "still pending after authorization"
    );
    assert_eq!(session.username(), Some(user.as_str()));
    assert_eq!(session.remark(), Some("小明"));
    assert_eq!(session.token().map(str::len), Some(40));

    let unbound = client.social_login_start(None).expect("step 1");
    let unbound_state = unbound.state().expect("state");
    program
        .sandbox
        .authorize_social(unbound_state, "openid-unbound", "路人")
        .expect("authorize");
    assert_eq!(
        client
            .social_login_poll(unbound_state, None)
            .expect_err("unbound")
            .code(),
        codes::USER_NOT_REGISTERED
    );
}

#[test]
fn values_with_reserved_characters_round_trip_unchanged() {
    let program = Program::fresh();
    let client = program.client();
    for (name, password) in [
        ("a&b=c+d%e;f g", "p&a=s+s %;"),
        ("张三 李四", "密码+%20&="),
        ("~-_.!*'()", "+++%%%"),
    ] {
        let user = format!("{name}{}", unique(""));
        let reg = client
            .user_register(&user, password, None, None, None)
            .expect("register");
        assert_eq!(
            reg.username(),
            Some(user.as_str()),
            "username came back changed"
        );
        let info = client
            .get_user_info(&user, password)
            .expect("the password decoded exactly");
        assert_eq!(info.username(), Some(user.as_str()));
    }
}
