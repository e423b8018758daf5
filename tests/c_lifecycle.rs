//! A host's process around the library (`tests/hosts/c_lifecycle.c`): fork and exit.
//!
//! - Fork: a client with a kept-alive connection and a running keeper forks; parent and
//!   child each make 1,000 calls at once. Every reply is the one asked for, the two
//!   processes share no connection (the sandbox numbers each TCP connection it accepts), the
//!   child's keeper reads ENDED (it says the process forked), stopping and freeing it in the
//!   child returns cleanly, and the parent's keeper goes on. Nothing is printed on stderr.
//!
//! Needs `cc` on PATH (`scripts/install-deps.sh gcc`).

mod common;

use std::collections::BTreeSet;

use common::host::{build_host, run_host, Run, Scratch, C_POSIX_FLAGS};
use common::{Program, APP_KEY};
use serde_json::json;

#[test]
fn parent_and_child_each_make_a_thousand_calls_after_a_fork_on_connections_of_their_own() {
    let program = Program::new(
        common::sandbox(),
        json!({"variables": {"role": "the child's variable"}}),
    );
    let card = program.day_card(&common::unique("FORK-"), 30);
    let scratch = Scratch::new();
    let host = build_host("c_lifecycle", &scratch, C_POSIX_FLAGS);
    let args = [
        "fork".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        card,
    ];
    let output = run_host(&host, &args, Run::Native, |line| {
        assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
        None
    });
    output.assert_passed(Run::Native);
    assert!(
        output.stdout.contains("RESULT: fork child: ") && !output.stdout.contains("FAIL"),
        "{}",
        output.report()
    );
    assert_eq!(output.stderr, "", "nothing on stderr\n{}", output.report());

    let log = program.sandbox.request_log(Some(&program.app_id));
    let connections = |action: &str| -> BTreeSet<u64> {
        log.iter()
            .filter(|e| e.action.as_deref() == Some(action))
            .map(|e| e.conn)
            .collect()
    };
    let count = |action: &str| {
        log.iter()
            .filter(|e| e.action.as_deref() == Some(action) && e.code == 200)
            .count()
    };
    // 1 before the fork, 1,000 after it, 1 after the child ended: all the parent's.
    assert_eq!(
        count("GetBulletin"),
        1002,
        "the parent's calls, each answered once"
    );
    assert_eq!(
        count("GetVariable"),
        1000,
        "the child's calls, each answered once"
    );
    let child = connections("GetVariable");
    let mut parent = connections("GetBulletin");
    parent.extend(connections("UserHeartbeat"));
    let shared: Vec<_> = child.intersection(&parent).collect();
    assert!(
        shared.is_empty(),
        "connections used by both processes: {shared:?} (child {child:?}, parent {parent:?})"
    );
    // The child's first connection was made after every one the parent had when it forked.
    let before_fork = log
        .iter()
        .filter(|e| e.action.as_deref() == Some("SingleLogin"))
        .map(|e| e.conn)
        .max()
        .expect("the login before the fork");
    assert!(child.iter().all(|conn| *conn > before_fork), "{child:?}");
}
