//! The doctor against the sandbox: a healthy program passes every step; each cause (a wrong
//! AppKey, a program not approved, the clock an hour off, a self-signed, wrongly pinned or
//! expired certificate, a black-holed primary beside a healthy mirror, a refusing proxy, a
//! stored verdict past its grace) is named by its own step and key, and by no other; the
//! report finishes within its deadline and holds no secret.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::net::BlackHole;
use common::secrets::{leaks, report_texts};
use common::tls::{certs, pin_of, Certs};
use common::{unique, APP_KEY};
use serde_json::json;
use verify_core::diagnose::{StepKind, Verdict};
use verify_core::{
    codes, diagnose_with, Client, DiagnoseOptions, Language, LogLevel, Options, ProxyChoice,
    Report, StateFolder, Trust,
};
use verify_sandbox::{Config, Fixtures, Sandbox, Tls};

fn program_on(sandbox: &Sandbox, status: &str) -> String {
    let app_id = unique("doc");
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": status}],
            }))
            .expect("fixtures"),
        )
        .expect("load");
    app_id
}

fn folder(app_id: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("verify-doctor-{app_id}"));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

/// Options of a test: no proxy from the environment, short timeouts.
fn options() -> Options {
    Options {
        proxy: ProxyChoice::None,
        connect_timeout: Duration::from_secs(3),
        call_timeout: Duration::from_secs(8),
        ..Options::default()
    }
}

fn run(url: &str, app_id: &str, options: &Options, secrets: &[&str]) -> Report {
    let settings = DiagnoseOptions {
        deadline: Duration::from_secs(8),
        ..DiagnoseOptions::default()
    };
    let report = diagnose_with(url, app_id, APP_KEY, options, &settings);
    let mut all = vec![APP_KEY];
    all.extend(secrets);
    assert_no_secret(&report, &all);
    report
}

/// No 8 characters in a row of a secret in the report's JSON or its text in any language
/// (the secrets scan of the fault suite).
fn assert_no_secret(report: &Report, secrets: &[&str]) {
    for text in report_texts(report) {
        for secret in secrets {
            assert!(
                leaks(&text, secret).is_none(),
                "a piece of a secret in a report:\n{text}"
            );
        }
    }
}

/// The keys of the steps that did not pass (or skip).
fn problems(report: &Report) -> Vec<(StepKind, Verdict, &'static str)> {
    report
        .steps
        .iter()
        .filter(|s| s.verdict >= Verdict::Warn)
        .map(|s| (s.kind, s.verdict, s.key))
        .collect()
}

fn has(report: &Report, kind: StepKind, verdict: Verdict, key: &str) -> bool {
    report
        .steps_of(kind)
        .any(|s| s.verdict == verdict && s.key == key)
}

fn https_sandbox(certs: &Certs) -> Sandbox {
    Sandbox::start(Config {
        tls: Some(Tls::Pem {
            cert_chain: certs.chain_pem.clone(),
            key: certs.key_pem.clone(),
        }),
        ..Config::default()
    })
    .expect("https sandbox")
}

fn roots(pem: &str) -> Trust {
    let mut trust = Trust::nothing();
    trust.add_roots_pem(pem.as_bytes()).expect("roots");
    trust
}

#[test]
fn a_healthy_program_passes_every_step() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    let folder = folder(&app_id);
    let options = Options {
        state_folder: Some(StateFolder::Path(folder.clone())),
        offline_grace: Some(Duration::from_secs(86_400)),
        machine_identity: Some("doctor-test-machine".into()),
        ..options()
    };
    let report = run(&sandbox.base_url(), &app_id, &options, &[]);
    assert_eq!(problems(&report), vec![], "{}", report.to_text());
    for kind in [
        StepKind::Options,
        StepKind::Lookup,
        StepKind::Tcp,
        StepKind::Init,
        StepKind::Clock,
        StepKind::Offline,
        StepKind::Machine,
    ] {
        assert!(
            report.steps_of(kind).any(|s| s.verdict == Verdict::Pass),
            "no passing {kind:?} step: {}",
            report.to_text()
        );
    }
    let json = report.to_json();
    assert_eq!(json["version"], 1);
    assert_eq!(json["verdict"], "pass");
    let machine = report.steps_of(StepKind::Machine).next().expect("machine");
    assert!(machine.details["components"].is_array());
    // Nothing was written: no machine code stored, no remembered line, no verdict.
    let written = std::fs::read_dir(&folder).map_or(0, |d| d.count());
    assert_eq!(written, 0, "the doctor wrote into the state folder");
    // Init was the only request, and no login.
    let log = sandbox.request_log(Some(&app_id));
    assert!(!log.is_empty(), "Init reached the sandbox");
    let text = format!("{log:?}");
    assert!(!text.contains("Login"), "a login was sent: {text}");
}

#[test]
fn a_wrong_app_key_is_1011_and_a_program_not_approved_is_1012() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    let settings = DiagnoseOptions::default();
    let report = diagnose_with(
        &sandbox.base_url(),
        &app_id,
        "WRONGKEY0123456789ABCDEFGHIJKLMN",
        &options(),
        &settings,
    );
    assert_no_secret(&report, &["WRONGKEY0123456789ABCDEFGHIJKLMN"]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Init, Verdict::Fail, "init.1011")],
        "{}",
        report.to_text()
    );
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert!(init.message.contains("AppKey is wrong"), "{}", init.message);
    assert!(report.failed());
    // The text names the cause in the language asked for, with the AppId; the JSON stays
    // English.
    for (language, words) in [
        (
            Language::En,
            "Refused with 1011: the AppKey is wrong for the program",
        ),
        (Language::ZhCn, "被拒绝（1011）：程序"),
        (Language::ZhTw, "被拒絕（1011）：程式"),
    ] {
        let text = report.text_in(language);
        let line = text
            .lines()
            .find(|line| line.starts_with("FAIL init"))
            .unwrap_or_else(|| panic!("no failed init line:\n{text}"));
        assert!(line.contains(words), "{}: {line}", language.tag());
        assert!(line.contains(&app_id), "{}: {line}", language.tag());
        assert!(text.lines().count() < 40, "{text}");
    }
    assert!(report.text_in(Language::ZhCn).contains("AppKey 错误"));
    assert!(report.text_in(Language::ZhTw).contains("AppKey 錯誤"));
    assert!(report.text_in(Language::ZhCn).contains("（1 项失败）"));
    assert_eq!(report.to_text(), report.text_in(Language::En));
    assert!(report.to_json()["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .all(|step| step["message"].as_str().is_some_and(str::is_ascii)));

    let pending = program_on(sandbox, "pending");
    let report = run(&sandbox.base_url(), &pending, &options(), &[]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Init, Verdict::Fail, "init.1012")],
        "{}",
        report.to_text()
    );
    assert!(report.to_text().contains("not approved"));
}

#[test]
fn the_clock_an_hour_off_fails_the_clock_step_only() {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let app_id = program_on(&sandbox, "approved");
    sandbox.shift_clock(3600);
    let report = run(&sandbox.base_url(), &app_id, &options(), &[]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Clock, Verdict::Fail, "clock.off")],
        "{}",
        report.to_text()
    );
    let clock = report.steps_of(StepKind::Clock).next().expect("clock");
    let offset = clock.details["offset_s"].as_i64().expect("offset");
    assert!((3590..=3610).contains(&offset), "{offset}");
    assert!(clock.message.contains("behind"), "{}", clock.message);
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert!(init.message.contains("1014"), "{}", init.message);
}

#[test]
fn a_healthy_https_line_shows_its_protocol_chain_and_pin() {
    let certs = certs(&["127.0.0.1"], (2020, 2090), false);
    let sandbox = https_sandbox(&certs);
    let app_id = program_on(&sandbox, "approved");
    let mut trust = roots(&certs.ca_pem);
    trust.add_pin(&certs.leaf_pin).expect("pin");
    let options = Options { trust, ..options() };
    let report = run(
        &sandbox.https_base_url().expect("https"),
        &app_id,
        &options,
        &[],
    );
    assert_eq!(problems(&report), vec![], "{}", report.to_text());
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert_eq!(tls.key, "tls.ok");
    assert!(tls.message.contains("TLS 1."), "{}", tls.message);
    assert!(
        tls.message.contains("CN=verify tests server"),
        "{}",
        tls.message
    );
    assert!(
        tls.message.contains("issued by CN=verify tests CA"),
        "{}",
        tls.message
    );
    assert!(tls.message.contains("2090-01-01"), "{}", tls.message);
    assert!(tls.message.contains("own key is pinned"), "{}", tls.message);
    assert_eq!(tls.details["pin_matched"], true);
}

/// The TLS step of an https sandbox with `certs` and `trust`: its key, and the other
/// problems of the report.
fn tls_problem(certs: &Certs, trust: Trust) -> (Report, Vec<(StepKind, Verdict, &'static str)>) {
    let sandbox = https_sandbox(certs);
    let app_id = program_on(&sandbox, "approved");
    let options = Options { trust, ..options() };
    let report = run(
        &sandbox.https_base_url().expect("https"),
        &app_id,
        &options,
        &[],
    );
    let found = problems(&report);
    (report, found)
}

#[test]
fn self_signed_wrongly_pinned_and_expired_certificates_are_named() {
    let self_signed = certs(&["127.0.0.1"], (2020, 2090), true);
    let (report, found) = tls_problem(&self_signed, Trust::default());
    assert_eq!(
        found,
        vec![
            (StepKind::Tls, Verdict::Fail, "tls.self_signed"),
            (StepKind::Init, Verdict::Fail, "init.tls")
        ],
        "{}",
        report.to_text()
    );
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert!(tls.message.contains("self-signed"), "{}", tls.message);
    // The chain the server showed is reported even though it was refused.
    assert_eq!(tls.details["chain"][0]["subject"], "CN=verify tests server");

    let good = certs(&["127.0.0.1"], (2020, 2090), false);
    let mut wrong_pin = roots(&good.ca_pem);
    wrong_pin
        .add_pin(&pin_of(&rcgen::KeyPair::generate().expect("key")))
        .expect("pin");
    let (report, found) = tls_problem(&good, wrong_pin);
    assert_eq!(
        found,
        vec![
            (StepKind::Tls, Verdict::Fail, "tls.pin_mismatch"),
            (StepKind::Init, Verdict::Fail, "init.pin")
        ],
        "{}",
        report.to_text()
    );
    assert!(report.to_text().contains("matches none of the pinned keys"));

    let expired = certs(&["127.0.0.1"], (2001, 2002), false);
    let (report, found) = tls_problem(&expired, roots(&expired.ca_pem));
    assert_eq!(
        found,
        vec![
            (StepKind::Tls, Verdict::Fail, "tls.expired"),
            (StepKind::Init, Verdict::Fail, "init.tls")
        ],
        "{}",
        report.to_text()
    );
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert_eq!(tls.details["chain"][0]["not_after"], "2002-01-01T00:00:00Z");
}

#[test]
fn a_black_holed_primary_beside_a_healthy_mirror_is_a_warning_on_its_line() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    let hole = BlackHole::at("127.0.0.1:0");
    let options = Options {
        mirrors: vec![sandbox.base_url()],
        connect_timeout: Duration::from_secs(2),
        ..options()
    };
    let started = Instant::now();
    let report = run(&hole.url(), &app_id, &options, &[]);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(!report.failed(), "{}", report.to_text());
    let primary = format!("http://{}", hole.addr);
    let tcp: Vec<_> = report.steps_of(StepKind::Tcp).collect();
    assert!(
        tcp.iter()
            .any(|s| s.line.as_deref() == Some(primary.as_str())
                && s.key == "tcp.timeout"
                && s.verdict == Verdict::Warn),
        "{}",
        report.to_text()
    );
    let mirror = sandbox.base_url();
    assert!(
        tcp.iter()
            .any(|s| s.line.as_deref().is_some_and(|l| mirror.starts_with(l))
                && s.verdict == Verdict::Pass),
        "{}",
        report.to_text()
    );
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert_eq!(init.verdict, Verdict::Pass, "{}", report.to_text());
    assert!(init.message.contains(&mirror), "{}", init.message);
}

#[test]
fn the_deadline_holds_whatever_the_network_does() {
    let hole = BlackHole::at("127.0.0.1:0");
    // A server that accepts and never speaks TLS.
    let mute = TcpListener::bind("127.0.0.1:0").expect("bind");
    let mute_url = format!("https://{}", mute.local_addr().expect("addr"));
    let options = Options {
        mirrors: vec![mute_url.clone()],
        connect_timeout: Duration::from_secs(30),
        call_timeout: Duration::from_secs(30),
        ..options()
    };
    let settings = DiagnoseOptions {
        deadline: Duration::from_secs(2),
        ..DiagnoseOptions::default()
    };
    let started = Instant::now();
    let report = diagnose_with(&hole.url(), "1", APP_KEY, &options, &settings);
    let took = started.elapsed();
    assert!(took < Duration::from_millis(2600), "took {took:?}");
    assert!(report.failed());
    assert!(
        has(&report, StepKind::Tcp, Verdict::Fail, "tcp.timeout"),
        "{}",
        report.to_text()
    );
    assert!(
        has(&report, StepKind::Tls, Verdict::Fail, "tls.timeout"),
        "{}",
        report.to_text()
    );
    drop(mute);
}

/// A proxy that answers every tunnel request with 403.
fn refusing_proxy() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            // The whole request head, then the refusal; the connection stays open until the
            // client closes it (a close before the client has written would be another
            // failure than a refusal).
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                head.push(byte[0]);
            }
            let _ = stream.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n");
            let _ = stream.read_to_end(&mut head);
        }
    });
    format!("http://user:proxy-secret-pw@{addr}")
}

#[test]
fn a_refusing_or_absent_proxy_is_named_as_the_proxy() {
    // The service's name is never looked up here: the proxy would.
    let url = "https://licensing.example";
    let proxy = refusing_proxy();
    let refusing = Options {
        proxy: ProxyChoice::Url(proxy),
        ..options()
    };
    let report = run(url, "1", &refusing, &["proxy-secret-pw"]);
    assert_eq!(
        problems(&report),
        vec![
            (StepKind::Proxy, Verdict::Fail, "proxy.refused"),
            (StepKind::Init, Verdict::Fail, "init.proxy")
        ],
        "{}",
        report.to_text()
    );
    let proxy = report
        .steps_of(StepKind::Proxy)
        .next()
        .expect("a proxy step");
    assert!(proxy.message.contains("403"), "{}", proxy.message);

    let closed = {
        let gone = TcpListener::bind("127.0.0.1:0").expect("bind");
        gone.local_addr().expect("addr")
    };
    let absent = Options {
        proxy: ProxyChoice::Url(format!("http://{closed}")),
        ..options()
    };
    let report = run(url, "1", &absent, &[]);
    assert_eq!(
        problems(&report),
        vec![
            (StepKind::Proxy, Verdict::Fail, "proxy.unreachable"),
            (StepKind::Init, Verdict::Fail, "init.proxy")
        ],
        "{}",
        report.to_text()
    );
}

#[test]
fn a_stored_verdict_past_its_grace_is_named() {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let app_id = program_on(&sandbox, "approved");
    let card = format!("DOCT-{}", unique("")).replace('x', "-");
    sandbox
        .load(
            Fixtures::from_value(json!({"cards": [{"app_id": app_id, "card": card,
                "kind": "duration", "duration": 30}]}))
            .expect("card"),
        )
        .expect("load");
    let folder = folder(&app_id);
    let options = Options {
        state_folder: Some(StateFolder::Path(folder.clone())),
        clock_mark_folder: Some(folder.with_extension("mark")),
        offline_grace: Some(Duration::from_secs(3600)),
        machine_identity: Some("doctor-test-machine".into()),
        ..options()
    };
    // Confirmed two hours ago by the server's clock: a grace of one hour has run out.
    sandbox.shift_clock(-2 * 3600);
    Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
        .expect("client")
        .single_login(&card, "M", None)
        .expect("online login");
    sandbox.set_clock_offset(0);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Offline, Verdict::Fail, "offline.grace_over")],
        "{}",
        report.to_text()
    );
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert_eq!(offline.details["mode"], "card");
    assert!(offline.message.contains("grace"), "{}", offline.message);
}

/// A stored verdict whose time marks are not all there (the second place deleted, or
/// another store's mark in its place) is named in words: the offline time check cannot be
/// confirmed; log in online once.
#[test]
fn a_missing_or_foreign_time_mark_is_named() {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let app_id = program_on(&sandbox, "approved");
    let card = format!("DOCT-{}", unique("")).replace('x', "-");
    sandbox
        .load(
            Fixtures::from_value(json!({"cards": [{"app_id": app_id, "card": card,
                "kind": "duration", "duration": 30}]}))
            .expect("card"),
        )
        .expect("load");
    let folder = folder(&app_id);
    let mark = folder.with_extension("mark");
    let options = Options {
        state_folder: Some(StateFolder::Path(folder.clone())),
        clock_mark_folder: Some(mark.clone()),
        offline_grace: Some(Duration::from_secs(3600)),
        machine_identity: Some("doctor-test-machine".into()),
        ..options()
    };
    let login = |options: &Options| {
        Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
            .expect("client")
            .single_login(&card, "M", None)
            .expect("online login");
    };
    login(&options);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    assert!(problems(&report).is_empty(), "{}", report.to_text());

    let _ = std::fs::remove_dir_all(&mark);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Offline, Verdict::Fail, "offline.unconfirmed")],
        "{}",
        report.to_text()
    );
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert!(
        offline.message.contains("cannot be confirmed") && offline.message.contains("missing"),
        "{}",
        offline.message
    );
    assert_eq!(offline.details["code"], codes::ERR_TIME_UNCONFIRMED);
    assert!(
        report.to_text().contains("Log in online once"),
        "{}",
        report.to_text()
    );
    assert!(
        report.text_in(Language::ZhCn).contains("请联网登录一次"),
        "{}",
        report.text_in(Language::ZhCn)
    );

    // Another store's mark (of the same program and machine) in both places.
    let other = Options {
        state_folder: Some(StateFolder::Path(folder.with_extension("other"))),
        clock_mark_folder: Some(folder.with_extension("other-mark")),
        ..options.clone()
    };
    login(&other);
    for (from, to) in [
        (folder.with_extension("other"), &folder),
        (folder.with_extension("other-mark"), &mark),
    ] {
        std::fs::create_dir_all(to).expect("folder");
        for entry in std::fs::read_dir(&from).expect("list") {
            let path = entry.expect("entry").path();
            let name = path.file_name().expect("name").to_owned();
            if name.to_string_lossy().starts_with("clock-") {
                std::fs::copy(&path, to.join(name)).expect("copy");
            }
        }
    }
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert_eq!(offline.key, "offline.unconfirmed", "{}", report.to_text());
    assert!(
        offline.message.contains("another store"),
        "{}",
        offline.message
    );
    for extra in ["other", "other-mark", "mark"] {
        let _ = std::fs::remove_dir_all(folder.with_extension(extra));
    }
}

#[test]
fn racing_attempt_lines_say_what_the_refusal_says() {
    let good = certs(&["127.0.0.1"], (2020, 2090), false);
    let sandbox = https_sandbox(&good);
    let app_id = program_on(&sandbox, "approved");
    let mut trust = roots(&good.ca_pem);
    trust
        .add_pin(&pin_of(&rcgen::KeyPair::generate().expect("key")))
        .expect("pin");
    let lines: Arc<Mutex<Vec<String>>> = Arc::default();
    let kept = Arc::clone(&lines);
    let options = Options {
        trust,
        log: Some(Arc::new(move |_: LogLevel, line: &str| {
            kept.lock().expect("log").push(line.to_owned());
        })),
        ..options()
    };
    let client = Client::with_options(
        &sandbox.https_base_url().expect("https"),
        &app_id,
        APP_KEY,
        options,
    )
    .expect("client");
    let err = client.init().expect_err("wrong pin");
    let lines = lines.lock().expect("log").join("\n");
    let attempt = lines
        .lines()
        .find(|l| l.starts_with("attempt") && l.contains("failed"))
        .unwrap_or_else(|| panic!("no failed attempt line in:\n{lines}"));
    assert!(
        attempt.contains(err.message()),
        "{attempt} / {}",
        err.message()
    );
    assert!(!lines.contains("OtherError"), "{lines}");
    assert!(!lines.contains("PinMismatch"), "{lines}");
}

#[test]
fn the_report_holds_not_the_api_password_its_init_was_given() {
    let dir = std::env::temp_dir().join(unique("verify-doctor-state-"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let state = dir.join("state.json");
    let sandbox = Sandbox::start(Config {
        state_file: Some(state.clone()),
        ..Config::default()
    })
    .expect("sandbox");
    let app_id = program_on(&sandbox, "approved");
    // A proxy with a password (loopback does not go through it, the options step shows it).
    let options = Options {
        proxy: ProxyChoice::Url("http://doctor:proxy-pass-4711@127.0.0.1:9".into()),
        ..options()
    };
    let report = run(&sandbox.base_url(), &app_id, &options, &["proxy-pass-4711"]);
    assert_eq!(
        report.steps_of(StepKind::Init).next().map(|s| s.key),
        Some("init.ok"),
        "{}",
        report.to_text()
    );
    // The api password the sandbox issued to the doctor's Init, once it has saved it.
    let mut issued = Vec::new();
    let saved = common::eventually(Duration::from_secs(10), || {
        let saved: serde_json::Value = std::fs::read_to_string(&state)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        issued = saved["api_passwords"][&app_id]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|secret| secret.as_str().map(str::to_owned))
            .collect();
        !issued.is_empty()
    });
    assert!(saved, "the sandbox never saved the api password it issued");
    let issued: Vec<&str> = issued.iter().map(String::as_str).collect();
    assert_no_secret(&report, &issued);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_the_client_refuses_and_a_state_folder_that_cannot_be_written_are_named() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    // A folder under a regular file can never be made.
    let file = std::env::temp_dir().join(unique("verify-doctor-file-"));
    std::fs::write(&file, b"not a folder").expect("a file");
    let unwritable = Options {
        state_folder: Some(StateFolder::Path(file.join("state"))),
        machine_identity: Some("doctor-test-machine".into()),
        ..options()
    };
    let report = run(&sandbox.base_url(), &app_id, &unwritable, &[]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Options, Verdict::Fail, "options.state_folder")],
        "{}",
        report.to_text()
    );
    let _ = std::fs::remove_file(&file);

    // An offline grace without a state folder: the client refuses the options; the rest is
    // still checked (Init needs neither).
    let no_folder = Options {
        offline_grace: Some(Duration::from_secs(3600)),
        ..options()
    };
    let report = run(&sandbox.base_url(), &app_id, &no_folder, &[]);
    assert!(
        has(&report, StepKind::Options, Verdict::Fail, "options.refused"),
        "{}",
        report.to_text()
    );
    assert_eq!(
        problems(&report),
        vec![(StepKind::Options, Verdict::Fail, "options.refused")],
        "{}",
        report.to_text()
    );

    // Nothing to trust: no client can be made, so Init is not run.
    let nothing = Options {
        trust: Trust::nothing(),
        ..options()
    };
    let report = run(&sandbox.base_url(), &app_id, &nothing, &[]);
    assert!(
        has(&report, StepKind::Init, Verdict::Skip, "init.bad_options"),
        "{}",
        report.to_text()
    );
}
