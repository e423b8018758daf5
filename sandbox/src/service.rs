//! The service entry points: Init (`POST /api/verify`) and Handle
//! (`POST /api/verify/{ApiPassword}`). Checks run in the README's order, faults are
//! applied, the action runs, and the request is logged. Synchronous: the caller holds no
//! lock and does the I/O.

use std::time::Instant;

use bytes::Bytes;
use serde_json::json;

use crate::actions::{self, Ctx, Envelope, ACTIONS};
use crate::diagnose::{self, Seen};
use crate::faults::FaultKind;
use crate::inspect::{self, Answered, Meta};
use crate::state::{gen_api_password, Shared, State};
use crate::wire::{self, api_password, Form, Params};

/// Which entry point a request is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/api/verify`: Init, or Handle when an ApiPassword is supplied in the
    /// `X-Api-Password` header or the `ApiPassword` form field, or when the form has `Data`
    /// and no `AppId`.
    Verify,
    /// `/api/verify/{segment}`: Handle, with the path segment (may be empty).
    Handle(String),
}

/// What happens to a reply on its way out (faults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Normal,
    Delay(u64),
    Drop,
    Truncate,
}

/// A reply ready to be written.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// `true` for the HTML page of the `http_502` fault.
    pub html: bool,
    pub body: Bytes,
    pub fate: Fate,
}

impl Reply {
    /// A JSON envelope with an HTTP status (404, 405, 413).
    pub fn http_error(status: u16, message: &str) -> Reply {
        let body = json!({"code": status, "message": message, "data": null});
        Reply {
            status,
            html: false,
            body: Bytes::from(body.to_string()),
            fate: Fate::Normal,
        }
    }
}

/// A request that passed the entry checks.
enum Job {
    Init { app_id: String },
    Handle { app_id: String, action: String },
}

/// The result of the entry checks, with what is known for fault matching, the log and the
/// inspector.
struct Checked {
    app_id: Option<String>,
    action: Option<String>,
    job: Result<Job, Envelope>,
    /// Where the ApiPassword came from (Handle).
    password_from: Option<&'static str>,
    /// The plaintext's bytes, once `Data` decoded.
    plaintext: Option<Vec<u8>>,
    /// Its parameters, once they decoded.
    params: Option<Params>,
}

fn check_timestamp(ts: &str, now: i64) -> Result<(), Envelope> {
    let t: i64 = ts
        .trim()
        .parse()
        .map_err(|_| Envelope::err(1014, "时间戳无效，应为Unix秒"))?;
    if now.abs_diff(t) > 300 {
        return Err(Envelope::err(
            1014,
            "时间戳超出允许范围（±300秒），请校准时间",
        ));
    }
    Ok(())
}

fn incomplete() -> Envelope {
    Envelope::err(1013, "参数不完整")
}

fn not_approved() -> Envelope {
    Envelope::err(1012, "程序未通过审核或已过期")
}

fn check_init(st: &State, form: &Form, now: i64) -> Checked {
    let app_id = form.get("AppId").map(str::to_string);
    let job = (|| {
        let (Some(app_id), Some(app_key), Some(ts), Some(sign)) = (
            form.get("AppId"),
            form.get("AppKey"),
            form.get("TimeStamp"),
            form.get("Sign"),
        ) else {
            return Err(incomplete());
        };
        let program = st
            .programs
            .get(app_id)
            .ok_or_else(|| Envelope::err(1001, "程序不存在"))?;
        if program.status != "approved" {
            return Err(not_approved());
        }
        check_timestamp(ts, now)?;
        if sign != wire::init_sign(app_id, app_key, ts) {
            return Err(Envelope::err(1010, "签名错误"));
        }
        if app_key != program.app_key {
            return Err(Envelope::err(1011, "程序密钥错误"));
        }
        Ok(Job::Init {
            app_id: app_id.to_string(),
        })
    })();
    Checked {
        app_id,
        action: Some("Init".to_string()),
        job,
        password_from: None,
        plaintext: None,
        params: None,
    }
}

fn check_handle(
    st: &State,
    form: &Form,
    header_password: Option<&str>,
    segment: &str,
    now: i64,
) -> Checked {
    let found = api_password(header_password, form, segment);
    let password = found.as_ref().map(|(p, _)| p.as_str());
    let app_id = password.and_then(|p| st.api_passwords.get(p)).cloned();
    let mut checked = Checked {
        app_id: app_id.clone(),
        action: None,
        job: Err(incomplete()),
        password_from: found.as_ref().map(|(_, from)| *from),
        plaintext: None,
        params: None,
    };
    let (Some(password), Some(app_id)) = (password, app_id) else {
        checked.job = Err(Envelope::err(
            1001,
            "ApiPassword无效或程序不存在，请重新初始化",
        ));
        return checked;
    };
    let Some(program) = st.programs.get(&app_id) else {
        checked.job = Err(Envelope::err(1001, "程序不存在"));
        return checked;
    };
    if program.status != "approved" {
        checked.job = Err(not_approved());
        return checked;
    }
    // TimeStamp first (1013 when missing, 1014 when stale), then the other fields.
    let Some(ts) = form.get("TimeStamp") else {
        return checked;
    };
    if let Err(e) = check_timestamp(ts, now) {
        checked.job = Err(e);
        return checked;
    }
    let (Some(data), Some(sign)) = (form.get("Data"), form.get("Sign")) else {
        return checked;
    };
    if sign != wire::handle_sign(password, ts, data) {
        checked.job = Err(Envelope::err(1010, "签名错误"));
        return checked;
    }
    let bytes = match wire::decrypt_bytes(password, data) {
        Ok(b) => b,
        Err(msg) => {
            checked.job = Err(Envelope::err(1013, msg));
            return checked;
        }
    };
    checked.plaintext = Some(bytes.clone());
    let params = match wire::plaintext_utf8(bytes).and_then(|p| Params::parse(&p)) {
        Ok(p) => p,
        Err(msg) => {
            checked.job = Err(Envelope::err(1013, msg));
            return checked;
        }
    };
    let action = params.get(&["action"]).map(str::to_string);
    checked.params = Some(params);
    let Some(action) = action else {
        checked.job = Err(Envelope::err(1013, "参数不完整：缺少action"));
        return checked;
    };
    checked.action = Some(action.clone());
    checked.job = if ACTIONS.contains(&action.as_str()) {
        Ok(Job::Handle { app_id, action })
    } else {
        Err(Envelope::err(1015, format!("未知的action：{action}")))
    };
    checked
}

const BAD_GATEWAY_PAGE: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

const UNAVAILABLE_PAGE: &str = "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

const ORIGIN_TIMEOUT_PAGE: &str = "<!DOCTYPE html>\n<html lang=\"en-US\"><head><title>verify.example | 522: Connection timed out</title></head><body><h1>Connection timed out</h1><span>Error code 522</span><p>The initial connection between the CDN's network and the origin web server timed out.</p></body></html>\n";

const CAPTIVE_PORTAL_PAGE: &str = "<!DOCTYPE html>\n<html><head><title>Hotel Wi-Fi</title></head><body><h1>Welcome to the hotel's Wi-Fi</h1><form method=\"post\" action=\"/login\"><label>Room number <input name=\"room\"></label><label>Last name <input name=\"name\"></label><button>Connect</button></form></body></html>\n";

/// The reply of a fault that stands in for the service's: (the code logged, the reply).
fn stand_in(kind: FaultKind) -> Option<(i64, Reply)> {
    let (status, html, body): (u16, bool, &'static [u8]) = match kind {
        FaultKind::NonJson => (200, false, b"this is not json"),
        FaultKind::Http502 => (502, true, BAD_GATEWAY_PAGE.as_bytes()),
        FaultKind::Http503 => (503, true, UNAVAILABLE_PAGE.as_bytes()),
        FaultKind::Http504 => (504, false, b""),
        FaultKind::Http522 => (522, true, ORIGIN_TIMEOUT_PAGE.as_bytes()),
        FaultKind::CaptivePortal => (200, true, CAPTIVE_PORTAL_PAGE.as_bytes()),
        FaultKind::Delay | FaultKind::Drop | FaultKind::TruncatedJson => return None,
    };
    let logged = if status == 200 { 0 } else { i64::from(status) };
    Some((
        logged,
        Reply {
            status,
            html,
            body: Bytes::from_static(body),
            fate: Fate::Normal,
        },
    ))
}

/// Serves one service request (Init or Handle) whose body has been read, and logs it (with
/// the inspector's detail when the control API is on).
pub fn serve(
    shared: &Shared,
    meta: &Meta,
    path: &str,
    route: &Route,
    header_password: Option<&str>,
    body: &[u8],
) -> Reply {
    let started = Instant::now();
    let conn = meta.conn.id;
    let ip = meta.conn.peer.ip().to_string();
    let mut st = shared.lock();
    let now = st.now();
    let form = Form::parse(body);
    let is_handle = header_password.is_some_and(|p| !p.is_empty())
        || form.get("ApiPassword").is_some()
        || (form.get("Data").is_some() && form.get("AppId").is_none());
    let segment = match route {
        Route::Handle(segment) => segment.as_str(),
        Route::Verify => "",
    };
    let checked = if is_handle || matches!(route, Route::Handle(_)) {
        check_handle(&st, &form, header_password, segment, now)
    } else {
        check_init(&st, &form, now)
    };
    let app_id = checked.app_id.as_deref();
    let action = checked.action.as_deref();
    let fault = st.faults.take(app_id, action);
    let cut_off = fault.as_ref().and_then(|f| stand_in(f.kind));
    let mut reads = Vec::new();
    let envelope = match (&cut_off, &checked.job) {
        (Some(_), _) => Envelope::err(0, "the fault replaced the reply before the action ran"),
        (None, Err(e)) => e.clone(),
        (None, Ok(Job::Init { app_id })) => {
            let mut pw = gen_api_password();
            while st.api_passwords.contains_key(&pw) {
                pw = gen_api_password();
            }
            st.add_api_password(pw.clone(), app_id);
            Envelope::ok("初始化成功", json!({ "api_password": pw }))
        }
        (None, Ok(Job::Handle { app_id, action })) => {
            let empty = Params::default();
            let params = checked.params.as_ref().unwrap_or(&empty);
            let mut cx = Ctx {
                st: &mut st,
                app_id,
                ip: &ip,
                now,
                p: params,
                reads: std::cell::RefCell::new(Vec::new()),
            };
            let mut envelope = actions::run(action, &mut cx);
            reads = cx.reads.into_inner();
            let alternate = st
                .programs
                .get(app_id)
                .is_some_and(|p| p.dialect == "alternate");
            if alternate && envelope.code == 200 {
                crate::dialect::alternate(action, &mut envelope.data);
            }
            envelope
        }
    };
    let code = match &cut_off {
        Some((logged, _)) => *logged,
        None => envelope.code,
    };
    let fate = match fault.as_ref().map(|f| f.kind) {
        Some(FaultKind::Delay) => Fate::Delay(fault.as_ref().map_or(0, |f| f.delay_ms)),
        Some(FaultKind::Drop) => Fate::Drop,
        Some(FaultKind::TruncatedJson) => Fate::Truncate,
        _ => Fate::Normal,
    };
    let reply = match cut_off {
        Some((_, reply)) => reply,
        None => Reply {
            status: 200,
            html: false,
            body: Bytes::from(envelope.to_json().to_string()),
            fate,
        },
    };
    let detail = shared.inspect.then(|| {
        let seen = Seen {
            st: &st,
            now,
            body,
            content_type: meta.content_type.as_deref(),
            form: &form,
            header_password,
            segment,
            code: envelope.code,
            plaintext: checked.plaintext.as_deref(),
            params: checked.params.as_ref(),
            action: checked.action.as_deref(),
            reads: &reads,
        };
        let diagnoses = if is_handle || matches!(route, Route::Handle(_)) {
            diagnose::handle(&seen)
        } else {
            diagnose::init(&seen)
        };
        inspect::detail(Answered {
            meta,
            now,
            form: form.0,
            api_password_from: checked.password_from,
            plaintext: checked.plaintext,
            params: checked.params,
            reply: reply.body.clone(),
            code,
            message: envelope.message,
            http_status: reply.status,
            fault: fault.as_ref().map(|f| f.kind.name()),
            fault_delay_ms: match fate {
                Fate::Delay(ms) => ms,
                _ => 0,
            },
            handle_ms: started.elapsed().as_secs_f64() * 1000.0,
            diagnoses,
        })
    });
    st.record(
        conn,
        path,
        checked.app_id.as_deref(),
        checked.action.as_deref(),
        code,
        detail,
    );
    reply
}
