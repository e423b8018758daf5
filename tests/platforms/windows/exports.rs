//! The DLLs: every function of `include/verify.h` exported undecorated, the x86 exports
//! stdcall (in their machine code and called by a 32-bit program), only system DLLs
//! imported, and the MSVC import libraries linking callers to the plain names.

use super::*;

/// The functions `include/verify.h` declares.
pub(crate) fn header_functions() -> BTreeSet<String> {
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
pub(crate) fn objdump(arch: Arch, file: &Path) -> String {
    let output = Command::new(arch.tool("objdump"))
        .arg("-p")
        .arg(file)
        .output()
        .expect("run objdump");
    assert!(output.status.success(), "objdump -p\n{}", show(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn exports(dump: &str) -> BTreeSet<String> {
    dump.lines()
        .skip_while(|l| !l.starts_with("[Ordinal/Name Pointer] Table"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split(']').nth(1).map(|n| n.trim().to_owned()))
        .collect()
}

pub(crate) fn imports(dump: &str) -> BTreeSet<String> {
    dump.lines()
        .filter_map(|l| l.trim().strip_prefix("DLL Name: "))
        .map(str::to_ascii_lowercase)
        .collect()
}

#[test]
pub(crate) fn dlls_export_the_header_undecorated_and_need_only_system_dlls() {
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

        // System DLLs only: no mingw runtime (libgcc, libstdc++, winpthread) to ship (and
        // none newer than Windows 7 SP1: imports.rs).
        for dll_name in imports(&dump) {
            let system = [
                "kernel32.dll",
                "ntdll.dll",
                "advapi32.dll",
                "bcrypt.dll",
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
pub(crate) fn header_argument_bytes() -> BTreeMap<String, u32> {
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
pub(crate) fn export_addresses(arch: Arch, file: &Path) -> BTreeMap<String, u64> {
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
pub(crate) fn x86_exports_pop_their_arguments_stdcall() {
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
    let unstripped = target_dir().join("i686-win7-windows-gnu/release/verify.dll");
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

/// `tests/platforms/windows/win_stdcall.c`, a 32-bit program linked by the x86 import library, calls
/// every function of the header (it imports them all from verify.dll), measures the bytes
/// each callee pops (stdcall and cdecl controls, one export of each arity) and keeps the
/// stack pointer over 100,000 rounds of calls and 200 logins, under 32-bit Wine.
#[test]
pub(crate) fn x86_program_calls_every_function_stdcall_under_wine32() {
    let exe = compile(
        Arch::X86,
        &root().join("tests/platforms/windows/win_stdcall.c"),
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

/// `verify.lib` links a caller the MSVC way: `tests/platforms/windows/win_msvc_link.c` as an object,
/// lld-link, no C runtime. The program imports the plain names (on x86 too, where the
/// object refers to `_verify_abi_version@0`), and runs (x64; x86 where Wine can).
#[test]
pub(crate) fn msvc_import_libraries_link_callers_to_the_plain_names() {
    for arch in [Arch::X64, Arch::X86] {
        let dir = program_dir(arch);
        let object = dir.join("win_msvc_link.o");
        let exe = dir.join("win_msvc_link.exe");
        compile_freestanding(
            arch,
            &root().join("tests/platforms/windows/win_msvc_link.c"),
            &object,
            &[],
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
        lld_link(arch, &object, &exe, &[]);
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
