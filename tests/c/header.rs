//! `include/verify.h` compiles on its own, warning-free, as C99 and as C++17; every function
//! it declares carries `VERIFY_CALL` and is exported by the built `libverify.so` under its
//! own, undecorated name; the library exports no other `verify_*` symbol.
//!
//! Needs `cc`, `c++` and `nm` on PATH (`scripts/install-deps.sh gcc` installs them; `nm` comes
//! with binutils, which gcc needs).

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::host::{header_functions, library_dir, require_tool, root};

/// Runs `compiler` over the header with `args`, and fails with its diagnostics.
fn compile_header(compiler: &str, args: &[&str]) {
    let header = root().join("include/verify.h");
    let output = Command::new(compiler)
        .args(args)
        .arg(&header)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `{compiler}` ({e}): install a C/C++ compiler with \
                 `scripts/install-deps.sh gcc`"
            )
        });
    assert!(
        output.status.success(),
        "`{compiler} {} include/verify.h` failed ({}):\n{}{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn header_compiles_as_c99() {
    compile_header(
        "cc",
        &[
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
            "-x",
            "c",
        ],
    );
}

#[test]
fn header_compiles_as_cxx17() {
    compile_header(
        "c++",
        &[
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
            "-x",
            "c++",
        ],
    );
}

/// The dynamic symbols that `libverify.so` defines, as `nm -D --defined-only` lists them:
/// (type letter, name).
fn exported_symbols() -> Vec<(String, String)> {
    require_tool("nm", "binutils");
    let library = library_dir().join("libverify.so");
    let output = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&library)
        .output()
        .expect("run nm");
    assert!(
        output.status.success(),
        "nm -D {} failed: {}",
        library.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            // "ADDRESS TYPE NAME"; versioned names ("name@@VERSION") keep their suffix.
            let mut fields = line.split_whitespace().rev();
            let name = fields.next()?;
            let kind = fields.next()?;
            Some((kind.to_owned(), name.to_owned()))
        })
        .collect()
}

#[test]
fn every_declared_function_is_exported_undecorated_and_nothing_else() {
    let declared: BTreeSet<String> = header_functions().into_iter().map(|(n, _)| n).collect();
    assert!(
        declared.len() >= 60,
        "too few functions parsed from verify.h: {declared:?}"
    );
    let symbols = exported_symbols();
    let functions: BTreeSet<String> = symbols
        .iter()
        .filter(|(kind, _)| kind == "T")
        .map(|(_, name)| name.clone())
        .collect();
    let missing: Vec<_> = declared.difference(&functions).collect();
    assert!(
        missing.is_empty(),
        "declared in verify.h but not exported as functions by libverify.so: {missing:?}"
    );
    // Anything that looks like ours (decorated or not) must be a declared function.
    let strays: Vec<_> = symbols
        .iter()
        .filter(|(_, name)| {
            name.trim_start_matches('_')
                .to_ascii_lowercase()
                .starts_with("verify")
        })
        .filter(|(kind, name)| kind != "T" || !declared.contains(name))
        .collect();
    assert!(
        strays.is_empty(),
        "libverify.so exports verify symbols that verify.h does not declare, or decorated \
         or non-function ones: {strays:?}"
    );
}

#[test]
fn every_function_declaration_carries_verify_call() {
    // On 32-bit Windows the library's functions are stdcall (Rust `extern "system"`): a
    // declaration without VERIFY_CALL would make a C host call them as cdecl.
    let without: Vec<String> = header_functions()
        .into_iter()
        .filter(|(name, declaration)| !declaration.contains(&format!("VERIFY_CALL {name}(")))
        .map(|(_, declaration)| declaration)
        .collect();
    assert!(
        without.is_empty(),
        "functions declared without VERIFY_CALL before their name:\n{}",
        without.join("\n")
    );
}
