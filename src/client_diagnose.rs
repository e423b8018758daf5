//! `verify_client_diagnose`: the doctor run from a program's own client, with the settings
//! the client was made with (no AppKey on any command line), cancellable with a
//! `verify_cancel` token, and a callback per step for a progress display.

use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use verify_core::diagnose::DEFAULT_DIAGNOSE_DEADLINE;
use verify_core::{diagnose_client, CancelToken, DiagnoseOptions};

use crate::cancel::verify_cancel;
use crate::client::{borrow_handle, verify_client};
use crate::diagnose::verify_diagnosis;
use crate::guard::{clear_out, guard_code};

/// A doctor's step callback: `user_data` as given to `verify_client_diagnose`, then the step
/// that finished: what it checked (`VERIFY_STEP_*`), its verdict (`VERIFY_VERDICT_*`), its
/// key (`tls.pin_mismatch`) and its sentence in the process's language (`verify_set_language`
/// when the doctor started), both borrowed for the call and in the code page set with
/// `verify_set_code_page`. It runs on the thread that called `verify_client_diagnose`,
/// before that call returns, and must not unwind (no C++ exception, no longjmp out of it).
#[allow(non_camel_case_types)]
pub type verify_diagnosis_callback = Option<
    unsafe extern "system" fn(
        user_data: *mut c_void,
        step: i32,
        verdict: i32,
        key: *const c_char,
        sentence: *const c_char,
    ),
>;

/// The doctor with the settings `client` was made with: its URL and mirrors, AppId, AppKey,
/// trust and pins, proxy, fixed addresses, state folder and offline grace, log callback, and
/// its timeouts as they are now (see `verify_diagnose` for the steps). The program runs it
/// itself, so support never needs its AppKey. Machine code v2 is checked with the AppId as
/// its salt.
///
/// `callback` (optional) is called with each step as the steps finish, on the calling thread
/// (the options and machine code first; each line's steps, Init's, the clock's and the
/// offline store's once Init has finished), for a progress display; the report lists them
/// all in its own order. `cancel` (optional) stops the doctor within 50 ms when cancelled
/// from another thread: the call then returns `VERIFY_ERR_CANCELLED` and no report; without
/// it, the token attached to the calling thread (`verify_cancel_attach`) does, if any. It
/// returns within `deadline_ms` (0: 10,000 ms) whatever the network does.
///
/// Returns 200 with the report in `*out` whatever its steps say (read
/// `verify_diagnosis_first_line`, `verify_diagnosis_cause`, `verify_diagnosis_verdict`);
/// `VERIFY_ERR_CANCELLED`, `VERIFY_ERR_INVALID_ARGUMENT` (NULL `client` or `out`) with
/// `*out` NULL. The report holds no AppKey, api password, card, password or token.
/// Ownership: the caller frees `*out` with `verify_diagnosis_free`; `client` and `cancel` are
/// only used during the call. Thread-safety: any thread, beside other calls on the client
/// (the doctor uses a client of its own for Init: the program's session is not touched);
/// it blocks the calling thread.
/// cbindgen:optional=[cancel, callback, user_data]
#[no_mangle]
pub extern "system" fn verify_client_diagnose(
    client: *const verify_client,
    cancel: *const verify_cancel,
    deadline_ms: u32,
    callback: verify_diagnosis_callback,
    user_data: *mut c_void,
    out: *mut *mut verify_diagnosis,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (handle, token) = unsafe {
            clear_out(out, "out")?;
            (
                borrow_handle(client)?,
                cancel.as_ref().map(|c| c.token.clone()),
            )
        };
        let settings = DiagnoseOptions {
            deadline: match deadline_ms {
                0 => DEFAULT_DIAGNOSE_DEADLINE,
                ms => Duration::from_millis(u64::from(ms)),
            },
            machine_salt: None,
            // Without a token of its own, the doctor is cancelled by the one attached to the
            // thread.
            cancel: token.or_else(CancelToken::watching_this_thread),
        };
        let language = crate::language::current();
        let app_id = handle.client.app_id();
        let mut each = |step: &verify_core::diagnose::Step| {
            let Some(callback) = callback else {
                return;
            };
            let key = crate::codepage::encode(step.key);
            let sentence = crate::codepage::encode(&step.sentence_in(language, app_id));
            // A callback that unwinds anyway (against its contract) must not unwind through
            // the doctor: it is caught here and the doctor goes on.
            let _ = catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: the host's callback with the host's `user_data`; the strings live
                // until it returns.
                unsafe {
                    callback(
                        user_data,
                        step.kind.number(),
                        step.verdict as i32,
                        key.as_ptr(),
                        sentence.as_ptr(),
                    )
                }
            }));
        };
        let report = diagnose_client(&handle.client, &settings, &mut each);
        // SAFETY: `out` was checked by `clear_out`.
        unsafe { crate::diagnose::give_report(&report, out) }
    })
}
