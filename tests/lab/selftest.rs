//! The lab itself: each impairment does what it says, measured with real sockets inside a
//! slot (netlab.py's probes: a TCP connect, a DNS query, an echo exchange on port 7 of the
//! server namespace).

use std::process::Command;

use serde_json::{json, Value};

use crate::common::host::root;
use crate::lab::{lab, python};

/// How much later than configured a probe may finish: the relay's own time and the
/// scheduling of a busy 2-core machine.
const SLACK_MS: f64 = 40.0;

fn ms(answer: &Value) -> f64 {
    answer["ms"].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn a_configured_round_trip_is_what_a_connect_and_a_dns_query_measure() {
    let slot = lab().slot();
    let quick = slot.probe("connect", json!({"host": slot.primary_v4, "port": 7}));
    assert_eq!(quick["error"], Value::Null, "{quick}");
    assert!(ms(&quick) < SLACK_MS, "no rule: {quick}");

    slot.set_rtt(100);
    for host in [&slot.primary_v4, &slot.dual_v6] {
        let connect = slot.probe("connect", json!({"host": host, "port": 7}));
        assert_eq!(connect["error"], Value::Null, "{connect}");
        assert!(
            (100.0..100.0 + SLACK_MS).contains(&ms(&connect)),
            "a TCP connect to {host} over a 100 ms round trip: {connect}"
        );
    }
    for (kind, expected) in [("A", &slot.dual_v4), ("AAAA", &slot.dual_v6)] {
        let query = slot.probe("dns", json!({"name": slot.dual, "type": kind}));
        assert_eq!(query["addresses"], json!([expected]), "{query}");
        assert!(
            (100.0..100.0 + SLACK_MS).contains(&ms(&query)),
            "a DNS query ({kind}) over a 100 ms round trip: {query}"
        );
    }

    // Each way on its own: 80 ms up and 20 ms down are a 100 ms round trip too.
    slot.rule(
        "rtt",
        json!({"match": {"hosts": [slot.client_v4]}, "up_ms": 80, "down_ms": 20}),
    );
    let connect = slot.probe("connect", json!({"host": slot.mirror_v4, "port": 7}));
    assert!(
        (100.0..100.0 + SLACK_MS).contains(&ms(&connect)),
        "80 ms up and 20 ms down: {connect}"
    );
}

#[test]
fn a_black_hole_drops_syns_silently_while_arp_still_answers() {
    let slot = lab().slot();
    slot.black_hole("hole", &slot.primary_v4);
    let connect = slot.probe(
        "connect",
        json!({"host": slot.primary_v4, "port": 7, "timeout_ms": 1000}),
    );
    assert_eq!(
        connect["error"],
        json!("timeout"),
        "a connect to a black-holed address times out (not refused): {connect}"
    );
    assert!(ms(&connect) >= 1000.0, "{connect}");
    let counts = slot.counts("hole");
    assert!(
        counts["dropped"].as_u64().unwrap_or(0) >= 1,
        "the SYN reached the relay and was dropped: {counts}"
    );
    // The address resolved to a link-layer address: ARP went through, so the SYN left.
    let neighbours = String::from_utf8_lossy(
        &Command::new("ip")
            .args(["-n", &slot.ns, "neigh", "show", &slot.primary_v4])
            .output()
            .expect("ip neigh")
            .stdout,
    )
    .into_owned();
    assert!(
        neighbours.contains("lladdr"),
        "ARP for {} answered: `{neighbours}`",
        slot.primary_v4
    );

    // One address and port: the other ports of that address still answer.
    slot.rule(
        "port",
        json!({"match": {"hosts": [slot.mirror_v4], "port": 7}, "blackhole": true}),
    );
    let held = slot.probe(
        "connect",
        json!({"host": slot.mirror_v4, "port": 7, "timeout_ms": 500}),
    );
    assert_eq!(held["error"], json!("timeout"), "{held}");
    // Port 1: nothing listens there (9 is the lab's mute service, which accepts).
    let other = slot.probe("connect", json!({"host": slot.mirror_v4, "port": 1}));
    assert_eq!(
        other["error"],
        json!("refused"),
        "port 1 of the same address (nothing listens) refuses at once: {other}"
    );
}

#[test]
fn a_stall_holds_traffic_and_it_flows_again_after() {
    let slot = lab().slot();
    let open = slot.probe("open", json!({"host": slot.dual_v4, "port": 7}));
    let conn = open["conn"].clone();
    let before = slot.probe("exchange", json!({"conn": conn, "bytes": 1000}));
    assert_eq!(before["got"], json!(1000), "{before}");
    assert!(ms(&before) < SLACK_MS, "{before}");

    // Hold: everything waits for the stall's end, then arrives.
    slot.rule(
        "stall",
        json!({"match": {"hosts": [slot.client_v4]}, "stall": "hold", "for_ms": 1500}),
    );
    let held = slot.probe(
        "exchange",
        json!({"conn": conn, "bytes": 1000, "timeout_ms": 10000}),
    );
    assert_eq!(held["got"], json!(1000), "{held}");
    assert!(
        (1300.0..1500.0 + SLACK_MS).contains(&ms(&held)),
        "held until the 1.5 s stall ended: {held}"
    );
    assert!(!slot.has_rule("stall"), "the stall ended by itself");
    let after = slot.probe("exchange", json!({"conn": conn, "bytes": 1000}));
    assert!(ms(&after) < SLACK_MS, "it flows again: {after}");

    // Drop: what was sent during the stall is lost and TCP sends it again after.
    slot.rule(
        "stall",
        json!({"match": {"hosts": [slot.client_v4]}, "stall": "drop", "for_ms": 1000}),
    );
    let dropped = slot.probe(
        "exchange",
        json!({"conn": conn, "bytes": 1000, "timeout_ms": 15000}),
    );
    assert_eq!(dropped["got"], json!(1000), "{dropped}");
    assert!(
        ms(&dropped) >= 900.0,
        "nothing went through during the stall: {dropped}"
    );
    let after = slot.probe("exchange", json!({"conn": conn, "bytes": 1000}));
    assert!(ms(&after) < SLACK_MS, "it flows again: {after}");
    slot.probe("close", json!({"conn": conn}));
}

#[test]
fn a_reset_resets() {
    let slot = lab().slot();
    // A new connection: the relay answers the SYN with a reset, so the connect is refused.
    slot.rule(
        "reset",
        json!({"match": {"hosts": [slot.mirror_v4]}, "reset": true}),
    );
    let refused = slot.probe("connect", json!({"host": slot.mirror_v4, "port": 7}));
    assert_eq!(refused["error"], json!("refused"), "{refused}");
    assert!(ms(&refused) < SLACK_MS, "{refused}");

    // An open connection: the next segment is answered with a reset both ways.
    let open = slot.probe("open", json!({"host": slot.dual_v6, "port": 7}));
    let conn = open["conn"].clone();
    let before = slot.probe("exchange", json!({"conn": conn, "bytes": 100}));
    assert_eq!(before["got"], json!(100), "{before}");
    slot.rule(
        "reset",
        json!({"match": {"hosts": [slot.dual_v6]}, "reset": true}),
    );
    let reset = slot.probe("exchange", json!({"conn": conn, "bytes": 100}));
    assert_eq!(reset["error"], json!("reset"), "{reset}");
    slot.probe("close", json!({"conn": conn}));

    slot.clear("reset");
    let again = slot.probe("connect", json!({"host": slot.dual_v6, "port": 7}));
    assert_eq!(again["error"], Value::Null, "without the rule: {again}");
}

#[test]
fn a_slow_name_server_answers_late_and_the_rest_stays_fast() {
    let slot = lab().slot();
    slot.rule(
        "dns",
        json!({"match": {"hosts": [slot.client_v4], "port": 53}, "down_ms": 2000}),
    );
    let query = slot.probe("dns", json!({"name": slot.primary, "type": "A"}));
    assert_eq!(query["addresses"], json!([slot.primary_v4]), "{query}");
    assert!(
        (2000.0..2000.0 + SLACK_MS).contains(&ms(&query)),
        "the answer comes 2 s late: {query}"
    );
    let connect = slot.probe("connect", json!({"host": slot.primary_v4, "port": 7}));
    assert!(ms(&connect) < SLACK_MS, "TCP is not delayed: {connect}");

    // A failing name server: its answers never come.
    slot.rule(
        "dns",
        json!({"match": {"hosts": [slot.client_v4], "port": 53}, "blackhole": true}),
    );
    let lost = slot.probe(
        "dns",
        json!({"name": slot.primary, "type": "A", "timeout_ms": 500}),
    );
    assert_eq!(lost["error"], json!("timeout"), "{lost}");
}

#[test]
fn a_rate_limits_the_throughput() {
    let slot = lab().slot();
    slot.rule(
        "rate",
        json!({"match": {"hosts": [slot.client_v4]}, "rate_kbps": 2000}),
    );
    let open = slot.probe("open", json!({"host": slot.primary_v4, "port": 7}));
    let conn = open["conn"].clone();
    // 125,000 bytes each way at 2 Mbit/s: 0.5 s of payload, plus the headers (about 4 %).
    let transfer = slot.probe(
        "exchange",
        json!({"conn": conn, "bytes": 125_000, "timeout_ms": 10000}),
    );
    assert_eq!(transfer["got"], json!(125_000), "{transfer}");
    assert!(
        (500.0..800.0).contains(&ms(&transfer)),
        "125,000 bytes at 2 Mbit/s: {transfer}"
    );
    slot.probe("close", json!({"conn": conn}));
}

#[test]
fn without_root_the_lab_refuses_to_start_and_says_why() {
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", python()])
        .arg(root().join("tests/lab/netlab.py"))
        .arg("run")
        .output()
        .expect("setpriv (util-linux) runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("needs root") && stderr.contains("network namespaces"),
        "{stderr}"
    );
}
