//! The keeper, the cancellable social wait, the machine code, the `Task` wrappers and the
//! SafeHandle types through the C# binding: `bindings/csharp/src/` is compiled with Mono's
//! `mcs` (warnings as errors) together with a host program of `tests/csharp/` and run with
//! `mono` against the freshly built `libverify.so` and this binary's in-process sandbox.
//!
//! `CsharpKeeper.cs` mirrors the C ABI keeper tests: keeper events reach a C# handler (Alive, a
//! back-office message, the end by a ban with its reason), a handler that throws does not take
//! the process down, `Dispose` from inside the handler, the polled typed status, disposing the
//! client while a heartbeat is in flight, the social wait (cancelled from another thread within
//! 100 ms, timed out, completed, refused), `Library.MachineCode` equal to
//! `verify_core::machine_code`, a keeper keeping its forgotten client from being collected.
//! `CsharpAsync.cs` checks the `...Async` wrappers (off the caller's thread, cancelled before
//! the start without sending anything, run to their end when cancelled later, a social wait
//! cancelled through a `CancellationToken` within a deadline) and every handle type created,
//! shared and disposed on its own.
//!
//! Needs `mcs` and `mono` on PATH: `scripts/install-deps.sh mono` installs them.

#[path = "../common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;
use verify_sandbox::{Config, Fault, FaultKind, Sandbox};

use common::host::{compile_csharp, host_command, library_dir, root};
use common::{eventually, unique, Program, APP_KEY};

/// How long any one step may take.
const PATIENCE: Duration = Duration::from_secs(60);

/// Compiles the C# binding (`bindings/csharp/src/`, as its assembly) with `tests/csharp/<name>.cs` (`mcs -warnaserror`)
/// once per test binary; returns the `.exe`. The output lives next to the library under test
/// (a build product, rewritten every run).
fn host_exe(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(exe) = built.get(name) {
        return exe.clone();
    }
    let dir = library_dir()
        .parent()
        .expect("target/<profile>")
        .join("csharp-hosts");
    std::fs::create_dir_all(&dir).expect("create the C# build directory");
    let exe = dir.join(format!("{name}.exe"));
    compile_csharp(
        &[
            PathBuf::from("bindings/csharp/src"),
            PathBuf::from(format!("tests/csharp/{name}.cs")),
        ],
        &exe,
    );
    built.insert(name.to_owned(), exe.clone());
    exe
}

/// A running `mono <host>.exe ...` whose output lines are collected on threads.
struct Mono {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
    /// The threads reading stdout and stderr; they end at the pipes' end of file.
    readers: Vec<JoinHandle<()>>,
}

impl Mono {
    /// `mono tests/csharp/CsharpKeeper.cs's exe args...`.
    fn spawn(args: &[&str]) -> Mono {
        Mono::spawn_host("CsharpKeeper", args)
    }

    fn spawn_host(host: &str, args: &[&str]) -> Mono {
        let exe = host_exe(host);
        let mut child = host_command("mono")
            .arg("--debug") // line numbers in stack traces
            .arg(&exe)
            .args(args)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run mono");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stdout = child.stdout.take().expect("piped stdout");
        let sink = Arc::clone(&lines);
        let out_reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(line) => sink.lock().unwrap().push(line),
                    Err(_) => break,
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().expect("piped stderr");
        let sink = Arc::clone(&stderr);
        let err_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = err.read_to_end(&mut bytes);
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&bytes));
        });
        let stdin = child.stdin.take();
        Mono {
            child,
            stdin,
            lines,
            stderr,
            readers: vec![out_reader, err_reader],
        }
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// The first line starting with `prefix`, waiting for it up to [`PATIENCE`].
    fn wait_line(&self, prefix: &str) -> String {
        let mut found = None;
        eventually(PATIENCE, || {
            found = self
                .lines()
                .into_iter()
                .find(|line| line.starts_with(prefix));
            found.is_some()
        });
        found.unwrap_or_else(|| panic!("no `{prefix}` line within {PATIENCE:?}\n{}", self.report()))
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{line}").expect("write to mono");
        stdin.flush().expect("flush mono's stdin");
    }

    fn report(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.lines().join("\n"),
            self.stderr.lock().unwrap()
        )
    }

    /// Waits (deadline polling) for the process to exit; kills it when it does not.
    fn finish(&mut self) -> (ExitStatus, Vec<String>, String) {
        let deadline = Instant::now() + PATIENCE + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("mono did not exit in time\n{}", self.report());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Mono has exited and closed its pipes: the readers end once they read everything.
        self.stdin = None;
        for reader in self.readers.drain(..) {
            reader.join().expect("a pipe reader panicked");
        }
        (status, self.lines(), self.report())
    }
}

impl Drop for Mono {
    fn drop(&mut self) {
        // Only this test's own child, if an assertion left it running.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Asserts a clean exit 0 with every check held.
fn assert_passed(status: ExitStatus, lines: &[String], report: &str) {
    assert!(status.success(), "mono exited with {status}\n{report}");
    assert!(
        lines.iter().any(|l| l == "CHECKS PASSED"),
        "not every check held\n{report}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("FAIL ")),
        "a check failed\n{report}"
    );
    assert!(
        !report.contains("Unhandled Exception"),
        "an exception escaped\n{report}"
    );
}

/// How many `UserLogin` requests (social start and poll included) of the program reached the
/// sandbox.
fn logins(program: &Program) -> usize {
    program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|e| e.action.as_deref() == Some("UserLogin"))
        .count()
}

/// Waits until a `UserLogin` (a social poll) reached the sandbox after the program's last
/// `GetBulletin`, the marker a host program sends right before it starts a wait.
fn wait_for_poll_after_marker(program: &Program, mono: &Mono) {
    let polled = eventually(PATIENCE, || {
        let log = program.sandbox.request_log(Some(&program.app_id));
        let marker = log
            .iter()
            .filter(|e| e.action.as_deref() == Some("GetBulletin"))
            .map(|e| e.seq)
            .max();
        marker.is_some_and(|seq| {
            log.iter()
                .any(|e| e.seq > seq && e.action.as_deref() == Some("UserLogin"))
        })
    });
    assert!(
        polled,
        "the wait's first poll did not come\n{}",
        mono.report()
    );
}

/// A fresh program with one active account; returns it with the account's name.
fn program_with_account() -> (Program<'static>, String) {
    let program = Program::fresh();
    let user = unique("csk");
    program.account(&user, "pw");
    (program, user)
}

#[test]
fn csharp_keeper_reports_alive_message_and_ban() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["keeper", &url, &program.app_id, APP_KEY, &user, "pw"]);

    let alive = mono.wait_line("event Alive");
    assert_eq!(alive, "event Alive 200 ", "{}", mono.report());

    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "公告 for C#")
        .expect("message");
    let message = mono.wait_line("event Message");
    assert_eq!(
        message,
        "event Message 200 公告 for C#",
        "{}",
        mono.report()
    );

    program
        .sandbox
        .update_account(&program.app_id, &user, "ban", Some("封禁 reason"))
        .expect("ban");
    let ended = mono.wait_line("event Ended");
    assert_eq!(ended, "event Ended 1006 封禁 reason", "{}", mono.report());

    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("event Message"))
            .count(),
        1,
        "the message is delivered once\n{report}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("event Ended"))
            .count(),
        1,
        "one end\n{report}"
    );
    assert!(
        lines.iter().any(|l| l == "state Ended"),
        "State after the end\n{report}"
    );
    assert!(
        lines.iter().any(|l| l == "status Ended 1006 封禁 reason"),
        "Status after the end\n{report}"
    );
}

#[test]
fn csharp_keeper_survives_a_throwing_handler() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["throwing", &url, &program.app_id, APP_KEY, &user, "pw"]);
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    // Every handler call threw; the events after each throw still arrived, and none after
    // the Dispose made from inside the third.
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("event Alive 200"))
            .count(),
        3,
        "{report}"
    );
    assert!(lines.iter().any(|l| l == "survived 3"), "{report}");
}

#[test]
fn csharp_keeper_status_is_polled() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["status", &url, &program.app_id, APP_KEY, &user, "pw"]);
    mono.wait_line("started");
    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "poll me")
        .expect("message");
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    assert!(
        lines.iter().any(|l| l == "messages 1 poll me"),
        "the queued message, once\n{report}"
    );
}

#[test]
fn csharp_disposing_the_client_stops_its_keeper_mid_heartbeat() {
    let (program, user) = program_with_account();
    program.sandbox.set_fault(Fault {
        kind: FaultKind::Delay,
        app_id: Some(program.app_id.clone()),
        action: Some("UserHeartbeat".into()),
        count: None,
        delay_ms: 10_000,
    });
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&["freeclient", &url, &program.app_id, APP_KEY, &user, "pw"]);
    mono.wait_line("started");
    assert!(
        eventually(PATIENCE, || program
            .sandbox
            .request_log(Some(&program.app_id))
            .iter()
            .any(|e| e.action.as_deref() == Some("UserHeartbeat"))),
        "no heartbeat reached the sandbox\n{}",
        mono.report()
    );
    mono.send("go");
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    let ms: u64 = lines
        .iter()
        .find_map(|l| l.strip_prefix("client-dispose-ms "))
        .and_then(|ms| ms.trim().parse().ok())
        .unwrap_or_else(|| panic!("no client-dispose-ms line\n{report}"));
    eprintln!("C#: client Dispose with a heartbeat in flight took {ms} ms");
    assert!(
        ms < 100,
        "disposing the client took {ms} ms with a heartbeat in flight\n{report}"
    );
}

#[test]
fn csharp_social_wait_is_cancellable_and_completes() {
    let program = Program::fresh();
    let user = unique("cssoc");
    let identity = format!("openid-{user}");
    program.accounts(json!([{"username": user, "password": "pw",
        "expire_at": "2099-01-01 00:00:00", "status": "active", "social_id": identity}]));
    let url = program.sandbox.base_url();
    let mono = Mono::spawn(&["social", &url, &program.app_id, APP_KEY]);

    // The wait is cancelled once its first poll reached the sandbox.
    let mut mono = mono;
    mono.wait_line("waiting-cancel");
    wait_for_poll_after_marker(&program, &mono);
    mono.send("cancel");

    let line = mono.wait_line("waiting-bound ");
    let state = line.trim_start_matches("waiting-bound ").to_owned();
    // Let the wait poll (pending) twice before the back office completes it.
    let polls = logins(&program);
    assert!(
        eventually(PATIENCE, || logins(&program) >= polls + 2),
        "the wait does not poll\n{}",
        mono.report()
    );
    program
        .sandbox
        .authorize_social(&state, &identity, "C# 用户")
        .expect("authorize");
    let line = mono.wait_line("waiting-unbound ");
    let state = line.trim_start_matches("waiting-unbound ").to_owned();
    program
        .sandbox
        .authorize_social(&state, "openid-nobody", "nobody")
        .expect("authorize an unbound identity");

    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    let line = |prefix: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line\n{report}"))
            .clone()
    };
    assert!(
        line("precancelled ").starts_with("precancelled -7 "),
        "{report}"
    );
    assert!(line("timeout ").starts_with("timeout -4 "), "{report}");
    let cancelled = line("cancelled ");
    let mut fields = cancelled.split(' ').skip(1);
    assert_eq!(fields.next(), Some("-7"), "cancelled with -7\n{report}");
    let ms: u64 = fields
        .next()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no duration in `{cancelled}`\n{report}"));
    eprintln!("C#: SocialLoginWait returned {ms} ms after Cancel");
    assert!(ms < 100, "the wait returned {ms} ms after Cancel\n{report}");
    assert_eq!(
        line("social-bound "),
        format!("social-bound 200 {user} C# 用户"),
        "{report}"
    );
    assert!(
        line("social-unbound ").starts_with("social-unbound 1016 "),
        "{report}"
    );
}

#[test]
fn csharp_machine_code_and_argument_checks() {
    let program = Program::fresh();
    program.account("misc-user", "misc-pass");
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn(&[
        "misc",
        &url,
        &program.app_id,
        APP_KEY,
        "misc-user",
        "misc-pass",
    ]);
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    let expected = format!(
        "machine {}",
        verify_core::machine_code("x").expect("machine code")
    );
    assert!(
        lines.contains(&expected),
        "`{expected}` from Library.MachineCode(\"x\")\n{report}"
    );
    // Machine code v2 as the core issues it for a fresh folder, and the same indication.
    let fresh = common::host::Scratch::new();
    let core = verify_core::machine_check("x", &verify_core::StateFolder::Path(fresh.0.clone()))
        .expect("machine code v2 in Rust");
    let expected = format!("machine-v2 {}", core.code);
    assert!(lines.contains(&expected), "`{expected}`\n{report}");
    let looks = verify_core::machine_virtualization().looks_virtual();
    let expected = format!("virtual {}", i32::from(looks));
    assert!(lines.contains(&expected), "`{expected}`\n{report}");
}

#[test]
fn csharp_async_wrappers_run_off_the_callers_thread_and_cancel() {
    let program = Program::fresh();
    for (action, delay_ms) in [("GetBulletin", 1500), ("GetLatestVersion", 1000)] {
        program.sandbox.set_fault(Fault {
            kind: FaultKind::Delay,
            app_id: Some(program.app_id.clone()),
            action: Some(action.into()),
            count: Some(1),
            delay_ms,
        });
    }
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn_host("CsharpAsync", &["async", &url, &program.app_id, APP_KEY]);
    mono.wait_line("waiting-async");
    wait_for_poll_after_marker(&program, &mono);
    mono.send("cancel");
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);

    let value = |prefix: &str| -> String {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line\n{report}"))
            .to_owned()
    };
    // The call returned at once although the sandbox held the reply back 1.5 s.
    let returned: u64 = value("async-returned-ms ").parse().expect("ms");
    assert!(
        returned < 500,
        "GetBulletinAsync blocked {returned} ms\n{report}"
    );
    let bulletin = value("async-bulletin ");
    assert!(
        bulletin.starts_with("200 公告 bulletin "),
        "the task's reply: `{bulletin}`\n{report}"
    );
    let done_ms: u64 = bulletin
        .rsplit(' ')
        .next()
        .and_then(|ms| ms.parse().ok())
        .expect("ms");
    assert!(
        done_ms >= 1400,
        "the reply came after the sandbox's delay: {done_ms} ms\n{report}"
    );
    // Cancelled through the CancellationToken while the wait slept between polls.
    let cancelled = value("async-cancelled ");
    let mut fields = cancelled.split(' ');
    assert_eq!(fields.next(), Some("Canceled"), "{report}");
    let ms: u64 = fields.next().and_then(|ms| ms.parse().ok()).expect("ms");
    eprintln!(
        "C#: SocialLoginWaitAsync was cancelled {ms} ms after CancellationTokenSource.Cancel"
    );
    assert!(ms < 250, "the cancelled wait took {ms} ms\n{report}");
    // A task cancelled before it started sent nothing.
    let log = program.sandbox.request_log(Some(&program.app_id));
    assert!(
        !log.iter()
            .any(|e| e.action.as_deref() == Some("GetCardInfo")),
        "a cancelled GetCardInfoAsync reached the server\n{report}"
    );
}

#[test]
fn csharp_handles_work_on_their_own() {
    let (program, user) = program_with_account();
    let url = program.sandbox.base_url();
    let mut mono = Mono::spawn_host(
        "CsharpAsync",
        &["handles", &url, &program.app_id, APP_KEY, &user, "pw"],
    );
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    assert!(
        lines.iter().filter(|l| l.starts_with("ok   ")).count() >= 15,
        "every check ran\n{report}"
    );
}

#[test]
fn csharp_keeper_reports_the_expiry_when_the_sandbox_clock_moves() {
    // A sandbox of its own: moving its clock must not disturb the other tests.
    let sandbox = Sandbox::start(Config::default()).expect("start a sandbox");
    let program = Program::new(&sandbox, json!({}));
    let card = program.day_card(&unique("CS-EXPIRY-"), 1);
    let url = sandbox.base_url();
    let mut mono = Mono::spawn(&["expiry", &url, &program.app_id, APP_KEY, &card]);
    let alive = mono.wait_line("event Alive");
    assert_eq!(alive, "event Alive 200 ", "{}", mono.report());
    // Two days later the one-day card has expired: the next heartbeat ends the session.
    sandbox.shift_clock(2 * 86_400);
    let ended = mono.wait_line("event Ended");
    assert!(
        ended.starts_with("event Ended 1005"),
        "`{ended}`\n{}",
        mono.report()
    );
    let (status, lines, report) = mono.finish();
    assert_passed(status, &lines, &report);
    assert!(
        lines.iter().any(|l| l == "status Ended 1005"),
        "the status after the end\n{report}"
    );
    sandbox.stop();
}
