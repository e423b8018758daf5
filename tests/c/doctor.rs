//! The doctor through the C ABI, as a C host calls it: `tests/c/c_doctor.c`, compiled
//! with warnings as errors against the library of this build and run against the sandbox
//! (under valgrind for the healthy report, the bad arguments and the run from a client):
//! `verify_diagnose` and its accessors, and `verify_client_diagnose` with its step
//! callback, cancel token, first line, cause, step text and support file.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

#[path = "../common/mod.rs"]
mod common;

use common::host::{build_host, require_tool, run_host, HostOutput, Run, Scratch};
use common::{Program, APP_KEY};

fn run(args: &[&str], run: Run) -> HostOutput {
    run_in(&Scratch::new(), args, run)
}

fn run_in(scratch: &Scratch, args: &[&str], run: Run) -> HostOutput {
    if run == Run::Valgrind {
        require_tool("valgrind", "valgrind");
    }
    let program = build_host("c_doctor", scratch, &[]);
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let output = run_host(&program, &args, run, |_| None);
    output.assert_passed(run);
    output
}

#[test]
fn a_healthy_program_passes_and_bad_arguments_are_refused() {
    let program = Program::fresh();
    let url = program.sandbox.base_url();
    let output = run(
        &["report", &url, &program.app_id, APP_KEY, "pass", "init.ok"],
        Run::Valgrind,
    );
    assert!(output.stdout.contains("PASS init"), "{}", output.report());
    run(&["misuse", &url, &program.app_id, APP_KEY], Run::Valgrind);
}

#[test]
fn a_wrong_app_key_fails_with_its_code_in_the_report() {
    let program = Program::fresh();
    let url = program.sandbox.base_url();
    let output = run(
        &[
            "report",
            &url,
            &program.app_id,
            "WRONGKEY0123456789ABCDEFGHIJKLMN",
            "fail",
            "init.1011",
        ],
        Run::Native,
    );
    // The cause in each language: zh-CN and en asked for, zh-TW set for the process.
    for words in [
        "Refused with 1011: the AppKey is wrong",
        "被拒绝（1011）：程序",
        "被拒絕（1011）：程式",
    ] {
        assert!(
            output.stdout.contains(words),
            "{words}: {}",
            output.report()
        );
    }
}

#[test]
fn run_from_a_client_it_reports_each_step_names_the_cause_and_saves_the_support_file() {
    let program = Program::fresh();
    let url = program.sandbox.base_url();
    let scratch = Scratch::new();
    let file = scratch.0.join("support.txt");
    let file = file.to_string_lossy();
    let output = run_in(
        &scratch,
        &["client", &url, &program.app_id, APP_KEY, "none", &file],
        Run::Valgrind,
    );
    assert!(
        output
            .stdout
            .contains("first en: PASS: the connection is fine"),
        "{}",
        output.report()
    );
    assert!(
        output.stdout.contains("progress 7 0 init.ok"),
        "{}",
        output.report()
    );

    let wrong = "WRONGKEY0123456789ABCDEFGHIJKLMN";
    let output = run_in(
        &scratch,
        &["client", &url, &program.app_id, wrong, "init.1011", &file],
        Run::Native,
    );
    for words in [
        "first en: FAIL: Refused with 1011",
        "first zh-CN: FAIL：被拒绝（1011）",
        "first zh-TW: FAIL：被拒絕（1011）",
        "cause 2 init.1011: 被拒绝（1011）",
    ] {
        assert!(
            output.stdout.contains(words),
            "{words}: {}",
            output.report()
        );
    }
    let saved = std::fs::read_to_string(scratch.0.join("support.txt")).expect("the support file");
    assert!(!saved.contains(wrong), "{saved}");
    assert!(saved.contains("FAIL：被拒绝（1011）"), "{saved}");
}
