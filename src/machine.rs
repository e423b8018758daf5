//! The machine code for the `Mac` parameter: `verify_machine_code` (v1, frozen),
//! `verify_machine_code_ex` (v1 or v2), `verify_machine_check_*` (v2 and why it is what it
//! is) and `verify_machine_virtual_*` (whether the machine looks virtual).

use std::ffi::{c_char, CString};
use std::ptr;

use verify_core::{
    codes, machine_check, machine_code_with, machine_virtualization, ComponentKind, Error,
    ErrorKind, MachineCheck, MachineOptions, MachineVersion, StateFolder, MACHINE_CODE_LEN,
};

use crate::generated::enums::{
    VERIFY_COMPONENT_DIFFERS, VERIFY_COMPONENT_MATCHES, VERIFY_COMPONENT_NOT_STORED,
    VERIFY_COMPONENT_PLACEHOLDER, VERIFY_COMPONENT_UNREADABLE, VERIFY_MACHINE_V1,
    VERIFY_MACHINE_V2,
};
use crate::guard::{
    clear_out, free_handle, give_handle, guard, guard_code, null_argument, optional_str,
    required_str, write_out,
};

/// Length of a machine code from `verify_machine_code`, without the terminating NUL.
pub const VERIFY_MACHINE_CODE_LEN: usize = 32;

// The header's constant is a literal (cbindgen writes literals); it is the core's length.
const _: () = assert!(VERIFY_MACHINE_CODE_LEN == MACHINE_CODE_LEN);

/// The result of `verify_machine_check_new`: machine code v2 and, for each component,
/// whether it matches the stored one (never its value). Opaque; freed with
/// `verify_machine_check_free`. Immutable: any number of threads may read it at once.
#[allow(non_camel_case_types)]
pub struct verify_machine_check {
    code: CString,
    outcome: i32,
    score: i32,
    components: Vec<(i32, i32, i32)>,
    note: Option<CString>,
}

/// The result of `verify_machine_virtual_new`: what was seen of virtualisation. Opaque;
/// freed with `verify_machine_virtual_free`. Immutable: any number of threads may read it.
#[allow(non_camel_case_types)]
pub struct verify_machine_virtual {
    signs: Vec<(i32, CString)>,
}

/// A buffer for a code and its NUL, checked before any work is done.
fn check_buffer(out: *mut c_char, out_len: usize) -> Result<(), Error> {
    if out.is_null() || out_len <= VERIFY_MACHINE_CODE_LEN {
        return Err(Error::local(
            ErrorKind::InvalidArgument,
            format!("out must hold {} bytes", VERIFY_MACHINE_CODE_LEN + 1),
        ));
    }
    Ok(())
}

/// Writes `code` and a NUL into the caller's buffer.
///
/// # Safety
/// `out` NULL or writable for `out_len` bytes.
unsafe fn write_code(out: *mut c_char, out_len: usize, code: &str) -> Result<(), Error> {
    check_buffer(out, out_len)?;
    let bytes = code.as_bytes();
    if bytes.len() != VERIFY_MACHINE_CODE_LEN {
        return Err(Error::local(
            ErrorKind::System,
            "the machine code has not its length",
        ));
    }
    // SAFETY: `out` is writable for `out_len` > 32 bytes (the caller's contract) and the
    // code is 32 bytes.
    unsafe {
        ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, bytes.len());
        *out.add(bytes.len()) = 0;
    }
    Ok(())
}

/// The state folder of an optional path: NULL or empty is the per-user default.
///
/// # Safety
/// `path` NULL or a NUL-terminated string.
unsafe fn folder_of(path: *const c_char) -> Result<StateFolder, Error> {
    // SAFETY: the caller's contract.
    Ok(match unsafe { optional_str(path, "state_folder")? } {
        Some(path) if !path.is_empty() => StateFolder::Path(path.as_ref().into()),
        _ => StateFolder::UserDefault,
    })
}

/// Writes the v1 machine code of this machine for `salt` (one salt per program, such as its
/// AppId; may be empty, not NULL) into `out`: 32 uppercase hex characters and a NUL, so
/// `out_len` must be at least 33. The code is a salted hash of the OS machine identity
/// (`/etc/machine-id`, Windows `MachineGuid`, macOS hardware UUID), the same on every call
/// and in every process; where the OS gives none, a random identity is created once in the
/// user's configuration folder (`verify/machine-id` under `$XDG_CONFIG_HOME` or `~/.config`,
/// `%APPDATA%`, `~/Library/Application Support`). No process is spawned. v1 is frozen:
/// cards bound to it keep working; `verify_machine_code_ex` chooses v2.
/// Returns 200, `VERIFY_ERR_INVALID_ARGUMENT`, or `VERIFY_ERR_SYSTEM` when the identity
/// cannot be read or stored. Ownership: `out` is the caller's buffer of `out_len` bytes.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_machine_code(
    salt: *const c_char,
    out: *mut c_char,
    out_len: usize,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract. An empty salt is allowed.
        let salt = unsafe { required_str(salt, "salt")? };
        check_buffer(out, out_len)?;
        let code = verify_core::machine_code(&salt)?;
        // SAFETY: the caller's contract on `out`.
        unsafe { write_code(out, out_len, &code)? };
        Ok(codes::OK)
    })
}

/// Writes the machine code of `version` (`VERIFY_MACHINE_V1` or `VERIFY_MACHINE_V2`) for
/// `salt` into `out` (at least 33 bytes: 32 uppercase hex characters and a NUL).
/// v1 is `verify_machine_code` and ignores `state_folder`. v2 reads several components
/// natively (no process, no WMI), issues the code from the strongest one (the board's
/// SMBIOS UUID where it is readable) and keeps it, with a salted hash of each component,
/// sealed in `state_folder` (a folder, or NULL or empty for the per-user default, as
/// `verify_client_options_set_state_folder`); later calls keep the stored code while enough
/// components match, so a reinstalled OS, a new disk, an edited MachineGuid or a component
/// that cannot be read keep the code, and a VM clone, another computer or a new motherboard
/// get another (docs/machine-code.md). A store that cannot be written is not an error (the
/// code is still right). Returns 200, `VERIFY_ERR_INVALID_ARGUMENT` (an unknown version, a
/// short buffer), or `VERIFY_ERR_SYSTEM`. Ownership: `out` is the caller's buffer.
/// Thread-safety: any thread; processes of one program may call it at once.
/// cbindgen:optional=[state_folder]
#[no_mangle]
pub extern "system" fn verify_machine_code_ex(
    salt: *const c_char,
    version: i32,
    state_folder: *const c_char,
    out: *mut c_char,
    out_len: usize,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let salt = unsafe { required_str(salt, "salt")? };
        let version = match version {
            VERIFY_MACHINE_V1 => MachineVersion::V1,
            VERIFY_MACHINE_V2 => MachineVersion::V2,
            other => {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    format!("{other} is not a machine code version (VERIFY_MACHINE_V1 or _V2)"),
                ))
            }
        };
        check_buffer(out, out_len)?;
        let state_folder = match version {
            // v1 keeps nothing: its state folder is not even read.
            MachineVersion::V1 => None,
            // SAFETY: the caller's contract.
            _ => Some(unsafe { folder_of(state_folder)? }),
        };
        let options = MachineOptions {
            version,
            state_folder,
            log: None,
        };
        let code = machine_code_with(&salt, &options)?;
        // SAFETY: the caller's contract on `out`.
        unsafe { write_code(out, out_len, &code)? };
        Ok(codes::OK)
    })
}

fn check_view(check: MachineCheck) -> verify_machine_check {
    let c_text = crate::codepage::encode;
    verify_machine_check {
        code: c_text(&check.code),
        outcome: check.outcome as i32,
        score: check.score,
        components: check
            .components
            .iter()
            .map(|c| (c.kind as i32, c.state as i32, c.weight))
            .collect(),
        note: check.note.as_deref().map(c_text),
    }
}

/// Machine code v2 for `salt` with its explanation ("why did it change"): runs as
/// `verify_machine_code_ex(salt, VERIFY_MACHINE_V2, state_folder, ...)` does (it issues,
/// keeps and stores the same code), and gives a new `verify_machine_check` in `*out` with
/// the code, the outcome (`VERIFY_MACHINE_ISSUED`, `_KEPT`, `_REISSUED`,
/// `_STORE_UNREADABLE`), and every component with its state (`VERIFY_COMPONENT_*`) and
/// weight, never its value: a host may show it to its user or send it to support.
/// `state_folder` is a folder, or NULL or empty for the per-user default. Returns 200,
/// `VERIFY_ERR_INVALID_ARGUMENT` or `VERIFY_ERR_SYSTEM`; `*out` is NULL on failure.
/// Ownership: the caller frees `*out` with `verify_machine_check_free`. Thread-safety: any
/// thread.
/// cbindgen:optional=[state_folder]
#[no_mangle]
pub extern "system" fn verify_machine_check_new(
    salt: *const c_char,
    state_folder: *const c_char,
    out: *mut *mut verify_machine_check,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        unsafe { clear_out(out, "out")? };
        // SAFETY: as above.
        let salt = unsafe { required_str(salt, "salt")? };
        // SAFETY: as above.
        let folder = unsafe { folder_of(state_folder)? };
        let check = machine_check(&salt, &folder)?;
        // SAFETY: `out` was checked by `clear_out`.
        unsafe { give_handle(out, check_view(check)) };
        Ok(codes::OK)
    })
}

/// Frees a check. `verify_machine_check_free(NULL)` does nothing. Ownership: takes `check`.
#[no_mangle]
pub extern "system" fn verify_machine_check_free(check: *mut verify_machine_check) {
    // SAFETY: NULL or a pointer from `verify_machine_check_new`, freed once.
    guard((), || unsafe { free_handle(check) })
}

/// Runs `read` on a live handle and writes its value through `out`: 0, or
/// `VERIFY_ERR_NO_SUCH_FIELD` when `read` gives none (last error untouched).
///
/// # Safety
/// `handle` NULL or live; `out` NULL or writable.
unsafe fn read_value<H, T>(
    handle: *const H,
    name: &str,
    out: *mut T,
    read: impl FnOnce(&H) -> Option<T>,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let handle = unsafe { handle.as_ref() }.ok_or_else(|| null_argument(name))?;
        if out.is_null() {
            return Err(Error::local(ErrorKind::InvalidArgument, "out is NULL"));
        }
        match read(handle) {
            Some(value) => {
                // SAFETY: checked non-NULL; writable by the caller's contract.
                unsafe { write_out(out, "out", value)? };
                Ok(0)
            }
            None => Ok(codes::ERR_NO_SUCH_FIELD),
        }
    })
}

/// The machine code (32 uppercase hex characters) into `*out`; returns 0 or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Ownership: borrowed, valid until `check` is freed.
#[no_mangle]
pub extern "system" fn verify_machine_check_code(
    check: *const verify_machine_check,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read_value(check, "check", out, |c| Some(c.code.as_ptr())) }
}

/// The outcome (`VERIFY_MACHINE_ISSUED`, `_KEPT`, `_REISSUED`, `_STORE_UNREADABLE`; later
/// versions may add values) into `*out`; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_machine_check_outcome(
    check: *const verify_machine_check,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read_value(check, "check", out, |c| Some(c.outcome)) }
}

/// The rule's sum (matching components add their weight, differing ones take it away)
/// into `*out`; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_machine_check_score(
    check: *const verify_machine_check,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read_value(check, "check", out, |c| Some(c.score)) }
}

/// What went wrong with the store (it did not open, or could not be written) into `*out`;
/// returns 0, or `VERIFY_ERR_NO_SUCH_FIELD` when nothing did. Ownership: borrowed, valid
/// until `check` is freed.
#[no_mangle]
pub extern "system" fn verify_machine_check_note(
    check: *const verify_machine_check,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read_value(check, "check", out, |c| c.note.as_ref().map(|n| n.as_ptr())) }
}

/// How many components the check lists (6 in this version) into `*out`; returns 0 or
/// `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_machine_check_count(
    check: *const verify_machine_check,
    out: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read_value(check, "check", out, |c| Some(c.components.len())) }
}

/// Component number `index` (0 = heaviest): its kind (`VERIFY_MACHINE_BOARD_UUID`...) into
/// `*kind`, its state (`VERIFY_COMPONENT_*`) into `*state`, its weight into `*weight`; each
/// out-pointer may be NULL when not wanted. Returns 0, `VERIFY_ERR_NO_SUCH_FIELD` when
/// `index` is past the last, or `VERIFY_ERR_INVALID_ARGUMENT`. Later versions may add kinds
/// and states.
#[no_mangle]
pub extern "system" fn verify_machine_check_component(
    check: *const verify_machine_check,
    index: usize,
    kind: *mut i32,
    state: *mut i32,
    weight: *mut i32,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let check = unsafe { check.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "check is NULL"))?;
        let Some(&(k, s, w)) = check.components.get(index) else {
            return Ok(codes::ERR_NO_SUCH_FIELD);
        };
        for (out, value) in [(kind, k), (state, s), (weight, w)] {
            if !out.is_null() {
                // SAFETY: non-NULL and writable by the caller's contract.
                unsafe { out.write(value) };
            }
        }
        Ok(0)
    })
}

/// The name of a component kind (`VERIFY_MACHINE_BOARD_UUID` is "board_uuid", then
/// "board_serial", "os_install", "system_volume", "cpu", "model"); "unknown" for another
/// number. Ownership: static, never freed. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_machine_component_name(kind: i32) -> *const c_char {
    guard(c"unknown".as_ptr(), || {
        match ComponentKind::from_number(kind) {
            Some(ComponentKind::BoardUuid) => c"board_uuid",
            Some(ComponentKind::BoardSerial) => c"board_serial",
            Some(ComponentKind::OsInstall) => c"os_install",
            Some(ComponentKind::SystemVolume) => c"system_volume",
            Some(ComponentKind::Cpu) => c"cpu",
            Some(ComponentKind::Model) => c"model",
            _ => c"unknown",
        }
        .as_ptr()
    })
}

/// The name of a component state (`VERIFY_COMPONENT_MATCHES` is "matches", then
/// "differs", "not_stored", "unreadable", "placeholder"); "unknown" for another number.
/// Ownership: static. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_machine_state_name(state: i32) -> *const c_char {
    guard(c"unknown".as_ptr(), || {
        match state {
            VERIFY_COMPONENT_MATCHES => c"matches",
            VERIFY_COMPONENT_DIFFERS => c"differs",
            VERIFY_COMPONENT_NOT_STORED => c"not_stored",
            VERIFY_COMPONENT_UNREADABLE => c"unreadable",
            VERIFY_COMPONENT_PLACEHOLDER => c"placeholder",
            _ => c"unknown",
        }
        .as_ptr()
    })
}

/// Whether this machine looks virtual or containerised, and what was seen: CPUID's
/// hypervisor bit and vendor, firmware (SMBIOS/DMI) strings of virtual machines, container
/// markers. It only reports; the host decides what it means for its licence. Reads only:
/// no process, no file written. Gives a new `verify_machine_virtual` in `*out`; returns 200
/// or `VERIFY_ERR_INVALID_ARGUMENT`. Ownership: the caller frees `*out` with
/// `verify_machine_virtual_free`. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_machine_virtual_new(out: *mut *mut verify_machine_virtual) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out, "out")? };
        let seen = machine_virtualization();
        let view = verify_machine_virtual {
            signs: seen
                .signs
                .iter()
                .map(|s| (s.kind as i32, crate::codepage::encode(&s.detail)))
                .collect(),
        };
        // SAFETY: `out` was checked by `clear_out`.
        unsafe { give_handle(out, view) };
        Ok(codes::OK)
    })
}

/// Frees a report. `verify_machine_virtual_free(NULL)` does nothing. Ownership: takes it.
#[no_mangle]
pub extern "system" fn verify_machine_virtual_free(report: *mut verify_machine_virtual) {
    // SAFETY: NULL or a pointer from `verify_machine_virtual_new`, freed once.
    guard((), || unsafe { free_handle(report) })
}

/// 1 into `*out` when the machine looks virtual or containerised (any sign seen), else 0;
/// returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_machine_virtual_looks_virtual(
    report: *const verify_machine_virtual,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        read_value(report, "report", out, |r| {
            Some(i32::from(!r.signs.is_empty()))
        })
    }
}

/// How many signs were seen into `*out`; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_machine_virtual_count(
    report: *const verify_machine_virtual,
    out: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { read_value(report, "report", out, |r| Some(r.signs.len())) }
}

/// Sign number `index`: its kind (`VERIFY_VIRTUAL_*`; later versions may add kinds) into
/// `*kind` and what was seen (a vendor string, a file name; never an identity) into
/// `*detail`; either may be NULL. Returns 0, `VERIFY_ERR_NO_SUCH_FIELD` past the last, or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Ownership: `*detail` is borrowed, valid until the report
/// is freed.
/// cbindgen:optional=[kind, detail]
#[no_mangle]
pub extern "system" fn verify_machine_virtual_sign(
    report: *const verify_machine_virtual,
    index: usize,
    kind: *mut i32,
    detail: *mut *const c_char,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let report = unsafe { report.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "report is NULL"))?;
        let Some((k, d)) = report.signs.get(index) else {
            return Ok(codes::ERR_NO_SUCH_FIELD);
        };
        if !kind.is_null() {
            // SAFETY: non-NULL and writable by the caller's contract.
            unsafe { kind.write(*k) };
        }
        if !detail.is_null() {
            // SAFETY: as above.
            unsafe { detail.write(d.as_ptr()) };
        }
        Ok(0)
    })
}
