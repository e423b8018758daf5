//! `verify_reply`: the server's answer, readable field by field without a JSON library.

use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::ptr;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use super::guard::{guard, record, required_str, set_last_error};
use crate::error::{local, Error, ErrorKind};
use crate::reply::Reply;

/// An answer of the server (any code). Opaque; created by the calls, freed with
/// `verify_reply_free`. Strings read from it stay valid until it is freed.
#[allow(non_camel_case_types)]
pub struct verify_reply {
    reply: Reply,
    message: CString,
    /// Strings handed out by `verify_reply_str` and `verify_reply_json`, kept until free.
    texts: Mutex<HashMap<String, CString>>,
}

impl verify_reply {
    pub(crate) fn new(reply: Reply) -> verify_reply {
        let message = CString::new(reply.message().replace('\0', " ")).unwrap_or_default();
        verify_reply {
            reply,
            message,
            texts: Mutex::new(HashMap::new()),
        }
    }

    /// A C string for `key`, made once by `make` and kept until the reply is freed.
    fn text(&self, key: &str, make: impl FnOnce() -> Result<String, Error>) -> *const c_char {
        let mut texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(text) = texts.get(key) {
            return text.as_ptr();
        }
        let made = make().and_then(|text| {
            CString::new(text).map_err(|_| {
                Error::local(
                    ErrorKind::NoSuchField,
                    format!("field `{key}` contains a NUL character"),
                )
            })
        });
        match made {
            Ok(text) => {
                let pointer = text.as_ptr();
                texts.insert(key.to_owned(), text);
                pointer
            }
            Err(error) => {
                record(&error);
                ptr::null()
            }
        }
    }
}

/// Hands a reply to the caller through `out` (when the server answered).
///
/// # Safety
/// `out` was checked non-NULL by `clear_out` and is writable.
pub(crate) unsafe fn give(out: *mut *mut verify_reply, reply: Reply) {
    // SAFETY: as documented above.
    unsafe { *out = Box::into_raw(Box::new(verify_reply::new(reply))) };
}

/// Borrows a reply argument, or fails with an invalid-argument error.
///
/// # Safety
/// `reply` is NULL or a live pointer from this library.
unsafe fn borrow<'a>(reply: *const verify_reply) -> Result<&'a verify_reply, Error> {
    // SAFETY: as documented above.
    unsafe { reply.as_ref() }
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "reply is NULL"))
}

fn no_such_field(field: &str, what: &str) -> Error {
    Error::local(ErrorKind::NoSuchField, format!("field `{field}` {what}"))
}

/// Looks up `field` (a name in `data`, dotted for nested objects).
fn lookup<'a>(reply: &'a verify_reply, field: &str) -> Result<&'a Value, Error> {
    reply
        .reply
        .field(field)
        .ok_or_else(|| no_such_field(field, "is absent from the reply's data"))
}

/// The reply's code: 200 success, 201 pending, or the server's error code.
/// Returns `VERIFY_ERR_INVALID_ARGUMENT` when `reply` is NULL.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "C" fn verify_reply_code(reply: *const verify_reply) -> i32 {
    guard(local::PANIC, || {
        // SAFETY: NULL or a live reply of this library (the caller's contract).
        match unsafe { borrow(reply) } {
            Ok(reply) => reply.reply.code(),
            Err(error) => record(&error),
        }
    })
}

/// The reply's `message` (localized; may be empty). Borrowed: valid until `reply` is freed;
/// the caller must not free it. NULL (with a last error) when `reply` is NULL.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "C" fn verify_reply_message(reply: *const verify_reply) -> *const c_char {
    guard(ptr::null(), || {
        // SAFETY: NULL or a live reply of this library (the caller's contract).
        match unsafe { borrow(reply) } {
            Ok(reply) => reply.message.as_ptr(),
            Err(error) => {
                record(&error);
                ptr::null()
            }
        }
    })
}

/// Whether the field `field` of `data` is present and not null: 1 yes, 0 no. Unlike the
/// other accessors it does not set the last error when the field is absent, so a host can
/// probe an optional field (`remark`) without losing the message of the call that failed.
/// Returns `VERIFY_ERR_INVALID_ARGUMENT` (and sets the last error) when `reply` or `field`
/// is NULL, `VERIFY_ERR_INVALID_UTF8` when `field` is not UTF-8.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "C" fn verify_reply_has(reply: *const verify_reply, field: *const c_char) -> i32 {
    guard(local::PANIC, || {
        // SAFETY: the caller's contract: NULL or live reply, NULL or NUL-terminated field.
        match unsafe { borrow(reply).and_then(|r| Ok((r, required_str(field, "field")?))) } {
            Ok((reply, field)) => i32::from(
                reply
                    .reply
                    .field(field)
                    .is_some_and(|value| !value.is_null()),
            ),
            Err(error) => record(&error),
        }
    })
}

/// The field `field` of the reply's `data` as text: a string as it is, a number or boolean
/// in JSON notation. `field` is a name (`"token"`, `"remark"`) or a dotted path into nested
/// objects (`"variables.name"`) and arrays by index (`"messages.0"`).
///
/// Borrowed: valid until `reply` is freed; the caller must not free it. Returns NULL, with
/// `VERIFY_ERR_NO_SUCH_FIELD` as last error, when the field is absent, null, an object or an
/// array; NULL with `VERIFY_ERR_INVALID_ARGUMENT` when `reply` or `field` is NULL.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "C" fn verify_reply_str(
    reply: *const verify_reply,
    field: *const c_char,
) -> *const c_char {
    guard(ptr::null(), || {
        // SAFETY: the caller's contract: NULL or live reply, NULL or NUL-terminated field.
        let args = unsafe { borrow(reply).and_then(|r| Ok((r, required_str(field, "field")?))) };
        let (reply, field) = match args {
            Ok(args) => args,
            Err(error) => {
                record(&error);
                return ptr::null();
            }
        };
        reply.text(field, || match lookup(reply, field)? {
            Value::String(text) => Ok(text.clone()),
            value @ (Value::Number(_) | Value::Bool(_)) => Ok(value.to_string()),
            _ => Err(no_such_field(field, "is not a string, number or boolean")),
        })
    })
}

/// The field `field` of `data` as an integer, or `fallback` when it is absent or not an
/// integer (then the last error is `VERIFY_ERR_NO_SUCH_FIELD`; `VERIFY_ERR_INVALID_ARGUMENT`
/// when `reply` or `field` is NULL). Field names as for `verify_reply_str`.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "C" fn verify_reply_int(
    reply: *const verify_reply,
    field: *const c_char,
    fallback: i64,
) -> i64 {
    guard(fallback, || {
        // SAFETY: the caller's contract: NULL or live reply, NULL or NUL-terminated field.
        let value = unsafe { borrow(reply).and_then(|r| lookup(r, required_str(field, "field")?)) };
        match value.map(|v| (v.as_i64(), v)) {
            Ok((Some(number), _)) => number,
            Ok((None, _)) => {
                set_last_error(local::NO_SUCH_FIELD, "field is not an integer");
                fallback
            }
            Err(error) => {
                record(&error);
                fallback
            }
        }
    })
}

/// The field `field` of `data` as a boolean: 1 for true, 0 for false, or `fallback` when it
/// is absent or not a boolean (last error as for `verify_reply_int`).
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "C" fn verify_reply_bool(
    reply: *const verify_reply,
    field: *const c_char,
    fallback: i32,
) -> i32 {
    guard(fallback, || {
        // SAFETY: the caller's contract: NULL or live reply, NULL or NUL-terminated field.
        let value = unsafe { borrow(reply).and_then(|r| lookup(r, required_str(field, "field")?)) };
        match value.map(Value::as_bool) {
            Ok(Some(flag)) => i32::from(flag),
            Ok(None) => {
                set_last_error(local::NO_SUCH_FIELD, "field is not a boolean");
                fallback
            }
            Err(error) => {
                record(&error);
                fallback
            }
        }
    })
}

/// The whole reply as JSON text (`{"code":..,"message":..,"data":..}`, unknown fields
/// included). Borrowed: valid until `reply` is freed; the caller must not free it. NULL
/// when `reply` is NULL. Thread-safety: any thread, concurrently with other reads.
#[no_mangle]
pub extern "C" fn verify_reply_json(reply: *const verify_reply) -> *const c_char {
    guard(ptr::null(), || {
        // SAFETY: NULL or a live reply of this library (the caller's contract).
        match unsafe { borrow(reply) } {
            // A key no field path can have: `.` separates path segments, NUL is refused.
            Ok(reply) => reply.text("\0json", || Ok(reply.reply.json().to_string())),
            Err(error) => {
                record(&error);
                ptr::null()
            }
        }
    })
}

/// Frees a reply and every string borrowed from it. `verify_reply_free(NULL)` does nothing.
/// Thread-safety: no other thread may use `reply` during or after this call.
#[no_mangle]
pub extern "C" fn verify_reply_free(reply: *mut verify_reply) {
    guard((), || {
        if !reply.is_null() {
            // SAFETY: a pointer from `give` (Box::into_raw), freed once (caller's contract).
            drop(unsafe { Box::from_raw(reply) });
        }
    })
}
