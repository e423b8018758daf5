//! Escaping: characters of the plaintext that should have been percent-escaped.

use std::collections::HashSet;

use super::seen::{error, warning};
use crate::inspect::detail::Diagnosis;
use crate::wire;

/// Characters of the plaintext that should have been percent-escaped: the first of each
/// kind. With `blame`, those that change what the server reads explain the refusal.
pub(super) fn escaping(plain: &str, blame: bool) -> Vec<Diagnosis> {
    let mut out: Vec<Diagnosis> = Vec::new();
    let mut kinds: HashSet<&'static str> = HashSet::new();
    let mut push = |kind: &'static str, changes_value: bool, title: String, detail: String| {
        if kinds.insert(kind) {
            out.push(if blame && changes_value {
                error(kind, title, detail)
            } else {
                warning(kind, title, detail)
            });
        }
    };
    let rule = "every key and value is percent-encoded except A-Z a-z 0-9 - _ . ~";
    let mut previous: Option<String> = None;
    for part in plain.split('&') {
        if part.is_empty() {
            continue;
        }
        let Some((k, v)) = part.split_once('=') else {
            let after = previous
                .as_deref()
                .map_or("the start".to_string(), |p| format!("the value of {p}"));
            push(
                "unescaped_ampersand",
                true,
                format!("a raw '&' cuts {after} short"),
                format!(
                    "the server splits the plaintext at every '&': what followed it ({} \
                     characters, no '=') is read as a parameter of its own. Escape '&' as %26 \
                     ({rule})",
                    part.chars().count()
                ),
            );
            continue;
        };
        let key = wire::form_decode_lossy(k);
        let secret = crate::inspect::mask::secret_param(&key);
        let bytes = v.as_bytes();
        for (i, (at, c)) in v.char_indices().enumerate() {
            match c {
                '+' => push(
                    "unescaped_plus",
                    true,
                    format!("a raw '+' in the value of {key} is read as a space"),
                    format!(
                        "character {} of the value of {key} is '+', which form decoding turns \
                         into a space: escape a '+' as %2B, and a space as %20 rather than '+' \
                         ({rule})",
                        i + 1
                    ),
                ),
                '%' if !(bytes.len() > at + 2
                    && bytes[at + 1].is_ascii_hexdigit()
                    && bytes[at + 2].is_ascii_hexdigit()) =>
                {
                    push(
                        "unescaped_percent",
                        false,
                        format!("a raw '%' in the value of {key}"),
                        format!(
                            "character {} of the value of {key} is a '%' that starts no escape: \
                             this server keeps it, but a '%' followed by two hex digits would be \
                             read as a byte. Escape it as %25 ({rule})",
                            i + 1
                        ),
                    )
                }
                '=' => push(
                    "unescaped_equals",
                    false,
                    format!("a raw '=' in the value of {key}"),
                    format!(
                        "character {} of the value of {key} is '=': this server cuts a pair at its \
                         first '=' and keeps the rest, but escape it as %3D ({rule})",
                        i + 1
                    ),
                ),
                c if !c.is_ascii() => {
                    let quoted = if secret {
                        String::new()
                    } else {
                        let escaped: String =
                            c.to_string().bytes().map(|b| format!("%{b:02X}")).collect();
                        format!(" ({c:?} is {escaped})")
                    };
                    push(
                        "unescaped_non_ascii",
                        false,
                        format!("raw non-ASCII text in the value of {key}"),
                        format!(
                            "character {} of the value of {key} is not ASCII: this server reads \
                             raw UTF-8, but percent-encode each UTF-8 byte{quoted} ({rule})",
                            i + 1
                        ),
                    );
                }
                _ => {}
            }
        }
        previous = Some(key);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let kinds = |p: &str| -> Vec<&str> { escaping(p, false).iter().map(|d| d.kind).collect() };
        assert!(kinds("action=UserLogin&UserName=a%2Bb&Password=x%26y").is_empty());
        assert_eq!(kinds("action=A&Password=a+b"), ["unescaped_plus"]);
        assert_eq!(kinds("action=A&Password=a&b"), ["unescaped_ampersand"]);
        assert_eq!(kinds("action=A&Password=a=b"), ["unescaped_equals"]);
        assert_eq!(kinds("action=A&Password=5%"), ["unescaped_percent"]);
        assert_eq!(kinds("action=A&UserName=张三"), ["unescaped_non_ascii"]);
        let d = escaping("action=A&UserName=张", false);
        assert!(d[0].detail.contains("%E5%BC%A0"), "{}", d[0].detail);
        let d = escaping("action=A&Password=张", false);
        assert!(!d[0].detail.contains('张'), "{}", d[0].detail);
    }
}
