//! The keeper, the cancellable social wait and the machine code through the C++ binding,
//! `include/verify.hpp`: the C++ programs of `tests/cpp/` (`cpp_keeper_events.cpp`,
//! `cpp_keeper_status.cpp`, `cpp_social_wait.cpp`), compiled with the contract flags of
//! `tests/cpp/demo.rs` plus the stricter ones, run against this binary's sandbox while the
//! test plays the back office (messages, bans, social authorizations) from Rust:
//!
//! - a keeper with an `on_event` lambda reports alive, the back-office message once, and the
//!   end of the session on a ban (1006 with the reason), on its own event thread; the lambda
//!   throws on every alive event and the binding swallows that; its typed status then says
//!   ended, 1006, the reason and the heartbeat counts; bad options throw first;
//! - a keeper's session ends with 1005 when the sandbox clock (of a sandbox of its own) moves
//!   past the account's expiry: no sleeping until a date;
//! - a keeper without a callback is polled with the typed `status()`; destroying its client
//!   ends it;
//! - a social wait cancelled from another C++ thread throws `codes::err_cancelled` within
//!   100 ms of the cancel; waits end with a Reply when the back office authorizes (200) or
//!   the identity is not bound (1016); `verify::machine_code("x")` equals the Rust crate's,
//!   and so does machine code v2 (`verify::machine_check`: issued, then kept) and the VM
//!   indication.
//!
//! The scenarios mirror `tests/ffi_keeper.rs`. The compiler is `c++`, or `$CXX` when set.

#[path = "../common/mod.rs"]
mod common;

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::host::{compile_cxx, host_command, require_tool, root, CXX_STRICT_FLAGS};
use common::{eventually, unique, Program};
use serde_json::json;
use verify_sandbox::{Config, Sandbox};

/// How long any one step may take (the programs' own deadline is 20 s too).
const PATIENCE: Duration = Duration::from_secs(30);

/// Compiles the C++ program `tests/cpp/{name}.cpp` against libverify into a fresh scratch
/// directory, with the contract flags, the strict ones and `-pthread`.
fn build(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(unique(name));
    fs::create_dir_all(&dir).expect("scratch directory");
    let source = root().join("tests/cpp").join(format!("{name}.cpp"));
    let binary = dir.join(name);
    let mut extra = CXX_STRICT_FLAGS.to_vec();
    extra.push("-pthread");
    compile_cxx(&source, &binary, &extra);
    binary
}

/// Removes the scratch directory of a binary (once its test passed: a failing test leaves
/// the source and binary for inspection).
fn clean(binary: &Path) {
    if let Some(dir) = binary.parent() {
        let _ = fs::remove_dir_all(dir);
    }
}

/// A C++ program running with its stdout read line by line on a thread, so that the test
/// can wait for a line with a deadline while the program keeps running. Killed on drop if
/// it still runs (a failing test).
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
    stderr: Option<JoinHandle<String>>,
}

impl Running {
    fn spawn(binary: &Path, args: &[&str]) -> Running {
        // host_command: the library search path names only the library under test.
        let mut child = host_command(binary)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Running {
            child,
            lines,
            seen: Vec::new(),
            stderr: Some(stderr),
        }
    }

    fn transcript(&self) -> String {
        format!("--- stdout so far\n{}", self.seen.join("\n"))
    }

    /// The next line for which `wanted` holds (lines before it are kept in `seen`); panics
    /// when the program ends or PATIENCE passes first.
    fn expect(&mut self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if wanted(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} within {PATIENCE:?}\n{}", self.transcript())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().ok();
                    panic!(
                        "the program ended ({status:?}) before {what}\n{}\n--- stderr\n{}",
                        self.transcript(),
                        self.take_stderr()
                    )
                }
            }
        }
    }

    fn take_stderr(&mut self) -> String {
        self.stderr
            .take()
            .map(|handle| handle.join().unwrap_or_default())
            .unwrap_or_default()
    }

    /// Waits for the program to exit (within PATIENCE) and reads the rest of its output;
    /// returns its status and all of its stdout.
    fn finish(&mut self) -> (ExitStatus, String) {
        let mut status = None;
        let exited = eventually(PATIENCE, || {
            status = self.child.try_wait().expect("try_wait");
            status.is_some()
        });
        assert!(exited, "the program did not exit\n{}", self.transcript());
        // The reader thread ends at EOF, which follows the exit.
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("stdout not closed\n{}", self.transcript())
                }
            }
        }
        let stderr = self.take_stderr();
        let status = status.expect("exit status");
        let stdout = self.seen.join("\n");
        assert!(
            status.success(),
            "the program failed ({status})\n{}\n--- stderr\n{stderr}",
            self.transcript()
        );
        (status, stdout)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `tests/cpp/cpp_keeper_events.cpp` (through `wrapper` such as valgrind, when given) and plays
/// the back office: a message once the keeper is alive, then a ban.
fn drive_keeper_events(wrapper: &[&str]) {
    let binary = build("cpp_keeper_events");
    let program = Program::fresh();
    let user = unique("cppkeep");
    program.account(&user, "cpp-pass");
    let base = program.sandbox.base_url();
    let binary_arg = binary.to_string_lossy().into_owned();
    let mut command: Vec<&str> = wrapper.to_vec();
    command.push(&binary_arg);
    command.extend([
        base.as_str(),
        &program.app_id,
        common::APP_KEY,
        &user,
        "cpp-pass",
    ]);
    let mut run = Running::spawn(Path::new(command[0]), &command[1..]);

    run.expect("the first alive event", |line| {
        line.starts_with("event alive 200 ")
    });
    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "公告: hello C++")
        .expect("message");
    let message = run.expect("the message event", |line| {
        line.starts_with("event message ")
    });
    assert_eq!(message, "event message 200 公告: hello C++");

    program
        .sandbox
        .update_account(&program.app_id, &user, "ban", Some("封禁 by the C++ test"))
        .expect("ban");
    let ended = run.expect("the ended event", |line| line.starts_with("event ended "));
    assert_eq!(ended, "event ended 1006 封禁 by the C++ test");

    let (_, stdout) = run.finish();
    assert!(
        stdout.contains("status ended 1006 封禁 by the C++ test"),
        "{stdout}"
    );
    assert!(stdout.contains("keeper checks: 0 failed"), "{stdout}");
    assert_eq!(
        stdout.matches("event message ").count(),
        1,
        "the message comes once\n{stdout}"
    );
    assert!(!stdout.contains("event trouble"), "{stdout}");
    // The lambda threw on every alive event, the message's heartbeat included: the events
    // after those throws arrived all the same (the binding swallowed the exceptions).
    let alive = stdout.find("event alive 200 ").expect("an alive line");
    assert!(alive < stdout.find("event message ").unwrap(), "{stdout}");

    // The server saw the heartbeats, the last one refused with 1006.
    let beats: Vec<i64> = program
        .sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|e| e.action.as_deref() == Some("UserHeartbeat"))
        .map(|e| e.code)
        .collect();
    assert!(beats.contains(&200), "{beats:?}");
    assert_eq!(beats.last(), Some(&1006), "{beats:?}");
    clean(&binary);
}

#[test]
fn keeper_events_reach_a_cpp_lambda() {
    drive_keeper_events(&[]);
}

/// The same under valgrind: the on_event function is freed only after the keeper's event
/// thread is joined (no use after free, no leak of the Keeper's box or of copied events).
#[test]
fn keeper_events_are_clean_under_valgrind() {
    require_tool("valgrind", "valgrind");
    drive_keeper_events(&[
        "valgrind",
        "--quiet",
        "--leak-check=full",
        "--show-leak-kinds=definite,indirect",
        "--errors-for-leak-kinds=definite,indirect",
        "--error-exitcode=99",
    ]);
}

/// Expiry through the sandbox clock, never a sleep: once the keeper is alive, the sandbox's
/// clock moves past the account's expiry; the next heartbeat (sent after the client took the
/// server's clock from its 1014 and Date header) is refused with 1005, the lambda hears the
/// end and the typed status tells it, without a remark.
#[test]
fn keeper_ends_when_the_sandbox_clock_passes_the_expiry() {
    let binary = build("cpp_keeper_events");
    // A sandbox of its own: moving its clock must not disturb the other tests.
    let sandbox = Sandbox::start(Config::default()).expect("sandbox starts");
    let program = Program::new(&sandbox, json!({}));
    let user = unique("cppexpiry");
    program.accounts(json!([{"username": user, "password": "cpp-pass",
        "expire_at": "2090-01-01 00:00:00", "status": "active"}]));
    let base = sandbox.base_url();
    let mut run = Running::spawn(
        &binary,
        &[
            &base,
            &program.app_id,
            common::APP_KEY,
            &user,
            "cpp-pass",
            "1005",
        ],
    );
    run.expect("the first alive event", |line| {
        line.starts_with("event alive 200 2090-01-01 00:00:00")
    });
    // 2090-01-01 00:00:00 in the sandbox's Beijing time is 3786883200 Unix seconds: an hour
    // past it.
    sandbox.shift_clock(3_786_883_200 + 3600 - sandbox.now());
    let ended = run.expect("the ended event", |line| line.starts_with("event ended "));
    assert!(
        ended.starts_with("event ended 1005 "),
        "{ended}\n{}",
        run.transcript()
    );

    let (_, stdout) = run.finish();
    assert!(stdout.contains("status ended 1005 (none)"), "{stdout}");
    assert!(stdout.contains("keeper checks: 0 failed"), "{stdout}");
    assert!(!stdout.contains("event trouble"), "{stdout}");
    let beats: Vec<i64> = sandbox
        .request_log(Some(&program.app_id))
        .iter()
        .filter(|e| e.action.as_deref() == Some("UserHeartbeat"))
        .map(|e| e.code)
        .collect();
    assert!(beats.contains(&200), "{beats:?}");
    assert_eq!(beats.last(), Some(&1005), "{beats:?}");
    clean(&binary);
}

#[test]
fn keeper_status_is_polled_from_cpp() {
    let binary = build("cpp_keeper_status");
    let program = Program::fresh();
    let user = unique("cppstat");
    program.account(&user, "cpp-pass");
    // Delivered by the first heartbeat, one interval after the keeper starts.
    program
        .sandbox
        .leave_account_message(&program.app_id, &user, "poll me 轮询")
        .expect("message");
    let base = program.sandbox.base_url();
    let mut run = Running::spawn(
        &binary,
        &[&base, &program.app_id, common::APP_KEY, &user, "cpp-pass"],
    );
    let message = run.expect("the polled message", |line| {
        line.starts_with("status message ")
    });
    assert_eq!(message, "status message poll me 轮询");
    let (_, stdout) = run.finish();
    assert!(
        stdout.contains("keeper status checks: 0 failed"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("status message ").count(), 1, "{stdout}");
    clean(&binary);
}

#[test]
fn social_wait_is_cancellable_from_another_cpp_thread() {
    let binary = build("cpp_social_wait");
    let program = Program::fresh();
    let user = unique("cppsocial");
    program.accounts(json!([{"username": user, "password": "cpp-pass",
        "expire_at": "2099-01-01 00:00:00", "status": "active", "social_id": "openid-cpp"}]));
    let base = program.sandbox.base_url();
    let mut run = Running::spawn(&binary, &[&base, &program.app_id, common::APP_KEY]);

    // The same machine code as this process computes: stable across processes.
    let code = run.expect("the machine code", |line| line.starts_with("machine_code "));
    assert_eq!(
        code.strip_prefix("machine_code ").unwrap(),
        verify_core::machine_code("x").expect("machine code in Rust")
    );

    // Machine code v2 as the core issues it for a fresh folder; the same indication.
    let v2 = run.expect("machine code v2", |line| line.starts_with("machine_v2 "));
    let fresh = common::host::Scratch::new();
    let core = verify_core::machine_check("x", &verify_core::StateFolder::Path(fresh.0.clone()))
        .expect("machine code v2 in Rust");
    assert_eq!(v2.strip_prefix("machine_v2 ").unwrap(), core.code);
    let seen = run.expect("the VM indication", |line| line.starts_with("virtual "));
    assert_eq!(
        seen == "virtual 1",
        verify_core::machine_virtualization().looks_virtual()
    );

    let cancel = run.expect("the cancelled wait", |line| {
        line.starts_with("cancel code ")
    });
    let fields: Vec<&str> = cancel.split(' ').collect();
    assert_eq!(
        fields.len(),
        7,
        "cancel code C latency_us N waited_ms M: {cancel}"
    );
    assert_eq!(
        fields[2],
        "-7",
        "VERIFY_ERR_CANCELLED: {cancel}\n{}",
        run.transcript()
    );
    let latency_us: i64 = fields[4].parse().expect("latency");
    let waited_ms: i64 = fields[6].parse().expect("waited");
    assert!(
        (0..100_000).contains(&latency_us),
        "the wait returned {latency_us} µs after the cancel"
    );
    assert!(waited_ms >= 300, "the wait ran until the cancel: {cancel}");

    let again = run.expect("the second cancelled wait", |line| {
        line.starts_with("cancelled again ")
    });
    let fields: Vec<&str> = again.split(' ').collect();
    assert_eq!(fields[3], "-7", "{again}");
    assert!(
        fields[5].parse::<i64>().expect("elapsed") < 100,
        "a cancelled token stops a later wait at once: {again}"
    );
    let timeout = run.expect("the timed-out wait", |line| {
        line.starts_with("timeout code ")
    });
    assert_eq!(timeout, "timeout code -4");

    let line = run.expect("a state to authorize", |line| {
        line.starts_with("authorize ")
    });
    let state = line.strip_prefix("authorize ").unwrap();
    program
        .sandbox
        .authorize_social(state, "openid-cpp", "C++ 用户")
        .expect("authorize");
    let done = run.expect("the authorized wait", |line| line.starts_with("social "));
    assert_eq!(done, format!("social 200 {user} C++ 用户"));

    let line = run.expect("an unbound state", |line| {
        line.starts_with("authorize-unbound ")
    });
    let state = line.strip_prefix("authorize-unbound ").unwrap();
    program
        .sandbox
        .authorize_social(state, "openid-nobody", "Nobody")
        .expect("authorize");
    let refused = run.expect("the refused wait", |line| line.starts_with("social "));
    assert_eq!(refused, "social 1016");

    let (_, stdout) = run.finish();
    assert!(stdout.contains("social checks: 0 failed"), "{stdout}");
    assert!(!stdout.contains("CHECK FAILED"), "{stdout}");
    clean(&binary);
}
