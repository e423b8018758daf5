//! Version, code descriptions and the last error.

use std::ffi::{c_char, CStr, CString};
use std::sync::OnceLock;

use verify_core::codes;

use crate::guard::{guard, last_error_code, last_error_message};

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
        table: codes::TABLE
            .iter()
            .map(|row| (row.code, c_text(row.text)))
            .collect(),
        undocumented: c_text(codes::UNDOCUMENTED_SERVER_CODE),
        unknown: c_text(codes::UNKNOWN_LOCAL_CODE),
    })
}

/// A static English description of any result code (the server's codes of spec section 7,
/// 200, 201, and the negative local codes; a generic text for others).
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
/// It is not cleared by successful calls; reply and status accessors that answer
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
