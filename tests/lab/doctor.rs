//! The doctor (`verify-doctor`, docs/doctor.md) on the lab's networks: each cause is named by
//! its step, in words, and none is reported as another; the report's first line names it in
//! English, Simplified and Traditional Chinese (`doctor_causes.rs` adds the second round's
//! causes: a hosts file pointing elsewhere, a TLS-intercepting proxy, a gateway's 502, stored
//! files of another machine). A black-holed primary beside a
//! healthy mirror is the primary's connect timing out while the mirror's line is good; a
//! slow name server is a slow lookup; a name that does not resolve is a lookup not found; a
//! wrong AppKey is Init's 1011 and a program not approved its 1012; a pin of another key is
//! the TLS step's pin mismatch and the lab's private CA not given an unknown issuer; a proxy
//! nothing listens on is the proxy unreachable. Each failing cause fails the run (exit 1)
//! with no other step warning or failing, and past the proxy the lookup and TCP connect
//! pass. The clock an hour off is tested on loopback only (`core/tests/doctor.rs`): the
//! lab's sandbox, and its clock, are shared by the lab's tests running at the same time.
//! The doctor runs inside the slot's namespace, so it resolves through the lab's name server
//! like any program there.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::host::{cargo_build, profile_dir};
use crate::common::tls::pin_of;
use crate::common::{unique, APP_KEY};
use crate::figures::Case;
use crate::lab::{busy, lab, quiet, Slot};

/// `verify-doctor` of this build, built on first use.
pub(crate) fn doctor_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            cargo_build(&["-p", "verify-doctor", "--bin", "verify-doctor"]);
            let binary = profile_dir().join("verify-doctor");
            assert!(binary.is_file(), "{} not built", binary.display());
            binary
        })
        .clone()
}

/// Runs the doctor in `slot` on `url` (and `mirror`) with the lab's CA, for a new program of
/// the lab's sandbox; its JSON report, exit code and how long it took, and the program.
pub(crate) fn doctor(
    slot: &Slot,
    url: &str,
    mirror: Option<&str>,
) -> (Value, Option<i32>, Duration, String) {
    let program = lab().sandbox().program();
    let args = args_of(mirror);
    let (report, code, took) = doctor_as(slot, url, &program.app_id, APP_KEY, &args);
    (report, code, took, program.app_id)
}

/// The lab's CA, no proxy, and `mirror`.
pub(crate) fn args_of(mirror: Option<&str>) -> Vec<String> {
    let mut args = lab_ca();
    args.extend(["--proxy".to_owned(), "none".to_owned()]);
    if let Some(mirror) = mirror {
        args.extend(["--mirror".to_owned(), mirror.to_owned()]);
    }
    args
}

/// `--ca` with the lab's CA.
pub(crate) fn lab_ca() -> Vec<String> {
    let ca = lab().sandbox().ca_file.display().to_string();
    vec!["--ca".to_owned(), ca]
}

/// Runs the doctor in `slot` on `url` for `app_id` with `app_key` (through
/// `VERIFY_APP_KEY`) and `args` (its trust, proxy and mirrors); its JSON report, exit code
/// and how long it took. The report's first line in Simplified Chinese, read from the
/// support file it saves (`--lang zh-CN --support-file`), is kept in the JSON as
/// `first_line_zh_cn` for [`first_lines`]. The AppKey is never in the report nor the file.
pub(crate) fn doctor_as(
    slot: &Slot,
    url: &str,
    app_id: &str,
    app_key: &str,
    args: &[String],
) -> (Value, Option<i32>, Duration) {
    let support = std::env::temp_dir().join(unique("verify-lab-support-"));
    let mut command = slot.command(&doctor_binary());
    command
        .args([url, app_id, "--json", "--lang", "zh-CN", "--support-file"])
        .arg(&support)
        .args(args)
        .args(["--deadline", "10", "--connect-timeout", "3000"])
        .env("VERIFY_APP_KEY", app_key);
    let started = Instant::now();
    let output = command.output().expect("verify-doctor runs in the slot");
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&output.stdout);
    let mut report: Value = serde_json::from_str(&text).unwrap_or_else(|err| {
        panic!(
            "no JSON report ({err}):\n{text}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(!text.contains(app_key), "the AppKey in the report:\n{text}");
    let file = std::fs::read_to_string(&support).unwrap_or_default();
    let _ = std::fs::remove_file(&support);
    assert!(
        !file.contains(app_key),
        "the AppKey in the support file:\n{file}"
    );
    // The file: its header line, a blank line, then the text in zh-CN.
    report["first_line_zh_cn"] = json!(file.lines().nth(2).unwrap_or_default());
    (report, output.status.code(), took)
}

/// The first line of the report in `en`, `zh-CN` and `zh-TW`: English from `report`'s JSON,
/// Simplified Chinese from its support file ([`doctor_as`]), Traditional Chinese from one
/// more run in zh-TW (its text's first line).
pub(crate) fn first_lines(
    slot: &Slot,
    report: &Value,
    url: &str,
    app_id: &str,
    app_key: &str,
    args: &[String],
) -> [String; 3] {
    let output = slot
        .command(&doctor_binary())
        .args([url, app_id, "--lang", "zh-TW"])
        .args(args)
        .args(["--deadline", "10", "--connect-timeout", "3000"])
        .env("VERIFY_APP_KEY", app_key)
        .output()
        .expect("verify-doctor runs in the slot");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains(app_key), "the AppKey in the report:\n{text}");
    [
        report["first_line"].as_str().unwrap_or_default().to_owned(),
        report["first_line_zh_cn"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        text.lines().next().unwrap_or_default().to_owned(),
    ]
}

/// Asserts that the report's cause is `key` and that its first line in each language (as
/// [`first_lines`] reads them) starts with `words` (en, zh-CN, zh-TW).
pub(crate) fn assert_first_lines(
    slot: &Slot,
    report: &Value,
    run: (&str, &str, &str, &[String]),
    key: &str,
    words: [&str; 3],
) {
    let (url, app_id, app_key, args) = run;
    let pretty = serde_json::to_string_pretty(report).unwrap_or_default();
    assert_eq!(report["cause"]["key"], key, "{pretty}");
    let lines = first_lines(slot, report, url, app_id, app_key, args);
    for (line, words) in lines.iter().zip(words) {
        assert!(
            line.starts_with(words),
            "the first line does not start with {words:?}: {line}\n{pretty}"
        );
    }
    eprintln!("doctor first lines of {key}:\n  {}", lines.join("\n  "));
}

/// The steps of `kind` on `line` (`None`: any line).
pub(crate) fn steps<'a>(report: &'a Value, kind: &str, line: Option<&str>) -> Vec<&'a Value> {
    report["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter(|s| s["step"] == kind && line.is_none_or(|l| s["line"] == l))
                .collect()
        })
        .unwrap_or_default()
}

/// `verdict:key` of every step that warned or failed, in the report's order.
fn problems(report: &Value) -> Vec<String> {
    let all: Vec<&Value> = report["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter(|s| s["verdict"] == "warn" || s["verdict"] == "fail")
                .collect()
        })
        .unwrap_or_default();
    keys(&all)
}

/// `verdict:key` of `steps`.
pub(crate) fn keys(steps: &[&Value]) -> Vec<String> {
    steps
        .iter()
        .map(|s| {
            format!(
                "{}:{}",
                s["verdict"].as_str().unwrap_or("?"),
                s["key"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

#[test]
fn the_doctor_names_a_black_holed_primary_and_the_healthy_mirror() {
    let slot = lab().slot();
    Case::PrimaryBlackHoled.prepare(&slot);
    let primary = slot.url(&slot.primary);
    let mirror = slot.url(&slot.mirror);
    let (report, code, took, app_id) = doctor(&slot, &primary, Some(&mirror));
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(
        code,
        Some(3),
        "Init passes on the mirror: nothing failed, the primary warned\n{pretty}"
    );
    assert!(took < Duration::from_secs(12), "took {took:?}\n{pretty}");
    let primary_line = format!("{primary}:443");
    let mirror_line = format!("{mirror}:443");
    let primary_tcp = steps(&report, "tcp", Some(&primary_line));
    assert_eq!(keys(&primary_tcp), ["warn:tcp.timeout"], "{pretty}");
    assert_eq!(
        keys(&steps(&report, "tcp", Some(&mirror_line))),
        ["pass:tcp.ok"],
        "{pretty}"
    );
    assert_eq!(
        keys(&steps(&report, "tls", Some(&mirror_line))),
        ["pass:tls.ok"],
        "{pretty}"
    );
    let init = steps(&report, "init", None);
    assert_eq!(keys(&init), ["pass:init.ok"], "{pretty}");
    assert!(
        init[0]["message"].as_str().unwrap_or("").contains(&mirror),
        "Init answered by the mirror\n{pretty}"
    );
    assert_first_lines(
        &slot,
        &report,
        (&primary, &app_id, APP_KEY, &args_of(Some(&mirror))),
        "tcp.timeout",
        [
            "WARN: The connection timed out",
            "WARN：连接超时",
            "WARN：連線逾時",
        ],
    );
}

#[test]
fn the_doctor_names_a_slow_name_server_and_a_name_that_does_not_resolve() {
    let slot = lab().slot();
    Case::SlowDns.prepare(&slot);
    let primary = slot.url(&slot.primary);
    let (report, code, _, app_id) = doctor(&slot, &primary, None);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(3), "slow, not failed: a warning\n{pretty}");
    let lookup = steps(&report, "lookup", Some(&format!("{primary}:443")));
    assert_eq!(keys(&lookup), ["warn:lookup.slow"], "{pretty}");
    let resolver = &lookup[0]["details"]["resolver"];
    assert_eq!(resolver["kind"], "name_servers", "{pretty}");
    assert_eq!(
        resolver["name_servers"],
        json!(["198.18.0.53"]),
        "the lab's name server named: {resolver}"
    );
    assert_eq!(
        keys(&steps(&report, "init", None)),
        ["pass:init.ok"],
        "{pretty}"
    );
    assert_first_lines(
        &slot,
        &report,
        (&primary, &app_id, APP_KEY, &args_of(None)),
        "lookup.slow",
        [
            "WARN: The server's name was found, but the name server is slow",
            "WARN：已解析服务器域名，但域名解析较慢",
            "WARN：已解析伺服器網域名稱，但網域名稱解析較慢",
        ],
    );
    slot.clear("case");

    let nowhere = format!("https://s{}-nowhere.lab.test", slot.k);
    let (report, code, _, app_id) = doctor(&slot, &nowhere, None);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(
        keys(&steps(&report, "lookup", None)),
        ["fail:lookup.not_found"],
        "{pretty}"
    );
    assert!(steps(&report, "tcp", None).is_empty(), "{pretty}");
    assert_eq!(
        keys(&steps(&report, "init", None)),
        ["fail:init.network"],
        "{pretty}"
    );
    assert_eq!(
        steps(&report, "init", None)[0]["knock_on"],
        "lookup.not_found"
    );
    assert_first_lines(
        &slot,
        &report,
        (&nowhere, &app_id, APP_KEY, &args_of(None)),
        "lookup.not_found",
        [
            &format!(
                "FAIL: The server's name s{}-nowhere.lab.test cannot be found",
                slot.k
            ),
            "FAIL：无法解析服务器域名",
            "FAIL：無法解析伺服器網域名稱",
        ],
    );
}

/// The best `elapsed_ms` of two healthy reports in `slot` (every step passing).
fn healthy_elapsed(slot: &Slot) -> f64 {
    let primary = slot.url(&slot.primary);
    (0..2)
        .map(|_| {
            let (report, code, _, _) = doctor(slot, &primary, None);
            let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
            assert_eq!(code, Some(0), "{pretty}");
            assert_eq!(report["verdict"], "pass", "{pretty}");
            report["elapsed_ms"].as_f64().unwrap_or(f64::MAX)
        })
        .fold(f64::MAX, f64::min)
}

/// Over a healthy line the doctor takes the connection (DNS, TCP, TLS 1.3) and one Init's
/// round trip, no more: the lines are probed beside Init, not before it.
#[test]
fn a_healthy_report_takes_the_connection_and_one_init_round_trip() {
    const RTT: u64 = 200;
    const ROUND_TRIPS: f64 = 4.0;
    let slot = lab().slot();
    let zero = {
        let _alone = quiet();
        healthy_elapsed(&slot)
    };
    slot.set_rtt(RTT);
    let slow = {
        let _waits = busy();
        healthy_elapsed(&slot)
    };
    let round_trips = (slow - zero) / RTT as f64;
    eprintln!(
        "a healthy report: {zero:.0} ms at no round trip, {slow:.0} ms at {RTT} ms: \
         {round_trips:.1} round trips"
    );
    assert!(
        round_trips <= ROUND_TRIPS + 0.5,
        "{RTT} ms RTT: the report took {slow:.0} ms, {round_trips:.1} round trips over the \
         {zero:.0} ms of no round trip; DNS, TCP, TLS 1.3 and Init are {ROUND_TRIPS:.0}"
    );
}

/// The lookup and TCP connect of `line` passed: the cause is past the network.
fn assert_network_passes(report: &Value, line: &str) {
    let pretty = serde_json::to_string_pretty(report).unwrap_or_default();
    assert_eq!(
        keys(&steps(report, "lookup", Some(line))),
        ["pass:lookup.ok"],
        "{pretty}"
    );
    assert_eq!(
        keys(&steps(report, "tcp", Some(line))),
        ["pass:tcp.ok"],
        "{pretty}"
    );
}

#[test]
fn the_doctor_names_a_wrong_app_key_and_a_program_not_approved() {
    const WRONG_KEY: &str = "WRONGKEY0123456789ABCDEFGHIJKLMN";
    let slot = lab().slot();
    let primary = slot.url(&slot.primary);
    let line = format!("{primary}:443");
    let mut args = lab_ca();
    args.extend(["--proxy".to_owned(), "none".to_owned()]);

    let program = lab().sandbox().program();
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, WRONG_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(problems(&report), ["fail:init.1011"], "{pretty}");
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, WRONG_KEY, &args),
        "init.1011",
        [
            "FAIL: Refused with 1011: the AppKey is wrong",
            "FAIL：被拒绝（1011）",
            "FAIL：被拒絕（1011）",
        ],
    );
    assert_eq!(
        keys(&steps(&report, "tls", Some(&line))),
        ["pass:tls.ok"],
        "{pretty}"
    );
    assert_network_passes(&report, &line);

    // A program of its own, so that no other test's program changes.
    let pending = unique("labpending");
    lab().sandbox().control(
        "POST",
        "/_sandbox/fixtures",
        Some(&json!({
            "programs": [{"app_id": pending, "app_key": APP_KEY, "status": "pending"}],
        })),
    );
    let (report, code, _) = doctor_as(&slot, &primary, &pending, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(problems(&report), ["fail:init.1012"], "{pretty}");
    assert_first_lines(
        &slot,
        &report,
        (&primary, &pending, APP_KEY, &args),
        "init.1012",
        [
            "FAIL: Refused with 1012",
            "FAIL：被拒绝（1012）",
            "FAIL：被拒絕（1012）",
        ],
    );
    assert_network_passes(&report, &line);
}

#[test]
fn the_doctor_names_a_wrong_pin_and_a_server_it_does_not_trust() {
    let slot = lab().slot();
    let primary = slot.url(&slot.primary);
    let line = format!("{primary}:443");
    let program = lab().sandbox().program();

    // The SHA-256 of another key than the server's.
    let other = pin_of(&rcgen::KeyPair::generate().expect("a key"));
    let mut args = lab_ca();
    args.extend(["--pin", &other, "--proxy", "none"].map(str::to_owned));
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(
        problems(&report),
        ["fail:tls.pin_mismatch", "fail:init.pin"],
        "{pretty}"
    );
    assert_network_passes(&report, &line);
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, APP_KEY, &args),
        "tls.pin_mismatch",
        [
            "FAIL: The server's certificate matches none of the pinned keys",
            "FAIL：服务器证书与固定的公钥均不匹配",
            "FAIL：伺服器憑證與固定的公鑰均不相符",
        ],
    );

    // Without --ca: the lab's CA is its own, Mozilla's roots do not know it.
    let args = ["--proxy", "none"].map(str::to_owned);
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(
        problems(&report),
        ["fail:tls.unknown_issuer", "fail:init.tls"],
        "{pretty}"
    );
    assert_network_passes(&report, &line);
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, APP_KEY, &args),
        "tls.unknown_issuer",
        [
            "FAIL: The server's certificate was issued by CN=verify tests CA",
            "FAIL：服务器证书由 CN=verify tests CA 签发",
            "FAIL：伺服器憑證由 CN=verify tests CA 簽發",
        ],
    );
}

#[test]
fn the_doctor_names_a_proxy_nothing_listens_on() {
    let slot = lab().slot();
    let primary = slot.url(&slot.primary);
    let program = lab().sandbox().program();
    // Nothing listens in the slot's own namespace.
    let mut args = lab_ca();
    args.extend(["--proxy", "http://127.0.0.1:9"].map(str::to_owned));
    let (report, code, _) = doctor_as(&slot, &primary, &program.app_id, APP_KEY, &args);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(1), "{pretty}");
    assert_eq!(
        problems(&report),
        ["fail:proxy.unreachable", "fail:init.proxy"],
        "{pretty}"
    );
    // The proxy would look the service's name up: the doctor does not, nor connects to it.
    assert_eq!(
        keys(&steps(&report, "lookup", None)),
        ["skip:lookup.by_proxy"],
        "{pretty}"
    );
    assert!(steps(&report, "tcp", None).is_empty(), "{pretty}");
    assert_first_lines(
        &slot,
        &report,
        (&primary, &program.app_id, APP_KEY, &args),
        "proxy.unreachable",
        [
            "FAIL: The proxy http://127.0.0.1:9 (options) cannot be reached",
            "FAIL：无法连接代理服务器 http://127.0.0.1:9",
            "FAIL：無法連線代理伺服器 http://127.0.0.1:9",
        ],
    );
}
