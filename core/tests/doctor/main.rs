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

#[path = "../../../tests/common/mod.rs"]
mod common;

mod network;
mod store;
mod tls;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
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

/// [`options`] with offline verdicts kept in `folder` (a day's grace) on the test's machine.
fn offline_options(folder: &Path) -> Options {
    Options {
        state_folder: Some(StateFolder::Path(folder.to_path_buf())),
        offline_grace: Some(Duration::from_secs(86_400)),
        machine_identity: Some("doctor-test-machine".into()),
        ..options()
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
    let options = offline_options(&folder);
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
            "PASS：連線正常；如果仍無法登入，問題在序號或帳號。",
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
fn the_report_holds_not_the_api_password_its_init_was_given() {
    let (sandbox, state) = common::sandbox_saving_state("verify-doctor-state-");
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
    let _ = std::fs::remove_dir_all(state.parent().expect("the state's folder"));
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

#[test]
fn run_from_a_client_it_takes_the_clients_settings_and_reports_progress() {
    let sandbox = common::sandbox();
    let app_id = program_on(sandbox, "approved");
    let folder = folder(&app_id);
    let options = offline_options(&folder);
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
