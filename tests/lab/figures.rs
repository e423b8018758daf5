//! The lab's figures: the start of a licensed program (process start to the first
//! SingleLogin answer over https) through libverify (`lab_client`) and through the libcurl
//! baseline, at 0, 50 and 200 ms round trip, with no fault, with the primary black-holed and
//! a healthy mirror, with a dual-stack name whose IPv6 address is black-holed, with the name
//! server answering after 2 s (a first start, and a second one with the winner's addresses
//! remembered), and (libverify) the second start with the winner remembered.
//!
//! `figures` runs them all, one slot per case and round trip, in parallel, and prints the
//! Markdown table of BENCHMARKS.md's network lab section. `benches/lab.sh` runs it in release
//! with `VERIFY_LAB_RUNS` starts per cell (default here: 1), `VERIFY_LAB_FIGURES=FILE`
//! (where the table goes) and `VERIFY_LAB_CASES` (the keys of [`Case::key`], comma-separated:
//! only those rows, and the no-fault one the targets need; default: every row). As a test it checks that every start logged in; the goals are
//! checked by the tests of `racing`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use crate::common::host::{library_dir, root};
use crate::common::unique;
use crate::lab::{busy, lab, quiet, Client, LabProgram, Launch, Slot, Start};

/// The round trips of the figures, in ms.
pub const RTTS: [u64; 3] = [0, 50, 200];

/// The attempt delay of the library's racing (its default).
pub const ATTEMPT_DELAY_MS: f64 = 250.0;

/// How late the name server answers in [`Case::SlowDns`], in ms.
pub const SLOW_DNS_MS: f64 = 2000.0;

/// The round trips a cold start cannot go below: DNS, TCP, TLS 1.3, Init, SingleLogin.
pub const MIN_ROUND_TRIPS: f64 = 5.0;

/// What the network does to a start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// The primary URL answers; a mirror is configured.
    NoFault,
    /// The primary's address drops every packet; the mirror is healthy.
    PrimaryBlackHoled,
    /// One name with an IPv6 and an IPv4 address, the IPv6 one black-holed.
    Ipv6BlackHoled,
    /// The name server answers after 2 s.
    SlowDns,
    /// The second start, the primary still black-holed, with the state folder of the first
    /// (libverify only).
    Remembered,
    /// The second start with the name server answering after 2 s, with the state folder of
    /// the first (libverify; libcurl remembers nothing: its start is the first one's).
    SlowDnsRemembered,
}

pub const CASES: [Case; 6] = [
    Case::NoFault,
    Case::PrimaryBlackHoled,
    Case::Ipv6BlackHoled,
    Case::SlowDns,
    Case::Remembered,
    Case::SlowDnsRemembered,
];

/// The round trips of a start with everything remembered: TCP, TLS 1.3, Init, SingleLogin.
pub const REMEMBERED_ROUND_TRIPS: f64 = 4.0;

impl Case {
    pub fn title(self) -> &'static str {
        match self {
            Case::NoFault => "no fault (primary healthy, a mirror configured)",
            Case::PrimaryBlackHoled => "primary black-holed (SYNs dropped), healthy mirror",
            Case::Ipv6BlackHoled => "one name, IPv6 address black-holed, IPv4 healthy",
            Case::SlowDns => "name server answers after 2 s",
            Case::Remembered => {
                "second start, primary still black-holed, the winner remembered (state folder)"
            }
            Case::SlowDnsRemembered => {
                "second start, name server answers after 2 s, the winner's addresses remembered \
                 (state folder)"
            }
        }
    }

    /// The case's name in `VERIFY_LAB_CASES`.
    pub fn key(self) -> &'static str {
        match self {
            Case::NoFault => "no-fault",
            Case::PrimaryBlackHoled => "primary-black-holed",
            Case::Ipv6BlackHoled => "ipv6-black-holed",
            Case::SlowDns => "slow-dns",
            Case::Remembered => "remembered",
            Case::SlowDnsRemembered => "slow-dns-remembered",
        }
    }

    /// Whether the start measured is the second one, with the state folder of a first.
    pub fn remembers(self) -> bool {
        matches!(self, Case::Remembered | Case::SlowDnsRemembered)
    }

    /// What the case adds to a start of `client` by itself: the name server's 2 s, unless
    /// the client remembers the addresses.
    pub fn wait_ms(self, client: Client) -> f64 {
        match (self, client) {
            (Case::SlowDns, _) | (Case::SlowDnsRemembered, Client::Curl) => SLOW_DNS_MS,
            _ => 0.0,
        }
    }

    /// Sets the slot's rules for this case (besides its round trip).
    pub fn prepare(self, slot: &Slot) {
        match self {
            Case::NoFault => {}
            Case::PrimaryBlackHoled | Case::Remembered => slot.black_hole("case", &slot.primary_v4),
            Case::Ipv6BlackHoled => slot.black_hole("case", &slot.dual_v6),
            Case::SlowDns | Case::SlowDnsRemembered => slot.rule(
                "case",
                serde_json::json!({"match": {"hosts": [slot.client_v4, slot.client_v6],
                    "port": 53}, "down_ms": SLOW_DNS_MS}),
            ),
        }
    }

    /// The URLs a client starts with in this case.
    pub fn launch(self, slot: &Slot) -> Launch {
        match self {
            Case::Ipv6BlackHoled => Launch {
                url: slot.url(&slot.dual),
                ..Launch::default()
            },
            _ => Launch {
                url: slot.url(&slot.primary),
                mirror: Some(slot.url(&slot.mirror)),
                ..Launch::default()
            },
        }
    }
}

/// One start of `client` in `slot` under `case` (its rules set by [`Case::prepare`]). For
/// the cases that [`Case::remembers`], libverify's first start with a new state folder comes
/// before the one measured (libcurl has nothing to remember: one start); without the
/// library's state folder setting the start fails with a message saying so.
pub fn start_case(slot: &Slot, program: &LabProgram, case: Case, client: Client) -> Start {
    let mut launch = case.launch(slot);
    if case.remembers() && client == Client::Verify {
        if !lab().programs().has_state_folder() {
            return Start {
                code: i32::MIN,
                ms: f64::NAN,
                stdout: String::new(),
                stderr: "the library has no state folder setting \
                         (verify_client_options_set_state_folder)"
                    .to_owned(),
            };
        }
        launch.verify_options = new_state_folder();
        let first = slot.start(client, program, &launch);
        if first.code != 200 {
            return first;
        }
    }
    slot.start(client, program, &launch)
}

/// lab_client's options for a new, empty state folder.
pub fn new_state_folder() -> Vec<String> {
    let folder: PathBuf = lab().dir.join("state").join(unique("start"));
    std::fs::create_dir_all(&folder).expect("a state folder");
    vec!["--state-folder".to_owned(), folder.display().to_string()]
}

/// The starts of one cell of the table: `runs` of each client in a new slot at `rtt_ms`.
pub struct Cell {
    pub case: Case,
    pub rtt_ms: u64,
    pub verify: Vec<Start>,
    pub curl: Vec<Start>,
}

/// `runs` starts of each of `clients` (in turn) in a new slot at `rtt_ms` under `case`.
fn measure_cell(case: Case, rtt_ms: u64, runs: usize, clients: &[Client]) -> Cell {
    let slot = lab().slot();
    let program = lab().sandbox().program();
    slot.set_rtt(rtt_ms);
    case.prepare(&slot);
    // libcurl against the black-holed primary waits out its 10 s: nothing to keep quiet for.
    let sensitive = rtt_ms == 0 && !(case == Case::PrimaryBlackHoled && clients == [Client::Curl]);
    let (_alone, _beside) = if sensitive {
        (Some(quiet()), None)
    } else {
        (None, Some(busy()))
    };
    let mut cell = Cell {
        case,
        rtt_ms,
        verify: Vec::new(),
        curl: Vec::new(),
    };
    for _ in 0..runs {
        for &client in clients {
            let start = start_case(&slot, &program, case, client);
            match client {
                Client::Verify => cell.verify.push(start),
                Client::Curl => cell.curl.push(start),
            }
        }
    }
    cell
}

/// The clients of a case's cells: libcurl has no state folder.
fn clients_of(case: Case) -> &'static [Client] {
    if case == Case::Remembered {
        &[Client::Verify]
    } else {
        &[Client::Verify, Client::Curl]
    }
}

pub fn median(values: &[f64]) -> f64 {
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

fn times(starts: &[Start]) -> Option<Vec<f64>> {
    starts
        .iter()
        .map(|s| (s.code == 200).then_some(s.ms))
        .collect()
}

/// `312 ms (305–330; 5.2 RT)`: median, range, round trips over the no-fault start at 0 ms
/// (and over `wait_ms` the case adds by itself: `2 s + 5.1 RT`).
fn cell_text(starts: &[Start], zero_ms: Option<f64>, rtt_ms: u64, wait_ms: f64) -> String {
    if starts.is_empty() {
        return "—".to_owned();
    }
    let Some(ms) = times(starts) else {
        let failed = starts
            .iter()
            .find(|s| s.code != 200)
            .expect("a failed start");
        let said = failed.stderr.lines().last().unwrap_or_default();
        return if failed.code == i32::MIN {
            format!("did not run: {said}")
        } else {
            format!("failed: code {} {said}", failed.code)
        };
    };
    let mid = median(&ms);
    let mut text = format!("{mid:.0} ms");
    let mut notes = Vec::new();
    if ms.len() > 1 {
        let low = ms.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        notes.push(format!("{low:.0}–{high:.0}"));
    }
    if let (Some(zero), true) = (zero_ms, rtt_ms > 0) {
        let rt = (mid - zero - wait_ms) / rtt_ms as f64;
        notes.push(if wait_ms > 0.0 {
            format!("{:.0} s + {rt:.1} RT", wait_ms / 1000.0)
        } else {
            format!("{rt:.1} RT")
        });
    }
    if !notes.is_empty() {
        let _ = write!(text, " ({})", notes.join("; "));
    }
    text
}

/// The Markdown table of the cells, with their targets and whether each is met.
fn table(cells: &[Cell], runs: usize, netns_exec_ms: f64) -> String {
    let find = |case: Case, rtt: u64| {
        cells
            .iter()
            .find(|c| c.case == case && c.rtt_ms == rtt)
            .expect("every cell measured")
    };
    let med = |starts: &[Start]| times(starts).map(|t| median(&t));
    let zero_verify = med(&find(Case::NoFault, 0).verify);
    let zero_curl = med(&find(Case::NoFault, 0).curl);
    let racing = lab().programs().racing;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Each cell: the median of {runs} start{} (min–max), from the moment the process \
         is started to the SingleLogin answer over https (Init before it), and the round trips \
         (RT) that adds to the same client's no-fault start at 0 ms. libverify: `{}`; \
         racing settings in its header: attempt delay {}, fixed addresses {}, state folder {}. \
         Starting a process through `ip netns exec` costs {netns_exec_ms:.1} ms of every figure \
         (median, `ip netns exec NS true`). The no-fault target counts whole round trips: a \
         cell meets it when its RT, which carries a few ms of the start's own work, rounds to \
         {MIN_ROUND_TRIPS:.0} or fewer.",
        if runs == 1 { "" } else { "s" },
        library_dir()
            .join("libverify.so")
            .strip_prefix(root())
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| library_dir().join("libverify.so").display().to_string()),
        yes(racing[0]),
        yes(racing[1]),
        yes(racing[2]),
    );
    out.push('\n');
    out.push_str("| case | RTT | verify | libcurl baseline | target | result |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for case in CASES {
        if !cells.iter().any(|c| c.case == case) {
            continue;
        }
        for rtt in RTTS {
            let cell = find(case, rtt);
            let verify = med(&cell.verify);
            let curl = med(&cell.curl);
            let no_fault = med(&find(Case::NoFault, rtt).verify);
            let (target, met) = match case {
                Case::NoFault if rtt == 0 => ("—".to_owned(), None),
                Case::NoFault => {
                    let rt = verify.zip(zero_verify).map(|(v, z)| (v - z) / rtt as f64);
                    (
                        format!("≤ {MIN_ROUND_TRIPS:.0} RT (rounded) and ≤ libcurl"),
                        rt.zip(verify.zip(curl))
                            .map(|(rt, (v, c))| rt <= MIN_ROUND_TRIPS + 0.5 && v <= c),
                    )
                }
                Case::PrimaryBlackHoled | Case::Ipv6BlackHoled => match no_fault {
                    Some(nf) => {
                        let bound = ATTEMPT_DELAY_MS + 1.2 * nf;
                        (
                            format!("≤ {ATTEMPT_DELAY_MS:.0} ms + 1.2 × no fault = {bound:.0} ms"),
                            verify.map(|v| v <= bound),
                        )
                    }
                    None => ("—".to_owned(), None),
                },
                Case::Remembered => match no_fault {
                    Some(nf) => (
                        format!("≤ 1.2 × no fault = {:.0} ms", 1.2 * nf),
                        Some(verify.is_some_and(|v| v <= 1.2 * nf)),
                    ),
                    None => ("—".to_owned(), None),
                },
                Case::SlowDns => ("—".to_owned(), None),
                Case::SlowDnsRemembered => match zero_verify {
                    Some(zero) => {
                        let bound = REMEMBERED_ROUND_TRIPS * rtt as f64 + 1.2 * zero;
                        (
                            format!(
                                "≤ {REMEMBERED_ROUND_TRIPS:.0} RT + 1.2 × no fault at 0 ms = \
                                 {bound:.0} ms"
                            ),
                            Some(verify.is_some_and(|v| v <= bound)),
                        )
                    }
                    None => ("—".to_owned(), None),
                },
            };
            let result = match met {
                None => "—",
                Some(true) => "PASS",
                Some(false) => "**MISS**",
            };
            let _ = writeln!(
                out,
                "| {} | {rtt} ms | {} | {} | {target} | {result} |",
                case.title(),
                cell_text(&cell.verify, zero_verify, rtt, case.wait_ms(Client::Verify)),
                cell_text(&cell.curl, zero_curl, rtt, case.wait_ms(Client::Curl)),
            );
        }
    }
    out
}

fn yes(on: bool) -> &'static str {
    if on {
        "yes"
    } else {
        "no"
    }
}

/// The median time of `ip netns exec NS true` in a slot: the lab's own part of a start.
fn netns_exec_ms(slot: &Slot) -> f64 {
    let samples: Vec<f64> = (0..9)
        .map(|_| {
            let began = Instant::now();
            let status = Command::new("ip")
                .args(["netns", "exec", &slot.ns, "true"])
                .status()
                .expect("ip netns exec");
            assert!(status.success());
            began.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    median(&samples)
}

/// The cases of `VERIFY_LAB_CASES` (every case when unset), the no-fault one always.
fn selected_cases() -> Vec<Case> {
    let keys = std::env::var("VERIFY_LAB_CASES").unwrap_or_default();
    if keys.trim().is_empty() {
        return CASES.to_vec();
    }
    let keys: Vec<&str> = keys.split(',').map(str::trim).collect();
    for key in &keys {
        assert!(
            CASES.iter().any(|case| case.key() == *key),
            "VERIFY_LAB_CASES: no case {key:?} (cases: {})",
            CASES.map(Case::key).join(", ")
        );
    }
    CASES
        .into_iter()
        .filter(|case| *case == Case::NoFault || keys.contains(&case.key()))
        .collect()
}

#[test]
fn figures() {
    let runs: usize = std::env::var("VERIFY_LAB_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(1);
    let lab = lab();
    lab.sandbox();
    lab.programs().curl();
    let exec_ms = netns_exec_ms(&lab.slot());
    let cases = selected_cases();
    // At 0 ms round trip a start is a few milliseconds of CPU, so those cells run one after
    // the other on a machine that does nothing else of ours; libcurl's start against the
    // black-holed primary (its 10 s connect timeout, idle) waits for the second part. There,
    // the cells at 50 and 200 ms run in parallel, each in a slot of its own (most of their
    // time is waiting, and a millisecond of CPU more or less is lost in their round trips).
    let mut cells: Vec<Cell> = cases
        .iter()
        .map(|&case| {
            let clients: &[Client] = if case == Case::PrimaryBlackHoled {
                &[Client::Verify]
            } else {
                clients_of(case)
            };
            measure_cell(case, 0, runs, clients)
        })
        .collect();
    let later: Vec<Cell> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        if cases.contains(&Case::PrimaryBlackHoled) {
            handles
                .push(scope.spawn(move || {
                    measure_cell(Case::PrimaryBlackHoled, 0, runs, &[Client::Curl])
                }));
        }
        handles.extend(
            cases
                .iter()
                .flat_map(|&case| RTTS.iter().map(move |&rtt| (case, rtt)))
                .filter(|&(_, rtt)| rtt > 0)
                .map(|(case, rtt)| {
                    scope.spawn(move || measure_cell(case, rtt, runs, clients_of(case)))
                }),
        );
        handles
            .into_iter()
            .map(|h| h.join().expect("a cell's thread"))
            .collect()
    });
    for cell in later {
        match cells
            .iter_mut()
            .find(|c| c.case == cell.case && c.rtt_ms == cell.rtt_ms)
        {
            Some(first) => first.curl.extend(cell.curl),
            None => cells.push(cell),
        }
    }
    let table = table(&cells, runs, exec_ms);
    println!("{table}");
    if let Ok(path) = std::env::var("VERIFY_LAB_FIGURES") {
        std::fs::write(&path, &table).unwrap_or_else(|e| panic!("write {path}: {e}"));
    }
    let mut failures = Vec::new();
    for cell in &cells {
        for (client, starts) in [("verify", &cell.verify), ("libcurl", &cell.curl)] {
            for start in starts.iter().filter(|s| s.code != 200) {
                // The remembered winner needs the library's state folder:
                // the racing tests fail for it; here it is only a cell of the table.
                if cell.case.remembers() && start.code == i32::MIN {
                    continue;
                }
                failures.push(format!(
                    "{client}, {} at {} ms: code {}\n{}{}",
                    cell.case.title(),
                    cell.rtt_ms,
                    start.code,
                    start.stdout,
                    start.stderr
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "starts that did not log in:\n{}",
        failures.join("\n")
    );
}
