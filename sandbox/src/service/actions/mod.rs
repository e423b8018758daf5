//! The 12 business actions. Each is a function over the state: parameters in, an envelope
//! `{code, message, data}` out. No I/O. Their names (`ACTIONS`) and the parameter names
//! they read, with their aliases, are in `wire.rs`.

mod account;
mod card;
mod ctx;
mod heartbeat;
mod info;

pub use ctx::{Ctx, Envelope};

/// Runs a known action. Unknown names give 1015.
pub fn run(action: &str, cx: &mut Ctx) -> Envelope {
    let result = match action {
        "SingleLogin" => card::single_login(cx),
        "GetCardInfo" => card::get_card_info(cx),
        "UserLogin" => account::user_login(cx),
        "UserRegin" => account::user_regin(cx),
        "UpdatePwd" => account::update_pwd(cx),
        "ChangeBind" => account::change_bind(cx),
        "UserRecharge" => account::user_recharge(cx),
        "GetUserInfo" => account::get_user_info(cx),
        "UserHeartbeat" => heartbeat::user_heartbeat(cx),
        "GetLatestVersion" => info::get_latest_version(cx),
        "GetBulletin" => info::get_bulletin(cx),
        "GetVariable" => info::get_variable(cx),
        _ => Err(Envelope::err(1015, format!("未知的action：{action}"))),
    };
    result.unwrap_or_else(|e| e)
}
