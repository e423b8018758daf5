//! The doctor against the sandbox: a healthy program passes every step and its first line
//! says the connection is fine; each cause (a wrong AppKey, a program not approved, the
//! clock an hour off, a self-signed, wrongly pinned, expired or misnamed certificate, a
//! black-holed primary beside a healthy mirror, a refusing proxy, a gateway's 502 page, a
//! stored verdict past its grace, stored files of another machine or AppKey, refused
//! options) is named by its own step and key, is the first line's cause in every language,
//! and the steps that follow from it are its knock-ons; the report finishes within its
//! deadline, stops within 50 ms of a cancel, and holds no secret (JSON, text, support
//! file). Run from a client, it takes the client's settings and hands each step to a
//! progress function on the calling thread.

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
use verify_core::diagnose::{Actor, StepKind, Verdict};
use verify_core::{
    codes, diagnose_client, diagnose_with, CancelToken, Client, DiagnoseOptions, Language,
    LogLevel, Options, ProxyChoice, Report, StateFolder, Trust,
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

/// The cause the first line names: its key, and the first line in each language, which
/// names `words` (one for each language, in `Language::ALL`'s order).
fn first_cause(report: &Report, words: [&str; 3]) -> &'static str {
    let cause = report
        .cause()
        .unwrap_or_else(|| panic!("no cause:\n{}", report.to_text()));
    for (language, words) in Language::ALL.into_iter().zip(words) {
        let text = report.text_in(language);
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(first, report.first_line(language));
        assert!(
            first.contains(words),
            "{}: the first line does not say {words:?}:\n{text}",
            language.tag()
        );
    }
    cause.key
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
    assert_eq!(json["version"], 2);
    assert_eq!(json["verdict"], "pass");
    assert!(json["cause"].is_null(), "{json}");
    assert_eq!(json["counts"]["causes"], 0);
    for (language, words) in [
        (
            Language::En,
            "PASS: the connection is fine; if login still fails, it is the card",
        ),
        (
            Language::ZhCn,
            "PASS：连接正常；如果仍无法登录，问题在卡密或账号。",
        ),
        (
            Language::ZhTw,
            "PASS：連線正常；如果仍無法登入，問題在卡密或帳號。",
        ),
    ] {
        let text = report.text_in(language);
        assert!(text.starts_with(words), "{text}");
    }
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
    assert!(report.text_in(Language::ZhCn).contains("原因 1 项"));
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: Refused with 1011: the AppKey is wrong",
                "FAIL：被拒绝（1011）",
                "FAIL：被拒絕（1011）"
            ]
        ),
        "init.1011"
    );
    assert_eq!(report.cause().map(|s| s.actor()), Some(Actor::Vendor));
    for (language, who) in [
        (Language::En, "contact the software's vendor"),
        (Language::ZhCn, "请联系软件作者"),
        (Language::ZhTw, "請聯絡軟體作者"),
    ] {
        assert!(
            report.first_line(language).contains(who),
            "{}",
            report.first_line(language)
        );
    }
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
fn the_clock_an_hour_off_warns_in_the_clock_step_only() {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let app_id = program_on(&sandbox, "approved");
    sandbox.shift_clock(3600);
    let report = run(&sandbox.base_url(), &app_id, &options(), &[]);
    // Init passed (the client corrected its time from the server's Date): a warning.
    assert_eq!(
        problems(&report),
        vec![(StepKind::Clock, Verdict::Warn, "clock.off")],
        "{}",
        report.to_text()
    );
    let clock = report.steps_of(StepKind::Clock).next().expect("clock");
    let offset = clock.details["offset_s"].as_i64().expect("offset");
    assert!((3590..=3610).contains(&offset), "{offset}");
    assert!(clock.message.contains("behind"), "{}", clock.message);
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert!(init.message.contains("1014"), "{}", init.message);
    assert_eq!(
        first_cause(
            &report,
            [
                "WARN: This computer's clock is 3",
                "WARN：本机时间与服务器相差 3",
                "WARN：本機時間與伺服器相差 3"
            ]
        ),
        "clock.off"
    );
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
    // What openssl would show: the names, the fingerprint, the key's pin, the pins expected.
    let leaf = &tls.details["chain"][0];
    assert_eq!(leaf["names"], json!(["127.0.0.1"]), "{leaf}");
    let fingerprint = leaf["sha256"].as_str().expect("fingerprint");
    assert_eq!(fingerprint.len(), 32 * 3 - 1, "{fingerprint}");
    assert_eq!(
        leaf["spki_pin"],
        format!("sha256/{}", certs.leaf_pin),
        "{leaf}"
    );
    assert_eq!(
        tls.details["expected_pins"],
        json!([format!("sha256/{}", certs.leaf_pin)])
    );
    assert_eq!(tls.details["issuer"], "CN=verify tests CA");
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
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert_eq!(init.knock_on, Some("tls.self_signed"));
    assert_eq!(report.causes.len(), 1, "{}", report.to_text());
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: The server's certificate is self-signed",
                "FAIL：服务器证书为自签名证书",
                "FAIL：伺服器憑證為自簽憑證"
            ]
        ),
        "tls.self_signed"
    );
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
    // The server's actual pin is named beside the one expected.
    let tls = report.steps_of(StepKind::Tls).next().expect("tls");
    assert_eq!(
        tls.details["server_pin"],
        format!("sha256/{}", good.leaf_pin)
    );
    assert!(report.first_line(Language::En).contains(&good.leaf_pin));

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
    assert_eq!(proxy.details["proxy_source"], "options");
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: The proxy refused to connect",
                "FAIL：代理服务器拒绝连接",
                "FAIL：代理伺服器拒絕連線"
            ]
        ),
        "proxy.refused"
    );

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

/// A sandbox of its own (its clock is moved) with a program and a 30-day card, and offline
/// options on a fresh state folder (the time mark beside it) for the machine `machine`.
fn with_store(machine: &str) -> (Sandbox, String, String, PathBuf, Options) {
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
        machine_identity: Some(machine.into()),
        ..options()
    };
    (sandbox, app_id, card, folder, options)
}

#[test]
fn a_stored_verdict_past_its_grace_is_named() {
    let (sandbox, app_id, card, _folder, options) = with_store("doctor-test-machine");
    // Confirmed two hours ago by the server's clock: a grace of one hour has run out.
    sandbox.shift_clock(-2 * 3600);
    Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
        .expect("client")
        .single_login(&card, "M", None)
        .expect("online login");
    sandbox.set_clock_offset(0);
    let report = run(&sandbox.base_url(), &app_id, &options, &[&card]);
    // The server answers: the next login renews it, a warning.
    assert_eq!(
        problems(&report),
        vec![(StepKind::Offline, Verdict::Warn, "offline.grace_over")],
        "{}",
        report.to_text()
    );
    let offline = report.steps_of(StepKind::Offline).next().expect("offline");
    assert_eq!(offline.details["mode"], "card");
    assert!(offline.message.contains("grace"), "{}", offline.message);
    assert_eq!(
        first_cause(
            &report,
            [
                "WARN: The stored licence's offline period is over",
                "WARN：已保存授权的离线使用时间已到",
                "WARN：已儲存授權的離線使用時間已到"
            ]
        ),
        "offline.grace_over"
    );
    assert_eq!(report.to_json()["verdict"], "warn");
}

/// A stored verdict whose time marks are not all there (the second place deleted, or
/// another store's mark in its place) is named in words: the offline time check cannot be
/// confirmed; log in online once.
#[test]
fn a_missing_or_foreign_time_mark_is_named() {
    let (sandbox, app_id, card, folder, options) = with_store("doctor-test-machine");
    let mark = folder.with_extension("mark");
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
        vec![(StepKind::Offline, Verdict::Warn, "offline.unconfirmed")],
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

    assert_eq!(report.cause().map(|s| s.key), Some("options.state_folder"));

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
    // The option is named, and why, in every language.
    let refused = report.steps_of(StepKind::Options).next().expect("options");
    assert_eq!(refused.details["option"], "offline_grace");
    assert!(report.first_line(Language::ZhCn).contains("offline_grace"));
    assert!(report
        .first_line(Language::En)
        .contains("needs a state folder"));

    // An empty AppKey and a URL pasted with /api/verify: named, with what to write.
    let report = diagnose_with(
        &format!("{}/api/verify", sandbox.base_url()),
        &app_id,
        "",
        &options(),
        &DiagnoseOptions::default(),
    );
    let keys: Vec<&str> = report.steps_of(StepKind::Options).map(|s| s.key).collect();
    assert_eq!(
        keys,
        ["options.app_key_empty", "options.url_api_path"],
        "{}",
        report.to_text()
    );
    assert!(
        report
            .first_line(Language::En)
            .contains("The AppKey is empty"),
        "{}",
        report.to_text()
    );
    let text = report.text_in(Language::ZhCn);
    assert!(
        text.contains(&format!("请改为 {}", sandbox.base_url())),
        "{text}"
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

/// A reverse proxy whose server behind it is down: every request gets nginx's 502 page,
/// with its `Server` and `Date` headers.
fn bad_gateway() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && matches!(stream.read(&mut byte), Ok(1)) {
                head.push(byte[0]);
            }
            let page = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n\
                        <center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n\
                        </body>\r\n</html>\r\n";
            let date = httpdate::fmt_http_date(std::time::SystemTime::now());
            let reply = format!(
                "HTTP/1.1 502 Bad Gateway\r\nServer: nginx/1.22.1\r\nDate: {date}\r\n\
                 Content-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://{addr}")
}

#[test]
fn a_gateways_502_page_is_named_with_its_status_server_and_title() {
    let url = bad_gateway();
    let report = run(&url, "10001", &options(), &[]);
    assert_eq!(
        problems(&report),
        vec![(StepKind::Init, Verdict::Fail, "init.gateway")],
        "{}",
        report.to_text()
    );
    let init = report.steps_of(StepKind::Init).next().expect("init");
    assert_eq!(init.details["status"], 502);
    assert_eq!(init.details["server"], "nginx/1.22.1");
    assert_eq!(init.details["title"], "502 Bad Gateway");
    assert_eq!(init.details["content_type"], "text/html");
    // The clock is judged from the page's Date.
    let clock = report.steps_of(StepKind::Clock).next().expect("clock");
    assert_eq!(clock.key, "clock.ok", "{}", report.to_text());
    assert_eq!(
        first_cause(
            &report,
            [
                "FAIL: A gateway (nginx/1.22.1) answered HTTP 502",
                "FAIL：网关（nginx/1.22.1）返回 HTTP 502",
                "FAIL：閘道（nginx/1.22.1）回傳 HTTP 502"
            ]
        ),
        "init.gateway"
    );
    assert_eq!(report.cause().map(|s| s.actor()), Some(Actor::Vendor));
}

#[test]
fn stored_files_of_another_machine_or_another_app_key_are_named() {
    let (sandbox, app_id, card, folder, options) = with_store("another-machine");
    Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options.clone())
        .expect("client")
        .single_login(&card, "M", None)
        .expect("online login");
    // This machine: the files were sealed on another.
    let here = Options {
        machine_identity: Some("doctor-test-machine".into()),
        ..options.clone()
    };
    let report = run(&sandbox.base_url(), &app_id, &here, &[&card]);
    let offline: Vec<_> = report
        .steps_of(StepKind::Offline)
        .map(|s| (s.verdict, s.key))
        .collect();
    assert!(
        offline.contains(&(Verdict::Warn, "offline.other_machine")),
        "{}",
        report.to_text()
    );
    assert_eq!(
        first_cause(
            &report,
            [
                "WARN: The stored licence files were made on another computer",
                "WARN：已保存的授权文件来自另一台电脑",
                "WARN：已儲存的授權檔案來自另一台電腦"
            ]
        ),
        "offline.other_machine"
    );
    // Another AppKey: Init is refused (the cause), and the files are named too.
    let report = diagnose_with(
        &sandbox.base_url(),
        &app_id,
        "OTHERKEY0123456789ABCDEFGHIJKLMN",
        &options,
        &DiagnoseOptions::default(),
    );
    assert_eq!(report.cause().map(|s| s.key), Some("init.1011"));
    assert!(
        report
            .steps_of(StepKind::Offline)
            .any(|s| s.key == "offline.other_key" && s.verdict == Verdict::Fail),
        "{}",
        report.to_text()
    );
    let _ = std::fs::remove_dir_all(folder.with_extension("mark"));
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn a_certificate_for_another_name_names_both_without_rust_words() {
    let other = certs(&["localhost"], (2020, 2090), false);
    let (report, found) = tls_problem(&other, roots(&other.ca_pem));
    assert_eq!(
        found,
        vec![
            (StepKind::Tls, Verdict::Fail, "tls.wrong_name"),
            (StepKind::Init, Verdict::Fail, "init.tls")
        ],
        "{}",
        report.to_text()
    );
    let text = format!("{}{}", report.to_json(), report.to_text());
    assert!(!text.contains("IpAddress("), "{text}");
    assert!(!text.contains("DnsName("), "{text}");
    let first = report.first_line(Language::En);
    assert!(
        first.contains("is for localhost, not for 127.0.0.1"),
        "{first}"
    );
}

#[test]
fn a_cancel_stops_the_doctor_within_50_ms() {
    let hole = BlackHole::at("127.0.0.1:0");
    let token = CancelToken::new();
    let settings = DiagnoseOptions {
        deadline: Duration::from_secs(20),
        cancel: Some(token.clone()),
        ..DiagnoseOptions::default()
    };
    let options = Options {
        connect_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(20),
        ..options()
    };
    let cancelled_at = Arc::new(Mutex::new(None::<Instant>));
    let canceller = {
        let token = token.clone();
        let cancelled_at = Arc::clone(&cancelled_at);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            *cancelled_at.lock().expect("lock") = Some(Instant::now());
            token.cancel();
        })
    };
    let report = diagnose_with(&hole.url(), "1", APP_KEY, &options, &settings);
    let returned = Instant::now();
    canceller.join().expect("canceller");
    let cancelled = cancelled_at.lock().expect("lock").expect("cancelled");
    let after = returned.saturating_duration_since(cancelled);
    assert!(report.cancelled, "{}", report.to_text());
    assert!(
        after <= Duration::from_millis(50),
        "the doctor returned {after:?} after the cancel"
    );
    assert!(report.causes.is_empty());
    assert!(report.first_line(Language::En).starts_with("CANCELLED"));
}

#[test]
fn run_from_a_client_it_takes_the_clients_settings_and_reports_progress() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    let folder = folder(&app_id);
    let options = Options {
        state_folder: Some(StateFolder::Path(folder.clone())),
        offline_grace: Some(Duration::from_secs(86_400)),
        machine_identity: Some("doctor-test-machine".into()),
        ..options()
    };
    let client =
        Client::with_options(&sandbox.base_url(), &app_id, APP_KEY, options).expect("client");
    let caller = std::thread::current().id();
    let mut heard = Vec::new();
    let report = diagnose_client(&client, &DiagnoseOptions::default(), &mut |step| {
        assert_eq!(
            std::thread::current().id(),
            caller,
            "progress off the calling thread"
        );
        heard.push(step.key);
    });
    assert_no_secret(&report, &[APP_KEY]);
    assert_eq!(problems(&report), vec![], "{}", report.to_text());
    // The client's state folder and grace were used: the offline step looked at the store.
    assert!(
        report
            .steps_of(StepKind::Offline)
            .any(|s| s.key == "offline.none"),
        "{}",
        report.to_text()
    );
    let mut listed: Vec<&str> = report.steps.iter().map(|s| s.key).collect();
    let mut heard_sorted = heard.clone();
    listed.sort_unstable();
    heard_sorted.sort_unstable();
    assert_eq!(heard_sorted, listed, "every step is heard once");
    assert_eq!(heard.first(), Some(&"options.ok"));
    let _ = std::fs::remove_dir_all(&folder);
}
