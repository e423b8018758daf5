//! What the state folder's sealed files hold once they open (`verify_core::fuzz::unsealed`):
//! the offline verdict (JSON) and machine code v2's record, on any bytes: no panic, and what
//! parses writes and parses back.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| verify_core::fuzz::unsealed(bytes));
