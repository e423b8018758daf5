//! The facts of the 常见错误码 tables (docs/faq.md, docs/zh-CN/faq.md): for every code of the
//! code table (`core/src/codes.rs`, keyed here by its name), why it comes and what the
//! developer does, in English and in Simplified Chinese. What the end user reads is the code
//! table's own message (`verify_code_user_message`), never written here again.
//!
//! [`rows`] fails when a code has no row, or a row names no code: a code added to the core's
//! table stops the generator until its FAQ row is written.

use verify_core::codes::CodeInfo;

/// One code's FAQ facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaqRow {
    /// The code's name in the code table (`CARD_INVALID`).
    pub name: &'static str,
    /// Why it comes, for developers (English).
    pub cause_en: &'static str,
    /// What the developer does (English).
    pub fix_en: &'static str,
    /// 为什么会出现（简体中文）。
    pub cause_zh: &'static str,
    /// 开发者怎么处理（简体中文）。
    pub fix_zh: &'static str,
}

macro_rules! faq {
    ($( $name:ident: $cause_en:literal, $fix_en:literal; $cause_zh:literal, $fix_zh:literal; )*) => {
        /// Every code's FAQ facts.
        pub const FAQ: &[FaqRow] = &[$(
            FaqRow {
                name: stringify!($name),
                cause_en: $cause_en,
                fix_en: $fix_en,
                cause_zh: $cause_zh,
                fix_zh: $fix_zh,
            },
        )*];
    };
}

faq! {
    OK: "The call succeeded.", "Nothing.";
        "调用成功。", "无需处理。";
    PENDING: "Social login: the user has not finished authorizing yet.",
        "Keep polling (`verify_social_login_wait` does it for you) until 200 or a refusal.";
        "社交账号登录：用户还没完成授权。",
        "继续轮询（`verify_social_login_wait` 会替你等），直到 200 或被拒绝。";
    OFFLINE: "The server could not be reached and the stored verdict of the last good login answered (offline enabled with a state folder and an offline grace).",
        "Treat it as logged in, and tell the user they are offline. The keeper confirms the licence again once the server answers.";
        "连不上服务器，用上次成功登录时保存的离线授权登录了。前提是开了状态文件夹和离线宽限期。",
        "按已登录处理，提示用户当前是离线状态。服务器恢复后，心跳会自动重新确认授权。";
    PROGRAM_NOT_FOUND: "The server has no program with this AppId: a wrong AppId, or a server URL of another service.",
        "Copy the AppId again from the back office and check the server URL. (An unknown session secret also gives 1001; the client runs Init again by itself.)";
        "服务器上没有这个 AppId 的软件：AppId 填错了，或者服务器地址指向了别的服务。",
        "从后台重新复制 AppId，检查服务器地址。（会话密钥失效也会返回 1001，客户端会自己重新 Init 一次。）";
    WRONG_PASSWORD: "The account's password is wrong.", "Let the user type it again; offer a password reset if you have one.";
        "账号密码错误。", "让用户重新输入；有找回密码功能的话，提示一下。";
    CARD_INVALID: "The card does not exist, was refunded, or belongs to another program.",
        "Check that the card was made for this program (same AppId). Trim spaces and line breaks the user pasted.";
        "卡密不存在、已退款，或者是别的软件的卡密。",
        "确认卡密是在这个软件（同一个 AppId）下生成的。用户粘贴时带的空格、换行要去掉。";
    EXPIRED: "The licence has expired, was never activated, or a count card is used up.",
        "Show the message and a way to renew (a new card, `verify_user_recharge`).";
        "授权到期、未激活，或者次数卡的次数用完了。",
        "显示提示，并给出续费的入口（换新卡密，或 `verify_user_recharge` 充值）。";
    DISABLED: "The card or account was disabled, frozen or banned in the back office. The reply's `remark` carries the reason.",
        "Show the `remark` (`/data/remark`; the keeper's `remark` in an ended event): it is the reason the back office gave.";
        "卡密或账号在后台被禁用、冻结或封停。备注（`remark`）就是封停原因。",
        "把备注显示给用户，这是后台填的原因。登录时读 `/data/remark`，心跳结束时读结束事件的 `remark`。";
    TOKEN_INVALID: "The heartbeat's token is unknown to the server: no session for it (the session was ended, or the token is of another login). Only the heartbeat checks tokens.",
        "Log in again. A keeper ends with 1007 and reports it as an ended event.";
        "服务器不认心跳带的令牌：会话已经结束，或者令牌是另一次登录的。只有心跳会校验令牌。",
        "重新登录。心跳遇到 1007 会停止，并发出结束事件。";
    SIGNATURE_ERROR: "The request's signature does not match: the AppKey does not belong to the AppId, or something rewrote the request on the way (a proxy, a packet tool).",
        "Check that AppId and AppKey are of the same program. If they are, look for a tool between the program and the server.";
        "请求签名不对：AppKey 和 AppId 不是同一个软件的，或者请求在半路被代理、抓包改包工具改过。",
        "确认 AppId 和 AppKey 是同一个软件的。没填错的话，检查程序和服务器之间有没有代理或改包工具。";
    APP_KEY_WRONG: "The AppKey is wrong: mistyped, of another program, or reset in the back office.",
        "Copy the AppKey again from the back office (no spaces). Every copy of the program with the old key gets 1011 until it is updated.";
        "AppKey 错误：填错了、用了别的软件的，或者在后台重置过。",
        "从后台重新复制 AppKey（注意不要带空格）。重置过 AppKey 的话，旧版程序都会返回 1011，要发新版。";
    NOT_APPROVED: "The program is not approved: pending review, rejected, or the developer's plan expired.",
        "See the program's state in the back office. Until it is approved nobody can log in.";
        "软件没有通过审核：待审核、被驳回，或者开发者套餐到期。",
        "去后台看软件状态。审核通过前，所有用户都登录不了。";
    INCOMPLETE_PARAMETERS: "A required parameter is empty, or the heartbeat type is invalid.",
        "Check which parameter is empty (`verify_last_error_message`, the server's message). A machine code must not be empty.";
        "必填参数为空，或心跳类型不对。",
        "看是哪个参数为空（`verify_last_error_message`、服务器的 message）。机器码不能为空。";
    TIMESTAMP_SKEW: "The request's time is more than 300 seconds from the server's. The client corrects its clock from the reply's `Date` and sends once more by itself: a 1014 you see means that did not help.",
        "Nothing in the code. The user's clock or time zone is wrong: ask them to set the time automatically. `verify-doctor` shows the offset.";
        "请求时间和服务器差了 300 秒以上。客户端会按回复的 `Date` 校正时间，自动重发一次；还是 1014，说明校正也没用。",
        "程序不用改。是用户电脑的时间或时区不对，让用户打开自动同步时间。`verify-doctor` 能看到差了多少秒。";
    UNKNOWN_ACTION: "The server does not know this action: an older or different server.",
        "Check the server URL and the service's version.";
        "服务器不认识这个接口：服务器版本旧，或者不是这个验证服务。",
        "检查服务器地址和服务端版本。";
    USER_NOT_REGISTERED: "No account with this user name, or the social identity is not bound to an account.",
        "Offer registration, or binding the social account.";
        "没有这个用户名的账号，或者社交账号没有绑定账号。",
        "引导用户注册，或先绑定社交账号。";
    USERNAME_TAKEN: "The user name is registered already.", "Ask for another name.";
        "用户名已被注册。", "让用户换一个用户名。";
    IP_REGISTRATION_LIMIT: "Too many registrations from this IP address.", "Nothing in the code: the limit is set in the back office.";
        "同一 IP 注册次数超过上限。", "程序不用改，上限在后台设置。";
    SAME_MACHINE_CODE: "换绑 (ChangeBind) to the machine code that is bound already.",
        "Treat it as done: the licence is bound to this computer.";
        "换绑的新机器码和当前绑定的一样。",
        "按成功处理：授权已经绑在这台电脑上。";
    REBIND_LIMIT: "The licence used every rebind the product allows.",
        "Rebinds are counted by the server (`/data/bind_limit`); more are given in the back office.";
        "换绑次数用完了。",
        "换绑次数由服务器计算（见 `/data/bind_limit`）。要加次数，去后台改。";
    MACHINE_CHANGED: "The licence is bound to another machine code. The reply's `remark` is the previously bound code.",
        "Offer 换绑 (`verify_change_bind`), and show the old code from `remark` so the user knows which computer it was. A machine code that changes on the same computer: see docs/machine-code.md.";
        "授权绑的是另一个机器码。备注（`remark`）就是原来绑定的机器码。",
        "给用户换绑（`verify_change_bind`），并显示备注里的原机器码，让用户知道是哪台电脑。同一台电脑机器码却变了，见 docs/machine-code.md。";
    BLACKLISTED: "The IP address or machine code is on the back office's blacklist.", "Nothing in the code: the blacklist is in the back office.";
        "IP 或机器码在后台黑名单里。", "程序不用改，黑名单在后台管理。";
    COUNT_CARD_NOT_ALLOWED: "A count card is valid only for the card login (`verify_single_login`): it was used to register, to renew at an account login, or to recharge.",
        "Tell the user to log in with the card itself, or to use a time card for an account.";
        "次数卡只能用来卡密登录（`verify_single_login`），却拿去注册、给账号续费或充值了。",
        "提示用户直接用卡密登录；给账号充值要用时长卡。";
    ERR_INVALID_ARGUMENT: "An argument is NULL where one is required, empty, too long or out of range. Nothing was sent.",
        "`verify_last_error_message` names the argument.";
        "参数为 NULL、为空、过长或超出范围，请求没有发出。",
        "`verify_last_error_message` 会说是哪个参数。";
    ERR_INVALID_UTF8: "A string is not UTF-8. Almost always a 易语言, VB6 or Delphi program passing GBK text without setting the code page.",
        "Call `verify_set_code_page(0)` once at start (0: the system's ANSI code page), before any other call.";
        "字符串不是 UTF-8。几乎都是易语言、VB6、Delphi 程序直接传 GBK 文本，又没设置代码页。",
        "程序启动时先调一次 `verify_set_code_page (0)`，再调其他函数。0 表示系统的 ANSI 代码页。";
    ERR_NETWORK: "The server cannot be reached, or the connection broke: no network, DNS, a firewall, the server down.",
        "Run `verify-doctor` (or `verify_client_diagnose`) on the user's computer: it says which.";
        "连不上服务器，或连接断了：没网、DNS、防火墙、服务器宕机。",
        "在用户电脑上跑 `verify-doctor`，或者在程序里调 `verify_client_diagnose`，它会告诉你是哪一种。";
    ERR_TIMEOUT: "The server did not answer in time (connect or whole call).",
        "Try again later; on slow networks raise the timeouts (`verify_client_options_set_timeouts`).";
        "服务器没有按时回应：连接超时，或者整个调用超时。",
        "稍后重试；网络慢的用户可以调大超时（`verify_client_options_set_timeouts`）。";
    ERR_TLS: "The TLS handshake or the certificate check failed: a wrong date on the computer, antivirus HTTPS scanning, a server certificate expired or of another name.",
        "`verify-doctor` names the cause (issuer, dates, names).";
        "TLS 握手或证书校验失败：电脑日期不对、杀毒软件的 HTTPS 扫描、服务器证书过期或域名不符。",
        "`verify-doctor` 会给出原因：签发者、有效期、域名。";
    ERR_PROTOCOL: "The reply is not the service's JSON: a wrong URL, a web page (a hotel's login page), a gateway's error page.",
        "Check the server URL (without `/api/verify`). `verify-doctor` shows what answered.";
        "回复不是验证服务的 JSON：服务器地址不对，或者回来的是网页，比如酒店的上网认证页、网关的错误页。",
        "检查服务器地址（不要带 `/api/verify`）。`verify-doctor` 能看到是谁回的。";
    ERR_CANCELLED: "The program cancelled the call (`verify_cancel_cancel`).", "Nothing.";
        "程序自己取消了调用（`verify_cancel_cancel`）。", "无需处理。";
    ERR_PANIC: "An internal error of the library, caught at its boundary.",
        "A bug: send the log and the steps to the SDK's maintainers.";
        "库内部出错（panic）。错误在 DLL 接口处被拦下，没有让程序崩溃。",
        "这是 bug：把日志和复现步骤发给 SDK 维护者。";
    ERR_NO_SUCH_FIELD: "The reply has no field at this path, or it has another type.",
        "Check the path against the action's reply fields in `verify.h` (`/data/expire_at`, not `expire_at`).";
        "回复里没有这个路径的字段，或类型不对。",
        "对照 `verify.h` 里这个接口的回复字段检查路径。要写 `/data/expire_at`，不是 `expire_at`。";
    ERR_SYSTEM: "The operating system failed: a thread could not start, the machine identity could not be read or stored, no randomness.",
        "`verify_last_error_message` says which. Security software that blocks registry or WMI reads is a common cause.";
        "系统调用失败：线程起不来、读不到或存不了机器标识、取不到随机数。",
        "`verify_last_error_message` 会说是哪一种。常见原因是安全软件拦了注册表或 WMI 读取。";
    ERR_PIN: "The certificate is valid but matches none of the pinned keys: the server changed its key, or the connection is intercepted.",
        "If the server's key changed, ship the new pin (keep the old and the new one during the change).";
        "证书本身有效，但和固定的公钥（pin）一个都对不上：服务器换了密钥，或者连接被拦截了。",
        "服务器换过密钥的话，发新版，带上新的 pin。过渡期新旧两个 pin 都留着。";
    ERR_PROXY: "The proxy cannot be reached, or it refused the credentials or the tunnel.",
        "Check the proxy setting; `verify-doctor` says where it came from (the program, a variable, the system).";
        "连不上代理，或者代理不认账号密码、不肯建隧道。",
        "检查代理设置。`verify-doctor` 会说代理设置是从哪来的：程序、环境变量还是系统。";
    ERR_TOO_LARGE: "The request's body would exceed 1 MiB. Nothing was sent.", "Send less (a shorter value).";
        "请求体超过 1 MiB，请求没有发出。", "少传点内容。";
    ERR_CLOCK_BACK: "Offline refused: the clock is earlier than the latest server time seen (it was set back).",
        "Nothing in the code: the user sets the time right, or connects once.";
        "拒绝离线：本机时间比记录到的最晚服务器时间还早，说明时间被往回调了。",
        "程序不用改：让用户把时间改对，或者联网登录一次。";
    ERR_GRACE_OVER: "Offline refused: the server has not confirmed the licence within the offline grace.",
        "Nothing in the code; the grace is `verify_client_options_set_offline_grace`.";
        "拒绝离线：离线宽限期内服务器一直没有确认过授权。",
        "程序不用改。宽限期用 `verify_client_options_set_offline_grace` 设置。";
    ERR_OFFLINE_EXPIRED: "Offline refused: the stored licence has expired.", "The user renews and logs in online.";
        "拒绝离线：保存的授权已到期。", "用户续费后联网登录。";
    ERR_OFFLINE_PASSWORD: "Offline refused: the password is not the one of the account's last online login (the store keeps a slow salted hash, never the password).",
        "The user types the password again, or connects.";
        "拒绝离线：密码和这个账号上次联网登录时的不一样。本地只存加盐的慢哈希，不存密码。",
        "让用户重新输入密码，或联网登录。";
    ERR_STATE_FOLDER: "Offline is on but the state folder cannot be created or written (a file, a read-only or system path, no permission). The client is not made.",
        "Use a folder of the user's (`%APPDATA%\\YourApp`), not the program's folder under `Program Files`.";
        "开了离线，但状态文件夹建不了或写不进去：路径其实是个文件、是只读路径或系统目录、没有权限。客户端没有创建。",
        "用用户自己的目录（`%APPDATA%\\你的软件`），不要用 `Program Files` 下的程序目录。";
    ERR_TIME_UNCONFIRMED: "Offline refused: the time marks the stored verdict was written under are missing, foreign or older (the offline data was copied, moved or restored).",
        "The user logs in online once; that heals it.";
        "拒绝离线：离线授权的时间标记丢了、对不上这份数据，或者比数据旧。一般是离线数据被复制、移动或还原过。",
        "让用户联网登录一次就好。";
}

/// The FAQ row of every code, in the code table's order: an error naming each code without
/// a row and each row without a code.
pub fn rows(
    codes: &'static [CodeInfo],
    faq: &'static [FaqRow],
) -> Result<Vec<(&'static CodeInfo, &'static FaqRow)>, String> {
    let mut problems = Vec::new();
    let mut out = Vec::new();
    for code in codes {
        match faq.iter().filter(|row| row.name == code.name).count() {
            1 => {}
            0 => problems.push(format!("code {} has no FAQ row", code.name)),
            _ => problems.push(format!("code {} has several FAQ rows", code.name)),
        }
        if let Some(row) = faq.iter().find(|row| row.name == code.name) {
            out.push((code, row));
        }
    }
    for row in faq {
        if !codes.iter().any(|code| code.name == row.name) {
            problems.push(format!("FAQ row {} names no code", row.name));
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "codegen/src/schema/faq.rs: {}",
            problems.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_faq_row() {
        let rows = rows(verify_core::codes::TABLE, FAQ).unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(rows.len(), verify_core::codes::TABLE.len());
    }

    #[test]
    fn a_missing_or_stray_row_is_named() {
        let fewer = &FAQ[1..];
        let why = rows(verify_core::codes::TABLE, fewer).expect_err("OK has no row");
        assert!(why.contains("code OK has no FAQ row"), "{why}");
        const STRAY: &[FaqRow] = &[FaqRow {
            name: "NO_SUCH_CODE",
            cause_en: "",
            fix_en: "",
            cause_zh: "",
            fix_zh: "",
        }];
        let why = rows(&verify_core::codes::TABLE[..1], STRAY).expect_err("stray row");
        assert!(why.contains("FAQ row NO_SUCH_CODE names no code"), "{why}");
    }
}
