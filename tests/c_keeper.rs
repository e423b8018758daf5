//! The keeper, the cancel token, the social wait and the machine code through the C ABI, as
//! a C host calls them: `tests/hosts/c_keeper.c` (C99 with POSIX threads), compiled with
//! warnings as errors against the library of this build and run against the sandbox. The
//! scenarios whose point is a time limit (a free within 100 ms, a cancel within 100 ms) run
//! natively; the others under valgrind.
//!
//! The host asks for what only the sandbox can do (a back-office message, a ban, a social
//! authorization) with `@@` lines; see the comment at the top of c_keeper.c.
//!
//! Needs `cc` and `valgrind` on PATH: `scripts/install-deps.sh gcc valgrind` installs them.

mod common;

use std::time::Duration;

use common::host::{build_host, require_tool, run_host, HostOutput, Run, Scratch, C_POSIX_FLAGS};
use common::{eventually, unique, Program, APP_KEY};
use verify_sandbox::{Fault, FaultKind};

const PATIENCE: Duration = Duration::from_secs(20);
const PASSWORD: &str = "pw-of-the-c-host";

/// Builds the host, runs `args` (`run`), answers its requests with `on_request` (given the
/// words after `@@ `), and checks that every check passed.
fn run(args: &[String], run: Run, mut on_request: impl FnMut(&str)) -> HostOutput {
    if run == Run::Valgrind {
        require_tool("valgrind", "valgrind");
    }
    let scratch = Scratch::new();
    let program = build_host("c_keeper", &scratch, C_POSIX_FLAGS);
    let output = run_host(&program, args, run, |line| {
        let request = line.strip_prefix("@@ ")?;
        on_request(request);
        Some("go".to_owned())
    });
    output.assert_passed(run);
    output
}

/// A program with an account; returns it with the host's arguments for it.
fn program_with_account(scenario: &str) -> (Program<'static>, String, Vec<String>) {
    let program = Program::fresh();
    let user = unique("ck");
    program.account(&user, PASSWORD);
    let args = vec![
        scenario.to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        user.clone(),
        PASSWORD.to_owned(),
    ];
    (program, user, args)
}

/// The back-office requests of the callback and status scenarios.
fn back_office<'a>(program: &'a Program<'_>, user: &'a str) -> impl FnMut(&str) + 'a {
    move |request| {
        if let Some(text) = request.strip_prefix("message ") {
            program
                .sandbox
                .leave_account_message(&program.app_id, user, text)
                .expect("leave a message");
        } else if let Some(reason) = request.strip_prefix("ban ") {
            program
                .sandbox
                .update_account(&program.app_id, user, "ban", Some(reason))
                .expect("ban");
        } else {
            panic!("unexpected request `{request}`");
        }
    }
}

#[test]
fn keeper_events_reach_a_c_callback() {
    // A message once (code 200, its text), then the ban ends the session (1006 with the
    // reason as remark); events never run on the starting thread; options freed at once.
    let (program, user, args) = program_with_account("callback");
    run(&args, Run::Valgrind, back_office(&program, &user));
}

#[test]
fn the_typed_status_snapshot() {
    // State, last code and message, remark, expiry, last success, counts, and messages
    // taken by exactly one snapshot; absent values are VERIFY_ERR_NO_SUCH_FIELD without
    // touching the last error; a snapshot outlives its keeper.
    let (program, user, args) = program_with_account("status");
    run(&args, Run::Valgrind, back_office(&program, &user));
}

#[test]
fn an_outage_gives_the_grace_state_then_alive_again() {
    // Heartbeats answered with HTTP 502: TROUBLE events, state GRACE in the keeper and its
    // snapshot (negative last code, a message, failures counted, the last success kept),
    // never ENDED; once the server answers again, ALIVE with more successes.
    let (program, _, args) = program_with_account("grace");
    run(&args, Run::Valgrind, |request| match request {
        "outage" => program.sandbox.set_fault(Fault {
            kind: FaultKind::Http502,
            app_id: Some(program.app_id.clone()),
            action: Some("UserHeartbeat".into()),
            count: None,
            delay_ms: 0,
        }),
        "recover" => program.sandbox.clear_faults(Some(&program.app_id)),
        other => panic!("unexpected request `{other}`"),
    });
}

#[test]
fn freeing_the_client_stops_its_keeper_mid_request_within_100_ms() {
    let (program, _, args) = program_with_account("free");
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("UserHeartbeat".into()),
        count: None,
        delay_ms: 10_000,
    });
    run(&args, Run::Native, |request| {
        assert_eq!(request, "heartbeat-in-flight");
        assert!(
            eventually(PATIENCE, || program
                .sandbox
                .request_log(Some(&program.app_id))
                .iter()
                .any(|e| e.action.as_deref() == Some("UserHeartbeat"))),
            "no heartbeat reached the sandbox"
        );
    });
}

#[test]
fn social_wait_through_the_c_abi_is_cancellable() {
    let program = Program::fresh();
    let user = unique("cksw");
    let args = vec![
        "social".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        user,
    ];
    let pending = || {
        program
            .sandbox
            .request_log(Some(&program.app_id))
            .iter()
            .filter(|e| e.code == 201)
            .count()
    };
    run(&args, Run::Native, |request| {
        if request == "polling" {
            // The wait is in its interval once the sandbox answered a poll with 201.
            assert!(
                eventually(PATIENCE, || pending() >= 1),
                "no poll answered 201"
            );
        } else if let Some(state) = request.strip_prefix("authorize-now ") {
            program
                .sandbox
                .authorize_social(state, "openid-c", "C")
                .expect("authorize the registration");
        } else if let Some(state) = request.strip_prefix("authorize ") {
            // Completed by the back office while the wait polls: two more polls first.
            let before = pending();
            assert!(
                eventually(PATIENCE, || pending() >= before + 2),
                "the wait does not poll"
            );
            program
                .sandbox
                .authorize_social(state, "openid-c", "C")
                .expect("authorize the login");
        } else {
            panic!("unexpected request `{request}`");
        }
    });
}

#[test]
fn machine_code_through_the_c_abi() {
    let output = run(
        &["machine".to_owned(), "app-1".to_owned()],
        Run::Valgrind,
        |r| panic!("unexpected request `{r}`"),
    );
    let printed = output
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("machine-code "))
        .unwrap_or_else(|| panic!("no machine code printed\n{}", output.report()));
    assert_eq!(
        printed,
        verify_core::machine_code("app-1").expect("the core's machine code"),
        "the C ABI and the core agree"
    );
}

#[test]
fn keeper_options_cancel_and_status_bad_arguments() {
    // verify_keeper_start, every options setter (bad values refused with a message, the
    // largest values accepted), every status accessor, the cancel token, the wait's numbers.
    let program = Program::fresh();
    let args = vec![
        "misuse".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
    ];
    run(&args, Run::Valgrind, |r| panic!("unexpected request `{r}`"));
}
