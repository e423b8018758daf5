//! verify.dll for real: the Windows DLLs built on this machine (`scripts/build-windows.sh`,
//! mingw-w64) and Windows programs using them, run under Wine against the sandbox on Linux:
//! 64-bit programs under the host's wine64, 32-bit ones under 32-bit Wine in an i386 chroot
//! (`scripts/wine32.sh`).
//!
//! - Both DLLs (x64 and x86), built for Windows 7 SP1 and later (the win7 targets), export
//!   exactly the functions of `include/verify.h`, with undecorated names, depend on system
//!   DLLs only, and the x86 `.def` and import library carry the stdcall decorations callers
//!   link by.
//! - Nothing newer than Windows 7 SP1 (`imports.rs`): every imported function is declared by
//!   mingw-w64's headers for `_WIN32_WINNT` 0x0601 (`tests/platforms/windows/win_imports.c`)
//!   or known and listed, none is on the deny list; each function looked up by name at run
//!   time is listed with its fallback; both DLLs load and answer under Wine in Windows 7
//!   mode (`tests/platforms/windows/win_version.c`: Windows 6.1, build 7601).
//! - A panic inside an export comes back as `VERIFY_ERR_PANIC` and the host lives (`panic.rs`,
//!   `verify_panic_self_test`): mingw hosts with their runtime static or as DLLs, the mingw
//!   unwinder DLL loaded before and after verify.dll, C++ exceptions of the host's own around
//!   it, and a host linked the MSVC way (`tests/platforms/windows/win_panic.cpp`,
//!   `win_panic_msvc.c`).
//! - x86 is stdcall in its machine code: every export's `ret` pops 4 bytes per parameter of
//!   the header's prototype (the header and the DLL read with the mingw binutils), and
//!   `tests/platforms/windows/win_stdcall.c` calls every function through the header, measures the bytes
//!   callees pop (with a stdcall and a cdecl control) and keeps the stack pointer over
//!   100,000 rounds of calls and 200 logins.
//! - The MSVC import libraries (`verify.lib`) link a caller with lld-link, no C runtime
//!   (`tests/platforms/windows/win_msvc_link.c`): it imports the plain names (x86: from
//!   `_verify_abi_version@0`) and runs.
//! - `examples-c/demo.c` (mingw gcc) and `examples-c/demo.cpp` (mingw g++, `verify.hpp`)
//!   pass every step, as on Linux.
//! - `tests/cpp/cpp_typed.cpp`, the typed program (card and account login, the keeper
//!   seeing a ban, refusals, an offline start) on the typed C++ API (C++17, and C++23 with
//!   `std::expected` on x64), passes as on Linux (`tests/cpp/typed.rs`), the test banning its
//!   card when it asks.
//! - `tests/platforms/windows/win_misuse.c`: NULLs, bad UTF-8, too long strings and out-of-range
//!   integers through every kind of export give their negative codes.
//! - `tests/platforms/windows/win_threads.c`: eight Windows threads × 25 rounds of calls on one client.
//! - `tests/platforms/windows/win_unload.c`: 100 cycles of LoadLibrary, a call whose name lookup a name
//!   server never answers (the test's namespaces), and FreeLibrary: no crash; the lookups
//!   hold the DLL until they end, and the last one unloads it. And 100 cycles of
//!   LoadLibrary, a card login, a keeper that has beaten, `verify_keeper_stop` and
//!   FreeLibrary: no crash, and each FreeLibrary unloads the DLL.
//! - `tests/platforms/windows/win_codepage.c`: under a Chinese locale (ANSI code page 936, UI language
//!   Chinese: the end user's messages in GBK),
//!   `verify_set_code_page(VERIFY_CODE_PAGE_SYSTEM)` follows `GetACP()`: names, pointers and
//!   values in GBK both ways, reply texts and refusals in GBK, a character GBK cannot hold as
//!   `?`, non-GBK bytes refused, 65001 is UTF-8 again (the code pages are built into the
//!   Windows library only).
//! - `tests/platforms/windows/win_machine.c`: the machine code comes from `MachineGuid` in the registry
//!   (it follows the registry value, no fallback file is written), 32 uppercase hex digits,
//!   the same in two runs, and a 32-bit process gives the codes a 64-bit one gives for the
//!   same MachineGuid; machine code v2 reads the real sources through Wine and plays the
//!   table's rows Wine can (an edited MachineGuid, a reinstall on the same board, a VM clone,
//!   a placeholder UUID) with the DMI files and `/var/lib/dbus/machine-id` that Wine reads made
//!   up in the test's own mount namespace.
//!
//! - `tests/platforms/windows/offline.rs`: the offline store's second place is the user's
//!   registry; the table of moves against it (`tests/c/c_offline_pieces.c`, one start a run):
//!   the value or the key deleted with `reg.exe`, the key made unreadable
//!   (`win_registry_read.c`: a DACL that denies reading, as regedit sets it), an older value
//!   imported with `reg import`, each with or without an older copy of the state folder:
//!   no offline verdict (`VERIFY_ERR_TIME_UNCONFIRMED`) where a piece is missing, `-14` where
//!   the newer mark is still there, 202 only with older copies of both; one online login
//!   heals.
//!
//! - `tests/platforms/windows/easy_vb6.rs`: 易语言 and VB6 (x86 only). A program made from
//!   `bindings/easy/verify.e.txt` calls every DLL command as declared and checks the stack
//!   pointer after each; `example_replay.c`, built once for each host, replays
//!   `bindings/easy/例子.e.txt` and `bindings/vb6/Example.bas` call for call with the declared
//!   types against the sandbox.
//!
//! Every program runs for x64 and x86; x86 programs are linked with
//! `--disable-stdcall-fixup`, so that a calling convention mismatch between the header and
//! the DLL fails the link.
//!
//! The first use runs `scripts/build-windows.sh --wine` (installs mingw-w64 and Wine when
//! missing, makes the i386 chroot of 32-bit Wine once, builds both DLLs into
//! `target/windows/`, nothing when they are up to date). The 64-bit Wine prefix is
//! `target/windows/wine/prefix`, made once and reused; 32-bit programs are compiled into
//! `<chroot>/tmp/windows-<pid>/` and run in the chroot's own prefix. Both prefixes are in
//! Windows 7 mode (`HKCU\Software\Wine`, `Version` = `win7`): `wine.rs` sets the 64-bit one,
//! `scripts/wine32.sh setup` the chroot's.

#[path = "../../common/mod.rs"]
mod common;

mod code_page;
mod demos;
mod easy_vb6;
mod exports;
mod imports;
mod machine;
mod misuse;
mod offline;
mod panic;
mod threads;
mod tls;
mod unload;
mod wine;

use machine::*;
use wine::*;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::host::{
    assert_demo_output, demo_sandbox, root, run_script, rust_tool, show, target_dir, text,
    DEMO_STEPS,
};

/// How long one Windows program may run under Wine.
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// What `scripts/build-windows.sh --wine` gave: the DLL folders, the Wine prefix, and
/// the i386 chroot of 32-bit Wine.
struct Windows {
    /// `target/windows`.
    out: PathBuf,
    /// The Wine prefix of 64-bit programs, shared by every program of the run.
    prefix: PathBuf,
    /// The folder of the i386 chroot with 32-bit Wine (`scripts/wine32.sh root`).
    wine32_root: PathBuf,
    /// The 64-bit loader.
    wine64: PathBuf,
}

/// How a Windows program runs.
#[derive(Clone, Debug)]
enum Loader {
    /// Wine's 64-bit loader on the host, in the prefix `target/windows/wine/prefix`.
    Wine64(PathBuf),
    /// `scripts/wine32.sh exec`: 32-bit Wine in the i386 chroot, in the chroot's prefix.
    Wine32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arch {
    X64,
    X86,
}

impl Arch {
    fn name(self) -> &'static str {
        match self {
            Arch::X64 => "x64",
            Arch::X86 => "x86",
        }
    }
    fn tool(self, tool: &str) -> String {
        match self {
            Arch::X64 => format!("x86_64-w64-mingw32-{tool}"),
            Arch::X86 => format!("i686-w64-mingw32-{tool}"),
        }
    }
    /// Flags of every link: the x86 one refuses to "fix up" a cdecl reference to a stdcall
    /// symbol, so that a header and DLL that disagree on the convention fail here.
    fn link_flags(self) -> &'static [&'static str] {
        match self {
            Arch::X64 => &[],
            Arch::X86 => &["-Wl,--disable-stdcall-fixup"],
        }
    }
}
