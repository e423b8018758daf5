//! A call cancelled in flight from C# (`tests/csharp/CsharpCancel.cs`, compiled with `mcs
//! -warnaserror` against the packaged assembly, run on Mono): every `...Async` method takes a
//! `CancellationToken` that cancels the call in flight.
//!
//! - a token cancelled before the call cancels the task (not faulted) and sends nothing, and
//!   `SocialLoginWait` takes the same token type; a token never cancelled changes nothing;
//! - a call waiting for its reply ends within 50 ms of the cancel: the task is cancelled,
//!   `OperationCanceledException` carries the library's `VerifyException` (code -7) inside;
//! - a count-card login cancelled after its request left says so in the exception's message
//!   and is sent once.
//!
//! The network lab (`tests/lab/cancel.rs`) runs the same program on a black-holed line, a
//! slow name server, a stalled TLS handshake and a server that never answers.

#[path = "../common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};

use common::cancel::{assert_cancelled_waiting, assert_login_cancelled_after_it_left, hold_reply};
use common::host::{compile_csharp, host_command, require_mono, run_host_command, Scratch};
use common::{Program, APP_KEY};

fn build(scratch: &Scratch) -> PathBuf {
    require_mono();
    let exe = scratch.0.join("CsharpCancel.exe");
    compile_csharp(
        &[
            PathBuf::from("bindings/csharp/src"),
            PathBuf::from("tests/csharp/CsharpCancel.cs"),
        ],
        &exe,
    );
    exe
}

fn run(exe: &Path, args: &[String], mut on_line: impl FnMut(&str) -> Option<String>) -> String {
    let mut command = host_command("mono");
    command.arg("--debug").arg(exe).args(args);
    let output = run_host_command(command, |line| on_line(line));
    assert!(
        output.status.success() && output.stdout.contains("checks: 0 failed"),
        "CsharpCancel failed ({})\n{}",
        output.status,
        output.report()
    );
    output.stdout
}

fn args(mode: &str, program: &Program<'_>, rest: &[&str]) -> Vec<String> {
    let mut args = vec![
        mode.to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
    ];
    args.extend(rest.iter().map(|s| (*s).to_owned()));
    args
}

#[test]
fn a_token_cancelled_before_the_call_sends_nothing() {
    let program = Program::fresh();
    let scratch = Scratch::new();
    let exe = build(&scratch);
    run(&exe, &args("before", &program, &[]), |line| {
        (line == "@@ nothing-sent").then(|| {
            assert!(
                program
                    .sandbox
                    .request_log(Some(&program.app_id))
                    .is_empty(),
                "a cancelled token sent something"
            );
            "go".to_owned()
        })
    });
}

#[test]
fn an_async_call_waiting_for_its_reply_is_cancelled_within_50_ms() {
    let program = Program::fresh();
    program.client().init().expect("init");
    hold_reply(&program, "GetBulletin");
    let scratch = Scratch::new();
    let exe = build(&scratch);
    let stdout = run(
        &exe,
        &args("inflight", &program, &["300", "bulletin"]),
        |_| None,
    );
    assert_cancelled_waiting(&stdout, "GetBulletin");
}

#[test]
fn a_count_card_login_cancelled_after_it_left_says_so() {
    let program = Program::fresh();
    let card = program.count_card("CSCA-NCEL-0000-0001", 5);
    hold_reply(&program, "SingleLogin");
    let scratch = Scratch::new();
    let exe = build(&scratch);
    let stdout = run(
        &exe,
        &args("inflight", &program, &["300", "login", &card, "CS-MACHINE"]),
        |_| None,
    );
    assert_login_cancelled_after_it_left(&program, &stdout);
}
