//! A host's process around the library (`tests/c/c_lifecycle.c`): fork and exit.
//!
//! - Fork: a client with a kept-alive connection and a running keeper forks; parent and
//!   child each make 1,000 calls at once. Every reply is the one asked for, the two
//!   processes share no connection (the sandbox numbers each TCP connection it accepts), the
//!   child's keeper reads ENDED (it says the process forked), stopping and freeing it in the
//!   child returns cleanly, and the parent's keeper goes on. Nothing is printed on stderr.
//! - Exit: a process that ends with a running keeper, a login going on in the background
//!   after its start budget, or a name lookup that never answers, ends at once: status 0,
//!   nothing on stderr, within [`PROMPT`] of its last line. From C (returning from main, or
//!   exit() on another thread), C++ (a static keeper and client destroyed after main
//!   returns, `tests/cpp/cpp_lifecycle.cpp`), Python (ctypes; the interpreter's shutdown,
//!   `tests/python/py_lifecycle.py`) and C# on Mono (a keeper with a managed event handler,
//!   never disposed, `tests/csharp/CsharpLifecycle.cs`).
//!
//! - Unload: 100 cycles of dlopen, a call whose lookup outlives it, and dlclose never crash:
//!   glibc keeps the library mapped while threads that ran its code live.
//!
//! Needs `cc`, `c++`, `python3`, `mcs` and `mono` on PATH (`scripts/install-deps.sh gcc
//! mono python3`); the lookup cases need root, `unshare` and `ip` (a mount and network
//! namespace whose name server never answers).

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::host::{
    build_host, compile_csharp, compile_cxx, host_command, run_host, Run, Scratch, C_POSIX_FLAGS,
};
use common::{Program, APP_KEY};
use serde_json::json;
use verify_sandbox::{Fault, FaultKind};

/// How long a process may take to end once it printed its last line ("ending"): the exit
/// itself, with no wait for the work in flight (a keeper's next beat is 1 s away, a held
/// login 20 s, a lookup 30 s).
const PROMPT: Duration = Duration::from_secs(3);

#[test]
fn parent_and_child_each_make_a_thousand_calls_after_a_fork_on_connections_of_their_own() {
    let program = Program::new(
        common::sandbox(),
        json!({"variables": {"role": "the child's variable"}}),
    );
    let card = program.day_card(&common::unique("FORK-"), 30);
    let scratch = Scratch::new();
    let host = build_host("c_lifecycle", &scratch, C_POSIX_FLAGS);
    let args = [
        "fork".to_owned(),
        program.sandbox.base_url(),
        program.app_id.clone(),
        APP_KEY.to_owned(),
        card,
    ];
    let output = run_host(&host, &args, Run::Native, |line| {
        assert!(!line.starts_with("@@ "), "unexpected request `{line}`");
        None
    });
    output.assert_passed(Run::Native);
    assert!(
        output.stdout.contains("RESULT: fork child: ") && !output.stdout.contains("FAIL"),
        "{}",
        output.report()
    );
    assert_eq!(output.stderr, "", "nothing on stderr\n{}", output.report());

    let log = program.sandbox.request_log(Some(&program.app_id));
    let connections = |action: &str| -> BTreeSet<u64> {
        log.iter()
            .filter(|e| e.action.as_deref() == Some(action))
            .map(|e| e.conn)
            .collect()
    };
    let count = |action: &str| {
        log.iter()
            .filter(|e| e.action.as_deref() == Some(action) && e.code == 200)
            .count()
    };
    // 1 before the fork, 1,000 after it, 1 after the child ended: all the parent's.
    assert_eq!(
        count("GetBulletin"),
        1002,
        "the parent's calls, each answered once"
    );
    assert_eq!(
        count("GetVariable"),
        1000,
        "the child's calls, each answered once"
    );
    let child = connections("GetVariable");
    let mut parent = connections("GetBulletin");
    parent.extend(connections("UserHeartbeat"));
    let shared: Vec<_> = child.intersection(&parent).collect();
    assert!(
        shared.is_empty(),
        "connections used by both processes: {shared:?} (child {child:?}, parent {parent:?})"
    );
    // The child's first connection was made after every one the parent had when it forked.
    let before_fork = log
        .iter()
        .filter(|e| e.action.as_deref() == Some("SingleLogin"))
        .map(|e| e.conn)
        .max()
        .expect("the login before the fork");
    assert!(child.iter().all(|conn| *conn > before_fork), "{child:?}");
}

/// What a host printed before it ended, and how it ended.
struct Ended {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
    /// From its "ending" line to its end.
    took: Duration,
}

/// Runs `command`, answering its `@@` lines with `on_line`; kills it and fails when it has
/// not ended [`PROMPT`] after printing "ending" (or 60 s after its start).
fn run_to_the_end(mut command: Command, mut on_line: impl FnMut(&str) -> String) -> Ended {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let (lines, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let mut ending: Option<Instant> = None;
    let mut seen = String::new();
    let deadline = |ending: Option<Instant>| {
        ending.map_or(started + Duration::from_secs(60), |at| at + PROMPT)
    };
    loop {
        let left = deadline(ending).saturating_duration_since(Instant::now());
        match receive.recv_timeout(left) {
            Ok(line) => {
                seen.push_str(&line);
                seen.push('\n');
                if line == "ending" {
                    ending = Some(Instant::now());
                } else if let Some(request) = line.strip_prefix("@@ ") {
                    let answer = on_line(request);
                    let _ = writeln!(stdin, "{answer}").and_then(|()| stdin.flush());
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the host did not end in time (a hang)\n{seen}");
            }
        }
    }
    // Its output is closed: the process has ended or is ending.
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the host") {
            break status;
        }
        if Instant::now() > deadline(ending) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the host did not end in time after closing its output (a hang)\n{seen}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = ending.map_or(Duration::MAX, |at| at.elapsed());
    Ended {
        status,
        stdout: seen,
        stderr: stderr.join().unwrap_or_default(),
        took,
    }
}

/// The program that ends with work in flight.
enum Host {
    /// `c_lifecycle exit WORK HOW ...`: HOW is "return" or "exit" (on another thread).
    C(&'static str),
    /// `cpp_lifecycle ...`: a static keeper and client, destroyed after main returns.
    Cpp,
    /// `python3 py_lifecycle.py WORK HOW ...`: HOW is "return" or "exit" (sys.exit).
    Python(&'static str),
    /// `mono CsharpLifecycle.exe ...`: a keeper with a managed event handler, never disposed.
    Csharp,
}

/// Runs `host` with `work` in flight when it ends; checks that it ended cleanly and at once.
fn ends_promptly(host: Host, work: &str) {
    let program = Program::fresh();
    let card = program.day_card(&common::unique("EXIT-"), 30);
    let scratch = Scratch::new();
    let state = scratch.0.join("state");
    let base_url = if work == "lookup" {
        "https://never-answers.verify.test".to_owned()
    } else {
        program.sandbox.base_url()
    };
    let common = [
        base_url,
        program.app_id.clone(),
        APP_KEY.to_owned(),
        card,
        state.display().to_string(),
    ];
    let (executable, args): (std::path::PathBuf, Vec<String>) = match host {
        Host::C(how) => {
            let mut args = vec!["exit".to_owned(), work.to_owned(), how.to_owned()];
            args.extend(common);
            (build_host("c_lifecycle", &scratch, C_POSIX_FLAGS), args)
        }
        Host::Cpp => {
            let binary = scratch.0.join("cpp_lifecycle");
            compile_cxx(
                &common::host::root().join("tests/cpp/cpp_lifecycle.cpp"),
                &binary,
                &["-pthread"],
            );
            (binary, common[..4].to_vec())
        }
        Host::Csharp => {
            let exe = scratch.0.join("CsharpLifecycle.exe");
            compile_csharp(
                &[
                    common::host::CSHARP_BINDING.into(),
                    "tests/csharp/CsharpLifecycle.cs".into(),
                ],
                &exe,
            );
            let mut args = vec![exe.display().to_string()];
            args.extend(common[..4].iter().cloned());
            ("mono".into(), args)
        }
        Host::Python(how) => {
            let script = common::host::root().join("tests/python/py_lifecycle.py");
            let mut args = vec![
                script.display().to_string(),
                work.to_owned(),
                how.to_owned(),
            ];
            args.extend(common);
            ("python3".into(), args)
        }
    };
    let command = if work == "lookup" {
        // Namespaces of its own: a loopback network, and a resolv.conf naming 127.0.0.1,
        // where the host's name server reads queries and never answers.
        let resolv = scratch.0.join("resolv.conf");
        std::fs::write(
            &resolv,
            "nameserver 127.0.0.1\noptions timeout:30 attempts:1\n",
        )
        .expect("resolv.conf");
        let mut command = host_command("unshare");
        command
            .args(["--mount", "--net", "--", "sh", "-c"])
            .arg("ip link set lo up && mount --bind \"$0\" /etc/resolv.conf && exec \"$@\"")
            .arg(&resolv)
            .arg(&executable)
            .args(&args);
        command
    } else {
        let mut command = host_command(&executable);
        command.args(&args);
        command
    };
    let ended = run_to_the_end(command, |request| {
        assert_eq!(request, "slow", "unexpected request");
        program.sandbox.set_fault(Fault {
            kind: FaultKind::Delay,
            app_id: Some(program.app_id.clone()),
            action: Some("SingleLogin".into()),
            count: None,
            delay_ms: 20_000,
        });
        "go".to_owned()
    });
    let report = format!(
        "--- stdout ---\n{}--- stderr ---\n{}",
        ended.stdout, ended.stderr
    );
    assert!(
        ended.stdout.contains("RESULT: exit: ") && !ended.stdout.contains("FAIL"),
        "{report}"
    );
    assert!(ended.status.success(), "{:?}\n{report}", ended.status);
    assert_eq!(ended.stderr, "", "nothing on stderr\n{report}");
    assert!(
        ended.took < PROMPT,
        "ended {:?} after its last line\n{report}",
        ended.took
    );
}

#[test]
fn returning_from_main_with_a_running_keeper_ends_at_once() {
    ends_promptly(Host::C("return"), "keeper");
}

#[test]
fn exit_on_another_thread_with_a_running_keeper_ends_at_once() {
    ends_promptly(Host::C("exit"), "keeper");
}

#[test]
fn returning_from_main_with_a_login_in_the_background_ends_at_once() {
    ends_promptly(Host::C("return"), "budget");
}

#[test]
fn exit_with_a_login_in_the_background_ends_at_once() {
    ends_promptly(Host::C("exit"), "budget");
}

#[test]
fn returning_from_main_with_a_lookup_in_flight_ends_at_once() {
    ends_promptly(Host::C("return"), "lookup");
}

#[test]
fn exit_with_a_lookup_in_flight_ends_at_once() {
    ends_promptly(Host::C("exit"), "lookup");
}

#[test]
fn cpp_static_destructors_free_a_running_keeper_and_its_client_at_exit() {
    ends_promptly(Host::Cpp, "keeper");
}

#[test]
fn python_interpreter_shutdown_with_a_running_keeper() {
    ends_promptly(Host::Python("return"), "keeper");
}

#[test]
fn python_sys_exit_with_a_login_in_the_background() {
    ends_promptly(Host::Python("exit"), "budget");
}

#[test]
fn python_interpreter_shutdown_with_a_lookup_in_flight() {
    ends_promptly(Host::Python("return"), "lookup");
}

#[test]
fn mono_ends_with_a_running_keeper_and_a_managed_event_handler() {
    ends_promptly(Host::Csharp, "keeper");
}

#[test]
fn dlclose_right_after_calls_with_lookups_in_flight_never_crashes() {
    // tests/c/c_unload.c, in namespaces where its own name server never answers: 100
    // cycles of dlopen, a call whose lookup outlives it, and dlclose; then the lookups end.
    let scratch = Scratch::new();
    let host = build_host(
        "c_unload",
        &scratch,
        &["-D_POSIX_C_SOURCE=200809L", "-Wl,--as-needed"],
    );
    let resolv = scratch.0.join("resolv.conf");
    std::fs::write(
        &resolv,
        "nameserver 127.0.0.1\noptions timeout:2 attempts:1\n",
    )
    .expect("resolv.conf");
    let mut command = host_command("unshare");
    command
        .args(["--mount", "--net", "--", "sh", "-c"])
        .arg("ip link set lo up && mount --bind \"$0\" /etc/resolv.conf && exec \"$@\"")
        .arg(&resolv)
        .arg(&host)
        .arg("100");
    let ended = run_to_the_end(command, |request| panic!("unexpected request {request}"));
    let report = format!(
        "--- stdout ---\n{}--- stderr ---\n{}",
        ended.stdout, ended.stderr
    );
    assert!(ended.status.success(), "{:?}\n{report}", ended.status);
    assert!(
        ended.stdout.contains("RESULT: unload: ") && !ended.stdout.contains("FAIL"),
        "{report}"
    );
    // The program never linked the library, yet glibc keeps it mapped after dlclose while
    // threads that ran its code (with thread-local destructors registered in it) live.
    assert!(
        ended.stdout.contains("right after the last dlclose: ")
            && ended.stdout.contains(" threads, library mapped;"),
        "{report}"
    );
    assert_eq!(ended.stderr, "", "{report}");
}
