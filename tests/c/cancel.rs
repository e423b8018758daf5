//! A call cancelled in flight from C (`tests/c/c_cancel.c`): a `verify_cancel` token attached
//! to the calling thread around the call (`verify_cancel_attach` / `verify_cancel_detach`),
//! cancelled from another thread. The rules of attach and detach (NULL, nesting, the reverse
//! order, a token freed while attached); a cancelled token fails a call at once and sends
//! nothing; a call waiting for its reply returns `VERIFY_ERR_CANCELLED` within 50 ms of the
//! cancel; a count-card login cancelled after its request left says the server may have
//! received it and is not sent again. The lab (`tests/lab/cancel.rs`) runs the same host on a
//! black-holed line, a slow name server, a stalled TLS handshake and a server that never
//! answers.
//!
//! Needs `cc` on PATH (`scripts/install-deps.sh gcc`).

#[path = "../common/mod.rs"]
mod common;

use common::host::{build_host, run_host, HostOutput, Run, Scratch, C_POSIX_FLAGS};
use common::{Program, APP_KEY};
use serde_json::json;
use verify_sandbox::{Fault, FaultKind};

/// The bound: a cancelled call returns within this of the cancel, in ms.
const PROMPT_MS: f64 = 50.0;

fn requests(program: &Program<'_>) -> usize {
    program.sandbox.request_log(Some(&program.app_id)).len()
}

fn delay(program: &Program<'_>, action: &str) {
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some(action.to_owned()),
        count: Some(1),
        delay_ms: 30_000,
    });
}

/// Runs `c_cancel inflight` and returns its output and the "cancelled ..." line's time
/// from the cancel to the return (ms) and message.
fn inflight(program: &Program<'_>, call: &[&str]) -> (HostOutput, f64, String) {
    let scratch = Scratch::new();
    let host = build_host("c_cancel", &scratch, C_POSIX_FLAGS);
    let mut args = vec![
        "inflight".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        "300".to_owned(),
    ];
    args.extend(call.iter().map(|s| (*s).to_owned()));
    let output = run_host(&host, &args, Run::Native, |_| None);
    output.assert_passed(Run::Native);
    let line = output
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("cancelled "))
        .unwrap_or_else(|| panic!("no cancelled line\n{}", output.report()))
        .to_owned();
    let late: f64 = line
        .split_whitespace()
        .find_map(|part| part.strip_prefix("after_cancel_ms="))
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no time in {line}"));
    let message = line
        .split_once("message=")
        .map(|(_, m)| m.to_owned())
        .unwrap_or_default();
    (output, late, message)
}

#[test]
fn attach_and_detach_nest_and_a_cancelled_token_sends_nothing() {
    let program = Program::fresh();
    let scratch = Scratch::new();
    let host = build_host("c_cancel", &scratch, C_POSIX_FLAGS);
    let args = vec![
        "contract".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
    ];
    let output = run_host(&host, &args, Run::Native, |line| {
        (line == "@@ count").then(|| requests(&program).to_string())
    });
    output.assert_passed(Run::Native);
}

#[test]
fn a_call_waiting_for_its_reply_returns_cancelled_within_50_ms() {
    let program = Program::fresh();
    // Init first, so that the bulletin is the call waiting.
    program.client().init().expect("init");
    delay(&program, "GetBulletin");
    let (output, late, message) = inflight(&program, &["bulletin"]);
    assert!(
        late < PROMPT_MS,
        "{late} ms after the cancel\n{}",
        output.report()
    );
    assert!(
        message.contains("GetBulletin cancelled by the host while its reply was awaited"),
        "{message}"
    );
}

#[test]
fn a_count_card_login_cancelled_after_it_left_says_so_and_is_not_sent_again() {
    let program = Program::fresh();
    let card = program.count_card("CCAN-CELE-D000-0001", 5);
    delay(&program, "SingleLogin");
    let (output, late, message) = inflight(&program, &["login", &card, "C-MACHINE"]);
    assert!(
        late < PROMPT_MS,
        "{late} ms after the cancel\n{}",
        output.report()
    );
    assert!(
        message.contains("the server may have received it and acted on it"),
        "{message}"
    );
    let logins = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some("SingleLogin"))
        .count();
    assert_eq!(logins, 1, "sent once, never again");
    let stored = program.sandbox.card(&program.app_id, &card).expect("card");
    assert_eq!(stored["used"], json!(1), "one use spent");
}
