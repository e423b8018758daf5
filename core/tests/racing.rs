//! Racing connection attempts on loopback (the network lab, tests/lab*.rs, measures them
//! under latency): a black-holed primary loses to its mirror after the attempt delay, the
//! attempt delay is a setting, an IPv6 address that swallows SYNs makes way for IPv4, fixed
//! addresses, the winning line remembered across starts in the state folder (and racing
//! again when it fails), its name's addresses remembered there, and TLS refusals in words. Black holes on loopback:
//! `common::net::BlackHole`.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::net::BlackHole;
use common::tls::certs;
use common::{unique, APP_KEY};
use serde_json::json;
use verify_core::{Client, ErrorKind, Options, StateFolder, Trust};
use verify_sandbox::{Config, Fixtures, Sandbox, Tls};

fn fixtures(app_id: &str) -> Fixtures {
    Fixtures::from_value(json!({
        "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}],
        "cards": [{"app_id": app_id, "card": "RACE-CARD-0000-0001", "kind": "duration",
            "duration": 30}]
    }))
    .expect("fixtures")
}

fn program_on(sandbox: &Sandbox) -> String {
    let app_id = unique("race");
    sandbox.load(fixtures(&app_id)).expect("load");
    app_id
}

type Lines = Arc<Mutex<Vec<String>>>;

fn logged(mut options: Options) -> (Options, Lines) {
    let lines: Lines = Arc::default();
    let sink = Arc::clone(&lines);
    options.log = Some(Arc::new(move |_, line: &str| {
        sink.lock().expect("log").push(line.to_owned());
    }));
    (options, lines)
}

fn count(lines: &Lines, what: &str) -> usize {
    lines
        .lock()
        .expect("log")
        .iter()
        .filter(|line| line.contains(what))
        .count()
}

fn timed<T>(run: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = run();
    (out, start.elapsed())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verify-racing-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_black_holed_primary_loses_to_its_mirror_after_the_attempt_delay() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox);
    let hole = BlackHole::at("127.0.0.1:0");
    let (options, lines) = logged(Options {
        mirrors: vec![sandbox.base_url()],
        ..Options::default()
    });
    let client = Client::with_options(&hole.url(), &app_id, APP_KEY, options).expect("client");
    let (outcome, took) = timed(|| client.init());
    outcome.expect("Init through the mirror");
    // The mirror's attempt waits for the delay, not for the 10 s connect timeout.
    assert!(
        took >= Duration::from_millis(240) && took < Duration::from_millis(1250),
        "{took:?}: {:?}",
        lines.lock().expect("log")
    );
    assert_eq!(count(&lines, "connected to"), 1);
    assert_eq!(
        count(&lines, &format!("connected to {}", sandbox.base_url())),
        1
    );
    // The mirror is kept: the next call neither races nor connects again.
    let before = count(&lines, "attempt");
    client.get_bulletin().expect("bulletin");
    assert_eq!(count(&lines, "attempt"), before, "{:?}", lines.lock());
}

#[test]
fn the_attempt_delay_is_a_setting() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox);
    let hole = BlackHole::at("127.0.0.1:0");
    for (delay, at_least, below) in [(0, 0, 400), (1500, 1490, 2600)] {
        let options = Options {
            mirrors: vec![sandbox.base_url()],
            attempt_delay: Duration::from_millis(delay),
            ..Options::default()
        };
        let client = Client::with_options(&hole.url(), &app_id, APP_KEY, options).expect("client");
        let (outcome, took) = timed(|| client.init());
        outcome.expect("Init through the mirror");
        assert!(
            took >= Duration::from_millis(at_least) && took < Duration::from_millis(below),
            "delay {delay} ms: {took:?}"
        );
    }
    let too_long = Options {
        attempt_delay: Duration::from_secs(11),
        ..Options::default()
    };
    let refused = Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, too_long)
        .expect_err("over 10 s");
    assert_eq!(refused.kind(), ErrorKind::InvalidArgument);
}

/// A sandbox on 127.0.0.1 whose port swallows SYNs on ::1: a dual-stack name whose IPv6
/// address is black-holed.
fn dual_stack() -> (BlackHole, Sandbox, String) {
    let hole = BlackHole::at("[::1]:0");
    let sandbox = Sandbox::start(Config {
        port: hole.addr.port(),
        ..Config::default()
    })
    .expect("a sandbox on the same port over IPv4");
    let app_id = program_on(&sandbox);
    (hole, sandbox, app_id)
}

#[test]
fn a_black_holed_ipv6_address_makes_way_for_ipv4_after_the_delay() {
    let (hole, _sandbox, app_id) = dual_stack();
    let mut options = Options {
        allow_insecure_http: true,
        ..Options::default()
    };
    // A name DNS does not know, given both addresses (IPv6 first, as resolvers order them).
    options.add_address("dual.verify.test", "::1").expect("v6");
    options
        .add_address("dual.verify.test", "127.0.0.1")
        .expect("v4");
    let (options, lines) = logged(options);
    let url = format!("http://dual.verify.test:{}", hole.addr.port());
    let client = Client::with_options(&url, &app_id, APP_KEY, options).expect("client");
    let (outcome, took) = timed(|| client.init());
    outcome.expect("Init over IPv4");
    assert!(
        took >= Duration::from_millis(240) && took < Duration::from_millis(1250),
        "{took:?}: {:?}",
        lines.lock().expect("log")
    );
    let won = format!("at 127.0.0.1:{}: attempt 2 won", hole.addr.port());
    assert_eq!(count(&lines, &won), 1, "{:?}", lines.lock().expect("log"));
    assert_eq!(
        count(&lines, "looking up"),
        0,
        "fixed addresses are not looked up"
    );
}

#[test]
fn fixed_addresses_still_have_tls_check_the_name() {
    let certs = certs(&["licensing.verify.test"], (2020, 2090), false);
    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: certs.chain_pem.clone(),
            key: certs.key_pem.clone(),
        }),
        ..Config::default()
    })
    .expect("https sandbox");
    let app_id = program_on(&sandbox);
    let port = sandbox
        .https_base_url()
        .expect("https")
        .rsplit(':')
        .next()
        .expect("port")
        .to_owned();
    let options = |name: &str| {
        let mut trust = Trust::nothing();
        trust.add_roots_pem(certs.ca_pem.as_bytes()).expect("root");
        let mut options = Options {
            trust,
            ..Options::default()
        };
        options.add_address(name, "127.0.0.1").expect("fixed");
        options
    };
    let good = Client::with_options(
        &format!("https://licensing.verify.test:{port}"),
        &app_id,
        APP_KEY,
        options("licensing.verify.test"),
    )
    .expect("client");
    good.init().expect("the certificate is for this name");
    let other = Client::with_options(
        &format!("https://other.verify.test:{port}"),
        &app_id,
        APP_KEY,
        options("other.verify.test"),
    )
    .expect("client");
    let err = other
        .init()
        .expect_err("the certificate is for another name");
    assert_eq!(err.kind(), ErrorKind::Tls);
    assert!(
        err.message().contains("not valid for this host name")
            && err.message().contains("licensing.verify.test")
            && err.message().contains("other.verify.test"),
        "{}",
        err.message()
    );
}

#[test]
fn the_winning_line_is_remembered_across_starts_and_raced_again_when_it_fails() {
    let folder = scratch("line");
    let mirror = Sandbox::start(Config::default()).expect("mirror");
    let app_id = program_on(&mirror);
    let hole = BlackHole::at("127.0.0.1:0");
    let primary_url = hole.url();
    let mirror_url = mirror.base_url();
    let start = |folder: &PathBuf| {
        let (options, lines) = logged(Options {
            mirrors: vec![mirror_url.clone()],
            state_folder: Some(StateFolder::Path(folder.clone())),
            ..Options::default()
        });
        let client = Client::with_options(&primary_url, &app_id, APP_KEY, options).expect("client");
        let (outcome, took) = timed(|| client.init());
        (outcome, took, lines)
    };
    // First start: the primary costs one attempt delay.
    let (outcome, took, _) = start(&folder);
    outcome.expect("through the mirror");
    assert!(took >= Duration::from_millis(240), "{took:?}");
    let files: Vec<_> = std::fs::read_dir(&folder)
        .expect("the state folder was made")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let sealed = std::fs::read(folder.join(&files[0])).expect("read");
    assert!(
        !String::from_utf8_lossy(&sealed).contains("127.0.0.1"),
        "the line is sealed, not in clear"
    );
    // Second start: straight to the remembered mirror, no attempt at the primary.
    let (outcome, took, lines) = start(&folder);
    outcome.expect("through the remembered mirror");
    assert!(
        took < Duration::from_millis(200),
        "{took:?}: {:?}",
        lines.lock().expect("log")
    );
    assert_eq!(count(&lines, &format!("at {}", hole.addr)), 0);
    // Another folder remembers nothing: the primary costs its delay again.
    let (outcome, took, _) = start(&scratch("line-other"));
    outcome.expect("through the mirror");
    assert!(took >= Duration::from_millis(240), "{took:?}");

    // The remembered mirror goes away and the primary comes back: racing finds it.
    let primary_port = hole.addr.port();
    drop(hole);
    let primary = Sandbox::start(Config {
        port: primary_port,
        ..Config::default()
    })
    .expect("the primary back on its port");
    primary.load(fixtures(&app_id)).expect("load");
    drop(mirror);
    let (outcome, _, lines) = start(&folder);
    outcome.expect("through the primary");
    assert_eq!(
        count(
            &lines,
            &format!("connected to http://127.0.0.1:{primary_port}")
        ),
        1,
        "{:?}",
        lines.lock().expect("log")
    );
    // ...and it is the remembered line from then on.
    let (outcome, _, lines) = start(&folder);
    outcome.expect("through the primary");
    assert_eq!(
        count(
            &lines,
            &format!("attempt 1: http://127.0.0.1:{primary_port} at")
        ),
        1,
        "{:?}",
        lines.lock().expect("log")
    );
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_names_addresses_are_remembered_sealed_and_tried_before_the_lookup_answers() {
    let certs = certs(&["localhost"], (2020, 2090), false);
    let (sandbox, app_id) = https_with(&certs.chain_pem, &certs.key_pem);
    let https = sandbox.https_base_url().expect("https");
    let port = https.rsplit(':').next().expect("port").to_owned();
    let url = format!("https://localhost:{port}");
    let start = |url: &str, folder: &PathBuf, max_age: Duration| {
        let mut trust = Trust::nothing();
        trust.add_roots_pem(certs.ca_pem.as_bytes()).expect("root");
        let (options, lines) = logged(Options {
            trust,
            state_folder: Some(StateFolder::Path(folder.clone())),
            remembered_addresses_max_age: max_age,
            ..Options::default()
        });
        let client = Client::with_options(url, &app_id, APP_KEY, options).expect("client");
        client.init().expect("Init");
        lines
    };
    let day = Duration::from_secs(24 * 3600);
    let folder = scratch("addresses");
    let first = start(&url, &folder, day);
    assert_eq!(
        count(&first, "remembered address"),
        0,
        "nothing remembered yet"
    );
    let files: Vec<_> = std::fs::read_dir(&folder)
        .expect("the state folder was made")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(files.len(), 2, "the line and the addresses: {files:?}");
    for file in &files {
        let sealed = std::fs::read(folder.join(file)).expect("read");
        let text = String::from_utf8_lossy(&sealed);
        assert!(
            !text.contains("localhost") && !text.contains("127.0.0.1"),
            "sealed, not in clear"
        );
    }
    // The next start tries the remembered address while the name is looked up again; TLS
    // checks the name as ever (the certificate is for localhost).
    let second = start(&url, &folder, day);
    let log = || second.lock().expect("log").join("\n");
    assert_eq!(
        count(
            &second,
            "remembered address(es) while the name is looked up"
        ),
        1,
        "{}",
        log()
    );
    // The first attempt goes to the address that won the first start.
    let winner = first
        .lock()
        .expect("log")
        .iter()
        .find_map(|line| {
            let rest = line.strip_prefix(&format!("connected to {url} at "))?;
            Some(rest.split(": attempt").next()?.to_owned())
        })
        .expect("the first start connected");
    assert_eq!(
        count(&second, &format!("attempt 1: {url} at {winner}, started")),
        1,
        "{}",
        log()
    );
    // With remembering off, nothing is used and nothing is written.
    let off = start(&url, &folder, Duration::ZERO);
    assert_eq!(count(&off, "remembered address"), 0);
    let only_line = |folder: &PathBuf| std::fs::read_dir(folder).expect("the folder").count();
    let other = scratch("addresses-off");
    start(&url, &other, Duration::ZERO);
    assert_eq!(only_line(&other), 1, "only the line");
    // Over plain http nothing would check a remembered address: none is kept.
    let plain = scratch("addresses-http");
    let http = format!("http://localhost:{}", sandbox.port());
    start(&http, &plain, day);
    let again = start(&http, &plain, day);
    assert_eq!(only_line(&plain), 1, "only the line");
    assert_eq!(count(&again, "remembered address"), 0);
    for dir in [&folder, &other, &plain] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// An https sandbox whose certificate is `chain_pem` (key `key_pem`), with a program.
fn https_with(chain_pem: &str, key_pem: &str) -> (Sandbox, String) {
    let sandbox = Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: chain_pem.to_owned(),
            key: key_pem.to_owned(),
        }),
        ..Config::default()
    })
    .expect("https sandbox");
    let app_id = program_on(&sandbox);
    (sandbox, app_id)
}

fn init_with(sandbox: &Sandbox, app_id: &str, trust: Trust) -> Result<(), verify_core::Error> {
    let url = sandbox.https_base_url().expect("https");
    let options = Options {
        trust,
        ..Options::default()
    };
    Client::with_options(&url, app_id, APP_KEY, options)
        .expect("client")
        .init()
}

fn refused_in_words(outcome: Result<(), verify_core::Error>, words: &[&str]) {
    let err = outcome.expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::Tls);
    let message = err.message();
    assert!(
        !message.contains("Other(") && !message.contains("Error("),
        "a cause in words: {message}"
    );
    for word in words {
        assert!(message.contains(word), "{word:?} not in {message}");
    }
}

#[test]
fn a_self_signed_certificate_is_named_as_such_with_what_to_do() {
    // A self-signed server certificate: refused, named, and trusted once added as a root.
    let leaf = certs(&["127.0.0.1"], (2020, 2090), true);
    let (sandbox, app_id) = https_with(&leaf.chain_pem, &leaf.key_pem);
    refused_in_words(
        init_with(&sandbox, &app_id, Trust::default()),
        &[
            "self-signed",
            "pin its key",
            "add this certificate as a root",
        ],
    );
    let mut as_root = Trust::default();
    as_root
        .add_roots_pem(leaf.chain_pem.as_bytes())
        .expect("root");
    init_with(&sandbox, &app_id, as_root).expect("trusted as a root");

    // A self-signed CA certificate as the server's own (what `openssl req -x509` makes).
    let key = rcgen::KeyPair::generate().expect("key");
    let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned()]).expect("params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = params.self_signed(&key).expect("self-signed CA");
    let (sandbox, app_id) = https_with(&ca.pem(), &key.serialize_pem());
    refused_in_words(
        init_with(&sandbox, &app_id, Trust::default()),
        &["self-signed", "CA certificate", "pin its key"],
    );
    let mut pinned = Trust::default();
    pinned.add_pin(&common::tls::pin_of(&key)).expect("pin");
    init_with(&sandbox, &app_id, pinned).expect("a pinned self-signed CA certificate");
}
