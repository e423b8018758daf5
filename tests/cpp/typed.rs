//! The typed C++ API of `include/verify.hpp` as its developers write it: `tests/cpp/cpp_typed.cpp`
//! (a card login, an account login, the keeper seeing a ban, a wrong password, a bad card, a
//! wrong AppKey; typed results, `verify::Time`, `verify::Refused`, no JSON Pointer), built as
//! C++17 (the throwing form) and C++23 (`Result::expected()`, an `std::expected`) with the
//! contract flags and the strict ones, run against a sandbox while the test bans the card when
//! the program asks. The times it prints are checked against the sandbox's own text, read as
//! UTC+08:00 by `verify_core::offline::service_time`. `tests/platforms/windows/demos.rs` runs the same
//! program built with mingw under Wine.

#[path = "../common/mod.rs"]
mod common;

use common::host::{
    compile_cxx, first_fenced, root, run_host, Run, Scratch, TypedProgram, CXX_STRICT_FLAGS,
};

/// Builds `cpp_typed.cpp` with `std` (`-std=c++17`, `-std=c++23`), runs it against a fresh
/// program and returns its output.
fn run_typed(std: &str) -> String {
    let scratch = Scratch::new();
    let binary = scratch.0.join("cpp_typed");
    let mut flags = vec![std, "-pthread"];
    flags.extend(CXX_STRICT_FLAGS);
    compile_cxx(&root().join("tests/cpp/cpp_typed.cpp"), &binary, &flags);

    let typed = TypedProgram::new("CTYP-CARD-0000-0001");
    let output = run_host(&binary, &typed.args(), Run::Native, |line| {
        typed.answer(line)
    });
    output.assert_passed(Run::Native);
    typed.assert_output(&output, &output.report());
    output.stdout
}

#[test]
fn typed_program_cpp17_throwing_form() {
    let stdout = run_typed("-std=c++17");
    assert!(stdout.contains("expected: no"), "{stdout}");
}

#[test]
fn typed_program_cpp23_with_std_expected() {
    let stdout = run_typed("-std=c++23");
    assert!(stdout.contains("expected: yes"), "{stdout}");
}

/// The first ```cpp block of README.md (the C++ section's example, the typed throwing form)
/// compiles as C++17 and C++23 with the strict flags and, with the sandbox's address and
/// program id, logs in, prints the expiry and keeps the session from the typed login
/// (`-Wall -Wextra -Werror -pedantic` and the strict flags: a C++ program from the README alone).
#[test]
fn the_readme_cpp_example_compiles_and_runs() {
    readme_cpp_example_runs("README.md", "valid until 20", "(UTC+08:00)");
}

/// The same for the C++ example of README.zh-CN.md.
#[test]
fn the_chinese_readme_cpp_example_compiles_and_runs() {
    readme_cpp_example_runs("README.zh-CN.md", "有效期至 20", "（UTC+08:00）");
}

fn readme_cpp_example_runs(file: &str, expected_start: &str, expected_offset: &str) {
    let source = &first_fenced(file, "cpp");
    for part in ["\"http://127.0.0.1:8080\"", "\"10001\""] {
        assert!(
            source.contains(part),
            "the example no longer has {part}:\n{source}"
        );
    }
    let (sandbox, app_id, _app_key) = common::host::demo_sandbox();
    let source = source
        .replace(
            "\"http://127.0.0.1:8080\"",
            &format!("\"{}\"", sandbox.base_url()),
        )
        .replace("\"10001\"", &format!("\"{app_id}\""));
    let scratch = Scratch::new();
    let file = scratch.0.join("app.cpp");
    std::fs::write(&file, source).expect("write the example");
    for std in ["-std=c++17", "-std=c++23"] {
        let binary = scratch
            .0
            .join(format!("app{}", std.trim_start_matches("-std=c++")));
        let mut flags = vec![std];
        flags.extend(CXX_STRICT_FLAGS);
        compile_cxx(&file, &binary, &flags);
    }
    let output = run_host(&scratch.0.join("app17"), &[], Run::Native, |_| None);
    sandbox.stop();
    let report = output.report();
    assert!(output.status.success(), "{report}");
    assert!(
        output.stdout.starts_with(expected_start) && output.stdout.contains(expected_offset),
        "the example logs in and prints the expiry\n{report}"
    );
    // keep_alive takes the typed login, and the keeper it gives is kept ([[nodiscard]]).
    assert!(
        output.stdout.contains("\nkeeper Alive\n"),
        "the example keeps the session alive from its typed login\n{report}"
    );
}
