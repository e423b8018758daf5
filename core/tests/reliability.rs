//! The client behaviour of docs/architecture.md ("Client behaviour") against the sandbox:
//! lazy Init, re-Init on 1001, the clock offset on 1014, retries that never spend twice,
//! timeouts, faults, connection reuse, and Init refusals. Then one deadline per host call
//! (the call timeout bounds the lazy Init, a re-Init, connects and the resend together), no
//! secret in the message of a malformed reply, and redirects reported with their status,
//! never followed (the last two against a scripted server, `fake`, where the sandbox cannot
//! misbehave so).

#[path = "../../tests/common/mod.rs"]
mod common;
mod fake;

use std::time::{Duration, Instant};

use common::{Program, APP_KEY};
use fake::{FakeServer, Response};
use serde_json::json;
use verify_core::{Client, ErrorKind};
use verify_sandbox::{Config, Fault, FaultKind, Sandbox};

fn fault(program: &Program<'_>, kind: FaultKind, action: &str, count: Option<u32>, delay_ms: u64) {
    program.sandbox.set_fault(Fault {
        kind,
        app_id: Some(program.app_id.clone()),
        action: Some(action.to_owned()),
        count,
        delay_ms,
    });
}

fn actions_logged(program: &Program<'_>, action: &str) -> Vec<i64> {
    program
        .sandbox
        .request_log(Some(&program.app_id))
        .into_iter()
        .filter(|entry| entry.action.as_deref() == Some(action))
        .map(|entry| entry.code)
        .collect()
}

#[test]
fn init_runs_lazily_once() {
    let program = Program::fresh();
    let client = program.client();
    assert!(!client.has_session());
    client.get_bulletin().expect("first call");
    client.get_bulletin().expect("second call");
    assert!(client.has_session());
    assert_eq!(
        actions_logged(&program, "Init"),
        vec![200],
        "one Init, run lazily"
    );
}

#[test]
fn init_refusals_carry_the_servers_code() {
    let program = Program::fresh();
    let wrong_key = Client::new(
        &program.sandbox.base_url(),
        &program.app_id,
        "WRONGKEY0123456789ABCDEFGHIJKLMN",
    )
    .expect("client");
    assert_eq!(wrong_key.init().expect_err("wrong key").code(), 1011);
    let unknown = Client::new(&program.sandbox.base_url(), "no-such-app", APP_KEY).expect("client");
    assert_eq!(unknown.init().expect_err("unknown").code(), 1001);

    program
        .sandbox
        .set_program_status(&program.app_id, "pending")
        .expect("status");
    let err = program
        .client()
        .get_bulletin()
        .expect_err("lazy Init refused");
    assert_eq!(err.code(), 1012);
    assert_eq!(
        err.reply().map(|r| r.code()),
        Some(1012),
        "the Init reply is kept"
    );
}

#[test]
fn unknown_session_secret_reinitializes_once() {
    let fixtures = json!({"programs": [{"app_id": "restart", "app_key": APP_KEY, "status": "approved", "bulletin": "b"}]});
    let first = Sandbox::start(Config::default()).expect("sandbox");
    first
        .load(verify_sandbox::Fixtures::from_value(fixtures.clone()).expect("fixtures"))
        .expect("load");
    let port = first.port();
    let client = Client::new(&first.base_url(), "restart", APP_KEY).expect("client");
    client.get_bulletin().expect("before restart");
    first.stop();

    // A restarted server has forgotten every session secret: Handle answers 1001.
    let second = Sandbox::start(Config {
        port,
        ..Config::default()
    })
    .expect("sandbox restarts on the same port");
    second
        .load(verify_sandbox::Fixtures::from_value(fixtures).expect("fixtures"))
        .expect("load");
    client
        .get_bulletin()
        .expect("after restart, through a new Init");
    // This sandbox serves this test only, so its whole log is this client's.
    let log: Vec<(String, i64)> = second
        .request_log(None)
        .into_iter()
        .map(|entry| (entry.path, entry.code))
        .collect();
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(
        log[0].0.starts_with("/api/verify/") && log[0].1 == 1001,
        "{log:?}"
    );
    assert_eq!(log[1], ("/api/verify".to_owned(), 200));
    assert!(
        log[2].0.starts_with("/api/verify/") && log[2].1 == 200,
        "{log:?}"
    );
}

#[test]
fn clock_skew_is_learned_from_the_date_header() {
    let sandbox = Sandbox::start(Config::default()).expect("own sandbox: the clock is global");
    sandbox.shift_clock(3600);
    let program = Program::new(&sandbox, json!({}));
    let client = program.client();
    client.get_bulletin().expect("calls succeed an hour off");
    client
        .get_bulletin()
        .expect("later calls use the corrected clock");
    let offset = client.clock_offset();
    assert!((3590..=3610).contains(&offset), "offset {offset}");
    let codes: Vec<i64> = sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .map(|entry| entry.code)
        .collect();
    assert_eq!(
        codes,
        vec![1014, 200, 200, 200],
        "one refused Init, then no more skew"
    );
}

#[test]
fn a_count_card_login_whose_reply_is_lost_is_not_sent_again() {
    let program = Program::fresh();
    let card = program.count_card("LOST-REPL-Y000-0001", 5);
    let client = program.client();
    client.init().expect("init");
    fault(&program, FaultKind::Drop, "SingleLogin", Some(1), 0);
    let err = client
        .single_login(&card, "M", None)
        .expect_err("reply lost");
    assert!(
        matches!(err.kind(), ErrorKind::Network | ErrorKind::Protocol),
        "{err:?}"
    );
    assert_eq!(
        actions_logged(&program, "SingleLogin").len(),
        1,
        "sent once"
    );
    let stored = program.sandbox.card(&program.app_id, &card).expect("card");
    assert_eq!(stored["used"], json!(1), "one use spent, not two");
}

#[test]
fn a_repeatable_call_whose_reply_is_lost_is_sent_again_once() {
    let program = Program::fresh();
    let client = program.client();
    client.init().expect("init");
    fault(&program, FaultKind::Drop, "GetBulletin", Some(1), 0);
    client.get_bulletin().expect("the resend succeeds");
    assert_eq!(actions_logged(&program, "GetBulletin").len(), 2);
}

#[test]
fn timeouts_are_enforced() {
    let program = Program::fresh();
    let client = program.client();
    client.init().expect("init");
    client
        .set_timeouts(Duration::from_secs(1), Duration::from_millis(300))
        .expect("timeouts");
    fault(&program, FaultKind::Delay, "SingleLogin", None, 3000);
    let started = Instant::now();
    let err = client
        .single_login("SLOW-CARD-0000-0001", "M", None)
        .expect_err("too slow");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err:?}");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert!(client
        .set_timeouts(Duration::ZERO, Duration::from_secs(1))
        .is_err());
}

#[test]
fn replies_that_are_not_the_services_json_are_protocol_errors() {
    let program = Program::fresh();
    let client = program.client();
    client.init().expect("init");
    // Each message describes the body (what is wrong with it, the HTTP status when it is
    // not 200) and never quotes it.
    for (kind, described, body_text) in [
        (FaultKind::NonJson, "not JSON", "this is not json"),
        (FaultKind::Http502, "HTTP 502", "<html"),
        (FaultKind::TruncatedJson, "ends early", "{\"code\""),
    ] {
        fault(&program, kind, "GetCardInfo", Some(1), 0);
        let err = client
            .get_card_info("ANYC-ARD0-0000-0000")
            .expect_err("bad body");
        assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
        let message = err.message();
        assert!(message.contains(described), "{kind:?}: {message}");
        assert!(
            !message.to_lowercase().contains(body_text),
            "{kind:?} quotes the body: {message}"
        );
    }
    // The HTML page of a 502 is recognised as such.
    fault(&program, FaultKind::Http502, "GetCardInfo", Some(1), 0);
    let err = client
        .get_card_info("ANYC-ARD0-0000-0000")
        .expect_err("502");
    assert!(err.message().contains("HTML"), "{}", err.message());
    client
        .get_card_info("ANYC-ARD0-0000-0000")
        .expect_err("unknown card, but a proper refusal");
}

#[test]
fn sequential_calls_reuse_one_connection() {
    let program = Program::fresh();
    let client = program.client();
    for _ in 0..100 {
        client.get_bulletin().expect("call");
    }
    assert_eq!(program.connections_used(), 1);
}

#[test]
fn an_unreachable_server_is_a_network_error() {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let url = sandbox.base_url();
    sandbox.stop();
    let client = Client::new(&url, "x", APP_KEY).expect("client");
    let err = client.get_bulletin().expect_err("nobody listens");
    assert_eq!(err.kind(), ErrorKind::Network, "{err:?}");
}

#[test]
fn a_tls_failure_is_its_own_kind() {
    // The sandbox speaks plain HTTP: a TLS handshake with it fails.
    let url = common::sandbox()
        .base_url()
        .replacen("http://", "https://", 1);
    let client = Client::new(&url, "x", APP_KEY).expect("client");
    let err = client.get_bulletin().expect_err("no TLS there");
    assert_eq!(err.kind(), ErrorKind::Tls, "{err:?}");
}

#[test]
fn replies_over_one_mebibyte_are_refused() {
    use std::io::{BufRead, BufReader, Write};
    // A server that answers any request with a valid JSON envelope padded past 1 MiB.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let server = std::thread::spawn(move || {
        let (stream, _) = listener.accept().expect("accept");
        let mut reader = BufReader::new(stream.try_clone().expect("clone"));
        // Read the whole request (head and body): closing a socket with unread data sends
        // a reset that could reach the client before it reads the reply.
        let mut line = String::new();
        let mut body_length = 0usize;
        while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                body_length = value.trim().parse().expect("content-length");
            }
            line.clear();
        }
        let mut request_body = vec![0u8; body_length];
        std::io::Read::read_exact(&mut reader, &mut request_body).expect("request body");
        let body = format!(
            "{{\"code\":200,\"message\":\"{}\",\"data\":null}}",
            "x".repeat(1 << 20)
        );
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let mut stream = stream;
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(body.as_bytes());
        // Keep the connection until the client closes it.
        let _ = std::io::copy(&mut reader, &mut std::io::sink());
    });
    let client = Client::new(&url, "x", APP_KEY).expect("client");
    let err = client.init().expect_err("too large");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    assert!(err.message().contains("larger than"), "{}", err.message());
    drop(client);
    server.join().expect("server");
}

// ---------------------------------------------------------------------------------------
// One deadline per host call: the call timeout bounds the lazy Init, a re-Init, connects and
// the resend together.

/// The call timeout of the deadline tests.
const CALL_TIMEOUT: Duration = Duration::from_millis(1000);
/// How much later than its timeout a call may return.
const SLACK: Duration = Duration::from_millis(500);

/// A call that timed out did so at its timeout, not at a multiple of it.
fn assert_timed_out_at_the_deadline(err: &verify_core::Error, started: Instant, what: &str) {
    let elapsed = started.elapsed();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{what}: {err:?}");
    assert!(
        elapsed >= CALL_TIMEOUT - Duration::from_millis(50) && elapsed < CALL_TIMEOUT + SLACK,
        "{what}: returned after {elapsed:?} with a call timeout of {CALL_TIMEOUT:?}"
    );
}

fn short_timeouts(client: &Client) {
    client
        .set_timeouts(Duration::from_secs(5), CALL_TIMEOUT)
        .expect("timeouts");
}

#[test]
fn the_call_timeout_bounds_a_lazy_init_and_the_action_together() {
    let program = Program::fresh();
    let client = program.client();
    short_timeouts(&client);
    // Init answers within the timeout, the action never does: per attempt, this call took
    // 0.6 T + T + T (the resend).
    fault(&program, FaultKind::Delay, "Init", None, 600);
    fault(&program, FaultKind::Delay, "GetBulletin", None, 5000);
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("too slow");
    assert_timed_out_at_the_deadline(&err, started, "lazy Init + GetBulletin");
    assert!(client.has_session(), "the Init of the call succeeded");

    program.sandbox.clear_faults(Some(&program.app_id));
    client.get_bulletin().expect("the next call works");
}

#[test]
fn the_call_timeout_bounds_an_init_that_never_answers() {
    let program = Program::fresh();
    let client = program.client();
    short_timeouts(&client);
    // Per attempt, this call took 2 T: the Init, then its resend.
    fault(&program, FaultKind::Delay, "Init", None, 5000);
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("too slow");
    assert_timed_out_at_the_deadline(&err, started, "lazy Init");
    assert!(!client.has_session());
    let started = Instant::now();
    let err = client.init().expect_err("too slow");
    assert_timed_out_at_the_deadline(&err, started, "explicit Init");

    program.sandbox.clear_faults(Some(&program.app_id));
    client.get_bulletin().expect("the next call works");
}

#[test]
fn the_call_timeout_bounds_a_repeatable_action_and_its_resend() {
    let program = Program::fresh();
    let client = program.client();
    client.init().expect("init");
    short_timeouts(&client);
    // Per attempt, this call took 2 T: GetBulletin is repeatable and was sent again.
    fault(&program, FaultKind::Delay, "GetBulletin", None, 5000);
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("too slow");
    assert_timed_out_at_the_deadline(&err, started, "GetBulletin");
    // A state-changing action that times out is not sent again either.
    fault(&program, FaultKind::Delay, "SingleLogin", None, 5000);
    let card = program.day_card("SLOW-DEAD-LINE-0001", 30);
    let started = Instant::now();
    let err = client.single_login(&card, "M", None).expect_err("too slow");
    assert_timed_out_at_the_deadline(&err, started, "SingleLogin");
    // The sandbox logs a request when it serves it, before the delay.
    assert_eq!(
        actions_logged(&program, "SingleLogin").len(),
        1,
        "SingleLogin sent once"
    );

    program.sandbox.clear_faults(Some(&program.app_id));
    client.get_bulletin().expect("the next call works");
}

#[test]
fn the_call_timeout_bounds_a_re_init() {
    // The session secret is unknown after 0.6 T (1001), and the re-Init never answers: per
    // attempt, this call took 0.6 T + T + T.
    let inits = std::sync::atomic::AtomicUsize::new(0);
    let server = FakeServer::start(move |request| {
        if request.is_init() {
            if inits.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                Response::init_ok()
            } else {
                Response::black_hole()
            }
        } else {
            Response::envelope(1001, json!(null)).after(Duration::from_millis(600))
        }
    });
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    client.init().expect("first Init");
    short_timeouts(&client);
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("re-Init too slow");
    assert_timed_out_at_the_deadline(&err, started, "Handle 1001 + re-Init");
    let inits = server.requests().iter().filter(|r| r.is_init()).count();
    assert_eq!(
        inits, 2,
        "one Init, one re-Init, no resend past the deadline"
    );
}

#[test]
fn the_call_timeout_bounds_a_black_hole_server() {
    let server = FakeServer::start(|_| Response::black_hole());
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    short_timeouts(&client);
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("no answer");
    assert_timed_out_at_the_deadline(&err, started, "black hole");
    assert_eq!(server.requests().len(), 1, "no resend past the deadline");
}

// ---------------------------------------------------------------------------------------
// No secret in any message

/// The texts a host may print or log of an error.
fn texts_of(err: &verify_core::Error) -> [String; 3] {
    [
        err.message().to_owned(),
        err.to_string(),
        format!("{err:?}"),
    ]
}

/// Fails when `text` holds `secret` or any 8 characters in a row of it.
fn assert_no_secret(text: &str, secret: &str, what: &str) {
    let chars: Vec<char> = secret.chars().collect();
    for window in chars.windows(8.min(chars.len())) {
        let piece: String = window.iter().collect();
        assert!(
            !text.contains(&piece),
            "{what}: the message holds {piece:?} of a secret: {text}"
        );
    }
}

/// Fails when `text` has a run of 20 or more ASCII letters and digits (secrets of the
/// sandbox: api passwords of 32, tokens of 40).
fn assert_no_long_alphanumeric_run(text: &str, what: &str) {
    let longest = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(
        longest < 20,
        "{what}: a run of {longest} alphanumerics in {text}"
    );
}

/// The sandbox's saved state (`Config::state_file`) once `ready` holds of it. The state is
/// read from the file the sandbox's background writer keeps up to date: `save_state` from
/// the test races that writer (both write the same temporary file).
fn saved_state(
    path: &std::path::Path,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let mut state = serde_json::Value::Null;
    let saved = common::eventually(Duration::from_secs(10), || {
        state = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(serde_json::Value::Null);
        ready(&state)
    });
    assert!(saved, "the state file never showed it: {state}");
    state
}

#[test]
fn truncated_init_and_login_replies_leave_no_secret_in_the_message() {
    // A sandbox of its own that saves its state: the state holds the secrets it issued.
    let (sandbox, path) = common::sandbox_saving_state("verify-core-secrets-");
    let program = Program::new(&sandbox, json!({}));
    let card = program.day_card("TRUN-CATE-D000-0001", 30);
    let client = program.client();

    fault(&program, FaultKind::TruncatedJson, "Init", Some(1), 0);
    let err = client.get_bulletin().expect_err("truncated Init reply");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    let state = saved_state(&path, |state| {
        state["api_passwords"][&program.app_id]
            .as_array()
            .is_some_and(|secrets| !secrets.is_empty())
    });
    let secrets: Vec<String> = state["api_passwords"][&program.app_id]
        .as_array()
        .expect("the Init ran: its secret is saved")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect();
    assert_eq!(secrets.len(), 1, "{secrets:?}");
    for text in texts_of(&err) {
        assert_no_secret(&text, &secrets[0], "truncated Init");
        assert_no_secret(&text, APP_KEY, "truncated Init");
        assert_no_long_alphanumeric_run(&text, "truncated Init");
    }

    fault(
        &program,
        FaultKind::TruncatedJson,
        "SingleLogin",
        Some(1),
        0,
    );
    let err = client
        .single_login(&card, "MACHINE-SECRET-0001", None)
        .expect_err("truncated login reply");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    let state = saved_state(&path, |state| {
        state["sessions"].as_object().is_some_and(|sessions| {
            sessions
                .values()
                .any(|s| s["app_id"] == json!(program.app_id))
        })
    });
    let tokens: Vec<&String> = state["sessions"]
        .as_object()
        .expect("sessions")
        .iter()
        .filter(|(_, session)| session["app_id"] == json!(program.app_id))
        .map(|(token, _)| token)
        .collect();
    assert_eq!(tokens.len(), 1, "the login ran: its token is saved");
    for text in texts_of(&err) {
        assert_no_secret(&text, tokens[0], "truncated login");
        assert_no_secret(&text, &card, "truncated login");
        assert_no_secret(&text, "MACHINE-SECRET-0001", "truncated login");
        assert_no_long_alphanumeric_run(&text, "truncated login");
    }
    drop(program);
    sandbox.stop();
    let _ = std::fs::remove_dir_all(path.parent().expect("the state's folder"));
}

#[test]
fn malformed_replies_carrying_secrets_are_described_not_quoted() {
    const SECRET: &str = "S3cr3tS3cr3tS3cr3tS3cr3tS3cr3t99";
    let init_bodies: Vec<(u16, String)> = vec![
        (
            200,
            format!(r#"{{"code":200,"message":"ok","data":{{"api_password":"{SECRET}"#),
        ),
        (
            200,
            format!(r#"{{"code":200,"message":"ok","data":{{"api_password":"{SECRET}"}}"#),
        ),
        (
            200,
            format!(r#"{{"code":"200","data":{{"api_password":"{SECRET}"}}}}"#),
        ),
        (200, format!(r#"{{"data":{{"api_password":"{SECRET}"}}}}"#)),
        (
            200,
            format!(r#"{{"code":200,"message":{{"k":"{SECRET}"}}}}"#),
        ),
        (
            200,
            format!(r#"{{"code":200,"message":"ok","data":"{SECRET}"}}"#),
        ),
        (200, format!(r#"["{SECRET}"]"#)),
        (200, format!(r#""{SECRET}""#)),
        (200, format!("api_password={SECRET}")),
        (502, format!("<html><body>502 {SECRET}</body></html>")),
        (
            200,
            format!(r#"{{"code":200,"data":{{"api_password":["{SECRET}"]}}}}"#),
        ),
        (
            200,
            format!(
                r#"{{"code":200,"data":{{"api_password":"{}"}}}}"#,
                SECRET.repeat(9)
            ),
        ),
        (200, format!(r#"{{"code":{SECRET}}}"#)),
    ];
    for (status, body) in &init_bodies {
        let (status, reply) = (*status, body.clone());
        let server = FakeServer::start(move |_| Response::raw(status, reply.clone()));
        let client = Client::new(server.url(), "1", APP_KEY).expect("client");
        let err = client.get_bulletin().expect_err(body);
        assert_eq!(err.kind(), ErrorKind::Protocol, "{body}: {err:?}");
        for text in texts_of(&err) {
            assert_no_secret(&text, SECRET, body);
            assert_no_secret(&text, APP_KEY, body);
        }
        if status != 200 {
            assert!(err.message().contains("HTTP 502"), "{}", err.message());
        }
    }

    // A login reply cut in the middle of its token.
    let server = FakeServer::with_handle(|_| {
        Response::raw(
            200,
            format!(r#"{{"code":200,"message":"ok","data":{{"token":"{SECRET}"#),
        )
    });
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    let err = client
        .single_login("CARD-SECR-ET00-0001", "MAC-SECRET-01", None)
        .expect_err("truncated");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    for text in texts_of(&err) {
        assert_no_secret(&text, SECRET, "login");
        assert_no_secret(&text, fake::API_PASSWORD, "login");
        assert_no_secret(&text, "CARD-SECR-ET00-0001", "login");
    }
}

// ---------------------------------------------------------------------------------------
// Redirects are reported with their status, never followed

#[test]
fn a_redirect_is_reported_naming_its_status_and_target() {
    for status in [301u16, 302, 303, 307, 308] {
        let server = FakeServer::start(move |_| {
            Response::raw(status, "").header(
                "Location",
                "https://user:Pa55w0rdSecret@moved.example:8443/api/verify/ApiPassw0rdSecret?token=T0kenSecretValue",
            )
        });
        let client = Client::new(server.url(), "1", APP_KEY).expect("client");
        let err = client.get_bulletin().expect_err("redirect");
        assert_eq!(err.kind(), ErrorKind::Protocol, "{status}: {err:?}");
        let message = err.message();
        assert!(
            message.contains(&format!("HTTP {status}"))
                && message.contains("redirect")
                && message.contains("https://moved.example:8443")
                && message.contains("not followed"),
            "{status}: {message}"
        );
        for text in texts_of(&err) {
            for secret in ["Pa55w0rdSecret", "ApiPassw0rdSecret", "T0kenSecretValue"] {
                assert_no_secret(&text, secret, "redirect");
            }
        }
        assert_eq!(
            server.requests().len(),
            1,
            "{status}: not followed, not resent"
        );
    }

    // A redirect of a Handle request, to a path on the same server.
    let server = FakeServer::with_handle(|_| {
        Response::raw(302, "<html>moved</html>").header("Location", "/api/verify/ApiPassw0rdSecret")
    });
    let client = Client::new(server.url(), "1", APP_KEY).expect("client");
    let err = client.get_bulletin().expect_err("redirect");
    assert_eq!(err.kind(), ErrorKind::Protocol, "{err:?}");
    assert!(
        err.message().contains("HTTP 302") && err.message().contains("same server"),
        "{}",
        err.message()
    );
    assert_no_secret(err.message(), "ApiPassw0rdSecret", "relative redirect");
    assert_no_secret(err.message(), fake::API_PASSWORD, "relative redirect");
    assert_eq!(server.handled().len(), 1, "not followed, not resent");
}

/// A listener whose accept queue is full, with the connections that fill it: a connect to it
/// hangs (the kernel drops its SYN), as with a host that does not answer.
fn unanswered_listener() -> (std::net::TcpListener, Vec<std::net::TcpStream>, String) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut fillers = Vec::new();
    loop {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            Ok(stream) => fillers.push(stream),
            Err(err) if err.kind() == std::io::ErrorKind::TimedOut => break,
            Err(err) => panic!("filling the accept queue: {err}"),
        }
        assert!(fillers.len() < 10_000, "the accept queue never filled");
    }
    (listener, fillers, format!("http://{addr}"))
}

#[test]
fn the_connect_timeout_never_exceeds_the_call_deadline() {
    let (_listener, _fillers, url) = unanswered_listener();
    let client = Client::new(&url, "1", APP_KEY).expect("client");

    // A connect timeout longer than the call's: the call still ends at its deadline.
    client
        .set_timeouts(Duration::from_secs(10), CALL_TIMEOUT)
        .expect("timeouts");
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("no connection");
    assert_timed_out_at_the_deadline(&err, started, "connect within the call");

    // A short connect timeout bounds each connect: the Init surely did not reach the server,
    // so it is tried once more, and the call ends after two connect timeouts.
    let connect = Duration::from_millis(300);
    client
        .set_timeouts(connect, Duration::from_secs(10))
        .expect("timeouts");
    let started = Instant::now();
    let err = client.get_bulletin().expect_err("no connection");
    let elapsed = started.elapsed();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err:?}");
    assert!(
        elapsed >= connect - Duration::from_millis(50) && elapsed < 2 * connect + SLACK,
        "{elapsed:?} for a connect timeout of {connect:?}"
    );
}
