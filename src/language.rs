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

/// The language the end user reads in `code_page` when `language` is asked: the first of
/// `language.fallbacks()` whose every text fits the code page ([`fits`]); English, whose
/// messages are ASCII, otherwise. So a message never comes out as `?` where another language
/// could have said it: under Big5 (950) zh-CN is written as zh-TW, under 1252 Chinese as
/// English.
pub(crate) fn readable_in(code_page: i32, language: Language) -> Language {
    language
        .fallbacks()
        .into_iter()
        .find(|candidate| fits(code_page, *candidate))
        .unwrap_or(Language::En)
}

/// [`readable_in`] the code page in use.
pub(crate) fn readable(language: Language) -> Language {
    readable_in(codepage::get(), language)
}

/// Whether `code_page` holds every text of `language` the end user may be shown: every
/// end-user message of the code table (and the two for codes outside it) and every word of
/// the doctor's text report. Worked out once per code page and language.
#[cfg(any(windows, feature = "code-pages"))]
fn fits(code_page: i32, language: Language) -> bool {
    static FITS: OnceLock<Mutex<HashMap<(i32, Language), bool>>> = OnceLock::new();
    let mut known = FITS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    *known.entry((code_page, language)).or_insert_with(|| {
        let holds = |text: &str| codepage::holds(code_page, text);
        codes::numbers()
            .iter()
            .all(|&code| holds(codes::user_message(code, language)))
            && holds(codes::UNDOCUMENTED_SERVER_CODE_USER.get(language))
            && holds(codes::UNKNOWN_LOCAL_CODE_USER.get(language))
            && verify_core::diagnose::table::texts(language).all(holds)
    })
}

/// Without the code-page tables every string is UTF-8, which holds every language.
#[cfg(not(any(windows, feature = "code-pages")))]
fn fits(_code_page: i32, _language: Language) -> bool {
    true
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
/// set with `verify_set_code_page` (GBK for 936), in a language that code page holds: the
/// language asked when it can, else for a Chinese reader the other Chinese, else English
/// (under Big5, 950, zh-CN comes as zh-TW; under 1252, Chinese comes as English); never `?`
/// where another language could have said it.
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
        let code_page = codepage::get();
        encoded(code_page, readable_in(code_page, language), code)
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
/// `verify_code_describe` and `verify_last_error_message` keep their words. A language the
/// code page set with `verify_set_code_page` cannot hold gives way as
/// `verify_code_user_message` says (zh-CN under Big5 is zh-TW).
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
/// `"zh-TW"` or `"en"` (set with `verify_set_language`, or the user's UI language), as the
/// code page in use holds it (`"zh-TW"` for zh-CN under Big5, `"en"` for Chinese under 1252).
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
        tags.get(usize::from(index_of(readable(current()))))
            .map_or(c"en".as_ptr(), |tag| tag.as_ptr())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every text of `language` the end user may see, as [`fits`] reads them.
    #[cfg(any(windows, feature = "code-pages"))]
    fn texts(language: Language) -> Vec<String> {
        codes::numbers()
            .iter()
            .map(|&code| codes::user_message(code, language).to_owned())
            .chain([
                codes::UNDOCUMENTED_SERVER_CODE_USER
                    .get(language)
                    .to_owned(),
                codes::UNKNOWN_LOCAL_CODE_USER.get(language).to_owned(),
            ])
            .chain(verify_core::diagnose::table::texts(language).map(str::to_owned))
            .collect()
    }

    /// 936 (GBK), 950 (Big5), 54936 (GB18030), 65001 (UTF-8) and 1252 (Western), each
    /// language asked: the language given is one whose every message and doctor word the code
    /// page holds (nothing becomes `?`), and each language before it in the order of
    /// `fallbacks` has a text the code page cannot hold.
    #[cfg(any(windows, feature = "code-pages"))]
    #[test]
    fn messages_are_readable_in_every_code_page() {
        use Language::{En, ZhCn, ZhTw};
        let expected = [
            (936, [(ZhCn, ZhCn), (ZhTw, ZhTw), (En, En)]),
            (950, [(ZhCn, ZhTw), (ZhTw, ZhTw), (En, En)]),
            (54936, [(ZhCn, ZhCn), (ZhTw, ZhTw), (En, En)]),
            (65001, [(ZhCn, ZhCn), (ZhTw, ZhTw), (En, En)]),
            (1252, [(ZhCn, En), (ZhTw, En), (En, En)]),
        ];
        for (code_page, pairs) in expected {
            for (asked, given) in pairs {
                assert_eq!(
                    readable_in(code_page, asked),
                    given,
                    "code page {code_page}, {asked:?} asked"
                );
                for text in texts(given) {
                    assert!(
                        codepage::holds(code_page, &text),
                        "code page {code_page}, {given:?}: `{text}` would have a `?`"
                    );
                }
                for skipped in asked.fallbacks().into_iter().take_while(|l| *l != given) {
                    assert!(
                        texts(skipped)
                            .iter()
                            .any(|text| !codepage::holds(code_page, text)),
                        "code page {code_page}: {skipped:?} holds, but {given:?} was given"
                    );
                }
            }
        }
    }

    /// Without the code-page tables every string is UTF-8: the language asked is given.
    #[cfg(not(any(windows, feature = "code-pages")))]
    #[test]
    fn every_language_is_readable_in_utf8() {
        for language in Language::ALL {
            for code_page in [65001, 950, 1252] {
                assert_eq!(readable_in(code_page, language), language);
            }
        }
    }

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
