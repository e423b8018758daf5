//! The C example harness: `examples-c/demo.c` is compiled with the README's `cc` line against
//! the freshly built `libverify.so` and run under valgrind against an in-process sandbox
//! loaded with `sandbox/fixtures/demo.json`. Every step must get its expected code, and
//! valgrind must report no error and no definite or indirect leak.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

#[path = "../common/mod.rs"]
mod common;

use std::path::Path;
use std::process::Command;

use common::host::{
    assert_demo_output, assert_valgrind_clean, demo_sandbox, demo_sandbox_with, host_command,
    library_dir, require_tool, root, text, Scratch, DEMO_STEPS, VALGRIND_ARGS,
};
use verify_sandbox::{Config, Tls};

/// Compiles demo.c with the README's line, from the repository root. The line uses paths
/// relative to the root when the library is in `target/debug` (the usual case).
fn compile_demo(lib_dir: &Path, out: &Path) {
    let root = root();
    let lib = lib_dir
        .strip_prefix(&root)
        .unwrap_or(lib_dir)
        .display()
        .to_string();
    let args = [
        "-std=c99".to_owned(),
        "-Wall".to_owned(),
        "-Wextra".to_owned(),
        "-Werror".to_owned(),
        "-pedantic".to_owned(),
        "-I".to_owned(),
        "include".to_owned(),
        "examples-c/demo.c".to_owned(),
        "-L".to_owned(),
        lib.clone(),
        "-lverify".to_owned(),
        format!("-Wl,-rpath,{lib}"),
        "-o".to_owned(),
        out.display().to_string(),
    ];
    let output = Command::new("cc")
        .args(&args)
        .current_dir(&root)
        .output()
        .expect("run cc");
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "`cc {}` failed ({}):\n{stdout}{stderr}",
        args.join(" "),
        output.status
    );
}

#[test]
fn demo_runs_clean_under_valgrind() {
    require_tool("cc", "gcc");
    require_tool("valgrind", "valgrind");
    let lib_dir = library_dir();
    let scratch = Scratch::new();
    let demo = scratch.0.join("demo");
    compile_demo(&lib_dir, &demo);

    let (sandbox, app_id, app_key) = demo_sandbox();
    let state = scratch.0.join("state");

    // Run from the root: the rpath is relative, as in the README line.
    let run = |extra: &[&str]| {
        host_command("valgrind")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env("LANG", "C")
            .args(VALGRIND_ARGS)
            .arg(&demo)
            .arg(sandbox.base_url())
            .arg(&app_id)
            .arg(&app_key)
            .arg("--state")
            .arg(&state)
            .args(extra)
            .current_dir(root())
            .output()
            .expect("run valgrind")
    };
    let output = run(&[]);
    let base_url = sandbox.base_url();
    sandbox.stop();
    // The server stopped, the demo starts again: licensed from the store (scripts/demo.sh's
    // last step), on a machine whose language is Chinese: the messages for the user are.
    let offline = host_command(&demo)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "zh_CN.UTF-8")
        .args([base_url.as_str(), &app_id, &app_key, "--state"])
        .arg(&state)
        .arg("--offline-start")
        .current_dir(root())
        .output()
        .expect("run the demo again");
    let (offline_stdout, offline_stderr) = text(&offline);
    assert!(
        offline.status.success()
            && offline_stdout.contains("[verify_single_login(offline)] code 202 (")
            && offline_stdout.contains("grace_end")
            && offline_stdout.contains("reason         -3")
            && offline_stdout.contains("messages for the user in zh-CN")
            && offline_stdout
                .contains("for the user   \"暂时无法连接服务器，已使用离线授权登录。\""),
        "--- offline start ---\n{offline_stdout}\n{offline_stderr}"
    );
    let (stdout, stderr) = text(&output);
    let report = format!("--- demo stdout ---\n{stdout}\n--- valgrind (stderr) ---\n{stderr}");

    assert!(
        output.status.success(),
        "the demo under valgrind exited with {} (99: valgrind found errors or leaks)\n{report}",
        output.status
    );
    assert_valgrind_clean(&stderr, &report);

    assert_demo_output(&stdout, DEMO_STEPS, &app_key, &report);
    // Under LANG=C the messages for the user are English.
    assert!(
        stdout.contains("messages for the user in en")
            && stdout.matches("for the user   \"Success.\"").count() >= DEMO_STEPS.len(),
        "{report}"
    );
}

/// The demo over https against the sandbox's TLS listener, trusting the CA it generated
/// (`demo URL APP_ID APP_KEY --ca FILE`, as `scripts/demo.sh --https` runs it); without the
/// CA, the first call fails with VERIFY_ERR_TLS.
#[test]
fn demo_runs_over_https_trusting_the_sandboxs_ca() {
    require_tool("cc", "gcc");
    let lib_dir = library_dir();
    let scratch = Scratch::new();
    let demo = scratch.0.join("demo");
    compile_demo(&lib_dir, &demo);
    let (sandbox, app_id, app_key) = demo_sandbox_with(Config {
        tls: Some(Tls::Generated),
        ..Config::default()
    });
    let url = sandbox.https_base_url().expect("https listener");
    let ca = scratch.0.join("ca.pem");
    std::fs::write(&ca, sandbox.ca_pem().expect("generated CA")).expect("write the CA");
    let output = host_command(&demo)
        .args([url.as_str(), &app_id, &app_key, "--ca"])
        .arg(&ca)
        .current_dir(root())
        .output()
        .expect("run the demo");
    let (stdout, stderr) = text(&output);
    let report = format!("--- demo stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert!(output.status.success(), "{report}");
    assert!(stdout.contains(&format!("server {url}")), "{report}");
    assert_demo_output(&stdout, DEMO_STEPS, &app_key, &report);

    let output = host_command(&demo)
        .args([url.as_str(), &app_id, &app_key])
        .current_dir(root())
        .output()
        .expect("run the demo");
    let (stdout, _) = text(&output);
    assert!(!output.status.success(), "{stdout}");
    assert!(
        stdout.contains("-5"),
        "VERIFY_ERR_TLS without the CA: {stdout}"
    );
    sandbox.stop();
}
