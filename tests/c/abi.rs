//! The C ABI as a C host calls it: `tests/c/c_abi.c` (with its part `c_abi_contracts.c`),
//! compiled with warnings as errors against the library of this build and run under
//! valgrind against the sandbox. Bad input
//! of every kind gives a negative code and a last-error message, never a crash; real calls
//! give replies whose fields are readable through JSON Pointers without a JSON library.
//!
//! Each test runs one scenario of the host (see the comment at the top of c_abi.c); the
//! host prints a `FAIL file:line:` line for each check that fails.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeSet;

use common::host::{
    build_host, header_functions, require_tool, run_host, HostOutput, Run, Scratch, SANITIZER_FLAGS,
};
use common::{Program, APP_KEY};
use serde_json::json;

/// Builds the host and runs `args` under valgrind, answering its requests with `on_line`.
fn run(args: &[String], on_line: impl FnMut(&str) -> Option<String>) -> HostOutput {
    require_tool("valgrind", "valgrind");
    let scratch = Scratch::new();
    let program = build_host("c_abi", &scratch, &[]);
    let output = run_host(&program, args, Run::Valgrind, on_line);
    output.assert_passed(Run::Valgrind);
    output
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn no_requests(line: &str) -> Option<String> {
    assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
    None
}

/// The functions of verify.h that take a client and give a reply (`verify_reply **out`).
fn client_calls_of_the_header() -> BTreeSet<String> {
    header_functions()
        .into_iter()
        .filter(|(_, declaration)| {
            declaration.contains("const struct verify_client *client")
                && declaration.contains("struct verify_reply **out")
        })
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn the_misuse_table_holds_every_call_of_the_header() {
    let scratch = Scratch::new();
    let program = build_host("c_abi", &scratch, &[]);
    let output = run_host(&program, &args(&["list"]), Run::Native, no_requests);
    assert!(output.status.success(), "{}", output.report());
    let table: BTreeSet<String> = output.stdout.lines().map(str::to_owned).collect();
    let header = client_calls_of_the_header();
    assert!(header.len() >= 20, "header parsed: {header:?}");
    let missing: Vec<_> = header.difference(&table).collect();
    let extra: Vec<_> = table.difference(&header).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the CALLS table of tests/c/c_abi.c differs from verify.h: missing {missing:?}, \
         not in the header {extra:?}"
    );
}

#[test]
fn bad_arguments_give_negative_codes_never_a_crash() {
    // NULL, empty, invalid UTF-8 (bad byte, overlong form, surrogate, cut sequence), over
    // 65536 bytes, NULL client, NULL out, for every argument of every call of the table;
    // an empty optional string is accepted like NULL.
    let output = run(&args(&["misuse"]), no_requests);
    assert!(
        output.stdout.contains("RESULT: misuse: "),
        "{}",
        output.report()
    );
}

#[test]
fn misuse_under_address_and_undefined_behavior_sanitizers() {
    // The same host built with ASan and UBSan (the library is not instrumented, but every
    // allocation and free goes through ASan's allocator).
    let scratch = Scratch::new();
    let program = build_host("c_abi", &scratch, SANITIZER_FLAGS);
    for scenario in ["misuse", "construction"] {
        let output = run_host(&program, &args(&[scenario]), Run::Native, no_requests);
        output.assert_passed(Run::Native);
        assert!(
            !output.stderr.contains("Sanitizer"),
            "a sanitizer reported\n{}",
            output.report()
        );
    }
}

#[test]
fn bad_client_construction_and_options() {
    // Includes ABI 2's full parse of the base URL: a non-ASCII host and `http://h:99999` are
    // VERIFY_ERR_INVALID_ARGUMENT with a message.
    run(&args(&["construction"]), no_requests);
}

#[test]
fn reply_accessors_on_a_real_reply() {
    let program = Program::fresh();
    let card = program.count_card("FFIC-OUNT-0000-0001", 3);
    let base_url = program.sandbox.base_url();
    run(
        &args(&["accessors", &base_url, &program.app_id, APP_KEY, &card]),
        |line| {
            let request = line.strip_prefix("@@ ")?;
            let device = request
                .strip_prefix("disable-device ")
                .unwrap_or_else(|| panic!("unexpected request `{line}`"));
            program
                .sandbox
                .update_device(&program.app_id, device, "disable", Some("设备已禁用"))
                .expect("disable the device");
            Some("go".to_owned())
        },
    );
}

#[test]
fn generic_call_variables_and_pending_social_poll() {
    let program = Program::new(
        common::sandbox(),
        json!({"variables": {
            "greeting": "你好 & welcome", "limit": "5", "a.b": "dotted",
            "x/y": "slash", "t~z": "tilde"
        }}),
    );
    let base_url = program.sandbox.base_url();
    run(
        &args(&["variables", &base_url, &program.app_id, APP_KEY]),
        no_requests,
    );
}

#[test]
fn unreachable_server_gives_a_local_code_and_no_reply() {
    let sandbox =
        verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("sandbox");
    let url = sandbox.base_url();
    sandbox.stop();
    run(&args(&["unreachable", &url]), no_requests);
}

#[test]
fn descriptions_and_versions() {
    run(&args(&["versions", env!("CARGO_PKG_VERSION")]), no_requests);
}

#[test]
fn the_init_reply_never_shows_the_session_secret() {
    let program = Program::fresh();
    let base_url = program.sandbox.base_url();
    run(
        &args(&["init", &base_url, &program.app_id, APP_KEY]),
        no_requests,
    );
}

#[test]
fn probing_an_optional_field_keeps_the_last_error() {
    let program = Program::fresh();
    let base_url = program.sandbox.base_url();
    run(
        &args(&["probing", &base_url, &program.app_id, APP_KEY]),
        no_requests,
    );
}

#[test]
fn every_function_of_the_header_is_called_by_a_c_host() {
    // A new export cannot go untested through the C ABI: some C host must call it.
    let mut hosts = String::new();
    for entry in std::fs::read_dir(common::host::root().join("tests/c")).expect("tests/c") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if (name.starts_with("c_") && name.ends_with(".c")) || name.ends_with(".h") {
            hosts.push_str(&std::fs::read_to_string(&path).expect("a C host"));
        }
    }
    let uncalled: Vec<String> = header_functions()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| !hosts.contains(&format!("{name}(")))
        .collect();
    assert!(
        uncalled.is_empty(),
        "functions of verify.h that no C host in tests/c/ (c_*.c, *.h) calls: {uncalled:?}"
    );
}

#[test]
fn client_options_mirrors_and_the_log_callback() {
    // Every options setter refuses NULL, bad strings and bad values with a message;
    // verify_client_new_with_options refuses plain http beyond loopback, a trust setting
    // that trusts nothing and a bad mirror; a dead first server fails over to a mirror; the
    // log callback receives lines and never the AppKey, the card, the token or the machine.
    let program = Program::fresh();
    let card = program.day_card("OPTS-CARD-0000-0001", 30);
    let dead = verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("sandbox");
    let dead_url = dead.base_url();
    dead.stop();
    let base_url = program.sandbox.base_url();
    run(
        &args(&[
            "options",
            &base_url,
            &dead_url,
            &program.app_id,
            APP_KEY,
            &card,
        ]),
        no_requests,
    );
}

#[test]
fn every_argument_is_checked_as_its_doc_says() {
    // A table of bad values per function (host names, IPs, JSON Pointers, a base URL): each
    // refused with a message that leads with what is wrong, quotes a short prefix of the
    // argument, and names what it refuses; NULL messages name the parameter; a state folder
    // that is a file issues a code (not STORE_UNREADABLE); v1 ignores the state folder.
    let program = Program::fresh();
    let card = program.day_card(&common::unique("CONTRACT-"), 30);
    let base_url = program.sandbox.base_url();
    let scratch = Scratch::new();
    let file = scratch.0.join("a-file");
    std::fs::write(&file, b"not a folder").expect("a regular file");
    run(
        &args(&[
            "contracts",
            &base_url,
            &program.app_id,
            APP_KEY,
            &card,
            file.to_str().expect("a UTF-8 path"),
        ]),
        no_requests,
    );
}

#[test]
fn only_utf8_outside_windows_other_code_pages_refused() {
    // The Linux library is built without the code-page tables (they are in the Windows
    // build: tests/platforms/windows/code_page.rs runs GBK both ways): verify_set_code_page accepts
    // 65001 and VERIFY_CODE_PAGE_SYSTEM, refuses 936 and every other page with a message
    // saying why, and strings stay UTF-8.
    let program = Program::new(common::sandbox(), json!({"variables": {"名字": "值"}}));
    let base_url = program.sandbox.base_url();
    run(
        &args(&["codepage", &base_url, &program.app_id, APP_KEY]),
        no_requests,
    );
}
