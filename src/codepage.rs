//! Strings in the host's code page: hosts that cannot send UTF-8 (VB6, 易语言, Delphi
//! programs on Chinese Windows pass GBK) set their code page once per process, and every
//! string in and out of the library is converted. UTF-8 stays the default.
//!
//! The conversion tables (encoding_rs, about 170 KB) are built in on Windows, where such
//! hosts live, and elsewhere only with the cargo feature `code-pages`. Without them the C API
//! is the same: `verify_set_code_page` accepts UTF-8 (65001, and `VERIFY_CODE_PAGE_SYSTEM`,
//! which is UTF-8 outside Windows) and refuses every other code page with a message saying so.

use std::borrow::Cow;
use std::ffi::CString;

use verify_core::{Error, ErrorKind};

/// `verify_set_code_page`: UTF-8, the default.
pub const VERIFY_CODE_PAGE_UTF8: i32 = 65001;
/// `verify_set_code_page`: the system's ANSI code page (`GetACP()` on Windows; UTF-8 on
/// other systems).
pub const VERIFY_CODE_PAGE_SYSTEM: i32 = 0;

/// Sets the encoding of every string in and out (see `verify_set_code_page` in meta.rs):
/// an error naming the code page when it is not one the library can convert.
pub(crate) fn set(code_page: i32) -> Result<(), Error> {
    pages::set(code_page)
}

/// The code page in use (65001 for UTF-8).
pub(crate) fn get() -> i32 {
    pages::get()
}

/// Whether `code_page` (a number `get` gives) holds every character of `text`: encoded to
/// it, nothing becomes `?`. UTF-8 (and a number the tables do not know) holds everything;
/// without the tables every string is UTF-8.
#[cfg(any(windows, feature = "code-pages"))]
pub(crate) fn holds(code_page: i32, text: &str) -> bool {
    pages::encoding_of(code_page).is_none_or(|encoding| pages::holds(encoding, text))
}

/// A string argument's bytes as text, decoded from the host's code page.
pub(crate) fn decode<'a>(bytes: &'a [u8], name: &str) -> Result<Cow<'a, str>, Error> {
    #[cfg(any(windows, feature = "code-pages"))]
    if let Some(encoding) = pages::current() {
        return pages::decode(encoding, bytes, name);
    }
    std::str::from_utf8(bytes)
        .map(Cow::Borrowed)
        .map_err(|err| {
            Error::local(
                ErrorKind::InvalidUtf8,
                format!("{name} is not valid UTF-8 ({err})"),
            )
        })
}

/// Text for the host, encoded to its code page, NUL characters replaced by spaces.
pub(crate) fn encode(text: &str) -> CString {
    #[cfg(any(windows, feature = "code-pages"))]
    let bytes = match pages::current() {
        None => text.as_bytes().to_vec(),
        Some(encoding) => pages::encode_with(encoding, text),
    };
    #[cfg(not(any(windows, feature = "code-pages")))]
    let bytes = text.as_bytes().to_vec();
    let bytes: Vec<u8> = bytes
        .into_iter()
        .map(|b| if b == 0 { b' ' } else { b })
        .collect();
    CString::new(bytes).unwrap_or_default()
}

/// UTF-8 only: no conversion tables in this build.
#[cfg(not(any(windows, feature = "code-pages")))]
mod pages {
    use super::{VERIFY_CODE_PAGE_SYSTEM, VERIFY_CODE_PAGE_UTF8};
    use verify_core::{Error, ErrorKind};

    pub(super) fn set(code_page: i32) -> Result<(), Error> {
        if code_page == VERIFY_CODE_PAGE_UTF8 || code_page == VERIFY_CODE_PAGE_SYSTEM {
            return Ok(());
        }
        Err(Error::local(
            ErrorKind::InvalidArgument,
            format!(
                "code page {code_page} is not available: this build of the library converts \
                 no code pages and takes and gives UTF-8 (65001) only; code pages are built \
                 in on Windows, and elsewhere with the cargo feature `code-pages`"
            ),
        ))
    }

    pub(super) fn get() -> i32 {
        VERIFY_CODE_PAGE_UTF8
    }
}

/// The code pages, through encoding_rs.
#[cfg(any(windows, feature = "code-pages"))]
mod pages {
    use std::borrow::Cow;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{PoisonError, RwLock};

    use encoding_rs::{EncoderResult, Encoding, UTF_8};
    use verify_core::{Error, ErrorKind};

    use super::{VERIFY_CODE_PAGE_SYSTEM, VERIFY_CODE_PAGE_UTF8};

    /// Whether strings are UTF-8 (the fast path: no conversion at all).
    static IS_UTF8: AtomicBool = AtomicBool::new(true);
    /// The encoding when it is not UTF-8.
    static ENCODING: RwLock<&'static Encoding> = RwLock::new(UTF_8);

    /// The encoding set, or None for UTF-8.
    pub(super) fn current() -> Option<&'static Encoding> {
        if IS_UTF8.load(Ordering::Acquire) {
            None
        } else {
            Some(*ENCODING.read().unwrap_or_else(PoisonError::into_inner))
        }
    }

    /// The encoding of a Windows code page number, `VERIFY_CODE_PAGE_SYSTEM` resolved.
    pub(super) fn encoding_of(code_page: i32) -> Option<&'static Encoding> {
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

    pub(super) fn set(code_page: i32) -> Result<(), Error> {
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

    pub(super) fn get() -> i32 {
        match current() {
            None => VERIFY_CODE_PAGE_UTF8,
            Some(encoding) => {
                codepage::from_encoding(encoding).map_or(VERIFY_CODE_PAGE_UTF8, i32::from)
            }
        }
    }

    pub(super) fn decode<'a>(
        encoding: &'static Encoding,
        bytes: &'a [u8],
        name: &str,
    ) -> Result<Cow<'a, str>, Error> {
        encoding
            .decode_without_bom_handling_and_without_replacement(bytes)
            .ok_or_else(|| {
                Error::local(
                    ErrorKind::InvalidUtf8,
                    format!(
                        "{name} is not valid in the code page set ({})",
                        encoding.name()
                    ),
                )
            })
    }

    /// Whether `encoding` holds every character of `text`.
    pub(super) fn holds(encoding: &'static Encoding, text: &str) -> bool {
        let (_, _, unmappable) = encoding.encode(text);
        !unmappable
    }

    /// `text` in `encoding`, with `?` for each character it cannot hold.
    pub(super) fn encode_with(encoding: &'static Encoding, text: &str) -> Vec<u8> {
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
            assert!(holds(gbk, "张三 OK") && !holds(gbk, "a😀b"));
            let big5 = encoding_of(950).expect("950 is Big5");
            assert!(holds(big5, "張三") && !holds(big5, "张三"));
            assert!(holds(encoding_of(54936).expect("GB18030"), "张三 張三 😀"));
            assert!(!holds(encoding_of(1252).expect("1252"), "张三"));
            assert!(encoding_of(12345).is_none());
            assert_eq!(encoding_of(VERIFY_CODE_PAGE_UTF8), Some(UTF_8));
        }
    }
}

/// Without the tables (Linux and macOS by default).
#[cfg(all(test, not(any(windows, feature = "code-pages"))))]
mod tests {
    use super::*;

    /// UTF-8 is all there is: 65001 and the system's code page are accepted, every other
    /// page is refused with a message that says why, and nothing changes.
    #[test]
    fn only_utf8_without_the_code_page_tables() {
        assert!(set(VERIFY_CODE_PAGE_UTF8).is_ok());
        assert!(set(VERIFY_CODE_PAGE_SYSTEM).is_ok());
        assert_eq!(get(), VERIFY_CODE_PAGE_UTF8);
        for page in [936, 54936, 950, 1252, 12345, -1, i32::MIN, i32::MAX] {
            let err = set(page).expect_err("a code page other than UTF-8");
            assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{page}");
            let message = err.message();
            assert!(
                message.contains(&format!("code page {page} is not available"))
                    && message.contains("UTF-8 (65001) only")
                    && message.contains("`code-pages`"),
                "{page}: {message}"
            );
            assert_eq!(get(), VERIFY_CODE_PAGE_UTF8, "{page}");
        }
        assert_eq!(decode("名字".as_bytes(), "name").ok(), Some("名字".into()));
        let err = decode(b"\xD5\xC5", "name").expect_err("GBK bytes are not UTF-8");
        assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
        assert_eq!(encode("值\0!").as_bytes(), "值 !".as_bytes());
    }
}
