//! What the API promises: reply views whose fields say
//! "absent" instead of failing a call, base URLs parsed in full by `Client::new`, empty
//! optional strings never sent, and `Ok` for codes 200 and 201 only.

#[path = "../../tests/common/mod.rs"]
mod common;
mod fake;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use common::{Program, APP_KEY};
use fake::{FakeServer, Request, Response};
use serde_json::{json, Value};
use verify_core::actions::{FieldType, ParamKind, ACTIONS, REPLIES};
use verify_core::{codes, Client, ErrorKind, Reply, SessionKind};

// ---------------------------------------------------------------------------------------
// Base URLs

#[test]
fn client_new_refuses_malformed_base_urls_and_says_what_to_pass() {
    for (url, says) in [
        // A non-ASCII host (ABI 1 panicked on it).
        ("http://例子.cn", "xn--"),
        ("https://bücher.example/", "xn--"),
        // A port out of range (ABI 1 accepted it and failed later with a DNS error).
        ("http://h:99999", "1..65535"),
        ("http://h:0", "1..65535"),
        // The path of the service: the client adds it.
        ("http://h/api/verify", "pass http://h"),
        ("http://h/api/verify/", "pass http://h"),
        (
            "https://h:8443/prefix/api/verify",
            "pass https://h:8443/prefix",
        ),
        ("http://h/API/Verify/secret", "pass http://h"),
        // The rest of the grammar.
        ("h:8080", "http://"),
        ("ftp://h", "http://"),
        ("http://", "host"),
        ("http://user:pw@h", "user"),
        ("http://h/?x=1", "query"),
        ("http://h/#top", "fragment"),
        ("http://h x", "spaces"),
    ] {
        let err = Client::new(url, "1", APP_KEY).expect_err(url);
        assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{url}: {err:?}");
        assert_eq!(err.code(), codes::ERR_INVALID_ARGUMENT, "{url}");
        assert!(
            err.message().contains("base_url") && err.message().contains(says),
            "{url}: {}",
            err.message()
        );
    }
    // The suggestion is the URL to pass, exactly.
    let err = Client::new("http://h/api/verify", "1", APP_KEY).expect_err("path");
    assert!(
        err.message().ends_with("pass http://h"),
        "{}",
        err.message()
    );
    // The user information is not repeated in the message.
    let err = Client::new("http://user:hunter2@h", "1", APP_KEY).expect_err("userinfo");
    assert!(!err.message().contains("hunter2"), "{}", err.message());

    for url in [
        "http://127.0.0.1:1",
        "HTTPS://Example.COM/",
        "https://xn--bcher-kva.example:65535/prefix/",
        "http://[::1]:8080",
        "http://localhost/api/verify-not",
    ] {
        Client::new(url, "1", APP_KEY).unwrap_or_else(|err| panic!("{url}: {err}"));
    }
    assert_eq!(
        Client::new("http://h", "", APP_KEY)
            .expect_err("app_id")
            .kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        Client::new("http://h", "1", "")
            .expect_err("app_key")
            .kind(),
        ErrorKind::InvalidArgument
    );
}

#[test]
fn a_base_url_with_a_trailing_slash_reaches_the_service() {
    let program = Program::fresh();
    let url = format!("{}/", program.sandbox.base_url());
    let client = Client::new(&url, &program.app_id, APP_KEY).expect("client");
    client.get_bulletin().expect("bulletin");
    let paths: Vec<String> = program
        .sandbox
        .request_log(Some(&program.app_id))
        .into_iter()
        .map(|entry| entry.path)
        .collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert_eq!(paths[0], "/api/verify");
    assert!(paths[1].starts_with("/api/verify/"), "{paths:?}");
}

// ---------------------------------------------------------------------------------------
// Reply views

/// The typed field names of the view `view`, from the table.
fn table_fields(view: &str) -> Vec<&'static str> {
    REPLIES
        .iter()
        .find(|spec| spec.name == view)
        .unwrap_or_else(|| panic!("no view {view} in the table"))
        .fields
        .iter()
        .map(|field| field.name)
        .collect()
}

/// `data` with every typed field of `view`, each with a type other than the table's.
fn mistyped(view: &str) -> Value {
    let spec = REPLIES.iter().find(|spec| spec.name == view).expect("view");
    let mut data = serde_json::Map::new();
    for field in spec.fields {
        let wrong = match field.ty {
            FieldType::Str | FieldType::Time => json!(7),
            FieldType::Int => json!("7"),
            FieldType::Bool => json!("true"),
            FieldType::Map => json!(["a", "b"]),
        };
        data.insert(field.name.to_owned(), wrong);
    }
    Value::Object(data)
}

/// Checks that a view's accessor list is the table's, and, when `reply` gives a reply for
/// the view, that every accessor reads `None`. Gives the view's name.
macro_rules! all_absent {
    ($reply:expr, $ty:ident { $($field:ident),* $(,)? }) => {{
        assert_eq!(
            vec![$(stringify!($field)),*],
            table_fields(stringify!($ty)),
            "the accessors listed here for {} are not the table's",
            stringify!($ty)
        );
        if let Some(reply) = $reply(stringify!($ty)) {
            let view = verify_core::$ty::from(reply);
            $(
                assert_eq!(
                    view.$field(),
                    None,
                    "{}::{} of {:?}",
                    stringify!($ty),
                    stringify!($field),
                    view.reply().json()
                );
            )*
        }
        stringify!($ty)
    }};
}

/// For each reply view of the table, the reply `reply` gives for it (if any) must read
/// `None` in every typed field. Gives the names of every view of the table, in order.
fn every_view_absent(reply: &dyn Fn(&str) -> Option<Reply>) -> Vec<&'static str> {
    vec![
        all_absent!(
            reply,
            CardLogin {
                token,
                status,
                is_times,
                card_type,
                expire_at,
                total,
                used,
                remaining
            }
        ),
        all_absent!(
            reply,
            UserSession {
                username,
                device_id,
                expire_at,
                status,
                token,
                remark
            }
        ),
        all_absent!(
            reply,
            Renewal {
                username,
                expire_at,
                added_days,
                status
            }
        ),
        all_absent!(
            reply,
            Registration {
                username,
                user_id,
                expire_at,
                token,
                status
            }
        ),
        all_absent!(reply, PasswordChanged { username }),
        all_absent!(
            reply,
            Rebind {
                username,
                device_id,
                bind_count,
                bind_limit
            }
        ),
        all_absent!(
            reply,
            Heartbeat {
                expire_at,
                status,
                msg
            }
        ),
        all_absent!(
            reply,
            Recharge {
                username,
                expire_at,
                added_days,
                status
            }
        ),
        all_absent!(
            reply,
            LatestVersion {
                version,
                changelog,
                download_url,
                force_update,
                has_update
            }
        ),
        all_absent!(
            reply,
            Bulletin {
                bulletin,
                updated_at
            }
        ),
        all_absent!(reply, Variable { name, value }),
        all_absent!(reply, Variables { variables }),
        all_absent!(
            reply,
            UserInfo {
                username,
                user_id,
                device_id,
                expire_at,
                status,
                bind_count,
                bind_limit,
                remark,
                created_at
            }
        ),
        all_absent!(
            reply,
            CardInfo {
                card,
                card_type,
                status,
                is_times,
                device_id,
                activated_at,
                expire_at,
                duration,
                duration_type,
                total,
                used,
                remaining
            }
        ),
        all_absent!(reply, SocialStart { url, state }),
        all_absent!(reply, SocialRegistration { url }),
    ]
}

fn body(code: i32, data: &Value) -> Reply {
    Reply::from_body(
        json!({"code": code, "message": "m", "data": data})
            .to_string()
            .as_bytes(),
    )
    .expect("an envelope")
}

#[test]
fn every_view_reads_absent_or_mistyped_fields_as_none() {
    let mut checked = Vec::new();
    for data in [
        json!(null),
        json!([]),
        json!({}),
        json!({"unrelated": 1, "nested": {"token": "t"}}),
    ] {
        checked = every_view_absent(&|_| Some(body(200, &data)));
    }
    let again = every_view_absent(&|view| Some(body(200, &mistyped(view))));
    assert_eq!(checked, again);
    let all: BTreeSet<&str> = REPLIES.iter().map(|spec| spec.name).collect();
    let covered: BTreeSet<&str> = checked.into_iter().collect();
    assert_eq!(covered, all, "every view of the table is checked");

    // Numbers that are not 64-bit integers, and booleans written otherwise.
    let odd = body(
        200,
        &json!({"total": 1.5, "used": 1e30, "remaining": -0.0, "is_times": 1, "token": null}),
    );
    let login = verify_core::CardLogin::from(odd);
    assert_eq!(
        (login.total(), login.used(), login.remaining()),
        (None, None, None)
    );
    assert_eq!((login.is_times(), login.token()), (None, None));
    // The reply still holds them all.
    assert_eq!(login.reply().pointer("/data/total"), Some(&json!(1.5)));
    assert_eq!(login.reply().pointer("/data/is_times"), Some(&json!(1)));
    // Largest and smallest 64-bit integers are read.
    let edge = verify_core::CardLogin::from(body(
        200,
        &json!({"total": i64::MAX, "used": i64::MIN, "remaining": u64::MAX}),
    ));
    assert_eq!(
        (edge.total(), edge.used(), edge.remaining()),
        (Some(i64::MAX), Some(i64::MIN), None)
    );
}

/// A fake server whose Handle replies are code 200 with the data the test sets.
fn scripted(data: &Arc<Mutex<Value>>) -> FakeServer {
    let data = Arc::clone(data);
    FakeServer::with_handle(move |_| Response::envelope(200, data.lock().expect("data").clone()))
}

#[test]
fn every_typed_call_succeeds_when_its_fields_are_missing_or_mistyped() {
    let data: Arc<Mutex<Value>> = Arc::new(Mutex::new(json!({})));
    let server = scripted(&data);
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");

    for mistype in [false, true] {
        let mut calls = 0;
        let call = |view: &str, calls: &mut usize| {
            *calls += 1;
            *data.lock().expect("data") = if mistype { mistyped(view) } else { json!({}) };
        };
        // Each typed call, with a view whose accessors all read None.
        macro_rules! typed {
            ($view:ident, $call:expr) => {{
                call(stringify!($view), &mut calls);
                let view = $call.unwrap_or_else(|err| {
                    panic!("{} failed the server's 200: {err:?}", stringify!($view))
                });
                assert_eq!(view.reply().code(), codes::OK);
                let data = view.reply().data().clone();
                every_view_absent(&|name| {
                    (name == stringify!($view)).then(|| view.reply().clone())
                });
                data
            }};
        }
        typed!(CardLogin, client.single_login("C", "M", None));
        typed!(UserSession, client.user_login("u", "p", None));
        typed!(Renewal, client.user_login_with_card("u", "p", "C", None));
        typed!(
            Registration,
            client.user_register("u", "p", None, None, None)
        );
        typed!(PasswordChanged, client.update_password("u", "p", "q"));
        typed!(Rebind, client.change_bind("u", "p", "M"));
        typed!(Heartbeat, client.heartbeat("t", SessionKind::User, None));
        typed!(Recharge, client.user_recharge("u", "C"));
        typed!(LatestVersion, client.get_latest_version(None));
        typed!(Bulletin, client.get_bulletin());
        typed!(Variable, client.get_variable("n"));
        typed!(Variables, client.get_variables());
        typed!(UserInfo, client.get_user_info("u", "p"));
        typed!(CardInfo, client.get_card_info("C"));
        typed!(SocialStart, client.social_login_start(None));
        typed!(UserSession, client.social_login_poll("s", None));
        let echoed = typed!(
            SocialRegistration,
            client.social_register_start("u", None, None)
        );
        assert_eq!(calls, ACTIONS.len(), "every typed call of the table");
        if mistype {
            // The server's data came through untouched.
            assert_eq!(echoed, mistyped("SocialRegistration"));
        }
    }
    assert_eq!(
        server.handled().len(),
        2 * ACTIONS.len(),
        "each call sent once"
    );
}

// ---------------------------------------------------------------------------------------
// Optional strings

/// The plaintext keys the table says `method` sends: `action`, the fixed ones, the required
/// ones, and the optional ones when `with_optional`.
fn table_keys(method: &str, with_optional: bool) -> Vec<&'static str> {
    let spec = ACTIONS
        .iter()
        .find(|action| action.method == method)
        .unwrap_or_else(|| panic!("no action {method}"));
    let mut keys = vec!["action"];
    keys.extend(spec.fixed.iter().map(|(key, _)| *key));
    keys.extend(
        spec.params
            .iter()
            .filter(|param| with_optional || param.kind != ParamKind::Optional)
            .map(|param| param.wire),
    );
    keys
}

/// Calls every typed call that has an optional parameter, each optional given as `opt`;
/// gives the method names in order.
fn call_with_optionals(client: &Client, opt: &str) -> Vec<&'static str> {
    let o = Some(opt);
    let _ = client.single_login("C", "M", o);
    let _ = client.user_login("u", "p", o);
    let _ = client.user_login_with_card("u", "p", "C", o);
    let _ = client.user_register("u", "p", o, o, o);
    let _ = client.heartbeat("t", SessionKind::Card, o);
    let _ = client.get_latest_version(o);
    let _ = client.social_login_start(o);
    let _ = client.social_login_poll("s", o);
    let _ = client.social_register_start("u", o, o);
    vec![
        "single_login",
        "user_login",
        "user_login_with_card",
        "user_register",
        "heartbeat",
        "get_latest_version",
        "social_login_start",
        "social_login_poll",
        "social_register_start",
    ]
}

#[test]
fn empty_optional_strings_are_not_sent() {
    let server = FakeServer::with_handle(|_| Response::envelope(200, json!({})));
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");

    // Every action of the table with an optional parameter is exercised here.
    let with_optional: BTreeSet<&str> = ACTIONS
        .iter()
        .filter(|a| a.params.iter().any(|p| p.kind == ParamKind::Optional))
        .map(|a| a.method)
        .collect();

    let empty = call_with_optionals(&client, "");
    assert_eq!(
        empty.iter().copied().collect::<BTreeSet<_>>(),
        with_optional,
        "call_with_optionals is missing an action of the table"
    );
    let given = call_with_optionals(&client, "given value");
    let requests: Vec<Request> = server.handled();
    assert_eq!(
        requests.len(),
        empty.len() + given.len(),
        "one request each"
    );

    for (method, request) in empty.iter().zip(&requests) {
        assert_eq!(
            request.keys(),
            table_keys(method, false),
            "{method} with empty optional strings"
        );
        let plaintext = request.plaintext.as_ref().expect("decoded");
        assert!(
            plaintext.iter().all(|(_, value)| !value.is_empty()),
            "{method} sent an empty value: {plaintext:?}"
        );
    }
    // The control: the same calls with values send every optional parameter.
    for (method, request) in given.iter().zip(&requests[empty.len()..]) {
        assert_eq!(
            request.keys(),
            table_keys(method, true),
            "{method} with optional strings"
        );
    }
    let version = &requests[empty.len() + 5];
    assert_eq!(version.action(), Some("GetLatestVersion"));
    assert!(version
        .plaintext
        .iter()
        .flatten()
        .any(|(k, v)| k == "Version" && v == "given value"));
}

#[test]
fn get_latest_version_with_an_empty_version_is_the_same_as_none() {
    let server = FakeServer::with_handle(|_| Response::envelope(200, json!({})));
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    client.get_latest_version(Some("")).expect("empty");
    client.get_latest_version(None).expect("none");
    client.get_latest_version(Some("1.0")).expect("given");
    let keys: Vec<Vec<String>> = server
        .handled()
        .iter()
        .map(|r| r.keys().into_iter().map(str::to_owned).collect())
        .collect();
    assert_eq!(
        keys,
        [vec!["action"], vec!["action"], vec!["action", "Version"]]
    );

    // And against the sandbox: the same answer as without a version.
    let program = Program::fresh();
    let client = program.client();
    let empty = client.get_latest_version(Some("")).expect("empty");
    let none = client.get_latest_version(None).expect("none");
    assert_eq!(empty.has_update(), Some(true));
    assert_eq!(empty.reply().data(), none.reply().data());
    let logged: Vec<i64> = program
        .sandbox
        .request_log(Some(&program.app_id))
        .into_iter()
        .filter(|e| e.action.as_deref() == Some("GetLatestVersion"))
        .map(|e| e.code)
        .collect();
    assert_eq!(logged, [200, 200]);
}

// ---------------------------------------------------------------------------------------
// Codes 200 and 201

#[test]
fn calls_are_ok_for_200_and_201_and_refused_otherwise() {
    let server = FakeServer::with_handle(|request| {
        let code = match request.action() {
            Some("Pending") => 201,
            Some("Refused") => codes::CARD_INVALID,
            Some("Undocumented") => 4242,
            _ => 200,
        };
        Response::envelope(code, json!({"remark": "r", "x": code}))
    });
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    let ok = client.call("Fine", &[("a", "b")]).expect("200");
    assert_eq!((ok.code(), ok.int_field("x")), (200, Some(200)));
    let pending = client.call("Pending", &[]).expect("201 is not a failure");
    assert_eq!(pending.code(), codes::PENDING);
    let refused = client.call("Refused", &[]).expect_err("1004");
    assert_eq!(refused.kind(), ErrorKind::Server(codes::CARD_INVALID));
    assert_eq!(refused.remark(), Some("r"));
    assert_eq!(
        refused.reply().and_then(|r| r.int_field("x")),
        Some(i64::from(codes::CARD_INVALID))
    );
    let odd = client.call("Undocumented", &[]).expect_err("4242");
    assert_eq!(odd.code(), 4242);
    assert_eq!(
        verify_core::describe(4242),
        verify_core::codes::UNDOCUMENTED_SERVER_CODE
    );
    // The generic call refuses what would clash with the action.
    assert_eq!(
        client
            .call("X", &[("action", "Y")])
            .expect_err("action twice")
            .kind(),
        ErrorKind::InvalidArgument
    );
}

// ---------------------------------------------------------------------------------------
// Reply accessors and error kinds

#[test]
fn replies_reach_any_value_by_json_pointer() {
    let server = FakeServer::with_handle(|_| {
        Response::envelope(
            200,
            json!({
                "variables": {"a.b": "dot", "c/d": "slash", "e~f": "tilde", "": "empty"},
                "list": [{"x": 1}, {"x": 2}],
                "a.b": "top-level dotted key",
            }),
        )
    });
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    let all = client.get_variables().expect("variables");
    let variables = all.variables().expect("a map");
    assert_eq!(variables.get("a.b"), Some(&json!("dot")));
    assert_eq!(variables.len(), 4);
    let reply = all.reply();
    for (pointer, value) in [
        ("/data/variables/a.b", json!("dot")),
        ("/data/variables/c~1d", json!("slash")),
        ("/data/variables/e~0f", json!("tilde")),
        ("/data/variables/", json!("empty")),
        ("/data/list/1/x", json!(2)),
        ("/code", json!(200)),
        ("/message", json!("fake")),
    ] {
        assert_eq!(reply.pointer(pointer), Some(&value), "{pointer}");
    }
    for absent in [
        "/data/list/2",
        "/data/variables/c/d",
        "data/list",
        "/data/a/b",
    ] {
        assert_eq!(reply.pointer(absent), None, "{absent}");
    }
    assert_eq!(
        reply.pointer("").and_then(|whole| whole.get("code")),
        Some(&json!(200))
    );
    // `field` takes a name, not a path.
    assert_eq!(reply.str_field("a.b"), Some("top-level dotted key"));
    assert_eq!(reply.field("list/1"), None);
    assert_eq!(reply.int_field("a.b"), None, "a string is not an integer");
    assert_eq!(reply.bool_field("list"), None);
}

#[test]
fn every_error_kind_has_its_code_in_the_table() {
    use verify_core::codes::{info, ERR_SYSTEM};
    let local = [
        (ErrorKind::InvalidArgument, codes::ERR_INVALID_ARGUMENT),
        (ErrorKind::InvalidUtf8, codes::ERR_INVALID_UTF8),
        (ErrorKind::Network, codes::ERR_NETWORK),
        (ErrorKind::Timeout, codes::ERR_TIMEOUT),
        (ErrorKind::Tls, codes::ERR_TLS),
        (ErrorKind::Protocol, codes::ERR_PROTOCOL),
        (ErrorKind::Cancelled, codes::ERR_CANCELLED),
        (ErrorKind::Panic, codes::ERR_PANIC),
        (ErrorKind::NoSuchField, codes::ERR_NO_SUCH_FIELD),
        (ErrorKind::System, ERR_SYSTEM),
        (ErrorKind::Pin, codes::ERR_PIN),
        (ErrorKind::Proxy, codes::ERR_PROXY),
        (ErrorKind::TooLarge, codes::ERR_TOO_LARGE),
        (ErrorKind::ClockBack, codes::ERR_CLOCK_BACK),
        (ErrorKind::GraceOver, codes::ERR_GRACE_OVER),
        (ErrorKind::OfflineExpired, codes::ERR_OFFLINE_EXPIRED),
        (ErrorKind::OfflinePassword, codes::ERR_OFFLINE_PASSWORD),
        (ErrorKind::StateFolder, codes::ERR_STATE_FOLDER),
        (ErrorKind::TimeUnconfirmed, codes::ERR_TIME_UNCONFIRMED),
    ];
    for (kind, code) in local {
        assert_eq!(kind.code(), code, "{kind:?}");
        assert!(code < 0 && info(code).is_some(), "{kind:?}");
    }
    // One kind for each local code of the table, and no two kinds share a code.
    let listed: BTreeSet<i32> = local.iter().map(|(kind, _)| kind.code()).collect();
    let table: BTreeSet<i32> = codes::TABLE
        .iter()
        .map(|row| row.code)
        .filter(|code| *code < 0)
        .collect();
    assert_eq!(listed, table);
    assert_eq!(listed.len(), local.len());
    assert_eq!(ERR_SYSTEM, -10);
    let system = verify_core::Error::local(ErrorKind::System, "no thread");
    assert_eq!(system.code(), ERR_SYSTEM);
    assert!(
        system.to_string().contains("(-10)") && system.to_string().contains("no thread"),
        "{system}"
    );
    assert_eq!(ErrorKind::Server(1004).code(), codes::CARD_INVALID);
    assert_eq!(
        (codes::OK, codes::PENDING, codes::ERR_TIMEOUT),
        (200, 201, -4)
    );
}

#[test]
fn an_oversized_request_is_refused_with_its_own_code_and_nothing_is_sent() {
    let program = Program::fresh();
    let client = program.client();
    let huge = "x".repeat(700_000);
    let err = client
        .call("GetVariable", &[("Name", huge.as_str())])
        .expect_err("too large");
    assert_eq!(err.kind(), ErrorKind::TooLarge, "{err}");
    assert_eq!(err.code(), verify_core::codes::ERR_TOO_LARGE);
    assert!(
        program
            .sandbox
            .request_log(Some(&program.app_id))
            .is_empty(),
        "nothing reached the server, not even Init"
    );
    client.get_bulletin().expect("the next call works");
}
