//! The protocol inspector (README "The inspector"): every service request opens, through
//! `GET /_sandbox/log/{seq}`, to its decoded form, decrypted parameters, reply, timings and
//! connection, secrets masked; and each mistake that client writers make is made here by a
//! deliberately wrong client, written with the rc4, md-5 and hex crates (never with
//! `verify`'s codec), whose request must carry a diagnosis that names the mistake.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use verify_sandbox::{Config, Fixtures, Limits, Sandbox};

/// Sends a form to `path` of `base` with a marker header, and returns the reply and the
/// inspector's entry of that request (found by its marker among the newest entries).
fn send_to(
    sandbox: &Sandbox,
    path: &str,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> (Value, Value) {
    let marker = format!("inspect-{}", next_n());
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    all.push(("X-Test-Marker", &marker));
    let r = try_post_form_with(agent(), &sandbox.base_url(), path, &all, form)
        .unwrap_or_else(|e| panic!("POST {path}: {e}"));
    let reply = r.json();
    let log = sandbox.request_log(None);
    let entry = log
        .iter()
        .rev()
        .take(200)
        .filter_map(|e| sandbox.log_entry(e.seq))
        .find(|d| {
            d["request"]["headers"]
                .as_array()
                .is_some_and(|h| h.iter().any(|p| p["value"] == marker))
        })
        .unwrap_or_else(|| panic!("no log entry of the request marked {marker}"));
    (reply, entry)
}

fn send(path: &str, headers: &[(&str, &str)], form: &[(&str, &str)]) -> (Value, Value) {
    send_to(sb(), path, headers, form)
}

/// Handle on `/api/verify` with the ApiPassword in the header and the form as given.
fn handle_with(pw: &str, form: &[(&str, &str)]) -> (Value, Value) {
    send("/api/verify", &[("X-Api-Password", pw)], form)
}

/// Handle with `pw` in the header, `plain` encrypted with `key` (the ApiPassword when
/// right) as uppercase hex, the TimeStamp `ts`, and the Sign right for what is sent.
fn sealed_with(pw: &str, key: &str, ts: &str, plain: &[u8]) -> (Value, Value) {
    signed_right(pw, ts, &hex::encode_upper(rc4(key.as_bytes(), plain)))
}

/// Handle with `pw` in the header, this `TimeStamp` and `Data`, and the right Sign.
fn signed_right(pw: &str, ts: &str, data: &str) -> (Value, Value) {
    let sign = handle_sign(pw, ts, data);
    handle_with(pw, &[("TimeStamp", ts), ("Data", data), ("Sign", &sign)])
}

/// A Handle request sealed right (uppercase Data, the right Sign) of a raw plaintext.
fn sealed(pw: &str, plaintext: &str) -> (Value, Value) {
    sealed_with(pw, pw, &now().to_string(), plaintext.as_bytes())
}

/// Init with this form, on `sandbox`.
fn init_marked(sandbox: &Sandbox, app_id: &str, key: &str, ts: &str, sign: &str) -> (Value, Value) {
    send_to(
        sandbox,
        "/api/verify",
        &[],
        &[
            ("AppId", app_id),
            ("AppKey", key),
            ("TimeStamp", ts),
            ("Sign", sign),
        ],
    )
}

/// The diagnosis of `kind`, which must be there.
#[track_caller]
fn diagnosis<'a>(entry: &'a Value, kind: &str) -> &'a Value {
    entry["diagnoses"]
        .as_array()
        .and_then(|ds| ds.iter().find(|d| d["kind"] == kind))
        .unwrap_or_else(|| panic!("no diagnosis {kind} in {:#}", entry["diagnoses"]))
}

fn text(d: &Value) -> String {
    format!(
        "{} {}",
        d["title"].as_str().unwrap_or_default(),
        d["detail"].as_str().unwrap_or_default()
    )
}

/// No secret appears anywhere in the entry.
#[track_caller]
fn assert_masked(entry: &Value, secrets: &[&str]) {
    let all = entry.to_string();
    for s in secrets {
        assert!(!all.contains(s), "{s} shown in {entry:#}");
    }
}

// ---------------------------------------------------------------------------------------
// What an entry shows
// ---------------------------------------------------------------------------------------

#[test]
fn an_entry_shows_form_parameters_reply_timings_and_connection_with_secrets_masked() {
    let app = App::new();
    let card = app.day_card(30);
    let plain = encode_plain(&[
        ("action", "SingleLogin"),
        ("Card", &card),
        ("Mac", "INSPECT-MAC-1"),
    ]);
    let (reply, entry) = sealed(&app.pw, &plain);
    assert_eq!(reply["code"], 200, "{reply}");
    let token = reply["data"]["token"].as_str().expect("token");
    assert_eq!(entry["code"], 200);
    assert_eq!(entry["action"], "SingleLogin");
    assert_eq!(entry["app_id"], app.id.as_str());
    assert_eq!(entry["api_password_from"], "header");
    let names: Vec<&str> = entry["form"]
        .as_array()
        .expect("form")
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["TimeStamp", "Data", "Sign"]);
    let params = entry["params"].as_array().expect("params");
    assert_eq!(params[0], json!({"name": "action", "value": "SingleLogin"}));
    assert_eq!(params[1]["name"], "Card");
    assert_eq!(
        params[1]["value"],
        format!("{}****{}", &card[..4], &card[card.len() - 4..])
    );
    assert_eq!(params[2], json!({"name": "Mac", "value": "INSPECT-MAC-1"}));
    let plaintext = entry["plaintext"].as_str().expect("plaintext");
    assert!(
        plaintext.starts_with("action=SingleLogin&Card="),
        "{plaintext}"
    );
    assert_eq!(entry["reply"]["code"], 200);
    assert_eq!(
        entry["reply"]["data"]["token"],
        format!("{}****", &token[..4])
    );
    assert_eq!(entry["http_status"], 200);
    assert!(
        entry["timings"]["handle_ms"].as_f64().is_some(),
        "{entry:#}"
    );
    assert!(entry["timings"]["read_body_ms"].as_f64().is_some());
    let conn = &entry["connection"];
    assert!(
        conn["peer"].as_str().unwrap().starts_with("127.0.0.1:"),
        "{conn}"
    );
    assert_eq!(conn["local"], base().trim_start_matches("http://"));
    assert_eq!(conn["tls"], false);
    assert!(conn["request_on_connection"].as_u64().unwrap() >= 1);
    assert!(entry["received_unix"].as_i64().unwrap() > 0);
    let headers = entry["request"]["headers"].as_array().expect("headers");
    let pw_header = headers
        .iter()
        .find(|h| h["name"] == "x-api-password")
        .expect("the ApiPassword header");
    assert_eq!(pw_header["value"], format!("{}****", &app.pw[..4]));
    assert!(entry["refusal"].is_null());
    assert_eq!(entry["diagnoses"], json!([]), "a right request has none");
    assert_masked(&entry, &[&app.pw, &card, token]);

    // The control API serves the same entry.
    let seq = entry["seq"].as_u64().expect("seq");
    let r = get(&format!("/_sandbox/log/{seq}"));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["entry"], entry);
    let r = get("/_sandbox/log/0");
    assert_eq!(r.status, 404, "{r:?}");
}

#[test]
fn an_init_entry_masks_the_app_key_and_the_issued_secret() {
    let app = App::new();
    let ts = now().to_string();
    let sign = init_sign(&app.id, &app.key, &ts);
    let (reply, entry) = init_marked(sb(), &app.id, &app.key, &ts, &sign);
    let pw = reply["data"]["api_password"].as_str().expect("pw");
    assert_eq!(entry["action"], "Init");
    assert_eq!(entry["form"][1]["value"], format!("{}****", &app.key[..4]));
    assert_eq!(
        entry["reply"]["data"]["api_password"],
        format!("{}****", &pw[..4])
    );
    assert_masked(&entry, &[&app.key, pw]);
}

// ---------------------------------------------------------------------------------------
// Sign
// ---------------------------------------------------------------------------------------

/// A GetBulletin sealed with a Sign computed by `sign(pw, ts, data)`.
fn signed_by(app: &App, sign: impl Fn(&str, &str, &str) -> String) -> (Value, Value) {
    let ts = now().to_string();
    let data = hex::encode_upper(rc4(app.pw.as_bytes(), b"action=GetBulletin"));
    let s = sign(&app.pw, &ts, &data);
    handle_with(
        &app.pw,
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &s)],
    )
}

#[test]
fn sign_over_lowercase_hex_of_data_sent_in_uppercase() {
    let app = App::new();
    let (reply, entry) = signed_by(&app, |pw, ts, data| {
        md5_hex(format!("{pw}{ts}{}", data.to_lowercase()).as_bytes())
    });
    assert_eq!(reply["code"], 1010);
    let d = diagnosis(&entry, "sign_data_case");
    assert_eq!(d["severity"], "error");
    assert!(
        text(d).contains("lowercase hex, but Data was sent in uppercase"),
        "{d}"
    );
    // The string the sandbox signed, the secret masked.
    let signed = &d["signed"];
    assert_eq!(signed["formula"], "MD5(ApiPassword + TimeStamp + Data)");
    let string = signed["string"].as_str().expect("signed string");
    assert!(
        string.starts_with(&format!("{}****", &app.pw[..4])),
        "{string}"
    );
    let data = entry["form"][1]["value"].as_str().unwrap();
    assert!(string.ends_with(data), "{string}");
    let ts = entry["form"][0]["value"].as_str().unwrap();
    assert_eq!(
        signed["client_string"],
        format!("{}****{ts}{}", &app.pw[..4], data.to_lowercase())
    );
    assert_eq!(entry["refusal"]["code"], 1010);
    assert_eq!(entry["refusal"]["why"], d["title"]);
    assert_masked(&entry, &[&app.pw]);
}

#[test]
fn sign_in_uppercase_hex() {
    let app = App::new();
    let (reply, entry) = signed_by(&app, |pw, ts, data| {
        md5_hex(format!("{pw}{ts}{data}").as_bytes()).to_uppercase()
    });
    assert_eq!(reply["code"], 1010);
    let d = diagnosis(&entry, "sign_uppercase");
    assert!(text(d).contains("lowercase"), "{d}");
}

#[test]
fn sign_over_the_wrong_order_names_the_first_difference() {
    let app = App::new();
    let (reply, entry) = signed_by(&app, |pw, ts, data| {
        md5_hex(format!("{ts}{pw}{data}").as_bytes())
    });
    assert_eq!(reply["code"], 1010);
    let d = diagnosis(&entry, "sign_order");
    assert!(
        text(d).contains("TimeStamp + ApiPassword + Data, not ApiPassword + TimeStamp + Data"),
        "{d}"
    );
    assert!(
        text(d).contains("piece 1: TimeStamp where ApiPassword belongs"),
        "{d}"
    );
    let client = d["signed"]["client_string"].as_str().unwrap();
    assert!(
        client.contains(&format!("{}****", &app.pw[..4])),
        "{client}"
    );
    assert_masked(&entry, &[&app.pw]);
}

#[test]
fn sign_with_a_missing_field() {
    let app = App::new();
    let (reply, entry) = signed_by(&app, |pw, _ts, data| {
        md5_hex(format!("{pw}{data}").as_bytes())
    });
    assert_eq!(reply["code"], 1010);
    let d = diagnosis(&entry, "sign_missing_field");
    assert!(text(d).contains("leaves out TimeStamp"), "{d}");
    assert!(
        text(d).contains("piece 2: Data where TimeStamp belongs"),
        "{d}"
    );
}

#[test]
fn init_sign_without_the_second_app_key() {
    let app = App::new();
    let ts = now().to_string();
    let sign = md5_hex(format!("{}{}{ts}", app.id, app.key).as_bytes());
    let (reply, entry) = init_marked(sb(), &app.id, &app.key, &ts, &sign);
    assert_eq!(reply["code"], 1010);
    let d = diagnosis(&entry, "sign_missing_field");
    assert!(text(d).contains("leaves out AppKey"), "{d}");
    assert!(
        text(d).contains("piece 4: the string ends where AppKey belongs"),
        "{d}"
    );
    let string = d["signed"]["string"].as_str().unwrap();
    let masked = format!("{}****", &app.key[..4]);
    assert_eq!(string, format!("{}{masked}{ts}{masked}", app.id));
    assert_masked(&entry, &[&app.key]);
}

// ---------------------------------------------------------------------------------------
// TimeStamp
// ---------------------------------------------------------------------------------------

#[test]
fn timestamp_in_milliseconds() {
    let app = App::new();
    let ts = (now() * 1000 + 123).to_string();
    let (reply, entry) = sealed_with(&app.pw, &app.pw, &ts, b"action=GetBulletin");
    assert_eq!(reply["code"], 1014);
    let d = diagnosis(&entry, "timestamp_milliseconds");
    assert!(text(d).contains("milliseconds"), "{d}");
    assert!(text(d).contains("divide by 1000"), "{d}");
}

#[test]
fn timestamp_outside_300_seconds_says_by_how_much() {
    let app = App::new();
    let ts = (now() - 420).to_string();
    let (reply, entry) = sealed_with(&app.pw, &app.pw, &ts, b"action=GetBulletin");
    assert_eq!(reply["code"], 1014);
    let d = diagnosis(&entry, "timestamp_skew");
    let title = d["title"].as_str().unwrap();
    // 420 s, or 421 if the sandbox clock ticked between the two readings.
    assert!(
        title == "TimeStamp is 420 s behind the sandbox clock"
            || title == "TimeStamp is 421 s behind the sandbox clock",
        "{title}"
    );
    assert!(
        text(d).contains("120 s too far") || text(d).contains("121 s too far"),
        "{d}"
    );

    // Eight hours ahead: local time taken for UTC.
    let ts = (now() + 8 * 3600).to_string();
    let (_, entry) = sealed_with(&app.pw, &app.pw, &ts, b"action=GetBulletin");
    let d = diagnosis(&entry, "timestamp_skew");
    assert!(text(d).contains("ahead of"), "{d}");
    assert!(text(d).contains("about 8 h"), "{d}");
}

// ---------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------

#[test]
fn data_that_is_not_hex() {
    let app = App::new();
    let ts = now().to_string();
    let data = format!(
        "{}G1",
        hex::encode_upper(rc4(app.pw.as_bytes(), b"action=GetBulletin"))
    );
    let (reply, entry) = signed_right(&app.pw, &ts, &data);
    assert_eq!(reply["code"], 1013);
    let d = diagnosis(&entry, "data_not_hex");
    assert_eq!(
        d["title"],
        format!("Data is not hex: character {} is 'G'", data.len() - 1)
    );
}

#[test]
fn data_of_the_wrong_key() {
    let app = App::new();
    // Encrypted with the AppKey.
    let (reply, entry) = sealed_with(&app.pw, &app.key, &now().to_string(), b"action=GetBulletin");
    assert_eq!(reply["code"], 1013);
    let d = diagnosis(&entry, "data_wrong_key");
    assert!(text(d).contains("the AppKey"), "{d}");
    assert_masked(&entry, &[&app.key, &app.pw]);
    // Encrypted with an older session secret of the program.
    let (_, second) = init(&app.id, &app.key);
    let newer = second["data"]["api_password"]
        .as_str()
        .expect("pw")
        .to_string();
    let (reply, entry) = sealed_with(&newer, &app.pw, &now().to_string(), b"action=GetBulletin");
    assert_eq!(reply["code"], 1013);
    let d = diagnosis(&entry, "data_wrong_key");
    assert!(
        text(d).contains(&format!(
            "another session secret of this program ({}****)",
            &app.pw[..4]
        )),
        "{d}"
    );
    // Not encrypted at all.
    let data = hex::encode_upper(b"action=GetBulletin");
    let (_, entry) = signed_right(&app.pw, &now().to_string(), &data);
    diagnosis(&entry, "data_not_encrypted");
}

// ---------------------------------------------------------------------------------------
// Escaping
// ---------------------------------------------------------------------------------------

/// An account of `app` whose password is `password`, then a login with a plaintext written
/// by hand (`raw` is the Password exactly as the wrong client puts it in).
fn login_raw(app: &App, user: &str, password: &str, raw_user: &str, raw: &str) -> (Value, Value) {
    app.account(user, password, json!({}));
    sealed(
        &app.pw,
        &format!("action=UserLogin&UserName={raw_user}&Password={raw}&Mac=ESCAPE-MAC"),
    )
}

#[test]
fn an_unescaped_ampersand_cuts_the_value() {
    let app = App::new();
    let (reply, entry) = login_raw(&app, "amp", "p&ss", "amp", "p&ss");
    assert_eq!(reply["code"], 1003, "the password was cut: {reply}");
    let d = diagnosis(&entry, "unescaped_ampersand");
    assert_eq!(d["severity"], "error");
    assert!(
        text(d).contains("a raw '&' cuts the value of Password short"),
        "{d}"
    );
    assert!(text(d).contains("%26"), "{d}");
    assert_eq!(entry["refusal"]["why"], d["title"]);
    assert_masked(&entry, &["p&ss"]);
}

#[test]
fn an_unescaped_plus_becomes_a_space() {
    let app = App::new();
    let (reply, entry) = login_raw(&app, "plus", "a+b", "plus", "a+b");
    assert_eq!(reply["code"], 1003, "{reply}");
    let d = diagnosis(&entry, "unescaped_plus");
    assert_eq!(d["severity"], "error");
    assert!(text(d).contains("read as a space"), "{d}");
    assert!(
        text(d).contains("character 2 of the value of Password"),
        "{d}"
    );
    assert!(text(d).contains("%2B"), "{d}");
}

#[test]
fn an_unescaped_equals_sign_is_named() {
    let app = App::new();
    let (reply, entry) = login_raw(&app, "eq", "a=b", "eq", "a=b");
    assert_eq!(reply["code"], 200, "this server reads it: {reply}");
    let d = diagnosis(&entry, "unescaped_equals");
    assert_eq!(d["severity"], "warning");
    assert!(text(d).contains("%3D"), "{d}");
}

#[test]
fn an_unescaped_percent_is_named() {
    let app = App::new();
    let (reply, entry) = login_raw(&app, "pct", "50%", "pct", "50%");
    assert_eq!(reply["code"], 200, "{reply}");
    let d = diagnosis(&entry, "unescaped_percent");
    assert!(text(d).contains("%25"), "{d}");
    assert!(
        text(d).contains("character 3 of the value of Password"),
        "{d}"
    );
}

#[test]
fn unescaped_non_ascii_is_named_with_its_escape() {
    let app = App::new();
    let (reply, entry) = login_raw(&app, "张三", "pw", "张三", "pw");
    assert_eq!(reply["code"], 200, "{reply}");
    let d = diagnosis(&entry, "unescaped_non_ascii");
    assert!(text(d).contains("value of UserName"), "{d}");
    assert!(text(d).contains("'张' is %E5%BC%A0"), "{d}");

    // Text in GBK (an ANSI code page) instead of UTF-8: refused, and named.
    let gbk: &[u8] = b"action=UserLogin&UserName=\xD5\xC5\xC8\xFD&Password=pw";
    let (reply, entry) = sealed_with(&app.pw, &app.pw, &now().to_string(), gbk);
    assert_eq!(reply["code"], 1013);
    let d = diagnosis(&entry, "plaintext_not_utf8");
    assert!(text(d).contains("byte 27 is 0xD5"), "{d}");
    assert!(text(d).contains("GBK"), "{d}");
}

// ---------------------------------------------------------------------------------------
// Action, ApiPassword, Mac
// ---------------------------------------------------------------------------------------

#[test]
fn an_unknown_action_suggests_the_right_name() {
    let app = App::new();
    let (reply, entry) = sealed(&app.pw, "action=singlelogin&Card=X&Mac=Y");
    assert_eq!(reply["code"], 1015);
    let d = diagnosis(&entry, "unknown_action");
    assert_eq!(
        d["title"],
        "action \"singlelogin\" is not one of the 12 actions"
    );
    assert!(text(d).contains("did you mean SingleLogin?"), "{d}");
    let (_, entry) = sealed(&app.pw, "action=GetBuletin");
    assert!(text(diagnosis(&entry, "unknown_action")).contains("did you mean GetBulletin?"));
}

/// Loads (again) the program `stale` with this AppKey.
fn load_stale(sandbox: &Sandbox, key: &str) {
    sandbox
        .load(
            Fixtures::from_value(json!({"programs": [{"app_id": "stale", "app_key": key}]}))
                .expect("fixtures"),
        )
        .expect("load");
}

/// A sandbox of its own that keeps one session secret per program.
fn one_secret_sandbox() -> (Sandbox, String, String) {
    let sandbox = Sandbox::start(Config {
        limits: Limits {
            api_passwords_per_program: 1,
            ..Limits::default()
        },
        ..Config::default()
    })
    .expect("start");
    let key = unique_app_key();
    load_stale(&sandbox, &key);
    (sandbox, "stale".to_string(), key)
}

fn init_on(sandbox: &Sandbox, app_id: &str, key: &str) -> String {
    let ts = sandbox.now().to_string();
    let (reply, _) = init_marked(sandbox, app_id, key, &ts, &init_sign(app_id, key, &ts));
    reply["data"]["api_password"]
        .as_str()
        .expect("api_password")
        .to_string()
}

fn bulletin_on(sandbox: &Sandbox, pw: &str) -> (Value, Value) {
    let ts = sandbox.now().to_string();
    let data = hex::encode_upper(rc4(pw.as_bytes(), b"action=GetBulletin"));
    let sign = handle_sign(pw, &ts, &data);
    send_to(
        sandbox,
        &format!("/api/verify/{pw}"),
        &[],
        &[("TimeStamp", &ts), ("Data", &data), ("Sign", &sign)],
    )
}

#[test]
fn a_stale_api_password_says_when_and_why_it_was_retired() {
    let (sandbox, app_id, key) = one_secret_sandbox();
    let first = init_on(&sandbox, &app_id, &key);
    let second = init_on(&sandbox, &app_id, &key);
    let (reply, entry) = bulletin_on(&sandbox, &first);
    assert_eq!(reply["code"], 1001);
    assert_eq!(entry["path"], "/api/verify/****");
    let d = diagnosis(&entry, "stale_api_password");
    assert!(
        d["title"]
            .as_str()
            .unwrap()
            .starts_with(&format!("ApiPassword {}**** is stale", &first[..4])),
        "{d}"
    );
    assert!(text(d).contains("--max-api-passwords"), "{d}");
    assert!(text(d).contains("it came in the path"), "{d}");
    assert!(text(d).contains("Run Init again"), "{d}");
    assert_masked(&entry, &[&first, &second, &key]);
    assert_eq!(bulletin_on(&sandbox, &second).0["code"], 200);

    // Forgotten by a reset.
    load_stale(&sandbox, &key);
    let r = agent()
        .post(format!("{}/_sandbox/reset", sandbox.base_url()))
        .header("Content-Type", "application/json")
        .send("{}")
        .expect("reset");
    assert_eq!(r.status().as_u16(), 200);
    let (_, entry) = bulletin_on(&sandbox, &second);
    assert!(text(diagnosis(&entry, "stale_api_password")).contains("reset"));

    // Never issued, and the AppKey sent in its place.
    let (_, entry) = bulletin_on(&sandbox, "NEVERISSUED000000000000000000000");
    diagnosis(&entry, "unknown_api_password");
    load_stale(&sandbox, &key);
    let (_, entry) = bulletin_on(&sandbox, &key);
    diagnosis(&entry, "app_key_as_api_password");
    assert_masked(&entry, &[&key]);
}

#[test]
fn a_mac_under_another_alias_is_named() {
    let app = App::new();
    let card = app.day_card(30);
    // SingleLogin needs the machine code: 1013, and why.
    let (reply, entry) = sealed(
        &app.pw,
        &encode_plain(&[
            ("action", "SingleLogin"),
            ("Card", &card),
            ("MachineCode", "M-1"),
        ]),
    );
    assert_eq!(reply["code"], 1013);
    let d = diagnosis(&entry, "mac_alias");
    assert_eq!(d["severity"], "error");
    assert_eq!(
        d["title"],
        "SingleLogin does not read MachineCode: the machine code goes in Mac"
    );
    assert!(text(d).contains("Mac, mac or DeviceId"), "{d}");
    assert!(text(d).contains("so Mac is missing (1013)"), "{d}");
    assert_eq!(entry["refusal"]["why"], d["title"]);

    // UserLogin takes it as optional: accepted, but the bound machine went unchecked.
    app.account("macuser", "pw", json!({}));
    let (reply, entry) = sealed(
        &app.pw,
        &encode_plain(&[
            ("action", "UserLogin"),
            ("UserName", "macuser"),
            ("Password", "pw"),
            ("NewMac", "M-2"),
        ]),
    );
    assert_eq!(reply["code"], 200, "{reply}");
    let d = diagnosis(&entry, "mac_alias");
    assert_eq!(d["severity"], "warning");
    assert!(text(d).contains("NewMac is ChangeBind's name"), "{d}");
    assert!(text(d).contains("without a machine code"), "{d}");

    // Two aliases that disagree.
    let (_, entry) = sealed(
        &app.pw,
        &encode_plain(&[
            ("action", "UserLogin"),
            ("UserName", "macuser"),
            ("Password", "pw"),
            ("Mac", "M-2"),
            ("mac", "M-3"),
        ]),
    );
    let d = diagnosis(&entry, "mac_alias");
    assert!(text(d).contains("it took Mac and ignored mac"), "{d}");
}

#[test]
fn missing_fields_and_a_json_body_are_named() {
    let app = App::new();
    let ts = now().to_string();
    let (reply, entry) = send(
        "/api/verify",
        &[],
        &[("AppId", &app.id), ("AppKey", &app.key), ("timestamp", &ts)],
    );
    assert_eq!(reply["code"], 1013);
    let d = diagnosis(&entry, "missing_field");
    assert_eq!(d["title"], "TimeStamp is missing from the form");
    assert!(text(d).contains("the form has \"timestamp\""), "{d}");

    let body = json!({"AppId": app.id, "AppKey": app.key}).to_string();
    let marker = format!("json-{}", next_n());
    let r = agent()
        .post(format!("{}/api/verify", base()))
        .header("Content-Type", "application/json")
        .header("X-Test-Marker", &marker)
        .send(body.as_bytes())
        .expect("post");
    assert_eq!(r.status().as_u16(), 200);
    let entry = sb()
        .request_log(None)
        .iter()
        .rev()
        .filter_map(|e| sb().log_entry(e.seq))
        .find(|d| d.to_string().contains(&marker))
        .expect("the entry");
    assert!(text(diagnosis(&entry, "missing_field")).contains("the body is JSON"));
    assert_masked(&entry, &[&app.key]);
}

// ---------------------------------------------------------------------------------------
// Live updates
// ---------------------------------------------------------------------------------------

#[test]
fn the_event_stream_announces_every_change() {
    let sandbox = Sandbox::start(Config::default()).expect("start");
    let mut s = TcpStream::connect(("127.0.0.1", sandbox.port())).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        s,
        "GET /_sandbox/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        sandbox.port()
    )
    .expect("write");
    let mut reader = BufReader::new(s);
    // The head, then the first event.
    let mut head = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("head");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("text/event-stream"),
        "{head}"
    );
    let mut next_version = || -> u64 {
        // Chunked: size lines and event lines; the data line carries the version.
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).expect("an event within 10 s");
            if let Some(v) = line.trim().strip_prefix("data: ") {
                return v.parse().expect("version");
            }
        }
    };
    let first = next_version();
    sandbox.shift_clock(10);
    let second = next_version();
    assert!(second > first, "{first} then {second}");
    let stats = get_on(&sandbox, "/_sandbox/stats");
    assert_eq!(stats["event_streams"], 1, "{stats}");
    let _ = bulletin_on(&sandbox, "NOSUCHSECRET00000000000000000000");
    assert!(next_version() > second);
}

fn get_on(sandbox: &Sandbox, path: &str) -> Value {
    let mut r = agent()
        .get(format!("{}{path}", sandbox.base_url()))
        .call()
        .expect("get");
    serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON")
}
