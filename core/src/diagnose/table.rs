//! The doctor's table, a part of the schema (CONTRIBUTING.md, "Adding a doctor step"): every
//! step kind (its number in the C ABI, its name, what it checks) and every key a step can
//! carry (`tls.pin_mismatch`, `init.1011`...) with who acts on it and its sentence in every
//! language; then the few lines of the text report around the steps (the first line, the
//! summary, a knock-on step's note), keyed `line.*` and `who.*`.
//!
//! [`StepKind`] is made from the table here; the generator (`cargo run -p verify-codegen`)
//! writes `VERIFY_STEP_*` and the step enum of every binding from [`STEPS`]. A sentence may
//! name the report's AppId as `{app_id}` and a value of the step's details as `{name}`
//! (`{code}`, `{off_by_s}`...); every language of a row names the same ones. The sentence of
//! a key that can be a cause says what is wrong and what to do; [`Actor`] says who does it.
//! The JSON keeps each step's English sentence for developers (`message`) and its key.

use crate::codes::{self, UserMessage};
use crate::language::Language;
use crate::util::packed::Packed;

/// Who acts on a cause: the end user (this computer, its network), or the software's vendor
/// (the program's settings, the server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Actor {
    /// Nobody: the key names no cause (a step that passed or was skipped).
    None = 0,
    /// The end user, on this computer or its network.
    User = 1,
    /// The software's vendor (its settings, its server).
    Vendor = 2,
}

impl Actor {
    /// `none`, `user` or `vendor`.
    pub fn name(self) -> &'static str {
        match self {
            Actor::None => "none",
            Actor::User => "user",
            Actor::Vendor => "vendor",
        }
    }
}

/// One step kind: its number in the C ABI (`VERIFY_STEP_*`), its name and what it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepSpec {
    /// The kind.
    pub kind: StepKind,
    /// Its number in the C ABI.
    pub number: i32,
    /// Its name in the report (`tls`); the C constant is `VERIFY_STEP_` and it in capitals.
    pub name: &'static str,
    /// What it checks, in a sentence.
    pub doc: &'static str,
}

/// One key: who acts on it and its sentence in every language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepWords {
    /// The key (`tls.pin_mismatch`).
    pub key: &'static str,
    /// Who acts when it is a cause.
    pub actor: Actor,
    /// Its sentence in every language.
    pub words: UserMessage,
}

macro_rules! doctor_table {
    (
        steps {
            $( $kind:ident = $number:literal, $name:literal, $doc:literal; )*
        }
        keys {
            $(
                $key:literal => $actor:ident {
                    en: $en:literal,
                    zh_cn: $zh_cn:literal,
                    zh_tw: $zh_tw:literal $(,)?
                };
            )*
        }
    ) => {
        /// What a step checked (the table's `steps`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum StepKind {
            $( #[doc = $doc] $kind = $number, )*
        }

        impl StepKind {
            /// Its name in the report (`options`, `lookup`, `tcp`, `proxy`, `tls`, ...).
            pub fn name(self) -> &'static str {
                match self {
                    $( StepKind::$kind => $name, )*
                }
            }

            /// The C ABI's number of the step (`VERIFY_STEP_*`).
            pub const fn number(self) -> i32 {
                self as i32
            }
        }

        /// Every step kind, in the C ABI's order (what the generator reads).
        pub const STEPS: &[StepSpec] = &[
            $( StepSpec { kind: StepKind::$kind, number: $number, name: $name, doc: $doc }, )*
        ];

        /// Every key, with who acts on it and its sentence in every language.
        pub const WORDS: &[StepWords] = &[$(
            StepWords {
                key: $key,
                actor: Actor::$actor,
                words: UserMessage { en: $en, zh_cn: $zh_cn, zh_tw: $zh_tw },
            },
        )*];

        /// How many keys the table has.
        const ROWS: usize = [$($key),*].len();
        /// Each row's key, then its sentence in every language (the columns of
        /// [`UserMessage`]), packed for [`words`] ([`crate::util::packed`]).
        static TEXTS: Packed<{ 4 * ROWS }> = Packed::new(
            concat!($($key, $en, $zh_cn, $zh_tw,)*),
            [$($key.len(), $en.len(), $zh_cn.len(), $zh_tw.len(),)*],
        );
        /// Each row's actor, in the table's order.
        const ACTORS: [Actor; ROWS] = [$(Actor::$actor,)*];
    };
}

doctor_table! {
    steps {
        Options = 1, "options",
            "The options themselves (URLs, AppKey, trust and pins, proxy, timeouts, the state folder).";
        Lookup = 2, "lookup", "A line's name lookup (which resolver answered, the hosts file).";
        Tcp = 3, "tcp", "A TCP connect to one address of a line.";
        Proxy = 4, "proxy", "The proxy (where its setting came from), and whether it answered.";
        Tls = 5, "tls",
            "The TLS handshake with one address of a line (protocol, the chain's names, issuer, validity, fingerprint and key pin).";
        Clock = 6, "clock", "The local clock against the server's `Date`.";
        Init = 7, "init", "The Init handshake (and the HTTP facts of a reply that is not the service's).";
        Offline = 8, "offline", "The offline store (each stored verdict, or files that do not open).";
        Machine = 9, "machine", "Machine code v2's check (outcome and components, never a value).";
    }
    keys {
        "options.ok" => None {
            en: "The options are accepted.",
            zh_cn: "选项设置有效。",
            zh_tw: "選項設定有效。",
        };
        "options.refused" => Vendor {
            en: "The option {option} is refused: {why}.",
            zh_cn: "选项 {option} 无效：{why}。",
            zh_tw: "選項 {option} 無效：{why}。",
        };
        "options.app_key_empty" => Vendor {
            en: "The AppKey is empty: the program must be given its AppKey.",
            zh_cn: "AppKey 为空：程序必须设置 AppKey。",
            zh_tw: "AppKey 為空：程式必須設定 AppKey。",
        };
        "options.app_id_empty" => Vendor {
            en: "The AppId is empty: the program must be given its AppId.",
            zh_cn: "AppId 为空：程序必须设置 AppId。",
            zh_tw: "AppId 為空：程式必須設定 AppId。",
        };
        "options.url_api_path" => Vendor {
            en: "The server address {value} includes /api/verify: give {fix} instead (the client adds the path).",
            zh_cn: "服务器地址 {value} 不应包含 /api/verify，请改为 {fix}（路径由客户端自动添加）。",
            zh_tw: "伺服器位址 {value} 不應包含 /api/verify，請改為 {fix}（路徑由用戶端自動加上）。",
        };
        "options.url" => Vendor {
            en: "The server address {value} cannot be used: {why}.",
            zh_cn: "服务器地址 {value} 无法使用：{why}。",
            zh_tw: "伺服器位址 {value} 無法使用：{why}。",
        };
        "options.insecure_http" => Vendor {
            en: "Plain http to a remote host: everything travels unencrypted; use https.",
            zh_cn: "使用明文 http 连接远程主机，所有内容均未加密，请改用 https。",
            zh_tw: "使用明文 http 連線遠端主機，所有內容均未加密，請改用 https。",
        };
        "options.state_folder" => User {
            en: "The state folder cannot be written: nothing is kept between runs; check the folder's permissions.",
            zh_cn: "状态文件夹无法写入，程序关闭后不会保留任何数据，请检查该文件夹的权限。",
            zh_tw: "狀態資料夾無法寫入，程式關閉後不會保留任何資料，請檢查該資料夾的權限。",
        };
        "lookup.ok" => None {
            en: "The server's address was found.",
            zh_cn: "已取得服务器地址。",
            zh_tw: "已取得伺服器位址。",
        };
        "lookup.slow" => User {
            en: "The server's name was found, but the name server is slow ({took_ms} ms): every new connection waits for it.",
            zh_cn: "已解析服务器域名，但域名解析较慢（{took_ms} 毫秒），每次新连接都要等待。",
            zh_tw: "已解析伺服器網域名稱，但網域名稱解析較慢（{took_ms} 毫秒），每次新連線都要等待。",
        };
        "lookup.not_found" => User {
            en: "The server's name {host} cannot be found: check the network and its name server (DNS).",
            zh_cn: "无法解析服务器域名 {host}，请检查网络和 DNS 设置。",
            zh_tw: "無法解析伺服器網域名稱 {host}，請檢查網路和 DNS 設定。",
        };
        "lookup.timeout" => User {
            en: "The name server did not answer in time: check the network and its name server (DNS).",
            zh_cn: "域名解析服务器未及时响应，请检查网络和 DNS 设置。",
            zh_tw: "網域名稱解析伺服器未及時回應，請檢查網路和 DNS 設定。",
        };
        "lookup.hosts_file" => User {
            en: "The hosts file ({hosts_path}) points {host} to {hosts_address}: remove that line (a crack or a leftover redirects the program).",
            zh_cn: "hosts 文件（{hosts_path}）把 {host} 指向 {hosts_address}，请删除这一行（破解补丁或残留设置会把程序重定向）。",
            zh_tw: "hosts 檔案（{hosts_path}）把 {host} 指向 {hosts_address}，請刪除這一行（破解修補或殘留設定會把程式重新導向）。",
        };
        "lookup.by_proxy" => None {
            en: "The server's name is looked up by the proxy.",
            zh_cn: "服务器域名由代理解析。",
            zh_tw: "伺服器網域名稱由代理解析。",
        };
        "tcp.ok" => None {
            en: "Connected.",
            zh_cn: "已连接。",
            zh_tw: "已連線。",
        };
        "tcp.timeout" => User {
            en: "The connection timed out: a firewall or the network blocks it; check the network and the firewall.",
            zh_cn: "连接超时，可能被防火墙或网络阻断，请检查网络和防火墙。",
            zh_tw: "連線逾時，可能被防火牆或網路阻斷，請檢查網路和防火牆。",
        };
        "tcp.refused" => Vendor {
            en: "The connection was refused: nothing answers at this address (the server is stopped or the port is wrong).",
            zh_cn: "连接被拒绝，该地址上没有服务在响应（服务器已停止或端口错误）。",
            zh_tw: "連線被拒絕，該位址上沒有服務在回應（伺服器已停止或連接埠錯誤）。",
        };
        "tcp.unreachable" => User {
            en: "This address cannot be reached from this network: check the network.",
            zh_cn: "从当前网络无法到达该地址，请检查网络。",
            zh_tw: "從目前網路無法到達該位址，請檢查網路。",
        };
        "tcp.failed" => User {
            en: "The connection failed: check the network.",
            zh_cn: "连接失败，请检查网络。",
            zh_tw: "連線失敗，請檢查網路。",
        };
        "tcp.no_time" => None {
            en: "Not tried: no time was left.",
            zh_cn: "未尝试：时间已用完。",
            zh_tw: "未嘗試：時間已用完。",
        };
        "proxy.ok" => None {
            en: "The proxy answered ({proxy_source}).",
            zh_cn: "代理服务器已响应（{proxy_source}）。",
            zh_tw: "代理伺服器已回應（{proxy_source}）。",
        };
        "proxy.not_found" => User {
            en: "The proxy's name cannot be found ({proxy_source}): check the proxy settings.",
            zh_cn: "无法解析代理服务器的名称（{proxy_source}），请检查代理设置。",
            zh_tw: "無法解析代理伺服器的名稱（{proxy_source}），請檢查代理設定。",
        };
        "proxy.unreachable" => User {
            en: "The proxy {proxy} ({proxy_source}) cannot be reached: check the proxy settings.",
            zh_cn: "无法连接代理服务器 {proxy}（{proxy_source}），请检查代理设置。",
            zh_tw: "無法連線代理伺服器 {proxy}（{proxy_source}），請檢查代理設定。",
        };
        "proxy.timeout" => User {
            en: "The proxy did not answer in time ({proxy_source}): check the proxy settings.",
            zh_cn: "代理服务器未及时响应（{proxy_source}），请检查代理设置。",
            zh_tw: "代理伺服器未及時回應（{proxy_source}），請檢查代理設定。",
        };
        "proxy.closed" => User {
            en: "The proxy closed the connection without answering ({proxy_source}): check the proxy settings.",
            zh_cn: "代理服务器未响应便关闭了连接（{proxy_source}），请检查代理设置。",
            zh_tw: "代理伺服器未回應便關閉了連線（{proxy_source}），請檢查代理設定。",
        };
        "proxy.auth" => User {
            en: "The proxy wants a user name and password ({proxy_source}): check the proxy settings.",
            zh_cn: "代理服务器要求用户名和密码（{proxy_source}），请检查代理设置。",
            zh_tw: "代理伺服器要求使用者名稱和密碼（{proxy_source}），請檢查代理設定。",
        };
        "proxy.refused" => User {
            en: "The proxy refused to connect to the server ({proxy_source}): ask the network's administrator to allow it.",
            zh_cn: "代理服务器拒绝连接到验证服务器（{proxy_source}），请让网络管理员放行。",
            zh_tw: "代理伺服器拒絕連線到驗證伺服器（{proxy_source}），請讓網路管理員放行。",
        };
        "proxy.auto_config" => User {
            en: "The system uses a proxy auto-config script ({auto_config}) that the program does not read: give the program the proxy, or set HTTPS_PROXY.",
            zh_cn: "系统使用代理自动配置脚本（{auto_config}），程序不会读取它，请在程序中设置代理，或设置 HTTPS_PROXY。",
            zh_tw: "系統使用 Proxy 自動設定指令碼（{auto_config}），程式不會讀取它，請在程式中設定代理，或設定 HTTPS_PROXY。",
        };
        "tls.ok" => None {
            en: "The secure connection works and the certificate is valid.",
            zh_cn: "安全连接正常，证书有效。",
            zh_tw: "安全連線正常，憑證有效。",
        };
        "tls.expires_soon" => Vendor {
            en: "The secure connection works, but the server's certificate expires soon ({not_after}): renew it.",
            zh_cn: "安全连接正常，但服务器证书即将过期（{not_after}），请及时续期。",
            zh_tw: "安全連線正常，但伺服器憑證即將過期（{not_after}），請及時續期。",
        };
        "tls.no_trust" => Vendor {
            en: "The trust settings cannot be used: check the certificates given to the program.",
            zh_cn: "信任设置无法使用，请检查提供给程序的证书。",
            zh_tw: "信任設定無法使用，請檢查提供給程式的憑證。",
        };
        "tls.bad_name" => Vendor {
            en: "The server's name cannot be used for a secure connection.",
            zh_cn: "该服务器名称无法用于安全连接。",
            zh_tw: "該伺服器名稱無法用於安全連線。",
        };
        "tls.refused" => Vendor {
            en: "The secure connection was refused.",
            zh_cn: "安全连接被拒绝。",
            zh_tw: "安全連線被拒絕。",
        };
        "tls.by_init" => None {
            en: "The secure connection through the proxy is checked by the service step.",
            zh_cn: "经由代理的安全连接由服务检查步骤验证。",
            zh_tw: "經由代理的安全連線由服務檢查步驟驗證。",
        };
        "tls.intercepted" => User {
            en: "The secure connection is intercepted: the certificate is issued by {issuer}, not by the server's authority (security software's HTTPS scanning or a company proxy); exclude the program from HTTPS scanning, or ask the network's administrator.",
            zh_cn: "安全连接被拦截：证书由 {issuer} 签发，而不是服务器的签发机构（安全软件的 HTTPS 扫描或公司代理），请把程序加入 HTTPS 扫描的例外，或联系网络管理员。",
            zh_tw: "安全連線被攔截：憑證由 {issuer} 簽發，而不是伺服器的簽發機構（安全軟體的 HTTPS 掃描或公司代理），請把程式加入 HTTPS 掃描的例外，或聯絡網路管理員。",
        };
        "tls.pin_mismatch" => Vendor {
            en: "The server's certificate matches none of the pinned keys (its key is {server_pin}): the server's key changed, or the connection is intercepted.",
            zh_cn: "服务器证书与固定的公钥均不匹配（其公钥为 {server_pin}）：服务器更换了密钥，或连接被拦截。",
            zh_tw: "伺服器憑證與固定的公鑰均不相符（其公鑰為 {server_pin}）：伺服器更換了金鑰，或連線被攔截。",
        };
        "tls.self_signed" => Vendor {
            en: "The server's certificate is self-signed and not trusted: pin its key in the program or use a certificate of a known authority.",
            zh_cn: "服务器证书为自签名证书，不受信任，请在程序中固定其公钥，或改用受信任机构签发的证书。",
            zh_tw: "伺服器憑證為自簽憑證，不受信任，請在程式中固定其公鑰，或改用受信任機構簽發的憑證。",
        };
        "tls.expired" => Vendor {
            en: "The server's certificate has expired ({not_after}): renew it (or this computer's date is wrong).",
            zh_cn: "服务器证书已过期（{not_after}），请续期（或本机日期不正确）。",
            zh_tw: "伺服器憑證已過期（{not_after}），請續期（或本機日期不正確）。",
        };
        "tls.not_yet_valid" => Vendor {
            en: "The server's certificate is not valid yet ({not_before}), or this computer's date is wrong.",
            zh_cn: "服务器证书尚未生效（{not_before}），或本机日期不正确。",
            zh_tw: "伺服器憑證尚未生效（{not_before}），或本機日期不正確。",
        };
        "tls.unknown_issuer" => Vendor {
            en: "The server's certificate was issued by {issuer}, an authority the program does not trust: give the program that authority or pin the server's key.",
            zh_cn: "服务器证书由 {issuer} 签发，程序不信任该机构，请在程序中加入该机构的根证书或固定服务器公钥。",
            zh_tw: "伺服器憑證由 {issuer} 簽發，程式不信任該機構，請在程式中加入該機構的根憑證或固定伺服器公鑰。",
        };
        "tls.wrong_name" => Vendor {
            en: "The server's certificate is for {names}, not for {host}: use the name the certificate is for, or a certificate for this name.",
            zh_cn: "服务器证书属于 {names}，而不是 {host}，请使用证书上的名称，或为该名称申请证书。",
            zh_tw: "伺服器憑證屬於 {names}，而不是 {host}，請使用憑證上的名稱，或為該名稱申請憑證。",
        };
        "tls.timeout" => User {
            en: "The secure connection was not set up in time: something on the network holds it; check the network and security software.",
            zh_cn: "安全连接未能及时建立，网络中有设备阻挡，请检查网络和安全软件。",
            zh_tw: "安全連線未能及時建立，網路中有裝置阻擋，請檢查網路和安全軟體。",
        };
        "tls.closed" => User {
            en: "The server closed the connection while setting up the secure connection: a filter on the network, or no TLS on this port.",
            zh_cn: "建立安全连接时连接被关闭：网络中的过滤设备所致，或该端口不支持 TLS。",
            zh_tw: "建立安全連線時連線被關閉：網路中的過濾裝置所致，或該連接埠不支援 TLS。",
        };
        "clock.ok" => None {
            en: "This computer's clock is right.",
            zh_cn: "本机时间准确。",
            zh_tw: "本機時間準確。",
        };
        "clock.drift" => User {
            en: "This computer's clock is {off_by_s} s off the server's, close to the limit: set the date and time.",
            zh_cn: "本机时间与服务器相差 {off_by_s} 秒，接近允许范围，请校准日期和时间。",
            zh_tw: "本機時間與伺服器相差 {off_by_s} 秒，接近允許範圍，請校正日期和時間。",
        };
        "clock.off" => User {
            en: "This computer's clock is {off_by_s} s off the server's: set the date, time and time zone.",
            zh_cn: "本机时间与服务器相差 {off_by_s} 秒，请校准日期、时间和时区。",
            zh_tw: "本機時間與伺服器相差 {off_by_s} 秒，請校正日期、時間和時區。",
        };
        "clock.no_reply" => None {
            en: "Not checked: the server did not answer.",
            zh_cn: "未检查：服务器没有响应。",
            zh_tw: "未檢查：伺服器沒有回應。",
        };
        "clock.no_date" => None {
            en: "Not checked: the server's answer has no date.",
            zh_cn: "未检查：服务器的响应中没有日期。",
            zh_tw: "未檢查：伺服器的回應中沒有日期。",
        };
        "init.ok" => None {
            en: "The licensing service answers.",
            zh_cn: "验证服务响应正常。",
            zh_tw: "驗證服務回應正常。",
        };
        "init.1001" => Vendor {
            en: "Refused with 1001: the server does not know the program {app_id}; check the AppId and the server address.",
            zh_cn: "被拒绝（1001）：服务器上没有程序 {app_id}，请检查 AppId 和服务器地址。",
            zh_tw: "被拒絕（1001）：伺服器上沒有程式 {app_id}，請檢查 AppId 和伺服器位址。",
        };
        "init.1010" => Vendor {
            en: "Refused with 1010: the request's signature is wrong; the AppId and AppKey do not belong together, or something changed the request.",
            zh_cn: "被拒绝（1010）：请求签名错误，AppId 与 AppKey 不匹配，或请求在途中被修改。",
            zh_tw: "被拒絕（1010）：請求簽章錯誤，AppId 與 AppKey 不相符，或請求在途中被修改。",
        };
        "init.1011" => Vendor {
            en: "Refused with 1011: the AppKey is wrong for the program {app_id}; copy it again from the developer console.",
            zh_cn: "被拒绝（1011）：程序 {app_id} 的 AppKey 错误，请从开发者后台重新复制。",
            zh_tw: "被拒絕（1011）：程式 {app_id} 的 AppKey 錯誤，請從開發者後台重新複製。",
        };
        "init.1012" => Vendor {
            en: "Refused with 1012: the program {app_id} is not approved on the server; no user can log in until it is.",
            zh_cn: "被拒绝（1012）：程序 {app_id} 未通过服务器审核，审核通过前所有用户都无法登录。",
            zh_tw: "被拒絕（1012）：程式 {app_id} 未通過伺服器審核，審核通過前所有使用者都無法登入。",
        };
        "init.1014" => User {
            en: "Refused with 1014: the server refuses this computer's time; set the date, time and time zone.",
            zh_cn: "被拒绝（1014）：服务器不接受本机时间，请校准日期、时间和时区。",
            zh_tw: "被拒絕（1014）：伺服器不接受本機時間，請校正日期、時間和時區。",
        };
        "init.refused" => Vendor {
            en: "The server refused with code {code}.",
            zh_cn: "服务器拒绝，返回码 {code}。",
            zh_tw: "伺服器拒絕，回傳碼 {code}。",
        };
        "init.network" => User {
            en: "The licensing server cannot be reached: check the network.",
            zh_cn: "无法连接验证服务器，请检查网络。",
            zh_tw: "無法連線驗證伺服器，請檢查網路。",
        };
        "init.timeout" => User {
            en: "The licensing server did not answer in time: check the network.",
            zh_cn: "验证服务器未及时响应，请检查网络。",
            zh_tw: "驗證伺服器未及時回應，請檢查網路。",
        };
        "init.tls" => Vendor {
            en: "The secure connection to the licensing server failed.",
            zh_cn: "与验证服务器的安全连接失败。",
            zh_tw: "與驗證伺服器的安全連線失敗。",
        };
        "init.pin" => Vendor {
            en: "The licensing server's certificate matches none of the pinned keys.",
            zh_cn: "验证服务器的证书与固定的公钥均不匹配。",
            zh_tw: "驗證伺服器的憑證與固定的公鑰均不相符。",
        };
        "init.proxy" => User {
            en: "The proxy did not let the program reach the licensing server: check the proxy settings.",
            zh_cn: "代理服务器未能让程序连接到验证服务器，请检查代理设置。",
            zh_tw: "代理伺服器未能讓程式連線到驗證伺服器，請檢查代理設定。",
        };
        "init.gateway" => Vendor {
            en: "A gateway ({server}) answered HTTP {status} instead of the licensing service: the server behind it is down or cannot be reached from it.",
            zh_cn: "网关（{server}）返回 HTTP {status}，而不是验证服务的响应：其后的验证服务器已停止或无法访问。",
            zh_tw: "閘道（{server}）回傳 HTTP {status}，而不是驗證服務的回應：其後的驗證伺服器已停止或無法存取。",
        };
        "init.http_status" => Vendor {
            en: "The server answered HTTP {status} ({title}) instead of the licensing service: check the server address.",
            zh_cn: "服务器返回 HTTP {status}（{title}），而不是验证服务的响应，请检查服务器地址。",
            zh_tw: "伺服器回傳 HTTP {status}（{title}），而不是驗證服務的回應，請檢查伺服器位址。",
        };
        "init.not_service" => User {
            en: "A web page ({title}) answered instead of the licensing service: sign in to the network (a hotel or company portal), or check the server address.",
            zh_cn: "返回的是网页（{title}），而不是验证服务的响应：请先登录网络（酒店或公司的认证页面），或检查服务器地址。",
            zh_tw: "回傳的是網頁（{title}），而不是驗證服務的回應：請先登入網路（飯店或公司的認證頁面），或檢查伺服器位址。",
        };
        "init.protocol" => Vendor {
            en: "The server's answer is not what the licensing service sends: check the server address.",
            zh_cn: "服务器的响应不是验证服务的格式，请检查服务器地址。",
            zh_tw: "伺服器的回應不是驗證服務的格式，請檢查伺服器位址。",
        };
        "init.failed" => Vendor {
            en: "The check with the licensing service failed.",
            zh_cn: "与验证服务的检查失败。",
            zh_tw: "與驗證服務的檢查失敗。",
        };
        "init.no_time" => None {
            en: "Not run: no time was left.",
            zh_cn: "未运行：时间已用完。",
            zh_tw: "未執行：時間已用完。",
        };
        "init.cancelled" => None {
            en: "Not finished: the check was cancelled.",
            zh_cn: "未完成：检查已取消。",
            zh_tw: "未完成：檢查已取消。",
        };
        "init.bad_options" => None {
            en: "Not run: the options are refused.",
            zh_cn: "未运行：选项设置无效。",
            zh_tw: "未執行：選項設定無效。",
        };
        "offline.off" => None {
            en: "Offline use is off: the program needs the server to start.",
            zh_cn: "未启用离线使用，程序启动时必须连接服务器。",
            zh_tw: "未啟用離線使用，程式啟動時必須連線伺服器。",
        };
        "offline.unusable" => User {
            en: "The offline store cannot be used: check the state folder's permissions.",
            zh_cn: "离线存储无法使用，请检查状态文件夹的权限。",
            zh_tw: "離線儲存無法使用，請檢查狀態資料夾的權限。",
        };
        "offline.answers" => None {
            en: "A stored licence would answer now if the server cannot be reached.",
            zh_cn: "如果无法连接服务器，现在可以使用已保存的授权。",
            zh_tw: "如果無法連線伺服器，現在可以使用已儲存的授權。",
        };
        "offline.grace_over" => User {
            en: "The stored licence's offline period is over ({grace_end}): connect to the internet and log in once; the next login renews it.",
            zh_cn: "已保存授权的离线使用时间已到（{grace_end}），请联网登录一次，下次登录后会重新计算。",
            zh_tw: "已儲存授權的離線使用時間已到（{grace_end}），請連線網路登入一次，下次登入後會重新計算。",
        };
        "offline.clock_back" => User {
            en: "The stored licence does not answer: the clock was set back; set the date and time, then log in online once.",
            zh_cn: "已保存的授权不可用：系统时间被调回过，请校准日期和时间后联网登录一次。",
            zh_tw: "已儲存的授權不可用：系統時間被調回過，請校正日期和時間後連線網路登入一次。",
        };
        "offline.unconfirmed" => User {
            en: "The offline time check cannot be confirmed: a piece of the offline store is missing, moved or replaced. Log in online once.",
            zh_cn: "离线时间校验无法确认：离线数据缺失、被移动或被替换。请联网登录一次。",
            zh_tw: "離線時間檢查無法確認：離線資料遺失、被移動或被替換。請連線網路登入一次。",
        };
        "offline.expired" => User {
            en: "The stored licence has expired: renew the card or the account.",
            zh_cn: "已保存的授权已过期，请续费卡密或账号。",
            zh_tw: "已儲存的授權已過期，請續費卡密或帳號。",
        };
        "offline.refused" => User {
            en: "The stored licence does not answer: log in online once.",
            zh_cn: "已保存的授权不可用，请联网登录一次。",
            zh_tw: "已儲存的授權不可用，請連線網路登入一次。",
        };
        "offline.other_machine" => User {
            en: "The stored licence files were made on another computer and do not open here: log in online once on this computer.",
            zh_cn: "已保存的授权文件来自另一台电脑，在本机无法打开，请在本机联网登录一次。",
            zh_tw: "已儲存的授權檔案來自另一台電腦，在本機無法開啟，請在本機連線網路登入一次。",
        };
        "offline.other_key" => Vendor {
            en: "The stored licence files were made for another AppKey or program and do not open: the program's AppKey changed; users log in online once.",
            zh_cn: "已保存的授权文件属于其他 AppKey 或程序，无法打开：程序的 AppKey 已更换，用户需联网登录一次。",
            zh_tw: "已儲存的授權檔案屬於其他 AppKey 或程式，無法開啟：程式的 AppKey 已更換，使用者需連線網路登入一次。",
        };
        "offline.other_machine_or_key" => User {
            en: "The stored licence files do not open: they were made on another computer or for another AppKey; log in online once.",
            zh_cn: "已保存的授权文件无法打开：它们来自另一台电脑或属于其他 AppKey，请联网登录一次。",
            zh_tw: "已儲存的授權檔案無法開啟：它們來自另一台電腦或屬於其他 AppKey，請連線網路登入一次。",
        };
        "offline.damaged" => User {
            en: "The stored licence files are damaged and do not open: log in online once (check the disk and security software if it happens again).",
            zh_cn: "已保存的授权文件已损坏，无法打开，请联网登录一次（如反复出现，请检查磁盘和安全软件）。",
            zh_tw: "已儲存的授權檔案已損毀，無法開啟，請連線網路登入一次（如反覆出現，請檢查磁碟和安全軟體）。",
        };
        "offline.unreadable" => User {
            en: "The stored licence files cannot be read: check the state folder's permissions.",
            zh_cn: "无法读取已保存的授权文件，请检查状态文件夹的权限。",
            zh_tw: "無法讀取已儲存的授權檔案，請檢查狀態資料夾的權限。",
        };
        "offline.none" => None {
            en: "No licence stored yet: one is kept after the next login.",
            zh_cn: "尚未保存授权，下次登录成功后会保存。",
            zh_tw: "尚未儲存授權，下次登入成功後會儲存。",
        };
        "machine.failed" => User {
            en: "This computer's machine code cannot be computed.",
            zh_cn: "无法计算本机的机器码。",
            zh_tw: "無法計算本機的機器碼。",
        };
        "machine.kept" => None {
            en: "This computer's machine code is unchanged.",
            zh_cn: "本机的机器码未变化。",
            zh_tw: "本機的機器碼未變化。",
        };
        "machine.no_store" => None {
            en: "The machine code is computed each time (no state folder).",
            zh_cn: "机器码每次重新计算（未设置状态文件夹）。",
            zh_tw: "機器碼每次重新計算（未設定狀態資料夾）。",
        };
        "machine.issued" => None {
            en: "A machine code is issued for this computer.",
            zh_cn: "已为本机生成机器码。",
            zh_tw: "已為本機產生機器碼。",
        };
        "machine.reissued" => User {
            en: "This computer's machine code changed: a card bound to the old one may need to be rebound.",
            zh_cn: "本机的机器码已变化，绑定旧机器码的卡密可能需要换绑。",
            zh_tw: "本機的機器碼已變化，綁定舊機器碼的卡密可能需要換綁。",
        };
        "machine.store_unreadable" => User {
            en: "The stored machine code cannot be read: a new one is issued.",
            zh_cn: "无法读取已保存的机器码，将生成新的机器码。",
            zh_tw: "無法讀取已儲存的機器碼，將產生新的機器碼。",
        };
        "internal" => Vendor {
            en: "This check stopped on an internal error.",
            zh_cn: "此项检查因内部错误而中止。",
            zh_tw: "此項檢查因內部錯誤而中止。",
        };
        "cancelled" => None {
            en: "Not finished: the check was cancelled.",
            zh_cn: "未完成：检查已取消。",
            zh_tw: "未完成：檢查已取消。",
        };
        "line.pass" => None {
            en: "PASS: the connection is fine; if login still fails, it is the card or the account.",
            zh_cn: "PASS：连接正常；如果仍无法登录，问题在卡密或账号。",
            zh_tw: "PASS：連線正常；如果仍無法登入，問題在卡密或帳號。",
        };
        "line.cancelled" => None {
            en: "CANCELLED: the check was stopped before it finished; run it again.",
            zh_cn: "已取消：检查未完成便被停止，请重新运行。",
            zh_tw: "已取消：檢查未完成便被停止，請重新執行。",
        };
        "line.cause" => None {
            en: "{verdict}: {sentence} ({who})",
            zh_cn: "{verdict}：{sentence}（{who}）",
            zh_tw: "{verdict}：{sentence}（{who}）",
        };
        "line.more" => None {
            en: " (and {more} more below)",
            zh_cn: "（另有 {more} 项，见下文）",
            zh_tw: "（另有 {more} 項，見下文）",
        };
        "line.summary" => None {
            en: "verify doctor ({version}) for {url} (AppId {app_id}): {verdict}, causes: {causes}, in {elapsed_ms} ms, {started_at}",
            zh_cn: "verify 诊断（{version}）{url}（AppId {app_id}）：{verdict}，原因 {causes} 项，用时 {elapsed_ms} 毫秒，{started_at}",
            zh_tw: "verify 診斷（{version}）{url}（AppId {app_id}）：{verdict}，原因 {causes} 項，用時 {elapsed_ms} 毫秒，{started_at}",
        };
        "line.knock_on" => None {
            en: " (follows from {cause})",
            zh_cn: "（由 {cause} 引起）",
            zh_tw: "（由 {cause} 引起）",
        };
        "who.user" => None {
            en: "for the user: this computer or its network",
            zh_cn: "需用户处理：本机或本机网络的问题",
            zh_tw: "需使用者處理：本機或本機網路的問題",
        };
        "who.vendor" => None {
            en: "contact the software's vendor",
            zh_cn: "请联系软件作者",
            zh_tw: "請聯絡軟體作者",
        };
        "support.header" => None {
            en: "Support file of the verify doctor: send this file to the software's vendor. It holds no AppKey, password, card or token.",
            zh_cn: "verify 诊断：支持文件。请把此文件发送给软件作者。文件中不含 AppKey、密码、卡密或令牌。",
            zh_tw: "verify 診斷：支援檔案。請把此檔案傳送給軟體作者。檔案中不含 AppKey、密碼、卡密或權杖。",
        };
    }
}

/// The row of `key`.
fn row(key: &str) -> Option<usize> {
    (0..ROWS).find(|&row| TEXTS.get(4 * row) == key)
}

/// The sentence of `key` in `language`, when the table has the key.
pub fn words(key: &str, language: Language) -> Option<&'static str> {
    row(key).map(|row| TEXTS.get(4 * row + 1 + codes::column(language)))
}

/// Every sentence of the table in `language`, with its `{name}` placeholders (the first
/// line's, the summary's and the support file's templates included): what a code page must
/// hold for every text of the doctor in that language, but for a report's values
/// (docs/windows.md, "Strings": the C ABI chooses the language by them).
pub fn texts(language: Language) -> impl Iterator<Item = &'static str> {
    (0..ROWS).map(move |row| TEXTS.get(4 * row + 1 + codes::column(language)))
}

/// Who acts on `key` when it is a cause ([`Actor::None`] for a key the table lacks).
pub fn actor(key: &str) -> Actor {
    row(key)
        .and_then(|row| ACTORS.get(row).copied())
        .unwrap_or(Actor::None)
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

/// The sentence of `key` in `language` with its placeholders filled by `value` (a value
/// that is not known stays `?`); `None` when the table lacks the key.
pub(crate) fn fill(
    key: &str,
    language: Language,
    value: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let template = words(key, language)?;
    let mut sentence = template.to_owned();
    for name in placeholders(template) {
        let filled = value(name).unwrap_or_else(|| "?".to_owned());
        sentence = sentence.replace(&format!("{{{name}}}"), &filled);
    }
    Some(sentence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::tests::check_languages;

    /// The doctor's sources, where every step key is written.
    const SOURCES: &[&str] = &[
        include_str!("causes.rs"),
        include_str!("handshake.rs"),
        include_str!("hosts.rs"),
        include_str!("lines.rs"),
        include_str!("machine.rs"),
        include_str!("mod.rs"),
        include_str!("options.rs"),
        include_str!("proxy.rs"),
        include_str!("reach.rs"),
        include_str!("report.rs"),
        include_str!("service.rs"),
        include_str!("store.rs"),
        include_str!("text.rs"),
    ];

    #[test]
    fn every_key_has_its_sentence_in_every_language() {
        let mut keys = std::collections::HashSet::new();
        for row in WORDS {
            assert!(keys.insert(row.key), "{} twice", row.key);
            // The lines around the steps are parts of sentences: their script only.
            let part = ["line.", "who."].iter().any(|p| row.key.starts_with(p));
            if part {
                assert!(row.words.en.is_ascii(), "{}", row.key);
            } else {
                check_languages(row.key, &row.words);
            }
            for language in Language::ALL {
                assert_eq!(words(row.key, language), Some(row.words.get(language)));
            }
            assert_eq!(actor(row.key), row.actor);
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
        let prefixes: Vec<&str> = STEPS
            .iter()
            .map(|s| s.name)
            .chain(["line", "who", "support"])
            .collect();
        let mut used = vec!["internal".to_owned(), "cancelled".to_owned()];
        for source in SOURCES {
            for literal in source.split('"').skip(1).step_by(2) {
                let Some((step, cause)) = literal.split_once('.') else {
                    continue;
                };
                let is_key = prefixes.contains(&step)
                    && !cause.is_empty()
                    && cause
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
                if is_key {
                    used.push(literal.to_owned());
                }
            }
        }
        assert!(used.len() > 60, "only {} keys found", used.len());
        for key in &used {
            assert!(keys.contains(key.as_str()), "{key} has no sentence");
        }
        assert_eq!(
            words("init.1011", Language::ZhCn),
            Some("被拒绝（1011）：程序 {app_id} 的 AppKey 错误，请从开发者后台重新复制。")
        );
        assert_eq!(words("no.such_key", Language::En), None);
        assert_eq!(actor("init.1011"), Actor::Vendor);
        assert_eq!(actor("tcp.timeout"), Actor::User);
    }

    #[test]
    fn every_key_of_a_step_is_in_the_doctors_page() {
        let page = include_str!("../../../docs/doctor.md");
        for row in WORDS {
            let around = ["line.", "who.", "support."];
            if around.iter().any(|p| row.key.starts_with(p)) {
                continue;
            }
            assert!(
                page.contains(&format!("`{}`", row.key)),
                "docs/doctor.md does not list the key {}",
                row.key
            );
        }
    }

    #[test]
    fn steps_are_numbered_from_1_in_order() {
        for (at, spec) in STEPS.iter().enumerate() {
            assert_eq!(spec.number, at as i32 + 1, "{}", spec.name);
            assert_eq!(spec.kind.number(), spec.number);
            assert_eq!(spec.kind.name(), spec.name);
        }
    }

    #[test]
    fn placeholders_are_read_in_order() {
        assert_eq!(placeholders("a {x} b {yy}."), vec!["x", "yy"]);
        assert_eq!(placeholders("none."), Vec::<&str>::new());
        assert_eq!(placeholders("open { only."), Vec::<&str>::new());
    }
}
