//! Card mode: `SingleLogin` and `GetCardInfo`.

use serde_json::{json, Value};

use super::ctx::{Ctx, Envelope};
use crate::store::{CardState, Session, SessionKind};
use crate::time;
use crate::wire::{CARD, DEVICE_NAME, MAC};

/// docs/protocol.md#singlelogin.
pub fn single_login(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    cx.count_verification("SingleLogin");
    let key = cx.require(CARD)?;
    let mac = cx.require(MAC)?;
    let device_name = cx.param(DEVICE_NAME).unwrap_or_default();
    let now = cx.now;
    let app_id = cx.app_id.to_string();
    // docs/protocol.md#singlelogin numbers its rules: rule 3 (a card bound to another machine, 1022) comes
    // before rule 4 (blacklist, 1023), then rule 6's codes (1004, 1006, 1005).
    if let Some(c) = cx.st.card_mut(&app_id, &key) {
        if let Some(bound) = c.device_id.as_deref() {
            if bound != mac && c.state != CardState::Used {
                return Err(Envelope::remark(
                    1022,
                    "卡密已绑定其他机器，单码模式不能换机",
                    bound,
                ));
            }
        }
    }
    cx.check_blacklist(Some(&mac))?;
    let device_reason = cx.device_disabled(&mac);

    let Some(c) = cx.st.card_mut(&app_id, &key) else {
        return Err(Envelope::err(1004, "卡密不存在或无效"));
    };
    match c.state {
        CardState::Refunded => return Err(Envelope::err(1004, "卡密已退款")),
        CardState::Used => return Err(Envelope::err(1004, "卡密已被用于账号，不能单码登录")),
        CardState::Disabled => return Err(Envelope::remark(1006, "卡密已被禁用", &c.reason)),
        _ => {}
    }
    if let Some(reason) = device_reason {
        return Err(Envelope::remark(1006, "设备已被禁用", &reason));
    }
    if c.state == CardState::Expired {
        return Err(Envelope::err(1005, "卡密已过期"));
    }
    if c.is_count && c.remaining() == 0 {
        return Err(Envelope::err(1005, "卡密次数已用完"));
    }
    if c.state == CardState::Active {
        if !c.is_count && c.expire_at.is_some_and(|e| e <= now) {
            return Err(Envelope::err(1005, "卡密已过期"));
        }
        if let Some(bound) = c.device_id.as_deref() {
            if bound != mac {
                return Err(Envelope::remark(
                    1022,
                    "卡密已绑定其他机器，单码模式不能换机",
                    bound,
                ));
            }
        }
    }

    // Activate on first use; a count card consumes one use at every login.
    if c.state == CardState::Unused {
        c.state = CardState::Active;
        c.activated_at = Some(now);
        c.expire_at = Some(if c.is_count {
            time::FAR_FUTURE
        } else {
            now.saturating_add(c.secs())
        });
    }
    if c.device_id.is_none() {
        c.device_id = Some(mac.clone());
    }
    if c.is_count {
        c.used = c.used.saturating_add(1);
    }
    if !device_name.is_empty() {
        c.device_name = device_name;
    }
    c.heartbeat_at = Some(now);

    let mut data = json!({
        "status": "active",
        "is_times": c.is_count,
        "card_type": c.type_name,
        "expire_at": time::format(c.expire_at.unwrap_or(time::FAR_FUTURE)),
    });
    if c.is_count {
        if let Value::Object(m) = &mut data {
            m.insert("total".into(), json!(c.total));
            m.insert("used".into(), json!(c.used));
            m.insert("remaining".into(), json!(c.remaining()));
        }
    }
    let token = cx.st.issue_token(Session {
        app_id,
        kind: SessionKind::Card(key),
        device_id: mac,
        heartbeat_at: now,
        ip: Some(cx.ip.to_string()),
    });
    if let Value::Object(m) = &mut data {
        m.insert("token".into(), json!(token));
    }
    Ok(Envelope::ok("登录成功", data))
}

/// README: `GetCardInfo`. Consumes nothing.
pub fn get_card_info(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let key = cx.require(CARD)?;
    let now = cx.now;
    let Some(c) = cx.st.card_mut(cx.app_id, &key) else {
        return Err(Envelope::err(1004, "卡密不存在或无效"));
    };
    let fmt = |t: Option<i64>| t.map(time::format).unwrap_or_default();
    let mut data = json!({
        "card": c.key,
        "card_type": c.type_name,
        "status": c.status(now),
        "is_times": c.is_count,
        "device_id": c.device_id.clone().unwrap_or_default(),
        "activated_at": fmt(c.activated_at),
        "expire_at": fmt(c.expire_at),
        "duration": c.duration,
        "duration_type": if c.hourly { "hour" } else { "day" },
    });
    if c.is_count {
        if let Value::Object(m) = &mut data {
            m.insert("total".into(), json!(c.total));
            m.insert("used".into(), json!(c.used));
            m.insert("remaining".into(), json!(c.remaining()));
        }
    }
    Ok(Envelope::ok("获取成功", data))
}
