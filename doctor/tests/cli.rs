//! `verify-doctor` against the sandbox: the AppKey from `VERIFY_APP_KEY`, exit 0 for a
//! healthy program, 1 with the failing step named (text and JSON; the first line names the
//! cause) for a wrong AppKey, 3 for a warning (the clock an hour off), 2 for arguments it
//! refuses; an empty AppKey is named; the support file is saved; the key is never printed.

use std::process::{Command, Output};

use serde_json::{json, Value};
use verify_sandbox::{Config, Fixtures, Sandbox};

const APP_KEY: &str = "DOCTORKEY0123456789ABCDEFGHIJKLM";

fn sandbox_with_program() -> (Sandbox, String) {
    let sandbox = Sandbox::start(Config::default()).expect("sandbox");
    let app_id = "10777".to_owned();
    sandbox
        .load(
            Fixtures::from_value(json!({
                "programs": [{"app_id": app_id, "app_key": APP_KEY, "status": "approved"}],
            }))
            .expect("fixtures"),
        )
        .expect("load");
    (sandbox, app_id)
}

fn doctor(args: &[&str], key: &str) -> Output {
    doctor_in(args, key, "C.UTF-8")
}

/// `verify-doctor` with `LANG` set to `lang` (and no other locale variable).
fn doctor_in(args: &[&str], key: &str, lang: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_verify-doctor"))
        .args(args)
        .env("VERIFY_APP_KEY", key)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", lang)
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("ALL_PROXY")
        .output()
        .expect("verify-doctor runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_healthy_program_exits_0_and_a_wrong_key_exits_1_naming_init() {
    let (sandbox, app_id) = sandbox_with_program();
    let url = sandbox.base_url();
    let healthy = doctor(&[&url, &app_id, "--proxy", "none"], APP_KEY);
    let text = stdout(&healthy);
    assert_eq!(healthy.status.code(), Some(0), "{text}");
    assert!(text.contains("PASS init"), "{text}");
    assert!(!text.contains(APP_KEY), "{text}");

    let wrong_key = "WRONGKEY0123456789ABCDEFGHIJKLMN";
    let wrong = doctor(&[&url, &app_id, "--proxy", "none", "--json"], wrong_key);
    let text = stdout(&wrong);
    assert_eq!(wrong.status.code(), Some(1), "{text}");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(report["version"], 2);
    assert_eq!(report["cause"]["key"], "init.1011");
    assert_eq!(report["cause"]["who"], "vendor");
    assert_eq!(report["verdict"], "fail");
    let failed: Vec<&Value> = report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s["verdict"] == "fail")
        .collect();
    assert_eq!(failed.len(), 1, "{text}");
    assert_eq!(failed[0]["key"], "init.1011");
    assert!(!text.contains(wrong_key), "{text}");
}

#[test]
fn the_text_is_in_the_language_asked_for_or_the_environments() {
    let (sandbox, app_id) = sandbox_with_program();
    let url = sandbox.base_url();
    let wrong_key = "WRONGKEY0123456789ABCDEFGHIJKLMN";
    let init_line = |output: &Output| {
        let text = stdout(output);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(!text.contains(wrong_key), "{text}");
        text.lines()
            .find(|line| line.starts_with("FAIL init"))
            .unwrap_or_else(|| panic!("no failed init line:\n{text}"))
            .to_owned()
    };
    let args = [url.as_str(), app_id.as_str(), "--proxy", "none"];
    let asked = doctor(&[&args[..], &["--lang", "zh-CN"]].concat(), wrong_key);
    let line = init_line(&asked);
    assert!(line.contains("被拒绝（1011）"), "{line}");
    assert!(line.contains("AppKey 错误"), "{line}");
    let text = stdout(&asked);
    assert!(text.starts_with("FAIL：被拒绝（1011）"), "{text}");
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("verify 诊断")),
        "{text}"
    );

    let from_environment = doctor_in(&args, wrong_key, "zh_TW.UTF-8");
    let line = init_line(&from_environment);
    assert!(line.contains("被拒絕（1011）"), "{line}");

    let english = doctor_in(
        &[&args[..], &["--lang", "en"]].concat(),
        wrong_key,
        "zh_CN.UTF-8",
    );
    let line = init_line(&english);
    assert!(line.contains("Refused with 1011"), "{line}");

    // The JSON stays English whatever the language.
    let json = doctor(
        &[&args[..], &["--lang", "zh-CN", "--json"]].concat(),
        wrong_key,
    );
    let report: Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    let init = report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["key"] == "init.1011")
        .expect("the init step");
    assert!(
        init["message"].as_str().is_some_and(str::is_ascii),
        "{init}"
    );

    let bad = doctor(&[&args[..], &["--lang", "zh CN"]].concat(), APP_KEY);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--lang"));
}

#[test]
fn arguments_it_refuses_exit_2() {
    let bad_pin = doctor(
        &["https://127.0.0.1:1", "1", "--pin", "not-base64!"],
        APP_KEY,
    );
    assert_eq!(bad_pin.status.code(), Some(2));
    let why = String::from_utf8_lossy(&bad_pin.stderr);
    assert!(why.contains("--pin"), "{why}");
    let no_key = Command::new(env!("CARGO_BIN_EXE_verify-doctor"))
        .args(["https://127.0.0.1:1", "1"])
        .env_remove("VERIFY_APP_KEY")
        .output()
        .expect("runs");
    assert_eq!(no_key.status.code(), Some(2));
}

#[test]
fn a_warning_exits_3_an_empty_key_is_named_and_the_support_file_is_saved() {
    let (sandbox, app_id) = sandbox_with_program();
    let url = sandbox.base_url();
    sandbox.shift_clock(3600);
    let scratch = std::env::temp_dir().join(format!("verify-doctor-cli-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let file = scratch.join("support.txt");
    let file_arg = file.display().to_string();
    let warned = doctor(
        &[
            &url,
            &app_id,
            "--proxy",
            "none",
            "--support-file",
            &file_arg,
        ],
        APP_KEY,
    );
    let text = stdout(&warned);
    assert_eq!(warned.status.code(), Some(3), "{text}");
    assert!(text.starts_with("WARN: This computer's clock is"), "{text}");
    let saved = std::fs::read_to_string(&file).expect("the support file");
    assert!(
        saved.starts_with("Support file of the verify doctor"),
        "{saved}"
    );
    assert!(saved.contains("\"version\": 2"), "{saved}");
    assert!(!saved.contains(APP_KEY), "{saved}");
    sandbox.set_clock_offset(0);

    let empty = doctor(&[&url, &app_id, "--proxy", "none"], "");
    let text = stdout(&empty);
    assert_eq!(empty.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with("FAIL: The AppKey is empty"),
        "{text}{}",
        String::from_utf8_lossy(&empty.stderr)
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
