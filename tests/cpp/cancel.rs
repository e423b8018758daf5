//! A call cancelled in flight from C++ (`tests/cpp/cpp_cancel.cpp`), built with `-std=c++20`
//! (the actions' overloads taking a `std::stop_token`) and with `-std=c++17` (those taking a
//! `verify::CancelToken`), with the contract flags and the strict ones:
//!
//! - a `CancelScope` cancels calls that have no overload of their own (`init`, `call`); a
//!   stopped `std::stop_token` cancels at once; out of the scope calls run again;
//! - an action waiting for its reply, cancelled from another thread, throws
//!   `Code::err_cancelled` within 50 ms of the cancel, through either token;
//! - a count-card login cancelled after its request left says that the server may have
//!   received it, and is sent once.
//!
//! The network lab (`tests/lab/cancel.rs`) runs the same program on a black-holed line, a
//! slow name server, a stalled TLS handshake and a server that never answers.

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use common::cancel::{assert_cancelled_waiting, assert_login_cancelled_after_it_left, hold_reply};
use common::host::{compile_cxx, host_command, text, CXX_STRICT_FLAGS};
use common::{unique, Program, APP_KEY};

/// `tests/cpp/cpp_cancel.cpp` built with `-std=` `standard`.
fn build(standard: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(unique("cpp_cancel"));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    let binary = dir.join(format!("cpp_cancel_{standard}"));
    let std_flag = format!("-std={standard}");
    let mut extra = CXX_STRICT_FLAGS.to_vec();
    extra.extend(["-pthread", std_flag.as_str()]);
    compile_cxx(
        &common::host::root().join("tests/cpp/cpp_cancel.cpp"),
        &binary,
        &extra,
    );
    binary
}

fn run(binary: &Path, args: &[String]) -> String {
    let output = host_command(binary)
        .args(args)
        .output()
        .expect("run cpp_cancel");
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success() && stdout.contains("checks: 0 failed"),
        "{} failed ({})\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        binary.display(),
        output.status
    );
    stdout
}

fn base_args(program: &Program<'_>) -> Vec<String> {
    vec![
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
    ]
}

#[test]
fn a_scope_cancels_any_call_and_a_stopped_token_cancels_at_once() {
    let program = Program::fresh();
    for standard in ["c++20", "c++17"] {
        let binary = build(standard);
        let mut args = vec!["scope".to_owned()];
        args.extend(base_args(&program));
        run(&binary, &args);
    }
}

#[test]
fn an_action_waiting_for_its_reply_throws_cancelled_within_50_ms_through_either_token() {
    let program = Program::fresh();
    program.client().init().expect("init");
    for (standard, token) in [("c++20", "stop"), ("c++17", "token")] {
        let binary = build(standard);
        hold_reply(&program, "GetBulletin");
        let mut args = vec!["inflight".to_owned(), token.to_owned()];
        args.extend(base_args(&program));
        args.extend(["300".to_owned(), "bulletin".to_owned()]);
        assert_cancelled_waiting(&run(&binary, &args), "GetBulletin");
    }
}

#[test]
fn a_count_card_login_cancelled_after_it_left_says_so() {
    let program = Program::fresh();
    let card = program.count_card("CPPC-ANCE-L000-0001", 5);
    hold_reply(&program, "SingleLogin");
    let binary = build("c++20");
    let mut args = vec!["inflight".to_owned(), "stop".to_owned()];
    args.extend(base_args(&program));
    args.extend([
        "300".to_owned(),
        "login".to_owned(),
        card.clone(),
        "CPP-MACHINE".to_owned(),
    ]);
    assert_login_cancelled_after_it_left(&program, &run(&binary, &args));
}
