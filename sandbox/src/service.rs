//! The service entry points: Init (`POST /api/verify`) and Handle
//! (`POST /api/verify/{ApiPassword}`). Checks run in the README's order, faults are
//! applied, the action runs, and the request is logged. Synchronous: the caller holds no
//! lock and does the I/O.

use serde_json::json;

use crate::actions::{self, Ctx, Envelope, ACTIONS};
use crate::faults::FaultKind;
use crate::state::{gen_api_password, Shared, State};
use crate::wire::{self, Params};

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
    pub body: Vec<u8>,
    pub fate: Fate,
}

impl Reply {
    /// A JSON envelope with an HTTP status (404, 405, 413).
    pub fn http_error(status: u16, message: &str) -> Reply {
        let body = json!({"code": status, "message": message, "data": null});
        Reply {
            status,
            html: false,
            body: body.to_string().into_bytes(),
            fate: Fate::Normal,
        }
    }
}

/// A request that passed the entry checks.
enum Job {
    Init {
        app_id: String,
    },
    Handle {
        app_id: String,
        action: String,
        params: Params,
    },
}

/// The result of the entry checks, with what is known for fault matching and the log.
struct Checked {
    app_id: Option<String>,
    action: Option<String>,
    job: Result<Job, Envelope>,
}

struct Form(Vec<(String, String)>);

impl Form {
    fn parse(body: &[u8]) -> Form {
        Form(form_urlencoded::parse(body).into_owned().collect())
    }

    /// The first non-empty value of a field.
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }
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
    }
}

fn check_handle(
    st: &State,
    form: &Form,
    header_password: Option<&str>,
    segment: &str,
    now: i64,
) -> Checked {
    let decoded_segment = percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(|s| s.into_owned())
        .unwrap_or_default();
    let password = header_password
        .filter(|p| !p.is_empty())
        .or_else(|| form.get("ApiPassword"))
        .or_else(|| Some(decoded_segment.as_str()).filter(|p| !p.is_empty()));
    let app_id = password.and_then(|p| st.api_passwords.get(p)).cloned();
    let mut checked = Checked {
        app_id: app_id.clone(),
        action: None,
        job: Err(incomplete()),
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
    let params = match wire::decrypt_data(password, data).and_then(|p| Params::parse(&p)) {
        Ok(p) => p,
        Err(msg) => {
            checked.job = Err(Envelope::err(1013, msg));
            return checked;
        }
    };
    let Some(action) = params.get(&["action"]).map(str::to_string) else {
        checked.job = Err(Envelope::err(1013, "参数不完整：缺少action"));
        return checked;
    };
    checked.action = Some(action.clone());
    checked.job = if ACTIONS.contains(&action.as_str()) {
        Ok(Job::Handle {
            app_id,
            action,
            params,
        })
    } else {
        Err(Envelope::err(1015, format!("未知的action：{action}")))
    };
    checked
}

const BAD_GATEWAY_PAGE: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/// Serves one service request (Init or Handle) whose body has been read.
pub fn serve(
    shared: &Shared,
    conn: u64,
    ip: &str,
    path: &str,
    route: &Route,
    header_password: Option<&str>,
    body: &[u8],
) -> Reply {
    let mut st = shared.lock();
    let now = st.now();
    let form = Form::parse(body);
    let is_handle = header_password.is_some_and(|p| !p.is_empty())
        || form.get("ApiPassword").is_some()
        || (form.get("Data").is_some() && form.get("AppId").is_none());
    let checked = match route {
        Route::Verify if !is_handle => check_init(&st, &form, now),
        Route::Verify => check_handle(&st, &form, header_password, "", now),
        Route::Handle(segment) => check_handle(&st, &form, header_password, segment, now),
    };
    let app_id = checked.app_id.as_deref();
    let action = checked.action.as_deref();
    let fault = st.faults.take(app_id, action);
    match fault.as_ref().map(|f| f.kind) {
        Some(FaultKind::NonJson) => {
            st.record(conn, path, app_id, action, 0);
            return Reply {
                status: 200,
                html: false,
                body: b"this is not json".to_vec(),
                fate: Fate::Normal,
            };
        }
        Some(FaultKind::Http502) => {
            st.record(conn, path, app_id, action, 502);
            return Reply {
                status: 502,
                html: true,
                body: BAD_GATEWAY_PAGE.as_bytes().to_vec(),
                fate: Fate::Normal,
            };
        }
        _ => {}
    }
    let envelope = match checked.job {
        Err(e) => e,
        Ok(Job::Init { app_id }) => {
            let mut pw = gen_api_password();
            while st.api_passwords.contains_key(&pw) {
                pw = gen_api_password();
            }
            st.add_api_password(pw.clone(), &app_id);
            Envelope::ok("初始化成功", json!({ "api_password": pw }))
        }
        Ok(Job::Handle {
            app_id,
            action,
            params,
        }) => {
            let mut cx = Ctx {
                st: &mut st,
                app_id: &app_id,
                ip,
                now,
                p: &params,
            };
            let mut envelope = actions::run(&action, &mut cx);
            let alternate = st
                .programs
                .get(&app_id)
                .is_some_and(|p| p.dialect == "alternate");
            if alternate && envelope.code == 200 {
                crate::dialect::alternate(&action, &mut envelope.data);
            }
            envelope
        }
    };
    st.record(
        conn,
        path,
        checked.app_id.as_deref(),
        checked.action.as_deref(),
        envelope.code,
    );
    let fate = match fault {
        Some(f) => match f.kind {
            FaultKind::Delay => Fate::Delay(f.delay_ms),
            FaultKind::Drop => Fate::Drop,
            FaultKind::TruncatedJson => Fate::Truncate,
            FaultKind::NonJson | FaultKind::Http502 => Fate::Normal,
        },
        None => Fate::Normal,
    };
    Reply {
        status: 200,
        html: false,
        body: envelope.to_json().to_string().into_bytes(),
        fate,
    }
}
