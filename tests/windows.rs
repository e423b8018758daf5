//! verify.dll for real: the Windows DLLs built on this machine (`scripts/build-windows.sh`,
//! mingw-w64) and Windows programs using them, run under Wine against the sandbox on Linux:
//! 64-bit programs under the host's wine64, 32-bit ones under 32-bit Wine in an i386 chroot
//! (`scripts/wine32.sh`).
//!
//! - Both DLLs (x64 and x86) export exactly the functions of `include/verify.h`, with
//!   undecorated names, depend on system DLLs only, and the x86 `.def` and import library
//!   carry the stdcall decorations callers link by.
//! - x86 is stdcall in its machine code: every export's `ret` pops 4 bytes per parameter of
//!   the header's prototype (the header and the DLL read with the mingw binutils), and
//!   `tests/hosts/win_stdcall.c` calls every function through the header, measures the bytes
//!   callees pop (with a stdcall and a cdecl control) and keeps the stack pointer over
//!   100,000 rounds of calls and 200 logins.
//! - The MSVC import libraries (`verify.lib`) link a caller with lld-link, no C runtime
//!   (`tests/hosts/win_msvc_link.c`): it imports the plain names (x86: from
//!   `_verify_abi_version@0`) and runs.
//! - `examples-c/demo.c` (mingw gcc) and `examples-c/demo.cpp` (mingw g++, `verify.hpp`)
//!   pass every step, as on Linux.
//! - `tests/hosts/cpp_typed.cpp`, the typed program (card and account login, the keeper
//!   seeing a ban, refusals, an offline start) on the typed C++ API (C++17, and C++23 with
//!   `std::expected` on x64), passes as on Linux (`tests/cpp_typed.rs`), the test banning its
//!   card when it asks.
//! - `tests/hosts/win_misuse.c`: NULLs, bad UTF-8, too long strings and out-of-range
//!   integers through every kind of export give their negative codes.
//! - `tests/hosts/win_threads.c`: eight Windows threads × 25 rounds of calls on one client.
//! - `tests/hosts/win_unload.c`: 100 cycles of LoadLibrary, a call whose name lookup a name
//!   server never answers (the test's namespaces), and FreeLibrary: no crash; the lookups
//!   hold the DLL until they end, and the last one unloads it. And 100 cycles of
//!   LoadLibrary, a card login, a keeper that has beaten, `verify_keeper_stop` and
//!   FreeLibrary: no crash, and each FreeLibrary unloads the DLL.
//! - `tests/hosts/win_codepage.c`: under a Chinese locale (ANSI code page 936, UI language
//!   Chinese: the end user's messages in GBK),
//!   `verify_set_code_page(VERIFY_CODE_PAGE_SYSTEM)` follows `GetACP()`: names, pointers and
//!   values in GBK both ways, reply texts and refusals in GBK, a character GBK cannot hold as
//!   `?`, non-GBK bytes refused, 65001 is UTF-8 again (the code pages are built into the
//!   Windows library only).
//! - `tests/hosts/win_machine.c`: the machine code comes from `MachineGuid` in the registry
//!   (it follows the registry value, no fallback file is written), 32 uppercase hex digits,
//!   the same in two runs, and a 32-bit process gives the codes a 64-bit one gives for the
//!   same MachineGuid; machine code v2 reads the real sources through Wine and plays the
//!   table's rows Wine can (an edited MachineGuid, a reinstall on the same board, a VM clone,
//!   a placeholder UUID) with the DMI files and `/var/lib/dbus/machine-id` that Wine reads made
//!   up in the test's own mount namespace.
//!
//! Every program runs for x64 and x86; x86 programs are linked with
//! `--disable-stdcall-fixup`, so that a calling convention mismatch between the header and
//! the DLL fails the link.
//!
//! The first use runs `scripts/build-windows.sh --wine` (installs mingw-w64 and Wine when
//! missing, makes the i386 chroot of 32-bit Wine once, builds both DLLs into
//! `target/windows/`, nothing when they are up to date). The 64-bit Wine prefix is
//! `target/windows/wine/prefix`, made once and reused; 32-bit programs are compiled into
//! `<chroot>/tmp/windows-<pid>/` and run in the chroot's own prefix. Rust's standard
//! library imports `ProcessPrng` from `bcryptprimitives.dll`, which Debian's Wine 8 lacks:
//! `tests/hosts/win_bcryptprimitives.c`, built here next to the programs, stands in for it
//! (test only; Windows 8 and later have the DLL).

mod common;

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

/// Says something in the test's output even when the test passes (libtest captures
/// `println!`, not direct writes).
fn notice(message: &str) {
    let _ = writeln!(std::io::stderr(), "windows: {message}");
}

fn windows() -> &'static Windows {
    static WINDOWS: OnceLock<Windows> = OnceLock::new();
    WINDOWS.get_or_init(|| {
        run_script("build-windows.sh", &["--wine"]);
        let out = target_dir().join("windows");
        let wine64 = ["/usr/lib/wine/wine64", "/usr/bin/wine64"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .expect("Wine's 64-bit loader (scripts/install-deps.sh wine)");
        let wine32_root = PathBuf::from(run_script("wine32.sh", &["root"]).trim());
        assert!(
            wine32_root.join(".verify-wine32").is_file(),
            "no 32-bit Wine at {} (scripts/build-windows.sh --wine makes it with \
             scripts/wine32.sh setup)",
            wine32_root.display()
        );
        let prefix = wine_prefix(&out.join("wine"), &wine64);
        remove_old_program_dirs(Path::new(env!("CARGO_TARGET_TMPDIR")));
        remove_old_program_dirs(&wine32_root.join("tmp"));
        Windows {
            out,
            prefix,
            wine32_root,
            wine64,
        }
    })
}

/// The Wine environment: the prefix, no debug output, no Mono or Gecko installers, no X.
fn wine_env(command: &mut Command, prefix: &Path) {
    command
        .env("WINEPREFIX", prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
}

/// `dir/prefix`, made with `wineboot --init` the first time, then reused. It is made under
/// another name and renamed into place, so that two test runs never share a half-made one.
fn wine_prefix(dir: &Path, wine64: &Path) -> PathBuf {
    fs::create_dir_all(dir).expect("create target/windows/wine");
    let prefix = dir.join("prefix");
    if prefix.join("system.reg").is_file() {
        return prefix;
    }
    let making = dir.join(format!("prefix.making-{}", std::process::id()));
    let _ = fs::remove_dir_all(&making);
    let started = Instant::now();
    let mut boot = Command::new(wine64);
    boot.args(["wineboot", "--init"]);
    wine_env(&mut boot, &making);
    let output = boot.output().expect("run wineboot");
    assert!(
        output.status.success(),
        "wineboot --init failed\n{}",
        show(&output)
    );
    // Wait for the prefix's wineserver to write the registry and exit.
    let server = wine64.with_file_name("wineserver");
    let mut wait = Command::new(if server.is_file() {
        server
    } else {
        PathBuf::from("wineserver")
    });
    wait.arg("-w");
    wine_env(&mut wait, &making);
    let _ = wait.status();
    if prefix.exists() && !prefix.join("system.reg").is_file() {
        let _ = fs::remove_dir_all(&prefix); // left half-made by an interrupted run
    }
    if fs::rename(&making, &prefix).is_err() {
        let _ = fs::remove_dir_all(&making); // another run made it first
    }
    assert!(
        prefix.join("system.reg").is_file(),
        "no Wine prefix at {}",
        prefix.display()
    );
    notice(&format!(
        "made the Wine prefix {} in {:.1} s",
        prefix.display(),
        started.elapsed().as_secs_f64()
    ));
    prefix
}

/// Removes the program folders of earlier test processes that have ended (each process
/// keeps its own, `<target>/tmp/windows-<pid>/` and, for x86, `<chroot>/tmp/windows-<pid>/`,
/// for inspection while it runs).
fn remove_old_program_dirs(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("windows-") else {
            continue;
        };
        let ended = pid.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
        });
        if ended {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// A folder of this test process for `arch`: the programs, a copy of the DLL under test and
/// the bcryptprimitives stand-in, built once. x86 programs run in the chroot of 32-bit Wine:
/// their folder is inside it.
fn program_dir(arch: Arch) -> &'static Path {
    static X64: OnceLock<PathBuf> = OnceLock::new();
    static X86: OnceLock<PathBuf> = OnceLock::new();
    let cell = match arch {
        Arch::X64 => &X64,
        Arch::X86 => &X86,
    };
    cell.get_or_init(|| {
        let win = windows();
        let parent = match arch {
            Arch::X64 => PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
            Arch::X86 => win.wine32_root.join("tmp"),
        };
        let dir = parent
            .join(format!("windows-{}", std::process::id()))
            .join(arch.name());
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the program folder");
        fs::copy(
            win.out.join(arch.name()).join("verify.dll"),
            dir.join("verify.dll"),
        )
        .expect("copy verify.dll");
        let mut shim = Command::new(arch.tool("gcc"));
        shim.args(["-shared", "-O2", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(dir.join("bcryptprimitives.dll"))
            .arg(root().join("tests/hosts/win_bcryptprimitives.c"))
            .arg("-ladvapi32");
        if arch == Arch::X86 {
            shim.arg("-Wl,--kill-at");
        }
        let output = shim.output().expect("run the mingw compiler");
        assert!(
            output.status.success(),
            "building the bcryptprimitives stand-in failed\n{}",
            show(&output)
        );
        dir
    })
}

/// Compiles a C (`.c`) or C++ (`.cpp`) source into `name.exe` for `arch` against the
/// import library of `target/windows/<arch>/`, warnings as errors; C++ links its runtime
/// statically so that the program needs no mingw DLL.
fn compile(arch: Arch, source: &Path, name: &str) -> PathBuf {
    compile_with(arch, source, name, &[])
}

/// [`compile`] with more flags (after the contract's, so `-std=c++23` wins).
fn compile_with(arch: Arch, source: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let dir = program_dir(arch);
    let exe = dir.join(format!("{name}.exe"));
    let cpp = source.extension().is_some_and(|e| e == "cpp");
    let mut command = Command::new(arch.tool(if cpp { "g++" } else { "gcc" }));
    if cpp {
        command.args(common::host::CXX_FLAGS);
    } else {
        command.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]);
    }
    command.args(extra);
    command
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(root().join("tests/hosts"))
        .arg(source)
        .arg("-L")
        .arg(windows().out.join(arch.name()))
        .arg("-l:libverify.dll.a")
        .args(arch.link_flags())
        .arg("-static")
        .arg("-o")
        .arg(&exe);
    let output = command.output().expect("run the mingw compiler");
    assert!(
        output.status.success(),
        "{arch:?}: compiling {} failed\n{}",
        source.display(),
        show(&output)
    );
    exe
}

/// The Wine loader for `arch`.
fn loader(arch: Arch) -> Loader {
    match arch {
        Arch::X64 => Loader::Wine64(windows().wine64.clone()),
        Arch::X86 => Loader::Wine32,
    }
}

/// A command that runs `program` (a path, or a program of Wine's own such as `reg`) under
/// `loader`, in the loader's prefix.
fn wine_command(loader: &Loader, program: &std::ffi::OsStr) -> Command {
    match loader {
        Loader::Wine64(wine64) => {
            let mut command = Command::new(wine64);
            command.arg(program);
            wine_env(&mut command, &windows().prefix);
            command
        }
        Loader::Wine32 => {
            let mut command = Command::new(root().join("scripts/wine32.sh"));
            command.arg("exec").arg(program);
            command
        }
    }
}

/// Runs `exe` under Wine with `args`, killed after [`RUN_LIMIT`].
fn run(loader: &Loader, exe: &Path, args: &[&str]) -> Output {
    run_with(loader, exe, args, &[])
}

/// [`run`] with more environment variables (32-bit Wine passes on `LANG` and `LC_ALL`).
fn run_with(loader: &Loader, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = wine_command(loader, exe.as_os_str());
    command
        .args(args)
        .current_dir(exe.parent().expect("the program folder"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("start Wine");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for Wine") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let status = child.wait().expect("reap Wine");
            let output = Output {
                status,
                stdout: out_reader.join().unwrap_or_default(),
                stderr: err_reader.join().unwrap_or_default(),
            };
            panic!(
                "{} did not finish within {RUN_LIMIT:?}\n{}",
                exe.display(),
                show(&output)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

/// Runs a host of `tests/hosts/` that ends with "RESULT: N checks, 0 failed".
fn assert_host_passes(output: &Output, what: &str) -> String {
    let (stdout, _) = text(output);
    assert!(
        output.status.success() && stdout.contains(" checks, 0 failed"),
        "{what} failed under Wine\n{}",
        show(output)
    );
    stdout
}

// --- the DLLs ------------------------------------------------------------------------------

/// The functions `include/verify.h` declares.
fn header_functions() -> BTreeSet<String> {
    let header = fs::read_to_string(root().join("include/verify.h")).expect("read verify.h");
    let mut names = BTreeSet::new();
    for line in header.lines() {
        if line.starts_with([' ', '*', '/', '#']) || line.starts_with("typedef") {
            continue;
        }
        if let Some(at) = line.find("verify_") {
            let name: String = line[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if line[at + name.len()..].starts_with('(') {
                names.insert(name);
            }
        }
    }
    assert!(names.len() > 40, "verify.h declares {names:?}");
    names
}

/// `objdump -p` of a PE file.
fn objdump(arch: Arch, file: &Path) -> String {
    let output = Command::new(arch.tool("objdump"))
        .arg("-p")
        .arg(file)
        .output()
        .expect("run objdump");
    assert!(output.status.success(), "objdump -p\n{}", show(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn exports(dump: &str) -> BTreeSet<String> {
    dump.lines()
        .skip_while(|l| !l.starts_with("[Ordinal/Name Pointer] Table"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split(']').nth(1).map(|n| n.trim().to_owned()))
        .collect()
}

fn imports(dump: &str) -> BTreeSet<String> {
    dump.lines()
        .filter_map(|l| l.trim().strip_prefix("DLL Name: "))
        .map(str::to_ascii_lowercase)
        .collect()
}

#[test]
fn dlls_export_the_header_undecorated_and_need_only_system_dlls() {
    let win = windows();
    let declared = header_functions();
    for arch in [Arch::X64, Arch::X86] {
        let dir = win.out.join(arch.name());
        let dll = dir.join("verify.dll");
        let dump = objdump(arch, &dll);
        let machine = match arch {
            Arch::X64 => "file format pei-x86-64",
            Arch::X86 => "file format pei-i386",
        };
        assert!(dump.contains(machine), "{arch:?}: not {machine}");

        let exported = exports(&dump);
        let missing: Vec<_> = declared.difference(&exported).collect();
        let extra: Vec<_> = exported.difference(&declared).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{arch:?}: verify.dll and verify.h differ: declared, not exported {missing:?}; \
             exported, not declared {extra:?}"
        );
        for name in &exported {
            assert!(
                !name.contains('@') && !name.starts_with('_'),
                "{arch:?}: decorated export {name}"
            );
        }

        // System DLLs only: no mingw runtime (libgcc, libstdc++, winpthread) to ship.
        for dll_name in imports(&dump) {
            let system = dll_name.starts_with("api-ms-win-")
                || [
                    "kernel32.dll",
                    "ntdll.dll",
                    "advapi32.dll",
                    "bcrypt.dll",
                    "bcryptprimitives.dll",
                    "ws2_32.dll",
                    "msvcrt.dll",
                    "userenv.dll",
                    "secur32.dll",
                    "crypt32.dll",
                    "ncrypt.dll",
                    "ole32.dll",
                    "oleaut32.dll",
                    "shell32.dll",
                    "user32.dll",
                ]
                .contains(&dll_name.as_str());
            assert!(system, "{arch:?}: verify.dll imports {dll_name}");
        }

        // The .def names every export; on x86 with its stdcall decoration (@ argument bytes).
        let def = fs::read_to_string(dir.join("verify.def")).expect("read verify.def");
        let listed: BTreeSet<String> = def
            .lines()
            .filter_map(|l| l.strip_prefix("    "))
            .map(|l| l.split('@').next().unwrap_or(l).to_owned())
            .collect();
        assert_eq!(listed, exported, "{arch:?}: verify.def");
        if arch == Arch::X86 {
            assert!(
                def.contains("    verify_init@8\n"),
                "x86 verify.def:\n{def}"
            );
            assert!(def.contains("    verify_abi_version@0\n"), "x86 verify.def");
        }
        assert!(
            dir.join("libverify.dll.a").is_file(),
            "{arch:?}: import library"
        );
        notice(&format!(
            "{arch:?} verify.dll: {} bytes stripped, {} exports",
            fs::metadata(&dll).map(|m| m.len()).unwrap_or(0),
            exported.len()
        ));
    }
    for arch in ["x64", "x86"] {
        let lib = win.out.join(arch).join("verify.lib");
        assert!(lib.is_file(), "{arch}: MSVC import library");
    }
}

/// Every function `include/verify.h` declares, with the bytes its parameters take on the
/// 32-bit x86 stack (4 each, 8 for a 64-bit integer or a double passed by value).
fn header_argument_bytes() -> BTreeMap<String, u32> {
    let header = fs::read_to_string(root().join("include/verify.h")).expect("read verify.h");
    let mut functions = BTreeMap::new();
    for (at, _) in header.match_indices("VERIFY_CALL verify_") {
        let rest = &header[at + "VERIFY_CALL ".len()..];
        let Some(open) = rest.find('(') else { continue };
        let name = &rest[..open];
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // not a prototype
        }
        let close = rest.find(')').expect("a prototype ends");
        let params = rest[open + 1..close].trim();
        let bytes = if params == "void" {
            0
        } else {
            params
                .split(',')
                .map(|param| {
                    let param = param.split_whitespace().collect::<Vec<_>>().join(" ");
                    let by_value_64 = ["int64_t ", "uint64_t ", "double "]
                        .iter()
                        .any(|t| param.starts_with(t) || param.starts_with(&format!("const {t}")));
                    if by_value_64 && !param.contains('*') {
                        8
                    } else {
                        4
                    }
                })
                .sum()
        };
        functions.insert(name.to_owned(), bytes);
    }
    assert_eq!(
        functions.keys().cloned().collect::<BTreeSet<_>>(),
        header_functions(),
        "every function of verify.h has its prototype parsed"
    );
    functions
}

/// The exports of a PE file with their virtual addresses (image base + export RVA), from
/// `objdump -p`.
fn export_addresses(arch: Arch, file: &Path) -> BTreeMap<String, u64> {
    let dump = objdump(arch, file);
    let hex = |s: &str| u64::from_str_radix(s, 16).expect("hex");
    let base = dump
        .lines()
        .find_map(|l| l.strip_prefix("ImageBase"))
        .map(|v| hex(v.trim()))
        .expect("ImageBase");
    // "[   3] +base[   4] 7d10 Export RVA" by ordinal; "[   3] verify_x" by name.
    let rvas: BTreeMap<u64, u64> = dump
        .lines()
        .skip_while(|l| !l.starts_with("Export Address Table -- "))
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let (ordinal, rest) = l.trim().strip_prefix('[')?.split_once(']')?;
            let rva = rest.split_whitespace().rev().nth(2)?;
            Some((ordinal.trim().parse().ok()?, hex(rva)))
        })
        .collect();
    dump.lines()
        .skip_while(|l| !l.starts_with("[Ordinal/Name Pointer] Table"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let (ordinal, name) = l.trim().strip_prefix('[')?.split_once(']')?;
            let rva = rvas.get(&ordinal.trim().parse().ok()?)?;
            Some((name.trim().to_owned(), base + rva))
        })
        .collect()
}

/// The x86 DLL is stdcall in its machine code: every export of `include/verify.h` returns
/// with `ret 4×(number of parameters)` (the callee pops its arguments, as VB6, 易语言 and
/// Delphi expect), every `ret` of it, read with the mingw binutils from the DLL that ships
/// (`target/windows/x86/verify.dll`); where each function ends comes from the symbols of
/// the same build before stripping.
#[test]
fn x86_exports_pop_their_arguments_stdcall() {
    let win = windows();
    let declared = header_argument_bytes();
    let dll = win.out.join("x86/verify.dll");
    let exports = export_addresses(Arch::X86, &dll);
    assert_eq!(
        exports.keys().cloned().collect::<BTreeSet<_>>(),
        declared.keys().cloned().collect::<BTreeSet<_>>(),
        "the x86 DLL exports what verify.h declares"
    );
    // The unstripped DLL: its symbols, in address order, bound each function.
    let unstripped = target_dir().join("i686-pc-windows-gnu/release/verify.dll");
    let symbols = Command::new(Arch::X86.tool("nm"))
        .args(["-n", "--defined-only"])
        .arg(&unstripped)
        .output()
        .expect("run nm");
    assert!(symbols.status.success(), "nm\n{}", show(&symbols));
    let starts: Vec<(u64, String)> = text(&symbols)
        .0
        .lines()
        .filter_map(|l| {
            let mut fields = l.split_whitespace();
            let address = u64::from_str_radix(fields.next()?, 16).ok()?;
            let kind = fields.next()?;
            let name = fields.next()?;
            ["T", "t"]
                .contains(&kind)
                .then(|| (address, name.to_owned()))
        })
        .collect();
    let mut report = Vec::new();
    for (name, &bytes) in &declared {
        let start = exports[name];
        let symbol = format!("_{name}@{bytes}");
        assert!(
            starts.iter().any(|(a, n)| *a == start && *n == symbol),
            "{name}: the unstripped DLL has no {symbol} at {start:#x}: not the same build, or \
             the symbol's decoration differs from the header's {bytes} bytes"
        );
        let end = starts
            .iter()
            .map(|(a, _)| *a)
            .find(|a| *a > start)
            .expect("a symbol after every function");
        let output = Command::new(Arch::X86.tool("objdump"))
            .args(["-d", "--no-show-raw-insn", "--wide"])
            .arg(format!("--start-address={start:#x}"))
            .arg(format!("--stop-address={end:#x}"))
            .arg(&dll)
            .output()
            .expect("run objdump -d");
        assert!(output.status.success(), "objdump -d\n{}", show(&output));
        let rets: Vec<String> = text(&output)
            .0
            .lines()
            .filter_map(|l| {
                let instruction = l.split('\t').nth(1)?.trim();
                (instruction == "ret" || instruction.starts_with("ret "))
                    .then(|| instruction.split_whitespace().collect::<Vec<_>>().join(" "))
            })
            .collect();
        let expected = if bytes == 0 {
            "ret".to_owned()
        } else {
            format!("ret ${bytes:#x}")
        };
        if rets.is_empty() || rets.iter().any(|r| *r != expected) {
            report.push(format!(
                "{name} at {start:#x}..{end:#x}: {rets:?}, expected `{expected}` ({bytes} argument bytes)"
            ));
        }
    }
    assert!(
        report.is_empty(),
        "x86 exports that do not pop their arguments as stdcall:\n{}",
        report.join("\n")
    );
    notice(&format!(
        "x86 verify.dll: all {} exports return with `ret 4×parameters`",
        declared.len()
    ));
}

/// `tests/hosts/win_stdcall.c`, a 32-bit program linked by the x86 import library, calls
/// every function of the header (it imports them all from verify.dll), measures the bytes
/// each callee pops (stdcall and cdecl controls, one export of each arity) and keeps the
/// stack pointer over 100,000 rounds of calls and 200 logins, under 32-bit Wine.
#[test]
fn x86_program_calls_every_function_stdcall_under_wine32() {
    let exe = compile(
        Arch::X86,
        &root().join("tests/hosts/win_stdcall.c"),
        "win_stdcall",
    );
    let imported: BTreeSet<String> = {
        let dump = objdump(Arch::X86, &exe);
        dump.lines()
            .skip_while(|l| l.trim() != "DLL Name: verify.dll")
            .skip(2)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().last().map(str::to_owned))
            .collect()
    };
    assert_eq!(
        imported,
        header_functions(),
        "win_stdcall.exe imports every function of verify.h from verify.dll"
    );
    let program = common::Program::fresh();
    let card = program.day_card(&common::unique("STDCALL-"), 30);
    let user = common::unique("stdcall");
    program.account(&user, "stdcall-pass");
    let output = run(
        &loader(Arch::X86),
        &exe,
        &[
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            &card,
            &user,
            "stdcall-pass",
        ],
    );
    let stdout = assert_host_passes(&output, "x86 win_stdcall.exe");
    for line in [
        "pops control_stdcall: 8 of 8 argument bytes",
        "pops control_cdecl: 0 of 8 argument bytes",
        "pops verify_social_login_wait: 28 of 28 argument bytes",
    ] {
        assert!(stdout.contains(line), "no `{line}`\n{stdout}");
    }
    let sp = stdout
        .lines()
        .find(|l| l.starts_with("stack pointer "))
        .unwrap_or_else(|| panic!("no stack pointer line\n{stdout}"));
    notice(&format!("x86 win_stdcall.exe: {sp}"));
}

/// `verify.lib` links a caller the MSVC way: `tests/hosts/win_msvc_link.c` as an object,
/// lld-link, no C runtime. The program imports the plain names (on x86 too, where the
/// object refers to `_verify_abi_version@0`), and runs (x64; x86 where Wine can).
#[test]
fn msvc_import_libraries_link_callers_to_the_plain_names() {
    let win = windows();
    let lld = rust_tool("rust-lld");
    for arch in [Arch::X64, Arch::X86] {
        let dir = program_dir(arch);
        let object = dir.join("win_msvc_link.o");
        let exe = dir.join("win_msvc_link.exe");
        let output = Command::new(arch.tool("gcc"))
            .args([
                "-c",
                "-O2",
                "-ffreestanding",
                "-fno-asynchronous-unwind-tables",
            ])
            .args(["-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root().join("include"))
            .arg(root().join("tests/hosts/win_msvc_link.c"))
            .arg("-o")
            .arg(&object)
            .output()
            .expect("run the mingw compiler");
        assert!(
            output.status.success(),
            "{arch:?}: compile\n{}",
            show(&output)
        );
        if arch == Arch::X86 {
            let symbols = Command::new(arch.tool("nm"))
                .arg(&object)
                .output()
                .expect("run nm");
            let (symbols, _) = text(&symbols);
            assert!(
                symbols.contains("U _verify_abi_version@0"),
                "x86 callers refer to the stdcall symbol:\n{symbols}"
            );
        }
        let machine = if arch == Arch::X64 { "x64" } else { "x86" };
        let output = Command::new(&lld)
            .args([
                "-flavor",
                "link",
                "/nologo",
                "/entry:start",
                "/subsystem:console",
            ])
            .args(["/nodefaultlib", "/safeseh:no"])
            .arg(format!("/machine:{machine}"))
            .arg(&object)
            .arg(win.out.join(arch.name()).join("verify.lib"))
            .arg(format!("/out:{}", exe.display()))
            .output()
            .expect("run rust-lld");
        assert!(
            output.status.success(),
            "{arch:?}: lld-link with verify.lib\n{}",
            show(&output)
        );
        let dump = objdump(arch, &exe);
        assert!(imports(&dump).contains("verify.dll"), "{arch:?}:\n{dump}");
        for name in ["verify_abi_version", "verify_version"] {
            assert!(
                dump.lines()
                    .any(|l| l.split_whitespace().last() == Some(name)),
                "{arch:?}: the program does not import `{name}` by its plain name\n{dump}"
            );
        }
        assert!(!dump.contains("verify_abi_version@"), "{arch:?}:\n{dump}");
        let output = run(&loader(arch), &exe, &[]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{arch:?}: its exit status is the ABI version\n{}",
            show(&output)
        );
    }
}

// --- the demos -------------------------------------------------------------------------------

fn c_demo(arch: Arch) {
    let exe = compile(arch, &root().join("examples-c/demo.c"), "demo");
    let loader = loader(arch);
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run(&loader, &exe, &[&sandbox.base_url(), &app_id, &app_key]);
    sandbox.stop();
    let report = format!("{arch:?} demo.exe under Wine\n{}", show(&output));
    assert!(output.status.success(), "{report}");
    assert_demo_output(&text(&output).0, DEMO_STEPS, &app_key, &report);
}

#[test]
fn c_demo_passes_under_wine_x64() {
    c_demo(Arch::X64);
}

/// The offline store's time mark keeps its second place in the user's registry: after the
/// demo's run with a state folder (offline verdicts on), `HKEY_CURRENT_USER\Software\verify`
/// holds the program's sealed mark (a binary value `clock-...`), and nothing of it in
/// `%APPDATA%`.
#[test]
fn the_time_mark_is_kept_in_the_registry_under_wine_x64() {
    let exe = compile(Arch::X64, &root().join("examples-c/demo.c"), "demo");
    let loader = loader(Arch::X64);
    let mut clear = wine_command(&loader, "reg".as_ref());
    clear.args(["delete", r"HKCU\Software\verify", "/f"]);
    let _ = clear.output();
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run(
        &loader,
        &exe,
        &[
            &sandbox.base_url(),
            &app_id,
            &app_key,
            "--state",
            "mark-state",
        ],
    );
    sandbox.stop();
    let report = format!("demo.exe --state under Wine\n{}", show(&output));
    assert!(output.status.success(), "{report}");
    let mut query = wine_command(&loader, "reg".as_ref());
    query.args(["query", r"HKCU\Software\verify"]);
    let listed = query.output().expect("run wine reg query");
    let (stdout, _) = text(&listed);
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("clock-") && l.contains("REG_BINARY")),
        "no time mark in the registry\n{}\n{report}",
        show(&listed)
    );
}

#[test]
fn c_demo_passes_under_wine_x86() {
    c_demo(Arch::X86);
}

fn cpp_demo(arch: Arch) {
    let exe = compile(arch, &root().join("examples-c/demo.cpp"), "demo_cpp");
    let loader = loader(arch);
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run(&loader, &exe, &[&sandbox.base_url(), &app_id, &app_key]);
    sandbox.stop();
    let report = format!("{arch:?} demo_cpp.exe under Wine\n{}", show(&output));
    let stdout = text(&output).0;
    assert!(output.status.success(), "{report}");
    for line in [
        "[client.init] code 200",
        "[client.single_login] code 200",
        "[client.user_login(machine B)] code 200",
        "device_id      \"DEMO-MACHINE-B-0002\"",
        "PASSED: all 13 steps got their expected code",
    ] {
        assert!(stdout.contains(line), "missing `{line}`\n{report}");
    }
    assert!(!stdout.contains(&app_key), "the AppKey is never printed");
}

#[test]
fn cpp_demo_passes_under_wine_x64() {
    cpp_demo(Arch::X64);
}

#[test]
fn cpp_demo_passes_under_wine_x86() {
    cpp_demo(Arch::X86);
}

// --- the typed C++ program ----------------------------------------------------------------

fn cpp_typed(arch: Arch, std: &str) {
    let name = format!("cpp_typed_{}", std.trim_start_matches("-std="));
    // mingw's GCC 12 defines std::type_info::operator== inline in C++23 and again in the static
    // libstdc++.a (GCC bug 110572, fixed in 13.3): the two are the same function, so the
    // C++23 build lets the linker keep the first.
    let mut flags = vec![std];
    if std == "-std=c++23" {
        flags.push("-Wl,--allow-multiple-definition");
    }
    let exe = compile_with(
        arch,
        &root().join("tests/hosts/cpp_typed.cpp"),
        &name,
        &flags,
    );
    let loader = loader(arch);
    let issue = common::host::IssueProgram::new("WTYP-CARD-0000-0001");
    let mut command = wine_command(&loader, exe.as_os_str());
    command
        .args(issue.args())
        .current_dir(exe.parent().expect("the program folder"));
    let output = common::host::run_host_command(command, |line| issue.answer(line));
    let report = format!("{arch:?} {name}.exe under Wine\n{}", output.report());
    issue.assert_output(&output, &report);
    let stdout = &output.stdout;
    let expected = format!(
        "expected: {}",
        if std == "-std=c++23" { "yes" } else { "no" }
    );
    assert!(stdout.contains(&expected), "no `{expected}`\n{report}");
}

#[test]
fn cpp_typed_program_passes_under_wine_x64() {
    cpp_typed(Arch::X64, "-std=c++17");
}

#[test]
fn cpp_typed_program_with_std_expected_passes_under_wine_x64() {
    cpp_typed(Arch::X64, "-std=c++23");
}

#[test]
fn cpp_typed_program_passes_under_wine_x86() {
    cpp_typed(Arch::X86, "-std=c++17");
}

// --- misuse, threads, machine code -----------------------------------------------------------

fn misuse(arch: Arch) {
    let exe = compile(arch, &root().join("tests/hosts/win_misuse.c"), "win_misuse");
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
fn misuse_gives_codes_under_wine_x64() {
    misuse(Arch::X64);
}

#[test]
fn misuse_gives_codes_under_wine_x86() {
    misuse(Arch::X86);
}

/// Runs `win_unload.exe 100` for `arch` in mount and network namespaces of the test's own:
/// a loopback network whose name server (127.0.0.1:53, a UDP socket of the test's that reads
/// nothing and never answers) is the one `resolv.conf` names, for Wine (x64) or in the chroot
/// of 32-bit Wine (x86). Every cycle unloads verify.dll with a lookup still running.
fn unload(arch: Arch) {
    let exe = compile(arch, &root().join("tests/hosts/win_unload.c"), "win_unload");
    let dir = exe.parent().expect("the program folder");
    let resolv = dir.join("resolv.conf");
    fs::write(
        &resolv,
        "nameserver 127.0.0.1\noptions timeout:3 attempts:1\n",
    )
    .expect("write resolv.conf");
    let win = windows();
    let etc = match arch {
        Arch::X64 => PathBuf::from("/etc/resolv.conf"),
        Arch::X86 => win.wine32_root.join("etc/resolv.conf"),
    };
    // The name server is bound before the program starts; it ends with the namespace's shell.
    let script = r#"set -e
ip link set lo up
mount --bind "$RESOLV" "$ETC"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
print("ready", flush=True)
time.sleep(600)' > "$READY" &
server=$!
tries=0
until [ -s "$READY" ] || [ "$tries" -ge 200 ]; do sleep 0.05; tries=$((tries + 1)); done
status=0
"$@" || status=$?
kill "$server"
exit "$status""#;
    let mut command = Command::new("unshare");
    command
        .args(["--mount", "--net", "--", "sh", "-c", script, "sh"])
        .env("RESOLV", &resolv)
        .env("ETC", &etc)
        .env("READY", dir.join("name-server-ready"));
    match arch {
        Arch::X64 => {
            command.arg(&win.wine64);
            wine_env(&mut command, &win.prefix);
        }
        Arch::X86 => {
            command.arg(root().join("scripts/wine32.sh")).arg("exec");
        }
    }
    command.arg(&exe).arg("100").current_dir(dir);
    let started = Instant::now();
    let output = command.output().expect("run unshare");
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_unload.exe"));
    notice(&format!(
        "{arch:?}: 100 FreeLibrary cycles with lookups in flight in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        stdout.lines().find(|l| l.contains("cycles")).unwrap_or("")
    ));
}

#[test]
fn free_library_with_lookups_in_flight_under_wine_x64() {
    unload(Arch::X64);
}

#[test]
fn free_library_with_lookups_in_flight_under_wine_x86() {
    unload(Arch::X86);
}

/// Runs `win_unload.exe 100 BASE_URL APP_ID APP_KEY CARD` for `arch` against this binary's
/// sandbox: 100 cycles of LoadLibrary, a card login, a keeper that has beaten at least once,
/// `verify_keeper_stop` and free, the client freed, and FreeLibrary, each of which unloads
/// verify.dll (the program polls `GetModuleHandle` for it).
fn unload_after_keepers(arch: Arch) {
    // A name of its own: the lookup test of the same arch may compile and run at once.
    let exe = compile(
        arch,
        &root().join("tests/hosts/win_unload.c"),
        "win_unload_keepers",
    );
    let program = common::Program::fresh();
    let card = program.day_card(&common::unique("UNLOAD-"), 30);
    let started = Instant::now();
    let output = run(
        &loader(arch),
        &exe,
        &[
            "100",
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            &card,
        ],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_unload.exe (keepers)"));
    notice(&format!(
        "{arch:?}: 100 FreeLibrary cycles after stopped keepers in {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        stdout.lines().find(|l| l.contains("cycles")).unwrap_or("")
    ));
}

#[test]
fn free_library_after_a_stopped_keeper_under_wine_x64() {
    unload_after_keepers(Arch::X64);
}

#[test]
fn free_library_after_a_stopped_keeper_under_wine_x86() {
    unload_after_keepers(Arch::X86);
}

/// The MachineGuid of the Wine prefixes: `machine_code_comes_from_the_registry_under_wine`
/// changes it (write), and the programs that check their machine code stays the same while
/// they run (the thread test) must not see it change (read).
static MACHINE_GUID: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn threads(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/hosts/win_threads.c"),
        "win_threads",
    );
    let _guid = MACHINE_GUID
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let loader = loader(arch);
    let program = common::Program::fresh();
    let card = program.day_card(&common::unique("WINTHREADS-"), 30);
    let output = run(
        &loader,
        &exe,
        &[
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            &card,
            "8",
            "25",
        ],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_threads.exe"));
    assert!(
        stdout.contains("threads 8, calls 25, ok 800"),
        "{arch:?}: {stdout}"
    );
    // Every heartbeat reached the server: 8 × 25 of them, plus the login's Init and login.
    let heartbeats = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("UserHeartbeat"))
        .count();
    assert_eq!(heartbeats, 200, "{arch:?}: heartbeats the sandbox saw");
}

#[test]
fn one_client_many_threads_under_wine_x64() {
    threads(Arch::X64);
}

#[test]
fn one_client_many_threads_under_wine_x86() {
    threads(Arch::X86);
}

fn code_page(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/hosts/win_codepage.c"),
        "win_codepage",
    );
    let loader = loader(arch);
    let program = common::Program::new(
        common::sandbox(),
        serde_json::json!({"variables": {
            "greeting": "你好 & welcome", "名字": "值", "emoji": "😀"
        }}),
    );
    program.account("张三", "gbk-pass");
    // Wine takes the ANSI code page from the Unix locale: 936 (GBK) for zh_CN.
    let output = run_with(
        &loader,
        &exe,
        &[
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            "gbk-pass",
        ],
        &[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "zh_CN.UTF-8")],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_codepage.exe"));
    assert!(stdout.contains("GetACP 936"), "{arch:?}: {stdout}");
    // The user's UI language follows the locale too (0804: Chinese, PRC): the end user's
    // messages are Chinese by default, in GBK.
    assert!(
        stdout.contains("GetUserDefaultUILanguage 0804, verify_language zh-CN"),
        "{arch:?}: {stdout}"
    );
}

#[test]
fn system_code_page_is_gbk_on_chinese_windows_x64() {
    code_page(Arch::X64);
}

#[test]
fn system_code_page_is_gbk_on_chinese_windows_x86() {
    code_page(Arch::X86);
}

/// The registry value of `MachineGuid` in `loader`'s prefix, through Wine's `reg`.
fn machine_guid(loader: &Loader) -> String {
    let mut query = wine_command(loader, "reg".as_ref());
    query.args([
        "query",
        r"HKLM\Software\Microsoft\Cryptography",
        "/v",
        "MachineGuid",
    ]);
    let output = query.output().expect("run wine reg query");
    let (stdout, _) = text(&output);
    stdout
        .lines()
        .find(|l| l.contains("MachineGuid"))
        .and_then(|l| l.split_whitespace().last())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no MachineGuid in the prefix\n{}", show(&output)))
}

fn set_machine_guid(loader: &Loader, guid: &str) {
    let mut add = wine_command(loader, "reg".as_ref());
    add.args([
        "add",
        r"HKLM\Software\Microsoft\Cryptography",
        "/v",
        "MachineGuid",
        "/t",
        "REG_SZ",
        "/d",
        guid,
        "/f",
    ]);
    let output = add.output().expect("run wine reg add");
    assert!(output.status.success(), "reg add\n{}", show(&output));
}

/// Puts the prefix's MachineGuid back when the test ends, passed or not.
struct RestoreGuid(Loader, String);

impl Drop for RestoreGuid {
    fn drop(&mut self) {
        set_machine_guid(&self.0, &self.1);
    }
}

fn codes(loader: &Loader, exe: &Path, salts: &[&str]) -> Vec<String> {
    let output = run(loader, exe, salts);
    let stdout = assert_host_passes(&output, "win_machine.exe");
    salts
        .iter()
        .map(|salt| {
            let label = format!("machine_code {salt} ");
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(&label))
                .unwrap_or_else(|| panic!("no code for {salt}\n{stdout}"))
                .to_owned()
        })
        .collect()
}

#[test]
fn machine_code_comes_from_the_registry_under_wine() {
    let win = windows();
    let _guid = MACHINE_GUID
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let wine64 = loader(Arch::X64);
    let exe64 = compile(
        Arch::X64,
        &root().join("tests/hosts/win_machine.c"),
        "win_machine",
    );
    let exe86 = compile(
        Arch::X86,
        &root().join("tests/hosts/win_machine.c"),
        "win_machine",
    );
    let salts = ["app-one", "app-two"];

    // Stable: two runs give the same codes; salts give different ones.
    let first = codes(&wine64, &exe64, &salts);
    let second = codes(&wine64, &exe64, &salts);
    assert_eq!(first, second, "the machine code changed between two runs");
    assert_ne!(first[0], first[1], "the salt changes the code");

    // From MachineGuid: another value gives other codes, the same value the same again,
    // and no random identity file was written in the profile.
    let original = machine_guid(&wine64);
    let _restore = RestoreGuid(wine64.clone(), original.clone());
    set_machine_guid(&wine64, "0b5e1c1e-7a3d-4c2b-9e8f-0123456789ab");
    let other = codes(&wine64, &exe64, &salts);
    assert_ne!(other, first, "the code does not follow MachineGuid");
    assert_eq!(codes(&wine64, &exe64, &salts), other, "stable again");
    set_machine_guid(&wine64, &original);
    assert_eq!(codes(&wine64, &exe64, &salts), first, "back to the first");
    let users = win.prefix.join("drive_c/users");
    let fallback: Vec<_> = fs::read_dir(&users)
        .map(|dirs| {
            dirs.filter_map(Result::ok)
                .map(|d| d.path().join("AppData/Roaming/verify/machine-id"))
                .filter(|p| p.exists())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        fallback.is_empty(),
        "a fallback identity was written: {fallback:?}"
    );
    notice(&format!(
        "x64 machine code under Wine (MachineGuid {original}): {}",
        first[0]
    ));

    // A 32-bit process: its prefix (32-bit Wine's own, in the chroot) has a MachineGuid of
    // its own, which it reads into the same codes as a 64-bit process given that GUID.
    let wine32 = loader(Arch::X86);
    let guid32 = machine_guid(&wine32);
    let codes32 = codes(&wine32, &exe86, &salts);
    set_machine_guid(&wine64, &guid32);
    assert_eq!(
        codes(&wine64, &exe64, &salts),
        codes32,
        "x86 and x64 give other codes for the MachineGuid {guid32}"
    );
    assert_ne!(codes32, first, "x86 ignores its MachineGuid");
}

/// One run of `win_machine v2 SALT FOLDER`: (code, outcome number, [(component, state)]).
struct WineV2 {
    code: String,
    outcome: String,
    components: Vec<(String, String)>,
    stdout: String,
}

impl WineV2 {
    fn state(&self, component: &str) -> &str {
        self.components
            .iter()
            .find(|(name, _)| name == component)
            .map(|(_, state)| state.as_str())
            .unwrap_or_else(|| panic!("no {component}\n{}", self.stdout))
    }
}

/// Runs `win_machine v2` under Wine; `setup` (shell lines, as root) runs first in new mount
/// and network namespaces of the test's own when it is not empty: a made-up DMI folder that
/// Wine's `GetSystemFirmwareTable` reads, adapters. The machine itself is never changed.
fn v2_under_wine(
    exe: &Path,
    salt: &str,
    folder: &Path,
    setup: &str,
    env: &[(&str, &str)],
) -> WineV2 {
    let win = windows();
    let windows_folder = format!("Z:{}", folder.display().to_string().replace('/', "\\"));
    let args = ["v2", salt, windows_folder.as_str()];
    let output = if setup.is_empty() {
        run(&loader(Arch::X64), exe, &args)
    } else {
        let mut command = Command::new("unshare");
        command
            .args(["--mount", "--net", "--", "sh", "-c"])
            .arg(format!("set -e\n{setup}\nexec \"$@\""))
            .arg("sh")
            .arg(&win.wine64)
            .arg(exe)
            .args(args)
            .current_dir(exe.parent().expect("the program folder"));
        wine_env(&mut command, &win.prefix);
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("run unshare")
    };
    let stdout = assert_host_passes(&output, "win_machine.exe v2");
    let field = |label: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(label))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no `{label}`\n{stdout}"))
    };
    let outcome = match field("v2-outcome ").as_str() {
        "1" => "issued",
        "2" => "kept",
        "3" => "reissued",
        "4" => "store_unreadable",
        other => panic!("outcome {other}"),
    }
    .to_owned();
    WineV2 {
        code: field("v2-code "),
        outcome,
        components: stdout
            .lines()
            .filter_map(|l| l.strip_prefix("component "))
            .filter_map(|l| l.split_once(' '))
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
            .collect(),
        stdout: stdout.clone(),
    }
}

/// The sources Wine builds its SMBIOS table from, made up in the namespace (root): the DMI
/// folder for the names and serials, and `/var/lib/dbus/machine-id`, which Wine 8 turns into
/// the system UUID ($DBUS_ID, 32 hex digits).
const WINE_DMI: &str = "mount -t tmpfs verify-dmi /sys/class
mkdir -p /sys/class/dmi/id
printf '%s\\n' \"$DBUS_ID\" > /sys/class/dmi/id/dbus-machine-id
mount --bind /sys/class/dmi/id/dbus-machine-id /var/lib/dbus/machine-id
printf '%s\\n' \"$DMI_UUID\" > /sys/class/dmi/id/product_uuid
printf '%s\\n' \"$DMI_SERIAL\" > /sys/class/dmi/id/board_serial
printf 'Dell Inc.\\n' > /sys/class/dmi/id/sys_vendor
printf 'OptiPlex 7070\\n' > /sys/class/dmi/id/product_name";

/// Machine code v2 of Windows programs: the real sources through Wine (MachineGuid from the
/// registry, the SMBIOS table from GetSystemFirmwareTable, the volume serial, CPUID), and
/// the table's rows that Wine can play: MachineGuid edited, a reinstall (new MachineGuid and
/// volume serial) on the same board, a VM clone (new SMBIOS UUID).
#[test]
fn machine_code_v2_under_wine() {
    let _guid = MACHINE_GUID
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let wine64 = loader(Arch::X64);
    let exe = compile(
        Arch::X64,
        &root().join("tests/hosts/win_machine.c"),
        "win_machine",
    );
    let dir = program_dir(Arch::X64).join(format!("v2-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create");
    let original = machine_guid(&wine64);
    let _restore = RestoreGuid(wine64.clone(), original.clone());

    // The real sources: issued, then kept; a second salt, another code.
    let plain = dir.join("plain");
    let first = v2_under_wine(&exe, "wine-v2", &plain, "", &[]);
    assert_eq!(first.outcome, "issued", "{}", first.stdout);
    let second = v2_under_wine(&exe, "wine-v2", &plain, "", &[]);
    assert_eq!(
        (second.outcome.as_str(), second.code.as_str()),
        ("kept", first.code.as_str()),
        "{}",
        second.stdout
    );
    assert_eq!(second.state("os_install"), "matches", "{}", second.stdout);
    assert_eq!(second.state("cpu"), "matches", "{}", second.stdout);
    notice(&format!("v2 under Wine, real sources:\n{}", second.stdout));

    // MachineGuid edited: the same code.
    set_machine_guid(&wine64, "0b5e1c1e-7a3d-4c2b-9e8f-0123456789ab");
    let edited = v2_under_wine(&exe, "wine-v2", &plain, "", &[]);
    assert_eq!(edited.state("os_install"), "differs", "{}", edited.stdout);
    if edited.state("system_volume") == "matches" {
        assert_eq!(edited.code, first.code, "{}", edited.stdout);
    }
    set_machine_guid(&wine64, &original);

    // A board (made-up DMI, as Wine reads it): a reinstall keeps the code, a clone does not.
    if !Path::new("/var/lib/dbus/machine-id").is_file() {
        notice("no /var/lib/dbus/machine-id (Wine's SMBIOS UUID): the board rows not played");
        return;
    }
    let uuid = "4c4c454400423510";
    let env = [
        ("DMI_UUID", uuid),
        ("DBUS_ID", "4c4c4544004235108052b4c04f4e3432"),
        ("DMI_SERIAL", "/7XK9Q2/CN1296"),
    ];
    let board = dir.join("board");
    let pc = v2_under_wine(&exe, "wine-v2", &board, WINE_DMI, &env);
    assert_eq!(pc.state("board_uuid"), "not_stored", "{}", pc.stdout);
    assert_eq!(pc.state("board_serial"), "not_stored", "{}", pc.stdout);
    assert_eq!(pc.state("model"), "not_stored", "{}", pc.stdout);
    // Reinstalled: another MachineGuid, and no state folder (a new disk): the same code.
    set_machine_guid(&wine64, "77777777-1111-4222-8333-444444444444");
    let reinstalled = v2_under_wine(&exe, "wine-v2", &dir.join("board-new-disk"), WINE_DMI, &env);
    assert_eq!(reinstalled.outcome, "issued");
    assert_eq!(reinstalled.code, pc.code, "{}", reinstalled.stdout);
    // ... and with the state folder kept: kept.
    let kept = v2_under_wine(&exe, "wine-v2", &board, WINE_DMI, &env);
    assert_eq!(
        (kept.outcome.as_str(), kept.code.as_str()),
        ("kept", pc.code.as_str()),
        "{}",
        kept.stdout
    );
    set_machine_guid(&wine64, &original);
    // A VM clone: a new SMBIOS UUID, the same MachineGuid, volume and serial: another code.
    let clone_env = [
        ("DMI_UUID", uuid),
        ("DBUS_ID", "4c4c4544004235108052c0ffee123456"),
        ("DMI_SERIAL", "/7XK9Q2/CN1296"),
    ];
    let clone = v2_under_wine(&exe, "wine-v2", &board, WINE_DMI, &clone_env);
    assert_eq!(clone.outcome, "reissued", "{}", clone.stdout);
    assert_ne!(clone.code, pc.code);
    assert_eq!(clone.state("board_uuid"), "differs");
    // A placeholder UUID never counts.
    let dummy_env = [
        ("DMI_UUID", uuid),
        ("DBUS_ID", "00000000000000000000000000000000"),
        ("DMI_SERIAL", "Default string"),
    ];
    let dummy = v2_under_wine(&exe, "wine-v2", &dir.join("dummy"), WINE_DMI, &dummy_env);
    assert_eq!(dummy.state("board_uuid"), "placeholder", "{}", dummy.stdout);
    assert_eq!(
        dummy.state("board_serial"),
        "placeholder",
        "{}",
        dummy.stdout
    );
    let _ = fs::remove_dir_all(&dir);
}
