//! libverify.dylib for macOS, compiled and linked on this Linux machine without a Mac or
//! Apple's SDK (`scripts/check-macos.sh`: `cargo-zigbuild check`, then a link against
//! framework stubs made from the library's own undefined symbols), for arm64
//! (`aarch64-apple-darwin`) and x86-64 (`x86_64-apple-darwin`). On each linked dylib:
//!
//! - its install name is `@rpath/libverify.dylib` (build.rs), not the path it was built at;
//! - its minimum macOS version is 11.0 on arm64 and 10.12 on x86-64 (build.rs);
//! - it exports exactly the functions of `include/verify.h`, nothing else;
//! - it is a Mach-O dylib of its architecture that needs libSystem, libiconv, and the
//!   Security, IOKit and CoreFoundation frameworks, nothing else.
//! - it imports the system reads that only macOS compiles from the framework that has
//!   them: the platform serial (IOKit's `IOServiceMatching`) and the default language
//!   (CoreFoundation's `CFLocaleCopyPreferredLanguages`), so neither is compiled out.
//!
//! What this proves and what it does not: docs/platforms.md (nothing runs on a Mac; the
//! frameworks' symbols are not checked against Apple's SDK). The Mach-O files are read with
//! `llvm-objdump` of rustup's llvm-tools, which the script installs.

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::host::{header_functions, root, run_script, rust_tool, target_dir, text};

/// A target, the architecture its Mach-O header names, and the minimum macOS version.
const TARGETS: &[(&str, &str, &str)] = &[
    ("aarch64-apple-darwin", "ARM64", "11.0"),
    ("x86_64-apple-darwin", "X86_64", "10.12"),
];

/// The folders of the linked dylibs, by target, from one run of the script.
fn dylibs() -> &'static Vec<(String, PathBuf)> {
    static DYLIBS: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    DYLIBS.get_or_init(|| {
        let target = target_dir();
        run_script("check-macos.sh", &[]);
        TARGETS
            .iter()
            .map(|(triple, _, _)| {
                let dylib = target.join(triple).join("debug/libverify.dylib");
                assert!(dylib.is_file(), "{} is missing", dylib.display());
                ((*triple).to_owned(), dylib)
            })
            .collect()
    })
}

/// `llvm-objdump --macho ARGS FILE` of rustup's llvm-tools.
fn objdump(args: &[&str], file: &Path) -> String {
    let tool = rust_tool("llvm-objdump");
    let output = Command::new(&tool)
        .arg("--macho")
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "llvm-objdump {args:?}: {stderr}");
    stdout
}

/// The value after `key` on the first line of the load command `command` that has it.
fn load_command_field(headers: &str, command: &str, key: &str) -> Option<String> {
    headers
        .split("Load command ")
        .filter(|block| {
            block
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["cmd", command])
        })
        .find_map(|block| {
            block.lines().find_map(|l| {
                let l = l.trim();
                l.strip_prefix(key)
                    .filter(|rest| rest.starts_with(' '))
                    .map(|rest| rest.trim().to_owned())
            })
        })
}

#[test]
fn macos_dylibs_are_named_at_rpath() {
    for (triple, dylib) in dylibs() {
        let headers = objdump(&["--private-headers"], dylib);
        let name = load_command_field(&headers, "LC_ID_DYLIB", "name")
            .unwrap_or_else(|| panic!("{triple}: no LC_ID_DYLIB\n{headers}"));
        assert!(
            name.starts_with("@rpath/libverify.dylib "),
            "{triple}: install name {name}"
        );
    }
}

#[test]
fn macos_minimum_versions_are_11_0_on_arm64_and_10_12_on_x86_64() {
    for ((triple, dylib), (_, arch, minimum)) in dylibs().iter().zip(TARGETS) {
        let headers = objdump(&["--private-headers"], dylib);
        assert!(
            headers
                .lines()
                .any(|l| l.contains("MH_MAGIC_64") && l.contains(arch)),
            "{triple}: not a 64-bit {arch} Mach-O file\n{headers}"
        );
        // macOS 10.14 and later use LC_BUILD_VERSION; older minimums LC_VERSION_MIN_MACOSX.
        let found = load_command_field(&headers, "LC_BUILD_VERSION", "minos")
            .or_else(|| load_command_field(&headers, "LC_VERSION_MIN_MACOSX", "version"))
            .unwrap_or_else(|| panic!("{triple}: no minimum macOS version\n{headers}"));
        assert_eq!(found, *minimum, "{triple}: minimum macOS version");
    }
}

#[test]
fn macos_dylibs_export_only_the_functions_of_the_header() {
    let declared: BTreeSet<String> = header_functions().into_iter().map(|(n, _)| n).collect();
    for (triple, dylib) in dylibs() {
        let trie = objdump(&["--exports-trie"], dylib);
        let exported: BTreeSet<String> = trie
            .lines()
            .filter_map(|l| {
                let mut fields = l.split_whitespace();
                fields.next().filter(|a| a.starts_with("0x"))?;
                fields.next().map(|n| n.trim_start_matches('_').to_owned())
            })
            .collect();
        assert_eq!(exported, declared, "{triple}: exports");
    }
}

#[test]
fn macos_dylibs_need_libsystem_libiconv_security_iokit_and_corefoundation_only() {
    let expected: BTreeSet<&str> = [
        "@rpath/libverify.dylib",
        "/usr/lib/libSystem.B.dylib",
        "/usr/lib/libiconv.2.dylib",
        "/System/Library/Frameworks/Security.framework/Versions/A/Security",
        "/System/Library/Frameworks/IOKit.framework/Versions/A/IOKit",
        "/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation",
    ]
    .into_iter()
    .collect();
    for (triple, dylib) in dylibs() {
        let used = objdump(&["--dylibs-used"], dylib);
        let libraries: BTreeSet<&str> = used
            .lines()
            .skip(1)
            .filter_map(|l| l.trim().split(" (").next())
            .collect();
        assert_eq!(libraries, expected, "{triple}: libraries used\n{used}");
    }
}

/// `scripts/package.sh` packages the macOS library: `lib/libverify.dylib` and
/// `lib/libverify.a`, with the CMake files and pkg-config files whose static flags name the
/// frameworks the library needs.
#[test]
fn macos_package_holds_the_dylib_and_its_static_flags() {
    let (triple, dylib) = &dylibs()[0];
    let scratch = common::host::Scratch::new();
    let stdout = common::host::run_ok(
        Command::new("bash")
            .arg("scripts/package.sh")
            .args(["--profile", "debug", "--target", triple, "--out"])
            .arg(&scratch.0)
            .arg("--from")
            .arg(dylib.parent().expect("the dylib's folder"))
            .current_dir(root()),
        "scripts/package.sh --target (macOS)",
    );
    let folder = PathBuf::from(stdout.lines().last().expect("package.sh prints the folder"));
    assert!(folder.ends_with(format!("verify-{}-{triple}", env!("CARGO_PKG_VERSION"))));
    for file in [
        "include/verify.h",
        "lib/libverify.dylib",
        "lib/libverify.a",
        "lib/pkgconfig/verify.pc",
        "lib/cmake/verify/verifyConfig.cmake",
    ] {
        assert!(
            folder.join(file).is_file(),
            "the macOS package lacks {file}"
        );
    }
    assert!(!folder.join("lib/libverify.so").exists());
    let static_pc = std::fs::read_to_string(folder.join("lib/pkgconfig/verify-static.pc"))
        .expect("verify-static.pc");
    assert!(
        static_pc.contains(
            "libverify.a -framework Security -framework IOKit -framework CoreFoundation -liconv"
        ),
        "{static_pc}"
    );
}

/// The native reads that only macOS compiles are in the linked library, each imported from
/// its framework (two-level namespace): the machine code's platform serial and the default
/// language of the end-user messages (the user's first preferred language).
#[test]
fn macos_dylibs_import_the_platform_serial_and_the_preferred_language() {
    let tool = rust_tool("llvm-nm");
    for (triple, dylib) in dylibs() {
        let output = Command::new(&tool)
            .args(["-m", "--undefined-only"])
            .arg(dylib)
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "llvm-nm: {stderr}");
        for (symbol, framework) in [
            ("_IOServiceMatching", "IOKit"),
            ("_CFLocaleCopyPreferredLanguages", "CoreFoundation"),
            ("_CFArrayGetValueAtIndex", "CoreFoundation"),
        ] {
            assert!(
                stdout.lines().any(|l| {
                    let words: Vec<&str> = l.split_whitespace().collect();
                    words.contains(&symbol) && l.ends_with(&format!("(from {framework})"))
                }),
                "{triple}: {symbol} is not imported from {framework}\n{stdout}"
            );
        }
    }
}
