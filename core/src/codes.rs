//! The result codes: one table, written once.
//!
//! One code space for every result (docs/architecture.md): 200 success, 201 pending,
//! 1001..1024 the server's refusals (`docs/protocol.md#replies`), negative codes for local
//! failures. Each row is the Rust constant (its C name is `VERIFY_` + the same name), the number, the English
//! text for developers that [`describe`] returns, and the message for the person in front of
//! the program in every [`Language`] ([`user_message`]): short, polite, saying what to do,
//! never naming a secret or a developer's detail. The C constants of `verify.h`, the C++ and
//! C# constants and the README's code tables (English and Chinese) are generated from
//! [`TABLE`] and [`CodeClass`] (`cargo run -p verify-codegen` in the repository root), and a
//! test fails when one of them is stale.

pub use crate::language::Language;
use crate::util::packed::Packed;

/// One row of the code table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The number.
    pub code: i32,
    /// The name without prefix (`CARD_INVALID`); the C name is `VERIFY_` + this.
    pub name: &'static str,
    /// The English description for developers, returned by [`describe`].
    pub text: &'static str,
    /// The message for the end user, in every language.
    pub user: UserMessage,
}

/// A message for the end user in every [`Language`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserMessage {
    /// English.
    pub en: &'static str,
    /// Simplified Chinese.
    pub zh_cn: &'static str,
    /// Traditional Chinese.
    pub zh_tw: &'static str,
}

impl UserMessage {
    /// The message in `language`.
    pub fn get(&self, language: Language) -> &'static str {
        match language {
            Language::En => self.en,
            Language::ZhCn => self.zh_cn,
            Language::ZhTw => self.zh_tw,
        }
    }
}

/// Each row: doc comment, `NAME = number, "developer text", { en: "...", zh_cn: "...",
/// zh_tw: "..." };`. A language added later is one more key here and in [`UserMessage`].
macro_rules! code_table {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $code:literal, $text:literal, {
            en: $en:literal,
            zh_cn: $zh_cn:literal,
            zh_tw: $zh_tw:literal $(,)?
        };
    )*) => {
        $( $(#[doc = $doc])* pub const $name: i32 = $code; )*

        /// Every code, in the order of the table.
        pub const TABLE: &[CodeInfo] = &[
            $( CodeInfo {
                code: $code,
                name: stringify!($name),
                text: $text,
                user: UserMessage { en: $en, zh_cn: $zh_cn, zh_tw: $zh_tw },
            }, )*
        ];

        /// How many rows the table has.
        const ROWS: usize = [$($code),*].len();
        /// The rows' numbers, in the order of the table: what [`describe`] and
        /// [`user_message`] look up.
        const CODES: [i32; ROWS] = [$($code),*];
        /// Each row's developer text, then its message in every language (the columns of
        /// [`UserMessage`]), packed for the lookups at run time ([`crate::packed`]).
        static TEXTS: Packed<{ 4 * ROWS }> = Packed::new(
            concat!($($text, $en, $zh_cn, $zh_tw,)*),
            [$($text.len(), $en.len(), $zh_cn.len(), $zh_tw.len(),)*],
        );
    };
}

code_table! {
    /// Success.
    OK = 200, "success", {
        en: "Success.",
        zh_cn: "操作成功。",
        zh_tw: "操作成功。",
    };
    /// Social authorization pending: poll again.
    PENDING = 201, "waiting for social authorization; keep polling", {
        en: "Waiting for your authorization; please finish it and wait a moment.",
        zh_cn: "正在等待授权，请完成授权后稍候。",
        zh_tw: "正在等待授權，請完成授權後稍候。",
    };
    /// Licensed offline: the server could not be reached (DNS, connect, timeout, an
    /// unfinished TLS handshake, an unreachable proxy) and the stored verdict of the last
    /// good login answers (the host opted in with a state folder and an offline grace).
    OFFLINE = 202, "licensed offline: the server could not be reached; the stored verdict answers", {
        en: "The server cannot be reached right now; you are signed in offline for the time being.",
        zh_cn: "暂时无法连接服务器，已使用离线授权登录。",
        zh_tw: "暫時無法連線伺服器，已使用離線授權登入。",
    };
    /// Program not found (from Handle: the session secret is unknown; the client runs Init
    /// again once by itself).
    PROGRAM_NOT_FOUND = 1001, "program not found (or session secret unknown to the server)", {
        en: "This program is not registered with the licensing service. Please contact the software's author.",
        zh_cn: "该软件未在验证服务中登记，请联系软件作者。",
        zh_tw: "該軟體未在驗證服務中登記，請聯絡軟體作者。",
    };
    /// Wrong password.
    WRONG_PASSWORD = 1003, "wrong password", {
        en: "Wrong password. Please check it and try again.",
        zh_cn: "密码错误，请检查后重试。",
        zh_tw: "密碼錯誤，請檢查後重試。",
    };
    /// Card invalid, refunded, or of another program.
    CARD_INVALID = 1004, "card invalid, refunded, or not of this program", {
        en: "This licence key is not valid. Please check it and enter it again.",
        zh_cn: "卡密无效，请检查后重新输入。",
        zh_tw: "卡密無效，請檢查後重新輸入。",
    };
    /// Expired, not activated, or count card used up.
    EXPIRED = 1005, "expired, not activated, or count card used up", {
        en: "Your licence has expired or is used up. Please renew it and try again.",
        zh_cn: "授权已过期或次数已用完，请续费后再试。",
        zh_tw: "授權已過期或次數已用完，請續費後再試。",
    };
    /// Disabled, frozen or banned; the reply's remark carries the reason.
    DISABLED = 1006, "disabled, frozen or banned; the remark carries the reason", {
        en: "This account or licence key has been disabled. Please contact customer service.",
        zh_cn: "账号或卡密已被禁用，请联系客服。",
        zh_tw: "帳號或卡密已被停用，請聯絡客服。",
    };
    /// Token invalid: log in again.
    TOKEN_INVALID = 1007, "token invalid; log in again", {
        en: "Your sign-in has expired. Please sign in again.",
        zh_cn: "登录状态已失效，请重新登录。",
        zh_tw: "登入狀態已失效，請重新登入。",
    };
    /// Signature error.
    SIGNATURE_ERROR = 1010, "signature error", {
        en: "The request could not be verified. Please contact the software's author.",
        zh_cn: "请求校验失败，请联系软件作者。",
        zh_tw: "請求校驗失敗，請聯絡軟體作者。",
    };
    /// Program key (AppKey) wrong.
    APP_KEY_WRONG = 1011, "program key (AppKey) wrong", {
        en: "The program's licensing settings are wrong. Please contact the software's author.",
        zh_cn: "软件的验证配置有误，请联系软件作者。",
        zh_tw: "軟體的驗證設定有誤，請聯絡軟體作者。",
    };
    /// Program not approved (pending, rejected, plan expired).
    NOT_APPROVED = 1012, "program not approved (pending, rejected, or plan expired)", {
        en: "This program cannot be used at the moment. Please contact the software's author.",
        zh_cn: "该软件暂时无法使用，请联系软件作者。",
        zh_tw: "該軟體暫時無法使用，請聯絡軟體作者。",
    };
    /// Incomplete parameters, or invalid heartbeat type.
    INCOMPLETE_PARAMETERS = 1013, "incomplete parameters, or invalid heartbeat type", {
        en: "Some required information is missing. Please fill in every field and try again.",
        zh_cn: "信息填写不完整，请补全后重试。",
        zh_tw: "資料填寫不完整，請補齊後重試。",
    };
    /// Timestamp off by more than 300 s (the client corrects its clock from the reply's
    /// `Date` header and retries once by itself).
    TIMESTAMP_SKEW = 1014, "timestamp outside the server's tolerance of 300 seconds", {
        en: "Your computer's clock is wrong. Please correct the date and time and try again.",
        zh_cn: "本机时间不准确，请校准日期和时间后重试。",
        zh_tw: "本機時間不準確，請校正日期和時間後重試。",
    };
    /// Unknown action.
    UNKNOWN_ACTION = 1015, "unknown action", {
        en: "The licensing service does not support this operation. Please update the program or contact its author.",
        zh_cn: "验证服务不支持此操作，请更新软件或联系软件作者。",
        zh_tw: "驗證服務不支援此操作，請更新軟體或聯絡軟體作者。",
    };
    /// User not registered, or social identity not bound.
    USER_NOT_REGISTERED = 1016, "user not registered, or social identity not bound", {
        en: "This account does not exist. Please check the user name or register first.",
        zh_cn: "账号不存在，请检查用户名或先注册。",
        zh_tw: "帳號不存在，請檢查使用者名稱或先註冊。",
    };
    /// Username already registered.
    USERNAME_TAKEN = 1017, "username already registered", {
        en: "This user name is already taken. Please choose another one.",
        zh_cn: "用户名已被注册，请换一个。",
        zh_tw: "使用者名稱已被註冊，請換一個。",
    };
    /// Registrations per IP address limit reached.
    IP_REGISTRATION_LIMIT = 1019, "registration limit per IP address reached", {
        en: "Too many accounts have been registered from this network. Please try again later.",
        zh_cn: "当前网络注册次数已达上限，请稍后再试。",
        zh_tw: "目前網路註冊次數已達上限，請稍後再試。",
    };
    /// New machine code equals the current one.
    SAME_MACHINE_CODE = 1020, "new machine code equals the current one", {
        en: "The licence is already bound to this computer; nothing needs to change.",
        zh_cn: "已绑定本机，无需换绑。",
        zh_tw: "已綁定本機，無需換綁。",
    };
    /// Rebind limit reached.
    REBIND_LIMIT = 1021, "rebind limit reached", {
        en: "The licence cannot be moved to another computer again. Please contact customer service.",
        zh_cn: "换绑次数已用完，请联系客服。",
        zh_tw: "換綁次數已用完，請聯絡客服。",
    };
    /// Machine code changed; the reply's remark is the previously bound code.
    MACHINE_CHANGED = 1022, "machine code changed; the remark is the previously bound code", {
        en: "This licence is bound to another computer. Please use it there, or move it to this one first.",
        zh_cn: "授权已绑定其他电脑，请在原电脑上使用或先换绑。",
        zh_tw: "授權已綁定其他電腦，請在原電腦上使用或先換綁。",
    };
    /// Blacklisted (IP address or machine code).
    BLACKLISTED = 1023, "blacklisted (IP address or machine code)", {
        en: "This computer or network has been blocked. Please contact customer service.",
        zh_cn: "本机或当前网络已被禁止使用，请联系客服。",
        zh_tw: "本機或目前網路已被禁止使用，請聯絡客服。",
    };
    /// Count card not allowed here.
    COUNT_CARD_NOT_ALLOWED = 1024, "count card not allowed here", {
        en: "This kind of licence key cannot be used here. Please use another key.",
        zh_cn: "此类卡密不能在这里使用，请换用其他卡密。",
        zh_tw: "此類卡密不能在這裡使用，請換用其他卡密。",
    };
    /// NULL where a value is required, empty, too long, out of range.
    ERR_INVALID_ARGUMENT = -1, "invalid argument: NULL where required, empty, too long, or out of range", {
        en: "Some information is empty or too long. Please check what you entered and try again.",
        zh_cn: "输入的信息为空或过长，请检查后重试。",
        zh_tw: "輸入的資料為空或過長，請檢查後重試。",
    };
    /// A string argument is not UTF-8.
    ERR_INVALID_UTF8 = -2, "a string argument is not valid UTF-8", {
        en: "What you entered contains characters that cannot be used. Please check it and try again.",
        zh_cn: "输入内容包含无法识别的字符，请检查后重试。",
        zh_tw: "輸入內容包含無法識別的字元，請檢查後重試。",
    };
    /// Server unreachable, or the connection broke.
    ERR_NETWORK = -3, "network error: server unreachable or connection broken", {
        en: "Cannot connect to the licensing server. Please check your network and try again.",
        zh_cn: "无法连接验证服务器，请检查网络后重试。",
        zh_tw: "無法連線驗證伺服器，請檢查網路後重試。",
    };
    /// Connect or call timeout.
    ERR_TIMEOUT = -4, "timed out (connect or whole-call timeout)", {
        en: "The licensing server did not answer in time. Please try again later.",
        zh_cn: "连接验证服务器超时，请稍后重试。",
        zh_tw: "連線驗證伺服器逾時，請稍後重試。",
    };
    /// TLS handshake or certificate check failed.
    ERR_TLS = -5, "TLS handshake or certificate check failed", {
        en: "A secure connection to the licensing server could not be made. Please check the date and time and your network, then try again.",
        zh_cn: "无法与验证服务器建立安全连接，请检查系统时间和网络后重试。",
        zh_tw: "無法與驗證伺服器建立安全連線，請檢查系統時間和網路後重試。",
    };
    /// The reply is not the service's JSON envelope.
    ERR_PROTOCOL = -6, "protocol error: the reply is not the service's JSON", {
        en: "The licensing server gave an answer that could not be read. Please check your network and try again.",
        zh_cn: "验证服务器返回了无法识别的内容，请检查网络后重试。",
        zh_tw: "驗證伺服器回傳了無法識別的內容，請檢查網路後重試。",
    };
    /// Cancelled by the host.
    ERR_CANCELLED = -7, "cancelled by the host", {
        en: "The operation was cancelled.",
        zh_cn: "操作已取消。",
        zh_tw: "操作已取消。",
    };
    /// Internal error caught at the boundary.
    ERR_PANIC = -8, "internal error (panic caught at the library boundary)", {
        en: "An internal error occurred. Please restart the program and try again.",
        zh_cn: "软件内部出错，请重新启动软件后重试。",
        zh_tw: "軟體內部出錯，請重新啟動軟體後重試。",
    };
    /// A reply field asked for is absent or of another type.
    ERR_NO_SUCH_FIELD = -9, "no such field in the reply, or of another type", {
        en: "The server's answer is missing some information. Please try again later or contact the software's author.",
        zh_cn: "服务器返回的信息不完整，请稍后重试或联系软件作者。",
        zh_tw: "伺服器回傳的資料不完整，請稍後重試或聯絡軟體作者。",
    };
    /// The operating system failed: a thread could not start, the machine identity could not
    /// be read or stored, no randomness.
    ERR_SYSTEM = -10, "operating system failure (thread, machine identity, randomness)", {
        en: "A system error occurred. Please restart the program and try again.",
        zh_cn: "系统出错，请重新启动软件后重试。",
        zh_tw: "系統出錯，請重新啟動軟體後重試。",
    };
    /// The server's certificate chain is valid but matches none of the pinned keys.
    ERR_PIN = -11, "TLS: the server's certificate matches none of the pinned keys", {
        en: "The licensing server's identity could not be confirmed; the network may be intercepting the connection. Please try another network.",
        zh_cn: "无法确认验证服务器的身份，网络可能被拦截，请更换网络后重试。",
        zh_tw: "無法確認驗證伺服器的身分，網路可能被攔截，請更換網路後重試。",
    };
    /// The proxy is unreachable, or refused the credentials or the tunnel.
    ERR_PROXY = -12, "proxy unreachable, or it refused the credentials or the tunnel", {
        en: "The proxy server could not be used. Please check the proxy settings and try again.",
        zh_cn: "代理服务器连接失败，请检查代理设置后重试。",
        zh_tw: "代理伺服器連線失敗，請檢查代理設定後重試。",
    };
    /// The request is larger than the library sends (1 MiB of body); nothing was sent.
    ERR_TOO_LARGE = -13, "request too large: its body would exceed 1 MiB; nothing was sent", {
        en: "What you entered is too long. Please shorten it and try again.",
        zh_cn: "提交的内容过长，请精简后重试。",
        zh_tw: "提交的內容過長，請精簡後重試。",
    };
    /// Offline verdict refused: the local clock is earlier than the latest server time seen
    /// by more than the tolerance (the clock was moved back).
    ERR_CLOCK_BACK = -14, "offline verdict refused: the clock was moved back", {
        en: "Offline use is not possible because the computer's clock was set back. Please correct the date and time, or connect to the internet.",
        zh_cn: "系统时间被调回过，无法离线使用，请校准时间或连接网络后重试。",
        zh_tw: "系統時間被調回過，無法離線使用，請校正時間或連線網路後重試。",
    };
    /// Offline verdict refused: the server has not confirmed the licence within the offline
    /// grace period.
    ERR_GRACE_OVER = -15, "offline verdict refused: the offline grace period is over", {
        en: "You have been offline for too long. Please connect to the internet and sign in again.",
        zh_cn: "离线使用时间已到，请连接网络后重新登录。",
        zh_tw: "離線使用時間已到，請連線網路後重新登入。",
    };
    /// Offline verdict refused: the stored licence has expired.
    ERR_OFFLINE_EXPIRED = -16, "offline verdict refused: the stored licence has expired", {
        en: "Your licence has expired and cannot be used offline. Please connect to the internet and try again.",
        zh_cn: "授权已过期，无法离线使用，请连接网络后重试。",
        zh_tw: "授權已過期，無法離線使用，請連線網路後重試。",
    };
    /// Offline verdict refused: the password does not match the one of the last online
    /// login of the account (the store keeps a slow salted hash of it, never the password).
    ERR_OFFLINE_PASSWORD = -17, "offline verdict refused: wrong password", {
        en: "The password does not match the one saved for offline use. Please check it, or connect to the internet and try again.",
        zh_cn: "密码与离线保存的不一致，请检查密码或连接网络后重试。",
        zh_tw: "密碼與離線儲存的不一致，請檢查密碼或連線網路後重試。",
    };
    /// Offline verdicts are on but the state folder cannot be created or written (a file, a
    /// read-only or system path, a name too long, no permission): the client is not made.
    ERR_STATE_FOLDER = -18, "the state folder cannot be created or written", {
        en: "The program cannot save its licence data on this computer. Please check that its folder can be written and that the disk is not full.",
        zh_cn: "无法在本机保存授权数据，请检查文件夹权限和磁盘空间。",
        zh_tw: "無法在本機儲存授權資料，請檢查資料夾權限和磁碟空間。",
    };
    /// Offline verdict refused: the time cannot be confirmed offline. The stored verdict
    /// answers only when the time marks it was written under (in the state folder and in its
    /// second place) are found where they were, of its store and at least as late as itself;
    /// one is missing, foreign, older or elsewhere. A login that reaches the server heals it.
    ERR_TIME_UNCONFIRMED = -19, "offline verdict refused: the time cannot be confirmed offline; connect once", {
        en: "The time on this computer cannot be confirmed for offline use. Please connect to the internet and sign in once.",
        zh_cn: "无法确认本机时间，暂时不能离线使用，请联网登录一次。",
        zh_tw: "無法確認本機時間，暫時不能離線使用，請連線網路登入一次。",
    };
}

/// The table row of `code`, when the code is in the table.
pub fn info(code: i32) -> Option<&'static CodeInfo> {
    TABLE.iter().find(|row| row.code == code)
}

/// Every code of the table, in its order (the numbers of [`TABLE`], without the rest of the
/// rows).
pub fn numbers() -> &'static [i32] {
    &CODES
}

/// Whether the table has `code`.
pub fn in_table(code: i32) -> bool {
    CODES.contains(&code)
}

/// The classes of the table's codes that the bindings branch on: each a column of the table,
/// kept as the list of the codes that have it (a code may have several). The C++, C# and
/// Python helpers (`is_success`, `IsConfigurationRefusal`, ...) are generated from these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeClass {
    /// The server answered the call: 200, 201 (pending), 202 (an offline verdict answered).
    Success,
    /// A refusal of the program's configuration (AppId, AppKey, approval), not of a licence:
    /// the developer's to fix, not the end user's.
    ConfigurationRefusal,
    /// A refusal that says nothing of the licence (the client handles it, or it concerns this
    /// request or key): a stored offline verdict stays.
    KeepsOfflineVerdict,
}

impl CodeClass {
    /// Every class, in the order the generated helpers list them.
    pub const ALL: [CodeClass; 3] = [
        CodeClass::Success,
        CodeClass::ConfigurationRefusal,
        CodeClass::KeepsOfflineVerdict,
    ];

    /// The codes of the class, in the table's order.
    pub const fn codes(self) -> &'static [i32] {
        match self {
            CodeClass::Success => &[OK, PENDING, OFFLINE],
            CodeClass::ConfigurationRefusal => &[
                PROGRAM_NOT_FOUND,
                SIGNATURE_ERROR,
                APP_KEY_WRONG,
                NOT_APPROVED,
            ],
            CodeClass::KeepsOfflineVerdict => &[SIGNATURE_ERROR, APP_KEY_WRONG, TIMESTAMP_SKEW],
        }
    }

    /// Whether `code` is of the class.
    pub fn has(self, code: i32) -> bool {
        self.codes().contains(&code)
    }

    /// What a code of the class is, as a noun phrase (the generated helpers' docs: "whether
    /// `code` is ...").
    pub const fn doc(self) -> &'static str {
        match self {
            CodeClass::Success => {
                "a success: the server answered the call (200; 201, pending; 202, an offline \
                 verdict)"
            }
            CodeClass::ConfigurationRefusal => {
                "a refusal of the program's configuration (AppId, AppKey, approval), not of a \
                 licence: the developer's to fix"
            }
            CodeClass::KeepsOfflineVerdict => {
                "a refusal that says nothing of the licence: a stored offline verdict stays"
            }
        }
    }
}

/// The place of `code`'s texts in [`TEXTS`] (its developer text; the end user's messages
/// follow), when the table has it.
fn texts_of(code: i32) -> Option<usize> {
    CODES.iter().position(|&row| row == code).map(|row| 4 * row)
}

/// An English description of any code for developers: the table's text, or a generic text
/// for codes the table does not have.
pub fn describe(code: i32) -> &'static str {
    match texts_of(code) {
        Some(at) => TEXTS.get(at),
        None if code > 0 => UNDOCUMENTED_SERVER_CODE,
        None => UNKNOWN_LOCAL_CODE,
    }
}

/// [`describe`] of a positive code the table does not have.
pub const UNDOCUMENTED_SERVER_CODE: &str = "error code not documented by the service";
/// [`describe`] of a negative code the table does not have.
pub const UNKNOWN_LOCAL_CODE: &str = "unknown local error";

/// The message for the end user of any code in `language`: the table's, or a generic one for
/// codes the table does not have. A host shows it for local results and for refusals whose
/// server message is empty; a refusal's own message is the service's to give.
pub fn user_message(code: i32, language: Language) -> &'static str {
    match texts_of(code) {
        Some(at) => TEXTS.get(at + 1 + column(language)),
        None if code > 0 => UNDOCUMENTED_SERVER_CODE_USER.get(language),
        None => UNKNOWN_LOCAL_CODE_USER.get(language),
    }
}

/// The column of `language` in [`UserMessage`] (and in each row's end-user messages in
/// [`TEXTS`]).
pub(crate) fn column(language: Language) -> usize {
    match language {
        Language::En => 0,
        Language::ZhCn => 1,
        Language::ZhTw => 2,
    }
}

/// The end-user messages of `code` in every language ([`user_message`]).
pub fn user_message_row(code: i32) -> &'static UserMessage {
    match info(code) {
        Some(row) => &row.user,
        None if code > 0 => &UNDOCUMENTED_SERVER_CODE_USER,
        None => &UNKNOWN_LOCAL_CODE_USER,
    }
}

/// [`user_message`] of a positive code the table does not have.
pub const UNDOCUMENTED_SERVER_CODE_USER: UserMessage = UserMessage {
    en: "The licensing service refused the request. Please try again later or contact the \
         software's author.",
    zh_cn: "验证服务拒绝了请求，请稍后重试或联系软件作者。",
    zh_tw: "驗證服務拒絕了請求，請稍後重試或聯絡軟體作者。",
};
/// [`user_message`] of a negative code the table does not have.
pub const UNKNOWN_LOCAL_CODE_USER: UserMessage = UserMessage {
    en: "An unexpected error occurred. Please try again.",
    zh_cn: "发生未知错误，请重试。",
    zh_tw: "發生未知錯誤，請重試。",
};

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn codes_names_and_texts_are_unique() {
        let mut codes = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        let mut texts = std::collections::HashSet::new();
        for row in TABLE {
            assert!(codes.insert(row.code), "{} twice", row.code);
            assert!(names.insert(row.name), "{} twice", row.name);
            assert!(texts.insert(row.text), "{} shares its text", row.code);
            assert_eq!(row.code < 0, row.name.starts_with("ERR_"), "{}", row.name);
        }
        assert_eq!(describe(1002), UNDOCUMENTED_SERVER_CODE);
        assert_eq!(describe(-100), UNKNOWN_LOCAL_CODE);
        assert_eq!(describe(CARD_INVALID), info(1004).map_or("", |r| r.text));
    }

    #[test]
    fn the_packed_texts_read_as_the_table() {
        let in_order: Vec<i32> = TABLE.iter().map(|row| row.code).collect();
        assert_eq!(numbers(), in_order);
        for row in TABLE {
            assert!(in_table(row.code), "{}", row.name);
            assert_eq!(describe(row.code), row.text, "{}", row.name);
            for language in Language::ALL {
                let message = user_message(row.code, language);
                assert_eq!(message, row.user.get(language), "{} {language:?}", row.name);
                assert_eq!(message, user_message_row(row.code).get(language));
            }
        }
        assert!(!in_table(1002) && !in_table(-100));
        assert_eq!(
            user_message(1002, Language::ZhTw),
            UNDOCUMENTED_SERVER_CODE_USER.zh_tw
        );
        assert_eq!(user_message(-100, Language::En), UNKNOWN_LOCAL_CODE_USER.en);
    }

    /// Characters written differently in Simplified and Traditional Chinese, as pairs
    /// (simplified, traditional): every one the messages use, and more.
    const SCRIPT_PAIRS: &[(char, char)] = &[
        ('请', '請'),
        ('务', '務'),
        ('册', '冊'),
        ('时', '時'),
        ('无', '無'),
        ('连', '連'),
        ('络', '絡'),
        ('验', '驗'),
        ('证', '證'),
        ('试', '試'),
        ('过', '過'),
        ('续', '續'),
        ('费', '費'),
        ('号', '號'),
        ('账', '帳'),
        ('户', '戶'),
        ('录', '錄'),
        ('态', '態'),
        ('软', '軟'),
        ('体', '體'),
        ('记', '記'),
        ('该', '該'),
        ('联', '聯'),
        ('误', '誤'),
        ('设', '設'),
        ('写', '寫'),
        ('补', '補'),
        ('准', '準'),
        ('确', '確'),
        ('间', '間'),
        ('换', '換'),
        ('绑', '綁'),
        ('数', '數'),
        ('脑', '腦'),
        ('电', '電'),
        ('类', '類'),
        ('这', '這'),
        ('输', '輸'),
        ('为', '為'),
        ('长', '長'),
        ('识', '識'),
        ('别', '別'),
        ('启', '啟'),
        ('动', '動'),
        ('统', '統'),
        ('认', '認'),
        ('网', '網'),
        ('拦', '攔'),
        ('调', '調'),
        ('离', '離'),
        ('状', '狀'),
        ('当', '當'),
        ('达', '達'),
        ('检', '檢'),
        ('码', '碼'),
        ('应', '應'),
        ('资', '資'),
        ('开', '開'),
        ('关', '關'),
        ('发', '發'),
        ('后', '後'),
        ('线', '線'),
        ('权', '權'),
        ('据', '據'),
        ('机', '機'),
        ('错', '錯'),
        ('现', '現'),
        ('实', '實'),
        ('页', '頁'),
        ('门', '門'),
        ('见', '見'),
        ('绝', '絕'),
        ('单', '單'),
        ('简', '簡'),
        ('传', '傳'),
        ('读', '讀'),
        ('点', '點'),
        ('种', '種'),
        ('经', '經'),
        ('进', '進'),
        ('从', '從'),
        ('对', '對'),
        ('还', '還'),
        ('让', '讓'),
        ('并', '並'),
        ('击', '擊'),
        ('扫', '掃'),
        ('尝', '嘗'),
        ('储', '儲'),
        ('夹', '夾'),
        ('盘', '盤'),
        ('处', '處'),
        ('满', '滿'),
        ('钥', '鑰'),
        ('许', '許'),
        ('阅', '閱'),
        ('选', '選'),
        ('项', '項'),
        ('详', '詳'),
        ('远', '遠'),
        ('较', '較'),
        ('墙', '牆'),
        ('断', '斷'),
        ('没', '沒'),
        ('称', '稱'),
        ('签', '簽'),
        ('构', '構'),
        ('区', '區'),
        ('审', '審'),
        ('复', '複'),
        ('计', '計'),
        ('变', '變'),
        ('将', '將'),
        ('内', '內'),
        ('响', '響'),
        ('报', '報'),
        ('产', '產'),
    ];

    fn has_cjk(text: &str) -> bool {
        text.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c))
    }

    /// Words of developers that an end user should never read.
    const DEVELOPER_WORDS: &[&str] = &[
        "AppKey",
        "app key",
        "api",
        "token",
        "Token",
        "TLS",
        "JSON",
        "panic",
        "UTF",
        "Init",
        "HTTP",
        "remark",
        "VERIFY_",
        "verify_",
        "null",
        "signature",
        "parameter",
        "machine code",
        "pin",
        "sdk",
    ];

    /// The checks every text written in every language passes (the end-user messages here,
    /// the doctor's sentences in `diagnose::table`): none empty or padded; English a sentence
    /// in ASCII; each Chinese text in Chinese, ending with 。, not the English text; each
    /// script in its own characters, so that the two are equal only where no word differs.
    pub(crate) fn check_languages(what: &str, user: &UserMessage) {
        for language in Language::ALL {
            let text = user.get(language);
            assert!(
                !text.trim().is_empty(),
                "{what}: {} is empty",
                language.tag()
            );
            assert_eq!(
                text,
                text.trim(),
                "{what}: {} has spaces around",
                language.tag()
            );
        }
        assert!(user.en.is_ascii(), "{what}: en is not ASCII");
        assert!(
            user.en.starts_with(|c: char| c.is_ascii_uppercase()) && user.en.ends_with('.'),
            "{what}: en is not a sentence: {}",
            user.en
        );
        for (tag, text) in [("zh-CN", user.zh_cn), ("zh-TW", user.zh_tw)] {
            assert!(has_cjk(text), "{what}: {tag} has no Chinese: {text}");
            assert!(
                text.ends_with('。'),
                "{what}: {tag} does not end with 。: {text}"
            );
            assert_ne!(text, user.en, "{what}: {tag} is the English text");
        }
        for (simplified, traditional) in SCRIPT_PAIRS {
            assert!(
                !user.zh_tw.contains(*simplified),
                "{what}: zh-TW has the simplified {simplified} (write {traditional}): {}",
                user.zh_tw
            );
            assert!(
                !user.zh_cn.contains(*traditional),
                "{what}: zh-CN has the traditional {traditional} (write {simplified}): {}",
                user.zh_cn
            );
        }
    }

    fn check_user_message(what: &str, user: &UserMessage) {
        check_languages(what, user);
        for language in Language::ALL {
            assert!(
                user.get(language).chars().count() <= 160,
                "{what}: {} is long",
                language.tag()
            );
        }
        let lower = user.en.to_ascii_lowercase();
        let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        for word in DEVELOPER_WORDS {
            let word = word.to_ascii_lowercase();
            let named = if word.contains([' ', '_']) {
                lower.contains(&word)
            } else {
                words.contains(&word.as_str())
            };
            assert!(!named, "{what}: en names `{word}`: {}", user.en);
        }
        // Chinese for end users: no Latin letters (no developer's names).
        for (tag, text) in [("zh-CN", user.zh_cn), ("zh-TW", user.zh_tw)] {
            assert!(
                !text.chars().any(|c| c.is_ascii_alphabetic()),
                "{what}: {tag} has Latin letters: {text}"
            );
        }
    }

    #[test]
    fn every_code_has_an_end_user_message_in_every_language() {
        for row in TABLE {
            check_user_message(&format!("{} ({})", row.name, row.code), &row.user);
            for language in Language::ALL {
                assert_eq!(user_message(row.code, language), row.user.get(language));
            }
        }
        check_user_message("undocumented server code", &UNDOCUMENTED_SERVER_CODE_USER);
        check_user_message("unknown local code", &UNKNOWN_LOCAL_CODE_USER);
        assert_eq!(
            user_message(1002, Language::ZhCn),
            UNDOCUMENTED_SERVER_CODE_USER.zh_cn
        );
        assert_eq!(
            user_message(-100, Language::ZhTw),
            UNKNOWN_LOCAL_CODE_USER.zh_tw
        );
        assert_eq!(
            user_message(ERR_NETWORK, Language::ZhCn),
            "无法连接验证服务器，请检查网络后重试。"
        );
    }

    /// The script check itself: it catches a Traditional text left in Simplified, a Simplified
    /// text copied as Traditional, and a message missing a language.
    #[test]
    fn the_message_check_fails_on_a_wrong_script_or_a_missing_language() {
        let good = UserMessage {
            en: "Wrong password. Please check it and try again.",
            zh_cn: "密码错误，请检查后重试。",
            zh_tw: "密碼錯誤，請檢查後重試。",
        };
        check_user_message("good", &good);
        for bad in [
            UserMessage {
                zh_tw: good.zh_cn,
                ..good
            },
            UserMessage {
                zh_cn: good.zh_tw,
                ..good
            },
            UserMessage { zh_tw: "", ..good },
            UserMessage {
                en: good.zh_cn,
                ..good
            },
            UserMessage {
                en: "Wrong AppKey.",
                ..good
            },
            UserMessage {
                zh_cn: "AppKey 错误。",
                ..good
            },
        ] {
            let result = std::panic::catch_unwind(|| check_user_message("bad", &bad));
            assert!(result.is_err(), "{bad:?} passed");
        }
    }
}
