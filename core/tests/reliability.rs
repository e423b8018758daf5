//! Client behaviour of DESIGN section 4 against the sandbox: lazy Init, re-Init on 1001,
//! the clock offset on 1014, retries that never spend twice, timeouts, faults, connection
//! reuse, and Init refusals.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{Program, APP_KEY};
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
