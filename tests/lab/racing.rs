//! A licensed program's start over bad networks, through the C ABI (`lab_client`)
//! in the lab, at 0, 50 and 200 ms round trip. Each compares the best of up to three starts
//! with a bound computed from three no-fault starts in the same slot (their median, the
//! no-fault time as BENCHMARKS.md gives it), plus [`JITTER_MS`]: at 0 ms round trip a start
//! takes about 10 ms, and 20 % of it is less than the jitter of starting a process on a busy
//! machine (BENCHMARKS.md's table applies the goals as written, without it). The starts at
//! 0 ms run alone among this binary's starts ([`crate::lab::quiet`]).

use serde_json::json;

use crate::figures::{
    median, new_state_folder, start_case, Case, ATTEMPT_DELAY_MS, MIN_ROUND_TRIPS,
    REMEMBERED_ROUND_TRIPS, RTTS, SLOW_DNS_MS,
};
use crate::lab::{busy, lab, quiet, Client, LabProgram, Slot, Start};

/// Up to three starts, until one is within `bound` ms (or one fails, or takes more than twice
/// the bound: another try would not change the verdict); returns every start made.
fn starts_until(slot: &Slot, program: &LabProgram, case: Case, bound: f64) -> Vec<Start> {
    let mut starts = Vec::new();
    for _ in 0..3 {
        let start = start_case(slot, program, case, Client::Verify);
        let done = start.code != 200 || start.ms <= bound || start.ms > 2.0 * bound;
        starts.push(start);
        if done {
            break;
        }
    }
    starts
}

/// What starting a process on a busy 2-core machine adds or takes at random, in ms (the
/// no-fault starts at 0 ms round trip of BENCHMARKS.md spread over 4–11 ms).
const JITTER_MS: f64 = 5.0;

/// Three no-fault starts of `client` in `slot` (at its round trip), in ms, sorted.
fn no_fault_starts(slot: &Slot, program: &LabProgram, client: Client) -> Vec<f64> {
    let mut ms: Vec<f64> = (0..3)
        .map(|_| start_case(slot, program, Case::NoFault, client))
        .map(|start| {
            assert_eq!(
                start.code, 200,
                "a no-fault start of {client:?} logs in\n{}{}",
                start.stdout, start.stderr
            );
            start.ms
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms
}

/// The best of three no-fault starts.
fn no_fault_best(slot: &Slot, program: &LabProgram, client: Client) -> f64 {
    no_fault_starts(slot, program, client)[0]
}

/// The median of three no-fault starts of libverify.
fn no_fault_median(slot: &Slot, program: &LabProgram) -> f64 {
    median(&no_fault_starts(slot, program, Client::Verify))
}

fn report(starts: &[Start]) -> String {
    starts
        .iter()
        .map(|s| {
            format!(
                "code {} after {:.0} ms\n{}{}",
                s.code, s.ms, s.stdout, s.stderr
            )
        })
        .collect()
}

/// Runs `check(slot, program, rtt)` at every round trip of the lab, each in a slot of its
/// own, in parallel; collects the failures.
fn at_every_rtt(check: impl Fn(&Slot, &LabProgram, u64) -> Option<String> + Sync) {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let check = &check;
        let handles: Vec<_> = RTTS
            .iter()
            .map(|&rtt| {
                scope.spawn(move || {
                    let slot = lab().slot();
                    let program = lab().sandbox().program();
                    slot.set_rtt(rtt);
                    if rtt == 0 {
                        let _alone = quiet();
                        check(&slot, &program, rtt)
                    } else {
                        let _beside = busy();
                        check(&slot, &program, rtt)
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("a round trip's thread"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// At every round trip: the best of up to three starts under `case` (a black hole) within the
/// attempt delay plus 1.2 times the no-fault start in the same slot. `what` names the case.
fn within_attempt_delay(case: Case, what: fn(&Slot) -> String) {
    at_every_rtt(|slot, program, rtt| {
        let bound = ATTEMPT_DELAY_MS + 1.2 * no_fault_median(slot, program) + JITTER_MS;
        case.prepare(slot);
        let starts = starts_until(slot, program, case, bound);
        let best = starts.iter().find(|s| s.code == 200 && s.ms <= bound);
        best.is_none().then(|| {
            format!(
                "{rtt} ms RTT: {}: no start within {bound:.0} ms (attempt delay + 1.2 × no \
                 fault + {JITTER_MS} ms):\n{}",
                what(slot),
                report(&starts)
            )
        })
    });
}

/// Black-holed primary, healthy mirror: the first reply within the attempt delay plus
/// 1.2 times the no-fault start: new connections are raced.
#[test]
fn a_black_holed_primary_with_a_mirror_costs_at_most_the_attempt_delay() {
    within_attempt_delay(Case::PrimaryBlackHoled, |slot| {
        format!("{} black-holed, {} healthy", slot.primary, slot.mirror)
    });
}

/// A dual-stack name whose IPv6 address is black-holed: the same bound (racing every
/// address of a name).
#[test]
fn a_black_holed_ipv6_address_costs_at_most_the_attempt_delay() {
    within_attempt_delay(Case::Ipv6BlackHoled, |slot| {
        format!("{} with its IPv6 address black-holed", slot.dual)
    });
}

/// The second start with the primary still black-holed and the winning line remembered in
/// the state folder: the no-fault time (1.2 ×).
#[test]
fn the_remembered_winner_makes_the_next_start_as_fast_as_no_fault() {
    assert!(
        lab().programs().has_state_folder(),
        "verify.h has no verify_client_options_set_state_folder: the winner cannot be \
         remembered across starts"
    );
    at_every_rtt(|slot, program, rtt| {
        let bound = 1.2 * no_fault_median(slot, program) + JITTER_MS;
        Case::Remembered.prepare(slot);
        let starts = starts_until(slot, program, Case::Remembered, bound);
        let best = starts.iter().find(|s| s.code == 200 && s.ms <= bound);
        best.is_none().then(|| {
            format!(
                "{rtt} ms RTT: the second start with the winner remembered: none within \
                 {bound:.0} ms (1.2 × no fault + {JITTER_MS} ms):\n{}",
                report(&starts)
            )
        })
    });
}

/// The second start with the name server answering after 2 s and the winning line's addresses
/// remembered in the state folder: connected at once to the remembered address, beside the
/// lookup, so the login comes after TCP, TLS, Init and SingleLogin: 4 round trips plus 1.2
/// times the no-fault start's own time (its time less its 5 round trips, in the same slot).
/// The first start is unchanged: it waits for the name server (2 s plus the no-fault start).
#[test]
fn a_second_start_does_not_wait_for_a_slow_name_server() {
    assert!(
        lab().programs().has_state_folder(),
        "verify.h has no verify_client_options_set_state_folder: nothing is remembered"
    );
    at_every_rtt(|slot, program, rtt| {
        let no_fault = no_fault_median(slot, program);
        let own = (no_fault - MIN_ROUND_TRIPS * rtt as f64).max(0.0);
        let bound = REMEMBERED_ROUND_TRIPS * rtt as f64 + 1.2 * own + JITTER_MS;
        let first_bound = SLOW_DNS_MS + 1.2 * no_fault + JITTER_MS;
        Case::SlowDns.prepare(slot);
        let launch = |options: &[String]| {
            let mut launch = Case::SlowDnsRemembered.launch(slot);
            launch.verify_options = options.to_vec();
            launch
        };
        let mut starts = Vec::new();
        let mut firsts = Vec::new();
        for _ in 0..3 {
            let launch = launch(&new_state_folder());
            let first = slot.start(Client::Verify, program, &launch);
            if first.code != 200 || first.ms < SLOW_DNS_MS || first.ms > first_bound {
                // A first start off its bound (a loaded machine) is tried again, as the second.
                firsts.push(first);
                continue;
            }
            let second = slot.start(Client::Verify, program, &launch);
            let done = second.code != 200 || second.ms <= bound || second.ms > 2.0 * bound;
            starts.push(second);
            if done {
                break;
            }
        }
        if starts.is_empty() {
            return Some(format!(
                "{rtt} ms RTT: no first start was the slow name server's (2 s) plus no fault \
                 ({no_fault:.0} ms), within {first_bound:.0} ms:\n{}",
                report(&firsts)
            ));
        }
        let best = starts.iter().find(|s| s.code == 200 && s.ms <= bound);
        best.is_none().then(|| {
            format!(
                "{rtt} ms RTT: the second start with a 2 s name server: none within {bound:.0} \
                 ms ({REMEMBERED_ROUND_TRIPS:.0} RT + 1.2 × the no-fault start's {own:.1} ms \
                 of its own + {JITTER_MS} ms):\n{}",
                report(&starts)
            )
        })
    });
}

/// A remembered address that black-holes since the first start (the primary's, the mirror
/// healthy): the second start tries it at once and the mirror after the attempt delay, so it
/// costs no more than the delay: within the attempt delay plus 1.2 times the no-fault start.
#[test]
fn a_remembered_address_that_black_holes_costs_at_most_the_attempt_delay() {
    assert!(
        lab().programs().has_state_folder(),
        "verify.h has no verify_client_options_set_state_folder: nothing is remembered"
    );
    at_every_rtt(|slot, program, rtt| {
        let bound = ATTEMPT_DELAY_MS + 1.2 * no_fault_median(slot, program) + JITTER_MS;
        let mut starts = Vec::new();
        for _ in 0..3 {
            slot.clear("case");
            let mut launch = Case::NoFault.launch(slot);
            launch.verify_options = new_state_folder();
            launch.verify_options.push("--log".to_owned());
            let first = slot.start(Client::Verify, program, &launch);
            let primary_won = first.stdout.contains(&format!(
                "connected to https://{}:443 at {}:443",
                slot.primary, slot.primary_v4
            ));
            if first.code != 200 || !primary_won {
                return Some(format!(
                    "{rtt} ms RTT: the first start did not log in through the primary:\n{}",
                    report(std::slice::from_ref(&first))
                ));
            }
            slot.black_hole("case", &slot.primary_v4);
            let second = slot.start(Client::Verify, program, &launch);
            let tried_at_once = second.stdout.contains(&format!(
                "attempt 1: https://{}:443 at {}:443",
                slot.primary, slot.primary_v4
            ));
            if second.code == 200 && !tried_at_once {
                return Some(format!(
                    "{rtt} ms RTT: the remembered address was not the first attempt:\n{}",
                    report(std::slice::from_ref(&second))
                ));
            }
            let done = second.code != 200 || second.ms <= bound || second.ms > 2.0 * bound;
            starts.push(second);
            if done {
                break;
            }
        }
        let best = starts.iter().find(|s| s.code == 200 && s.ms <= bound);
        best.is_none().then(|| {
            format!(
                "{rtt} ms RTT: a remembered address black-holed: no start within {bound:.0} ms \
                 (attempt delay + 1.2 × no fault + {JITTER_MS} ms):\n{}",
                report(&starts)
            )
        })
    });
}

/// A cold start takes no more round trips than the protocol needs (DNS, TCP, TLS 1.3, Init,
/// SingleLogin: 5) and no more time than the libcurl client's in the same slot (within a
/// quarter of a round trip: the library under test may be a debug build).
#[test]
fn a_cold_start_takes_the_protocols_round_trips_and_no_more_than_libcurl() {
    let zero = {
        let slot = lab().slot();
        let program = lab().sandbox().program();
        let _alone = quiet();
        (
            no_fault_best(&slot, &program, Client::Verify),
            no_fault_best(&slot, &program, Client::Curl),
        )
    };
    at_every_rtt(|slot, program, rtt| {
        if rtt == 0 {
            return None;
        }
        let verify = no_fault_best(slot, program, Client::Verify);
        let curl = no_fault_best(slot, program, Client::Curl);
        let rt = (verify - zero.0) / rtt as f64;
        let curl_rt = (curl - zero.1) / rtt as f64;
        let slack = rtt as f64 / 4.0;
        let mut failures = Vec::new();
        if rt > MIN_ROUND_TRIPS + 0.5 {
            failures.push(format!(
                "{rtt} ms RTT: a cold start took {verify:.0} ms, {rt:.1} round trips over the \
                 {:.0} ms of no round trip; the protocol needs {MIN_ROUND_TRIPS:.0} \
                 (libcurl: {curl:.0} ms, {curl_rt:.1})",
                zero.0
            ));
        }
        if verify > curl + slack {
            failures.push(format!(
                "{rtt} ms RTT: a cold start took {verify:.0} ms, libcurl's {curl:.0} ms"
            ));
        }
        (!failures.is_empty()).then(|| failures.join("\n"))
    });
}

/// A name server answering after 2 s counts against the call's deadline: with a 1 s call
/// timeout the start ends with VERIFY_ERR_TIMEOUT at 1 s, not when the answer comes: a slow
/// resolver counts against the call's deadline, and nothing blocks past it.
#[test]
fn a_slow_name_server_counts_against_the_call_deadline() {
    let slot = lab().slot();
    let program = lab().sandbox().program();
    Case::SlowDns.prepare(&slot);
    let mut launch = Case::SlowDns.launch(&slot);
    launch.verify_options = ["--timeouts", "10000", "1000"].map(String::from).to_vec();
    let start = slot.start(Client::Verify, &program, &launch);
    assert_eq!(
        start.code,
        -4,
        "VERIFY_ERR_TIMEOUT while the name server has not answered\n{}",
        report(std::slice::from_ref(&start))
    );
    // The process's own start (exec, loading) comes on top of the call's 1 s.
    assert!(
        start.ms < 1000.0 + 150.0,
        "the call returned {:.0} ms after the start, past its 1 s deadline\n{}",
        start.ms,
        report(std::slice::from_ref(&start))
    );
    let counts = slot.counts("case");
    assert!(
        counts["matched"].as_u64().unwrap_or(0) >= 1,
        "the query went to the lab's name server: {}",
        json!(counts)
    );
}
