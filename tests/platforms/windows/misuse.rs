//! Misuse of the C ABI under Wine: `tests/platforms/windows/win_misuse.c` passes and gives the codes, on
//! x64 and x86.

use super::*;

pub(crate) fn misuse(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/platforms/windows/win_misuse.c"),
        "win_misuse",
    );
    let loader = loader(arch);
    let program = common::Program::fresh();
    let output = run(
        &loader,
        &exe,
        &[
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
        ],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_misuse.exe"));
    let bits = if arch == Arch::X64 {
        "64-bit"
    } else {
        "32-bit"
    };
    assert!(stdout.contains(bits), "{arch:?}: {stdout}");
}

#[test]
pub(crate) fn misuse_gives_codes_under_wine_x64() {
    misuse(Arch::X64);
}

#[test]
pub(crate) fn misuse_gives_codes_under_wine_x86() {
    misuse(Arch::X86);
}
