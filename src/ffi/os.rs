//! The operating system's machine identity, where reading it needs a foreign call
//! (the Windows registry, macOS `gethostuuid`). Linux reads files (see `machine.rs`).

/// `MachineGuid` under `HKLM\SOFTWARE\Microsoft\Cryptography`, read from the 64-bit view
/// of the registry also from a 32-bit process.
#[cfg(windows)]
pub(crate) fn machine_identity() -> Option<String> {
    use windows_sys::Win32::Foundation::ERROR_SUCCESS;
    use windows_sys::Win32::System::Registry::{
        RegGetValueW, HKEY_LOCAL_MACHINE, RRF_RT_REG_SZ, RRF_SUBKEY_WOW6464KEY,
    };
    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain(std::iter::once(0)).collect()
    }
    let key = wide("SOFTWARE\\Microsoft\\Cryptography");
    let name = wide("MachineGuid");
    let mut buffer = [0u16; 128];
    let mut size = u32::try_from(std::mem::size_of_val(&buffer)).ok()?;
    // SAFETY: the key and value names are NUL-terminated UTF-16; `buffer` is writable for
    // `size` bytes, and `size` receives the byte count written (terminator included).
    let status = unsafe {
        RegGetValueW(
            HKEY_LOCAL_MACHINE,
            key.as_ptr(),
            name.as_ptr(),
            RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY,
            std::ptr::null_mut(),
            buffer.as_mut_ptr().cast(),
            &mut size,
        )
    };
    if status != ERROR_SUCCESS {
        return None;
    }
    let units = usize::try_from(size).ok()? / 2;
    let text = String::from_utf16(&buffer[..units.min(buffer.len())]).ok()?;
    Some(text.trim_end_matches('\0').to_owned())
}

/// The hardware UUID of the Mac (`gethostuuid`, the IOPlatformUUID).
#[cfg(target_os = "macos")]
pub(crate) fn machine_identity() -> Option<String> {
    let mut uuid = [0u8; 16];
    let wait = libc::timespec {
        tv_sec: 1,
        tv_nsec: 0,
    };
    // SAFETY: `uuid` is the 16 writable bytes gethostuuid fills; `wait` lives for the call.
    let status = unsafe { libc::gethostuuid(uuid.as_mut_ptr(), &wait) };
    (status == 0).then(|| hex::encode_upper(uuid))
}

/// Other systems have no foreign source; Linux reads its files in `machine.rs`.
#[cfg(not(any(windows, target_os = "macos")))]
pub(crate) fn machine_identity() -> Option<String> {
    None
}
