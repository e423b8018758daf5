//! The doctor's sentences for the text report, in every [`Language`]: one row per step key
//! (`tls.pin_mismatch`, `init.1011`...), written once, in the shape of the code table's
//! end-user messages (`codes::UserMessage`). A sentence may name the report's AppId as
//! `{app_id}` and a value of the step's details as `{name}` (`{code}`, `{offset_s}`...);
//! every language of a row names the same ones. The JSON keeps the step's English sentence
//! (`message`) and its key.

use std::borrow::Cow;

use crate::codes::{self, UserMessage};
use crate::language::Language;
use crate::util::packed::Packed;

/// One row: a step key and its sentence in every language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepWords {
    /// The step key (`tls.pin_mismatch`).
    pub key: &'static str,
    /// Its sentence in every language.
    pub words: UserMessage,
}

macro_rules! step_words {
    ($(
        $key:literal => {
            en: $en:literal,
            zh_cn: $zh_cn:literal,
            zh_tw: $zh_tw:literal $(,)?
        };
    )*) => {
        /// Every step key's sentence in every language.
        pub const WORDS: &[StepWords] = &[$(
            StepWords { key: $key, words: UserMessage { en: $en, zh_cn: $zh_cn, zh_tw: $zh_tw } },
        )*];

        /// How many rows the table has.
        const ROWS: usize = [$($key),*].len();
        /// Each row's key, then its sentence in every language (the columns of
        /// [`UserMessage`]), packed for [`words`] ([`crate::packed`]).
        static TEXTS: Packed<{ 4 * ROWS }> = Packed::new(
            concat!($($key, $en, $zh_cn, $zh_tw,)*),
            [$($key.len(), $en.len(), $zh_cn.len(), $zh_tw.len(),)*],
        );
    };
}

step_words! {
    "options.ok" => {
        en: "The options are accepted.",
        zh_cn: "选项设置有效。",
        zh_tw: "選項設定有效。",
    };
    "options.refused" => {
        en: "The client refuses these options; see the details in the report.",
        zh_cn: "客户端不接受这些选项，详情见报告。",
        zh_tw: "用戶端不接受這些選項，詳情見報告。",
    };
    "options.insecure_http" => {
        en: "Plain http to a remote host: everything travels unencrypted.",
        zh_cn: "使用明文 http 连接远程主机，所有内容均未加密。",
        zh_tw: "使用明文 http 連線遠端主機，所有內容均未加密。",
    };
    "options.state_folder" => {
        en: "The state folder cannot be written: nothing is kept between runs.",
        zh_cn: "状态文件夹无法写入，程序关闭后不会保留任何数据。",
        zh_tw: "狀態資料夾無法寫入，程式關閉後不會保留任何資料。",
    };
    "lookup.ok" => {
        en: "The server's address was found.",
        zh_cn: "已取得服务器地址。",
        zh_tw: "已取得伺服器位址。",
    };
    "lookup.slow" => {
        en: "The server's name was found, but the name server is slow.",
        zh_cn: "已解析服务器域名，但域名解析较慢。",
        zh_tw: "已解析伺服器網域名稱，但網域名稱解析較慢。",
    };
    "lookup.not_found" => {
        en: "The server's name cannot be found: check the address and the network's name server.",
        zh_cn: "无法解析服务器域名，请检查地址和网络的域名解析设置。",
        zh_tw: "無法解析伺服器網域名稱，請檢查位址和網路的網域名稱解析設定。",
    };
    "lookup.timeout" => {
        en: "The name server did not answer in time.",
        zh_cn: "域名解析服务器未及时响应。",
        zh_tw: "網域名稱解析伺服器未及時回應。",
    };
    "lookup.by_proxy" => {
        en: "The server's name is looked up by the proxy.",
        zh_cn: "服务器域名由代理解析。",
        zh_tw: "伺服器網域名稱由代理解析。",
    };
    "tcp.ok" => {
        en: "Connected.",
        zh_cn: "已连接。",
        zh_tw: "已連線。",
    };
    "tcp.timeout" => {
        en: "The connection timed out: a firewall or the network may be blocking it.",
        zh_cn: "连接超时，可能被防火墙或网络阻断。",
        zh_tw: "連線逾時，可能被防火牆或網路阻斷。",
    };
    "tcp.refused" => {
        en: "The connection was refused: nothing answers at this address.",
        zh_cn: "连接被拒绝，该地址上没有服务在响应。",
        zh_tw: "連線被拒絕，該位址上沒有服務在回應。",
    };
    "tcp.unreachable" => {
        en: "This address cannot be reached from this network.",
        zh_cn: "从当前网络无法到达该地址。",
        zh_tw: "從目前網路無法到達該位址。",
    };
    "tcp.failed" => {
        en: "The connection failed.",
        zh_cn: "连接失败。",
        zh_tw: "連線失敗。",
    };
    "tcp.no_time" => {
        en: "Not tried: no time was left.",
        zh_cn: "未尝试：时间已用完。",
        zh_tw: "未嘗試：時間已用完。",
    };
    "proxy.ok" => {
        en: "The proxy answered.",
        zh_cn: "代理服务器已响应。",
        zh_tw: "代理伺服器已回應。",
    };
    "proxy.not_found" => {
        en: "The proxy's name cannot be found: check the proxy settings.",
        zh_cn: "无法解析代理服务器的名称，请检查代理设置。",
        zh_tw: "無法解析代理伺服器的名稱，請檢查代理設定。",
    };
    "proxy.unreachable" => {
        en: "The proxy cannot be reached: check the proxy settings.",
        zh_cn: "无法连接代理服务器，请检查代理设置。",
        zh_tw: "無法連線代理伺服器，請檢查代理設定。",
    };
    "proxy.timeout" => {
        en: "The proxy did not answer in time.",
        zh_cn: "代理服务器未及时响应。",
        zh_tw: "代理伺服器未及時回應。",
    };
    "proxy.closed" => {
        en: "The proxy closed the connection without answering.",
        zh_cn: "代理服务器未响应便关闭了连接。",
        zh_tw: "代理伺服器未回應便關閉了連線。",
    };
    "proxy.auth" => {
        en: "The proxy wants a user name and password: check the proxy settings.",
        zh_cn: "代理服务器要求用户名和密码，请检查代理设置。",
        zh_tw: "代理伺服器要求使用者名稱和密碼，請檢查代理設定。",
    };
    "proxy.refused" => {
        en: "The proxy refused to connect to the server.",
        zh_cn: "代理服务器拒绝连接到验证服务器。",
        zh_tw: "代理伺服器拒絕連線到驗證伺服器。",
    };
    "tls.ok" => {
        en: "The secure connection works and the certificate is valid.",
        zh_cn: "安全连接正常，证书有效。",
        zh_tw: "安全連線正常，憑證有效。",
    };
    "tls.expires_soon" => {
        en: "The secure connection works, but the server's certificate expires soon.",
        zh_cn: "安全连接正常，但服务器证书即将过期。",
        zh_tw: "安全連線正常，但伺服器憑證即將過期。",
    };
    "tls.no_trust" => {
        en: "The trust settings cannot be used: check the certificates given to the program.",
        zh_cn: "信任设置无法使用，请检查提供给程序的证书。",
        zh_tw: "信任設定無法使用，請檢查提供給程式的憑證。",
    };
    "tls.bad_name" => {
        en: "The server's name cannot be used for a secure connection.",
        zh_cn: "该服务器名称无法用于安全连接。",
        zh_tw: "該伺服器名稱無法用於安全連線。",
    };
    "tls.refused" => {
        en: "The secure connection was refused.",
        zh_cn: "安全连接被拒绝。",
        zh_tw: "安全連線被拒絕。",
    };
    "tls.by_init" => {
        en: "The secure connection through the proxy is checked by the service step.",
        zh_cn: "经由代理的安全连接由服务检查步骤验证。",
        zh_tw: "經由代理的安全連線由服務檢查步驟驗證。",
    };
    "tls.pin_mismatch" => {
        en: "The server's certificate matches none of the pinned keys: the connection may be intercepted.",
        zh_cn: "服务器证书与固定的公钥均不匹配，连接可能被拦截。",
        zh_tw: "伺服器憑證與固定的公鑰均不相符，連線可能被攔截。",
    };
    "tls.self_signed" => {
        en: "The server's certificate is self-signed and not trusted.",
        zh_cn: "服务器证书为自签名证书，不受信任。",
        zh_tw: "伺服器憑證為自簽憑證，不受信任。",
    };
    "tls.expired" => {
        en: "The server's certificate has expired, or this computer's date is wrong.",
        zh_cn: "服务器证书已过期，或本机日期不正确。",
        zh_tw: "伺服器憑證已過期，或本機日期不正確。",
    };
    "tls.not_yet_valid" => {
        en: "The server's certificate is not valid yet, or this computer's date is wrong.",
        zh_cn: "服务器证书尚未生效，或本机日期不正确。",
        zh_tw: "伺服器憑證尚未生效，或本機日期不正確。",
    };
    "tls.unknown_issuer" => {
        en: "The server's certificate was issued by an authority this computer does not trust.",
        zh_cn: "服务器证书的签发机构不受本机信任。",
        zh_tw: "伺服器憑證的簽發機構不受本機信任。",
    };
    "tls.wrong_name" => {
        en: "The server's certificate is for another name.",
        zh_cn: "服务器证书的名称与地址不符。",
        zh_tw: "伺服器憑證的名稱與位址不符。",
    };
    "tls.timeout" => {
        en: "The secure connection was not set up in time.",
        zh_cn: "安全连接未能及时建立。",
        zh_tw: "安全連線未能及時建立。",
    };
    "tls.closed" => {
        en: "The server closed the connection while setting up the secure connection.",
        zh_cn: "建立安全连接时服务器关闭了连接。",
        zh_tw: "建立安全連線時伺服器關閉了連線。",
    };
    "clock.ok" => {
        en: "This computer's clock is right.",
        zh_cn: "本机时间准确。",
        zh_tw: "本機時間準確。",
    };
    "clock.drift" => {
        en: "This computer's clock is {off_by_s} s off the server's, close to the limit.",
        zh_cn: "本机时间与服务器相差 {off_by_s} 秒，接近允许范围。",
        zh_tw: "本機時間與伺服器相差 {off_by_s} 秒，接近允許範圍。",
    };
    "clock.off" => {
        en: "This computer's clock is {off_by_s} s off the server's: set the date, time and time zone.",
        zh_cn: "本机时间与服务器相差 {off_by_s} 秒，请校准日期、时间和时区。",
        zh_tw: "本機時間與伺服器相差 {off_by_s} 秒，請校正日期、時間和時區。",
    };
    "clock.no_reply" => {
        en: "Not checked: the server did not answer.",
        zh_cn: "未检查：服务器没有响应。",
        zh_tw: "未檢查：伺服器沒有回應。",
    };
    "clock.no_date" => {
        en: "Not checked: the server's answer has no date.",
        zh_cn: "未检查：服务器的响应中没有日期。",
        zh_tw: "未檢查：伺服器的回應中沒有日期。",
    };
    "init.ok" => {
        en: "The licensing service answers.",
        zh_cn: "验证服务响应正常。",
        zh_tw: "驗證服務回應正常。",
    };
    "init.1001" => {
        en: "Refused with 1001: the server does not know the program {app_id}; check the AppId and the server address.",
        zh_cn: "被拒绝（1001）：服务器上没有程序 {app_id}，请检查 AppId 和服务器地址。",
        zh_tw: "被拒絕（1001）：伺服器上沒有程式 {app_id}，請檢查 AppId 和伺服器位址。",
    };
    "init.1010" => {
        en: "Refused with 1010: the request's signature is wrong; the AppId and AppKey do not belong together, or something changed the request.",
        zh_cn: "被拒绝（1010）：请求签名错误，AppId 与 AppKey 不匹配，或请求在途中被修改。",
        zh_tw: "被拒絕（1010）：請求簽章錯誤，AppId 與 AppKey 不相符，或請求在途中被修改。",
    };
    "init.1011" => {
        en: "Refused with 1011: the AppKey is wrong for the program {app_id}; copy it again from the developer console.",
        zh_cn: "被拒绝（1011）：程序 {app_id} 的 AppKey 错误，请从开发者后台重新复制。",
        zh_tw: "被拒絕（1011）：程式 {app_id} 的 AppKey 錯誤，請從開發者後台重新複製。",
    };
    "init.1012" => {
        en: "Refused with 1012: the program {app_id} is not approved on the server; no user can log in until it is.",
        zh_cn: "被拒绝（1012）：程序 {app_id} 未通过服务器审核，审核通过前所有用户都无法登录。",
        zh_tw: "被拒絕（1012）：程式 {app_id} 未通過伺服器審核，審核通過前所有使用者都無法登入。",
    };
    "init.1014" => {
        en: "Refused with 1014: the server refuses this computer's time; set the date, time and time zone.",
        zh_cn: "被拒绝（1014）：服务器不接受本机时间，请校准日期、时间和时区。",
        zh_tw: "被拒絕（1014）：伺服器不接受本機時間，請校正日期、時間和時區。",
    };
    "init.refused" => {
        en: "The server refused with code {code}.",
        zh_cn: "服务器拒绝，错误码 {code}。",
        zh_tw: "伺服器拒絕，錯誤碼 {code}。",
    };
    "init.network" => {
        en: "The licensing server cannot be reached.",
        zh_cn: "无法连接验证服务器。",
        zh_tw: "無法連線驗證伺服器。",
    };
    "init.timeout" => {
        en: "The licensing server did not answer in time.",
        zh_cn: "验证服务器未及时响应。",
        zh_tw: "驗證伺服器未及時回應。",
    };
    "init.tls" => {
        en: "The secure connection to the licensing server failed.",
        zh_cn: "与验证服务器的安全连接失败。",
        zh_tw: "與驗證伺服器的安全連線失敗。",
    };
    "init.pin" => {
        en: "The licensing server's certificate matches none of the pinned keys.",
        zh_cn: "验证服务器的证书与固定的公钥均不匹配。",
        zh_tw: "驗證伺服器的憑證與固定的公鑰均不相符。",
    };
    "init.proxy" => {
        en: "The proxy did not let the program reach the licensing server.",
        zh_cn: "代理服务器未能让程序连接到验证服务器。",
        zh_tw: "代理伺服器未能讓程式連線到驗證伺服器。",
    };
    "init.protocol" => {
        en: "The server's answer is not what the licensing service sends: check the server address.",
        zh_cn: "服务器的响应不是验证服务的格式，请检查服务器地址。",
        zh_tw: "伺服器的回應不是驗證服務的格式，請檢查伺服器位址。",
    };
    "init.failed" => {
        en: "The check with the licensing service failed.",
        zh_cn: "与验证服务的检查失败。",
        zh_tw: "與驗證服務的檢查失敗。",
    };
    "init.no_time" => {
        en: "Not run: no time was left.",
        zh_cn: "未运行：时间已用完。",
        zh_tw: "未執行：時間已用完。",
    };
    "init.bad_options" => {
        en: "Not run: the options are refused.",
        zh_cn: "未运行：选项设置无效。",
        zh_tw: "未執行：選項設定無效。",
    };
    "offline.off" => {
        en: "Offline use is off: the program needs the server to start.",
        zh_cn: "未启用离线使用，程序启动时必须连接服务器。",
        zh_tw: "未啟用離線使用，程式啟動時必須連線伺服器。",
    };
    "offline.unusable" => {
        en: "The offline store cannot be used.",
        zh_cn: "离线存储无法使用。",
        zh_tw: "離線儲存無法使用。",
    };
    "offline.answers" => {
        en: "A stored licence would answer now if the server cannot be reached.",
        zh_cn: "如果无法连接服务器，现在可以使用已保存的授权。",
        zh_tw: "如果無法連線伺服器，現在可以使用已儲存的授權。",
    };
    "offline.grace_over" => {
        en: "The stored licence no longer answers: the offline period is over; connect to the internet and log in.",
        zh_cn: "已保存的授权不再可用：离线使用时间已到，请连接网络后登录。",
        zh_tw: "已儲存的授權不再可用：離線使用時間已到，請連線網路後登入。",
    };
    "offline.clock_back" => {
        en: "The stored licence does not answer: the clock was set back.",
        zh_cn: "已保存的授权不可用：系统时间被调回过。",
        zh_tw: "已儲存的授權不可用：系統時間被調回過。",
    };
    "offline.unconfirmed" => {
        en: "The offline time check cannot be confirmed: a piece of the offline store is missing, moved or replaced. Log in online once.",
        zh_cn: "离线时间校验无法确认：离线数据缺失、被移动或被替换。请联网登录一次。",
        zh_tw: "離線時間檢查無法確認：離線資料遺失、被移動或被替換。請連線網路登入一次。",
    };
    "offline.expired" => {
        en: "The stored licence has expired.",
        zh_cn: "已保存的授权已过期。",
        zh_tw: "已儲存的授權已過期。",
    };
    "offline.refused" => {
        en: "The stored licence does not answer.",
        zh_cn: "已保存的授权不可用。",
        zh_tw: "已儲存的授權不可用。",
    };
    "offline.none" => {
        en: "No licence stored yet: one is kept after the next login.",
        zh_cn: "尚未保存授权，下次登录成功后会保存。",
        zh_tw: "尚未儲存授權，下次登入成功後會儲存。",
    };
    "machine.failed" => {
        en: "This computer's machine code cannot be computed.",
        zh_cn: "无法计算本机的机器码。",
        zh_tw: "無法計算本機的機器碼。",
    };
    "machine.kept" => {
        en: "This computer's machine code is unchanged.",
        zh_cn: "本机的机器码未变化。",
        zh_tw: "本機的機器碼未變化。",
    };
    "machine.no_store" => {
        en: "The machine code is computed each time (no state folder).",
        zh_cn: "机器码每次重新计算（未设置状态文件夹）。",
        zh_tw: "機器碼每次重新計算（未設定狀態資料夾）。",
    };
    "machine.issued" => {
        en: "A machine code is issued for this computer.",
        zh_cn: "已为本机生成机器码。",
        zh_tw: "已為本機產生機器碼。",
    };
    "machine.reissued" => {
        en: "This computer's machine code changed: a card bound to the old one may need to be rebound.",
        zh_cn: "本机的机器码已变化，绑定旧机器码的卡密可能需要换绑。",
        zh_tw: "本機的機器碼已變化，綁定舊機器碼的卡密可能需要換綁。",
    };
    "machine.store_unreadable" => {
        en: "The stored machine code cannot be read: a new one is issued.",
        zh_cn: "无法读取已保存的机器码，将生成新的机器码。",
        zh_tw: "無法讀取已儲存的機器碼，將產生新的機器碼。",
    };
    "internal" => {
        en: "This check stopped on an internal error.",
        zh_cn: "此项检查因内部错误而中止。",
        zh_tw: "此項檢查因內部錯誤而中止。",
    };
}

/// The sentence of `key` in `language`, when the table has the key.
pub fn words(key: &str, language: Language) -> Option<&'static str> {
    (0..ROWS)
        .map(|row| 4 * row)
        .find(|&at| TEXTS.get(at) == key)
        .map(|at| TEXTS.get(at + 1 + codes::column(language)))
}

/// All the words of the text report in `language` that are not values of a report: every
/// sentence of the table (with its `{name}` placeholders), then a first line with values of
/// ASCII only. A code page that holds all of them holds every report in that language but
/// for its values (docs/windows.md, "Strings": the C ABI chooses the language by them).
pub fn texts(language: Language) -> impl Iterator<Item = Cow<'static, str>> {
    let first_line = summary(
        language,
        &Summary {
            version: "0.0.0",
            url: "https://example.com",
            app_id: "10001",
            verdict: "FAIL",
            failed: 2,
            elapsed_ms: 1,
            started_at: "2000-01-01T00:00:00Z",
        },
    );
    (0..ROWS)
        .map(move |row| Cow::Borrowed(TEXTS.get(4 * row + 1 + codes::column(language))))
        .chain(std::iter::once(Cow::Owned(first_line)))
}

/// The facts of the text report's first line.
pub(crate) struct Summary<'a> {
    pub version: &'a str,
    pub url: &'a str,
    pub app_id: &'a str,
    /// `PASS`, `WARN` or `FAIL`.
    pub verdict: &'a str,
    pub failed: usize,
    pub elapsed_ms: u64,
    pub started_at: &'a str,
}

/// The text report's first line in `language`.
pub(crate) fn summary(language: Language, s: &Summary<'_>) -> String {
    let Summary {
        version,
        url,
        app_id,
        verdict,
        failed,
        elapsed_ms,
        started_at,
    } = s;
    match language {
        Language::En => {
            let failed = match failed {
                0 => String::new(),
                1 => " (1 step failed)".to_owned(),
                n => format!(" ({n} steps failed)"),
            };
            format!(
                "verify doctor ({version}) for {url} (AppId {app_id}): {verdict}{failed} in \
                 {elapsed_ms} ms, {started_at}"
            )
        }
        Language::ZhCn => {
            let failed = match failed {
                0 => String::new(),
                n => format!("（{n} 项失败）"),
            };
            format!(
                "verify 诊断（{version}）{url}（AppId {app_id}）：{verdict}{failed}，用时 \
                 {elapsed_ms} 毫秒，{started_at}"
            )
        }
        Language::ZhTw => {
            let failed = match failed {
                0 => String::new(),
                n => format!("（{n} 項失敗）"),
            };
            format!(
                "verify 診斷（{version}）{url}（AppId {app_id}）：{verdict}{failed}，用時 \
                 {elapsed_ms} 毫秒，{started_at}"
            )
        }
    }
}

/// The placeholders (`{name}`) of a sentence, in order.
pub(crate) fn placeholders(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        names.push(&after[..close]);
        rest = &after[close + 1..];
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::tests::check_languages;

    /// The doctor's sources, where every step key is written.
    const SOURCES: &[&str] = &[
        include_str!("handshake.rs"),
        include_str!("lines.rs"),
        include_str!("machine.rs"),
        include_str!("mod.rs"),
        include_str!("options.rs"),
        include_str!("proxy.rs"),
        include_str!("service.rs"),
        include_str!("store.rs"),
    ];

    const STEPS: &[&str] = &[
        "options", "lookup", "tcp", "proxy", "tls", "clock", "init", "offline", "machine",
    ];

    #[test]
    fn every_step_key_has_its_sentence_in_every_language() {
        let mut keys = std::collections::HashSet::new();
        for row in WORDS {
            assert!(keys.insert(row.key), "{} twice", row.key);
            check_languages(row.key, &row.words);
            for language in Language::ALL {
                assert_eq!(words(row.key, language), Some(row.words.get(language)));
            }
            let names = placeholders(row.words.en);
            for language in Language::ALL {
                assert_eq!(
                    placeholders(row.words.get(language)),
                    names,
                    "{}: {} names other values than en",
                    row.key,
                    language.tag()
                );
            }
        }
        // Every key the doctor's steps use, found as a string literal `"step.cause"`.
        let mut used = vec!["internal".to_owned()];
        for source in SOURCES {
            for literal in source.split('"').skip(1).step_by(2) {
                let Some((step, cause)) = literal.split_once('.') else {
                    continue;
                };
                let is_key = STEPS.contains(&step)
                    && !cause.is_empty()
                    && cause
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
                if is_key {
                    used.push(literal.to_owned());
                }
            }
        }
        assert!(used.len() > 40, "only {} keys found", used.len());
        for key in &used {
            assert!(keys.contains(key.as_str()), "{key} has no sentence");
        }
        assert_eq!(
            words("init.1011", Language::ZhCn),
            Some("被拒绝（1011）：程序 {app_id} 的 AppKey 错误，请从开发者后台重新复制。")
        );
        assert_eq!(words("no.such_key", Language::En), None);
    }

    #[test]
    fn the_texts_of_a_language_are_its_sentences_and_first_line() {
        for language in Language::ALL {
            let texts: Vec<Cow<'static, str>> = texts(language).collect();
            assert_eq!(texts.len(), WORDS.len() + 1, "{language:?}");
            for (text, row) in texts.iter().zip(WORDS) {
                assert_eq!(text, row.words.get(language), "{}", row.key);
            }
        }
        let first = texts(Language::ZhTw).last().expect("a first line");
        assert!(first.starts_with("verify 診斷"), "{first}");
        assert!(
            first.contains("毫秒") && first.contains("項失敗"),
            "{first}"
        );
    }

    #[test]
    fn placeholders_are_read_in_order() {
        assert_eq!(placeholders("a {x} b {yy}."), vec!["x", "yy"]);
        assert_eq!(placeholders("none."), Vec::<&str>::new());
        assert_eq!(placeholders("open { only."), Vec::<&str>::new());
    }
}
