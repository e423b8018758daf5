//! A cancel stops any call within 50 ms, on the lab's real networks, from C
//! (`tests/c/c_cancel.c`), C++ (`tests/cpp/cpp_cancel.cpp`, a `std::stop_token`), C#
//! (`tests/csharp/CsharpCancel.cs`, an `...Async` method's `CancellationToken`) and Python
//! (`tests/python/python_cancel.py`, the asyncio task of an `AsyncClient` call cancelled; the
//! package from `bindings/python/src` over this build's library): each program
//! starts a call (a lazy Init, then GetBulletin, over https) and another of its threads cancels
//! it 500 ms later, while the call is
//!
//! - connecting to a black-holed address (SYNs dropped: the connect would run out its 10 s);
//! - waiting for a name server that answers after 5 s;
//! - in a TLS handshake the server never answers (the lab's mute port, 9: TCP accepted, not a
//!   word back);
//! - waiting for a reply the server holds back 30 s (the sandbox's `delay` fault).
//!
//! Each returns `VERIFY_ERR_CANCELLED` (C# and Python a cancelled task with it inside) within
//! 50 ms of the cancel, as the program measures it; nothing of the call is left running.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use serde_json::json;

use crate::common::cancel::{cancelled_line, PROMPT_MS};
use crate::common::host::{
    compile_c, compile_csharp, compile_cxx, library_dir, require_tool, root, CXX_STRICT_FLAGS,
};
use crate::lab::{busy, lab, Slot};

/// When the programs cancel, after the call started: well inside each phase.
const AFTER_MS: &str = "500";

/// The name server's delay in the slow case.
const SLOW_DNS_MS: u64 = 5000;

/// The lab's port where TCP is accepted and nothing is ever said (netlab/services.py).
const MUTE_PORT: u16 = 9;

/// Where the call is when it is cancelled.
#[derive(Clone, Copy, Debug)]
enum Phase {
    BlackHoled,
    SlowNameServer,
    StalledTls,
    NeverAnswers,
}

/// The cancelling programs, built once into the lab's folder.
struct Hosts {
    c: PathBuf,
    cpp: PathBuf,
    csharp: PathBuf,
}

fn hosts() -> &'static Hosts {
    static HOSTS: OnceLock<Hosts> = OnceLock::new();
    HOSTS.get_or_init(|| {
        let bin = lab().dir.join("cancel");
        std::fs::create_dir_all(&bin).expect("the cancel programs' folder");
        let c = bin.join("c_cancel");
        compile_c(
            &root().join("tests/c/c_cancel.c"),
            &c,
            crate::common::host::C_POSIX_FLAGS,
        );
        let cpp = bin.join("cpp_cancel");
        let mut flags = CXX_STRICT_FLAGS.to_vec();
        flags.extend(["-pthread", "-std=c++20"]);
        compile_cxx(&root().join("tests/cpp/cpp_cancel.cpp"), &cpp, &flags);
        let csharp = bin.join("CsharpCancel.exe");
        compile_csharp(
            &[
                PathBuf::from("bindings/csharp/src"),
                PathBuf::from("tests/csharp/CsharpCancel.cs"),
            ],
            &csharp,
        );
        Hosts { c, cpp, csharp }
    })
}

/// Sets `slot` up for `phase`; the URL to call and the program's id.
fn prepare(slot: &Slot, phase: Phase) -> (String, String) {
    let sandbox = lab().sandbox();
    let program = sandbox.program();
    let url = match phase {
        Phase::BlackHoled => {
            slot.black_hole("cancel", &slot.primary_v4);
            slot.url(&slot.primary)
        }
        Phase::SlowNameServer => {
            slot.rule(
                "cancel",
                json!({"match": {"hosts": [slot.client_v4, slot.client_v6], "port": 53},
                       "down_ms": SLOW_DNS_MS}),
            );
            slot.url(&slot.primary)
        }
        Phase::StalledTls => format!("https://{}:{MUTE_PORT}", slot.primary),
        Phase::NeverAnswers => {
            sandbox.control(
                "POST",
                "/_sandbox/faults",
                Some(&json!({"kind": "delay", "app_id": program.app_id,
                             "action": "GetBulletin", "count": 1, "delay_ms": 30_000})),
            );
            slot.url(&slot.primary)
        }
    };
    (url, program.app_id)
}

/// What the programs run and cancel.
#[derive(Clone, Copy, Debug)]
enum Call {
    /// GetBulletin (after a lazy Init).
    Bulletin,
    /// The doctor of the program's client.
    Doctor,
}

/// Runs one cancelling program in `slot` against `url`; its time from the cancel to the
/// return, in ms, and its output.
fn cancel_in(slot: &Slot, which: &str, call: Call, url: &str, app_id: &str) -> (f64, String) {
    let hosts = hosts();
    let key = crate::common::APP_KEY;
    let what = match (call, which) {
        (Call::Bulletin, _) => "bulletin",
        (Call::Doctor, "C#") => "client-doctor",
        (Call::Doctor, _) => "doctor",
    };
    let mut command = match which {
        "C" => {
            let mut command = slot.command(&hosts.c);
            command.args(["inflight", url, app_id, key, AFTER_MS, what]);
            command
        }
        "C++" => {
            let mut command = slot.command(&hosts.cpp);
            command.args(["inflight", "stop", url, app_id, key, AFTER_MS, what]);
            command
        }
        "Python" => {
            require_tool("python3", "python3");
            let mut command = slot.command(Path::new("python3"));
            command
                .arg(root().join("tests/python/python_cancel.py"))
                .args(["inflight", url, app_id, key, AFTER_MS, "bulletin"])
                .env("PYTHONPATH", root().join("bindings/python/src"))
                .env("VERIFY_LIBRARY", library_dir().join("libverify.so"));
            command
        }
        _ => {
            let mut command = slot.command(Path::new("mono"));
            command
                .arg("--debug")
                .arg(&hosts.csharp)
                .args(["inflight", url, app_id, key, AFTER_MS, what]);
            command
        }
    };
    let output = command
        .env("VERIFY_HOST_CA", &lab().sandbox().ca_file)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot start the {which} program in slot {}: {e}", slot.k));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report = format!("--- {which} stdout\n{stdout}\n--- stderr\n{stderr}");
    assert!(
        output.status.success(),
        "{which} failed ({})\n{report}",
        output.status
    );
    let (code, late, _) = cancelled_line(&stdout);
    assert_eq!(code, -7, "{which}: {report}");
    (late, report)
}

/// Every program cancels `call` in `phase` within [`PROMPT_MS`].
fn cancelled_promptly(phase: Phase, call: Call) {
    let _busy = busy();
    let mut failures = Vec::new();
    for which in ["C", "C++", "C#", "Python"] {
        let slot = lab().slot();
        let (url, app_id) = prepare(&slot, phase);
        let (late, report) = cancel_in(&slot, which, call, &url, &app_id);
        if matches!(phase, Phase::BlackHoled | Phase::SlowNameServer) {
            let counts = slot.counts("cancel");
            assert!(
                counts["matched"].as_u64().unwrap_or(0) >= 1,
                "{phase:?}: {which}'s call met the rule: {counts}"
            );
        }
        eprintln!("{phase:?}, {call:?}: {which} returned {late:.1} ms after the cancel");
        if late >= PROMPT_MS {
            failures.push(format!(
                "{phase:?}, {call:?}: {which} returned {late:.1} ms after the cancel\n{report}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_cancel_stops_a_connect_to_a_black_holed_address_within_50_ms() {
    cancelled_promptly(Phase::BlackHoled, Call::Bulletin);
}

#[test]
fn a_cancel_stops_a_wait_for_a_slow_name_server_within_50_ms() {
    cancelled_promptly(Phase::SlowNameServer, Call::Bulletin);
}

#[test]
fn a_cancel_stops_a_stalled_tls_handshake_within_50_ms() {
    cancelled_promptly(Phase::StalledTls, Call::Bulletin);
}

#[test]
fn a_cancel_stops_a_wait_for_a_reply_that_never_comes_within_50_ms() {
    cancelled_promptly(Phase::NeverAnswers, Call::Bulletin);
}

#[test]
fn a_cancel_stops_the_doctor_on_a_black_holed_line_within_50_ms() {
    cancelled_promptly(Phase::BlackHoled, Call::Doctor);
}

#[test]
fn a_cancel_stops_the_doctor_waiting_for_a_slow_name_server_within_50_ms() {
    cancelled_promptly(Phase::SlowNameServer, Call::Doctor);
}
