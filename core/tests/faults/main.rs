//! The fault suite: every way a network or a server can misbehave, each
//! against a client with a 1 s call timeout (1 s connect), and the secrets check
//! over every message the suite produced.
//!
//! Each case asserts:
//! - the outcome: the error's kind (and so its code), or success where the client recovers
//!   on its own (1014 with a `Date`, one 1001, a stale connection, a resend of a read-only
//!   call);
//! - the elapsed time: under the call timeout plus [`SLACK`]; at the deadline (not before)
//!   when the fault is a silence; under the timeout when the failure is visible at once;
//! - the requests the server saw: exactly the number the table gives, and never a
//!   state-changing action (SingleLogin) twice once it may have reached the server (only a
//!   refusal the server made before acting, 1001 or 1014, is sent again), a read-only one at
//!   most twice; with the sandbox, the count card shows one use at most per call;
//! - that the next call on the same client works, sent once, once the fault is gone (for DNS
//!   and TLS failures, which do not go away, that the same client fails the same way again,
//!   and that a client with a working mirror, or trusting the CA, succeeds).
//!
//! Most cases run against the scripted server of `fake` (Init and Handle answered as the
//! service does, the fault applied to the first `times` requests of one kind: [`table`]);
//! the others (refused, DNS, stale connections, mirrors, TLS, the sandbox's fault API and
//! limits) are functions. Each case is its own test (`case::NAME`), and runs once per
//! process: [`no_secret_in_any_message_of_the_fault_suite`] runs those not run yet, ignored
//! ones included, and scans every message of every case (`Display`, `Debug`, `message()`,
//! and the log hook's lines) for every secret of the run (the AppKey, the card, the machine
//! code, the password, the tokens and api passwords the servers issued).
//!
//! A case that shows a bug of the library is `#[ignore]`d until the fix, its comment says
//! what is wrong. `FAULTS_PRINT=1` prints every message of the run;
//! `VERIFY_FAULTS_REPORT=FILE` writes the table of cases and results (for RELIABILITY.md).

#[path = "../../../tests/common/mod.rs"]
mod common;
#[path = "../fake/mod.rs"]
mod fake;

mod calls;
mod network;
mod replies;
mod run;
mod sandbox_api;
mod stale;
mod table;
mod tls;

use calls::*;
use network::*;
use replies::*;
use run::*;
use sandbox_api::*;
use stale::*;
use table::*;
use tls::*;

use std::net::{TcpListener, TcpStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use common::secrets::{leaks, report_texts};
use common::tls::certs;
use common::unique;
use fake::{FakeServer, Request, Response, Setup, Then};
use serde_json::json;
use verify_core::{Client, Error, ErrorKind, LogLevel, Options, ProxyChoice, SessionKind, Trust};
use verify_sandbox::{Config, Fault, FaultKind, Fixtures, Limits, Sandbox, Tls};

/// The call timeout of every case.
const CALL: Duration = Duration::from_millis(1000);
/// The connect timeout of every case.
const CONNECT: Duration = Duration::from_millis(1000);
/// How much later than its timeout a call may return.
const SLACK: Duration = Duration::from_millis(500);
/// How much earlier than its timeout a call that waits for the deadline may return.
const EARLY: Duration = Duration::from_millis(50);

// The secrets of the run: each is given to the client or issued by a server, and each is
// looked for in every message.
const APP_ID: &str = "fault-suite";
const APP_KEY: &str = "FLTKEY7Q2W9E4R1T6Y3U8I5O0PZXCVBN";
const CARD: &str = "K7Q2-W9E4-R1T6-Y3U8";
const MAC: &str = "MACH-9F3K2L8Q7W1E5R";
const USERNAME: &str = "fault-user";
const PASSWORD: &str = "Pw-S3cr3t-4J8K2M6N";
/// The token the scripted server issues on a login.
const TOKEN: &str = "TKN5H7J9K1L3Z5X7C9V1B3N5M7Q9W1E3R5T7Y9U1";
/// An api password only malformed Init replies carry.
const OTHER_API_PASSWORD: &str = "APW2R4T6Y8U0I2O4P6A8S0D2F4G6H8J0";
/// An api password of characters that need escaping in a URL path.
const ODD_API_PASSWORD: &str = "Odd/Secret?Pass#word%20 \u{fc}9Z";
/// An api password that cannot travel in a header (a line break in it).
const BROKEN_API_PASSWORD: &str = "BrokenSecretPass\r\nX-Injected: 1";

/// Every secret known before the run (the sandbox's issued api passwords are added as the
/// cases learn them).
fn static_secrets() -> Vec<String> {
    [
        APP_KEY,
        CARD,
        MAC,
        PASSWORD,
        TOKEN,
        OTHER_API_PASSWORD,
        ODD_API_PASSWORD,
        "BrokenSecretPass",
        "NulSecretPass",
        fake::API_PASSWORD,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

// ---------------------------------------------------------------------------------------
// One test per case, and the secrets scan over all of them

macro_rules! fault_tests {
    ($($(#[$attr:meta])* $name:ident,)*) => {
        /// One test per case, named after it.
        mod case {
            $(
                $(#[$attr])*
                #[test]
                fn $name() {
                    super::check(stringify!($name));
                }
            )*
            /// The cases with a test of their own.
            pub const TESTED: &[&str] = &[$(stringify!($name)),*];
        }
    };
}

fault_tests! {
    refused_lazy_init,
    refused_with_a_session,
    refused_with_a_session_fails_over,
    reset_mid_reply_no_failover,
    black_hole_no_failover,
    connect_black_hole,
    dns_failure,
    dns_failure_fails_over_to_a_mirror,
    reset_mid_reply_login,
    reset_mid_reply_bulletin,
    reset_mid_reply_once_bulletin,
    reset_before_reply_login,
    closed_before_reply_user_login,
    black_hole_login,
    black_hole_bulletin,
    black_hole_init,
    slow_drip_login,
    slow_drip_heartbeat,
    slow_drip_init,
    truncated_body_login,
    truncated_body_bulletin,
    truncated_body_init,
    reset_mid_reply_init,
    content_length_shorter_login,
    content_length_shorter_init,
    content_length_longer_login,
    content_length_longer_bulletin,
    content_length_negative,
    content_length_not_a_number,
    non_json,
    html_502,
    huge_body_content_length,
    huge_body_chunked,
    huge_body_init,
    json_array,
    big_reply_head_fits,
    reply_head_too_large,
    deep_nesting,
    deep_nesting_in_data,
    code_beyond_i32,
    code_beyond_i64,
    code_beyond_f64,
    nul_escaped_in_a_refusal,
    nul_escaped_in_a_success,
    nul_raw_in_a_string,
    invalid_utf8,
    refusal_with_http_500,
    no_code_but_secrets,
    body_of_exactly_the_cap,
    body_one_byte_over_the_cap,
    two_replies_for_one_request,
    chunked_with_extensions_and_trailers,
    header_with_invalid_utf8,
    empty_body,
    no_content_204,
    not_http,
    status_not_a_number,
    content_length_twice,
    chunked_framing_broken,
    chunked_cut,
    http_1_0_until_close,
    interim_100_continue,
    huge_head,
    late_reply_is_not_the_next_answer_login,
    late_reply_is_not_the_next_answer_bulletin,
    init_odd_api_password,
    init_api_password_with_a_line_break,
    init_api_password_with_a_nul,
    init_cut_inside_the_api_password,
    redirect_301,
    redirect_302,
    redirect_307,
    redirect_scheme_relative,
    redirect_scheme_relative_names_its_host,
    redirect_302_init,
    redirect_307_init,
    clock_1014_with_date_login,
    clock_1014_with_date_init,
    clock_1014_forever_with_date,
    clock_1014_with_a_bad_date,
    clock_1014_slow,
    clock_1014_without_date_login,
    clock_1014_without_date_init,
    session_1001_forever_login,
    session_1001_forever_bulletin,
    session_1001_once,
    stale_connection_closed_while_idle_login,
    stale_connection_closed_while_idle_bulletin,
    stale_connection_closed_as_the_request_arrives_login,
    stale_connection_closed_as_the_request_arrives_bulletin,
    sandbox_drop,
    sandbox_delay,
    sandbox_truncated_json,
    sandbox_non_json,
    sandbox_http_502,
    sandbox_stale_connection_http,
    sandbox_stale_connection_https,
    sandbox_session_retired,
    sandbox_connection_limit,
    sandbox_connection_limit_refusal_is_read,
    tls_unknown_issuer,
    tls_wrong_name,
    tls_expired,
    tls_to_a_plain_http_server,
    tls_server_silent,
    tls_server_hangs_up,
    tls_server_hangs_up_fails_over_to_a_mirror,
    tls_server_silent_fails_over_to_a_mirror,
}

#[test]
fn every_case_has_its_test() {
    let names: Vec<&str> = cases().iter().map(|case| case.name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "case names are unique");
    let mut tested = case::TESTED.to_vec();
    tested.sort_unstable();
    assert_eq!(sorted, tested, "every case has a test, every test a case");
}

#[test]
fn no_secret_in_any_message_of_the_fault_suite() {
    // Runs the cases not run yet, a few at a time (a case's timing is part of its checks).
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                if index >= cases().len() {
                    return;
                }
                outcome(index);
            });
        }
    });
    let mut secrets = static_secrets();
    let mut messages = Vec::new();
    for (index, case) in cases().iter().enumerate() {
        let outcome = outcome(index);
        secrets.extend(outcome.secrets.iter().cloned());
        messages.extend(outcome.messages.iter().map(|m| (case.name, m)));
    }
    assert!(
        messages.len() >= 3 * cases().len(),
        "only {} messages from {} cases",
        messages.len(),
        cases().len()
    );
    assert!(
        secrets.len() > static_secrets().len(),
        "the sandbox's issued api password was not learned"
    );
    if let Some(path) = std::env::var_os("VERIFY_FAULTS_REPORT") {
        write_report(std::path::Path::new(&path), &secrets, messages.len());
    }
    if std::env::var_os("FAULTS_PRINT").is_some() {
        for (case, message) in &messages {
            eprintln!("{case}: {message}");
        }
    }
    let mut found = Vec::new();
    for (case, message) in &messages {
        for secret in &secrets {
            if let Some(piece) = leaks(message, secret) {
                found.push(format!("{case}: {piece:?} of a secret in {message:?}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{} secrets found in {} messages:\n{}",
        found.len(),
        messages.len(),
        found.join("\n")
    );
}

/// A Markdown summary of the run (for RELIABILITY.md): each case and its result, and the
/// figures of the secrets scan. Written when `VERIFY_FAULTS_REPORT` names a file.
fn write_report(path: &Path, secrets: &[String], messages: usize) {
    let mut text = String::from("| fault case | result |\n|---|---|\n");
    let mut passed = 0;
    for (index, case) in cases().iter().enumerate() {
        let result = match &outcome(index).failure {
            None => {
                passed += 1;
                "pass".to_owned()
            }
            Some(failure) => format!(
                "FAIL: {}",
                failure.lines().next().unwrap_or("").replace('|', "\\|")
            ),
        };
        text.push_str(&format!("| `{}` | {result} |\n", case.name));
    }
    text.push_str(&format!(
        "\n{passed} of {} fault cases pass; {messages} messages (Display, Debug, message(), \
         log lines) scanned for {} secrets of the run.\n",
        cases().len(),
        secrets.len()
    ));
    std::fs::write(path, text).expect("write the report");
}

#[test]
fn the_scan_finds_a_planted_secret() {
    assert_eq!(
        leaks(&format!("x {} y", &TOKEN[5..15]), TOKEN).as_deref(),
        Some(&TOKEN[5..13])
    );
    assert_eq!(leaks("reply of 104857600 bytes is not JSON", APP_KEY), None);
}
