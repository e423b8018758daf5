//! `UserHeartbeat` (docs/protocol.md#userheartbeat).

use serde_json::json;

use super::ctx::{Ctx, Envelope};
use crate::store::{CardState, SessionKind};
use crate::time;
use crate::wire::TOKEN;

fn invalid_token() -> Envelope {
    Envelope::err(1007, "Token无效，请重新登录")
}

pub fn user_heartbeat(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let token = cx.require(TOKEN)?;
    let kind = cx.require(&["Type", "type"])?;
    let want_card = match kind.as_str() {
        "card" => true,
        "user" => false,
        _ => return Err(Envelope::err(1013, "参数错误：Type必须是card或user")),
    };
    let ip = cx.param(&["IP", "ip"]);
    let now = cx.now;
    let app_id = cx.app_id.to_string();

    let session = match cx.st.sessions.get(&token) {
        Some(s) if s.app_id == app_id => s.clone(),
        _ => return Err(invalid_token()),
    };
    let (expire_at, msg) = match (&session.kind, want_card) {
        (SessionKind::Card(key), true) => {
            let device_reason = cx.device_disabled(&session.device_id);
            let c = cx.st.card_mut(&app_id, key).ok_or_else(invalid_token)?;
            match c.state {
                CardState::Disabled => {
                    return Err(Envelope::remark(1006, "卡密已被禁用", &c.reason))
                }
                CardState::Active => {}
                _ => return Err(invalid_token()),
            }
            if c.device_id.as_deref() != Some(session.device_id.as_str()) {
                return Err(invalid_token());
            }
            if let Some(reason) = device_reason {
                return Err(Envelope::remark(1006, "设备已被禁用", &reason));
            }
            let expire_at = c.expire_at.unwrap_or(time::FAR_FUTURE);
            if expire_at <= now {
                return Err(Envelope::err(1005, "卡密已过期"));
            }
            c.heartbeat_at = Some(now);
            (expire_at, std::mem::take(&mut c.remark))
        }
        (SessionKind::User(username), false) => {
            let device_reason = cx.device_disabled(&session.device_id);
            let acc = cx
                .st
                .account_mut(&app_id, username)
                .ok_or_else(invalid_token)?;
            if acc.banned {
                return Err(Envelope::remark(1006, "账号已被封禁", &acc.reason));
            }
            let device_reason = device_reason.filter(|_| !session.device_id.is_empty());
            if let Some(reason) = device_reason {
                return Err(Envelope::remark(1006, "设备已被禁用", &reason));
            }
            if acc.expired(now) {
                return Err(Envelope::err(1005, "账号已到期"));
            }
            if let Some(a) = acc.activations.last_mut() {
                a.heartbeat_at = Some(now);
            }
            (acc.expire_at, std::mem::take(&mut acc.remark))
        }
        _ => return Err(invalid_token()),
    };
    if let Some(s) = cx.st.sessions.get_mut(&token) {
        s.heartbeat_at = now;
        if ip.is_some() {
            s.ip = ip;
        }
    }
    Ok(Envelope::ok(
        "心跳成功",
        json!({"expire_at": time::format(expire_at), "status": "active", "msg": msg}),
    ))
}
