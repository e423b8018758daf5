//! The back-office control API under `/_sandbox/`: JSON in, JSON out. Every operation calls
//! the same `State` function (`store/back_office.rs`) as the matching `Sandbox` method.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::fixtures::{Account, Card, Fixtures, Program};
use crate::store::faults::Fault;
use crate::store::Shared;

#[derive(Deserialize)]
struct StatusBody {
    app_id: String,
    status: String,
}

#[derive(Deserialize)]
struct CardUpdate {
    app_id: String,
    card: String,
    op: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct AccountUpdate {
    app_id: String,
    username: String,
    op: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct DeviceUpdate {
    app_id: String,
    device_id: String,
    op: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
struct MessageBody {
    app_id: String,
    #[serde(default)]
    card: Option<String>,
    #[serde(default)]
    username: Option<String>,
    message: String,
}

#[derive(Deserialize)]
struct SocialBody {
    state: String,
    identity: String,
    #[serde(default)]
    display_name: String,
}

#[derive(Deserialize)]
struct ClockBody {
    #[serde(default)]
    shift: Option<i64>,
    #[serde(default)]
    offset: Option<i64>,
}

#[derive(Deserialize)]
struct CardKey {
    app_id: String,
    card: String,
}

#[derive(Deserialize)]
struct RechargeBody {
    app_id: String,
    username: String,
    #[serde(default)]
    days: u32,
    #[serde(default)]
    hours: u32,
}

#[derive(Deserialize)]
struct StateBody {
    state: String,
}

#[derive(Deserialize)]
struct DialectBody {
    app_id: String,
    dialect: String,
}

/// `POST /_sandbox/cards/bulk`: `count` cards of one kind, keys generated.
#[derive(Deserialize)]
struct BulkBody {
    count: u32,
    #[serde(flatten)]
    card: Card,
}

/// Most cards one bulk request creates.
const BULK_MAX: u32 = 1000;

#[derive(Deserialize, Default)]
struct ClearBody {
    #[serde(default)]
    app_id: Option<String>,
}

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    let text = if body.iter().all(u8::is_ascii_whitespace) {
        &b"{}"[..]
    } else {
        body
    };
    serde_json::from_slice(text).map_err(|e| format!("invalid JSON body: {e}"))
}

fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

fn ok(extra: Value) -> (u16, Value) {
    let mut v = json!({"ok": true});
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    (200, v)
}

fn fail(status: u16, error: impl Into<String>) -> (u16, Value) {
    (status, json!({"ok": false, "error": error.into()}))
}

fn done(r: Result<Value, String>) -> (u16, Value) {
    match r {
        Ok(extra) => ok(extra),
        Err(e) => fail(400, e),
    }
}

const POST_PATHS: &[&str] = &[
    "/_sandbox/fixtures",
    "/_sandbox/programs",
    "/_sandbox/programs/status",
    "/_sandbox/cards",
    "/_sandbox/cards/update",
    "/_sandbox/accounts",
    "/_sandbox/accounts/update",
    "/_sandbox/devices/update",
    "/_sandbox/message",
    "/_sandbox/social/authorize",
    "/_sandbox/clock",
    "/_sandbox/faults",
    "/_sandbox/faults/clear",
    "/_sandbox/cards/bulk",
    "/_sandbox/cards/delete",
    "/_sandbox/accounts/recharge",
    "/_sandbox/social/deny",
    "/_sandbox/dialect",
    "/_sandbox/reset",
];

const GET_PATHS: &[&str] = &[
    "/_sandbox/cards/get",
    "/_sandbox/accounts/get",
    "/_sandbox/clock",
    "/_sandbox/log",
    "/_sandbox/stats",
    "/_sandbox/programs",
    "/_sandbox/cards",
    "/_sandbox/accounts",
    "/_sandbox/sessions",
    "/_sandbox/social",
    "/_sandbox/faults",
];

/// Serves one control request: `(HTTP status, JSON body)`.
pub fn handle(
    shared: &Shared,
    method: &str,
    path: &str,
    query: Option<&str>,
    body: &[u8],
) -> (u16, Value) {
    if let Some(seq) = path.strip_prefix("/_sandbox/log/") {
        if method != "GET" {
            return fail(405, format!("method {method} not allowed on {path}"));
        }
        let Ok(seq) = seq.parse::<u64>() else {
            return fail(404, format!("{seq:?} is not a log entry number"));
        };
        return match shared.lock().log_entry(seq) {
            Ok(Some(entry)) => ok(json!({ "entry": entry })),
            Ok(None) => fail(404, format!("no entry {seq} in the request log")),
            Err(e) => fail(404, e),
        };
    }
    match method {
        "POST" if POST_PATHS.contains(&path) => post(shared, path, body),
        "GET" if GET_PATHS.contains(&path) => get(shared, path, query),
        _ if POST_PATHS.contains(&path) || GET_PATHS.contains(&path) => {
            fail(405, format!("method {method} not allowed on {path}"))
        }
        _ => fail(404, format!("unknown control path {path}")),
    }
}

fn post(shared: &Shared, path: &str, body: &[u8]) -> (u16, Value) {
    let result: Result<Value, String> = match path {
        "/_sandbox/fixtures" => std::str::from_utf8(body)
            .map_err(|_| "body is not UTF-8".to_string())
            .and_then(Fixtures::from_json)
            .and_then(|f| shared.lock().load(f))
            .map(|()| json!({})),
        "/_sandbox/programs" => {
            parse::<Program>(body).and_then(|p| shared.lock().add_program(p).map(|()| json!({})))
        }
        "/_sandbox/programs/status" => parse::<StatusBody>(body).and_then(|b| {
            shared
                .lock()
                .set_program_status(&b.app_id, &b.status)
                .map(|()| json!({}))
        }),
        "/_sandbox/cards" => parse::<Card>(body)
            .and_then(|c| shared.lock().add_card(c))
            .map(|card| json!({ "card": card })),
        "/_sandbox/cards/update" => parse::<CardUpdate>(body).and_then(|b| {
            shared
                .lock()
                .update_card(&b.app_id, &b.card, &b.op, b.reason.as_deref())
                .map(|()| json!({}))
        }),
        "/_sandbox/accounts" => parse::<Account>(body)
            .and_then(|a| shared.lock().add_account(a))
            .map(|user_id| json!({ "user_id": user_id })),
        "/_sandbox/accounts/update" => parse::<AccountUpdate>(body).and_then(|b| {
            shared
                .lock()
                .update_account(&b.app_id, &b.username, &b.op, b.reason.as_deref())
                .map(|()| json!({}))
        }),
        "/_sandbox/devices/update" => parse::<DeviceUpdate>(body).and_then(|b| {
            shared
                .lock()
                .update_device(&b.app_id, &b.device_id, &b.op, b.reason.as_deref())
                .map(|()| json!({}))
        }),
        "/_sandbox/message" => parse::<MessageBody>(body).and_then(|b| {
            let mut st = shared.lock();
            match (b.card.as_deref(), b.username.as_deref()) {
                (Some(card), _) => st.leave_card_message(&b.app_id, card, &b.message),
                (None, Some(user)) => st.leave_account_message(&b.app_id, user, &b.message),
                (None, None) => Err("card or username is required".to_string()),
            }
            .map(|()| json!({}))
        }),
        "/_sandbox/social/authorize" => parse::<SocialBody>(body).and_then(|b| {
            shared
                .lock()
                .authorize_social(&b.state, &b.identity, &b.display_name)
                .map(|()| json!({}))
        }),
        "/_sandbox/clock" => parse::<ClockBody>(body).and_then(|b| {
            let mut st = shared.lock();
            match (b.shift, b.offset) {
                (Some(s), None) => st.shift_clock(s),
                (None, Some(o)) => st.set_clock_offset(o),
                _ => return Err("exactly one of shift or offset is required".to_string()),
            }
            Ok(json!({"now": st.now(), "offset": st.clock_offset}))
        }),
        "/_sandbox/faults" => parse::<Fault>(body).map(|f| {
            shared.lock().set_fault(f);
            json!({})
        }),
        "/_sandbox/faults/clear" => parse::<ClearBody>(body).map(|b| {
            shared.lock().clear_faults(b.app_id.as_deref());
            json!({})
        }),
        "/_sandbox/cards/bulk" => parse::<BulkBody>(body).and_then(|b| {
            if b.count == 0 || b.count > BULK_MAX {
                return Err(format!("count must be 1 to {BULK_MAX}"));
            }
            if !b.card.card.is_empty() {
                return Err("card must be absent: keys are generated".to_string());
            }
            let mut st = shared.lock();
            let mut keys = Vec::new();
            for _ in 0..b.count {
                let mut key = crate::store::gen_card_key();
                while st.card_json(&b.card.app_id, &key).is_some() {
                    key = crate::store::gen_card_key();
                }
                let c = Card {
                    card: key,
                    ..b.card.clone()
                };
                keys.push(st.add_card(c)?);
            }
            Ok(json!({ "cards": keys }))
        }),
        "/_sandbox/cards/delete" => parse::<CardKey>(body).and_then(|b| {
            shared
                .lock()
                .delete_card(&b.app_id, &b.card)
                .map(|()| json!({}))
        }),
        "/_sandbox/accounts/recharge" => parse::<RechargeBody>(body).and_then(|b| {
            shared
                .lock()
                .recharge_account(&b.app_id, &b.username, b.days, b.hours)
                .map(|e| json!({ "expire_at": e }))
        }),
        "/_sandbox/social/deny" => parse::<StateBody>(body)
            .and_then(|b| shared.lock().deny_social(&b.state).map(|()| json!({}))),
        "/_sandbox/dialect" => parse::<DialectBody>(body).and_then(|b| {
            shared
                .lock()
                .set_dialect(&b.app_id, &b.dialect)
                .map(|()| json!({}))
        }),
        "/_sandbox/reset" => {
            shared.lock().reset();
            Ok(json!({}))
        }
        _ => return fail(404, format!("unknown control path {path}")),
    };
    done(result)
}

fn get(shared: &Shared, path: &str, query: Option<&str>) -> (u16, Value) {
    let app_id = query_param(query, "app_id");
    let st = shared.lock();
    match path {
        "/_sandbox/cards/get" => {
            let (Some(app_id), Some(card)) = (app_id, query_param(query, "card")) else {
                return fail(400, "app_id and card are required");
            };
            match st.card_json(&app_id, &card) {
                Some(v) => ok(json!({ "card": v })),
                None => fail(400, format!("unknown card {card:?} of program {app_id:?}")),
            }
        }
        "/_sandbox/accounts/get" => {
            let (Some(app_id), Some(user)) = (app_id, query_param(query, "username")) else {
                return fail(400, "app_id and username are required");
            };
            match st.account_json(&app_id, &user) {
                Some(v) => ok(json!({ "account": v })),
                None => fail(
                    400,
                    format!("unknown account {user:?} of program {app_id:?}"),
                ),
            }
        }
        "/_sandbox/clock" => (200, st.clock_json()),
        "/_sandbox/log" => {
            let limit = query_param(query, "limit").and_then(|l| l.parse::<usize>().ok());
            let app = app_id.filter(|s| !s.is_empty());
            (200, json!(st.request_log_newest(app.as_deref(), limit)))
        }
        "/_sandbox/stats" => {
            let mut v = st.stats_json(shared.connections_accepted());
            v["control_requests"] = json!(shared
                .control_requests
                .load(std::sync::atomic::Ordering::Relaxed));
            v["event_streams"] = json!(shared
                .event_streams
                .load(std::sync::atomic::Ordering::SeqCst));
            (200, v)
        }
        "/_sandbox/programs" => ok(json!({ "programs": st.programs_json() })),
        "/_sandbox/cards" => {
            let status = query_param(query, "status").filter(|s| !s.is_empty());
            let q = query_param(query, "q").filter(|s| !s.is_empty());
            let app = app_id.filter(|s| !s.is_empty());
            ok(json!({ "cards": st.cards_json(app.as_deref(), status.as_deref(), q.as_deref()) }))
        }
        "/_sandbox/accounts" => {
            let q = query_param(query, "q").filter(|s| !s.is_empty());
            let app = app_id.filter(|s| !s.is_empty());
            ok(json!({ "accounts": st.accounts_json(app.as_deref(), q.as_deref()) }))
        }
        "/_sandbox/sessions" => {
            let app = app_id.filter(|s| !s.is_empty());
            ok(json!({ "sessions": st.sessions_json(app.as_deref()) }))
        }
        "/_sandbox/social" => {
            let app = app_id.filter(|s| !s.is_empty());
            ok(json!({ "pending": st.socials_json(app.as_deref()) }))
        }
        "/_sandbox/faults" => {
            let app = app_id.filter(|s| !s.is_empty());
            ok(json!({ "faults": st.faults.list(app.as_deref()) }))
        }
        _ => fail(404, format!("unknown control path {path}")),
    }
}
