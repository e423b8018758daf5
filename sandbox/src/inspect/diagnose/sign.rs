//! The signature search: a refused `Sign` recomputed over the pieces the service signs,
//! then over the usual mistakes (another order, a piece left out, another secret, another
//! second, Data in the other case, UTF-16 bytes) until one gives the client's `Sign`.

use super::seen::{error, Seen};
use crate::inspect::detail::{Diagnosis, Signed};
use crate::inspect::mask::{cut, mask_secret};
use crate::wire::{api_password, md5_hex};

/// Longest signed string for which the usual mistakes are tried (each try hashes it once,
/// with the state locked).
const SEARCH_MAX: usize = 64 * 1024;

fn is_md5_hex(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// One piece of a signed string: its name, its value and how it is shown.
#[derive(Clone)]
struct Piece {
    name: &'static str,
    value: String,
    shown: String,
}

fn joined(pieces: &[&Piece]) -> (String, String) {
    let value: String = pieces.iter().map(|p| p.value.as_str()).collect();
    let shown: String = pieces.iter().map(|p| p.shown.as_str()).collect();
    (value, shown)
}

fn names_of(pieces: &[&Piece]) -> String {
    pieces
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Sequences of pieces (each used at most its `uses`), longest first, except `skip`.
fn sequences(uses: &[usize], longest: usize) -> Vec<Vec<usize>> {
    fn grow(uses: &mut [usize], seq: &mut Vec<usize>, len: usize, out: &mut Vec<Vec<usize>>) {
        if seq.len() == len {
            out.push(seq.clone());
            return;
        }
        for i in 0..uses.len() {
            if uses[i] > 0 {
                uses[i] -= 1;
                seq.push(i);
                grow(uses, seq, len, out);
                seq.pop();
                uses[i] += 1;
            }
        }
    }
    let mut out = Vec::new();
    for len in (1..=longest).rev() {
        grow(&mut uses.to_vec(), &mut Vec::new(), len, &mut out);
    }
    out
}

/// "piece 2: Data where TimeStamp belongs".
fn first_difference(expected: &[&str], got: &[&str]) -> String {
    let i = (0..=expected.len().max(got.len()))
        .find(|&i| expected.get(i) != got.get(i))
        .unwrap_or(0);
    match (expected.get(i), got.get(i)) {
        (Some(e), Some(g)) => format!("piece {}: {g} where {e} belongs", i + 1),
        (Some(e), None) => format!("piece {}: the string ends where {e} belongs", i + 1),
        (None, Some(g)) => format!("piece {}: an extra {g}", i + 1),
        (None, None) => "none".to_string(),
    }
}

/// Explains a refused `Sign`: the pieces in the order the service signs them.
fn sign(
    formula: &'static str,
    pieces: &[Piece],
    order: &[usize],
    sent: &str,
    variants: Vec<(&'static str, String, Vec<Piece>)>,
) -> Diagnosis {
    let expected_pieces: Vec<&Piece> = order.iter().map(|&i| &pieces[i]).collect();
    let (expected_string, shown) = joined(&expected_pieces);
    let expected = md5_hex(expected_string.as_bytes());
    let mut signed = Signed {
        formula,
        string: cut(&shown),
        expected: expected.clone(),
        sent: cut(sent),
        client_string: None,
    };
    let with = |mut d: Diagnosis, signed: Signed| {
        d.signed = Some(signed);
        d
    };
    let tail = format!(
        "The sandbox signed {formula}: {:?}, whose lowercase hex MD5 is {expected}",
        signed.string
    );
    if !is_md5_hex(sent) {
        return with(
            error(
                "sign_not_md5",
                format!(
                    "Sign is not 32 hex digits (it has {} characters)",
                    sent.chars().count()
                ),
                format!("Sign is the MD5 of the string, in 32 lowercase hex digits. {tail}"),
            ),
            signed,
        );
    }
    let lower = sent.to_ascii_lowercase();
    if lower == expected {
        return with(
            error(
                "sign_uppercase",
                "Sign is in uppercase hex".to_string(),
                format!(
                    "the string is right, but the service compares Sign as a string: send the \
                     MD5 in lowercase hex ({expected})"
                ),
            ),
            signed,
        );
    }
    if expected_string.len() > SEARCH_MAX {
        return with(
            error(
                "sign_mismatch",
                "Sign is not the MD5 of the string the sandbox signed".to_string(),
                format!(
                    "the request is too long for the sandbox to try the usual mistakes. {tail}"
                ),
            ),
            signed,
        );
    }
    let case_note = if lower != sent {
        " (and Sign is in uppercase hex, which the service refuses too)"
    } else {
        ""
    };
    // Variants: the same names, another value (Data in the other case, another secret,
    // another second).
    for (kind, what, alt) in &variants {
        let alt_pieces: Vec<&Piece> = order.iter().map(|&i| &alt[i]).collect();
        let (value, alt_shown) = joined(&alt_pieces);
        if md5_hex(value.as_bytes()) == lower {
            signed.client_string = Some(cut(&alt_shown));
            return with(
                error(kind, what.clone(), format!("{tail}{case_note}")),
                signed,
            );
        }
    }
    let uses: Vec<usize> = (0..pieces.len())
        .map(|i| order.iter().filter(|&&j| j == i).count())
        .collect();
    let expected_names: Vec<&str> = expected_pieces.iter().map(|p| p.name).collect();
    for seq in sequences(&uses, order.len()) {
        if seq == order {
            continue;
        }
        let got: Vec<&Piece> = seq.iter().map(|&i| &pieces[i]).collect();
        let (value, got_shown) = joined(&got);
        if md5_hex(value.as_bytes()) != lower {
            continue;
        }
        let got_names: Vec<&str> = got.iter().map(|p| p.name).collect();
        let difference = first_difference(&expected_names, &got_names);
        signed.client_string = Some(cut(&got_shown));
        let d = if seq.len() == order.len() {
            error(
                "sign_order",
                format!(
                    "Sign was computed over {}, not {}",
                    names_of(&got),
                    names_of(&expected_pieces)
                ),
                format!("the first difference is {difference}. {tail}{case_note}"),
            )
        } else {
            let mut left: Vec<&str> = expected_names.clone();
            for n in &got_names {
                if let Some(i) = left.iter().position(|x| x == n) {
                    left.remove(i);
                }
            }
            error(
                "sign_missing_field",
                format!(
                    "Sign leaves out {}: it was computed over {}",
                    left.join(" and "),
                    names_of(&got)
                ),
                format!("the first difference is {difference}. {tail}{case_note}"),
            )
        };
        return with(d, signed);
    }
    let utf16: Vec<u8> = expected_string
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    if md5_hex(&utf16) == lower {
        return with(
            error(
                "sign_encoding",
                "Sign is the MD5 of the right string's UTF-16 bytes".to_string(),
                format!(
                    "hash the string's UTF-8 bytes (in C#: Encoding.UTF8, not Encoding.Unicode). \
                     {tail}"
                ),
            ),
            signed,
        );
    }
    with(
        error(
            "sign_mismatch",
            "Sign matches none of the usual mistakes".to_string(),
            format!(
                "compare the string your client hashes with the one the sandbox signed, piece by \
                 piece: no separators, no spaces, the values exactly as sent in the form. {tail}{case_note}"
            ),
        ),
        signed,
    )
}

pub(super) fn init_sign(seen: &Seen) -> Option<Diagnosis> {
    let f = seen.form;
    let (id, key, ts, sent) = (
        f.get("AppId")?,
        f.get("AppKey")?,
        f.get("TimeStamp")?,
        f.get("Sign")?,
    );
    let piece = |name, value: &str, shown: String| Piece {
        name,
        value: value.to_string(),
        shown,
    };
    let pieces = vec![
        piece("AppId", id, id.to_string()),
        piece("AppKey", key, mask_secret(key)),
        piece("TimeStamp", ts, ts.to_string()),
    ];
    let mut variants = Vec::new();
    if let Ok(t) = ts.trim().parse::<i64>() {
        for delta in [-1i64, 1, -2, 2, -3, 3, -5, 5] {
            let other = t.saturating_add(delta).to_string();
            let mut alt = pieces.clone();
            alt[2] = piece("TimeStamp", &other, other.clone());
            variants.push((
                "sign_timestamp",
                format!("Sign was computed with TimeStamp {other}, not the {ts} sent"),
                alt,
            ));
        }
    }
    Some(sign(
        "MD5(AppId + AppKey + TimeStamp + AppKey)",
        &pieces,
        &[0, 1, 2, 1],
        sent,
        variants,
    ))
}

pub(super) fn handle_sign(seen: &Seen) -> Option<Diagnosis> {
    let (pw, _) = api_password(seen.header_password, seen.form, seen.segment)?;
    let f = seen.form;
    let (ts, data, sent) = (f.get("TimeStamp")?, f.get("Data")?, f.get("Sign")?);
    let piece = |name, value: &str, shown: String| Piece {
        name,
        value: value.to_string(),
        shown,
    };
    let pieces = vec![
        piece("ApiPassword", &pw, mask_secret(&pw)),
        piece("TimeStamp", ts, ts.to_string()),
        piece("Data", data, data.to_string()),
    ];
    let mut variants = Vec::new();
    for (other, case) in [
        (data.to_ascii_lowercase(), "lowercase"),
        (data.to_ascii_uppercase(), "uppercase"),
    ] {
        if other != data {
            let sent_case = if case == "lowercase" {
                "uppercase"
            } else {
                "lowercase"
            };
            let mut alt = pieces.clone();
            alt[2] = piece("Data", &other, other.clone());
            variants.push((
                "sign_data_case",
                format!(
                    "Sign was computed over Data in {case} hex, but Data was sent in {sent_case}"
                ),
                alt,
            ));
        }
    }
    let st = seen.st;
    if let Some(app_id) = st.api_passwords.get(&pw) {
        if let Some(p) = st.programs.get(app_id) {
            let mut alt = pieces.clone();
            alt[0] = piece("AppKey", &p.app_key, mask_secret(&p.app_key));
            variants.push((
                "sign_wrong_secret",
                "Sign was computed with the AppKey in place of the ApiPassword".to_string(),
                alt,
            ));
        }
        let others = st
            .api_password_order
            .get(app_id)
            .into_iter()
            .flat_map(|q| q.iter().rev())
            .filter(|o| **o != pw)
            .take(64);
        for other in others {
            let mut alt = pieces.clone();
            alt[0] = piece("ApiPassword", other, mask_secret(other));
            variants.push((
                "sign_wrong_secret",
                format!(
                    "Sign was computed with another session secret of this program ({}), not \
                     the ApiPassword sent ({})",
                    mask_secret(other),
                    mask_secret(&pw)
                ),
                alt,
            ));
        }
    }
    if let Ok(t) = ts.trim().parse::<i64>() {
        for delta in [-1i64, 1, -2, 2, -3, 3, -5, 5] {
            let other = t.saturating_add(delta).to_string();
            let mut alt = pieces.clone();
            alt[1] = piece("TimeStamp", &other, other.clone());
            variants.push((
                "sign_timestamp",
                format!(
                    "Sign was computed with TimeStamp {other}, not the {ts} sent: take the time \
                     once per request"
                ),
                alt,
            ));
        }
    }
    Some(sign(
        "MD5(ApiPassword + TimeStamp + Data)",
        &pieces,
        &[0, 1, 2],
        sent,
        variants,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_and_differences() {
        let s = sequences(&[1, 1, 1], 3);
        assert_eq!(s.len(), 6 + 6 + 3);
        assert_eq!(s[0], vec![0, 1, 2]);
        assert_eq!(
            sequences(&[1, 2, 1], 4)
                .iter()
                .filter(|s| s.len() == 4)
                .count(),
            12
        );
        assert_eq!(
            first_difference(&["A", "T", "D"], &["T", "A", "D"]),
            "piece 1: T where A belongs"
        );
        assert_eq!(
            first_difference(&["A", "T", "D"], &["A", "D"]),
            "piece 2: D where T belongs"
        );
    }
}
