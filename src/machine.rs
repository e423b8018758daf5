//! `verify_machine_code`: the machine code for the `Mac` parameter.

use std::ffi::c_char;
use std::ptr;

use verify_core::{codes, Error, ErrorKind, MACHINE_CODE_LEN};

use crate::guard::{guard_code, required_str};

/// Length of a machine code from `verify_machine_code`, without the terminating NUL.
pub const VERIFY_MACHINE_CODE_LEN: usize = 32;

// The header's constant is a literal (cbindgen writes literals); it is the core's length.
const _: () = assert!(VERIFY_MACHINE_CODE_LEN == MACHINE_CODE_LEN);

/// Writes the machine code of this machine for `salt` (one salt per program, such as its
/// AppId; may be empty, not NULL) into `out`: 32 uppercase hex characters and a NUL, so
/// `out_len` must be at least 33. The code is a salted hash of the OS machine identity
/// (`/etc/machine-id`, Windows `MachineGuid`, macOS hardware UUID), the same on every call
/// and in every process; where the OS gives none, a random identity is created once in the
/// user's configuration folder (`verify/machine-id` under `$XDG_CONFIG_HOME` or `~/.config`,
/// `%APPDATA%`, `~/Library/Application Support`). No process is spawned.
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
        if out.is_null() || out_len <= VERIFY_MACHINE_CODE_LEN {
            return Err(Error::local(
                ErrorKind::InvalidArgument,
                format!("out must hold {} bytes", VERIFY_MACHINE_CODE_LEN + 1),
            ));
        }
        let code = verify_core::machine_code(&salt)?;
        let bytes = code.as_bytes();
        // SAFETY: `out` is writable for `out_len` > 32 bytes (the caller's contract) and the
        // code is 32 bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, bytes.len());
            *out.add(bytes.len()) = 0;
        }
        Ok(codes::OK)
    })
}
