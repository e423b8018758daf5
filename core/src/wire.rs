//! The wire format of the service (docs/protocol.md#two-steps; docs/architecture.md, "Wire rules"): pure functions, no I/O.
//!
//! - The plaintext is `key=value` pairs joined by `&`, `action` first, every key and value
//!   percent-encoded except the unreserved characters `A-Z a-z 0-9 - _ . ~`.
//! - `Data` is uppercase hex of RC4(key = ApiPassword bytes, plaintext UTF-8), a new RC4 state
//!   for every message.
//! - Signatures are lowercase hex MD5: Init `AppId + AppKey + TimeStamp + AppKey`, Handle
//!   `ApiPassword + TimeStamp + Data`.
//! - The request bodies are `application/x-www-form-urlencoded`: Init's by [`form_body`]
//!   (AppId and AppKey are the caller's: every value percent-encoded), Handle's by
//!   [`handle_body`] in one pass into one buffer (`Data` and `Sign` are hex, which needs no
//!   escaping; the body is the same as [`form_body`] would make of them).

use md5::{Digest, Md5};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use rc4::cipher::{KeyInit, StreamCipher};
use rc4::consts::U256;
use rc4::Rc4;

use crate::util::wiped::Wiped;

/// The marks sent as themselves beside letters and digits (RFC 3986 unreserved): the one
/// source of [`ESCAPED`] and [`UNRESERVED`].
const MARKS: [u8; 4] = *b"-_.~";

/// Every byte is escaped except `A-Z a-z 0-9` and [`MARKS`].
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(MARKS[0])
    .remove(MARKS[1])
    .remove(MARKS[2])
    .remove(MARKS[3]);

/// The longest that pieces of these lengths can be once percent-encoded (every byte escaped:
/// three times as long), plus `separators` bytes. A string allocated with it never grows: one
/// that grows leaves its old block to the allocator unwiped, and these strings hold secrets
/// (the plaintext's cards and passwords, the Init body's AppKey, the session secret).
fn most_encoded(lengths: impl Iterator<Item = usize>, separators: usize) -> usize {
    lengths
        .fold(0, usize::saturating_add)
        .saturating_mul(3)
        .saturating_add(separators)
}

/// Percent-encodes one key or value of the plaintext.
/// Allocated once at its longest encoding (`most_encoded`): it may hold the session secret.
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(most_encoded(std::iter::once(text.len()), 0));
    push_component(&mut out, text);
    out
}

/// Appends `text` percent-encoded to `out`.
pub fn push_component(out: &mut String, text: &str) {
    encode_pieces(text, |piece| out.push_str(piece));
}

/// `true` for the bytes sent as themselves: `A-Z a-z 0-9` and [`MARKS`] (the complement of
/// [`ESCAPED`], which the tests check byte by byte).
const UNRESERVED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = (byte as u8).is_ascii_alphanumeric();
        byte += 1;
    }
    let mut mark = 0;
    while mark < MARKS.len() {
        table[MARKS[mark] as usize] = true;
        mark += 1;
    }
    table
};

/// The length of the longest prefix of `bytes` that needs no escaping: a table lookup a
/// byte, eight bytes at a time without a branch each (written out, so that it stays so when
/// the crate is optimised for size, which does not unroll loops).
fn unreserved_prefix(bytes: &[u8]) -> usize {
    let clean = |byte: u8| UNRESERVED[usize::from(byte)];
    let mut done = 0;
    for chunk in bytes.chunks_exact(8) {
        let &[a, b, c, d, e, f, g, h] = chunk else {
            break;
        };
        if !(clean(a) & clean(b) & clean(c) & clean(d) & clean(e) & clean(f) & clean(g) & clean(h))
        {
            break;
        }
        done += 8;
    }
    let rest = bytes.get(done..).unwrap_or_default();
    done + rest
        .iter()
        .position(|byte| !UNRESERVED[usize::from(*byte)])
        .unwrap_or(rest.len())
}

/// Hands `text` percent-encoded to `push`, piece by piece. The prefix that needs no escaping
/// (all of it, for cards, hex, numbers and plain names) goes in one piece after a tight scan;
/// the rest goes through `utf8_percent_encode`, which yields the runs that need no escaping
/// as slices (formatting it with `Display` would go through `core::fmt` for every piece).
fn encode_pieces(text: &str, mut push: impl FnMut(&str)) {
    let split = unreserved_prefix(text.as_bytes());
    // The byte at `split` follows an ASCII byte (or starts the text): a char boundary, so
    // both halves exist; the fallback only keeps this free of a panic path.
    let (clean, rest) = match (text.get(..split), text.get(split..)) {
        (Some(clean), Some(rest)) => (clean, rest),
        _ => ("", text),
    };
    if !clean.is_empty() {
        push(clean);
    }
    for piece in utf8_percent_encode(rest, ESCAPED) {
        push(piece);
    }
}

/// A form body, `key=value&...`, every key and value percent-encoded except
/// `A-Z a-z 0-9 - _ . ~`, in a buffer that is wiped (an Init body holds the AppKey).
pub fn form_body(form: &[(&str, &str)]) -> Wiped<String> {
    let length = most_encoded(
        form.iter()
            .flat_map(|(key, value)| [key.len(), value.len()]),
        form.len().saturating_mul(2),
    );
    let mut body = Wiped::new(String::with_capacity(length));
    for (index, (key, value)) in form.iter().enumerate() {
        if index > 0 {
            body.push('&');
        }
        push_component(&mut body, key);
        body.push('=');
        push_component(&mut body, value);
    }
    body
}

/// Builds the plaintext parameter string: `action=NAME` first, then the pairs in order.
pub fn plaintext<K: AsRef<str>, V: AsRef<str>>(action: &str, params: &[(K, V)]) -> String {
    let length = most_encoded(
        std::iter::once(action.len()).chain(
            params
                .iter()
                .flat_map(|(key, value)| [key.as_ref().len(), value.as_ref().len()]),
        ),
        params
            .len()
            .saturating_add(1)
            .saturating_mul(2)
            .saturating_add(6),
    );
    let mut out = String::with_capacity(length);
    out.push_str("action=");
    push_component(&mut out, action);
    for (key, value) in params {
        out.push('&');
        push_component(&mut out, key.as_ref());
        out.push('=');
        push_component(&mut out, value.as_ref());
    }
    out
}

/// Error of [`rc4_apply`]: RC4 keys are 1 to 256 bytes long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadKeyLength(pub usize);

/// RC4 keystream applied to `data` in place, with a fresh state keyed by `key` (1..=256 bytes).
///
/// The key schedule of RC4 reads `key[i mod len]` for `i` in `0..256`, so a key repeated to
/// 256 bytes schedules exactly like the key itself; that lets one `Rc4<U256>` serve every
/// key length.
pub fn rc4_apply(key: &[u8], data: &mut [u8]) -> Result<(), BadKeyLength> {
    rc4_cipher(key)?.apply_keystream(data);
    Ok(())
}

/// A fresh RC4 state keyed by `key` (1..=256 bytes; see [`rc4_apply`]).
fn rc4_cipher(key: &[u8]) -> Result<Rc4<U256>, BadKeyLength> {
    if key.is_empty() || key.len() > 256 {
        return Err(BadKeyLength(key.len()));
    }
    let mut full = [0u8; 256];
    for (slot, byte) in full.iter_mut().zip(key.iter().cycle()) {
        *slot = *byte;
    }
    let cipher = Rc4::<U256>::new(&full.into());
    zeroize::Zeroize::zeroize(&mut full);
    Ok(cipher)
}

/// The plaintext bytes RC4 takes at a time in [`handle_body`], through a buffer on the
/// stack (it holds ciphertext once the keystream is applied); their hex goes through a
/// second one into the MD5 and onto the body (copying 512 bytes costs less than zeroing
/// the body's room for `Data` first).
const BLOCK: usize = 256;

/// The body of a Handle request, `TimeStamp=<timestamp>&Data=<Data>&Sign=<Sign>`, with
/// `Data` and `Sign` as [`encrypt_data`] and [`handle_sign`] make them: the same bytes as
/// [`form_body`] of those three pairs, built in one buffer. The buffer is not wiped: it
/// holds only what goes over the wire (the timestamp, the RC4 ciphertext and the
/// signature), and wiping it would cost more than building it per byte of `Data`. RC4
/// runs a block of the plaintext at a time, and its hex goes into the MD5 of `Sign` and
/// onto the body while it is in the cache; only `timestamp` is percent-encoded (it is
/// digits, which pass as they are, when the client makes it). Bytes, not a `String`: the
/// hex is written as bytes, and a `String` would mean checking 2 x plaintext bytes of UTF-8
/// once more (every byte is ASCII).
pub fn handle_body(
    api_password: &str,
    plaintext: &str,
    timestamp: &str,
) -> Result<Vec<u8>, BadKeyLength> {
    let mut cipher = rc4_cipher(api_password.as_bytes())?;
    // A `str` is at most isize::MAX bytes: twice that fits in a usize.
    let data_length = plaintext.len().saturating_mul(2);
    let length = data_length
        .saturating_add(timestamp.len().saturating_mul(3))
        .saturating_add(64);
    let mut body = Vec::with_capacity(length);
    body.extend_from_slice(b"TimeStamp=");
    encode_pieces(timestamp, |piece| body.extend_from_slice(piece.as_bytes()));
    body.extend_from_slice(b"&Data=");
    let mut hasher = Md5::new();
    hasher.update(api_password.as_bytes());
    hasher.update(timestamp.as_bytes());
    let mut block = [0u8; BLOCK];
    let mut digits = [0u8; 2 * BLOCK];
    for input in plaintext.as_bytes().chunks(BLOCK) {
        let ciphertext = block.get_mut(..input.len()).unwrap_or_default();
        ciphertext.copy_from_slice(input);
        cipher.apply_keystream(ciphertext);
        let output = digits.get_mut(..2 * input.len()).unwrap_or_default();
        // The output is exactly twice as long: encoding cannot fail.
        let _ = hex::encode_to_slice_upper(&*ciphertext, &mut *output);
        hasher.update(&*output);
        body.extend_from_slice(output);
    }
    let mut sign = [0u8; 32];
    // 16 bytes of digest, 32 digits: encoding cannot fail.
    let _ = hex::encode_to_slice(hasher.finalize(), &mut sign);
    body.extend_from_slice(b"&Sign=");
    body.extend_from_slice(&sign);
    Ok(body)
}

/// `Data` of a Handle request: uppercase hex of RC4(ApiPassword, plaintext).
pub fn encrypt_data(api_password: &str, plaintext: &str) -> Result<String, BadKeyLength> {
    let mut bytes = plaintext.as_bytes().to_vec();
    rc4_apply(api_password.as_bytes(), &mut bytes)?;
    let mut digits = vec![0u8; bytes.len().saturating_mul(2)];
    // The output is exactly twice as long: encoding cannot fail.
    let _ = hex::encode_to_slice_upper(&bytes, &mut digits);
    Ok(ascii(digits))
}

/// Lowercase hex of `bytes`, by `hex::encode_to_slice` (the `const-hex` crate: SIMD where
/// the processor has it, a table lookup per byte elsewhere).
fn hex_digits(bytes: &[u8]) -> Vec<u8> {
    let mut digits = vec![0u8; bytes.len().saturating_mul(2)];
    // The output is exactly twice as long: encoding cannot fail.
    let _ = hex::encode_to_slice(bytes, &mut digits);
    digits
}

/// Hex digits as a `String` (they are ASCII: the conversion cannot fail).
fn ascii(digits: Vec<u8>) -> String {
    String::from_utf8(digits).unwrap_or_default()
}

/// Lowercase hex MD5 of the concatenation of `parts`.
pub fn md5_hex(parts: &[&str]) -> String {
    let mut hasher = Md5::new();
    for part in parts {
        hasher.update(part.as_bytes());
    }
    ascii(hex_digits(&hasher.finalize()))
}

/// Init signature: `MD5(AppId + AppKey + TimeStamp + AppKey)`.
pub fn init_sign(app_id: &str, app_key: &str, timestamp: &str) -> String {
    md5_hex(&[app_id, app_key, timestamp, app_key])
}

/// Handle signature: `MD5(ApiPassword + TimeStamp + Data)`.
pub fn handle_sign(api_password: &str, timestamp: &str, data: &str) -> String {
    md5_hex(&[api_password, timestamp, data])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreserved_characters_pass_and_everything_else_is_escaped() {
        assert_eq!(encode_component("Az09-_.~"), "Az09-_.~");
        assert_eq!(encode_component("a+b c%&=;"), "a%2Bb%20c%25%26%3D%3B");
        assert_eq!(encode_component("张"), "%E5%BC%A0");
    }

    /// `text` percent-encoded by `percent_encoding` alone, the way `push_component` did it
    /// before its fast path.
    fn encoded_by_the_crate(text: &str) -> String {
        utf8_percent_encode(text, ESCAPED).collect()
    }

    #[test]
    fn the_unreserved_prefix_scan_agrees_with_the_crate() {
        let long = "aZ9-_.~".repeat(5);
        let cases = [
            String::new(),
            "a".to_owned(),
            " ".to_owned(),
            "张三".to_owned(),
            "abc张".to_owned(),
            long.clone(),
            format!("{long}%"),
            format!("{long}+x y"),
            format!("{}&", "x".repeat(16)),
            format!("{}=", "x".repeat(31)),
            format!("{}é{long}", "x".repeat(32)),
            "\u{0}\u{7f}\u{80}".to_owned(),
        ];
        for text in &cases {
            assert_eq!(
                encode_component(text),
                encoded_by_the_crate(text),
                "{text:?}"
            );
        }
        // An escape at every place of the first chunks of eight, and none at all.
        for len in 0..40 {
            for text in [
                format!("{}&{}", "x".repeat(len), "y".repeat(9)),
                "x".repeat(len),
            ] {
                assert_eq!(
                    encode_component(&text),
                    encoded_by_the_crate(&text),
                    "{text:?}"
                );
            }
        }
        for byte in 0..=127u8 {
            let text = format!("{}{}", "v".repeat(20), char::from(byte));
            assert_eq!(
                encode_component(&text),
                encoded_by_the_crate(&text),
                "{byte}"
            );
        }
    }

    #[test]
    fn form_bodies_escape_only_what_needs_it() {
        let body = form_body(&[
            ("TimeStamp", "1700000000"),
            ("Data", "0A1B"),
            ("AppId", "a b&c"),
        ]);
        assert_eq!(
            body.as_str(),
            "TimeStamp=1700000000&Data=0A1B&AppId=a%20b%26c"
        );
        assert_eq!(form_body(&[]).as_str(), "");
    }

    /// The Handle body the general way: `Data` and `Sign` on their own, then every value
    /// percent-encoded by `percent_encoding`.
    fn general_handle_body(api_password: &str, plaintext: &str, timestamp: &str) -> String {
        let data = encrypt_data(api_password, plaintext).expect("key length");
        let sign = handle_sign(api_password, timestamp, &data);
        format!(
            "TimeStamp={}&Data={}&Sign={}",
            encoded_by_the_crate(timestamp),
            encoded_by_the_crate(&data),
            encoded_by_the_crate(&sign)
        )
    }

    #[test]
    fn handle_bodies_equal_the_general_form_encoding() {
        let key_256: String = (0..256u32)
            .map(|i| char::from(b'!' + u8::try_from(i % 90).expect("small")))
            .collect();
        let passwords = [
            "k",
            "0123456789abcdefABCDEF0123456789",
            "pässwörd &=+%",
            key_256.as_str(),
        ];
        let mut plaintexts = vec![
            String::new(),
            "action=GetBulletin".to_owned(),
            plaintext(
                "UserLogin",
                &[("UserName", "张三"), ("Password", "p&a=s+s %")],
            ),
        ];
        // Around the block size of the RC4 pass, and a body of several blocks.
        for length in [1, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 5 * BLOCK + 77] {
            plaintexts.push(plaintext("GetVariable", &[("Name", &"V".repeat(length))]));
        }
        let timestamps = ["1700000000", "0", "-62", "", "17 00+0"];
        for password in passwords {
            for text in &plaintexts {
                for timestamp in timestamps {
                    let body = handle_body(password, text, timestamp).expect("key length");
                    assert!(
                        body.as_slice()
                            == general_handle_body(password, text, timestamp).as_bytes(),
                        "plaintext of {} bytes, timestamp {timestamp:?}",
                        text.len()
                    );
                }
            }
        }
        assert_eq!(
            handle_body("k", "", "1").expect("key length").as_slice(),
            format!("TimeStamp=1&Data=&Sign={}", md5_hex(&["k", "1"])).as_bytes()
        );
    }

    #[test]
    fn handle_bodies_refuse_the_keys_rc4_refuses() {
        assert_eq!(
            handle_body("", "action=a", "1").err(),
            Some(BadKeyLength(0))
        );
        let long = "k".repeat(257);
        assert_eq!(
            handle_body(&long, "action=a", "1").err(),
            Some(BadKeyLength(257))
        );
    }

    #[test]
    fn handle_bodies_match_the_known_vectors() {
        let vectors: serde_json::Value =
            serde_json::from_str(include_str!("../tests/vectors/wire.json")).expect("JSON");
        let cases = vectors["handle"].as_array().expect("handle list");
        assert!(!cases.is_empty());
        for case in cases {
            let field = |key: &str| case[key].as_str().expect("vector field");
            let body = handle_body(field("ApiPassword"), field("plaintext"), field("TimeStamp"))
                .expect("key length");
            let expected = format!(
                "TimeStamp={}&Data={}&Sign={}",
                field("TimeStamp"),
                field("Data"),
                field("Sign")
            );
            assert!(body.as_slice() == expected.as_bytes(), "{expected}");
        }
    }

    #[test]
    fn strings_that_may_hold_secrets_never_grow() {
        // Every byte escaped: the longest encoding of each piece.
        let secret = "+/= &".repeat(7);
        let encoded = encode_component(&secret);
        assert_eq!(encoded.len(), 3 * secret.len());
        assert!(encoded.capacity() >= encoded.len());
        let params = [("Card", secret.as_str()), ("Pass", "张三 +")];
        let text = plaintext("SingleLogin", &params);
        let bound = most_encoded(
            ["SingleLogin", "Card", secret.as_str(), "Pass", "张三 +"]
                .iter()
                .map(|piece| piece.len()),
            2 * 3 + 6,
        );
        assert!(text.len() <= bound, "{} > {bound}", text.len());
        assert_eq!(text.capacity(), bound, "allocated once at the bound");
        let form = [("AppId", "1"), ("AppKey", secret.as_str())];
        let body = form_body(&form);
        assert!(body.len() <= body.capacity());
        assert_eq!(
            body.capacity(),
            most_encoded(
                ["AppId", "1", "AppKey", secret.as_str()]
                    .iter()
                    .map(|p| p.len()),
                4
            )
        );
    }

    #[test]
    fn rc4_rejects_empty_and_oversized_keys() {
        let mut data = [0u8; 4];
        assert_eq!(rc4_apply(b"", &mut data), Err(BadKeyLength(0)));
        assert_eq!(rc4_apply(&[1u8; 257], &mut data), Err(BadKeyLength(257)));
        assert!(rc4_apply(&[1u8; 256], &mut data).is_ok());
    }

    #[test]
    fn hex_is_upper_for_data_and_lower_for_signatures() {
        let data = encrypt_data("key", "action=GetBulletin").expect("key length");
        let mut expected = b"action=GetBulletin".to_vec();
        rc4_apply(b"key", &mut expected).expect("key length");
        assert_eq!(data, hex::encode_upper(&expected));
        assert_eq!(encrypt_data("key", "").expect("key length"), "");
        assert_eq!(md5_hex(&[""]), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(&["a", "bc"]), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn rc4_is_its_own_inverse() {
        let mut data = b"action=GetBulletin".to_vec();
        rc4_apply(b"key", &mut data).expect("key length");
        assert_ne!(&data, b"action=GetBulletin");
        rc4_apply(b"key", &mut data).expect("key length");
        assert_eq!(&data, b"action=GetBulletin");
    }
}
