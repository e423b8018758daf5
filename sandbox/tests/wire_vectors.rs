//! Known-answer vectors of shared/vectors/wire.json: the test codec reproduces them, and
//! the sandbox accepts them verbatim (this binary has its own sandbox, since replaying the
//! vectors moves the global clock to the vectors' timestamps).

mod common;

use std::sync::OnceLock;

use common::*;
use serde_json::{json, Value};

/// The repository's copy of `shared/vectors/wire.json` (the library's tests check that the
/// copy equals the shared file when it sits beside the repository).
fn vectors() -> Value {
    // The copy moved with the protocol client into the core crate.
    let dir = env!("CARGO_MANIFEST_DIR");
    let text = [
        "/../core/tests/vectors/wire.json",
        "/../tests/vectors/wire.json",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(format!("{dir}{p}")).ok())
    .expect("read core/tests/vectors/wire.json");
    serde_json::from_str(&text).expect("wire.json is JSON")
}

fn s(v: &Value) -> &str {
    v.as_str().expect("string")
}

#[test]
fn codec_reproduces_rc4_vectors() {
    let v = vectors();
    let list = v["rc4"].as_array().unwrap();
    assert!(!list.is_empty());
    for t in list {
        let key = hex::decode(s(&t["key_hex"])).unwrap();
        let pt = hex::decode(s(&t["plaintext_hex"])).unwrap();
        let ct = rc4(&key, &pt);
        assert_eq!(hex::encode(&ct), s(&t["ciphertext_hex"]), "rc4 vector {t}");
        assert_eq!(rc4(&key, &ct), pt, "rc4 is its own inverse");
    }
}

#[test]
fn codec_reproduces_init_sign_vectors() {
    let v = vectors();
    for t in v["init"].as_array().unwrap() {
        let sign = init_sign(s(&t["AppId"]), s(&t["AppKey"]), s(&t["TimeStamp"]));
        assert_eq!(sign, s(&t["Sign"]), "init vector {t}");
    }
}

#[test]
fn codec_reproduces_plaintext_vectors() {
    let v = vectors();
    for t in v["plaintext"].as_array().unwrap() {
        let pairs: Vec<(String, String)> = t["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (s(&p[0]).to_string(), s(&p[1]).to_string()))
            .collect();
        let refs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            encode_plain(&refs),
            s(&t["plaintext"]),
            "plaintext vector {t}"
        );
    }
}

#[test]
fn codec_reproduces_handle_vectors() {
    let v = vectors();
    for t in v["handle"].as_array().unwrap() {
        let pw = s(&t["ApiPassword"]);
        let data = encrypt_hex(pw, s(&t["plaintext"]).as_bytes());
        assert_eq!(data, s(&t["Data"]), "Data of vector {t}");
        assert_eq!(
            handle_sign(pw, s(&t["TimeStamp"]), &data),
            s(&t["Sign"]),
            "Sign of vector {t}"
        );
        // and back
        let back = rc4(pw.as_bytes(), &hex::decode(s(&t["Data"])).unwrap());
        assert_eq!(String::from_utf8(back).unwrap(), s(&t["plaintext"]));
    }
}

// ---------------------------------------------------------------------------------------
// Replay against the sandbox
// ---------------------------------------------------------------------------------------

const PW1: &str = "0123456789abcdefABCDEF0123456789";
const PW2: &str = "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp";

/// The program that owns the vectors' api passwords (created once per binary).
fn vector_app() -> &'static str {
    static APP: OnceLock<String> = OnceLock::new();
    APP.get_or_init(|| {
        let id = unique_app_id();
        load(json!({
            "programs": [{
                "app_id": id, "app_key": unique_app_key(), "status": "approved",
                "variables": {"vk": "vector-variable"},
                "api_passwords": [PW1, PW2]
            }],
            "cards": [{
                "app_id": id, "card": "ABCD-EFGH-JKLM-NPQR", "type_name": "月卡",
                "kind": "duration", "duration": 30, "duration_type": "day", "state": "unused"
            }],
            "accounts": [{
                "app_id": id, "username": "张三", "password": "p&a=s+s %",
                "device_id": "", "expire_at": "2099-01-01 00:00:00", "status": "active"
            }]
        }));
        id
    })
}

fn vector(i: usize) -> Value {
    vectors()["handle"][i].clone()
}

/// POST a handle vector's exact Data and Sign with the clock at its TimeStamp.
fn replay(t: &Value, placement: &str) -> Value {
    let ts: i64 = s(&t["TimeStamp"]).parse().unwrap();
    sb().set_clock_offset(ts - system_now());
    let now = sb().now();
    assert!(
        (now - ts).abs() <= 2,
        "clock offset applied: now {now} vs {ts}"
    );
    let pw = s(&t["ApiPassword"]);
    let form = [
        ("TimeStamp", s(&t["TimeStamp"])),
        ("Data", s(&t["Data"])),
        ("Sign", s(&t["Sign"])),
    ];
    match placement {
        "header" => handle_form("/api/verify", &[("X-Api-Password", pw)], &form),
        "path" => handle_form(&format!("/api/verify/{pw}"), &[], &form),
        _ => unreachable!(),
    }
}

#[test]
fn sandbox_accepts_single_login_vector() {
    let _clock = exclusive_clock();
    let app = vector_app();
    let v = replay(&vector(0), "path");
    let d = assert_ok(&v);
    assert_token(&d["token"]);
    assert_eq!(d["status"], "active");
    assert_eq!(d["is_times"], false);
    let card = sb().card(app, "ABCD-EFGH-JKLM-NPQR").expect("card stored");
    assert_eq!(card["state"], "active", "card activated: {card}");
    assert_eq!(
        card["device_id"], "3F2A9C0B7D1E4F56",
        "card bound to the vector's Mac: {card}"
    );
    // The same login once more (same machine) is a refresh.
    let v = replay(&vector(0), "header");
    assert_ok(&v);
}

#[test]
fn sandbox_accepts_user_login_vector() {
    let _clock = exclusive_clock();
    let app = vector_app();
    let v = replay(&vector(1), "header");
    let d = assert_ok(&v);
    assert_eq!(d["username"], "张三", "decoded username: {v}");
    assert_token(&d["token"]);
    assert_eq!(
        d["device_id"], "AA:BB:CC:DD:EE:FF",
        "an unbound account is bound on login: {v}"
    );
    let acc = sb().account(app, "张三").expect("account stored");
    assert_eq!(acc["device_id"], "AA:BB:CC:DD:EE:FF", "{acc}");
}

#[test]
fn sandbox_accepts_get_variable_vector() {
    let _clock = exclusive_clock();
    vector_app();
    let v = replay(&vector(2), "header");
    let d = assert_ok(&v);
    assert_eq!(d["variables"]["vk"], "vector-variable", "{v}");
}

#[test]
fn sandbox_rejects_vector_outside_its_time_window() {
    let _clock = exclusive_clock();
    vector_app();
    let t = vector(2);
    let ts: i64 = s(&t["TimeStamp"]).parse().unwrap();
    // The sandbox clock 301+ seconds after the vector: 1014.
    sb().set_clock_offset(ts + 305 - system_now());
    let pw = s(&t["ApiPassword"]);
    let v = handle_form(
        "/api/verify",
        &[("X-Api-Password", pw)],
        &[
            ("TimeStamp", s(&t["TimeStamp"])),
            ("Data", s(&t["Data"])),
            ("Sign", s(&t["Sign"])),
        ],
    );
    assert_code(&v, 1014);
}

#[test]
fn sandbox_checks_init_vector_sign() {
    // Init vector 1: a program 10001-like with the vector's key, clock at the vector's time.
    let _clock = exclusive_clock();
    let v = vectors();
    for t in v["init"].as_array().unwrap() {
        // AppIds of the vectors are fixed; make them unique to this sandbox by loading them
        // once (this binary owns its sandbox, nobody else uses these AppIds).
        load(
            json!({"programs": [{"app_id": s(&t["AppId"]), "app_key": s(&t["AppKey"]), "status": "approved"}]}),
        );
        let ts: i64 = s(&t["TimeStamp"]).parse().unwrap();
        sb().set_clock_offset(ts - system_now());
        let r = init_form(&[
            ("AppId", s(&t["AppId"])),
            ("AppKey", s(&t["AppKey"])),
            ("TimeStamp", s(&t["TimeStamp"])),
            ("Sign", s(&t["Sign"])),
        ]);
        let d = assert_ok(&r);
        let pw = d["api_password"].as_str().unwrap();
        assert_eq!(pw.len(), 32);
    }
}
