//! The C++ program of issue 45's trial (`tests/cpp/cpp_newcomer.cpp`), as a newcomer writes it
//! from the README: a typed card login, an account login off the calling thread, a wrong
//! password as an exception, an offline start, the keeper seeing a ban, a Chinese message,
//! the doctor, a call cancelled through a `std::stop_token`. It compiles as C++20 with
//! `-Wall -Wextra -Werror -pedantic` and the strict flags, its source holds no cast, no
//! `std::string(...).c_str()` and no `#pragma`, and it runs against the sandbox.

#[path = "../common/mod.rs"]
mod common;

use std::path::Path;

use common::host::{compile_cxx, host_command, root, run_host_command, Newcomer, CXX_STRICT_FLAGS};
use common::unique;

#[test]
fn the_newcomer_program_needs_no_cast_and_runs() {
    let source = root().join("tests/cpp/cpp_newcomer.cpp");
    let text = std::fs::read_to_string(&source).expect("read the program");
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//") && !line.trim_start().starts_with('*'))
        .collect::<Vec<_>>()
        .join("\n");
    for forbidden in [
        "static_cast",
        "reinterpret_cast",
        "const_cast",
        "(int)",
        "(std::int32_t)",
        "#pragma",
        ").c_str()",
        "printf",
    ] {
        assert!(
            !code.contains(forbidden),
            "the newcomer program has `{forbidden}`: the binding should make it unneeded"
        );
    }

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(unique("cpp_newcomer"));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let binary = dir.join("cpp_newcomer");
    let mut flags = CXX_STRICT_FLAGS.to_vec();
    flags.extend(["-pthread", "-std=c++20"]);
    compile_cxx(&source, &binary, &flags);

    let scene = Newcomer::new(&dir.join("state"));
    let mut command = host_command(&binary);
    command.args(&scene.args);
    let output = run_host_command(command, |line| scene.answer(line));
    let report = output.report();
    assert!(output.status.success(), "{report}");
    for expected in [
        "card-login 20",
        "account newcomer",
        "wrong-password wrong_password (1003)",
        "offline offline (202) because err_network (-3)",
        "keeper Alive",
        "banned Ended: disabled (1006)",
        "[remark: shared key]",
        "chinese 授权已过期",
        "doctor ",
        "cancelled err_cancelled (-7): cancelled",
    ] {
        assert!(
            output.stdout.contains(expected),
            "no `{expected}`\n{report}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
