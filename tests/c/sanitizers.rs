//! The C hosts under AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer
//! against the sandbox: `tests/c/c_abi.c` in every
//! scenario that talks to a server, `examples-c/demo.c`, and the thread and keeper hosts
//! (`c_threads.c`, `c_keeper.c`), compiled with `-fsanitize=address,undefined
//! -fno-sanitize-recover=all -fno-omit-frame-pointer` (`SANITIZER_FLAGS`) and linked with
//! the library under test (`libverify.so` of this build, not instrumented itself: every
//! allocation and free of the library still goes through ASan's allocator, so a double
//! free, a free of a foreign pointer, a read past a string the library returned, or a leak
//! of anything it allocated is caught). Leaks are checked (`detect_leaks=1`) with the
//! suppressions of `tests/sanitizers/lsan.supp` (none needed today); any finding fails
//! the test. The misuse and construction scenarios (no server) run under the same flags in
//! tests/c/abi.rs. With `VERIFY_C_SANITIZER=thread` the same hosts are built with
//! ThreadSanitizer instead (scripts/tsan.sh runs them so, against an instrumented library).
//!
//! Needs `cc` with the sanitizer runtimes (gcc's libasan and libubsan):
//! `scripts/install-deps.sh gcc`.

#[path = "../common/mod.rs"]
mod common;

use std::path::PathBuf;

use common::host::{
    assert_demo_output, assert_no_sanitizer_report, assert_sanitizers_clean, build_host,
    build_host_from, demo_sandbox, host_sanitizer_flags, root, run_sanitized_host, HostOutput,
    Scratch, C_POSIX_FLAGS, DEMO_STEPS,
};
use common::{unique, Program, APP_KEY};
use serde_json::json;
use verify_sandbox::{Fault, FaultKind};

/// Builds the host `name` with the sanitizers (and `extra` flags) into `scratch`.
fn sanitized(name: &str, scratch: &Scratch, extra: &[&str]) -> PathBuf {
    let flags: Vec<&str> = host_sanitizer_flags()
        .iter()
        .chain(extra)
        .copied()
        .collect();
    build_host(name, scratch, &flags)
}

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

fn no_requests(line: &str) -> Option<String> {
    assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
    None
}

/// Runs a scenario of c_abi.c under the sanitizers and checks it passed clean.
fn c_abi(words: &[&str], on_line: impl FnMut(&str) -> Option<String>) -> HostOutput {
    let scratch = Scratch::new();
    let program = sanitized("c_abi", &scratch, &[]);
    let output = run_sanitized_host(&program, &args(words), on_line);
    assert_sanitizers_clean(&output);
    output
}

#[test]
fn c_abi_reply_accessors_on_a_real_reply() {
    let program = Program::fresh();
    let card = program.count_card("ASAN-OUNT-0000-0001", 3);
    let base_url = program.sandbox.base_url();
    c_abi(
        &["accessors", &base_url, &program.app_id, APP_KEY, &card],
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
fn c_abi_generic_call_variables_and_social_poll() {
    let program = Program::new(
        common::sandbox(),
        json!({"variables": {
            "greeting": "你好 & welcome", "limit": "5", "a.b": "dotted",
            "x/y": "slash", "t~z": "tilde"
        }}),
    );
    let base_url = program.sandbox.base_url();
    c_abi(
        &["variables", &base_url, &program.app_id, APP_KEY],
        no_requests,
    );
}

#[test]
fn c_abi_unreachable_server_versions_init_and_probing() {
    let dead = verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("sandbox");
    let dead_url = dead.base_url();
    dead.stop();
    c_abi(&["unreachable", &dead_url], no_requests);
    c_abi(&["versions", env!("CARGO_PKG_VERSION")], no_requests);
    let program = Program::fresh();
    let base_url = program.sandbox.base_url();
    c_abi(&["init", &base_url, &program.app_id, APP_KEY], no_requests);
    c_abi(
        &["probing", &base_url, &program.app_id, APP_KEY],
        no_requests,
    );
}

#[test]
fn c_abi_client_options_mirrors_and_the_log_callback() {
    let program = Program::fresh();
    let card = program.day_card("ASAN-OPTS-0000-0001", 30);
    let dead = verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("sandbox");
    let dead_url = dead.base_url();
    dead.stop();
    let base_url = program.sandbox.base_url();
    c_abi(
        &[
            "options",
            &base_url,
            &dead_url,
            &program.app_id,
            APP_KEY,
            &card,
        ],
        no_requests,
    );
}

#[test]
fn c_abi_only_utf8_outside_windows() {
    let program = Program::new(common::sandbox(), json!({"variables": {"名字": "值"}}));
    let base_url = program.sandbox.base_url();
    c_abi(
        &["codepage", &base_url, &program.app_id, APP_KEY],
        no_requests,
    );
}

#[test]
fn the_c_demo() {
    // examples-c/demo.c, the README's tour: 13 steps against a sandbox with the demo
    // fixtures, every one 200.
    let scratch = Scratch::new();
    let demo = build_host_from(
        &root().join("examples-c/demo.c"),
        &scratch,
        host_sanitizer_flags(),
    );
    let (sandbox, app_id, app_key) = demo_sandbox();
    let output = run_sanitized_host(
        &demo,
        &args(&[&sandbox.base_url(), &app_id, &app_key]),
        |_| None,
    );
    sandbox.stop();
    let report = output.report();
    assert!(
        output.status.success(),
        "the demo failed ({})\n{report}",
        output.status
    );
    assert_no_sanitizer_report(&output);
    assert_demo_output(&output.stdout, DEMO_STEPS, &app_key, &report);
}

#[test]
fn c_threads_share_one_client() {
    // 8 threads x 125 calls on one client, then 8 threads reading one reply at once.
    let program = Program::fresh();
    let scratch = Scratch::new();
    let host = sanitized("c_threads", &scratch, C_POSIX_FLAGS);
    let base_url = program.sandbox.base_url();
    let output = run_sanitized_host(
        &host,
        &args(&["many", &base_url, &program.app_id, APP_KEY]),
        no_requests,
    );
    assert_sanitizers_clean(&output);
}

/// A program with an account, and the c_keeper.c arguments of `scenario` for it.
fn keeper_program(scenario: &str) -> (Program<'static>, String, Vec<String>) {
    const PASSWORD: &str = "pw-of-the-asan-host";
    let program = Program::fresh();
    let user = unique("asan");
    program.account(&user, PASSWORD);
    let args = vec![
        scenario.to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        user.clone(),
        PASSWORD.to_owned(),
    ];
    (program, user, args)
}

#[test]
fn c_keeper_callbacks_status_and_an_outage() {
    // Keeper threads, callbacks from them, snapshots, and the grace state through an outage.
    let scratch = Scratch::new();
    let host = sanitized("c_keeper", &scratch, C_POSIX_FLAGS);
    for scenario in ["callback", "status"] {
        let (program, user, args) = keeper_program(scenario);
        let output = run_sanitized_host(&host, &args, |line| {
            let request = line.strip_prefix("@@ ")?;
            if let Some(text) = request.strip_prefix("message ") {
                program
                    .sandbox
                    .leave_account_message(&program.app_id, &user, text)
                    .expect("leave a message");
            } else if let Some(reason) = request.strip_prefix("ban ") {
                program
                    .sandbox
                    .update_account(&program.app_id, &user, "ban", Some(reason))
                    .expect("ban");
            } else {
                panic!("unexpected request `{request}`");
            }
            Some("go".to_owned())
        });
        assert_sanitizers_clean(&output);
    }
    let (program, _, args) = keeper_program("grace");
    let output = run_sanitized_host(&host, &args, |line| {
        match line.strip_prefix("@@ ")? {
            "outage" => program.sandbox.set_fault(Fault {
                kind: FaultKind::Http502,
                app_id: Some(program.app_id.clone()),
                action: Some("UserHeartbeat".into()),
                count: None,
                delay_ms: 0,
            }),
            "recover" => program.sandbox.clear_faults(Some(&program.app_id)),
            other => panic!("unexpected request `{other}`"),
        }
        Some("go".to_owned())
    });
    assert_sanitizers_clean(&output);
}

#[test]
fn every_function_taking_a_pointer_is_called_with_null_by_a_c_host() {
    // The misuse suite covers every export: the client calls through the CALLS table of
    // c_abi.c (tests/c/abi.rs checks the table against the header), every other function
    // that takes a pointer through at least one call with a NULL argument in a C host (those
    // hosts also run under ASan and UBSan, here and in tests/c/abi.rs). A new export without
    // its NULL case fails here.
    let mut hosts = String::new();
    for entry in std::fs::read_dir(root().join("tests/c")).expect("tests/c") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("c_") && name.ends_with(".c") {
            hosts.push_str(&std::fs::read_to_string(&path).expect("a C host"));
        }
    }
    let table: Vec<String> = hosts
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("X("))
        .filter_map(|rest| rest.split(',').next())
        .map(|name| format!("verify_{name}"))
        .collect();
    let called_with_null = |name: &str| {
        hosts.match_indices(&format!("{name}(")).any(|(at, _)| {
            let statement = hosts[at..].split(';').next().unwrap_or_default();
            statement.contains("NULL")
        })
    };
    let functions = common::host::header_functions();
    assert!(
        functions.len() >= 60,
        "verify.h parsed: {}",
        functions.len()
    );
    let missing: Vec<String> = functions
        .into_iter()
        .filter(|(name, declaration)| {
            let params = declaration.split_once('(').map_or("", |(_, p)| p);
            params.contains('*') && !table.contains(name) && !called_with_null(name)
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        missing.is_empty(),
        "functions of verify.h taking a pointer that no C host calls with NULL (nor the CALLS \
         table of c_abi.c lists): {missing:?}"
    );
}
