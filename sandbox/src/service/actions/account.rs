//! Account mode: `UserLogin` (password and social), `UserRegin`, `UpdatePwd`, `ChangeBind`,
//! `UserRecharge` and `GetUserInfo`.

use serde_json::json;

use super::ctx::{check_account_card, Ctx, Envelope};
use crate::store::{
    gen_token, AccountRec, Activation, CardState, Session, SessionKind, SocialKind, SocialPending,
};
use crate::time;
use crate::wire::{CARD, CHANGE_BIND_MAC, MAC, NEW_PASSWORD, PASSWORD, USERNAME};

fn social_url(state: &str) -> String {
    format!("https://social.example.invalid/oauth/authorize?state={state}")
}

fn unknown_user() -> Envelope {
    Envelope::err(1016, "用户不存在，请先注册")
}

fn banned(reason: &str) -> Envelope {
    Envelope::remark(1006, "账号已被封禁", reason)
}

/// Finds an account and checks its password: 1016, 1003.
fn authenticate<'c>(
    cx: &'c mut Ctx,
    username: &str,
    password: &str,
) -> Result<&'c mut AccountRec, Envelope> {
    let app_id = cx.app_id.to_string();
    let acc = cx
        .st
        .account_mut(&app_id, username)
        .ok_or_else(unknown_user)?;
    if acc.password.is_empty() || acc.password != password {
        return Err(Envelope::err(1003, "密码错误"));
    }
    Ok(acc)
}

/// Applies an unused duration card to an account; returns the seconds added.
/// The card must have passed `check_account_card`.
fn apply_card(cx: &mut Ctx, key: &str, username: &str) -> Result<(i64, u32, bool), Envelope> {
    let now = cx.now;
    let app_id = cx.app_id.to_string();
    check_account_card(cx.st.cards.get(&(app_id.clone(), key.to_string())))?;
    let Some(card) = cx.st.card_mut(&app_id, key) else {
        return Err(Envelope::err(1004, "卡密不存在或无效"));
    };
    card.state = CardState::Used;
    card.used_by = Some(username.to_string());
    card.activated_at = Some(now);
    let secs = card.secs();
    let (duration, hourly) = (card.duration, card.hourly);
    let Some(acc) = cx.st.account_mut(&app_id, username) else {
        return Err(unknown_user());
    };
    let base = if acc.expired(now) { now } else { acc.expire_at };
    acc.set_expiry(base.saturating_add(secs));
    Ok((secs, duration, hourly))
}

fn issue_user_token(cx: &mut Ctx, username: &str, device_id: &str) -> String {
    let session = Session {
        app_id: cx.app_id.to_string(),
        kind: SessionKind::User(username.to_string()),
        device_id: device_id.to_string(),
        heartbeat_at: cx.now,
        ip: Some(cx.ip.to_string()),
    };
    cx.st.issue_token(session)
}

/// The login payload: {username, device_id, expire_at, status, token, remark}.
fn login_payload(cx: &mut Ctx, username: &str, remark: Option<&str>) -> Result<Envelope, Envelope> {
    let now = cx.now;
    let app_id = cx.app_id.to_string();
    let acc = cx
        .st
        .account_mut(&app_id, username)
        .ok_or_else(unknown_user)?;
    if let Some(a) = acc.activations.last_mut() {
        a.heartbeat_at = Some(now);
    }
    let device_id = acc.device_id.clone();
    let expire_at = time::format(acc.expire_at);
    let remark = remark
        .map(str::to_string)
        .unwrap_or_else(|| acc.remark.clone());
    let token = issue_user_token(cx, username, &device_id);
    Ok(Envelope::ok(
        "登录成功",
        json!({
            "username": username,
            "device_id": device_id,
            "expire_at": expire_at,
            "status": "active",
            "token": token,
            "remark": remark,
        }),
    ))
}

/// docs/protocol.md#userlogin and #social-sign-in.
pub fn user_login(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    cx.count_verification("UserLogin");
    if cx
        .param(&["LoginType", "logintype"])
        .is_some_and(|t| t.eq_ignore_ascii_case("social"))
    {
        return social_login(cx);
    }
    // docs/protocol.md#userlogin numbers its rules and they are checked in that order: 1016 (rule 1), 1005
    // (rule 2, not in the renewal branch: rule 7 renews an expired account), 1003 (rule 3),
    // 1006 (rule 4), 1021 then 1022 (rule 5, login only), 1004 / 1024 (rule 6, renewal),
    // 1023 (rule 8). Rule 8's 1013 comes first: no other rule can be checked without
    // UserName and Password.
    let username = cx.require(USERNAME)?;
    let password = cx.require(PASSWORD)?;
    let mac = cx.param(MAC);
    let card = cx.param(CARD);
    let cap = cx.rebind_cap();
    let now = cx.now;
    let app_id = cx.app_id.to_string();

    let expired = cx
        .st
        .account_mut(&app_id, &username)
        .ok_or_else(unknown_user)?
        .expired(now);
    if card.is_none() && expired {
        return Err(Envelope::err(1005, "账号未激活或已到期"));
    }
    let acc = authenticate(cx, &username, &password)?;
    if acc.banned {
        return Err(banned(&acc.reason));
    }
    let (bound, bind_count) = (acc.device_id.clone(), acc.bind_count);

    if let Some(key) = card {
        // Renewal branch: no token.
        check_account_card(cx.st.cards.get(&(app_id.clone(), key.clone())))?;
        cx.check_blacklist(mac.as_deref())?;
        let (secs, _, _) = apply_card(cx, &key, &username)?;
        let expire_at = cx
            .st
            .account_mut(cx.app_id, &username)
            .map(|a| time::format(a.expire_at))
            .unwrap_or_default();
        return Ok(Envelope::ok(
            "续费成功",
            json!({
                "username": username,
                "expire_at": expire_at,
                "added_days": secs / 86_400,
                "status": "active",
            }),
        ));
    }

    if let Some(mac) = mac.as_deref() {
        if !bound.is_empty() && bound != mac {
            if let Some(cap) = cap {
                if bind_count >= cap {
                    return Err(Envelope::err(
                        1021,
                        format!("换绑次数已达上限（{cap}次），无法在新机器登录"),
                    ));
                }
            }
            return Err(Envelope::remark(1022, "机器码已变更，请先换绑", &bound));
        }
    }
    cx.check_blacklist(mac.as_deref())?;
    if let Some(mac) = mac.as_deref() {
        if bound.is_empty() {
            if let Some(acc) = cx.st.account_mut(&app_id, &username) {
                acc.set_device(mac);
            }
        }
    }
    login_payload(cx, &username, None)
}

/// docs/protocol.md#social-sign-in: two steps, polled.
fn social_login(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let mac = cx.param(MAC);
    cx.check_blacklist(mac.as_deref())?;
    let Some(state) = cx.param(&["State", "state"]) else {
        let state = gen_token();
        cx.st.socials.insert(
            state.clone(),
            SocialPending {
                app_id: cx.app_id.to_string(),
                kind: SocialKind::Login { mac },
                authorized: None,
            },
        );
        return Ok(Envelope::ok(
            "请在浏览器中完成授权",
            json!({"url": social_url(&state), "state": state}),
        ));
    };
    let pending = match cx.st.socials.get(&state) {
        Some(p) if p.app_id == cx.app_id && matches!(p.kind, SocialKind::Login { .. }) => p.clone(),
        _ => return Err(Envelope::err(1013, "参数错误：State无效或已过期")),
    };
    let Some((identity, display_name)) = pending.authorized else {
        return Ok(Envelope {
            code: 201,
            message: "等待用户授权，请继续轮询".to_string(),
            data: serde_json::Value::Null,
        });
    };
    // The state ends here, whatever the answer.
    cx.st.socials.remove(&state);
    let app_id = cx.app_id.to_string();
    let Some(acc) = cx
        .st
        .accounts
        .values_mut()
        .find(|a| a.app_id == app_id && a.social_id.as_deref() == Some(identity.as_str()))
    else {
        return Err(Envelope::err(1016, "该社交账号未绑定用户"));
    };
    if acc.banned {
        return Err(banned(&acc.reason));
    }
    let step1_mac = match pending.kind {
        SocialKind::Login { mac } => mac,
        SocialKind::Register { .. } => None,
    };
    if let Some(m) = mac.or(step1_mac) {
        acc.set_device(&m);
    }
    // Expiry is not checked here (README): the heartbeat reports it.
    let username = acc.username.clone();
    login_payload(cx, &username, Some(&display_name))
}

/// docs/protocol.md#userregin.
pub fn user_regin(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let social = cx.param(&["BindSocial", "bindsocial"]).as_deref() == Some("1");
    let username = cx.require(USERNAME)?;
    let password = if social {
        String::new()
    } else {
        cx.require(PASSWORD)?
    };
    let mac = cx.param(MAC);
    let card = cx.param(CARD);
    let now = cx.now;
    let app_id = cx.app_id.to_string();
    let ip = cx.ip.to_string();

    if cx.st.account_exists(&app_id, &username) {
        return Err(Envelope::err(1017, "用户名已被注册"));
    }
    let cap = cx.program().and_then(|p| p.max_registrations_per_ip);
    if let Some(cap) = cap {
        let done = cx
            .st
            .registrations
            .get(&(app_id.clone(), ip.clone()))
            .copied()
            .unwrap_or(0);
        if done >= cap {
            return Err(Envelope::err(
                1019,
                format!("同一IP最多注册{cap}个账号，已达上限"),
            ));
        }
    }

    if social {
        let state = gen_token();
        cx.st.socials.insert(
            state.clone(),
            SocialPending {
                app_id,
                kind: SocialKind::Register { username, mac, ip },
                authorized: None,
            },
        );
        return Ok(Envelope::ok(
            "请在浏览器中完成授权",
            json!({"url": social_url(&state)}),
        ));
    }

    if let Some(key) = card.as_deref() {
        check_account_card(cx.st.cards.get(&(app_id.clone(), key.to_string())))?;
    }
    let device_id = mac.unwrap_or_default();
    let user_id = cx.st.insert_account(AccountRec {
        app_id: app_id.clone(),
        username: username.clone(),
        password,
        user_id: 0,
        device_id: device_id.clone(),
        expire_at: now,
        banned: false,
        bind_count: 0,
        remark: String::new(),
        reason: String::new(),
        social_id: None,
        created_at: now,
        activations: vec![Activation {
            device_id: device_id.clone(),
            expire_at: now,
            heartbeat_at: None,
        }],
    });
    *cx.st.registrations.entry((app_id.clone(), ip)).or_insert(0) += 1;

    let Some(key) = card else {
        return Ok(Envelope::ok(
            "注册成功",
            json!({"username": username, "user_id": user_id, "expire_at": time::format(now)}),
        ));
    };
    apply_card(cx, &key, &username)?;
    let expire_at = cx
        .st
        .account_mut(&app_id, &username)
        .map(|a| time::format(a.expire_at))
        .unwrap_or_default();
    let token = issue_user_token(cx, &username, &device_id);
    Ok(Envelope::ok(
        "注册成功",
        json!({
            "username": username,
            "user_id": user_id,
            "token": token,
            "expire_at": expire_at,
            "status": "active",
        }),
    ))
}

/// README: `UpdatePwd`.
pub fn update_pwd(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let username = cx.require(USERNAME)?;
    let password = cx.require(PASSWORD)?;
    let new_password = cx.require(NEW_PASSWORD)?;
    let acc = authenticate(cx, &username, &password)?;
    if acc.banned {
        return Err(banned(&acc.reason));
    }
    acc.password = new_password;
    Ok(Envelope::ok("密码修改成功", json!({"username": username})))
}

/// docs/protocol.md#changebind.
pub fn change_bind(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let username = cx.require(USERNAME)?;
    let password = cx.require(PASSWORD)?;
    let mac = cx.require(CHANGE_BIND_MAC)?;
    let cap = cx.rebind_cap();
    let acc = authenticate(cx, &username, &password)?;
    if acc.device_id == mac {
        return Err(Envelope::err(1020, "新机器码与当前绑定的机器码相同"));
    }
    if let Some(cap) = cap {
        if acc.bind_count >= cap {
            return Err(Envelope::err(1021, format!("换绑次数已达上限（{cap}次）")));
        }
    }
    acc.set_device(&mac);
    acc.bind_count = acc.bind_count.saturating_add(1);
    Ok(Envelope::ok(
        "换绑成功",
        json!({
            "username": username,
            "device_id": mac,
            "bind_count": acc.bind_count,
            "bind_limit": cap.unwrap_or(0),
        }),
    ))
}

/// docs/protocol.md#userrecharge.
pub fn user_recharge(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let username = cx.require(USERNAME)?;
    let key = cx.require(CARD)?;
    let app_id = cx.app_id.to_string();
    let acc = cx
        .st
        .account_mut(&app_id, &username)
        .ok_or_else(unknown_user)?;
    if acc.banned {
        return Err(banned(&acc.reason));
    }
    let (_, duration, hourly) = apply_card(cx, &key, &username)?;
    let expire_at = cx
        .st
        .account_mut(&app_id, &username)
        .map(|a| time::format(a.expire_at))
        .unwrap_or_default();
    let added = if hourly {
        format!("{duration}小时")
    } else {
        format!("{duration}天")
    };
    Ok(Envelope::ok(
        "充值成功",
        json!({
            "username": username,
            "expire_at": expire_at,
            "added_days": added,
            "status": "active",
        }),
    ))
}

/// README: `GetUserInfo`.
pub fn get_user_info(cx: &mut Ctx) -> Result<Envelope, Envelope> {
    let username = cx.require(USERNAME)?;
    let password = cx.require(PASSWORD)?;
    let cap = cx.rebind_cap();
    let now = cx.now;
    let acc = authenticate(cx, &username, &password)?;
    Ok(Envelope::ok(
        "获取成功",
        json!({
            "username": acc.username,
            "user_id": acc.user_id,
            "device_id": acc.device_id,
            "expire_at": time::format(acc.expire_at),
            "status": acc.status(now),
            "bind_count": acc.bind_count,
            "bind_limit": cap.unwrap_or(0),
            "remark": acc.remark,
            "created_at": time::format(acc.created_at),
        }),
    ))
}
