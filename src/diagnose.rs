//! `verify_diagnose`: the doctor ("why can't my program log in?") in one call, and the
//! accessors of its report (`verify_diagnosis_*`). `client_diagnose.rs` runs it from a
//! client, with its own settings.

use std::ffi::{c_char, CString};
use std::time::Duration;

use verify_core::diagnose::{Report, DEFAULT_DIAGNOSE_DEADLINE};
use verify_core::{codes, diagnose_with, DiagnoseOptions, Error, ErrorKind, Language};

use crate::guard::{clear_out, free_handle, give_handle, guard, guard_code, required_str};
use crate::options::{options_or_default, verify_client_options};

/// The doctor's report. Opaque; made by `verify_diagnose` or `verify_client_diagnose`, read
/// by the `verify_diagnosis_*` accessors (any thread, concurrently: it does not change),
/// freed by `verify_diagnosis_free`. It holds no secret. Its strings are in the code page
/// set with `verify_set_code_page` when the report was made (UTF-8 by default).
#[allow(non_camel_case_types)]
pub struct verify_diagnosis {
    verdict: i32,
    json: CString,
    /// Per language (in the order of `Language::ALL`): the text, the first line, the
    /// support file, each step's sentence.
    languages: Vec<InLanguage>,
    /// Per step: its number, verdict, key and English sentence.
    steps: Vec<(i32, i32, CString, CString)>,
    /// The causes, the first line's first: the step's index and who acts.
    causes: Vec<(usize, i32)>,
}

/// The report's texts in one language.
struct InLanguage {
    text: CString,
    first_line: CString,
    support_file: CString,
    sentences: Vec<CString>,
}

impl verify_diagnosis {
    pub(crate) fn of(report: &Report) -> verify_diagnosis {
        let c_text = crate::codepage::encode;
        verify_diagnosis {
            verdict: report.verdict() as i32,
            json: c_text(&report.to_json().to_string()),
            // Each in a language the code page holds (`verify_code_user_message`).
            languages: Language::ALL
                .iter()
                .map(|&asked| {
                    let language = crate::language::readable(asked);
                    InLanguage {
                        text: c_text(&report.text_in(language)),
                        first_line: c_text(&report.first_line(language)),
                        support_file: c_text(&report.support_file(language)),
                        sentences: report
                            .steps
                            .iter()
                            .map(|step| c_text(&report.sentence(step, language)))
                            .collect(),
                    }
                })
                .collect(),
            steps: report
                .steps
                .iter()
                .map(|s| {
                    (
                        s.kind.number(),
                        s.verdict as i32,
                        c_text(s.key),
                        c_text(&s.message),
                    )
                })
                .collect(),
            causes: report
                .causes
                .iter()
                .filter_map(|&at| report.steps.get(at).map(|s| (at, s.actor() as i32)))
                .collect(),
        }
    }

    /// The texts in `language`.
    fn in_language(&self, language: Language) -> Option<&InLanguage> {
        Language::ALL
            .iter()
            .position(|l| *l == language)
            .and_then(|index| self.languages.get(index))
    }

    /// The text in `language`.
    fn text(&self, language: Language) -> *const c_char {
        self.in_language(language)
            .map_or(c"".as_ptr(), |texts| texts.text.as_ptr())
    }
}

/// A live report, or `VERIFY_ERR_INVALID_ARGUMENT` for NULL.
///
/// # Safety
/// `diagnosis` is NULL or a live report.
unsafe fn live<'a>(diagnosis: *const verify_diagnosis) -> Result<&'a verify_diagnosis, Error> {
    // SAFETY: the caller's contract.
    unsafe { diagnosis.as_ref() }
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "diagnosis is NULL"))
}

/// The language of a `lang` argument: NULL or empty for the process's language.
///
/// # Safety
/// `lang` is NULL or a NUL-terminated string valid during the call.
unsafe fn language_or_current(lang: *const c_char) -> Result<Language, Error> {
    // SAFETY: the caller's contract.
    Ok(unsafe { crate::language::language_arg(lang) }?.unwrap_or_else(crate::language::current))
}

/// The doctor: runs every step a login depends on, with the same `base_url`, `app_id`,
/// `app_key` and `options` (NULL for the defaults) as the program's client, and gives the
/// report in `*out`: the options themselves; per line (the base URL and each mirror) and
/// per address the name lookup, the TCP connect, the proxy and TLS (protocol, the chain's
/// subject, issuer and expiry, the pins, the refusal in words); Init (success, or 1001,
/// 1010, 1011, 1012, 1014 and what it means) and the clock (the server's `Date` against the
/// local clock); the offline store (each stored verdict, its last confirmation, the end of
/// its grace, whether it would answer now and why not); machine code v2's check with the
/// AppId as its salt (outcome and components, never a value).
///
/// It never sends a login, never spends a count card and changes nothing on the server
/// (Init is its only request), writes nothing on this machine but a probe file in the state
/// folder (removed at once), and returns within `deadline_ms` (0: the default, 10,000 ms)
/// whatever the network does; a name lookup still under way then finishes on a thread of its
/// own, bounded by the system resolver's timeouts, as a client's own lookups do.
///
/// The log callback of `options`, if any, hears the Init client's messages during the call,
/// from a thread the doctor runs (not the calling thread); the report keeps them too.
///
/// A token attached to the calling thread (`verify_cancel_attach`) stops it within 50 ms
/// when cancelled from another thread: it then returns `VERIFY_ERR_CANCELLED` and no report.
///
/// Returns 200 when the report is made, whatever its steps say (read
/// `verify_diagnosis_verdict`); `VERIFY_ERR_INVALID_ARGUMENT` for a NULL argument (but
/// `options`) or `VERIFY_ERR_INVALID_UTF8`; `VERIFY_ERR_CANCELLED`; `*out` is NULL then. The report holds no
/// AppKey, api password, card, password or token; host names and addresses are kept.
/// Ownership: the caller frees `*out` with `verify_diagnosis_free`; `options` is only read
/// (it may be freed afterwards). Thread-safety: any thread; it blocks the calling thread.
/// cbindgen:optional=[options]
#[no_mangle]
pub extern "system" fn verify_diagnose(
    base_url: *const c_char,
    app_id: *const c_char,
    app_key: *const c_char,
    options: *const verify_client_options,
    deadline_ms: u32,
    out: *mut *mut verify_diagnosis,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        unsafe { clear_out(out, "out")? };
        // SAFETY: as above.
        let base_url = unsafe { required_str(base_url, "base_url")? };
        // SAFETY: as above.
        let app_id = unsafe { required_str(app_id, "app_id")? };
        // SAFETY: as above.
        let app_key = unsafe { required_str(app_key, "app_key")? };
        // SAFETY: as above: NULL or a live options handle.
        let options = unsafe { options_or_default(options) };
        let settings = DiagnoseOptions {
            deadline: match deadline_ms {
                0 => DEFAULT_DIAGNOSE_DEADLINE,
                ms => Duration::from_millis(u64::from(ms)),
            },
            machine_salt: None,
            cancel: None,
        };
        let report = diagnose_with(&base_url, &app_id, &app_key, &options, &settings);
        // SAFETY: `out` was checked by `clear_out`.
        unsafe { give_report(&report, out) }
    })
}

/// The end of both doctors' exports: a cancelled report is `VERIFY_ERR_CANCELLED` with no
/// handle (the steps it skipped would read as failures); any other report is handed to the
/// caller in `*out`.
///
/// # Safety
/// `out` is a valid, writable out-pointer (checked by `clear_out`).
pub(crate) unsafe fn give_report(
    report: &Report,
    out: *mut *mut verify_diagnosis,
) -> Result<i32, Error> {
    if report.cancelled {
        return Err(Error::local(
            ErrorKind::Cancelled,
            "the doctor was cancelled before it finished",
        ));
    }
    // SAFETY: the caller's contract.
    unsafe { give_handle(out, verify_diagnosis::of(report)) };
    Ok(codes::OK)
}

/// Frees a report. `verify_diagnosis_free(NULL)` does nothing. Ownership: takes
/// `diagnosis`.
#[no_mangle]
pub extern "system" fn verify_diagnosis_free(diagnosis: *mut verify_diagnosis) {
    // SAFETY: NULL or a pointer from `verify_diagnose`, freed once.
    guard((), || unsafe { free_handle(diagnosis) })
}

/// Runs `read` on a live report and writes its value through `out`.
///
/// # Safety
/// `diagnosis` NULL or live; `out` NULL or writable.
unsafe fn read<T>(
    diagnosis: *const verify_diagnosis,
    out: *mut T,
    read: impl FnOnce(&verify_diagnosis) -> T,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let diagnosis = unsafe { diagnosis.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "diagnosis is NULL"))?;
        // SAFETY: the caller's contract.
        unsafe { crate::guard::write_out(out, "out", read(diagnosis))? };
        Ok(0)
    })
}

/// The report's verdict, the worst of its steps (`VERIFY_VERDICT_PASS` when every step
/// passed or was skipped, `_WARN`, `_FAIL`) into `*out`; returns 0 or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_diagnosis_verdict(
    diagnosis: *const verify_diagnosis,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read(diagnosis, out, |d| d.verdict) }
}

/// The report as JSON (schema version 2, docs/doctor.md) into `*out`; returns 0 or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Ownership: borrowed, valid until `diagnosis` is freed.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_diagnosis_json(
    diagnosis: *const verify_diagnosis,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read(diagnosis, out, |d| d.json.as_ptr()) }
}

/// The report as a short text to paste into a chat, into `*out`, in the process's language:
/// the one set with `verify_set_language` when this is called, by default the user's UI
/// language (Simplified Chinese, Traditional Chinese or English), in a language the code page
/// holds as `verify_code_user_message` chooses it. Its first line names the first cause, what
/// to do and who acts (`verify_diagnosis_first_line`), the second sums the run up, then one
/// line a step (the step's verdict and name, `FAIL init`, the line and address, and the
/// step's sentence in that language). `verify_diagnosis_text_in` gives it in a language asked
/// for.
/// Returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`. Ownership: borrowed, valid until `diagnosis`
/// is freed. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_diagnosis_text(
    diagnosis: *const verify_diagnosis,
    out: *mut *const c_char,
) -> i32 {
    let language = crate::language::current();
    // SAFETY: the caller's contract.
    unsafe { read(diagnosis, out, |d| d.text(language)) }
}

/// The report's text (`verify_diagnosis_text`) in `lang` into `*out`: `"zh-CN"`, `"zh-TW"`,
/// `"en"`, or any BCP 47 tag or POSIX locale, mapped as `verify_set_language` maps it; NULL or
/// empty for the process's language; a language the report's code page cannot hold gives way
/// as in `verify_diagnosis_text`. Returns 0, or `VERIFY_ERR_INVALID_ARGUMENT` for a NULL
/// `diagnosis` or `out` or a tag that is not well formed (ASCII letters, digits, `-`, `_`,
/// `.`, `@`, at most 64 bytes), or `VERIFY_ERR_INVALID_UTF8`; `*out` is then left as it was.
/// Ownership: borrowed, valid until `diagnosis` is freed; `lang` is only read.
/// Thread-safety: any thread.
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_diagnosis_text_in(
    diagnosis: *const verify_diagnosis,
    lang: *const c_char,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { lend(diagnosis, lang, out, |texts| &texts.text) }
}

/// The report's first line in `lang` (as `verify_diagnosis_text_in` takes it; NULL or
/// empty for the process's language) into `*out`: the first cause's verdict (`FAIL`,
/// `WARN`), what is wrong and what to do, and who acts (the user, or the software's
/// vendor); for a report without a cause, `PASS` and that the connection is fine (a login
/// that still fails is about the card or the account). Returns 0 or
/// `VERIFY_ERR_INVALID_ARGUMENT` (NULL `diagnosis` or `out`, a malformed tag), or
/// `VERIFY_ERR_INVALID_UTF8`. Ownership: borrowed, valid until `diagnosis` is freed.
/// Thread-safety: any thread.
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_diagnosis_first_line(
    diagnosis: *const verify_diagnosis,
    lang: *const c_char,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { lend(diagnosis, lang, out, |texts| &texts.first_line) }
}

/// Cause number `nth` of the report (0: the one its first line names; causes are the steps
/// that warned or failed and follow from no other, failures first): the index of its step
/// (for `verify_diagnosis_step`) into `*index`, who acts (`VERIFY_ACTOR_USER` or
/// `VERIFY_ACTOR_VENDOR`) into `*actor`, its key into `*key`, and its sentence in `lang`
/// (what is wrong and what to do; NULL or empty `lang`: the process's language) into
/// `*sentence`; each out-pointer may be NULL when not wanted. Returns 0,
/// `VERIFY_ERR_NO_SUCH_FIELD` when there is no cause `nth` (a report that passed has none),
/// `VERIFY_ERR_INVALID_ARGUMENT` or `VERIFY_ERR_INVALID_UTF8`. Ownership: the strings are
/// borrowed, valid until `diagnosis` is freed. Thread-safety: any thread.
/// cbindgen:optional=[lang, index, actor, key, sentence]
#[no_mangle]
pub extern "system" fn verify_diagnosis_cause(
    diagnosis: *const verify_diagnosis,
    nth: usize,
    lang: *const c_char,
    index: *mut usize,
    actor: *mut i32,
    key: *mut *const c_char,
    sentence: *mut *const c_char,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (diagnosis, language) = unsafe { (live(diagnosis)?, language_or_current(lang)?) };
        let Some(&(at, who)) = diagnosis.causes.get(nth) else {
            return Ok(codes::ERR_NO_SUCH_FIELD);
        };
        let step_key = diagnosis
            .steps
            .get(at)
            .map_or(c"".as_ptr(), |s| s.2.as_ptr());
        let words = diagnosis
            .in_language(language)
            .and_then(|texts| texts.sentences.get(at))
            .map_or(c"".as_ptr(), |text| text.as_ptr());
        // SAFETY: each pointer NULL or writable (the caller's contract).
        unsafe {
            write_if(index, at);
            write_if(actor, who);
            write_if(key, step_key);
            write_if(sentence, words);
        }
        Ok(0)
    })
}

/// Step number `index`'s sentence in `lang` (NULL or empty: the process's language) into
/// `*out`: the text form's, with the step's values. Returns 0, `VERIFY_ERR_NO_SUCH_FIELD`
/// when `index` is past the last, `VERIFY_ERR_INVALID_ARGUMENT` or `VERIFY_ERR_INVALID_UTF8`.
/// Ownership: borrowed, valid until `diagnosis` is freed. Thread-safety: any thread.
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_diagnosis_step_text(
    diagnosis: *const verify_diagnosis,
    index: usize,
    lang: *const c_char,
    out: *mut *const c_char,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (diagnosis, language) = unsafe { (live(diagnosis)?, language_or_current(lang)?) };
        if out.is_null() {
            return Err(crate::guard::null_argument("out"));
        }
        let Some(text) = diagnosis
            .in_language(language)
            .and_then(|texts| texts.sentences.get(index))
        else {
            return Ok(codes::ERR_NO_SUCH_FIELD);
        };
        // SAFETY: checked non-NULL; writable by the caller's contract.
        unsafe { out.write(text.as_ptr()) };
        Ok(0)
    })
}

/// The support file's text in `lang` (NULL or empty: the process's language) into `*out`:
/// a line asking to send it to the software's vendor, the text in `lang` (and in English
/// when that is another), and the JSON. Redacted as the report is: no AppKey, api password,
/// card, password or token. Returns 0, `VERIFY_ERR_INVALID_ARGUMENT` or
/// `VERIFY_ERR_INVALID_UTF8`. Ownership: borrowed, valid until `diagnosis` is freed.
/// Thread-safety: any thread.
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_diagnosis_support_file(
    diagnosis: *const verify_diagnosis,
    lang: *const c_char,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { lend(diagnosis, lang, out, |texts| &texts.support_file) }
}

/// Saves the support file (`verify_diagnosis_support_file` in `lang`) at `path` (in UTF-8,
/// or the code page set with `verify_set_code_page`): written whole to a new file beside it,
/// then renamed over `path`, readable by its owner only on Unix. Returns 200,
/// `VERIFY_ERR_SYSTEM` when it cannot be written (the last error says why),
/// `VERIFY_ERR_INVALID_ARGUMENT` or `VERIFY_ERR_INVALID_UTF8`. Ownership: `path` and `lang`
/// are only read. Thread-safety: any thread (two saves to one path: the last rename wins).
/// cbindgen:optional=[lang]
#[no_mangle]
pub extern "system" fn verify_diagnosis_save(
    diagnosis: *const verify_diagnosis,
    lang: *const c_char,
    path: *const c_char,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (diagnosis, language, path) = unsafe {
            (
                live(diagnosis)?,
                language_or_current(lang)?,
                required_str(path, "path")?,
            )
        };
        let file = diagnosis
            .in_language(language)
            .map_or(&b""[..], |texts| texts.support_file.as_bytes());
        save(std::path::Path::new(path.as_ref()), file)?;
        Ok(codes::OK)
    })
}

/// Writes `bytes` to a new file beside `path`, then renames it over `path`.
fn save(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let failed = |what: &str, err: std::io::Error| {
        Error::local(
            ErrorKind::System,
            format!(
                "cannot {what} the support file {}: {err}",
                verify_core::error::quoted_path(path)
            ),
        )
    };
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".{}.tmp", std::process::id()));
    let aside = std::path::PathBuf::from(aside);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = options
        .open(&aside)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()));
    if let Err(err) = written {
        let _ = std::fs::remove_file(&aside);
        return Err(failed("write", err));
    }
    std::fs::rename(&aside, path).map_err(|err| {
        let _ = std::fs::remove_file(&aside);
        failed("replace", err)
    })
}

/// Lends a text of the report in `lang` (`pick` chooses which) through `out`: 0, or the
/// code of a NULL `diagnosis` or `out`, a malformed tag, invalid UTF-8.
///
/// # Safety
/// `diagnosis` NULL or live; `lang` NULL or a NUL-terminated string; `out` NULL or writable.
unsafe fn lend(
    diagnosis: *const verify_diagnosis,
    lang: *const c_char,
    out: *mut *const c_char,
    pick: impl Fn(&InLanguage) -> &CString,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (diagnosis, language) = unsafe { (live(diagnosis)?, language_or_current(lang)?) };
        let text = diagnosis
            .in_language(language)
            .map_or(c"".as_ptr(), |texts| pick(texts).as_ptr());
        // SAFETY: the caller's contract.
        unsafe { crate::guard::write_out(out, "out", text)? };
        Ok(0)
    })
}

/// Writes `value` through `out` when it is not NULL.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn write_if<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL and writable by the caller's contract.
        unsafe { out.write(value) };
    }
}

/// How many steps the report lists into `*out`; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_diagnosis_count(
    diagnosis: *const verify_diagnosis,
    out: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read(diagnosis, out, |d| d.steps.len()) }
}

/// Step number `index` (in the report's order): what it checked (`VERIFY_STEP_*`) into
/// `*step`, its verdict (`VERIFY_VERDICT_*`) into `*verdict`, its stable key (such as
/// `tls.pin_mismatch` or `init.1011`, for messages in another language) into `*key`, its
/// English sentence into `*message`; each out-pointer may be NULL when not wanted. Returns
/// 0, `VERIFY_ERR_NO_SUCH_FIELD` when `index` is past the last, or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Later versions may add steps and verdicts. Ownership: the
/// strings are borrowed, valid until `diagnosis` is freed. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_diagnosis_step(
    diagnosis: *const verify_diagnosis,
    index: usize,
    step: *mut i32,
    verdict: *mut i32,
    key: *mut *const c_char,
    message: *mut *const c_char,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let diagnosis = unsafe { diagnosis.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "diagnosis is NULL"))?;
        let Some((s, v, k, m)) = diagnosis.steps.get(index) else {
            return Ok(codes::ERR_NO_SUCH_FIELD);
        };
        for (out, value) in [(step, *s), (verdict, *v)] {
            if !out.is_null() {
                // SAFETY: non-NULL and writable by the caller's contract.
                unsafe { out.write(value) };
            }
        }
        for (out, value) in [(key, k.as_ptr()), (message, m.as_ptr())] {
            if !out.is_null() {
                // SAFETY: non-NULL and writable by the caller's contract.
                unsafe { out.write(value) };
            }
        }
        Ok(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::enums::{VERIFY_STEP_OPTIONS, VERIFY_VERDICT_FAIL};
    use std::ptr;

    #[test]
    fn null_arguments_are_refused_and_a_report_is_read() {
        let mut out: *mut verify_diagnosis = ptr::null_mut();
        assert_eq!(
            verify_diagnose(
                ptr::null(),
                c"1".as_ptr(),
                c"K".as_ptr(),
                ptr::null(),
                1,
                &mut out
            ),
            codes::ERR_INVALID_ARGUMENT
        );
        assert!(out.is_null());
        // Nothing listens on port 1 of loopback: a report whose steps fail.
        let code = verify_diagnose(
            c"http://127.0.0.1:1".as_ptr(),
            c"1".as_ptr(),
            c"SECRETKEYSECRETKEY".as_ptr(),
            ptr::null(),
            2000,
            &mut out,
        );
        assert_eq!(code, codes::OK);
        let mut verdict = -1;
        assert_eq!(verify_diagnosis_verdict(out, &mut verdict), 0);
        assert_eq!(verdict, VERIFY_VERDICT_FAIL);
        let mut count = 0usize;
        assert_eq!(verify_diagnosis_count(out, &mut count), 0);
        assert!(count > 3);
        let mut json: *const c_char = ptr::null();
        assert_eq!(verify_diagnosis_json(out, &mut json), 0);
        // SAFETY: a NUL-terminated string owned by the report.
        let json = unsafe { std::ffi::CStr::from_ptr(json) }.to_string_lossy();
        assert!(json.contains("\"version\":2"), "{json}");
        assert!(!json.contains("SECRETKEY"), "{json}");
        let mut step = 0;
        let mut key: *const c_char = ptr::null();
        assert_eq!(
            verify_diagnosis_step(
                out,
                0,
                &mut step,
                ptr::null_mut(),
                &mut key,
                ptr::null_mut()
            ),
            0
        );
        assert_eq!(step, VERIFY_STEP_OPTIONS);
        assert_eq!(
            verify_diagnosis_step(
                out,
                count,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut()
            ),
            codes::ERR_NO_SUCH_FIELD
        );
        assert_eq!(
            verify_diagnosis_verdict(ptr::null(), &mut verdict),
            codes::ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            verify_diagnosis_text(out, ptr::null_mut()),
            codes::ERR_INVALID_ARGUMENT
        );
        // The text in each language asked for; a malformed tag is refused.
        let text_in = |lang: &std::ffi::CStr| {
            let mut text: *const c_char = ptr::null();
            assert_eq!(verify_diagnosis_text_in(out, lang.as_ptr(), &mut text), 0);
            // SAFETY: a NUL-terminated string owned by the report.
            unsafe { std::ffi::CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        };
        assert!(text_in(c"zh-CN").contains("\nverify 诊断"));
        assert!(text_in(c"zh_TW.UTF-8").contains("\nverify 診斷"));
        assert!(text_in(c"en-US").contains("\nverify doctor"));
        let mut text: *const c_char = ptr::null();
        assert_eq!(
            verify_diagnosis_text_in(out, c"zh CN".as_ptr(), &mut text),
            codes::ERR_INVALID_ARGUMENT
        );
        assert!(text.is_null());
        assert_eq!(
            verify_diagnosis_text_in(ptr::null(), c"en".as_ptr(), &mut text),
            codes::ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            verify_diagnosis_text_in(out, ptr::null(), ptr::null_mut()),
            codes::ERR_INVALID_ARGUMENT
        );
        verify_diagnosis_free(out);
        verify_diagnosis_free(ptr::null_mut());
    }
}
