//! The READMEs' ways to ban a card or an account in the sandbox, from each host's language,
//! run as written against a sandbox that has a control token (only the server address and
//! the program id are replaced by the sandbox's; the token comes in `VERIFY_SANDBOX_TOKEN`,
//! where the READMEs read it):
//!
//! - the curl commands of README.md's C section and of README.zh-CN.md's (a card disabled
//!   and an account banned: their logins then get 1006 with the reason as the remark; the C
//!   quickstart of the README then prints that 1006 and its remark);
//! - the curl line of the C++ section of both (the card);
//! - the `urllib.request` block of bindings/python/README.md, run by the machine's `python3`
//!   (the standard library only: no verify package needed).
//!
//! Each is first run without the token: the sandbox's door refuses it and nothing changes.
//! The C# one is run by `tests/csharp/readme.rs`.
//!
//! Needs `curl`, `sh`, `python3` and `cc` on PATH.

#[path = "../common/mod.rs"]
mod common;

use std::process::Command;

use common::host::{
    build_host_from, demo_sandbox_with, fenced, require_tool, run_host, show, Run, Scratch,
};
use verify_core::Client;
use verify_sandbox::{Config, Sandbox};

/// The control token of the test sandboxes.
const TOKEN: &str = "readme-ban-token.0123456789";
const README_URL: &str = "http://127.0.0.1:8080";
const CARD_REASON: &str = "refund requested";
const ACCOUNT_REASON: &str = "chargeback";

/// The ```sh block of `file` that bans an account too (the C section's), or that disables a
/// card only (the C++ section's).
fn curl_block(file: &str, with_account: bool) -> String {
    fenced(file, "sh")
        .into_iter()
        .find(|block| {
            block.contains("/_sandbox/cards/update")
                && block.contains("/_sandbox/accounts/update") == with_account
        })
        .unwrap_or_else(|| panic!("{file} has the ```sh block (account: {with_account})"))
}

/// `block` with the README's address and program id replaced by the sandbox's; `app_id`
/// is written as the block writes it (`"app_id":"10001"` or `"app_id": "10001"`).
fn for_sandbox(block: &str, sandbox: &Sandbox, app_id: &str) -> String {
    let id_json = if block.contains("\"app_id\": \"10001\"") {
        "\"app_id\": \"10001\""
    } else {
        "\"app_id\":\"10001\""
    };
    for part in [README_URL, id_json] {
        assert!(
            block.contains(part),
            "the block no longer has {part}:\n{block}"
        );
    }
    block
        .replace(README_URL, &sandbox.base_url())
        .replace(id_json, &id_json.replace("10001", app_id))
}

/// A demo sandbox (`sandbox/fixtures/demo.json` under a fresh program id) whose control API
/// needs [`TOKEN`], even on loopback.
fn token_sandbox() -> (Sandbox, String, String) {
    demo_sandbox_with(Config {
        token: Some(TOKEN.to_owned()),
        ..Config::default()
    })
}

/// Runs `program` `args` with `token` in `VERIFY_SANDBOX_TOKEN`, straight to loopback (no
/// proxy from the environment).
fn run(program: &str, args: &[&str], token: &str) -> std::process::Output {
    let mut command = Command::new(program);
    command.args(args).env("VERIFY_SANDBOX_TOKEN", token);
    for proxy in ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"] {
        command.env_remove(proxy);
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// Runs `script` with `program` (`sh -c`, `python3 -c`) first without the token (refused by
/// the door: it fails and `card` and the account `alice` stay as they were), then with it
/// (it succeeds).
fn run_without_then_with_token(
    program: &str,
    script: &str,
    sandbox: &Sandbox,
    app_id: &str,
    card: &str,
) -> std::process::Output {
    let records = || (sandbox.card(app_id, card), sandbox.account(app_id, "alice"));
    let before = records();
    assert!(
        before.0.is_some() && before.1.is_some(),
        "the demo's card and account"
    );
    let refused = run(program, &["-c", script], "");
    assert!(
        !refused.status.success(),
        "without the token the sandbox refuses the ban\n{}",
        show(&refused)
    );
    assert_eq!(records(), before, "a refused ban changes nothing");
    let output = run(program, &["-c", script], TOKEN);
    assert!(
        output.status.success(),
        "the README's ban runs with the token\n{script}\n{}",
        show(&output)
    );
    output
}

/// Fails unless `card` is refused with 1006 and the ban's reason.
fn assert_card_banned(client: &Client, card: &str) {
    let err = client
        .single_login(card, "README-BAN-MAC", None)
        .expect_err("the card is disabled");
    assert_eq!(
        (err.code(), err.remark()),
        (1006, Some(CARD_REASON)),
        "{err}"
    );
}

/// Fails unless the demo account `alice` is refused with 1006 and the ban's reason.
fn assert_account_banned(client: &Client) {
    let err = client
        .user_login("alice", "alice-pass", Some("README-BAN-MAC"))
        .expect_err("the account is banned");
    assert_eq!(
        (err.code(), err.remark()),
        (1006, Some(ACCOUNT_REASON)),
        "{err}"
    );
}

/// The C section's curl commands of `file`: the card and the account are banned; then the
/// first ```c block of `file` (the quickstart, on that card) prints the 1006 and its remark
/// after `remark_label`.
fn c_section_bans(file: &str, remark_label: &str) {
    require_tool("curl", "curl");
    let (sandbox, app_id, app_key) = token_sandbox();
    let client = Client::new(&sandbox.base_url(), &app_id, &app_key).expect("client");
    let script = for_sandbox(&curl_block(file, true), &sandbox, &app_id);
    let output =
        run_without_then_with_token("sh", &script, &sandbox, &app_id, "DEMO-CARD-0000-0002");
    assert_card_banned(&client, "DEMO-CARD-0000-0002");
    assert_account_banned(&client);

    let quickstart = fenced(file, "c")
        .into_iter()
        .next()
        .expect("a ```c block")
        .replace(
            &format!("\"{README_URL}\""),
            &format!("\"{}\"", sandbox.base_url()),
        )
        .replace("\"10001\"", &format!("\"{app_id}\""));
    let scratch = Scratch::new();
    let source = scratch.0.join("quickstart.c");
    std::fs::write(&source, quickstart).expect("write the quickstart");
    let program = build_host_from(&source, &scratch, &[]);
    let run = run_host(&program, &[], Run::Native, |_| None);
    sandbox.stop();
    let report = format!("{}\n--- curl ---\n{}", run.report(), show(&output));
    assert!(
        !run.status.success()
            && run.stdout.starts_with("1006 ")
            && run
                .stdout
                .contains(&format!("{remark_label}{CARD_REASON}\n")),
        "the quickstart sees the ban: 1006 and its remark\n{report}"
    );
}

#[test]
fn the_readme_c_section_bans_a_card_and_an_account_with_curl() {
    c_section_bans("README.md", "remark: ");
}

#[test]
fn the_chinese_readme_c_section_bans_a_card_and_an_account_with_curl() {
    c_section_bans("README.zh-CN.md", "备注：");
}

/// The C++ section's curl line of `file` disables the card of the C++ example.
fn cpp_section_bans(file: &str) {
    require_tool("curl", "curl");
    let (sandbox, app_id, app_key) = token_sandbox();
    let client = Client::new(&sandbox.base_url(), &app_id, &app_key).expect("client");
    let script = for_sandbox(&curl_block(file, false), &sandbox, &app_id);
    run_without_then_with_token("sh", &script, &sandbox, &app_id, "DEMO-CARD-0000-0002");
    assert_card_banned(&client, "DEMO-CARD-0000-0002");
    sandbox.stop();
}

#[test]
fn the_readme_cpp_section_bans_a_card_with_curl() {
    cpp_section_bans("README.md");
}

#[test]
fn the_chinese_readme_cpp_section_bans_a_card_with_curl() {
    cpp_section_bans("README.zh-CN.md");
}

/// The `urllib.request` block of the Python README, run by `python3`, disables the card of
/// its first example and bans the account.
#[test]
fn the_python_readme_bans_a_card_and_an_account_with_urllib() {
    require_tool("python3", "python3");
    let block = fenced("bindings/python/README.md", "python")
        .into_iter()
        .find(|block| block.contains("urllib.request"))
        .expect("the Python README's urllib block");
    let (sandbox, app_id, app_key) = token_sandbox();
    let client = Client::new(&sandbox.base_url(), &app_id, &app_key).expect("client");
    let script = for_sandbox(&block, &sandbox, &app_id);
    run_without_then_with_token("python3", &script, &sandbox, &app_id, "DEMO-CARD-0000-0001");
    assert_card_banned(&client, "DEMO-CARD-0000-0001");
    assert_account_banned(&client);
    sandbox.stop();
}
