//! What the cancellation tests share (`core/tests/cancel.rs`, `tests/c/cancel.rs`,
//! `tests/cpp/cancel.rs`, `tests/csharp/cancel.rs`, `tests/lab/cancel.rs`): the bound, a reply
//! the sandbox holds back, the requests it received, and the line the cancelling host programs
//! print (`cancelled code=C after_cancel_ms=T message=M`).

use verify_sandbox::{Fault, FaultKind};

use super::Program;

/// The bound: a cancelled call returns within this of the cancel, in ms.
pub const PROMPT_MS: f64 = 50.0;

/// The sandbox holds its reply to the next `action` of `program` back 30 s (the action runs).
pub fn hold_reply(program: &Program<'_>, action: &str) {
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some(action.to_owned()),
        count: Some(1),
        delay_ms: 30_000,
    });
}

/// How many `action` requests of `program` the sandbox received.
pub fn received(program: &Program<'_>, action: &str) -> usize {
    program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|entry| entry.action.as_deref() == Some(action))
        .count()
}

/// The code, the time from the cancel to the return (ms) and the message of the `cancelled`
/// line a host program printed; panics with `stdout` when there is none.
pub fn cancelled_line(stdout: &str) -> (i32, f64, String) {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("cancelled "))
        .unwrap_or_else(|| panic!("no cancelled line in\n{stdout}"));
    let field = |name: &str| {
        line.split_whitespace()
            .find_map(|part| part.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {line}"))
            .to_owned()
    };
    let code = field("code=").parse().expect("a code");
    let late = field("after_cancel_ms=").parse().expect("a time");
    let message = line
        .split_once("message=")
        .map(|(_, m)| m.to_owned())
        .unwrap_or_default();
    (code, late, message)
}

/// Checks a host program's `cancelled` line for a call that waited for `action`'s reply:
/// `VERIFY_ERR_CANCELLED` within [`PROMPT_MS`], the words of a call cancelled while waiting.
pub fn assert_cancelled_waiting(stdout: &str, action: &str) {
    let (code, late, message) = cancelled_line(stdout);
    assert_eq!(code, -7, "{stdout}");
    assert!(late < PROMPT_MS, "{late} ms after the cancel\n{stdout}");
    assert!(
        message.contains(&format!("{action} cancelled by the host")),
        "{message}"
    );
}

/// Checks a host program's `cancelled` line for a count-card login of `program` cancelled
/// after its request left: within [`PROMPT_MS`], the words that the server may have received
/// it, and one `SingleLogin` received, never two.
pub fn assert_login_cancelled_after_it_left(program: &Program<'_>, stdout: &str) {
    let (code, late, message) = cancelled_line(stdout);
    assert_eq!(code, -7, "{stdout}");
    assert!(late < PROMPT_MS, "{late} ms after the cancel\n{stdout}");
    assert!(
        message.contains("the server may have received it and acted on it"),
        "{message}"
    );
    assert_eq!(
        received(program, "SingleLogin"),
        1,
        "sent once, never again"
    );
}
