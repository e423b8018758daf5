//! The codec against the known answers of `shared/vectors/wire.json`, computed by an
//! independent implementation. A copy is committed in `core/tests/vectors/`; when the shared
//! folder sits beside the repository (`../../shared` from `core/`), the copy must equal it.

use serde_json::Value;
use verify_core::wire;

fn vectors() -> Value {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let copy = std::fs::read_to_string(root.join("tests/vectors/wire.json")).expect("vectors");
    if let Ok(shared) = std::fs::read_to_string(root.join("../../shared/vectors/wire.json")) {
        assert_eq!(
            shared, copy,
            "core/tests/vectors/wire.json differs from shared/vectors/wire.json"
        );
    }
    serde_json::from_str(&copy).expect("vectors are JSON")
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("vector field {key}"))
}

#[test]
fn rc4_keystreams() {
    let vectors = vectors();
    let cases = vectors["rc4"].as_array().expect("rc4 list");
    assert!(!cases.is_empty());
    for case in cases {
        let key = hex::decode(text(case, "key_hex")).expect("key hex");
        let mut data = hex::decode(text(case, "plaintext_hex")).expect("plaintext hex");
        wire::rc4_apply(&key, &mut data).expect("key length");
        assert_eq!(
            hex::encode(&data),
            text(case, "ciphertext_hex"),
            "key {}",
            text(case, "key_hex")
        );
    }
}

#[test]
fn init_signatures() {
    let vectors = vectors();
    for case in vectors["init"].as_array().expect("init list") {
        let sign = wire::init_sign(
            text(case, "AppId"),
            text(case, "AppKey"),
            text(case, "TimeStamp"),
        );
        assert_eq!(sign, text(case, "Sign"));
    }
}

#[test]
fn plaintext_encoding() {
    let vectors = vectors();
    for case in vectors["plaintext"].as_array().expect("plaintext list") {
        let all: Vec<(&str, &str)> = case["pairs"]
            .as_array()
            .expect("pairs")
            .iter()
            .map(|pair| {
                (
                    pair[0].as_str().expect("key"),
                    pair[1].as_str().expect("value"),
                )
            })
            .collect();
        let (first, rest) = all.split_first().expect("at least the action");
        assert_eq!(first.0, "action", "vectors put action first");
        assert_eq!(wire::plaintext(first.1, rest), text(case, "plaintext"));
    }
}

#[test]
fn handle_data_and_signatures() {
    let vectors = vectors();
    for case in vectors["handle"].as_array().expect("handle list") {
        let password = text(case, "ApiPassword");
        let data = wire::encrypt_data(password, text(case, "plaintext")).expect("key length");
        assert_eq!(data, text(case, "Data"));
        assert_eq!(
            wire::handle_sign(password, text(case, "TimeStamp"), &data),
            text(case, "Sign")
        );
    }
}
