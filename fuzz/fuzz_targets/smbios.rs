//! Machine code v2's SMBIOS table reader (`RawSMBIOSData`, as Windows'
//! `GetSystemFirmwareTable('RSMB')` gives it; real boards give malformed ones) on any bytes:
//! no panic, the same result twice, no string longer than the table could hold
//! (`verify_core::fuzz::smbios_table`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|raw: &[u8]| verify_core::fuzz::smbios_table(raw));
