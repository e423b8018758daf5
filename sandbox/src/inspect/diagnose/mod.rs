//! Diagnoses of the mistakes client writers make, for the inspector: the sandbox holds the
//! program's keys and the session secrets, so it can recompute what a client should have
//! sent and say what differs. Each diagnosis names the first difference it finds; secrets in
//! its text are masked as everywhere else.
//!
//! The checks of `service.rs` decide the reply; nothing here changes it. These functions
//! run after the reply is known and explain it (`Severity::Error`), or point at something
//! this server accepted that a client should still fix (`Severity::Warning`).

use std::collections::HashSet;

use bytes::Bytes;
use md5::{Digest, Md5};
use serde_json::json;

use crate::inspect::{self, cut, mask_secret, Answered, Detail, Diagnosis, Meta, Severity, Signed};
use crate::service::actions::{Read, ACTIONS};
use crate::store::State;
use crate::wire::{self, api_password, Form, Params};

fn error(kind: &'static str, title: String, detail: String) -> Diagnosis {
    Diagnosis {
        kind,
        severity: Severity::Error,
        title,
        detail,
        signed: None,
    }
}

fn warning(kind: &'static str, title: String, detail: String) -> Diagnosis {
    Diagnosis {
        severity: Severity::Warning,
        ..error(kind, title, detail)
    }
}

/// Everything a diagnosis may look at.
pub struct Seen<'a> {
    pub st: &'a State,
    pub now: i64,
    pub body: &'a [u8],
    pub content_type: Option<&'a str>,
    pub form: &'a Form,
    pub header_password: Option<&'a str>,
    pub segment: &'a str,
    pub code: i64,
    /// The plaintext's bytes, when `Data` decoded with the request's ApiPassword.
    pub plaintext: Option<&'a [u8]>,
    pub params: Option<&'a Params>,
    pub action: Option<&'a str>,
    /// The parameters the action looked up.
    pub reads: &'a [Read],
}

fn md5_hex(bytes: &[u8]) -> String {
    hex::encode(Md5::digest(bytes))
}

fn is_md5_hex(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Lowercase, without `_`, `-` and spaces: how names are compared for near misses.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

// ---------------------------------------------------------------------------------------
// Requests the HTTP side answered itself
// ---------------------------------------------------------------------------------------

/// An unknown path, another method, a body too large or too slow.
pub fn http(meta: &Meta, path: &str, status: u16) -> Vec<Diagnosis> {
    let shown = inspect::mask_path(path);
    let d = match status {
        404 => {
            let near = path.to_ascii_lowercase().starts_with("/api/verify")
                || path.trim_end_matches('/').eq_ignore_ascii_case("/api/verify");
            error(
                "wrong_path",
                format!("{shown} is not a service path"),
                format!(
                    "the service is POST /api/verify (Init) and POST /api/verify/{{ApiPassword}} \
                     (Handle){}",
                    if near {
                        "; paths are case-sensitive and take one segment after /api/verify/"
                    } else {
                        ""
                    }
                ),
            )
        }
        405 => error(
            "wrong_method",
            format!("{} {shown}: the service takes POST only", meta.method),
            "send the form as the body of a POST (application/x-www-form-urlencoded)".to_string(),
        ),
        413 => error(
            "body_too_large",
            "the body is over 1 MiB".to_string(),
            "no request of the service needs that much: is a file or a whole log in a value?"
                .to_string(),
        ),
        408 => error(
            "body_too_slow",
            "the body did not arrive in time".to_string(),
            "the client announced more bytes (Content-Length) than it sent, or sent them too slowly"
                .to_string(),
        ),
        _ => return Vec::new(),
    };
    vec![d]
}

// ---------------------------------------------------------------------------------------
// Shared by Init and Handle
// ---------------------------------------------------------------------------------------

/// Fields missing from the form, with near misses (another case, a JSON body).
fn missing_fields(seen: &Seen, names: &[&str]) -> Option<Diagnosis> {
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| seen.form.get(n).is_none())
        .collect();
    let first = *missing.first()?;
    let mut detail = format!(
        "the form needs {}; missing: {}",
        names.join(", "),
        missing.join(", ")
    );
    for name in &missing {
        let normed = norm(name);
        if let Some((k, _)) = seen
            .form
            .0
            .iter()
            .find(|(k, _)| k != name && k.len() <= name.len() + 4 && norm(k) == normed)
        {
            detail.push_str(&format!(
                "; the form has {k:?}, but field names are case-sensitive: {name}"
            ));
        }
    }
    let text = String::from_utf8_lossy(seen.body);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        detail.push_str(
            "; the body is JSON, but the service reads a form (application/x-www-form-urlencoded: \
             name=value pairs joined by &)",
        );
    } else if seen
        .content_type
        .is_some_and(|c| c.to_ascii_lowercase().starts_with("multipart/"))
    {
        detail.push_str(
            "; the body is multipart/form-data, but the service reads \
             application/x-www-form-urlencoded",
        );
    } else if seen.form.get(first).is_none() && seen.form.0.iter().any(|(k, _)| k == first) {
        detail.push_str(&format!("; {first} is there but empty"));
    }
    Some(error(
        "missing_field",
        format!("{first} is missing from the form"),
        detail,
    ))
}

/// A `TimeStamp` the service refused (1014).
fn timestamp(seen: &Seen) -> Option<Diagnosis> {
    let ts = seen.form.get("TimeStamp")?;
    let offset = seen.st.clock_offset;
    let clock = if offset != 0 {
        format!(
            " (the sandbox clock is moved by {offset} s from the system clock: GET /_sandbox/clock)"
        )
    } else {
        String::new()
    };
    let Ok(t) = ts.trim().parse::<i64>() else {
        let fraction = ts.trim().parse::<f64>().is_ok();
        return Some(error(
            "timestamp_not_integer",
            format!("TimeStamp {:?} is not a whole number of seconds", cut(ts)),
            if fraction {
                "send Unix time in whole seconds, without a fraction".to_string()
            } else {
                "send Unix time in seconds (digits only), not a date".to_string()
            },
        ));
    };
    let now = seen.now;
    if t.unsigned_abs() >= 100_000_000_000 && (t / 1000).abs_diff(now) <= 86_400 {
        return Some(error(
            "timestamp_milliseconds",
            format!("TimeStamp {t} is in milliseconds"),
            format!(
                "the service takes Unix seconds ({} now{clock}): divide by 1000",
                now
            ),
        ));
    }
    let skew = t.saturating_sub(now);
    let dir = if skew < 0 { "behind" } else { "ahead of" };
    let by = skew.unsigned_abs();
    let mut detail = format!(
        "TimeStamp {t} is {by} s {dir} the sandbox clock ({now}{clock}); the service allows \
         ±300 s, so it is {} s too far",
        by.saturating_sub(300)
    );
    let hours = (by + 1800) / 3600;
    if (1..=14).contains(&hours) && by.abs_diff(hours * 3600) <= 120 {
        detail.push_str(&format!(
            "; that is about {hours} h: the client may take local time (for example UTC+08:00) \
             for UTC"
        ));
    }
    Some(error(
        "timestamp_skew",
        format!("TimeStamp is {by} s {dir} the sandbox clock"),
        detail,
    ))
}

fn program_not_approved(st: &State, app_id: Option<&str>) -> Option<Diagnosis> {
    let p = st.programs.get(app_id?)?;
    Some(error(
        "program_not_approved",
        format!("program {} is {}, not approved", p.app_id, p.status),
        "Init and Handle answer 1012 until the program is approved (the console's Approve, or \
         POST /_sandbox/programs/status)"
            .to_string(),
    ))
}

/// Longest signed string for which the usual mistakes are tried (each try hashes it once,
/// with the state locked).
const SEARCH_MAX: usize = 64 * 1024;

/// The detail of a request the HTTP side answered itself (unknown path, another method, a
/// body too large or too slow).
pub fn http_detail(meta: &Meta, path: &str, now: i64, status: u16, message: &str) -> Detail {
    let diagnoses = http(meta, path, status);
    let reply = json!({"code": status, "message": message, "data": null}).to_string();
    inspect::detail(Answered {
        meta,
        now,
        form: Vec::new(),
        api_password_from: None,
        plaintext: None,
        params: None,
        reply: Bytes::from(reply),
        code: i64::from(status),
        message: message.to_string(),
        http_status: status,
        fault: None,
        fault_delay_ms: 0,
        handle_ms: 0.0,
        diagnoses,
    })
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

// ---------------------------------------------------------------------------------------
// Init
// ---------------------------------------------------------------------------------------

/// Diagnoses of an Init request.
pub fn init(seen: &Seen) -> Vec<Diagnosis> {
    let form = seen.form;
    let app_id = form.get("AppId");
    let d = match seen.code {
        1013 => missing_fields(seen, &["AppId", "AppKey", "TimeStamp", "Sign"]),
        1001 => app_id.map(|id| {
            error(
                "unknown_program",
                format!("no program has AppId {:?}", cut(id)),
                format!(
                    "this sandbox has {} program(s); add one with POST /_sandbox/programs or the \
                     fixtures",
                    seen.st.programs.len()
                ),
            )
        }),
        1012 => program_not_approved(seen.st, app_id),
        1014 => timestamp(seen),
        1010 => init_sign(seen),
        1011 => app_key(seen),
        _ => None,
    };
    d.into_iter().collect()
}

fn init_sign(seen: &Seen) -> Option<Diagnosis> {
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

fn app_key(seen: &Seen) -> Option<Diagnosis> {
    let sent = seen.form.get("AppKey")?;
    let p = seen.st.programs.get(seen.form.get("AppId")?)?;
    let at = sent
        .chars()
        .zip(p.app_key.chars())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| sent.chars().count().min(p.app_key.chars().count()));
    Some(error(
        "app_key_mismatch",
        format!(
            "AppKey is not program {}'s: it differs from character {}",
            p.app_id,
            at + 1
        ),
        format!(
            "the AppKey sent ({}) has {} characters, the program's ({}) {}; the Sign was right \
             for the AppKey sent",
            mask_secret(sent),
            sent.chars().count(),
            mask_secret(&p.app_key),
            p.app_key.chars().count()
        ),
    ))
}

// ---------------------------------------------------------------------------------------
// Handle
// ---------------------------------------------------------------------------------------

/// Diagnoses of a Handle request.
pub fn handle(seen: &Seen) -> Vec<Diagnosis> {
    let mut out = Vec::new();
    let pw = api_password(seen.header_password, seen.form, seen.segment);
    let app_id = pw
        .as_ref()
        .and_then(|(p, _)| seen.st.api_passwords.get(p))
        .map(String::as_str);
    match seen.code {
        1001 => out.extend(stale(seen)),
        1012 => out.extend(program_not_approved(seen.st, app_id)),
        1014 => out.extend(timestamp(seen)),
        1010 => out.extend(handle_sign(seen)),
        1015 => out.extend(unknown_action(seen.action)),
        1013 => {
            if let Some(d) = missing_fields(seen, &["TimeStamp", "Data", "Sign"]) {
                out.push(d);
            } else if let (Some(data), Some((pw, _)), Some(app_id)) =
                (seen.form.get("Data"), pw.as_ref(), app_id)
            {
                out.extend(data_diagnosis(seen, pw, app_id, data));
            }
        }
        _ => {}
    }
    let refused = seen.code != 200 && seen.code != 201;
    if let Some(text) = seen.plaintext.and_then(|p| std::str::from_utf8(p).ok()) {
        let blame = refused && out.is_empty();
        out.extend(escaping(text, blame));
    }
    if let (Some(action), Some(params)) = (seen.action, seen.params) {
        out.extend(parameter_names(action, params, seen.reads));
    }
    out
}

fn source(from: &str) -> String {
    match from {
        "header" => "the X-Api-Password header".to_string(),
        "form" => "the form field ApiPassword".to_string(),
        _ => "the path".to_string(),
    }
}

/// Why an ApiPassword is not known (1001).
fn stale(seen: &Seen) -> Option<Diagnosis> {
    let Some((pw, from)) = api_password(seen.header_password, seen.form, seen.segment) else {
        return Some(error(
            "missing_api_password",
            "no ApiPassword".to_string(),
            "send the api_password of Init's reply in the X-Api-Password header (or as the \
             path: POST /api/verify/{ApiPassword})"
                .to_string(),
        ));
    };
    let st = seen.st;
    let shown = mask_secret(&pw);
    let from_text = source(from);
    let mut also = String::new();
    if from != "path" && !seen.segment.is_empty() {
        let segment = percent_encoding::percent_decode_str(seen.segment).decode_utf8_lossy();
        if segment != pw && st.api_passwords.contains_key(segment.as_ref()) {
            also = format!(
                "; the path holds another one ({}) that is valid, but {from_text} comes first",
                mask_secret(&segment)
            );
        }
    }
    if let Some(p) = st.programs.values().find(|p| p.app_key == pw) {
        return Some(error(
            "app_key_as_api_password",
            format!(
                "the AppKey of program {} was sent as the ApiPassword",
                p.app_id
            ),
            format!(
                "the ApiPassword is the session secret that Init returns (data.api_password), \
                 not the AppKey: run Init and send its api_password ({from_text}){also}"
            ),
        ));
    }
    if let Some(r) = st.retired.get(&pw) {
        return Some(error(
            "stale_api_password",
            format!(
                "ApiPassword {shown} is stale: retired {} s ago",
                seen.now.saturating_sub(r.at)
            ),
            format!(
                "it was a session secret of program {} until {} ({}); it came in {from_text}. \
                 Run Init again and use the new api_password (a client does so by itself on \
                 1001){also}",
                r.app_id,
                crate::time::format(r.at),
                r.why
            ),
        ));
    }
    Some(error(
        "unknown_api_password",
        format!("ApiPassword {shown} was never issued by this sandbox"),
        format!(
            "it came in {from_text}; this sandbox has issued no such session secret since it \
             started (without --state it forgets them when it stops): run Init again{also}"
        ),
    ))
}

fn handle_sign(seen: &Seen) -> Option<Diagnosis> {
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
fn data_diagnosis(seen: &Seen, pw: &str, app_id: &str, data: &str) -> Option<Diagnosis> {
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

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn unknown_action(action: Option<&str>) -> Option<Diagnosis> {
    let action = action?;
    let shown = cut(action);
    if action.eq_ignore_ascii_case("init") {
        return Some(error(
            "unknown_action",
            "Init is not an action".to_string(),
            "Init is its own request: POST /api/verify with the form AppId, AppKey, TimeStamp \
             and Sign; its reply's api_password keys the Handle requests"
                .to_string(),
        ));
    }
    let lower = action.trim().to_ascii_lowercase();
    let guess = ACTIONS
        .iter()
        .find(|a| a.eq_ignore_ascii_case(&lower))
        .or_else(|| {
            // No action's name is near a long string.
            (lower.len() <= 32).then_some(())?;
            ACTIONS
                .iter()
                .map(|a| (levenshtein(&lower, &a.to_ascii_lowercase()), a))
                .filter(|(d, _)| *d <= 3)
                .min_by_key(|(d, _)| *d)
                .map(|(_, a)| a)
        });
    Some(error(
        "unknown_action",
        format!("action {shown:?} is not one of the 12 actions"),
        match guess {
            Some(g) => format!(
                "did you mean {g}? Action names are case-sensitive and have no spaces (the 12: {})",
                ACTIONS.join(", ")
            ),
            None => format!("the 12 actions are {}", ACTIONS.join(", ")),
        },
    ))
}

/// Characters of the plaintext that should have been percent-escaped: the first of each
/// kind. With `blame`, those that change what the server reads explain the refusal.
fn escaping(plain: &str, blame: bool) -> Vec<Diagnosis> {
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
        let secret = crate::inspect::secret_param(&key);
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

/// Names the machine code goes by in clients (compared after [`norm`]).
const MACHINE_WORDS: &[&str] = &[
    "mac",
    "newmac",
    "deviceid",
    "machinecode",
    "machineid",
    "machine",
    "hwid",
    "hardwareid",
    "macaddress",
    "macaddr",
    "devicecode",
    "computerid",
    "pcid",
    "jiqima",
    "机器码",
];

/// Parameters sent under a name the action does not read, aliases that disagree, and
/// required parameters missing.
fn parameter_names(action: &str, params: &Params, reads: &[Read]) -> Vec<Diagnosis> {
    let mut out = Vec::new();
    let mut groups: Vec<Read> = Vec::new();
    for r in reads {
        if !groups.iter().any(|g| g.names == r.names) {
            groups.push(*r);
        }
    }
    let read_names: HashSet<&str> = groups
        .iter()
        .flat_map(|g| g.names.iter().copied())
        .collect();
    let is_mac = |g: &Read| g.names.contains(&"Mac");
    let kind_of = |g: &Read| {
        if is_mac(g) {
            "mac_alias"
        } else {
            "parameter_name"
        }
    };
    let what = |g: &Read| {
        if is_mac(g) {
            "the machine code".to_string()
        } else {
            g.names[0].to_string()
        }
    };
    let mut explained: Vec<&'static [&'static str]> = Vec::new();
    for g in &groups {
        let sent: Vec<(&str, &str)> = g
            .names
            .iter()
            .filter_map(|n| {
                params
                    .pairs()
                    .iter()
                    .find(|(k, v)| k == n && !v.is_empty())
                    .map(|(k, v)| (k.as_str(), v.as_str()))
            })
            .collect();
        if let Some((first, value)) = sent.first() {
            if let Some((other, _)) = sent.iter().find(|(_, v)| v != value) {
                out.push(warning(
                    kind_of(g),
                    format!("{first} and {other} both sent, with different values"),
                    format!(
                        "{action} reads {}, in that order: it took {first} and ignored {other}",
                        list(g.names)
                    ),
                ));
            }
        }
    }
    for (key, _) in params.pairs() {
        if key == "action" || read_names.contains(key.as_str()) {
            continue;
        }
        let normed = norm(key);
        let Some(g) = groups.iter().find(|g| {
            g.names.iter().any(|n| norm(n) == normed)
                || (is_mac(g) && MACHINE_WORDS.contains(&normed.as_str()))
        }) else {
            continue;
        };
        let mut detail = format!(
            "{action} reads {} as {}; {key} is ignored",
            what(g),
            list(g.names)
        );
        if !g.found && g.required {
            detail.push_str(&format!(", so {} is missing (1013)", g.names[0]));
        } else if !g.found && is_mac(g) {
            detail.push_str(
                ", so the request went on without a machine code (no check of the bound machine)",
            );
        } else if !g.found {
            detail.push_str(&format!(", so {} was not sent", g.names[0]));
        }
        if normed == "newmac" && action != "ChangeBind" {
            detail.push_str("; NewMac is ChangeBind's name for the new machine code");
        }
        let title = format!(
            "{action} does not read {key}: {} goes in {}",
            what(g),
            g.names[0]
        );
        out.push(if g.required && !g.found {
            error(kind_of(g), title, detail)
        } else {
            warning(kind_of(g), title, detail)
        });
        explained.push(g.names);
    }
    for g in &groups {
        if g.required && !g.found && !explained.contains(&g.names) {
            let keys: Vec<&str> = params.pairs().iter().map(|(k, _)| k.as_str()).collect();
            out.push(error(
                "missing_parameter",
                format!("{action} needs {}", g.names[0]),
                format!(
                    "it reads {} from the plaintext, which has {}",
                    list(g.names),
                    if keys.is_empty() {
                        "no parameters".to_string()
                    } else {
                        keys.join(", ")
                    }
                ),
            ));
        }
    }
    out
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
        assert_eq!(levenshtein("singlelogn", "singlelogin"), 1);
    }

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
