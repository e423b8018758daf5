//! `include/verify.h` compiles on its own, warning-free, as C99 and as C++17.
//!
//! Needs `cc` and `c++` on PATH (`scripts/install-deps.sh gcc` installs them).

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

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
