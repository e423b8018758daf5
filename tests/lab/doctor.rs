//! The doctor (`verify-doctor`, docs/doctor.md) on the lab's networks: each cause is named by
//! its step, in words, and none is reported as another. A black-holed primary beside a
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
fn doctor_binary() -> PathBuf {
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
/// the lab's sandbox; its JSON report, exit code and how long it took.
fn doctor(slot: &Slot, url: &str, mirror: Option<&str>) -> (Value, Option<i32>, Duration) {
    let program = lab().sandbox().program();
    let mut args = lab_ca();
    args.extend(["--proxy".to_owned(), "none".to_owned()]);
    if let Some(mirror) = mirror {
        args.extend(["--mirror".to_owned(), mirror.to_owned()]);
    }
    doctor_as(slot, url, &program.app_id, APP_KEY, &args)
}

/// `--ca` with the lab's CA.
fn lab_ca() -> Vec<String> {
    let ca = lab().sandbox().ca_file.display().to_string();
    vec!["--ca".to_owned(), ca]
}

/// Runs the doctor in `slot` on `url` for `app_id` with `app_key` (through
/// `VERIFY_APP_KEY`) and `args` (its trust, proxy and mirrors); its JSON report, exit code
/// and how long it took. The AppKey is never in the report.
fn doctor_as(
    slot: &Slot,
    url: &str,
    app_id: &str,
    app_key: &str,
    args: &[String],
) -> (Value, Option<i32>, Duration) {
    let mut command = slot.command(&doctor_binary());
    command
        .args([url, app_id, "--json"])
        .args(args)
        .args(["--deadline", "10", "--connect-timeout", "3000"])
        .env("VERIFY_APP_KEY", app_key);
    let started = Instant::now();
    let output = command.output().expect("verify-doctor runs in the slot");
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&output.stdout);
    let report: Value = serde_json::from_str(&text).unwrap_or_else(|err| {
        panic!(
            "no JSON report ({err}):\n{text}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(!text.contains(app_key), "the AppKey in the report:\n{text}");
    (report, output.status.code(), took)
}

/// The steps of `kind` on `line` (`None`: any line).
fn steps<'a>(report: &'a Value, kind: &str, line: Option<&str>) -> Vec<&'a Value> {
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

fn keys(steps: &[&Value]) -> Vec<String> {
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
    let (report, code, took) = doctor(&slot, &primary, Some(&mirror));
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(
        code,
        Some(0),
        "Init passes on the mirror: nothing failed\n{pretty}"
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
}

#[test]
fn the_doctor_names_a_slow_name_server_and_a_name_that_does_not_resolve() {
    let slot = lab().slot();
    Case::SlowDns.prepare(&slot);
    let primary = slot.url(&slot.primary);
    let (report, code, _) = doctor(&slot, &primary, None);
    let pretty = serde_json::to_string_pretty(&report).unwrap_or_default();
    assert_eq!(code, Some(0), "slow, not failed\n{pretty}");
    let lookup = steps(&report, "lookup", Some(&format!("{primary}:443")));
    assert_eq!(keys(&lookup), ["warn:lookup.slow"], "{pretty}");
    let resolver = lookup[0]["details"]["resolver"].as_str().unwrap_or("");
    assert!(
        resolver.contains("198.18.0.53"),
        "the lab's name server named: {resolver}"
    );
    assert_eq!(
        keys(&steps(&report, "init", None)),
        ["pass:init.ok"],
        "{pretty}"
    );
    slot.clear("case");

    let nowhere = format!("https://s{}-nowhere.lab.test", slot.k);
    let (report, code, _) = doctor(&slot, &nowhere, None);
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
}

/// The best `elapsed_ms` of two healthy reports in `slot` (every step passing).
fn healthy_elapsed(slot: &Slot) -> f64 {
    let primary = slot.url(&slot.primary);
    (0..2)
        .map(|_| {
            let (report, code, _) = doctor(slot, &primary, None);
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
}
