//! The sandbox's request decoding (`sandbox/src/wire.rs` through
//! `verify_sandbox::fuzzing`): `Data` (hex of either case, RC4 with the ApiPassword, UTF-8)
//! and the plaintext pairs (`&`, the first `=`, form decoding), on any input. The first
//! byte gives the key's length, the key follows, the rest is `Data`; the whole input is
//! also parsed as a plaintext.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verify_sandbox::fuzzing::{decrypt_data, Params};

fuzz_target!(|input: &[u8]| {
    let text = String::from_utf8_lossy(input);
    if let Ok(params) = Params::parse(&text) {
        let _ = params.get(&["action"]);
        let _ = params.get(&["Card", "card", ""]);
    }
    let Some((&len, rest)) = input.split_first() else {
        return;
    };
    let len = usize::from(len).min(rest.len());
    let (key, data) = rest.split_at(len);
    let key = String::from_utf8_lossy(key);
    let data = String::from_utf8_lossy(data);
    if let Ok(plaintext) = decrypt_data(&key, &data) {
        if let Ok(params) = Params::parse(&plaintext) {
            let _ = params.get(&["action"]);
        }
    }
});
