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

use common::cancel::{
    assert_cancelled_waiting, assert_login_cancelled_after_it_left, cancelled_line, hold_reply,
};
use common::host::{build_host, run_host, Run, Scratch, C_POSIX_FLAGS};
use common::{Program, APP_KEY};
use serde_json::json;

fn requests(program: &Program<'_>) -> usize {
    program.sandbox.request_log(Some(&program.app_id)).len()
}

/// Runs `c_cancel inflight` and returns what it printed.
fn inflight(program: &Program<'_>, call: &[&str]) -> String {
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
    output.stdout
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
    hold_reply(&program, "GetBulletin");
    let stdout = inflight(&program, &["bulletin"]);
    assert_cancelled_waiting(&stdout, "GetBulletin");
    let (_, _, message) = cancelled_line(&stdout);
    assert!(message.contains("while its reply was awaited"), "{message}");
}

#[test]
fn a_count_card_login_cancelled_after_it_left_says_so_and_is_not_sent_again() {
    let program = Program::fresh();
    let card = program.count_card("CCAN-CELE-D000-0001", 5);
    hold_reply(&program, "SingleLogin");
    let stdout = inflight(&program, &["login", &card, "C-MACHINE"]);
    assert_login_cancelled_after_it_left(&program, &stdout);
    let stored = program.sandbox.card(&program.app_id, &card).expect("card");
    assert_eq!(stored["used"], json!(1), "one use spent");
}
