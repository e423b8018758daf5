//! One `verify_client` shared by POSIX threads of a C host (`tests/c/c_threads.c`):
//! every call succeeds, each thread keeps its own last error, threads read one reply at once
//! (the same borrowed strings for all), and no lock is held across
//! network I/O, shown by what the sandbox received, never by wall-clock ratios.
//!
//! Needs `cc` on PATH (`scripts/install-deps.sh gcc`).

#[path = "../common/mod.rs"]
mod common;

use common::host::{build_host, run_host, Run, Scratch, C_POSIX_FLAGS};
use common::{Program, APP_KEY};
use verify_sandbox::{Fault, FaultKind};

const THREADS: usize = 8;

fn args(scenario: &str, program: &Program<'_>) -> Vec<String> {
    vec![
        scenario.to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
    ]
}

#[test]
fn eight_threads_make_a_thousand_calls_on_one_client() {
    let program = Program::fresh();
    let scratch = Scratch::new();
    let host = build_host("c_threads", &scratch, C_POSIX_FLAGS);
    let output = run_host(&host, &args("many", &program), Run::Native, |line| {
        assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
        None
    });
    output.assert_passed(Run::Native);
    let bulletins = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|e| e.action.as_deref() == Some("GetBulletin") && e.code == 200)
        .count();
    // 1000 from the workers, 1 for the reply the threads then read together.
    assert_eq!(bulletins, 1001, "the sandbox answered every call once");
}

#[test]
fn concurrent_slow_calls_overlap() {
    // The sandbox holds each GetBulletin for 2 s before answering. When the first call
    // returns, the sandbox must already have received all eight requests: with a lock held
    // across I/O it would have received one (two at most, the next one sent right after).
    let program = Program::fresh();
    let scratch = Scratch::new();
    let host = build_host("c_threads", &scratch, C_POSIX_FLAGS);
    let received = || {
        program
            .sandbox
            .request_log(Some(&program.app_id))
            .iter()
            .filter(|e| e.action.as_deref() == Some("GetBulletin"))
            .count()
    };
    let mut at_first_return = None;
    let mut codes = Vec::new();
    let output = run_host(&host, &args("overlap", &program), Run::Native, |line| {
        if line == "@@ slow" {
            program.sandbox.set_fault(Fault {
                kind: FaultKind::Delay,
                app_id: Some(program.app_id.clone()),
                action: Some("GetBulletin".into()),
                count: None,
                delay_ms: 2000,
            });
            return Some("go".to_owned());
        }
        if let Some(rest) = line.strip_prefix("returned ") {
            at_first_return.get_or_insert_with(received);
            codes.push(
                rest.split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned(),
            );
        }
        assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
        None
    });
    output.assert_passed(Run::Native);
    assert_eq!(codes, vec!["200"; THREADS], "{}", output.report());
    assert_eq!(
        at_first_return,
        Some(THREADS),
        "GetBulletin requests the sandbox had received when the first call returned\n{}",
        output.report()
    );
    // Distinct connections: one per call in flight.
    let connections: std::collections::BTreeSet<u64> = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|e| e.action.as_deref() == Some("GetBulletin"))
        .map(|e| e.conn)
        .collect();
    assert_eq!(
        connections.len(),
        THREADS,
        "one connection per call in flight"
    );
}
