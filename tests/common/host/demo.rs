//! The demo: its fixtures under a fresh program id, its sandbox, and the check of a demo
//! run's output step by step.

use super::*;

/// `sandbox/fixtures/demo.json` with every `app_id` replaced by `app_id`; returns it with the
/// program's `app_key`.
pub fn demo_fixtures(app_id: &str) -> (serde_json::Value, String) {
    let path = root().join("sandbox/fixtures/demo.json");
    let raw =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut doc: serde_json::Value = serde_json::from_str(&raw).expect("demo.json is JSON");
    let programs = doc["programs"].as_array().expect("demo.json has programs");
    assert_eq!(programs.len(), 1, "demo.json holds the demo's one program");
    let app_key = programs[0]["app_key"]
        .as_str()
        .expect("program app_key")
        .to_owned();
    for list in ["programs", "cards", "accounts"] {
        if let Some(items) = doc[list].as_array_mut() {
            for item in items {
                item["app_id"] = serde_json::Value::from(app_id);
            }
        }
    }
    (doc, app_key)
}

/// A sandbox of its own loaded with `sandbox/fixtures/demo.json` under a fresh program id
/// (demo runs consume its cards); returns it with the program's id and key.
pub fn demo_sandbox() -> (Sandbox, String, String) {
    demo_sandbox_with(Config::default())
}

/// [`demo_sandbox`] started with `config` (e.g. serving https too).
pub fn demo_sandbox_with(config: Config) -> (Sandbox, String, String) {
    let app_id = super::super::unique("demo");
    let (fixtures, app_key) = demo_fixtures(&app_id);
    let sandbox = Sandbox::start(config).expect("start the sandbox");
    sandbox
        .load(Fixtures::from_value(fixtures).expect("demo.json parses as fixtures"))
        .expect("load demo.json");
    (sandbox, app_id, app_key)
}

/// Runs a command to completion, panicking with its output when it fails.
pub fn run_ok(command: &mut Command, what: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    stdout
}

/// The value part of the first output line whose label (after trimming) is `label`.
pub fn line_of<'a>(stdout: &'a str, label: &str) -> Option<&'a str> {
    stdout
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with(label))
}

/// The steps of `examples-c/demo.c`, as its output names them (each must get 200).
pub const DEMO_STEPS: &[&str] = &[
    "verify_client_new",
    "verify_init",
    "verify_single_login",
    "verify_heartbeat(VERIFY_SESSION_CARD)",
    "verify_user_register",
    "verify_user_login(machine A)",
    "verify_heartbeat(VERIFY_SESSION_USER)",
    "verify_user_recharge",
    "verify_change_bind",
    "verify_user_login(machine B)",
    "verify_get_bulletin",
    "verify_get_latest_version",
    "verify_get_variables",
];

/// Checks the output of a demo run against the demo fixtures (demo.c and Demo.cs print the
/// same format): every step in `steps` got 200 and the demo passed, the recharge added the
/// 7-day card, one rebind, the last login on machine B, no AppKey, tokens shortened.
pub fn assert_demo_output(stdout: &str, steps: &[&str], app_key: &str, report: &str) {
    for step in steps {
        let expected = format!("[{step}] code 200 (");
        assert!(
            stdout.contains(&expected),
            "no `{expected}` in the demo's output\n{report}"
        );
    }
    let passed = format!("PASSED: all {} steps got their expected code", steps.len());
    assert!(
        stdout.contains(&passed),
        "the demo did not pass every step\n{report}"
    );
    let added = line_of(stdout, "added_days").unwrap_or_default();
    assert!(
        added.contains("\"7天\""),
        "recharge with the 7-day card: `{added}`\n{report}"
    );
    let bind_count = line_of(stdout, "bind_count").unwrap_or_default();
    assert!(
        bind_count.ends_with(" 1"),
        "one rebind: `{bind_count}`\n{report}"
    );
    let device = stdout
        .lines()
        .map(str::trim)
        .rfind(|l| l.starts_with("device_id"));
    assert_eq!(
        device.map(|l| l.ends_with("\"DEMO-MACHINE-B-0002\"")),
        Some(true),
        "the last login is on machine B\n{report}"
    );
    assert!(
        !stdout.contains(app_key),
        "the demo printed the AppKey\n{report}"
    );
    let token = line_of(stdout, "token").unwrap_or_default();
    assert!(
        token.ends_with("\u{2026}(40 chars)"),
        "token shown shortened: `{token}`\n{report}"
    );
}
