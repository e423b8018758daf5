//! Secrets left in memory (SECURITY.md): `tests/c/c_memscan.c` makes a
//! client, runs Init, a card login, an account login, their heartbeats and GetUserInfo,
//! frees everything, then reads its own heap and anonymous mappings for the AppKey, the
//! card, the password, the two tokens and the session secret the sandbox issued (read from
//! the sandbox's state file). The test fails on any copy found: the copies that ureq and
//! `http` made of the Handle URL and of the `X-Api-Password` header (tolerated until they
//! were made over bytes that wipe themselves) and of the request heads in the connections'
//! buffers (since those are verify-core's own) are gone too.
//!
//! Linux only (/proc/self/mem). Needs `cc`: `scripts/install-deps.sh gcc`.

#[path = "../common/mod.rs"]
mod common;

use std::time::Duration;

use common::host::{build_host, run_host, Run, Scratch, C_POSIX_FLAGS};
use common::{eventually, Program, APP_KEY};
use verify_sandbox::{Config, Sandbox};

const PASSWORD: &str = "MemscanPassword0123456789";

/// One copy of a secret the host found: the secret's name, the region, and the context
/// before and after it (other secrets masked as `<NAME>`).
#[derive(Debug)]
struct Copy {
    name: String,
    region: String,
    before: String,
    after: String,
}

fn copies(stdout: &str) -> Vec<Copy> {
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("FOUND "))
        .filter_map(|rest| {
            let mut fields = rest.splitn(4, ' ');
            let name = fields.next()?.to_owned();
            let region = fields.next()?.to_owned();
            let _offset = fields.next()?;
            let (before, after) = fields.next()?.split_once('|')?;
            Some(Copy {
                name,
                region,
                before: before.to_owned(),
                after: after.to_owned(),
            })
        })
        .collect()
}

#[test]
fn no_secret_left_in_memory_the_library_controls_after_verify_client_free() {
    let scratch = Scratch::new();
    let state_file = scratch.0.join("sandbox-state.json");
    let sandbox = Sandbox::start(Config {
        state_file: Some(state_file.clone()),
        ..Config::default()
    })
    .expect("start the sandbox");
    let program = Program::new(&sandbox, serde_json::json!({}));
    let card = program.day_card("MEMSCAN-CARD-0123456789-ABCDEFGHIJ", 30);
    let user = common::unique("memscan");
    program.account(&user, PASSWORD);

    let host = build_host("c_memscan", &scratch, C_POSIX_FLAGS);
    let args = vec![
        sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        card.clone(),
        user.clone(),
        PASSWORD.to_owned(),
    ];
    let output = run_host(&host, &args, Run::Native, |line| {
        if line != "@@ secrets" {
            assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
            return None;
        }
        // The session secrets the sandbox issued to this program, from its state file
        // (saved at most 20 ms after a change).
        let mut issued = Vec::new();
        let saved = eventually(Duration::from_secs(10), || {
            let Ok(text) = std::fs::read_to_string(&state_file) else {
                return false;
            };
            let Ok(state) = serde_json::from_str::<serde_json::Value>(&text) else {
                return false;
            };
            issued = state["api_passwords"][&program.app_id]
                .as_array()
                .map(|list| {
                    list.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            !issued.is_empty()
        });
        assert!(
            saved,
            "no api password of {} in the state file",
            program.app_id
        );
        let answer: Vec<String> = issued
            .iter()
            .enumerate()
            .map(|(i, pw)| {
                format!(
                    "api_password{}={pw}",
                    if i == 0 {
                        String::new()
                    } else {
                        format!("_{i}")
                    }
                )
            })
            .collect();
        Some(answer.join(" "))
    });
    sandbox.stop();
    output.assert_passed(Run::Native);
    let scanned = output
        .stdout
        .lines()
        .find(|line| line.starts_with("SCANNED "))
        .unwrap_or_default();
    assert!(
        scanned.contains(" regions, ") && !scanned.starts_with("SCANNED 0 "),
        "the host scanned nothing\n{}",
        output.report()
    );
    eprintln!("{scanned}");

    let found = copies(&output.stdout);
    for copy in &found {
        eprintln!(
            "{:<18} in {:<5} before `{}` after `{}`",
            copy.name, copy.region, copy.before, copy.after
        );
    }
    assert!(
        found.is_empty(),
        "secrets left in memory after verify_client_free:\n{found:#?}\n{}",
        output.report()
    );
}
