//! The keeper over a bad link, through the C ABI (`lab_client keeper`, its
//! events printed as they come) in a slot with a 50 ms round trip: the link stalls for 30 s
//! and comes back, or the round trip jumps to 3 s while a heartbeat is under way. Neither
//! ends the session: no ENDED event, the grace period covers the gap, and the next heartbeat
//! succeeds within one interval of the link returning.
//!
//! The keeper's intervals run on the client's monotonic clock, so the stall lasts its 30 s of
//! real time (the tests run beside the others); every wait is for an event, with a deadline.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::lab::{lab, Running, Slot};

/// The heartbeat's own round trips and the scheduling of a busy machine, on top of the
/// interval.
const SLACK: Duration = Duration::from_secs(1);

fn is_event(line: &str, kind: &str) -> bool {
    line.starts_with(&format!("event kind={kind} "))
}

fn link(slot: &Slot) -> serde_json::Value {
    json!({"hosts": [slot.client_v4, slot.client_v6]})
}

/// Starts the keeper of a fresh program in `slot` and waits for its login and its first
/// heartbeat; returns it with the time of that heartbeat's ALIVE.
fn keeper_alive(
    slot: &Slot,
    interval: Duration,
    grace: Duration,
    options: &[&str],
    zero: Instant,
) -> (Running, Instant) {
    let program = lab().sandbox().program();
    let mut keeper = slot.keeper(
        &program,
        interval.as_millis() as u32,
        grace.as_millis() as u32,
        options,
    );
    let logged_in = keeper.wait_for(Duration::from_secs(30), |l| l.starts_with("login code="));
    assert!(
        logged_in.is_some()
            && keeper
                .seen
                .iter()
                .any(|(_, l)| l.starts_with("login code=200 ")),
        "the keeper's login\n{}",
        keeper.report(zero)
    );
    let alive = keeper
        .wait_for(interval * 2 + SLACK, |l| is_event(l, "alive"))
        .unwrap_or_else(|| panic!("the first heartbeat\n{}", keeper.report(zero)));
    (keeper, alive)
}

#[test]
fn the_keeper_rides_out_a_30_s_stall() {
    let interval = Duration::from_secs(5);
    let grace = Duration::from_secs(60);
    let slot = lab().slot();
    slot.set_rtt(50);
    let zero = Instant::now();
    // A host that wants to hear of trouble early: each heartbeat gives up after 10 s.
    let (mut keeper, _) = keeper_alive(
        &slot,
        interval,
        grace,
        &["--timeouts", "5000", "10000"],
        zero,
    );

    // The link drops everything for 30 s (the keeper's connection and new ones alike).
    slot.rule("stall", json!({"match": link(&slot), "stall": "drop"}));
    let stalled = Instant::now();
    keeper.note("the link stalls (every packet dropped) for 30 s");
    let ended = keeper.wait_for(Duration::from_secs(30), |l| is_event(l, "ended"));
    slot.clear("stall");
    let back = Instant::now();
    keeper.note("the link is back");
    assert!(
        ended.is_none(),
        "an ENDED event during the stall\n{}",
        keeper.report(zero)
    );
    let troubled = keeper
        .seen
        .iter()
        .any(|(at, l)| *at >= stalled && is_event(l, "trouble"));
    assert!(
        troubled,
        "heartbeats failed during the 30 s stall (TROUBLE: the grace period runs)\n{}",
        keeper.report(zero)
    );

    let alive = keeper.wait_for(interval + SLACK + Duration::from_secs(10), |l| {
        is_event(l, "alive") || is_event(l, "ended")
    });
    let report = keeper.report(zero);
    let alive = alive.unwrap_or_else(|| panic!("no heartbeat after the link came back\n{report}"));
    assert!(
        keeper
            .seen
            .last()
            .is_some_and(|(_, l)| is_event(l, "alive")),
        "the session ended instead\n{report}"
    );
    assert!(
        alive.duration_since(back) <= interval + SLACK,
        "the next heartbeat succeeded {:.1} s after the link came back (interval {} s)\n{report}",
        alive.duration_since(back).as_secs_f64(),
        interval.as_secs()
    );
    let stopped = keeper.stop();
    println!("{}", keeper.report(zero));
    assert!(
        stopped.contains("stopping state=1"),
        "alive at the end (VERIFY_KEEPER_ALIVE)\n{stopped}"
    );
}

#[test]
fn the_keeper_rides_out_a_3_s_round_trip_spike_during_a_heartbeat() {
    let interval = Duration::from_secs(5);
    let grace = Duration::from_secs(60);
    let slot = lab().slot();
    slot.set_rtt(50);
    let zero = Instant::now();
    let (mut keeper, first) = keeper_alive(&slot, interval, grace, &[], zero);

    // Right after a heartbeat: the next one goes out into a 3 s round trip.
    slot.rule(
        "rtt",
        json!({"match": link(&slot), "up_ms": 1500, "down_ms": 1500}),
    );
    keeper.note("the round trip jumps to 3 s");
    let during = keeper
        .wait_for(interval * 2 + Duration::from_secs(10), |l| {
            is_event(l, "alive") || is_event(l, "trouble") || is_event(l, "ended")
        })
        .unwrap_or_else(|| panic!("no heartbeat during the spike\n{}", keeper.report(zero)));
    let last = keeper
        .seen
        .last()
        .map(|(_, l)| l.clone())
        .unwrap_or_default();
    slot.set_rtt(50);
    let back = Instant::now();
    keeper.note("the round trip is 50 ms again");
    let report = keeper.report(zero);
    assert!(!is_event(&last, "ended"), "the session ended\n{report}");
    if is_event(&last, "alive") {
        // It went through the spike: at least the 3 s round trip later than its schedule.
        assert!(
            during.duration_since(first) >= interval + Duration::from_millis(2900),
            "the heartbeat met the spike ({:.1} s after the previous one)\n{report}",
            during.duration_since(first).as_secs_f64()
        );
    }
    let alive = keeper.wait_for(interval + SLACK, |l| {
        is_event(l, "alive") || is_event(l, "ended")
    });
    let report = keeper.report(zero);
    assert!(
        alive.is_some()
            && keeper
                .seen
                .last()
                .is_some_and(|(_, l)| is_event(l, "alive")),
        "a heartbeat succeeded within one interval of the round trip coming back\n{report}"
    );
    assert!(
        alive.is_some_and(|a| a.duration_since(back) <= interval + SLACK),
        "{report}"
    );
    assert!(
        !keeper.seen.iter().any(|(_, l)| is_event(l, "ended")),
        "no ENDED event\n{report}"
    );
    let stopped = keeper.stop();
    println!("{}", keeper.report(zero));
    assert!(stopped.contains("stopping state=1"), "{stopped}");
}
