//! The reply parser and the typed reply views: `Reply::from_body` on any bytes; on success
//! every view of `verify_core::actions` (through `From<Reply>`) with every accessor, its
//! `Debug`, JSON Pointers (fixed ones and one taken from the input), and the envelope
//! parsed again from its own serialization with the same code and message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verify_core::{
    Bulletin, CardInfo, CardLogin, Heartbeat, LatestVersion, PasswordChanged, Rebind, Recharge,
    Registration, Renewal, Reply, SocialRegistration, SocialStart, UserInfo, UserSession, Variable,
    Variables,
};

/// Builds each view from a clone of `reply` and reads every accessor (their values are
/// formatted so that nothing is optimised away).
macro_rules! views {
    ($reply:expr; $($view:ident { $($field:ident),* $(,)? })*) => {{
        let mut out = String::new();
        $(
            let view = $view::from($reply.clone());
            $( out.push_str(&format!("{:?}", view.$field())); )*
            out.push_str(&format!("{view:?}"));
            assert_eq!(view.reply().code(), $reply.code());
            assert_eq!(view.into_reply(), *$reply);
        )*
        out
    }};
}

const POINTERS: &[&str] = &[
    "",
    "/",
    "/code",
    "/message",
    "/data",
    "/data/token",
    "/data/variables/a.b",
    "/data/x~1y",
    "/data/t~0z",
    "/data/list/0",
    "/data/list/-",
    "/data/~",
    "/data//",
    "data",
];

fuzz_target!(|body: &[u8]| {
    let reply = match Reply::from_body(body) {
        Ok(reply) => reply,
        Err(message) => {
            assert!(!message.is_empty());
            return;
        }
    };
    let code = reply.code();
    let _ = (reply.message(), reply.remark(), format!("{reply:?}"));
    let _ = (reply.data(), reply.json());
    for name in [
        "token",
        "remark",
        "expire_at",
        "variables",
        "",
        "a.b",
        "x/y",
    ] {
        let _ = (
            reply.field(name),
            reply.str_field(name),
            reply.int_field(name),
            reply.bool_field(name),
        );
    }
    for pointer in POINTERS {
        let _ = reply.pointer(pointer);
    }
    // A pointer from the input: its first line, when it is UTF-8.
    if let Some(line) = body.split(|b| *b == b'\n').next() {
        if let Ok(pointer) = std::str::from_utf8(line) {
            let _ = reply.pointer(pointer);
        }
    }
    let reply = &reply;
    let text = views!(reply;
        CardLogin { token, status, is_times, card_type, expire_at, total, used, remaining }
        UserSession { username, device_id, expire_at, status, token, remark }
        Renewal { username, expire_at, added_days, status }
        Registration { username, user_id, expire_at, token, status }
        PasswordChanged { username }
        Rebind { username, device_id, bind_count, bind_limit }
        Heartbeat { expire_at, status, msg }
        Recharge { username, expire_at, added_days, status }
        LatestVersion { version, changelog, download_url, force_update, has_update }
        Bulletin { bulletin, updated_at }
        Variable { name, value }
        Variables { variables }
        UserInfo {
            username, user_id, device_id, expire_at, status, bind_count, bind_limit, remark,
            created_at,
        }
        CardInfo {
            card, card_type, status, is_times, device_id, activated_at, expire_at, duration,
            duration_type, total, used, remaining,
        }
        SocialStart { url, state }
        SocialRegistration { url }
    );
    assert!(!text.is_empty());
    let _ = SocialRegistration::from(reply.clone()).state();
    // What was accepted parses again, the same.
    let again = serde_json::to_vec(reply.json()).expect("a parsed envelope serializes");
    let again = Reply::from_body(&again).expect("a serialized envelope parses again");
    assert_eq!(again.code(), code);
    assert_eq!(again.message(), reply.message());
});
