//! Version, code descriptions, the last error, and the service's times as numbers.

use std::ffi::{c_char, CStr, CString};
use std::sync::OnceLock;

use verify_core::actions::time;
use verify_core::{codes, Error, ErrorKind};

use crate::codepage::{self, VERIFY_CODE_PAGE_UTF8};
use crate::guard::{
    guard, guard_code, last_error_code, last_error_message, required_str, write_out,
};

/// `codes::describe` as C strings, made once.
struct Descriptions {
    /// Every row of the code table.
    table: Vec<(i32, CString)>,
    /// A positive code outside the table.
    undocumented: CString,
    /// A negative code outside the table.
    unknown: CString,
}

fn descriptions() -> &'static Descriptions {
    static TEXTS: OnceLock<Descriptions> = OnceLock::new();
    let c_text = |text: &str| CString::new(text).unwrap_or_default();
    TEXTS.get_or_init(|| Descriptions {
        table: codes::numbers()
            .iter()
            .map(|&code| (code, c_text(codes::describe(code))))
            .collect(),
        undocumented: c_text(codes::UNDOCUMENTED_SERVER_CODE),
        unknown: c_text(codes::UNKNOWN_LOCAL_CODE),
    })
}

/// A static English description of any result code (200, 201, the server's refusals of
/// `docs/protocol.md#replies` and the negative local codes; a generic text for others), for
/// the developer;
/// the message for the end user, in the user's language, is `verify_code_user_message`.
/// Ownership: static; never NULL; the caller must not free it. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_code_describe(code: i32) -> *const c_char {
    guard(c"internal error".as_ptr(), || {
        let texts = descriptions();
        match texts.table.iter().find(|(known, _)| *known == code) {
            Some((_, text)) => text.as_ptr(),
            None if code > 0 => texts.undocumented.as_ptr(),
            None => texts.unknown.as_ptr(),
        }
    })
}

/// The message of the calling thread's last failed call (local failures, and server
/// refusals with the server's message and remark); an empty string when none failed yet.
/// It quotes at most the first 64 characters of a caller's value (a name, a path) and the
/// first 128 of a server's message or remark (a server may echo a caller's value; the reply
/// keeps the whole message). It is not cleared by successful calls; reply and status accessors that answer
/// `VERIFY_ERR_NO_SUCH_FIELD` leave it as it is.
/// Ownership: borrowed, valid until the same thread's next failing call into the library;
/// the caller must not free it. Never NULL. Thread-safety: per thread.
#[no_mangle]
pub extern "system" fn verify_last_error_message() -> *const c_char {
    guard(c"".as_ptr(), last_error_message)
}

/// The code of the calling thread's last failed call (0 when none failed yet).
/// Thread-safety: per thread.
#[no_mangle]
pub extern "system" fn verify_last_error_code() -> i32 {
    guard(0, last_error_code)
}

const VERSION_C: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the crate version contains a NUL byte"),
    };

/// The library version, e.g. `"0.2.0"`.
/// Ownership: static; never NULL; the caller must not free it. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_version() -> *const c_char {
    guard(c"".as_ptr(), || VERSION_C.as_ptr())
}

/// The library's ABI version; compare it with `VERIFY_ABI_VERSION` of the header the host
/// was compiled with. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_abi_version() -> u32 {
    guard(0, || crate::VERIFY_ABI_VERSION)
}

/// Sets the code page of every string the library takes and gives, for the whole process:
/// `VERIFY_CODE_PAGE_UTF8` (65001, the default), `VERIFY_CODE_PAGE_SYSTEM` (0: the system's
/// ANSI code page, e.g. 936 on Chinese Windows; UTF-8 on other systems), or a Windows code
/// page number: 936 (GBK), 54936 (GB18030), 950 (Big5), 932 (Shift_JIS), 949 (Korean),
/// 1250..1258, and the others the WHATWG Encoding Standard knows. Code pages other than
/// UTF-8 are built into the Windows library; elsewhere (Linux, macOS) the library is built
/// without them unless asked (cargo feature `code-pages`) and accepts only 65001 and
/// `VERIFY_CODE_PAGE_SYSTEM`, refusing others with `VERIFY_ERR_INVALID_ARGUMENT` and a
/// message that says so.
///
/// Strings in are decoded from it (a byte sequence that is not valid in it is
/// `VERIFY_ERR_INVALID_UTF8`); strings out (reply fields, messages, the last error, keeper
/// events) are encoded to it, a character it cannot hold becoming `?`. JSON texts are
/// converted too. Returns 200, or `VERIFY_ERR_INVALID_ARGUMENT` for an unknown code page
/// or one this build cannot convert.
/// Thread-safety: any thread; set it once, before other calls (strings already handed out
/// keep their encoding).
#[no_mangle]
pub extern "system" fn verify_set_code_page(code_page: i32) -> i32 {
    guard_code(|| {
        codepage::set(code_page)?;
        Ok(codes::OK)
    })
}

/// The code page set with `verify_set_code_page` (65001 for UTF-8, the default).
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_code_page() -> i32 {
    guard(VERIFY_CODE_PAGE_UTF8, codepage::get)
}

/// `text` read as a time of the service (`"YYYY-MM-DD HH:mm:ss"` in UTC+08:00: the keeper's
/// `expire_at` of a `verify_event` and of `verify_keeper_status_expire_at`), so that no host
/// parses the service's format: its Unix seconds into `*unix_seconds` and the offset it was
/// written in, in seconds east of UTC (28800), into `*utc_offset` (which may be NULL).
/// Returns 0, `VERIFY_ERR_NO_SUCH_FIELD` (outs untouched, last error untouched) when `text`
/// is not such a time (empty, another form, a date that does not exist), or
/// `VERIFY_ERR_INVALID_ARGUMENT` when `text` or `unix_seconds` is NULL. `text` is in the code
/// page set with `verify_set_code_page`. Ownership: the caller keeps `text`.
/// Thread-safety: any thread. Added in ABI 2's 0.2 series.
/// cbindgen:optional=[utc_offset]
#[no_mangle]
pub extern "system" fn verify_service_time(
    text: *const c_char,
    unix_seconds: *mut i64,
    utc_offset: *mut i32,
) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or NUL-terminated (the caller's contract).
        let text = unsafe { required_str(text, "text")? };
        if unix_seconds.is_null() {
            return Err(Error::local(
                ErrorKind::InvalidArgument,
                "unix_seconds is NULL",
            ));
        }
        // SAFETY: `unix_seconds` checked non-NULL; `utc_offset` as documented.
        unsafe { write_time(time::parse(&text), unix_seconds, utc_offset) }
    })
}

/// Writes a service time the library read (`found`) into the outs of `verify_reply_time` and
/// `verify_service_time` and returns 0, or returns `VERIFY_ERR_NO_SUCH_FIELD` for none.
///
/// # Safety
/// `unix_seconds` is writable; `utc_offset` is NULL or writable.
pub(crate) unsafe fn write_time(
    found: Option<time::ServiceTime>,
    unix_seconds: *mut i64,
    utc_offset: *mut i32,
) -> Result<i32, Error> {
    let Some(found) = found else {
        return Ok(codes::ERR_NO_SUCH_FIELD);
    };
    // SAFETY: as documented above.
    unsafe {
        write_out(unix_seconds, "unix_seconds", found.unix_seconds)?;
        if !utc_offset.is_null() {
            write_out(utc_offset, "utc_offset", found.utc_offset)?;
        }
    }
    Ok(0)
}
