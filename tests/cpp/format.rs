//! Printing the C++ binding's values (`include/verify/format.hpp`, `tests/cpp/cpp_format.cpp`):
//! `operator<<` and `fmt::formatter` give the same text for a code ("card_invalid (1004)"), a
//! code no header names, a keeper state, an event kind, a session kind, an event, a refusal,
//! an error and a `Refused`, and a format spec pads as for a string. Compiled as C++17 with the
//! contract and strict flags, {fmt} header-only (`scripts/install-deps.sh fmt`: libfmt-dev).
//! `std::formatter` needs a standard library with `<format>` (GCC 13, Clang 17 with libc++),
//! which this machine's GCC 12 lacks: it is not compiled here.

#[path = "../common/mod.rs"]
mod common;

use std::path::Path;

use common::host::{compile_cxx, host_command, root, text, CXX_STRICT_FLAGS};
use common::unique;

#[test]
fn operator_shift_and_fmt_print_the_same_text() {
    let header = Path::new("/usr/include/fmt/format.h");
    assert!(
        header.exists(),
        "{} is missing: run `scripts/install-deps.sh fmt`",
        header.display()
    );
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(unique("cpp_format"));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let binary = dir.join("cpp_format");
    let mut flags = CXX_STRICT_FLAGS.to_vec();
    flags.push("-DFMT_HEADER_ONLY");
    compile_cxx(&root().join("tests/cpp/cpp_format.cpp"), &binary, &flags);
    let output = host_command(&binary).output().expect("run cpp_format");
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success() && stdout.contains("format checks: 0 failed"),
        "{stdout}\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
