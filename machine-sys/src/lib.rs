//! The operating system calls of verify's machine code that need `unsafe`, behind a safe
//! API, so that `verify-core` keeps `#![forbid(unsafe_code)]`:
//!
//! - [`cpuid`]: the processor's CPUID leaves (x86 and x86-64; `None` elsewhere);
//! - [`firmware_table`]: Windows' `GetSystemFirmwareTable` (the raw SMBIOS table, `RSMB`);
//! - [`system_volume_serial`]: the serial number of the Windows system volume
//!   (`GetVolumeInformationW` on the root of the Windows folder's drive);
//! - [`file_system_id`]: Linux's `statfs(2)` type and id of a file system;
//! - [`platform_property`]: a string property of macOS's `IOPlatformExpertDevice` (IOKit),
//!   such as `IOPlatformSerialNumber`;
//! - [`preferred_language`]: the first of macOS's preferred languages
//!   (`CFLocaleCopyPreferredLanguages`, CoreFoundation), such as `zh-Hans-CN`;
//! - [`user_registry_value`], [`set_user_registry_value`]: a binary value under Windows'
//!   `HKEY_CURRENT_USER` (the offline store's second place for its time mark);
//! - [`fork_generation`]: how many forks separate this process from the one that first
//!   asked (`pthread_atfork`), so that the core can tell what a forked child inherited;
//! - [`hold_module`]: a reference on the library's own module (Windows: `GetModuleHandleExW`)
//!   for a thread that may outlive the call that started it, released as the thread ends
//!   (`FreeLibraryAndExitThread`), so that `FreeLibrary` never unmaps code a thread still runs.
//!
//! Each function returns `None` where the platform has no such source or the call fails;
//! none spawns a process, and none calls WMI or PowerShell.

#![deny(unsafe_op_in_unsafe_fn)]

/// CPUID `leaf` (sub-leaf `subleaf`): the registers `[eax, ebx, ecx, edx]`. `None` on
/// processors other than x86 and x86-64. Leaves above the processor's highest are not
/// asked (`None`).
pub fn cpuid(leaf: u32, subleaf: u32) -> Option<[u32; 4]> {
    cpu::cpuid(leaf, subleaf)
}

#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
mod cpu {
    #[cfg(target_arch = "x86")]
    use std::arch::x86::{__cpuid_count, CpuidResult};
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::{__cpuid_count, CpuidResult};

    // Newer compilers declare `__cpuid_count` safe; older ones (this crate's MSRV) unsafe.
    #[allow(unused_unsafe)]
    fn raw(leaf: u32, subleaf: u32) -> CpuidResult {
        // SAFETY: CPUID exists on every x86-64 processor and on every x86 processor that
        // Rust's i686 targets run on (Pentium Pro and later); it only reads.
        unsafe { __cpuid_count(leaf, subleaf) }
    }

    pub(super) fn cpuid(leaf: u32, subleaf: u32) -> Option<[u32; 4]> {
        // The highest leaf of the range `leaf` is in (basic, hypervisor, extended).
        let base = leaf & 0xF000_0000;
        let hypervisor_range = (0x4000_0000..0x5000_0000).contains(&leaf);
        if !hypervisor_range {
            let highest = raw(base, 0).eax;
            if leaf > highest {
                return None;
            }
        }
        let r = raw(leaf, subleaf);
        Some([r.eax, r.ebx, r.ecx, r.edx])
    }
}

#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
mod cpu {
    pub(super) fn cpuid(_leaf: u32, _subleaf: u32) -> Option<[u32; 4]> {
        None
    }
}

/// The firmware table `id` of `provider` (a four-character code such as `b"RSMB"`, the raw
/// SMBIOS table) from Windows' `GetSystemFirmwareTable`. `None` elsewhere, or when the call
/// fails.
pub fn firmware_table(provider: &[u8; 4], id: u32) -> Option<Vec<u8>> {
    windows::firmware_table(u32::from_be_bytes(*provider), id)
}

/// The serial number of the volume that holds the Windows folder (`C:\` as a rule).
/// `None` elsewhere, or when the call fails.
pub fn system_volume_serial() -> Option<u32> {
    windows::system_volume_serial()
}

/// The binary (`REG_BINARY`) value `name` of the key `subkey` under Windows'
/// `HKEY_CURRENT_USER`, at most 64 KiB. `None` elsewhere, when it is absent, or of another
/// type.
pub fn user_registry_value(subkey: &str, name: &str) -> Option<Vec<u8>> {
    windows::user_registry_value(subkey, name)
}

/// Sets the binary (`REG_BINARY`) value `name` of the key `subkey` under Windows'
/// `HKEY_CURRENT_USER` to `data` (the key created if missing). `false` elsewhere, or when the
/// call fails.
pub fn set_user_registry_value(subkey: &str, name: &str, data: &[u8]) -> bool {
    windows::set_user_registry_value(subkey, name, data)
}

#[cfg(windows)]
mod windows {
    use windows_sys::Win32::Foundation::ERROR_SUCCESS;
    use windows_sys::Win32::Storage::FileSystem::GetVolumeInformationW;
    use windows_sys::Win32::System::Registry::{
        RegGetValueW, RegSetKeyValueW, HKEY_CURRENT_USER, REG_BINARY, RRF_RT_REG_BINARY,
    };
    use windows_sys::Win32::System::SystemInformation::{
        GetSystemFirmwareTable, GetSystemWindowsDirectoryW,
    };

    /// The largest firmware table read (SMBIOS tables are a few KiB).
    const MAX_TABLE: u32 = 4 * 1024 * 1024;
    /// The largest registry value read.
    const MAX_VALUE: u32 = 64 * 1024;

    /// `text` as a NUL-terminated UTF-16 string; `None` when it holds a NUL.
    fn wide(text: &str) -> Option<Vec<u16>> {
        if text.contains('\0') {
            return None;
        }
        Some(text.encode_utf16().chain(std::iter::once(0)).collect())
    }

    pub(super) fn user_registry_value(subkey: &str, name: &str) -> Option<Vec<u8>> {
        let (subkey, name) = (wide(subkey)?, wide(name)?);
        let mut size = 0u32;
        // SAFETY: NUL-terminated strings; a NULL buffer asks for the size only.
        let status = unsafe {
            RegGetValueW(
                HKEY_CURRENT_USER,
                subkey.as_ptr(),
                name.as_ptr(),
                RRF_RT_REG_BINARY,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut size,
            )
        };
        if status != ERROR_SUCCESS || size > MAX_VALUE {
            return None;
        }
        let mut buffer = vec![0u8; size as usize];
        // SAFETY: `buffer` is writable for `size` bytes, which `size` says.
        let status = unsafe {
            RegGetValueW(
                HKEY_CURRENT_USER,
                subkey.as_ptr(),
                name.as_ptr(),
                RRF_RT_REG_BINARY,
                std::ptr::null_mut(),
                buffer.as_mut_ptr().cast(),
                &mut size,
            )
        };
        if status != ERROR_SUCCESS || size as usize > buffer.len() {
            return None;
        }
        buffer.truncate(size as usize);
        Some(buffer)
    }

    pub(super) fn set_user_registry_value(subkey: &str, name: &str, data: &[u8]) -> bool {
        let (Some(subkey), Some(name)) = (wide(subkey), wide(name)) else {
            return false;
        };
        let Ok(len) = u32::try_from(data.len()) else {
            return false;
        };
        // SAFETY: NUL-terminated strings; `data` is readable for `len` bytes.
        let status = unsafe {
            RegSetKeyValueW(
                HKEY_CURRENT_USER,
                subkey.as_ptr(),
                name.as_ptr(),
                REG_BINARY,
                data.as_ptr().cast(),
                len,
            )
        };
        status == ERROR_SUCCESS
    }

    pub(super) fn firmware_table(provider: u32, id: u32) -> Option<Vec<u8>> {
        // SAFETY: a NULL buffer of size 0 asks for the size only.
        let size = unsafe { GetSystemFirmwareTable(provider, id, std::ptr::null_mut(), 0) };
        if size == 0 || size > MAX_TABLE {
            return None;
        }
        let mut buffer = vec![0u8; size as usize];
        // SAFETY: `buffer` is writable for `size` bytes.
        let written = unsafe { GetSystemFirmwareTable(provider, id, buffer.as_mut_ptr(), size) };
        if written == 0 || written > size {
            return None;
        }
        buffer.truncate(written as usize);
        Some(buffer)
    }

    pub(super) fn system_volume_serial() -> Option<u32> {
        let mut folder = [0u16; 261];
        // SAFETY: `folder` is writable for its length in UTF-16 units.
        let len = unsafe { GetSystemWindowsDirectoryW(folder.as_mut_ptr(), folder.len() as u32) };
        let len = len as usize;
        // "C:\Windows": the root is the first three units, "C:\".
        if len < 3 || len >= folder.len() || folder[1] != u16::from(b':') {
            return None;
        }
        let root = [folder[0], u16::from(b':'), u16::from(b'\\'), 0];
        let mut serial = 0u32;
        // SAFETY: `root` is a NUL-terminated UTF-16 string; the out-pointer is valid; the
        // other buffers are NULL with size 0 (not asked).
        let ok = unsafe {
            GetVolumeInformationW(
                root.as_ptr(),
                std::ptr::null_mut(),
                0,
                &mut serial,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        };
        (ok != 0).then_some(serial)
    }
}

#[cfg(not(windows))]
mod windows {
    pub(super) fn firmware_table(_provider: u32, _id: u32) -> Option<Vec<u8>> {
        None
    }

    pub(super) fn system_volume_serial() -> Option<u32> {
        None
    }

    pub(super) fn user_registry_value(_subkey: &str, _name: &str) -> Option<Vec<u8>> {
        None
    }

    pub(super) fn set_user_registry_value(_subkey: &str, _name: &str, _data: &[u8]) -> bool {
        false
    }
}

/// The file system type and id (`f_type`, `f_fsid` of `statfs(2)`) of the file system that
/// holds `path`. Linux only (`None` elsewhere, or when the call fails, or the path has a NUL).
pub fn file_system_id(path: &std::path::Path) -> Option<(u64, u64)> {
    fsid::file_system_id(path)
}

#[cfg(target_os = "linux")]
mod fsid {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    pub(super) fn file_system_id(path: &std::path::Path) -> Option<(u64, u64)> {
        let path = CString::new(path.as_os_str().as_bytes()).ok()?;
        // SAFETY: all-zero bytes are a valid `statfs` (integers only).
        let mut buf: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is NUL-terminated; `buf` is a writable `statfs`.
        if unsafe { libc::statfs(path.as_ptr(), &mut buf) } != 0 {
            return None;
        }
        // SAFETY: `fsid_t` is two C ints (its field is private in the libc crate).
        let id: [i32; 2] = unsafe { std::mem::transmute(buf.f_fsid) };
        let id = (u64::from(id[0] as u32) << 32) | u64::from(id[1] as u32);
        #[allow(clippy::unnecessary_cast)] // f_type's width differs between architectures
        Some((buf.f_type as u64, id))
    }
}

#[cfg(not(target_os = "linux"))]
mod fsid {
    pub(super) fn file_system_id(_path: &std::path::Path) -> Option<(u64, u64)> {
        None
    }
}

/// The string property `key` of macOS's `IOPlatformExpertDevice` (for example
/// `IOPlatformSerialNumber`, `IOPlatformUUID`). `None` elsewhere, or when it is missing or
/// not a string.
pub fn platform_property(key: &str) -> Option<String> {
    mac::platform_property(key)
}

/// The user's first preferred language on macOS, as a BCP 47 tag (`"zh-Hans-CN"`,
/// `"zh-Hant-TW"`, `"en-US"`): the first of CoreFoundation's
/// `CFLocaleCopyPreferredLanguages()`, the list of System Settings' "Preferred languages",
/// read in the process, without starting one. `None` elsewhere, or when the list is empty
/// or its first entry is not a string.
pub fn preferred_language() -> Option<String> {
    mac::preferred_language()
}

#[cfg(target_os = "macos")]
mod mac {
    use std::ffi::{c_char, CString};

    use core_foundation_sys::array::{CFArrayGetCount, CFArrayGetValueAtIndex};
    use core_foundation_sys::base::{
        kCFAllocatorDefault, CFAllocatorRef, CFGetTypeID, CFRelease, CFTypeRef,
    };
    use core_foundation_sys::dictionary::CFMutableDictionaryRef;
    use core_foundation_sys::locale::CFLocaleCopyPreferredLanguages;
    use core_foundation_sys::string::{
        kCFStringEncodingUTF8, CFStringCreateWithCString, CFStringGetCString, CFStringGetTypeID,
        CFStringRef,
    };

    type IoObject = u32;

    #[link(name = "IOKit", kind = "framework")]
    extern "C" {
        fn IOServiceMatching(name: *const c_char) -> CFMutableDictionaryRef;
        fn IOServiceGetMatchingService(
            main_port: u32,
            matching: CFMutableDictionaryRef,
        ) -> IoObject;
        fn IORegistryEntryCreateCFProperty(
            entry: IoObject,
            key: CFStringRef,
            allocator: CFAllocatorRef,
            options: u32,
        ) -> CFTypeRef;
        fn IOObjectRelease(object: IoObject) -> i32;
    }

    pub(super) fn platform_property(key: &str) -> Option<String> {
        let key = CString::new(key).ok()?;
        // SAFETY: IOKit and CoreFoundation calls with valid C strings; every object created
        // here is released once; `IOServiceGetMatchingService` consumes `matching`.
        unsafe {
            let matching = IOServiceMatching(c"IOPlatformExpertDevice".as_ptr());
            if matching.is_null() {
                return None;
            }
            // 0: kIOMainPortDefault (MACH_PORT_NULL).
            let service = IOServiceGetMatchingService(0, matching);
            if service == 0 {
                return None;
            }
            let cf_key =
                CFStringCreateWithCString(kCFAllocatorDefault, key.as_ptr(), kCFStringEncodingUTF8);
            if cf_key.is_null() {
                IOObjectRelease(service);
                return None;
            }
            let value = IORegistryEntryCreateCFProperty(service, cf_key, kCFAllocatorDefault, 0);
            CFRelease(cf_key as CFTypeRef);
            IOObjectRelease(service);
            if value.is_null() {
                return None;
            }
            let text = string_of(value);
            CFRelease(value);
            text
        }
    }

    pub(super) fn preferred_language() -> Option<String> {
        // SAFETY: `CFLocaleCopyPreferredLanguages` returns an array this code owns (the Copy
        // rule), released once here; the entry read from it is borrowed (the Get rule), read
        // while the array holds it and not released.
        unsafe {
            let languages = CFLocaleCopyPreferredLanguages();
            if languages.is_null() {
                return None;
            }
            let mut text = None;
            if CFArrayGetCount(languages) > 0 {
                let first = CFArrayGetValueAtIndex(languages, 0) as CFTypeRef;
                if !first.is_null() {
                    text = string_of(first);
                }
            }
            CFRelease(languages as CFTypeRef);
            text
        }
    }

    /// The text of `value` when it is a CFString of at most 255 bytes in UTF-8; `None` for
    /// another type or a longer string.
    ///
    /// # Safety
    /// `value` is a valid, non-NULL CoreFoundation object; it is not released here.
    unsafe fn string_of(value: CFTypeRef) -> Option<String> {
        // SAFETY: the caller's contract; the buffer outlives the calls that write and read it,
        // and `CFStringGetCString` NUL-terminates what it writes when it succeeds.
        unsafe {
            if CFGetTypeID(value) != CFStringGetTypeID() {
                return None;
            }
            let mut buffer = [0 as c_char; 256];
            if CFStringGetCString(
                value as CFStringRef,
                buffer.as_mut_ptr(),
                buffer.len() as _,
                kCFStringEncodingUTF8,
            ) == 0
            {
                return None;
            }
            std::ffi::CStr::from_ptr(buffer.as_ptr())
                .to_str()
                .ok()
                .map(str::to_owned)
        }
    }
}

#[cfg(not(target_os = "macos"))]
mod mac {
    pub(super) fn platform_property(_key: &str) -> Option<String> {
        None
    }

    pub(super) fn preferred_language() -> Option<String> {
        None
    }
}

/// How many `fork`s separate the calling process from the process that first called this
/// function: 0 there, one more in each child forked after that (a `pthread_atfork` child
/// handler counts them; no system call here, one atomic load). Always 0 where there is no
/// fork (Windows).
///
/// The handler is registered by the first call: only forks after it are counted, so a caller
/// asks once before it makes what a child must not inherit. On glibc the handler goes away
/// when the library is unloaded (`pthread_atfork` registers it under the library's
/// `__dso_handle`).
pub fn fork_generation() -> u64 {
    fork::generation()
}

/// A reference on the module (DLL) this code is in, taken by a thread that may outlive the
/// call that started it: while it is held, a host's `FreeLibrary` does not unmap the
/// library. Windows only; elsewhere it holds nothing (on Linux, glibc's `dlclose` leaves a
/// library mapped while a thread that ran its code lives: its thread-local destructors are
/// registered there; tests/c/lifecycle.rs). Dropping it releases the reference.
pub struct ModuleHold(module::Hold);

/// Takes a [`ModuleHold`] on the library, in a call of the host (while the library is surely
/// loaded), for the thread it is then moved to.
pub fn hold_module() -> ModuleHold {
    ModuleHold(module::hold())
}

impl ModuleHold {
    /// Ends the calling thread, releasing the reference as it does (Windows:
    /// `FreeLibraryAndExitThread`, which does not return: whatever the thread still owns is
    /// not dropped, so drop everything first). Elsewhere it releases the hold and returns,
    /// and the thread ends as usual.
    pub fn exit_thread(self) {
        module::exit_thread(self.0)
    }
}

#[cfg(windows)]
mod module {
    use windows_sys::Win32::Foundation::{FreeLibrary, HMODULE};
    use windows_sys::Win32::System::LibraryLoader::{
        FreeLibraryAndExitThread, GetModuleHandleExW, GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
    };

    /// The module, with one reference taken by `hold` (null when none could be taken).
    pub(super) struct Hold(HMODULE);

    // SAFETY: a module handle is a process-wide value, usable from any thread.
    unsafe impl Send for Hold {}

    pub(super) fn hold() -> Hold {
        let mut module: HMODULE = std::ptr::null_mut();
        // Any address inside this library names its module.
        let inside = hold as *const () as *const u16;
        // SAFETY: FROM_ADDRESS takes an address of the module instead of a name, and adds a
        // reference (no UNCHANGED_REFCOUNT flag); `module` is a valid out-pointer.
        let taken = unsafe {
            GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS, inside, &mut module)
        };
        Hold(if taken != 0 {
            module
        } else {
            std::ptr::null_mut()
        })
    }

    impl Drop for Hold {
        fn drop(&mut self) {
            if !self.0.is_null() {
                // SAFETY: releases the one reference `hold` took.
                unsafe { FreeLibrary(self.0) };
            }
        }
    }

    pub(super) fn exit_thread(hold: Hold) {
        let module = hold.0;
        if module.is_null() {
            return;
        }
        std::mem::forget(hold);
        // SAFETY: releases the reference `hold` took and ends the thread without returning
        // into the module, which may be unmapped by then (that is the point).
        unsafe { FreeLibraryAndExitThread(module, 0) }
    }
}

#[cfg(not(windows))]
mod module {
    pub(super) struct Hold;

    pub(super) fn hold() -> Hold {
        Hold
    }

    pub(super) fn exit_thread(_hold: Hold) {}
}

#[cfg(unix)]
mod fork {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Once;

    static GENERATION: AtomicU64 = AtomicU64::new(0);
    static REGISTER: Once = Once::new();

    /// Runs in the child of every `fork`, on its only thread: one atomic add, which is
    /// async-signal-safe.
    extern "C" fn in_child() {
        GENERATION.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn generation() -> u64 {
        REGISTER.call_once(|| {
            // SAFETY: pthread_atfork only records the three handlers (two absent); the child
            // handler is a plain function of this library that touches one static atomic.
            // Its one failure (ENOMEM) leaves forks uncounted: nothing to undo.
            let _ = unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
        });
        GENERATION.load(Ordering::Relaxed)
    }
}

#[cfg(not(unix))]
mod fork {
    pub(super) fn generation() -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    #[test]
    fn a_forked_child_counts_one_fork_more_and_the_parent_none() {
        let before = super::fork_generation();
        // SAFETY: the child only loads an atomic and calls _exit (async-signal-safe).
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = i32::from(super::fork_generation() != before + 1);
            // SAFETY: ends the child at once, without running the parent's exit handlers.
            unsafe { libc::_exit(code) };
        }
        assert!(pid > 0, "fork failed");
        let mut status = 0;
        // SAFETY: waits for the child just made; `status` is a valid out-pointer.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(waited, pid);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "child saw no fork"
        );
        assert_eq!(
            super::fork_generation(),
            before,
            "the parent counts no fork"
        );
    }

    use super::*;

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn cpuid_reads_the_vendor() {
        let leaf0 = cpuid(0, 0).expect("leaf 0");
        let mut vendor = Vec::new();
        for reg in [leaf0[1], leaf0[3], leaf0[2]] {
            vendor.extend_from_slice(&reg.to_le_bytes());
        }
        assert!(vendor.iter().all(u8::is_ascii), "{vendor:?}");
        assert!(leaf0[0] >= 1, "leaf 1 exists on every x86-64 processor");
        assert!(cpuid(1, 0).is_some());
        assert_eq!(cpuid(leaf0[0] + 1, 0), None, "above the highest basic leaf");
    }

    #[cfg(not(windows))]
    #[test]
    fn windows_sources_are_absent_elsewhere() {
        assert_eq!(firmware_table(b"RSMB", 0), None);
        assert_eq!(system_volume_serial(), None);
        assert_eq!(user_registry_value("Software\\verify", "x"), None);
        assert!(!set_user_registry_value("Software\\verify", "x", b"x"));
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn macos_sources_are_absent_elsewhere() {
        assert_eq!(platform_property("IOPlatformSerialNumber"), None);
        assert_eq!(preferred_language(), None);
    }
}
