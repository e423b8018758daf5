//! The C++ binding, `include/verify.hpp`, compiled with `-std=c++17 -Wall -Wextra -Werror
//! -pedantic` and run against this binary's sandbox:
//!
//! - `examples-c/demo.cpp` walks card mode and account mode (the flows of demo.c) on a copy
//!   of `sandbox/fixtures/demo.json` under a fresh app_id, and exits 0;
//! - `tests/cpp/cpp_wrapper.cpp` includes the header twice, asserts at compile time that
//!   `Client` and `Reply` are move-only, and checks at run time that refusals come back as
//!   replies while local failures throw `verify::Error`, that fields are read by JSON
//!   Pointer and say "absent" (in another dialect of the service too);
//! - `tests/cpp/cpp_header.cpp` (the header alone) compiles under `-Wshadow -Wconversion
//!   -Wsign-conversion -Wold-style-cast` as errors, with a `VERIFY_CALL` that is a real
//!   calling convention (the binding's callbacks declare it), and for 32-bit Windows
//!   (`__stdcall`, mingw-w64's i686 g++);
//! - `tests/cpp/cpp_client_options.cpp` makes clients with `verify::ClientOptions` against
//!   a sandbox serving http and https (mirror failover with the log function, the sandbox's
//!   CA given as file or text, refused settings), also under valgrind;
//! - every header of `include/verify/` compiles alone (`verify.hpp` is an umbrella over them);
//! - the demo runs clean under valgrind (valgrind is required).
//!
//! The compiler is `c++`, or `$CXX` when set.

#[path = "../common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::host::{
    compile_cxx, demo_fixtures, host_command, require_tool, root, Scratch, CXX_FLAGS,
    CXX_STRICT_FLAGS,
};
use serde_json::{json, Value};
use verify_sandbox::{Config, Fixtures, Sandbox, Tls};

/// A fresh scratch directory under Cargo's per-target temporary directory.
fn scratch(prefix: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(common::unique(prefix));
    fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn show(output: &Output) -> String {
    format!(
        "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Removes the scratch directory of `file` (called once a test has passed; a failing test
/// leaves its sources and binaries for inspection).
fn clean(file: &Path) {
    if let Some(dir) = file.parent() {
        let _ = fs::remove_dir_all(dir);
    }
}

/// A C++ test program of `tests/cpp/`.
fn host_source(name: &str) -> PathBuf {
    root().join("tests/cpp").join(name)
}

/// Builds examples-c/demo.cpp into a scratch directory.
fn build_demo() -> PathBuf {
    let binary = scratch("demo_cpp").join("demo_cpp");
    compile_cxx(&root().join("examples-c/demo.cpp"), &binary, &[]);
    binary
}

/// Loads `sandbox/fixtures/demo.json` into the sandbox under a fresh app_id (its program,
/// cards and accounts), so that every run spends its own cards. Returns (app_id, app_key).
fn demo_program() -> (String, String) {
    let app_id = common::unique("cppdemo");
    let (fixtures, app_key) = demo_fixtures(&app_id);
    common::sandbox()
        .load(Fixtures::from_value(fixtures).expect("fixtures"))
        .expect("demo fixtures load");
    (app_id, app_key)
}

fn card_state(app_id: &str, card: &str) -> Option<String> {
    let record = common::sandbox().card(app_id, card)?;
    ["state", "status"]
        .iter()
        .find_map(|key| record.get(*key).and_then(Value::as_str).map(str::to_owned))
}

#[test]
fn demo_cpp_walks_card_and_account_mode() {
    let binary = build_demo();
    let (app_id, app_key) = demo_program();
    let output = host_command(&binary)
        .arg(common::sandbox().base_url())
        .arg(&app_id)
        .arg(&app_key)
        .output()
        .expect("demo_cpp runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "demo_cpp failed\n{}",
        show(&output)
    );

    for line in [
        "[verify::Client] code 200",
        "[client.init] code 200",
        "[client.single_login] code 200",
        "[client.heartbeat(SessionKind::Card)] code 200",
        "[client.single_login(other machine)] code 1022",
        "remark         \"DEMO-MACHINE-CARD-0001\"",
        "[client.user_register] code 200",
        "[client.user_login(machine A)] code 200",
        "[client.heartbeat(SessionKind::User)] code 200",
        "[client.user_recharge] code 200",
        "[client.change_bind] code 200",
        "device_id      \"DEMO-MACHINE-B-0002\"",
        "[client.user_login(machine B)] code 200",
        "[client.get_bulletin] code 200",
        "[client.get_latest_version] code 200",
        "[client.get_variables] code 200",
        "PASSED: all 13 steps got their expected code",
    ] {
        assert!(stdout.contains(line), "missing `{line}`\n{}", show(&output));
    }
    assert!(!stdout.contains("FAILED"), "{}", show(&output));
    assert!(!stdout.contains(&app_key), "the AppKey is never printed");

    // The server saw what the demo says: both cards spent, the card bound to its machine.
    assert_eq!(
        card_state(&app_id, "DEMO-REGN-0000-0001").as_deref(),
        Some("used")
    );
    assert_eq!(
        card_state(&app_id, "DEMO-RECH-0000-0001").as_deref(),
        Some("used")
    );
    assert_eq!(
        card_state(&app_id, "DEMO-CARD-0000-0001").as_deref(),
        Some("active")
    );
    let card = common::sandbox()
        .card(&app_id, "DEMO-CARD-0000-0001")
        .expect("the login card");
    assert_eq!(card["device_id"], "DEMO-MACHINE-CARD-0001", "{card}");

    // The account the demo registered ends up bound to machine B after one rebind.
    let username = stdout
        .lines()
        .find_map(|line| line.strip_prefix("=== account mode: user "))
        .and_then(|rest| rest.split(',').next())
        .expect("the demo prints its username");
    let account = common::sandbox()
        .account(&app_id, username)
        .unwrap_or_else(|| panic!("account {username} exists"));
    assert_eq!(account["device_id"], "DEMO-MACHINE-B-0002", "{account}");
    assert_eq!(account["bind_count"], 1, "{account}");
    clean(&binary);
}

#[test]
fn demo_cpp_usage_and_unreachable_server() {
    let binary = build_demo();

    let usage = host_command(&binary).output().expect("demo_cpp runs");
    assert_eq!(usage.status.code(), Some(2), "{}", show(&usage));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("usage:"));

    // Nothing listens on port 1: every step is a local failure (an exception inside the
    // demo), reported with its negative code, and the exit status is 1.
    let down = host_command(&binary)
        .arg("http://127.0.0.1:1")
        .output()
        .expect("demo_cpp runs");
    let stdout = String::from_utf8_lossy(&down.stdout);
    assert_eq!(down.status.code(), Some(1), "{}", show(&down));
    assert!(stdout.contains("[client.init] code -3"), "{}", show(&down));
    assert!(
        stdout.contains("(no reply from the server)"),
        "{}",
        show(&down)
    );
    assert!(stdout.contains("FAILED:"), "{}", show(&down));
    clean(&binary);
}

/// `tests/cpp/cpp_wrapper.cpp`: includes verify.hpp twice and checks the binding's
/// contract at compile time and against the sandbox (see the file's comment). Compiled with
/// the strict warnings too.
#[test]
fn wrapper_is_move_only_and_throws_only_local_failures() {
    let binary = scratch("wrapper_check").join("cpp_wrapper");
    compile_cxx(&host_source("cpp_wrapper.cpp"), &binary, CXX_STRICT_FLAGS);

    // Variables whose names need a JSON Pointer: a dot (kept as it is), a slash and a tilde
    // (escaped as ~1 and ~0).
    let program = common::Program::new(
        common::sandbox(),
        json!({"variables": {"greeting": "你好 & welcome", "limit": "5", "a.b": "dotted",
            "x/y~z": "slashed"}}),
    );
    let card = program.day_card(&common::unique("CPPCARD-"), 30);
    let recharge = program.day_card(&common::unique("CPPRECH-"), 30);
    let user = common::unique("cppuser");
    program.account(&user, "cpp-pass");
    // A program answering in another dialect: other names, extra and missing fields.
    let alternate = common::Program::fresh();
    alternate
        .sandbox
        .set_dialect(&alternate.app_id, "alternate")
        .expect("alternate dialect");

    let output = host_command(&binary)
        .arg(program.sandbox.base_url())
        .arg(&program.app_id)
        .arg(common::APP_KEY)
        .arg(&card)
        .arg(&recharge)
        .arg(&user)
        .arg("cpp-pass")
        .arg(&alternate.app_id)
        .output()
        .expect("cpp_wrapper runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "cpp_wrapper failed\n{}",
        show(&output)
    );
    assert!(
        stdout.contains("wrapper checks: 0 failed"),
        "{}",
        show(&output)
    );
    assert!(!stdout.contains("CHECK FAILED"), "{}", show(&output));

    // The server saw what the program did: the card bound to its machine, the renewal card
    // spent on the account.
    let bound = program
        .sandbox
        .card(&program.app_id, &card)
        .expect("the card");
    assert_eq!(bound["device_id"], "CPP-CHECK-MACHINE", "{bound}");
    assert_eq!(
        card_state(&program.app_id, &recharge).as_deref(),
        Some("used")
    );
    clean(&binary);
}

/// `tests/cpp/cpp_client_options.cpp`: `verify::ClientOptions` against a sandbox of its own
/// serving http and https: a mirror takes over from a dead server (and the log function
/// hears of it, never the AppKey), the sandbox's CA is trusted only when given (file or
/// text), and settings the library refuses throw `codes::err_invalid_argument`.
#[test]
fn client_options_reach_the_library() {
    run_client_options(&[]);
}

/// The same under valgrind, over http only (valgrind reports false positives in ring's
/// assembly): the log function a Client owns is freed only after its client
/// (move-assignment included), and nothing leaks.
#[test]
fn client_options_are_clean_under_valgrind() {
    require_tool("valgrind", "valgrind");
    run_client_options(&[
        "valgrind",
        "--quiet",
        "--leak-check=full",
        "--show-leak-kinds=definite,indirect",
        "--errors-for-leak-kinds=definite,indirect",
        "--error-exitcode=99",
    ]);
}

/// Runs cpp_client_options (through `wrapper`, such as valgrind, when given) against a
/// sandbox of its own serving http and https, and checks its output and the server's log.
fn run_client_options(wrapper: &[&str]) {
    let binary = scratch("client_options").join("cpp_client_options");
    compile_cxx(
        &host_source("cpp_client_options.cpp"),
        &binary,
        CXX_STRICT_FLAGS,
    );

    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Generated),
        ..Config::default()
    })
    .expect("https sandbox");
    let program = common::Program::new(&sandbox, json!({}));
    let https = sandbox.https_base_url().expect("https listener");
    let ca_file = binary.with_file_name("ca.pem");
    fs::write(&ca_file, sandbox.ca_pem().expect("generated CA")).expect("write ca.pem");

    let mut command = match wrapper.split_first() {
        Some((tool, args)) => {
            let mut command = host_command(tool);
            command.args(args).arg(&binary);
            command
        }
        None => host_command(&binary),
    };
    // Under a wrapper (valgrind), no call goes over https.
    let https_arg = if wrapper.is_empty() {
        https.as_str()
    } else {
        "-"
    };
    let output = command
        .arg(sandbox.base_url())
        .arg(https_arg)
        .arg(&ca_file)
        .arg(&program.app_id)
        .arg(common::APP_KEY)
        .output()
        .expect("cpp_client_options runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "cpp_client_options failed\n{}",
        show(&output)
    );
    assert!(
        stdout.contains("options checks: 0 failed"),
        "{}",
        show(&output)
    );
    assert!(
        stdout.contains("\nlog "),
        "the log function was called\n{}",
        show(&output)
    );
    assert!(!stdout.contains(common::APP_KEY), "{}", show(&output));

    // The failover client's calls reached the mirror: two bulletins and the Init before them.
    let bulletins = sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("GetBulletin") && entry.code == 200)
        .count();
    assert!(
        bulletins >= 4,
        "{bulletins} bulletins served\n{}",
        show(&output)
    );
    clean(&binary);
}

/// Compiles `tests/cpp/cpp_header.cpp` (verify.hpp alone) without linking, with the
/// contract flags, `extra` and `-Werror`; panics with the compiler's output on failure.
/// `$CXX` or `c++`.
fn compile_only(extra: &[&str]) {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    compile_only_with(&cxx, extra);
}

/// [`compile_only`] with the compiler `cxx`.
fn compile_only_with(cxx: &str, extra: &[&str]) {
    let source = host_source("cpp_header.cpp");
    let output = Command::new(cxx)
        .args(CXX_FLAGS)
        .args(extra)
        .arg("-fsyntax-only")
        .arg("-I")
        .arg(root().join("include"))
        .arg(&source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler `{cxx}`: {e}"));
    assert!(
        output.status.success(),
        "verify.hpp does not compile with `{cxx}` {extra:?}\n{}",
        show(&output)
    );
}

/// verify.hpp compiles clean under the warnings a strict host uses, as errors: shadowing,
/// implicit conversions (sign included) and C-style casts.
#[test]
fn header_compiles_under_strict_warnings() {
    let mut flags: Vec<&str> = vec![
        "-Wshadow",
        "-Wconversion",
        "-Wsign-conversion",
        "-Wold-style-cast",
    ];
    for flag in CXX_STRICT_FLAGS {
        if !flags.contains(flag) {
            flags.push(flag);
        }
    }
    compile_only(&flags);
}

/// Every header of `include/verify/` compiles alone, first in its translation unit, under the
/// contract and strict flags: each includes what it uses (by relative paths, so nothing but
/// `include/` is on the include path), and none needs the umbrella before it.
#[test]
fn every_topic_header_compiles_alone() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let scratch = Scratch::new();
    let mut headers = Vec::new();
    let mut folders = vec![root().join("include/verify")];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).expect("include/verify") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "hpp") {
                headers.push(path);
            }
        }
    }
    assert!(headers.len() > 10, "the topic headers: {headers:?}");
    for header in headers {
        let source = scratch.0.join("alone.cpp");
        fs::write(&source, format!("#include \"{}\"\n", header.display())).expect("write");
        let output = Command::new(&cxx)
            .args(CXX_FLAGS)
            .args(CXX_STRICT_FLAGS)
            .arg("-fsyntax-only")
            .arg(&source)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C++ compiler `{cxx}`: {e}"));
        assert!(
            output.status.success(),
            "{} does not compile alone\n{}",
            header.display(),
            show(&output)
        );
    }
}

/// 32-bit Windows, where `VERIFY_CALL` is `__stdcall`: the header (its callbacks included)
/// compiles with mingw-w64's i686 g++ under the strict warnings.
#[test]
fn header_compiles_for_32_bit_windows() {
    require_tool("i686-w64-mingw32-g++", "mingw");
    let mut flags = CXX_STRICT_FLAGS.to_vec();
    flags.push("-Wshadow");
    compile_only_with("i686-w64-mingw32-g++", &flags);
}

/// The binding's callbacks are declared with `VERIFY_CALL`: compiled with a
/// `VERIFY_CALL` that is a real calling convention on this target (`ms_abi` on x86-64, as
/// `__stdcall` is on 32-bit Windows), a callback without it would not convert to
/// `verify_event_callback`.
#[test]
fn header_callbacks_use_verify_call() {
    if !cfg!(target_arch = "x86_64") {
        eprintln!("skipped: ms_abi is a calling convention of x86-64 only");
        return;
    }
    compile_only(&["-DVERIFY_CALL=__attribute__((ms_abi))"]);
}

#[test]
fn demo_cpp_is_clean_under_valgrind() {
    require_tool("valgrind", "valgrind");
    let binary = build_demo();
    let (app_id, app_key) = demo_program();
    let output = host_command("valgrind")
        .args([
            "--quiet",
            "--leak-check=full",
            "--show-leak-kinds=definite,indirect",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=99",
        ])
        .arg(&binary)
        .arg(common::sandbox().base_url())
        .arg(&app_id)
        .arg(&app_key)
        .output()
        .expect("valgrind runs");
    assert!(
        output.status.success(),
        "demo_cpp under valgrind\n{}",
        show(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("PASSED"),
        "{}",
        show(&output)
    );
    clean(&binary);
}
