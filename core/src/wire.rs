//! The wire format of the service (spec section 5, DESIGN section 3): pure functions, no I/O.
//!
//! - The plaintext is `key=value` pairs joined by `&`, `action` first, every key and value
//!   percent-encoded except the unreserved characters `A-Z a-z 0-9 - _ . ~`.
//! - `Data` is uppercase hex of RC4(key = ApiPassword bytes, plaintext UTF-8), a new RC4 state
//!   for every message.
//! - Signatures are lowercase hex MD5: Init `AppId + AppKey + TimeStamp + AppKey`, Handle
//!   `ApiPassword + TimeStamp + Data`.

use md5::{Digest, Md5};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use rc4::cipher::{KeyInit, StreamCipher};
use rc4::consts::U256;
use rc4::Rc4;

/// Every byte is escaped except `A-Z a-z 0-9 - _ . ~` (RFC 3986 unreserved).
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Percent-encodes one key or value of the plaintext.
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_component(&mut out, text);
    out
}

/// Appends `text` percent-encoded to `out`.
pub fn push_component(out: &mut String, text: &str) {
    encode_pieces(text, |piece| out.push_str(piece));
}

/// `true` for the bytes sent as themselves: `A-Z a-z 0-9 - _ . ~` (the complement of
/// [`ESCAPED`]).
const UNRESERVED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = matches!(
            byte as u8,
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~'
        );
        byte += 1;
    }
    table
};

/// The length of the longest prefix of `bytes` that needs no escaping: a table lookup a
/// byte, sixteen bytes at a time without a branch each.
fn unreserved_prefix(bytes: &[u8]) -> usize {
    let mut done = 0;
    for chunk in bytes.chunks_exact(16) {
        if !chunk
            .iter()
            .fold(true, |all, byte| all & UNRESERVED[usize::from(*byte)])
        {
            break;
        }
        done += 16;
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

/// Builds the plaintext parameter string: `action=NAME` first, then the pairs in order.
pub fn plaintext<K: AsRef<str>, V: AsRef<str>>(action: &str, params: &[(K, V)]) -> String {
    let length: usize = params
        .iter()
        .map(|(key, value)| key.as_ref().len() + value.as_ref().len() + 2)
        .fold(16 + action.len(), usize::saturating_add);
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
    if key.is_empty() || key.len() > 256 {
        return Err(BadKeyLength(key.len()));
    }
    let mut full = [0u8; 256];
    for (slot, byte) in full.iter_mut().zip(key.iter().cycle()) {
        *slot = *byte;
    }
    let mut cipher = Rc4::<U256>::new(&full.into());
    cipher.apply_keystream(data);
    zeroize::Zeroize::zeroize(&mut full);
    Ok(())
}

/// `Data` of a Handle request: uppercase hex of RC4(ApiPassword, plaintext).
pub fn encrypt_data(api_password: &str, plaintext: &str) -> Result<String, BadKeyLength> {
    let mut bytes = plaintext.as_bytes().to_vec();
    rc4_apply(api_password.as_bytes(), &mut bytes)?;
    let mut digits = hex_digits(&bytes);
    digits.make_ascii_uppercase();
    Ok(ascii(digits))
}

/// Lowercase hex of `bytes`, by `hex::encode_to_slice` (a table lookup per byte;
/// `hex::encode` and `hex::encode_upper` build the string character by character, about
/// ten times the instructions).
fn hex_digits(bytes: &[u8]) -> Vec<u8> {
    let mut digits = vec![0u8; bytes.len().saturating_mul(2)];
    // The output is exactly twice as long: encode_to_slice cannot fail.
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
