//! verify.dll needs nothing newer than Windows 7 SP1, both architectures: every function it
//! imports is declared by mingw-w64's headers for `_WIN32_WINNT` 0x0601
//! (`tests/platforms/windows/win_imports.c`, compiled against the DLL's own import list) or
//! is one of [`UNDECLARED`], none is on the deny list ([`DENIED_DLLS`], [`DENIED`]: what the
//! headers do not guard); every function it looks up by name at run time is one of
//! [`LOADED_AT_RUN_TIME`], each with what happens where Windows lacks it, and
//! docs/windows.md names them. And both DLLs load and answer under Wine in Windows 7 mode
//! (`tests/platforms/windows/win_version.c`).

use super::*;

/// DLLs newer than Windows 7 SP1 that the DLL must not import (a prefix of the name).
const DENIED_DLLS: &[(&str, &str)] = &[
    ("bcryptprimitives.dll", "ProcessPrng's DLL, Windows 8"),
    (
        "api-ms-win-",
        "API sets (api-ms-win-core-synch-l1-2-0.dll: Windows 8); import the DLL itself",
    ),
];

/// Functions newer than Windows 7 SP1 that mingw-w64's headers declare whatever
/// `_WIN32_WINNT` says (or that come from raw-dylib imports, without a header): the DLL must
/// not import them.
const DENIED: &[(&str, &str)] = &[
    ("ProcessPrng", "bcryptprimitives.dll, Windows 8"),
    ("GetSystemTimePreciseAsFileTime", "Windows 8"),
    ("WaitOnAddress", "Windows 8"),
    ("WakeByAddressAll", "Windows 8"),
    ("WakeByAddressSingle", "Windows 8"),
    ("CreateFile2", "Windows 8"),
    ("SetThreadDescription", "Windows 10 1607"),
    ("GetThreadDescription", "Windows 10 1607"),
    ("GetTempPath2W", "Windows 11"),
    ("GetHostNameW", "Windows 8"),
];

/// Imported functions that mingw-w64's public headers do not declare at all, each known to be
/// in Windows 7 SP1: (DLL, function, since when and who imports it).
const UNDECLARED: &[(&str, &str, &str)] = &[
    (
        "ntdll.dll",
        "NtReadFile",
        "every Windows NT; Rust's standard library (files and pipes)",
    ),
    (
        "ntdll.dll",
        "NtWriteFile",
        "every Windows NT; Rust's standard library (files and pipes)",
    ),
    (
        "ntdll.dll",
        "NtCancelIoFileEx",
        "Windows Vista; mio (sockets polled through AFD)",
    ),
    (
        "msvcrt.dll",
        "_amsg_exit",
        "msvcrt.dll of every Windows since 2000; mingw-w64's DLL start-up code",
    ),
    (
        "msvcrt.dll",
        "_initterm",
        "msvcrt.dll of every Windows since 2000; mingw-w64's DLL start-up code",
    ),
    (
        "msvcrt.dll",
        "_lock",
        "msvcrt.dll of every Windows since 2000; mingw-w64's DLL start-up code",
    ),
    (
        "msvcrt.dll",
        "_unlock",
        "msvcrt.dll of every Windows since 2000; mingw-w64's DLL start-up code",
    ),
];

/// Functions the DLL looks up by name at run time (`GetProcAddress`), not imported: (function,
/// its DLL and the first Windows that has it, what the DLL does where it is missing).
/// docs/windows.md names each.
pub(crate) const LOADED_AT_RUN_TIME: &[(&str, &str, &str)] = &[
    (
        "GetSystemTimePreciseAsFileTime",
        "kernel32, Windows 8",
        "the time of day from GetSystemTimeAsFileTime",
    ),
    (
        "SetThreadDescription",
        "kernel32, Windows 10 1607",
        "the library's threads have no name in a debugger",
    ),
    (
        "WaitOnAddress",
        "api-ms-win-core-synch-l1-2-0, Windows 8",
        "locks and thread parking on keyed events (NtWaitForKeyedEvent)",
    ),
    (
        "WakeByAddressSingle",
        "api-ms-win-core-synch-l1-2-0, Windows 8",
        "keyed events (NtReleaseKeyedEvent)",
    ),
    (
        "NtCreateKeyedEvent",
        "ntdll, Windows XP",
        "none needed: the fallback above, in every Windows the DLL runs on",
    ),
    (
        "NtReleaseKeyedEvent",
        "ntdll, Windows XP",
        "none needed: the fallback above, in every Windows the DLL runs on",
    ),
    (
        "NtWaitForKeyedEvent",
        "ntdll, Windows XP",
        "none needed: the fallback above, in every Windows the DLL runs on",
    ),
];

/// The functions a PE file imports, by DLL (lowercase), from `objdump -p`.
pub(crate) fn imported_functions(dump: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut dll: Option<String> = None;
    for line in dump.lines() {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_prefix("DLL Name: ") {
            dll = Some(name.to_ascii_lowercase());
            imports.entry(name.to_ascii_lowercase()).or_default();
            continue;
        }
        if trimmed.is_empty() || !line.starts_with('\t') {
            if !line.starts_with('\t') && !trimmed.starts_with("vma:") {
                dll = None;
            }
            continue;
        }
        // "\t2090\t  977  LoadLibraryA": address, hint, name.
        let Some(dll) = &dll else { continue };
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        if let [address, hint, name] = fields[..] {
            let hex = address.chars().all(|c| c.is_ascii_hexdigit());
            if hex && hint.parse::<u32>().is_ok() {
                imports
                    .entry(dll.clone())
                    .or_default()
                    .insert(name.to_owned());
            }
        }
    }
    imports
}

/// The imports of the shipped DLL of `arch`.
fn dll_imports(arch: Arch) -> BTreeMap<String, BTreeSet<String>> {
    let dll = windows().out.join(arch.name()).join("verify.dll");
    let imports = imported_functions(&exports::objdump(arch, &dll));
    let count: usize = imports.values().map(BTreeSet::len).sum();
    assert!(
        imports.contains_key("kernel32.dll") && count > 50,
        "{arch:?}: the import table of verify.dll was not read: {imports:?}"
    );
    imports
}

/// The functions of `imports` that mingw-w64's headers do not declare for Windows 7 SP1:
/// win_imports.c compiled (syntax only) against an `imports.inc` of them.
fn undeclared_for_windows_7(arch: Arch, functions: &BTreeSet<String>) -> BTreeSet<String> {
    let dir = program_dir(arch).join("imports");
    fs::create_dir_all(&dir).expect("create the imports folder");
    let list: String = functions
        .iter()
        .map(|name| format!("IMPORT({name})\n"))
        .collect();
    fs::write(dir.join("imports.inc"), list).expect("write imports.inc");
    let source = dir.join("win_imports.c");
    fs::copy(
        root().join("tests/platforms/windows/win_imports.c"),
        &source,
    )
    .expect("copy win_imports.c");
    let output = Command::new(arch.tool("gcc"))
        .env("LC_ALL", "C")
        .args(["-std=c99", "-fsyntax-only", "-fmax-errors=0"])
        .arg("-Werror=implicit-function-declaration")
        .arg(&source)
        .output()
        .expect("run the mingw compiler");
    let (_, stderr) = text(&output);
    let undeclared: BTreeSet<String> = stderr
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once("error: '")?;
            let (name, rest) = rest.split_once('\'')?;
            rest.starts_with(" undeclared").then(|| name.to_owned())
        })
        .collect();
    assert!(
        output.status.success() || !undeclared.is_empty(),
        "{arch:?}: win_imports.c failed for another reason than an undeclared function\n{}",
        show(&output)
    );
    undeclared
}

#[test]
pub(crate) fn the_dlls_import_nothing_newer_than_windows_7_sp1() {
    let mut problems = Vec::new();
    let mut seen_undeclared = BTreeSet::new();
    for arch in [Arch::X64, Arch::X86] {
        let imports = dll_imports(arch);
        let mut checked = BTreeSet::new();
        for (dll, functions) in &imports {
            for (prefix, why) in DENIED_DLLS {
                if dll.starts_with(prefix) {
                    problems.push(format!("{arch:?} verify.dll imports {dll} ({why})"));
                }
            }
            for function in functions {
                if let Some((_, why)) = DENIED.iter().find(|(name, _)| name == function) {
                    problems.push(format!(
                        "{arch:?} verify.dll imports {dll}!{function} ({why}; newer than \
                         Windows 7 SP1)"
                    ));
                }
                let known = UNDECLARED
                    .iter()
                    .any(|(d, name, _)| d == dll && name == function);
                if known {
                    seen_undeclared.insert((dll.clone(), function.clone()));
                } else {
                    checked.insert(function.clone());
                }
            }
        }
        for function in undeclared_for_windows_7(arch, &checked) {
            let dll = imports
                .iter()
                .find(|(_, functions)| functions.contains(&function))
                .map_or("?", |(dll, _)| dll.as_str());
            problems.push(format!(
                "{arch:?} verify.dll imports {dll}!{function}: mingw-w64's headers do not \
                 declare it for Windows 7 SP1 (_WIN32_WINNT 0x0601); if Windows 7 SP1 has it, \
                 add it to UNDECLARED in tests/platforms/windows/imports.rs with the reason"
            ));
        }
        notice(&format!(
            "{arch:?} verify.dll: {} functions from {} DLLs imported, {} checked against the \
             Windows 7 SP1 headers",
            imports.values().map(BTreeSet::len).sum::<usize>(),
            imports.len(),
            checked.len()
        ));
    }
    for (dll, function, _) in UNDECLARED {
        if !seen_undeclared.contains(&((*dll).to_owned(), (*function).to_owned())) {
            problems.push(format!(
                "UNDECLARED lists {dll}!{function}, which neither DLL imports any more: remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The folder of Wine's 64-bit system DLLs (PE files with their export tables).
fn wine_system_dlls() -> PathBuf {
    [
        "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows",
        "/usr/lib/wine/x86_64-windows",
        "/usr/lib64/wine/x86_64-windows",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|dir| dir.join("kernel32.dll").is_file())
    .expect("Wine's x86_64-windows folder with kernel32.dll (scripts/install-deps.sh wine)")
}

/// Every name the Windows system DLLs export (as Wine's DLLs list them).
fn system_exports() -> BTreeSet<String> {
    let dir = wine_system_dlls();
    let mut names = BTreeSet::new();
    for dll in [
        "kernel32",
        "kernelbase",
        "ntdll",
        "advapi32",
        "ws2_32",
        "bcrypt",
        "crypt32",
        "user32",
        "msvcrt",
        "secur32",
        "ncrypt",
        "userenv",
        "ole32",
        "shell32",
    ] {
        let path = dir.join(format!("{dll}.dll"));
        if path.is_file() {
            names.extend(exports::exports(&exports::objdump(Arch::X64, &path)));
        }
    }
    assert!(
        names.contains("WaitOnAddress") && names.contains("CreateFileW"),
        "Wine's system DLLs in {} list no WaitOnAddress or CreateFileW",
        dir.display()
    );
    names
}

/// The NUL-terminated identifiers in a file's bytes (the form `GetProcAddress` takes).
fn nul_terminated_names(bytes: &[u8]) -> BTreeSet<String> {
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut names = BTreeSet::new();
    let mut start = 0;
    for (at, &b) in bytes.iter().enumerate() {
        if is_name(b) {
            continue;
        }
        if b == 0 && at > start {
            let preceded = start == 0 || !is_name(bytes[start - 1]);
            if preceded && bytes[start].is_ascii_alphabetic() {
                names.insert(String::from_utf8_lossy(&bytes[start..at]).into_owned());
            }
        }
        start = at + 1;
    }
    names
}

#[test]
pub(crate) fn functions_looked_up_at_run_time_each_have_a_fallback() {
    let system = system_exports();
    let docs = fs::read_to_string(root().join("docs/windows.md")).expect("read docs/windows.md");
    let mut problems = Vec::new();
    let mut found = BTreeSet::new();
    for arch in [Arch::X64, Arch::X86] {
        let dll = windows().out.join(arch.name()).join("verify.dll");
        let bytes = fs::read(&dll).expect("read verify.dll");
        let imported: BTreeSet<String> = dll_imports(arch).into_values().flatten().collect();
        let by_name: BTreeSet<String> = nul_terminated_names(&bytes)
            .into_iter()
            .filter(|name| system.contains(name) && !imported.contains(name))
            .collect();
        for name in &by_name {
            if !LOADED_AT_RUN_TIME.iter().any(|(known, _, _)| known == name) {
                problems.push(format!(
                    "{arch:?} verify.dll names {name}, a function of a system DLL it does not \
                     import: a lookup at run time? Add it to LOADED_AT_RUN_TIME with what \
                     happens where Windows lacks it"
                ));
            }
        }
        notice(&format!(
            "{arch:?} verify.dll looks up at run time: {}",
            by_name.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
        found.extend(by_name);
    }
    for (name, _, _) in LOADED_AT_RUN_TIME {
        if !found.contains(*name) {
            problems.push(format!(
                "LOADED_AT_RUN_TIME lists {name}, which neither DLL names any more: remove it"
            ));
        }
        if !docs.contains(&format!("`{name}`")) {
            problems.push(format!(
                "docs/windows.md does not name `{name}` among the functions looked up at run time"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
pub(crate) fn the_dlls_load_and_answer_in_windows_7_mode() {
    for arch in [Arch::X64, Arch::X86] {
        let version = windows_version(wine_command(&loader(arch), "reg".as_ref()));
        assert_eq!(
            version, "win7",
            "{arch:?}: the Wine prefix's Windows version (HKCU\\Software\\Wine)"
        );
        let exe = compile(
            arch,
            &root().join("tests/platforms/windows/win_version.c"),
            "win_version",
        );
        let output = run(&loader(arch), &exe, &[]);
        let stdout = assert_host_passes(&output, &format!("{arch:?} win_version.exe"));
        assert!(
            stdout.contains("windows 6.1 build 7601 service pack Service Pack 1"),
            "{arch:?}: not Windows 7 SP1 under Wine\n{stdout}"
        );
        notice(&format!(
            "{arch:?}: {}",
            stdout.lines().next().unwrap_or("")
        ));
    }
}

/// docs/windows.md names the toolchain that built the DLLs under test (`rustc -V`, which
/// `scripts/build-windows.sh` writes to `target/windows/toolchain.txt`): the page says which
/// nightly made the shipped DLLs, and a build with another one fails here until it says so.
#[test]
pub(crate) fn the_docs_name_the_toolchain_that_built_the_dlls() {
    let toolchain = fs::read_to_string(windows().out.join("toolchain.txt"))
        .expect("target/windows/toolchain.txt (scripts/build-windows.sh)");
    let toolchain = toolchain.trim();
    assert!(
        toolchain.starts_with("rustc ") && toolchain.contains("nightly"),
        "toolchain.txt: {toolchain}"
    );
    let docs = fs::read_to_string(root().join("docs/windows.md")).expect("read docs/windows.md");
    assert!(
        docs.contains(&format!("**{toolchain}**")),
        "docs/windows.md does not say that **{toolchain}** built the shipped DLLs"
    );
}
