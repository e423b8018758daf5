//! A panic inside an export comes back as `VERIFY_ERR_PANIC` and the host lives, in every
//! kind of Windows host, x64 and x86: `verify_panic_self_test("panic")` (the shipped DLL's
//! own self-test: docs/windows.md says why it is public) through
//! `tests/platforms/windows/win_panic.cpp` (mingw g++, its runtime linked statically or as
//! DLLs, with the mingw unwinder DLL loaded before or after verify.dll, the host throwing C++
//! exceptions of its own around the panics) and `tests/platforms/windows/win_panic_msvc.c`
//! (no C runtime, lld-link: an MSVC-built host, linked to verify.lib or loading the unwinder
//! DLL first).
//!
//! On x86 the unwinder DLL loaded first is the case that needs rsbegin.o in the DLL
//! (`scripts/build-windows.sh`): without it the panic aborts the process.

use super::*;

/// The mingw unwinder DLL of `arch`: DWARF-2 on x86, SEH on x64.
fn libgcc(arch: Arch) -> &'static str {
    match arch {
        Arch::X64 => "libgcc_s_seh-1.dll",
        Arch::X86 => "libgcc_s_dw2-1.dll",
    }
}

/// The folder of these programs: a folder of its own inside the program folder, with a
/// copy of verify.dll, so that the mingw DLLs copied beside them reach no other test's
/// program.
fn panic_dir(arch: Arch) -> PathBuf {
    let dir = program_dir(arch).join("panic");
    fs::create_dir_all(&dir).expect("create the panic programs' folder");
    fs::copy(program_dir(arch).join("verify.dll"), dir.join("verify.dll"))
        .expect("copy verify.dll");
    dir
}

/// Copies a DLL of the mingw toolchain of `arch` (as its g++ finds it) into `dir`; false when
/// the toolchain has no such file.
fn copy_mingw_dll(arch: Arch, dir: &Path, name: &str) -> bool {
    let output = Command::new(arch.tool("g++"))
        .arg(format!("-print-file-name={name}"))
        .output()
        .expect("run the mingw compiler");
    let path = PathBuf::from(text(&output).0.trim());
    if !path.is_absolute() || !path.is_file() {
        return false;
    }
    fs::copy(&path, dir.join(name)).expect("copy a mingw DLL");
    true
}

/// Runs `exe` with `args` and checks the host's lines: the unwinder DLL in the process (or
/// not) when the panics came, and every panic caught.
fn assert_caught(arch: Arch, exe: &Path, args: &[&str], libgcc_loaded: bool) {
    let what = format!("{arch:?} {} {}", exe.display(), args.join(" "));
    let output = run(&loader(arch), exe, args);
    let stdout = assert_host_passes(&output, &what);
    let loaded = if libgcc_loaded { "yes" } else { "no" };
    assert!(
        stdout.contains(&format!(
            "libgcc in the process before the panics: {loaded}"
        )),
        "{what}\n{stdout}"
    );
    assert!(
        stdout.contains("panics caught: the host lives"),
        "{what}\n{stdout}"
    );
}

/// The C++ host, its runtime linked statically (as the other hosts): without the unwinder
/// DLL, with it loaded before verify.dll (with and without exceptions of its own), and after.
fn static_host(arch: Arch, dir: &Path) {
    let compiled = compile(
        arch,
        &root().join("tests/platforms/windows/win_panic.cpp"),
        "win_panic",
    );
    let exe = dir.join("win_panic.exe");
    fs::copy(&compiled, &exe).expect("copy win_panic.exe");
    assert_caught(arch, &exe, &[], false);
    assert_caught(arch, &exe, &["libgcc-first"], true);
    assert_caught(arch, &exe, &["libgcc-first", "throw"], true);
    assert_caught(arch, &exe, &["libgcc-after", "throw"], true);
}

/// The C++ host with its runtime as DLLs (`-shared-libgcc`, libstdc++-6.dll): the loader maps
/// the unwinder DLL before main, so it is there before verify.dll.
fn shared_runtime_host(arch: Arch, dir: &Path) {
    assert!(
        copy_mingw_dll(arch, dir, "libstdc++-6.dll"),
        "{arch:?}: the mingw toolchain has no libstdc++-6.dll (scripts/install-deps.sh mingw)"
    );
    copy_mingw_dll(arch, dir, "libwinpthread-1.dll"); // needed by the posix thread model only
    let exe = dir.join("win_panic_shared.exe");
    let output = Command::new(arch.tool("g++"))
        .args(common::host::CXX_FLAGS)
        .arg("-I")
        .arg(root().join("include"))
        .arg(root().join("tests/platforms/windows/win_panic.cpp"))
        .arg("-shared-libgcc")
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the mingw compiler");
    assert!(
        output.status.success(),
        "{arch:?}: compiling win_panic.cpp with a shared runtime failed\n{}",
        show(&output)
    );
    let imported = exports::imports(&exports::objdump(arch, &exe));
    assert!(
        imported.contains(libgcc(arch)),
        "{arch:?}: win_panic_shared.exe does not import {}: {imported:?}",
        libgcc(arch)
    );
    assert_caught(arch, &exe, &[], true);
    assert_caught(arch, &exe, &["throw"], true);
}

/// The host without a C runtime, linked by lld-link (the MSVC way): exit status 0 when every
/// panic was caught (`win_panic_msvc.c` says what the others mean).
fn msvc_host(arch: Arch, dir: &Path) {
    let kernel32 = Command::new(arch.tool("gcc"))
        .arg("-print-file-name=libkernel32.a")
        .output()
        .expect("run the mingw compiler");
    let kernel32 = PathBuf::from(text(&kernel32).0.trim());
    assert!(kernel32.is_file(), "{arch:?}: no mingw libkernel32.a");
    for (name, defines) in [
        ("win_panic_msvc", &[][..]),
        ("win_panic_msvc_libgcc", &["-DLIBGCC_FIRST"][..]),
    ] {
        let object = dir.join(format!("{name}.o"));
        let exe = dir.join(format!("{name}.exe"));
        compile_freestanding(
            arch,
            &root().join("tests/platforms/windows/win_panic_msvc.c"),
            &object,
            defines,
        );
        lld_link(arch, &object, &exe, std::slice::from_ref(&kernel32));
        let output = run(&loader(arch), &exe, &[]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{arch:?}: {name}.exe: a panic not caught, or a step failed (win_panic_msvc.c)\n{}",
            show(&output)
        );
    }
}

fn panics_are_caught(arch: Arch) {
    let dir = panic_dir(arch);
    assert!(
        copy_mingw_dll(arch, &dir, libgcc(arch)),
        "{arch:?}: the mingw toolchain has no {} (scripts/install-deps.sh mingw)",
        libgcc(arch)
    );
    static_host(arch, &dir);
    shared_runtime_host(arch, &dir);
    msvc_host(arch, &dir);
    notice(&format!(
        "{arch:?}: panics caught in mingw hosts (static and shared runtime, {} loaded first \
         and after) and an MSVC-linked host",
        libgcc(arch)
    ));
}

#[test]
pub(crate) fn a_panic_comes_back_as_its_code_in_every_host_x64() {
    panics_are_caught(Arch::X64);
}

#[test]
pub(crate) fn a_panic_comes_back_as_its_code_in_every_host_x86() {
    panics_are_caught(Arch::X86);
}
