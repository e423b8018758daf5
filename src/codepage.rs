//! Strings in the host's code page: hosts that cannot send UTF-8 (VB6, 易语言, Delphi
//! programs on Chinese Windows pass GBK) set their code page once per process, and every
//! string in and out of the library is converted. UTF-8 stays the default.

use std::borrow::Cow;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{PoisonError, RwLock};

use encoding_rs::{EncoderResult, Encoding, UTF_8};
use verify_core::{Error, ErrorKind};

/// `verify_set_code_page`: UTF-8, the default.
pub const VERIFY_CODE_PAGE_UTF8: i32 = 65001;
/// `verify_set_code_page`: the system's ANSI code page (`GetACP()` on Windows; UTF-8 on
/// other systems).
pub const VERIFY_CODE_PAGE_SYSTEM: i32 = 0;

/// Whether strings are UTF-8 (the fast path: no conversion at all).
static IS_UTF8: AtomicBool = AtomicBool::new(true);
/// The encoding when it is not UTF-8.
static ENCODING: RwLock<&'static Encoding> = RwLock::new(UTF_8);

fn current() -> Option<&'static Encoding> {
    if IS_UTF8.load(Ordering::Acquire) {
        None
    } else {
        Some(*ENCODING.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The encoding of a Windows code page number, `VERIFY_CODE_PAGE_SYSTEM` resolved.
fn encoding_of(code_page: i32) -> Option<&'static Encoding> {
    let number = if code_page == VERIFY_CODE_PAGE_SYSTEM {
        system_code_page()?
    } else {
        u16::try_from(code_page).ok()?
    };
    codepage::to_encoding(number)
}

#[cfg(windows)]
fn system_code_page() -> Option<u16> {
    // SAFETY: GetACP takes no arguments and only reads the system setting.
    let acp = unsafe { windows_sys::Win32::Globalization::GetACP() };
    u16::try_from(acp).ok()
}

#[cfg(not(windows))]
fn system_code_page() -> Option<u16> {
    Some(65001)
}

/// Sets the encoding of every string in and out (see `verify_set_code_page` in meta.rs):
/// an error naming the code page when it is not one the library can convert.
pub(crate) fn set(code_page: i32) -> Result<(), Error> {
    let encoding = encoding_of(code_page).ok_or_else(|| {
        Error::local(
            ErrorKind::InvalidArgument,
            format!("code page {code_page} is not one the library can convert"),
        )
    })?;
    *ENCODING.write().unwrap_or_else(PoisonError::into_inner) = encoding;
    IS_UTF8.store(encoding == UTF_8, Ordering::Release);
    Ok(())
}

/// The code page in use (65001 for UTF-8).
pub(crate) fn get() -> i32 {
    match current() {
        None => VERIFY_CODE_PAGE_UTF8,
        Some(encoding) => {
            codepage::from_encoding(encoding).map_or(VERIFY_CODE_PAGE_UTF8, i32::from)
        }
    }
}

/// A string argument's bytes as text, decoded from the host's code page.
pub(crate) fn decode<'a>(bytes: &'a [u8], name: &str) -> Result<Cow<'a, str>, Error> {
    match current() {
        None => std::str::from_utf8(bytes)
            .map(Cow::Borrowed)
            .map_err(|err| {
                Error::local(
                    ErrorKind::InvalidUtf8,
                    format!("{name} is not valid UTF-8 ({err})"),
                )
            }),
        Some(encoding) => encoding
            .decode_without_bom_handling_and_without_replacement(bytes)
            .ok_or_else(|| {
                Error::local(
                    ErrorKind::InvalidUtf8,
                    format!(
                        "{name} is not valid in the code page set ({})",
                        encoding.name()
                    ),
                )
            }),
    }
}

/// Text for the host, encoded to its code page, NUL characters replaced by spaces.
pub(crate) fn encode(text: &str) -> CString {
    let bytes = match current() {
        None => text.as_bytes().to_vec(),
        Some(encoding) => encode_with(encoding, text),
    };
    let bytes: Vec<u8> = bytes
        .into_iter()
        .map(|b| if b == 0 { b' ' } else { b })
        .collect();
    CString::new(bytes).unwrap_or_default()
}

/// `text` in `encoding`, with `?` for each character it cannot hold.
fn encode_with(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut rest = text;
    loop {
        let room = encoder
            .max_buffer_length_from_utf8_without_replacement(rest.len())
            .unwrap_or(rest.len() * 4 + 16);
        let start = out.len();
        out.resize(start + room, 0);
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(rest, &mut out[start..], true);
        out.truncate(start + written);
        rest = &rest[read..];
        match result {
            EncoderResult::InputEmpty => return out,
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(_) => out.push(b'?'),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gbk_round_trip_and_unmappable_characters() {
        let gbk = encoding_of(936).expect("936 is GBK");
        let bytes = encode_with(gbk, "张三 OK");
        assert_eq!(bytes, [0xD5, 0xC5, 0xC8, 0xFD, b' ', b'O', b'K']);
        let (text, _, bad) = gbk.decode(&bytes);
        assert!(!bad);
        assert_eq!(text, "张三 OK");
        assert_eq!(encode_with(gbk, "a😀b"), b"a?b");
        assert!(encoding_of(12345).is_none());
        assert_eq!(encoding_of(VERIFY_CODE_PAGE_UTF8), Some(UTF_8));
    }
}
