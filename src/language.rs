//! The end user's language: the messages of the code table for the person in front of the
//! program (`verify_code_user_message`), and the process-wide language they are given in
//! (`verify_set_language`, by default the user's UI language read from the system).

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use verify_core::codes::{self, Language};
use verify_core::{Error, ErrorKind};

use crate::codepage;
use crate::guard::{guard, guard_code, optional_str};

/// The language set with `verify_set_language`: 0 for none (the system's), else 1 + its
/// index in `Language::ALL`.
static CHOSEN: AtomicU8 = AtomicU8::new(0);

fn index_of(language: Language) -> u8 {
    let index = Language::ALL
        .iter()
        .position(|&l| l == language)
        .unwrap_or(0);
    u8::try_from(index).unwrap_or(0)
}

/// The user's UI language, read once from the system: `GetUserDefaultUILanguage` on
/// Windows; elsewhere the first of `LC_ALL`, `LC_MESSAGES`, `LANG` that is set, else on macOS
/// the first preferred language (`CFLocaleCopyPreferredLanguages`). No process is started.
fn system_language() -> Language {
    static SYSTEM: OnceLock<Language> = OnceLock::new();
    *SYSTEM.get_or_init(read_system_language)
}

#[cfg(windows)]
fn read_system_language() -> Language {
    // SAFETY: GetUserDefaultUILanguage takes no arguments and only reads the user's setting.
    let langid = unsafe { windows_sys::Win32::Globalization::GetUserDefaultUILanguage() };
    Language::from_windows_langid(langid)
}

#[cfg(not(windows))]
fn read_system_language() -> Language {
    Language::from_environment()
}

/// The language in effect: the one set, or the system's.
pub(crate) fn current() -> Language {
    match CHOSEN.load(Ordering::Acquire) {
        0 => system_language(),
        n => Language::ALL
            .get(usize::from(n) - 1)
            .copied()
            .unwrap_or(Language::En),
    }
}

/// A language argument: NULL or empty is `None`; a tag that is not well formed is an error.
///
/// # Safety
/// `lang` is NULL or a NUL-terminated string valid during the call.
pub(crate) unsafe fn language_arg(lang: *const c_char) -> Result<Option<Language>, Error> {
    // SAFETY: the caller's contract.
    let Some(tag) = (unsafe { optional_str(lang, "lang") })? else {
        return Ok(None);
    };
    if tag.is_empty() {
        return Ok(None);
    }
    Language::from_tag(&tag).map(Some).ok_or_else(|| {
        Error::local(
            ErrorKind::InvalidArgument,
            "lang is not a language tag such as \"zh-CN\", \"zh-TW\", \"en\" or a POSIX locale \
             such as \"zh_CN.UTF-8\""
                .to_owned(),
        )
    })
}

/// The messages made so far, by code page, language and code (the table's code, or
/// `i32::MAX` and `i32::MIN` for the generic messages of codes outside it).
type Made = HashMap<(i32, Language, i32), Box<CStr>>;

/// The messages handed out, in each code page they were asked in: made once each and kept
/// for the life of the process, so the pointers stay valid (a `Box` does not move when the
/// map grows). At most (rows + 2) × languages × code pages entries.
fn encoded(code_page: i32, language: Language, code: i32) -> *const c_char {
    static MADE: OnceLock<Mutex<Made>> = OnceLock::new();
    // Codes outside the table share their generic message.
    let key_code = match code {
        code if codes::in_table(code) => code,
        code if code > 0 => i32::MAX,
        _ => i32::MIN,
    };
    let mut made = MADE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    made.entry((code_page, language, key_code))
        .or_insert_with(|| codepage::encode(codes::user_message(code, language)).into_boxed_c_str())
        .as_ptr()
}

/// The message for the end user of any result code, in `lang` or the language set with
/// `verify_set_language` (by default the user's UI language): short, polite, saying what to
/// do ("Cannot connect to the licensing server. Please check your network and try again." for
/// `VERIFY_ERR_NETWORK`, and its Chinese); never a secret or a developer's detail. Languages: `"zh-CN"` (Simplified Chinese), `"zh-TW"`
/// (Traditional Chinese), `"en"`; any BCP 47 tag or POSIX locale maps to one of them
/// (`"zh-Hant-HK"` and `"zh_HK.UTF-8"` to zh-TW, `"zh"` to zh-CN, other languages to
/// English). A code outside the table gets a generic message. The text is in the code page
/// set with `verify_set_code_page` (GBK for 936).
///
/// Show it for local results (negative codes, 202 offline) and for a refusal whose server
/// message is empty; a refusal's own message (`verify_reply_message`) is the service's and
/// comes first. `verify_code_describe` and `verify_last_error_message` stay the developer's
/// English.
///
/// `lang`: optional; NULL or empty for the language set, as is a tag that is not well
/// formed (ASCII letters, digits, `-`, `_`, `.`, `@`, at most 64 bytes).
/// Ownership: static; never NULL; the caller must not free it; it stays valid for the life of
/// the process. Thread-safety: any thread.
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_code_user_message(code: i32, lang: *const c_char) -> *const c_char {
    guard(c"".as_ptr(), || {
        // SAFETY: the caller's contract on `lang`.
        let language = unsafe { language_arg(lang) }
            .ok()
            .flatten()
            .unwrap_or_else(current);
        encoded(codepage::get(), language, code)
    })
}

/// Sets the language of `verify_code_user_message` for the whole process: a BCP 47 tag
/// (`"zh-CN"`, `"zh-TW"`, `"en"`, `"zh-Hant-HK"`) or a POSIX locale (`"zh_CN.UTF-8"`);
/// languages other than Chinese are English. NULL or empty goes back to the default, the
/// user's UI language: `GetUserDefaultUILanguage()` on Windows; `LC_ALL`, `LC_MESSAGES` or
/// `LANG` (the first set) on Linux; on macOS the same variables when one is set (a terminal's
/// choice), else the first of the user's preferred languages (`CFLocaleCopyPreferredLanguages`:
/// `zh-Hans-CN` is zh-CN, `zh-Hant-TW` and `zh-Hant-HK` zh-TW), read once, at the first call
/// that needs it, without starting a process. Nothing else changes: replies,
/// `verify_code_describe` and `verify_last_error_message` keep their words.
///
/// `lang`: optional. Returns 200, `VERIFY_ERR_INVALID_ARGUMENT` for a tag that is not well
/// formed (ASCII letters, digits, `-`, `_`, `.`, `@`, at most 64 bytes) or
/// `VERIFY_ERR_INVALID_UTF8` for bytes not valid in the code page; then the language in
/// effect stays. Thread-safety: any thread; set it once, before other calls.
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_set_language(lang: *const c_char) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on `lang`.
        let chosen = unsafe { language_arg(lang) }?;
        CHOSEN.store(chosen.map_or(0, |l| 1 + index_of(l)), Ordering::Release);
        Ok(codes::OK)
    })
}

/// The language `verify_code_user_message` gives when asked without one: `"zh-CN"`,
/// `"zh-TW"` or `"en"` (set with `verify_set_language`, or the user's UI language).
/// Ownership: static; never NULL; the caller must not free it. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_language() -> *const c_char {
    guard(c"en".as_ptr(), || {
        static TAGS: OnceLock<Vec<CString>> = OnceLock::new();
        let tags = TAGS.get_or_init(|| {
            Language::ALL
                .iter()
                .map(|l| CString::new(l.tag()).unwrap_or_default())
                .collect()
        });
        tags.get(usize::from(index_of(current())))
            .map_or(c"en".as_ptr(), |tag| tag.as_ptr())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: *const c_char) -> String {
        // SAFETY: the library's static NUL-terminated strings.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn messages_in_the_language_asked_or_set() {
        assert_eq!(
            read(verify_code_user_message(
                codes::ERR_NETWORK,
                c"zh-CN".as_ptr()
            )),
            "无法连接验证服务器，请检查网络后重试。"
        );
        assert_eq!(
            read(verify_code_user_message(
                codes::ERR_NETWORK,
                c"zh_TW.UTF-8".as_ptr()
            )),
            "無法連線驗證伺服器，請檢查網路後重試。"
        );
        assert_eq!(
            read(verify_code_user_message(
                codes::ERR_NETWORK,
                c"en-US".as_ptr()
            )),
            codes::user_message(codes::ERR_NETWORK, Language::En)
        );
        // The same pointer each time: static, made once.
        let first = verify_code_user_message(codes::CARD_INVALID, c"zh-CN".as_ptr());
        assert_eq!(
            first,
            verify_code_user_message(codes::CARD_INVALID, c"zh-Hans".as_ptr())
        );
        assert_eq!(
            read(verify_code_user_message(123_456, c"zh-CN".as_ptr())),
            codes::UNDOCUMENTED_SERVER_CODE_USER.zh_cn
        );
        assert_eq!(
            read(verify_code_user_message(i32::MIN, c"en".as_ptr())),
            codes::UNKNOWN_LOCAL_CODE_USER.en
        );

        // The process-wide setting (one test sets it, so tests in parallel do not race).
        assert_eq!(verify_set_language(c"zh-TW".as_ptr()), codes::OK);
        assert_eq!(read(verify_language()), "zh-TW");
        assert_eq!(
            read(verify_code_user_message(codes::OK, std::ptr::null())),
            "操作成功。"
        );
        assert_eq!(
            read(verify_code_user_message(codes::ERR_TIMEOUT, c"".as_ptr())),
            codes::user_message(codes::ERR_TIMEOUT, Language::ZhTw)
        );
        // A malformed tag: refused by the setter (the language stays), the process's
        // language for the message.
        assert_eq!(
            verify_set_language(c"zh CN".as_ptr()),
            codes::ERR_INVALID_ARGUMENT
        );
        assert_eq!(read(verify_language()), "zh-TW");
        assert_eq!(
            read(verify_code_user_message(
                codes::ERR_TIMEOUT,
                c"zh/CN".as_ptr()
            )),
            codes::user_message(codes::ERR_TIMEOUT, Language::ZhTw)
        );
        assert_eq!(verify_set_language(c"en".as_ptr()), codes::OK);
        assert_eq!(read(verify_language()), "en");
        assert_eq!(verify_set_language(std::ptr::null()), codes::OK);
        assert_eq!(read(verify_language()), system_language().tag());
        // The developer's description is untouched.
        assert_eq!(
            codes::describe(codes::ERR_NETWORK),
            "network error: server unreachable or connection broken"
        );
    }
}
