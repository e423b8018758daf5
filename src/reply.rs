//! `verify_reply`: the server's answer, readable field by field without a JSON library.
//!
//! Accessors take a JSON Pointer (RFC 6901) into the whole reply: `/code`, `/message`,
//! `/data/token`, `/data/variables/a.b` (a key may hold `.`), `/data/list/0`; in a key `~1`
//! stands for `/` and `~0` for `~`. They write through an out-pointer and return 0, or
//! `VERIFY_ERR_NO_SUCH_FIELD` when the value is absent or of another type, without touching
//! the last error (so reading an optional field never hides why a call failed).

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::ptr;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use verify_core::actions::time;
use verify_core::error::quoted;
use verify_core::{codes, Error, ErrorKind, Reply};

use crate::guard::{
    free_handle, give_handle, guard, guard_code, optional_str, record, required_str, write_out,
};
use crate::meta::write_time;

/// An answer of the server (any code). Opaque; created by the calls, freed with
/// `verify_reply_free`. Strings read from it stay valid until it is freed.
#[allow(non_camel_case_types)]
pub struct verify_reply {
    reply: Reply,
    message: CString,
    /// Strings handed out by the accessors, by pointer, kept until the reply is freed.
    texts: Mutex<HashMap<String, CString>>,
}

impl verify_reply {
    pub(crate) fn new(reply: Reply) -> verify_reply {
        let message = crate::codepage::encode(reply.message());
        verify_reply {
            reply,
            message,
            texts: Mutex::new(HashMap::new()),
        }
    }

    /// A C string for `key`, made once by `make` and kept until the reply is freed.
    fn text(&self, key: &str, make: impl FnOnce() -> Option<String>) -> Option<*const c_char> {
        let mut texts = self.texts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(text) = texts.get(key) {
            return Some(text.as_ptr());
        }
        let text = crate::codepage::encode(&make()?);
        let pointer = text.as_ptr();
        texts.insert(key.to_owned(), text);
        Some(pointer)
    }
}

/// Hands a reply to the caller through `out` (when the server answered).
///
/// # Safety
/// `out` was checked non-NULL by `clear_out` and is writable.
pub(crate) unsafe fn give(out: *mut *mut verify_reply, reply: Reply) {
    // SAFETY: as documented above.
    unsafe { give_handle(out, verify_reply::new(reply)) };
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

/// Borrows the core reply of a reply argument (for the keeper), or fails with an
/// invalid-argument error.
///
/// # Safety
/// `reply` is NULL or a live pointer from this library.
pub(crate) unsafe fn borrow_reply<'a>(reply: *const verify_reply) -> Result<&'a Reply, Error> {
    // SAFETY: forwarded from the caller.
    unsafe { borrow(reply) }.map(|reply| &reply.reply)
}

/// Looks up `pointer` and converts the value with `read`; `VERIFY_ERR_NO_SUCH_FIELD` (not
/// recorded as the last error) when absent or of another type.
///
/// # Safety
/// `reply` and `pointer` as documented on the accessors; `out` NULL or writable.
/// The reply and the pointer of an accessor's arguments, checked: the reply and the pointer
/// not NULL, `out` not NULL (`out_is_null`), the pointer empty or starting with `/`, every `~`
/// followed by `0` or `1`. One function for every accessor, so that its checks and messages
/// exist once in the library.
///
/// # Safety
/// `reply` NULL or a live reply of this library; `pointer` NULL or NUL-terminated.
#[inline(never)]
unsafe fn target<'a>(
    reply: *const verify_reply,
    pointer: *const c_char,
    out_is_null: bool,
) -> Result<(&'a verify_reply, Cow<'a, str>), Error> {
    // SAFETY: the caller's contract.
    let (reply, pointer) = unsafe { (borrow(reply)?, required_str(pointer, "pointer")?) };
    if out_is_null {
        return Err(Error::local(ErrorKind::InvalidArgument, "out is NULL"));
    }
    if !(pointer.is_empty() || pointer.starts_with('/')) {
        return Err(Error::local(
            ErrorKind::InvalidArgument,
            format!(
                "pointer {} is not a JSON Pointer: write {} (paths start at the reply's top \
                 level)",
                quoted(&pointer),
                quoted(&format!("/data/{pointer}"))
            ),
        ));
    }
    if pointer
        .split('~')
        .skip(1)
        .any(|after| !after.starts_with(['0', '1']))
    {
        return Err(Error::local(
            ErrorKind::InvalidArgument,
            format!(
                "pointer {} is not a JSON Pointer: a ~ must be followed by 0 (for ~) or 1 \
                 (for /)",
                quoted(&pointer)
            ),
        ));
    }
    Ok((reply, pointer))
}

unsafe fn access<T>(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut T,
    read: impl FnOnce(&verify_reply, &str, &Value) -> Option<T>,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let (reply, pointer) = unsafe { target(reply, pointer, out.is_null())? };
        match reply
            .reply
            .pointer(&pointer)
            .and_then(|value| read(reply, &pointer, value))
        {
            Some(value) => {
                // SAFETY: checked non-NULL; the caller's contract makes it writable.
                unsafe { write_out(out, "out", value)? };
                Ok(0)
            }
            None => Ok(codes::ERR_NO_SUCH_FIELD),
        }
    })
}

/// The reply's code: 200 success, 201 pending, or the server's error code.
/// Returns `VERIFY_ERR_INVALID_ARGUMENT` when `reply` is NULL.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "system" fn verify_reply_code(reply: *const verify_reply) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or a live reply of this library (the caller's contract).
        Ok(unsafe { borrow(reply)? }.reply.code())
    })
}

/// The reply's `message` (localized; may be empty).
/// Ownership: borrowed, valid until `reply` is freed; the caller must not free it. NULL
/// (with a last error) when `reply` is NULL.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "system" fn verify_reply_message(reply: *const verify_reply) -> *const c_char {
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

/// The value at the JSON Pointer `pointer` (e.g. `"/data/token"`) as text: a string as it
/// is, a number or boolean in JSON notation. Writes `*out` and returns 0; returns
/// `VERIFY_ERR_NO_SUCH_FIELD` (`*out` untouched, last error untouched) when the value is
/// absent, null, an object, an array, or a string with a NUL character.
/// Ownership: `*out` is borrowed, valid until `reply` is freed; the caller must not free it.
/// `VERIFY_ERR_INVALID_ARGUMENT` when `reply`, `pointer` or `out` is NULL or `pointer` does
/// not start with `/` (nor is empty). Thread-safety: any thread, concurrently with other
/// reads of the same reply.
#[no_mangle]
pub extern "system" fn verify_reply_str(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        access(reply, pointer, out, |reply, pointer, value| {
            reply.text(pointer, || match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
                _ => None,
            })
        })
    }
}

/// The value at `pointer` as a time of the service (`"YYYY-MM-DD HH:mm:ss"` in UTC+08:00, the
/// action table's time fields such as `/data/expire_at`), read by the library so that no
/// host parses the service's format: its Unix seconds into `*unix_seconds` and the offset it
/// was written in, in seconds east of UTC (28800), into `*utc_offset` (which may be NULL).
/// Returns 0, or `VERIFY_ERR_NO_SUCH_FIELD` (outs untouched, last error untouched) when the
/// value is absent, not a string, or not such a time (`verify_reply_str` still gives the
/// text). Arguments otherwise as for `verify_reply_str`, `unix_seconds` being its `out`.
/// Thread-safety: as `verify_reply_str`. Added in ABI 2's 0.2 series.
/// cbindgen:optional=[utc_offset]
#[no_mangle]
pub extern "system" fn verify_reply_time(
    reply: *const verify_reply,
    pointer: *const c_char,
    unix_seconds: *mut i64,
    utc_offset: *mut i32,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let (reply, pointer) = unsafe { target(reply, pointer, unix_seconds.is_null())? };
        let found = reply
            .reply
            .pointer(&pointer)
            .and_then(Value::as_str)
            .and_then(time::parse);
        // SAFETY: `unix_seconds` checked non-NULL; `utc_offset` as documented.
        unsafe { write_time(found, unix_seconds, utc_offset) }
    })
}

/// The value at `pointer` as a 64-bit integer: writes `*out` and returns 0, or
/// `VERIFY_ERR_NO_SUCH_FIELD` when it is absent or not an integer in range (strings are not
/// parsed). Arguments as for `verify_reply_str`. Thread-safety: as `verify_reply_str`.
#[no_mangle]
pub extern "system" fn verify_reply_int(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { access(reply, pointer, out, |_, _, value| value.as_i64()) }
}

/// The value at `pointer` as a boolean: writes 1 (true) or 0 (false) to `*out` and returns
/// 0, or `VERIFY_ERR_NO_SUCH_FIELD` when it is absent or not a boolean. Arguments as for
/// `verify_reply_str`. Thread-safety: as `verify_reply_str`.
#[no_mangle]
pub extern "system" fn verify_reply_bool(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        access(reply, pointer, out, |_, _, value| {
            value.as_bool().map(i32::from)
        })
    }
}

/// The value at `pointer` as JSON text (any type: an object lists its keys, an array its
/// items); `pointer` NULL or `""` is the whole reply (`{"code":..,"message":..,"data":..}`,
/// unknown fields included). Writes `*out` and returns 0, or `VERIFY_ERR_NO_SUCH_FIELD`.
/// Ownership: `*out` is borrowed, valid until `reply` is freed. Thread-safety: as
/// `verify_reply_str`.
/// cbindgen:optional=[pointer]
#[no_mangle]
pub extern "system" fn verify_reply_json(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut *const c_char,
) -> i32 {
    guard(codes::ERR_PANIC, || {
        // SAFETY: the caller's contract: `pointer` NULL or NUL-terminated.
        let pointer = match unsafe { optional_str(pointer, "pointer") } {
            Ok(None) => c"".as_ptr(),
            Ok(Some(_)) => pointer,
            Err(error) => return record(&error),
        };
        // SAFETY: the caller's contract on every pointer.
        unsafe {
            access(reply, pointer, out, |reply, pointer, value| {
                // A key no accessor of strings can have: pointers start with `/` or are empty.
                reply.text(&format!("\0json{pointer}"), || Some(value.to_string()))
            })
        }
    })
}

/// How many members the object at `pointer` has (`"/data/variables"`; `""` is the whole
/// reply): writes `*out` and returns 0, or `VERIFY_ERR_NO_SUCH_FIELD` (`*out` and the last
/// error untouched) when the value is absent or not an object. Read their names with
/// `verify_reply_member_name`. `VERIFY_ERR_INVALID_ARGUMENT` when `reply`, `pointer` or
/// `out` is NULL or `pointer` does not start with `/` (nor is empty).
/// Thread-safety: any thread, concurrently with other reads of the same reply.
#[no_mangle]
pub extern "system" fn verify_reply_member_count(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { length(reply, pointer, out, true) }
}

/// The name of member number `index` (from 0, in the order of their UTF-8 bytes) of the
/// object at `pointer`: writes `*out` and returns 0, or `VERIFY_ERR_NO_SUCH_FIELD` (`*out`
/// and the last error untouched) when the value is absent or not an object, when `index` is
/// past its last member, or when the name holds a NUL character. Its value is at the
/// pointer followed by `/` and the name, in which `~` is written `~0` and `/` `~1`.
/// Ownership: `*out` is borrowed, valid until `reply` is freed; the caller must not free it;
/// in the code page of `verify_set_code_page`, as every string of a reply.
/// `VERIFY_ERR_INVALID_ARGUMENT` when `reply`, `pointer` or `out` is NULL or `pointer` does
/// not start with `/` (nor is empty). Thread-safety: any thread, concurrently with other
/// reads of the same reply.
#[no_mangle]
pub extern "system" fn verify_reply_member_name(
    reply: *const verify_reply,
    pointer: *const c_char,
    index: usize,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        access(reply, pointer, out, |reply, pointer, value| {
            let name = value.as_object()?.keys().nth(index)?;
            if name.contains('\0') {
                return None;
            }
            // A key no other accessor uses: pointers start with `/` or are empty.
            reply.text(&format!("\0member\0{index}\0{pointer}"), || {
                Some(name.clone())
            })
        })
    }
}

/// How many items the array at `pointer` holds (`"/data/list"`): writes `*out` and returns
/// 0, or `VERIFY_ERR_NO_SUCH_FIELD` (`*out` and the last error untouched) when the value is
/// absent or not an array. Item `i` is at `pointer` + `/i`. Arguments as for
/// `verify_reply_member_count`. Thread-safety: any thread, concurrently with other reads of
/// the same reply.
#[no_mangle]
pub extern "system" fn verify_reply_array_length(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { length(reply, pointer, out, false) }
}

/// The member count of an object (`object`) or the length of an array at `pointer`: one
/// instance of `access` for both accessors.
///
/// # Safety
/// As documented on `access`.
unsafe fn length(
    reply: *const verify_reply,
    pointer: *const c_char,
    out: *mut usize,
    object: bool,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe {
        access(reply, pointer, out, |_, _, value| match value {
            Value::Object(members) if object => Some(members.len()),
            Value::Array(items) if !object => Some(items.len()),
            _ => None,
        })
    }
}

/// Whether `reply` is an offline verdict (code `VERIFY_OFFLINE`: the server could not be
/// reached and the stored verdict answered), and what it knows besides its fields: when the
/// server last confirmed the licence (`*confirmed_at`, Unix seconds), when the offline
/// grace ends (`*grace_end`) and the local failure that kept the server out of reach
/// (`*reason`, a negative code; its words are in `verify_reply_message`). Each out-pointer
/// may be NULL. Returns 0 for an offline verdict, `VERIFY_ERR_NO_SUCH_FIELD` for the
/// server's own reply (outs untouched), `VERIFY_ERR_INVALID_ARGUMENT` when `reply` is NULL.
/// An offline verdict's fields (`/data/expire_at`, `/data/card_type`, ...) are those of the
/// server's last confirmed login, without the token.
/// Thread-safety: any thread, concurrently with other reads of the same reply.
/// cbindgen:optional=[confirmed_at, grace_end, reason]
#[no_mangle]
pub extern "system" fn verify_reply_offline(
    reply: *const verify_reply,
    confirmed_at: *mut i64,
    grace_end: *mut i64,
    reason: *mut i32,
) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or a live reply of this library (the caller's contract).
        let reply = unsafe { borrow(reply)? };
        let Some(offline) = reply.reply.offline() else {
            return Ok(codes::ERR_NO_SUCH_FIELD);
        };
        let seconds = |time: std::time::SystemTime| {
            time.duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| {
                    i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
                })
        };
        // SAFETY: each pointer NULL or writable (the caller's contract).
        unsafe {
            if !confirmed_at.is_null() {
                write_out(confirmed_at, "confirmed_at", seconds(offline.confirmed_at))?;
            }
            if !grace_end.is_null() {
                write_out(grace_end, "grace_end", seconds(offline.grace_end))?;
            }
            if !reason.is_null() {
                write_out(reason, "reason", offline.reason_code)?;
            }
        }
        Ok(0)
    })
}

/// Frees a reply and every string borrowed from it. `verify_reply_free(NULL)` does nothing.
/// Ownership: takes `reply`; it must not be used afterwards.
/// Thread-safety: no other thread may use `reply` during or after this call.
#[no_mangle]
pub extern "system" fn verify_reply_free(reply: *mut verify_reply) {
    // SAFETY: NULL or a pointer from `give`, freed once (caller's contract).
    guard((), || unsafe { free_handle(reply) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn reply(body: &str) -> *mut verify_reply {
        let reply = Reply::from_body(body.as_bytes()).expect("a reply");
        Box::into_raw(Box::new(verify_reply::new(reply)))
    }

    fn text(pointer: *const c_char) -> String {
        // SAFETY: a NUL-terminated string borrowed from a live reply.
        unsafe { CStr::from_ptr(pointer) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn member_names_and_array_lengths_are_listed() {
        let reply = reply(
            r#"{"code":200,"message":"ok","data":{"variables":{"b":"2","a.x":"1","c/d":"3"},
                "list":[1,2,3,4],"empty":{},"none":[],"text":"t"}}"#,
        );
        let mut count = 99usize;
        assert_eq!(
            verify_reply_member_count(reply, c"/data/variables".as_ptr(), &mut count),
            0
        );
        assert_eq!(count, 3);
        let mut names = Vec::new();
        for index in 0..count {
            let mut name: *const c_char = ptr::null();
            assert_eq!(
                verify_reply_member_name(reply, c"/data/variables".as_ptr(), index, &mut name),
                0
            );
            names.push(text(name));
            // The same borrowed string again, valid until the reply is freed.
            let mut again: *const c_char = ptr::null();
            verify_reply_member_name(reply, c"/data/variables".as_ptr(), index, &mut again);
            assert_eq!(name, again);
        }
        assert_eq!(names, ["a.x", "b", "c/d"]);
        // The whole reply is an object too.
        assert_eq!(
            verify_reply_member_count(reply, c"".as_ptr(), &mut count),
            0
        );
        assert_eq!(count, 3);
        assert_eq!(
            verify_reply_member_count(reply, c"/data/empty".as_ptr(), &mut count),
            0
        );
        assert_eq!(count, 0);
        let mut length = 99usize;
        assert_eq!(
            verify_reply_array_length(reply, c"/data/list".as_ptr(), &mut length),
            0
        );
        assert_eq!(length, 4);
        assert_eq!(
            verify_reply_array_length(reply, c"/data/none".as_ptr(), &mut length),
            0
        );
        assert_eq!(length, 0);

        // Absent, of another type, or past the last: no such field, outs untouched.
        count = 7;
        length = 7;
        let untouched = c"untouched".as_ptr();
        let mut name = untouched;
        for pointer in [c"/data/list", c"/data/text", c"/data/nope", c"/code"] {
            assert_eq!(
                verify_reply_member_count(reply, pointer.as_ptr(), &mut count),
                codes::ERR_NO_SUCH_FIELD
            );
            assert_eq!(
                verify_reply_member_name(reply, pointer.as_ptr(), 0, &mut name),
                codes::ERR_NO_SUCH_FIELD
            );
        }
        assert_eq!(
            verify_reply_member_name(reply, c"/data/variables".as_ptr(), 3, &mut name),
            codes::ERR_NO_SUCH_FIELD
        );
        assert_eq!(
            verify_reply_member_name(reply, c"/data/variables".as_ptr(), usize::MAX, &mut name),
            codes::ERR_NO_SUCH_FIELD
        );
        for pointer in [c"/data/variables", c"/data/text", c"/data/nope", c""] {
            assert_eq!(
                verify_reply_array_length(reply, pointer.as_ptr(), &mut length),
                codes::ERR_NO_SUCH_FIELD
            );
        }
        assert_eq!((count, length, name), (7, 7, untouched));

        // NULL arguments and a pointer without its `/`: invalid arguments.
        let invalid = codes::ERR_INVALID_ARGUMENT;
        let data = c"/data".as_ptr();
        assert_eq!(
            verify_reply_member_count(ptr::null(), data, &mut count),
            invalid
        );
        assert_eq!(
            verify_reply_member_count(reply, ptr::null(), &mut count),
            invalid
        );
        assert_eq!(
            verify_reply_member_count(reply, data, ptr::null_mut()),
            invalid
        );
        assert_eq!(
            verify_reply_member_count(reply, c"data".as_ptr(), &mut count),
            invalid
        );
        assert_eq!(
            verify_reply_member_name(ptr::null(), data, 0, &mut name),
            invalid
        );
        assert_eq!(
            verify_reply_member_name(reply, ptr::null(), 0, &mut name),
            invalid
        );
        assert_eq!(
            verify_reply_member_name(reply, data, 0, ptr::null_mut()),
            invalid
        );
        assert_eq!(
            verify_reply_member_name(reply, c"data".as_ptr(), 0, &mut name),
            invalid
        );
        assert_eq!(
            verify_reply_array_length(ptr::null(), data, &mut length),
            invalid
        );
        assert_eq!(
            verify_reply_array_length(reply, ptr::null(), &mut length),
            invalid
        );
        assert_eq!(
            verify_reply_array_length(reply, data, ptr::null_mut()),
            invalid
        );
        assert_eq!(
            verify_reply_array_length(reply, c"data".as_ptr(), &mut length),
            invalid
        );
        assert_eq!((count, length, name), (7, 7, untouched));
        verify_reply_free(reply);
    }

    #[test]
    fn a_member_name_with_a_nul_is_not_handed_out() {
        let reply = reply(r#"{"code":200,"data":{"a\u0000b":1}}"#);
        let mut count = 0usize;
        assert_eq!(
            verify_reply_member_count(reply, c"/data".as_ptr(), &mut count),
            0
        );
        assert_eq!(count, 1);
        let mut name: *const c_char = ptr::null();
        assert_eq!(
            verify_reply_member_name(reply, c"/data".as_ptr(), 0, &mut name),
            codes::ERR_NO_SUCH_FIELD
        );
        assert!(name.is_null());
        verify_reply_free(reply);
    }
}
