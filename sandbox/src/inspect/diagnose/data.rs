//! RC4 decoding: `Data` that the service could not read (1013 after the Sign was right),
//! decrypted with the ApiPassword and with the other keys a client may have taken.

use super::seen::{error, norm, Seen};
use crate::inspect::detail::Diagnosis;
use crate::inspect::mask::mask_secret;
use crate::wire::{self, Params};

/// Whether decrypted bytes read as a plaintext parameter string.
fn plausible(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(PLAUSIBLE_HEAD)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // A character cut by the end of the head.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    text.split('&').any(|p| p.starts_with("action="))
}

/// How much of a plaintext [`plausible`] reads: RC4 is a stream cipher, so trying a key on
/// that much of `Data` is enough.
const PLAUSIBLE_HEAD: usize = 512;

fn rc4(key: &str, data: &[u8]) -> Option<Vec<u8>> {
    let mut out = data.to_vec();
    wire::rc4_apply(key.as_bytes(), &mut out).ok()?;
    Some(out)
}

/// `Data` that the service could not read (1013 after the Sign was right).
pub(super) fn data_diagnosis(seen: &Seen, pw: &str, app_id: &str, data: &str) -> Option<Diagnosis> {
    let raw = match hex::decode(data) {
        Ok(raw) => raw,
        Err(_) => return Some(not_hex(data)),
    };
    let mine = rc4(pw, &raw)?;
    let has_action = mine.windows(7).any(|w| w == b"action=");
    match std::str::from_utf8(&mine) {
        Ok(text) => match Params::parse(text) {
            Ok(params) if params.get(&["action"]).is_some() => return None,
            Ok(params) => {
                if let Some((k, _)) = params.pairs().iter().find(|(k, _)| norm(k) == "action") {
                    return Some(error(
                        "missing_action",
                        format!("the plaintext has {k:?} but no action"),
                        "parameter names are case-sensitive: the action goes in action=..., first"
                            .to_string(),
                    ));
                }
                if text.contains('=') && !text.chars().any(char::is_control) {
                    return Some(error(
                        "missing_action",
                        "the plaintext has no action".to_string(),
                        "it decrypts to parameters, but none is action=...: put \
                         action=<one of the 12 actions> first"
                            .to_string(),
                    ));
                }
            }
            Err(_) if has_action => {
                return Some(error(
                    "plaintext_not_utf8",
                    "a percent-escaped value is not UTF-8".to_string(),
                    "the escapes (%XX) must be of the value's UTF-8 bytes: text in GBK or \
                     another code page escaped byte by byte is refused"
                        .to_string(),
                ))
            }
            Err(_) => {}
        },
        Err(e) if has_action => {
            let at = e.valid_up_to();
            return Some(error(
                "plaintext_not_utf8",
                format!(
                    "the plaintext is not UTF-8: byte {} is 0x{:02X}",
                    at + 1,
                    mine[at]
                ),
                "it looks like text in GBK or another ANSI code page: encode the parameters \
                 as UTF-8, then percent-encode every byte that is not A-Z a-z 0-9 - _ . ~"
                    .to_string(),
            ));
        }
        Err(_) => {}
    }
    let raw = &raw[..raw.len().min(PLAUSIBLE_HEAD)];
    if plausible(raw) {
        return Some(error(
            "data_not_encrypted",
            "Data is the hex of the plaintext itself, not of its RC4 encryption".to_string(),
            format!(
                "encrypt the plaintext with RC4 keyed with the ApiPassword's bytes ({}), then \
                 send the hex of the result",
                mask_secret(pw)
            ),
        ));
    }
    let st = seen.st;
    let wrong = |what: String| {
        error(
            "data_wrong_key",
            format!("Data was encrypted with {what}, not with the ApiPassword"),
            format!(
                "RC4's key is the bytes of the ApiPassword this request sent ({}); with it, \
                 Data does not decrypt to a parameter string",
                mask_secret(pw)
            ),
        )
    };
    if let Some(p) = st.programs.get(app_id) {
        if rc4(&p.app_key, raw).is_some_and(|b| plausible(&b)) {
            return Some(wrong(format!("the AppKey ({})", mask_secret(&p.app_key))));
        }
    }
    let others = st
        .api_password_order
        .get(app_id)
        .into_iter()
        .flat_map(|q| q.iter().rev())
        .filter(|o| *o != pw)
        .take(64);
    for other in others {
        if rc4(other, raw).is_some_and(|b| plausible(&b)) {
            return Some(wrong(format!(
                "another session secret of this program ({})",
                mask_secret(other)
            )));
        }
    }
    let what = match std::str::from_utf8(&mine) {
        Err(_) => "is not UTF-8",
        Ok(_) => "has no action=",
    };
    Some(error(
        "data_wrong_key",
        "Data does not decrypt with the ApiPassword".to_string(),
        format!(
            "decrypted with RC4 keyed with the bytes of the ApiPassword sent ({}), Data {what}: \
             it was encrypted with another key (the AppKey, an older api_password, the hex of a \
             key?) or is not RC4",
            mask_secret(pw)
        ),
    ))
}

fn not_hex(data: &str) -> Diagnosis {
    let looks_base64 = data.contains(['+', '/', '=']);
    match data
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        Some((i, c)) => error(
            "data_not_hex",
            format!("Data is not hex: character {} is {c:?}", i + 1),
            if looks_base64 {
                "it looks like base64: send the ciphertext as hex digits (0-9 A-F)".to_string()
            } else {
                "send the ciphertext as hex digits (0-9 A-F, two per byte)".to_string()
            },
        ),
        None => error(
            "data_not_hex",
            format!(
                "Data has an odd number of hex digits ({})",
                data.chars().count()
            ),
            "every byte is two hex digits: a digit was lost (a leading 0 of a byte?)".to_string(),
        ),
    }
}
