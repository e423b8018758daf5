//! The form's fields, shared by Init and Handle: fields missing (with their near misses),
//! the `TimeStamp`, the program's status, the `AppKey`, and an `ApiPassword` that is not
//! known (stale, never issued, or the AppKey in its place).

use super::seen::{error, norm, Known, Seen};
use crate::inspect::detail::Diagnosis;
use crate::inspect::mask::{cut, mask_secret};
use crate::wire::api_password;

/// Fields missing from the form, with near misses (another case, a JSON body).
pub(super) fn missing_fields(seen: &Seen, names: &[&str]) -> Option<Diagnosis> {
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
pub(super) fn timestamp(seen: &Seen) -> Option<Diagnosis> {
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

pub(super) fn program_not_approved(st: Known, app_id: Option<&str>) -> Option<Diagnosis> {
    let p = st.programs.get(app_id?)?;
    Some(error(
        "program_not_approved",
        format!("program {} is {}, not approved", p.app_id, p.status),
        "Init and Handle answer 1012 until the program is approved (the console's Approve, or \
         POST /_sandbox/programs/status)"
            .to_string(),
    ))
}

pub(super) fn app_key(seen: &Seen) -> Option<Diagnosis> {
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

fn source(from: &str) -> String {
    match from {
        "header" => "the X-Api-Password header".to_string(),
        "form" => "the form field ApiPassword".to_string(),
        _ => "the path".to_string(),
    }
}

/// Why an ApiPassword is not known (1001).
pub(super) fn stale(seen: &Seen) -> Option<Diagnosis> {
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
