//! 易语言's DLL commands under 32-bit Wine: a C program made from
//! `bindings/easy/verify.e.txt` (never from the header) declares each command exactly as the
//! IDE calls it (`__stdcall`, 整数型 `int32_t`, 长整数型 `int64_t`, 文本型 `char *`, 传址 a
//! pointer, 子程序指针 an address), loads verify.dll with `LoadLibrary`/`GetProcAddress`,
//! and calls every command once with harmless arguments (0 handles, empty texts, 0 callbacks,
//! 传址 into zeroed variables), reading the stack pointer before and after each call: a
//! declaration with a parameter too many, too few or of the wrong size makes the stdcall
//! callee pop another number of bytes, and the stack pointer moves.

use super::*;

use common::host::{easy_calls_program, easy_declared};

#[test]
pub(crate) fn easy_declarations_call_every_export_stdcall_under_wine_x86() {
    let declared = easy_declared();
    assert!(declared.len() >= 100, "易语言 commands: {}", declared.len());
    let dir = program_dir(Arch::X86);
    let source = dir.join("easy_calls.c");
    fs::write(&source, easy_calls_program(&declared)).expect("write easy_calls.c");
    // -O0 and a frame pointer: the stack pointer read after a call is the one the call left.
    let exe = compile_with(
        Arch::X86,
        &source,
        "easy_calls",
        &["-O0", "-fno-omit-frame-pointer"],
    );
    let output = run(&loader(Arch::X86), &exe, &[]);
    let stdout = assert_host_passes(&output, "x86 easy_calls.exe");
    let called: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("called "))
        .collect();
    let wanted: BTreeSet<&str> = declared.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(called, wanted, "every command called once, the stack kept");
}
