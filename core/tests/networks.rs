//! Real networks: https against the sandbox's TLS listener with trust settings and pins,
//! distinct TLS failures, plain http refused off loopback, mirror failover, and the log
//! hook that never sees a secret.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::tls::{certs, pin_of, Certs};
use common::{unique, APP_KEY};
use rcgen::KeyPair;
use serde_json::json;
use verify_core::{Client, ErrorKind, LogLevel, Options, SessionKind, Trust};
use verify_sandbox::{Config, Fault, FaultKind, Fixtures, Sandbox, Tls};

/// A sandbox serving https with `certs`, holding one program with a day card and an
/// account; returns it with the program's id.
fn https_sandbox(certs: &Certs) -> (Sandbox, String) {
    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: certs.chain_pem.clone(),
            key: certs.key_pem.clone(),
        }),
        ..Config::default()
    })
    .expect("https sandbox");
    let app_id = program_on(&sandbox);
    (sandbox, app_id)
}

fn program_on(sandbox: &Sandbox) -> String {
    let app_id = unique("net");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}],
                "cards": [
                    {"app_id": app_id, "card": "NETW-ORKS-0000-0001", "kind": "duration", "duration": 30},
                    {"app_id": app_id, "card": "COUN-TNET-0000-0001", "kind": "count", "total": 5}
                ],
                "accounts": [{"app_id": app_id, "username": "alice", "password": "pw-secret-1",
                    "expire_at": "2099-01-01 00:00:00", "status": "active"}]
            }))
            .expect("fixtures"),
        )
        .expect("load");
    app_id
}

fn with_trust(trust: Trust) -> Options {
    Options {
        trust,
        connect_timeout: Duration::from_secs(5),
        call_timeout: Duration::from_secs(10),
        ..Options::default()
    }
}

fn roots(pem: &str, mozilla: bool) -> Trust {
    let mut trust = Trust::nothing();
    trust.mozilla = mozilla;
    trust.add_roots_pem(pem.as_bytes()).expect("roots");
    trust
}

fn https_url(sandbox: &Sandbox) -> String {
    sandbox.https_base_url().expect("https listener")
}

#[test]
fn a_custom_ca_succeeds_and_mozilla_roots_alone_fail_with_unknown_issuer() {
    let certs = certs(&["127.0.0.1", "localhost"], (2020, 2090), false);
    let (sandbox, app_id) = https_sandbox(&certs);
    let url = https_url(&sandbox);

    let client = Client::with_options(
        &url,
        &app_id,
        APP_KEY,
        with_trust(roots(&certs.ca_pem, false)),
    )
    .expect("client");
    let login = client
        .single_login("NETW-ORKS-0000-0001", "MAC-TLS", None)
        .expect("login over https with the custom CA");
    assert_eq!(login.token().map(str::len), Some(40));

    let mozilla = Client::new(&url, &app_id, APP_KEY).expect("client");
    let err = mozilla.get_bulletin().expect_err("unknown issuer");
    assert_eq!(err.kind(), ErrorKind::Tls, "{err}");
    assert!(
        err.message().contains("unknown issuer"),
        "{}",
        err.message()
    );

    // The sandbox's own generated CA works the same way.
    let generated = Sandbox::start(Config {
        tls: Some(Tls::Generated),
        ..Config::default()
    })
    .expect("generated tls");
    let app = program_on(&generated);
    let ca = generated.ca_pem().expect("generated CA");
    let client = Client::with_options(
        &https_url(&generated),
        &app,
        APP_KEY,
        with_trust(roots(&ca, true)),
    )
    .expect("client");
    client
        .get_bulletin()
        .expect("https with the sandbox's CA and Mozilla's roots");
}

#[test]
fn a_correct_pin_succeeds_without_a_ca_and_a_wrong_pin_fails_with_its_own_code() {
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let (sandbox, app_id) = https_sandbox(&certs);
    let url = https_url(&sandbox);

    let mut pinned = Trust::nothing();
    pinned.add_pin(&certs.leaf_pin).expect("pin");
    let client = Client::with_options(&url, &app_id, APP_KEY, with_trust(pinned)).expect("client");
    client.get_bulletin().expect("pinned leaf, no CA");

    let other = certs_pin_of_a_fresh_key();
    let mut wrong = roots(&certs.ca_pem, false);
    wrong.add_pin(&other).expect("pin");
    let client = Client::with_options(&url, &app_id, APP_KEY, with_trust(wrong)).expect("client");
    let err = client
        .get_bulletin()
        .expect_err("valid chain, no pinned key");
    assert_eq!(err.kind(), ErrorKind::Pin, "{err}");
    assert_eq!(err.code(), verify_core::codes::ERR_PIN);
    assert!(err.message().contains("pinned"), "{}", err.message());
}

fn certs_pin_of_a_fresh_key() -> String {
    pin_of(&KeyPair::generate().expect("key"))
}

#[test]
fn a_pinned_self_signed_certificate_works() {
    let certs = certs(&["127.0.0.1"], (2020, 2090), true);
    let (sandbox, app_id) = https_sandbox(&certs);
    let mut pinned = Trust::nothing();
    pinned.add_pin(&certs.leaf_pin).expect("pin");
    let client = Client::with_options(&https_url(&sandbox), &app_id, APP_KEY, with_trust(pinned))
        .expect("client");
    client
        .get_bulletin()
        .expect("pinned self-signed certificate");
}

#[test]
fn name_mismatch_and_expired_certificates_fail_with_their_causes() {
    let wrong_name = certs(&["other.example"], (2020, 2090), false);
    let (sandbox, app_id) = https_sandbox(&wrong_name);
    let client = Client::with_options(
        &https_url(&sandbox),
        &app_id,
        APP_KEY,
        with_trust(roots(&wrong_name.ca_pem, false)),
    )
    .expect("client");
    let err = client.get_bulletin().expect_err("name mismatch");
    assert_eq!(err.kind(), ErrorKind::Tls);
    assert!(
        err.message().contains("not valid for this host name"),
        "{}",
        err.message()
    );

    let expired = certs(&["127.0.0.1"], (2001, 2002), false);
    let (sandbox, app_id) = https_sandbox(&expired);
    let client = Client::with_options(
        &https_url(&sandbox),
        &app_id,
        APP_KEY,
        with_trust(roots(&expired.ca_pem, false)),
    )
    .expect("client");
    let err = client.get_bulletin().expect_err("expired");
    assert_eq!(err.kind(), ErrorKind::Tls);
    assert!(err.message().contains("expired"), "{}", err.message());
}

#[test]
fn plain_http_off_loopback_is_refused_unless_allowed_and_nothing_to_trust_is_refused() {
    let err = Client::new("http://licensing.example.com", "1", APP_KEY).expect_err("insecure");
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert!(err.message().contains("in clear"), "{}", err.message());
    let allowed = Options {
        allow_insecure_http: true,
        ..Options::default()
    };
    Client::with_options("http://licensing.example.com", "1", APP_KEY, allowed).expect("opted in");
    Client::new("http://[::1]:1", "1", APP_KEY).expect("loopback over http");
    let nothing = Options {
        trust: Trust::nothing(),
        ..Options::default()
    };
    let err =
        Client::with_options("https://x.example", "1", APP_KEY, nothing).expect_err("no trust");
    assert!(
        err.message().contains("nothing to trust"),
        "{}",
        err.message()
    );
}

/// The messages a log hook received.
type Messages = Arc<Mutex<Vec<(LogLevel, String)>>>;

/// Every message the log hook received.
fn log_sink() -> (verify_core::LogHook, Messages) {
    let messages = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&messages);
    let hook: verify_core::LogHook = Arc::new(move |level, message: &str| {
        sink.lock().expect("log").push((level, message.to_owned()));
    });
    (hook, messages)
}

/// A port where nothing listens.
fn refused_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[test]
fn a_refused_first_url_fails_over_to_the_mirror_which_is_kept() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox);
    let (hook, messages) = log_sink();
    let options = Options {
        mirrors: vec![sandbox.base_url()],
        log: Some(hook),
        ..Options::default()
    };
    let dead = format!("http://127.0.0.1:{}", refused_port());
    let client = Client::with_options(&dead, &app_id, APP_KEY, options).expect("client");
    client.get_bulletin().expect("served by the mirror");
    let failovers = |messages: &Messages| {
        messages
            .lock()
            .expect("log")
            .iter()
            .filter(|(_, m)| m.contains("unreachable"))
            .count()
    };
    assert_eq!(
        failovers(&messages),
        1,
        "{:?}",
        messages.lock().expect("log")
    );
    client.get_bulletin().expect("again");
    client.get_bulletin().expect("again");
    assert_eq!(failovers(&messages), 1, "the mirror that answered is kept");

    // Every URL down: the error names each and why.
    let all_dead = Options {
        mirrors: vec![format!("http://127.0.0.1:{}", refused_port())],
        ..Options::default()
    };
    let client = Client::with_options(&dead, &app_id, APP_KEY, all_dead).expect("client");
    let err = client.get_bulletin().expect_err("nothing reachable");
    assert_eq!(err.kind(), ErrorKind::Network);
    assert!(err.message().contains(&dead), "{}", err.message());
    assert!(err.message().contains("refused"), "{}", err.message());
}

#[test]
fn a_bad_certificate_fails_over_to_the_mirror() {
    let expired = certs(&["127.0.0.1"], (2001, 2002), false);
    let (bad, _) = https_sandbox(&expired);
    let good_certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let (good, app_id) = https_sandbox(&good_certs);
    let mut trust = roots(&expired.ca_pem, false);
    trust
        .add_roots_pem(good_certs.ca_pem.as_bytes())
        .expect("second root");
    let options = Options {
        mirrors: vec![https_url(&good)],
        ..with_trust(trust)
    };
    let client = Client::with_options(&https_url(&bad), &app_id, APP_KEY, options).expect("client");
    client
        .get_bulletin()
        .expect("the mirror with a valid certificate");
}

/// A listener whose accept queue is full: further connects get no answer (a black hole).
fn black_hole() -> (TcpListener, Vec<TcpStream>, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut held = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        match TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            Ok(stream) => held.push(stream),
            Err(_) => return (listener, held, addr.port()),
        }
    }
    panic!("the accept queue never filled");
}

#[test]
fn a_black_holed_first_url_fails_over_within_the_connect_timeout() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox);
    let (_listener, _held, port) = black_hole();
    let options = Options {
        mirrors: vec![sandbox.base_url()],
        connect_timeout: Duration::from_millis(500),
        call_timeout: Duration::from_secs(10),
        ..Options::default()
    };
    let client = Client::with_options(
        &format!("http://127.0.0.1:{port}"),
        &app_id,
        APP_KEY,
        options,
    )
    .expect("client");
    let started = Instant::now();
    client.get_bulletin().expect("served by the mirror");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_count_card_login_whose_reply_was_lost_is_not_sent_to_the_mirror() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox);
    let card = "COUN-TNET-0000-0001";
    // Two URLs of the same service: a second one would see the same card.
    let port = sandbox.port();
    let (hook, messages) = log_sink();
    let options = Options {
        mirrors: vec![format!("http://localhost:{port}")],
        log: Some(hook),
        ..Options::default()
    };
    let client = Client::with_options(
        &format!("http://127.0.0.1:{port}"),
        &app_id,
        APP_KEY,
        options,
    )
    .expect("client");
    client.init().expect("init");
    sandbox.set_fault(Fault {
        kind: FaultKind::Drop,
        app_id: Some(app_id.clone()),
        action: Some("SingleLogin".into()),
        count: Some(1),
        delay_ms: 0,
    });
    let err = client
        .single_login(card, "MAC-DROP", None)
        .expect_err("reply lost");
    assert!(
        matches!(err.kind(), ErrorKind::Network | ErrorKind::Timeout),
        "{err}"
    );
    let record = sandbox.card(&app_id, card).expect("card");
    assert_eq!(
        record["used"],
        json!(1),
        "spent once, never resent: {record}"
    );
    assert!(
        !messages
            .lock()
            .expect("log")
            .iter()
            .any(|(_, m)| m.contains("failing over")),
        "a request that may have reached a server is not sent to another"
    );
}

#[test]
fn the_log_hook_sees_connects_init_retries_and_failover_but_no_secret() {
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let (sandbox, app_id) = https_sandbox(&certs);
    let (hook, messages) = log_sink();
    let machine = "MACHINE-CODE-SECRET-0001";
    let options = Options {
        mirrors: vec![https_url(&sandbox)],
        log: Some(hook),
        ..with_trust(roots(&certs.ca_pem, false))
    };
    let dead = format!("https://127.0.0.1:{}", refused_port());
    let client = Arc::new(Client::with_options(&dead, &app_id, APP_KEY, options).expect("client"));
    let login = client
        .single_login("NETW-ORKS-0000-0001", machine, None)
        .expect("login");
    let token = login.token().expect("token").to_owned();
    client
        .heartbeat(&token, SessionKind::Card, None)
        .expect("heartbeat");
    let session = client
        .user_login("alice", "pw-secret-1", Some(machine))
        .expect("account login");
    let user_token = session.token().expect("token").to_owned();
    // A lost reply of a repeatable call: sent again, logged.
    sandbox.set_fault(Fault {
        kind: FaultKind::Drop,
        app_id: Some(app_id.clone()),
        action: Some("GetBulletin".into()),
        count: Some(1),
        delay_ms: 0,
    });
    client.get_bulletin().expect("resent once");
    let all = messages.lock().expect("log").clone();
    let text: Vec<&str> = all.iter().map(|(_, m)| m.as_str()).collect();
    for needle in [
        "connected to",
        "Init with",
        "unreachable",
        "sending it again",
    ] {
        assert!(
            text.iter().any(|m| m.contains(needle)),
            "no `{needle}` in {text:?}"
        );
    }
    for secret in [
        APP_KEY,
        "NETW-ORKS-0000-0001",
        "pw-secret-1",
        machine,
        token.as_str(),
        user_token.as_str(),
    ] {
        assert!(
            !text.iter().any(|m| m.contains(secret)),
            "a secret reached the log: {text:?}"
        );
    }
    // An api password is 32 letters and digits; no message holds such a run.
    for message in &text {
        let longest = message
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(
            longest < 32,
            "a 32-character secret-like run in `{message}`"
        );
    }
}
