//! The operating system's machine identity where it is not a file: the Windows registry,
//! the macOS hardware UUID. Linux reads files (see `mod.rs`). Safe wrappers only: the core
//! has no `unsafe`.

/// `MachineGuid` under `HKLM\SOFTWARE\Microsoft\Cryptography`, read from the 64-bit view
/// of the registry also from a 32-bit process.
#[cfg(windows)]
pub(super) fn machine_identity() -> Option<String> {
    use winreg::enums::{HKEY_LOCAL_MACHINE, KEY_READ, KEY_WOW64_64KEY};
    winreg::RegKey::predef(HKEY_LOCAL_MACHINE)
        .open_subkey_with_flags(
            "SOFTWARE\\Microsoft\\Cryptography",
            KEY_READ | KEY_WOW64_64KEY,
        )
        .and_then(|key| key.get_value::<String, _>("MachineGuid"))
        .ok()
}

/// The hardware UUID of the Mac (`kern.uuid`, the IOPlatformUUID).
#[cfg(target_os = "macos")]
pub(super) fn machine_identity() -> Option<String> {
    use sysctl::Sysctl;
    sysctl::Ctl::new("kern.uuid")
        .and_then(|ctl| ctl.value_string())
        .ok()
}

/// Other systems have no such source; Linux reads its files in `mod.rs`.
#[cfg(not(any(windows, target_os = "macos")))]
pub(super) fn machine_identity() -> Option<String> {
    None
}
