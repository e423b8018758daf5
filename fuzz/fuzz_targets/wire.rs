//! The wire encoder of verify-core: the plaintext (`action` first, percent-encoding), `Data`
//! (RC4 + uppercase hex), the Init and Handle signatures, the Handle body (built in one pass:
//! it must equal the general form encoding); checked by decrypting `Data` again with
//! verify-core's RC4 and by decoding it with the sandbox's decoder, which must give back the
//! same pairs.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use verify_core::wire;
use verify_sandbox::fuzzing::{decrypt_data, key_len_ok, Params};

#[derive(Arbitrary, Debug)]
struct Input {
    action: String,
    params: Vec<(String, String)>,
    api_password: String,
    app_id: String,
    app_key: String,
    timestamp: String,
}

fn is_lower_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fuzz_target!(|input: Input| {
    let plaintext = wire::plaintext(&input.action, &input.params);
    assert!(plaintext.starts_with("action="));
    assert!(
        plaintext.bytes().all(|b| b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~' | b'%' | b'&' | b'=')),
        "plaintext has an unescaped byte: {plaintext:?}"
    );
    assert_eq!(
        plaintext.matches('&').count(),
        input.params.len(),
        "one `&` a pair"
    );

    assert!(is_lower_hex(
        &wire::init_sign(&input.app_id, &input.app_key, &input.timestamp),
        32
    ));

    let key = input.api_password.as_bytes();
    match wire::encrypt_data(&input.api_password, &plaintext) {
        Err(bad) => {
            assert!(key.is_empty() || key.len() > 256);
            assert_eq!(bad.0, key.len());
        }
        Ok(data) => {
            assert!((1..=256).contains(&key.len()));
            assert_eq!(data.len(), plaintext.len() * 2);
            assert!(data.bytes().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')));
            let sign = wire::handle_sign(&input.api_password, &input.timestamp, &data);
            assert!(is_lower_hex(&sign, 32));
            assert_eq!(
                sign,
                wire::md5_hex(&[&input.api_password, &input.timestamp, &data])
            );

            // The Handle body built in one pass is the general form encoding of the three.
            let body = wire::handle_body(&input.api_password, &plaintext, &input.timestamp)
                .expect("the key worked once");
            let general = wire::form_body(&[
                ("TimeStamp", input.timestamp.as_str()),
                ("Data", data.as_str()),
                ("Sign", sign.as_str()),
            ]);
            assert!(body.as_slice() == general.as_bytes());

            // verify-core's RC4 is its own inverse.
            let mut bytes = hex::decode(&data).expect("Data is hex");
            wire::rc4_apply(key, &mut bytes).expect("the key worked once");
            assert_eq!(bytes, plaintext.as_bytes());

            // The sandbox reads back the same pairs (it takes keys of 1 to 64 bytes, and the
            // first non-empty value of a key).
            if key_len_ok(key.len()) {
                let decrypted = decrypt_data(&input.api_password, &data)
                    .expect("the sandbox decrypts what verify-core encrypted");
                assert_eq!(decrypted, plaintext);
                let params = Params::parse(&decrypted).expect("the sandbox decodes the pairs");
                let mut pairs = vec![("action".to_owned(), input.action.clone())];
                pairs.extend(input.params.iter().cloned());
                for (name, _) in &pairs {
                    let expected = pairs
                        .iter()
                        .find(|(k, v)| k == name && !v.is_empty())
                        .map(|(_, v)| v.as_str());
                    assert_eq!(params.get(&[name.as_str()]), expected, "key {name:?}");
                }
            }
        }
    }
});
