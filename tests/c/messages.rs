//! The end user's messages through the C ABI: `tests/c/c_messages.c`, compiled with
//! warnings as errors and run under valgrind. Every code has a message in every language;
//! the default language follows the locale variables (`LC_ALL`, `LC_MESSAGES`, `LANG`);
//! `verify_set_language` chooses another; a refusal keeps the server's own message and the
//! last error stays the developer's English.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

#[path = "../common/mod.rs"]
mod common;

use common::host::{
    build_host, host_command, require_tool, run_host_command, HostOutput, Run, Scratch,
    VALGRIND_ARGS, VALGRIND_SLACK,
};
use common::{Program, APP_KEY};

/// Runs the host under valgrind with `args`, the locale variables set to `locale` (name,
/// value; the others removed).
fn run(args: &[&str], locale: &[(&str, &str)]) -> HostOutput {
    require_tool("valgrind", "valgrind");
    let scratch = Scratch::new();
    let program = build_host("c_messages", &scratch, &[]);
    let mut command = host_command("valgrind");
    command
        .args(VALGRIND_ARGS)
        .arg(&program)
        .args(args)
        .env("VERIFY_HOST_SLACK", VALGRIND_SLACK.to_string());
    for name in ["LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"] {
        command.env_remove(name);
    }
    command.envs(locale.iter().copied());
    let output = run_host_command(command, |line| {
        assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
        None
    });
    output.assert_passed(Run::Valgrind);
    output
}

#[test]
fn every_code_in_every_language_and_the_server_keeps_its_message() {
    let program = Program::fresh();
    program.account("message-user", "message-pass");
    let dead = verify_sandbox::Sandbox::start(verify_sandbox::Config::default()).expect("sandbox");
    let dead_url = dead.base_url();
    dead.stop();
    let output = run(
        &[
            "messages",
            &program.sandbox.base_url(),
            &program.app_id,
            APP_KEY,
            "message-user",
            "message-pass",
            &dead_url,
        ],
        &[("LANG", "en_US.UTF-8")],
    );
    assert!(
        output
            .stdout
            .contains("user: 无法连接验证服务器，请检查网络后重试。"),
        "{}",
        output.report()
    );
}

#[test]
fn the_default_language_follows_the_locale_variables() {
    for (locale, tag) in [
        (&[("LANG", "zh_CN.UTF-8")][..], "zh-CN"),
        (&[("LANG", "zh_TW.UTF-8")][..], "zh-TW"),
        (
            &[("LANG", "zh_CN.UTF-8"), ("LC_MESSAGES", "zh_HK.UTF-8")][..],
            "zh-TW",
        ),
        (&[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "C")][..], "en"),
        (&[("LANG", "de_DE.UTF-8")][..], "en"),
        (&[][..], "en"),
    ] {
        let output = run(&["language", tag], locale);
        assert!(
            output.stdout.contains(&format!("      {tag}: ")),
            "{locale:?}: {}",
            output.report()
        );
    }
}
