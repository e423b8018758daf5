//! Diagnoses of the mistakes client writers make, for the inspector: the sandbox holds the
//! program's keys and the session secrets, so it can recompute what a client should have
//! sent and say what differs. Each diagnosis names the first difference it finds; secrets in
//! its text are masked as everywhere else.
//!
//! The checks of the service (`service/mod.rs`) decide the reply; nothing here changes
//! it. These functions run after the reply is known and explain it (`Severity::Error`), or point at something
//! this server accepted that a client should still fix (`Severity::Warning`).

mod action;
mod data;
mod escaping;
mod form;
mod http;
mod params;
mod seen;
mod sign;

pub use http::http_detail;
pub use seen::{Known, Retired, Seen};

use action::unknown_action;
use data::data_diagnosis;
use escaping::escaping;
use form::{app_key, missing_fields, program_not_approved, stale, timestamp};
use params::parameter_names;
use sign::{handle_sign, init_sign};

use crate::inspect::detail::Diagnosis;
use crate::inspect::mask::cut;
use crate::wire::api_password;
use seen::error;

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
