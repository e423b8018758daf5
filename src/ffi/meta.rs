//! Version, code descriptions and the last error.

use std::ffi::{c_char, CStr};

use super::guard::{guard, last_error_code, last_error_message};
use crate::error::describe_c;

/// A static English description of any result code (server codes of spec section 7, 200,
/// 201, and the negative local codes). Never NULL; the caller must not free it.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_code_describe(code: i32) -> *const c_char {
    guard(c"internal error".as_ptr(), || describe_c(code).as_ptr())
}

/// The message of the calling thread's last failed call (local failures, and server
/// refusals with the server's message and remark); an empty string when none failed yet.
/// It is not cleared by successful calls. Borrowed: valid until the same thread's next
/// failing call into the library; the caller must not free it. Never NULL.
/// Thread-safety: per thread.
#[no_mangle]
pub extern "C" fn verify_last_error_message() -> *const c_char {
    guard(c"".as_ptr(), last_error_message)
}

/// The code of the calling thread's last failed call (0 when none failed yet).
/// Thread-safety: per thread.
#[no_mangle]
pub extern "C" fn verify_last_error_code() -> i32 {
    guard(0, last_error_code)
}

const VERSION_C: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the crate version contains a NUL byte"),
    };

/// The library version, e.g. `"0.1.0"`. Static; never NULL; the caller must not free it.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_version() -> *const c_char {
    VERSION_C.as_ptr()
}

/// The library's ABI version; compare it with `VERIFY_ABI_VERSION` of the header the host
/// was compiled with. Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_abi_version() -> u32 {
    crate::ABI_VERSION
}
