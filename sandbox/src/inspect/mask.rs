//! How secrets are shown: what the request log, the inspector and the console's views
//! print of a session secret, an AppKey, a password, a token or a card key (the first
//! characters, then `****`), and how long a text is shown before it is cut.

use serde_json::{json, Value};

use crate::wire::{Params, CARD, NEW_PASSWORD, PASSWORD, TOKEN};

/// Longest text shown of one field (a value, the plaintext, the reply); longer ones are cut
/// and say how long they were.
const FIELD_MAX: usize = 2048;

/// `/api/verify/SECRET` -> `/api/verify/****`: the request log never shows a session
/// secret.
pub fn mask_path(path: &str) -> String {
    match path.strip_prefix("/api/verify/") {
        Some(rest) if !rest.is_empty() => "/api/verify/****".to_string(),
        _ => path.to_string(),
    }
}

/// The first 4 characters of a secret, then `****` (empty stays empty).
pub fn mask_secret(secret: &str) -> String {
    if secret.is_empty() {
        return String::new();
    }
    let head: String = secret.chars().take(4).collect();
    format!("{head}****")
}

/// `s`, cut to [`FIELD_MAX`] bytes (at a character boundary) with a note of its length.
pub fn cut(s: &str) -> String {
    if s.len() <= FIELD_MAX {
        return s.to_string();
    }
    let mut end = FIELD_MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &s[..end], s.len())
}

/// A card key shown in part: its first and last 4 characters.
pub fn mask_card(card: &str) -> String {
    let n = card.chars().count();
    if n <= 8 {
        return "****".to_string();
    }
    let head: String = card.chars().take(4).collect();
    let tail: String = card.chars().skip(n - 4).collect();
    format!("{head}****{tail}")
}

/// How a parameter of the plaintext is shown.
pub fn mask_param(name: &str, value: &str) -> String {
    if CARD.contains(&name) {
        mask_card(value)
    } else if secret_param(name) {
        mask_secret(value)
    } else {
        cut(value)
    }
}

/// How a field of the form is shown.
pub fn mask_form(name: &str, value: &str) -> String {
    match name {
        "AppKey" | "ApiPassword" => mask_secret(value),
        _ => cut(value),
    }
}

/// A reply with its secrets masked: `token` and `api_password` fields, card keys in part.
pub fn mask_reply(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    let shown = match (k.as_str(), v) {
                        ("token" | "api_password", Value::String(s)) => json!(mask_secret(s)),
                        ("card" | "card_no", Value::String(s)) => json!(mask_card(s)),
                        _ => mask_reply(v),
                    };
                    (k.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(mask_reply).collect()),
        other => other.clone(),
    }
}

/// The form, masked. A name that cannot be a field's (a JSON body read as a form, say) is
/// not shown: it may hold anything.
pub fn form_masked(form: &[(String, String)]) -> Vec<(String, String)> {
    form.iter()
        .map(|(k, v)| {
            let plain_name = k.len() <= 64
                && k.chars()
                    .all(|c| c.is_alphanumeric() || "_-.[]".contains(c));
            if plain_name {
                (k.clone(), mask_form(k, v))
            } else {
                (
                    format!("({} bytes: not a field name)", k.len()),
                    format!("({} bytes)", v.len()),
                )
            }
        })
        .collect()
}

/// The parameters, masked.
pub fn params_masked(params: &Params) -> Vec<(String, String)> {
    params
        .pairs()
        .iter()
        .map(|(k, v)| (k.clone(), mask_param(k, v)))
        .collect()
}

/// The plaintext as sent, with the values of secret parameters masked (decoded to be
/// masked), and a piece without `=` after one (the rest of a value cut by a raw `&`) too;
/// bytes that are not UTF-8 are shown as U+FFFD.
pub fn plaintext_masked(plain: &[u8]) -> String {
    let text = String::from_utf8_lossy(plain);
    let mut after_secret = false;
    let shown: Vec<String> = text
        .split('&')
        .map(|part| match part.split_once('=') {
            Some((k, v)) => {
                let name = crate::wire::form_decode_lossy(k);
                after_secret = secret_param(&name);
                if after_secret {
                    let value = crate::wire::form_decode_lossy(v);
                    format!("{k}={}", mask_param(&name, &value))
                } else {
                    part.to_string()
                }
            }
            None if after_secret && !part.is_empty() => "****".to_string(),
            None => part.to_string(),
        })
        .collect();
    cut(&shown.join("&"))
}

/// Whether a parameter's value is masked.
pub fn secret_param(name: &str) -> bool {
    [PASSWORD, NEW_PASSWORD, TOKEN, CARD]
        .iter()
        .any(|names| names.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(mask_card("AAAA-BBBB-CCCC-DDDD"), "AAAA****DDDD");
        assert_eq!(mask_card("SHORT"), "****");
        assert_eq!(mask_param("Password", "secret"), "secr****");
        assert_eq!(mask_param("Mac", "M1"), "M1");
        assert_eq!(
            plaintext_masked(b"action=UserLogin&UserName=a&pwd=p%26ss&Card=AAAA-BBBB-CCCC-DDDD"),
            "action=UserLogin&UserName=a&pwd=p&ss****&Card=AAAA****DDDD"
        );
        assert_eq!(
            plaintext_masked(b"action=UserLogin&Password=p&ss&Mac=m"),
            "action=UserLogin&Password=p****&****&Mac=m"
        );
        let v = mask_reply(&json!({"data": {"token": "abcdefgh", "card": "AAAA-BBBB-CCCC-DDDD"}}));
        assert_eq!(
            v,
            json!({"data": {"token": "abcd****", "card": "AAAA****DDDD"}})
        );
        let long = "x".repeat(3000);
        assert!(cut(&long).ends_with("(3000 bytes in all)"));
    }
}
