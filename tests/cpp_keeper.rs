//! The keeper, the cancellable social wait and the machine code through the C++ binding,
//! `include/verify.hpp`: small C++ programs, compiled with the contract flags of
//! `tests/cpp_demo.rs` plus the stricter ones, run against this binary's sandbox while the
//! test plays the back office (messages, bans, social authorizations) from Rust:
//!
//! - a keeper with an `on_event` lambda reports alive, the back-office message once, and the
//!   end of the session on a ban (1006 with the reason), on its own event thread; the lambda
//!   throws on every alive event and the binding swallows that;
//! - a keeper without a callback is polled with `status()`; destroying its client ends it;
//! - a social wait cancelled from another C++ thread throws `codes::err_cancelled` within
//!   100 ms of the cancel; waits end with a Reply when the back office authorizes (200) or
//!   the identity is not bound (1016); `verify::machine_code("x")` equals the Rust crate's.
//!
//! The scenarios mirror `tests/ffi_keeper.rs`. The compiler is `c++`, or `$CXX` when set.

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::host::{compile_cxx, require_tool, CXX_STRICT_FLAGS};
use common::{eventually, unique, Program};
use serde_json::json;

/// How long any one step may take (the programs' own deadline is 20 s too).
const PATIENCE: Duration = Duration::from_secs(30);

/// Writes `source` to a fresh scratch directory and compiles it against libverify.
fn build(name: &str, source: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(unique(name));
    fs::create_dir_all(&dir).expect("scratch directory");
    let file = dir.join(format!("{name}.cpp"));
    fs::write(&file, source).expect("write the C++ source");
    let binary = dir.join(name);
    let mut extra = CXX_STRICT_FLAGS.to_vec();
    extra.push("-pthread");
    compile_cxx(&file, &binary, &extra);
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
        let mut child = Command::new(binary)
            .args(args)
            // `cargo test` puts target/<profile> on LD_LIBRARY_PATH, which would win over the
            // program's RUNPATH and may load an older libverify.so (see fresh_library_dir).
            .env_remove("LD_LIBRARY_PATH")
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

/// Shared by the C++ programs: a CHECK macro counting failures, and the code of the
/// verify::Error a body throws.
const PRELUDE: &str = r#"
#include "verify.hpp"
#include "verify.hpp" // the include guard makes the second inclusion harmless

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

// The new owners are move-only like Client and Reply; moves and destructors never throw.
static_assert(!std::is_copy_constructible_v<verify::Keeper>, "Keeper is not copyable");
static_assert(!std::is_copy_assignable_v<verify::Keeper>, "Keeper is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::Keeper>, "Keeper moves");
static_assert(std::is_nothrow_move_assignable_v<verify::Keeper>, "Keeper move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::Keeper>, "~Keeper does not throw");
static_assert(!std::is_default_constructible_v<verify::Keeper>, "a Keeper comes from keep_alive");
static_assert(!std::is_copy_constructible_v<verify::CancelToken>, "CancelToken is not copyable");
static_assert(!std::is_copy_assignable_v<verify::CancelToken>, "CancelToken is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::CancelToken>, "CancelToken moves");
static_assert(std::is_nothrow_move_assignable_v<verify::CancelToken>, "CancelToken move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::CancelToken>, "~CancelToken does not throw");
// cancel() is callable through a const reference (shared with a canceller thread).
static_assert(std::is_same_v<decltype(std::declval<const verify::CancelToken &>().cancel()), void>,
              "const cancel()");
// The enums are the C API's integers.
static_assert(static_cast<std::int32_t>(verify::EventKind::Ended) == VERIFY_EVENT_ENDED, "kinds");
static_assert(static_cast<std::int32_t>(verify::EventKind::Message) == VERIFY_EVENT_MESSAGE, "kinds");
static_assert(static_cast<std::int32_t>(verify::KeeperState::Grace) == VERIFY_KEEPER_GRACE, "states");
static_assert(std::is_same_v<decltype(verify::machine_code("x")), std::string>, "machine_code");

namespace {

int failures = 0;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            std::printf("CHECK FAILED (line %d): %s\n", __LINE__, #cond);              \
            std::fflush(stdout);                                                       \
            failures++;                                                                \
        }                                                                              \
    } while (0)

// The code of the verify::Error that `body` throws, or 0 when it throws none.
template <typename Body>
std::int32_t thrown(Body &&body) {
    try {
        body();
    } catch (const verify::Error &e) {
        CHECK(e.what()[0] != '\0');
        return e.code();
    }
    return 0;
}

inline long long millis(std::chrono::steady_clock::duration d) {
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

}  // namespace
"#;

/// Arguments: BASE_URL APP_ID APP_KEY USERNAME PASSWORD. Logs in, keeps the session with a
/// 1 s interval and prints every event as `event KIND CODE DETAIL` from the main thread as
/// it arrives; exits 0 once it saw the ended event (deadline 20 s, then exit 1).
const KEEPER_EVENTS: &str = r#"
namespace {

const char *kind_name(verify::EventKind kind) {
    switch (kind) {
    case verify::EventKind::Alive: return "alive";
    case verify::EventKind::Message: return "message";
    case verify::EventKind::Trouble: return "trouble";
    case verify::EventKind::Ended: return "ended";
    }
    return "unknown";
}

// What a line shows of an event: the text of a message, the remark of an end (the reason of
// a 1006), the expiry of an alive, else the message.
std::string detail_of(const verify::Event &event) {
    switch (event.kind) {
    case verify::EventKind::Message: return event.text.value_or("(no text)");
    case verify::EventKind::Alive: return event.expire_at.value_or("(no expiry)");
    default: return event.remark.value_or(event.message);
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY USERNAME PASSWORD\n", argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3], user = argv[4], password = argv[5];
    using verify::codes::err_invalid_argument;
    using std::chrono::milliseconds;
    using std::chrono::minutes;
    using std::chrono::seconds;
    try {
        verify::Client client(base, app, key);
        verify::Reply login = client.user_login(user, password, std::nullopt, "CPP-KEEPER-MACHINE");
        if (!login.ok()) {
            std::printf("login failed: %d %s\n", login.code(), login.message().c_str());
            return 1;
        }
        const std::string token = login.str("token").value_or("");

        // Bad arguments throw before a keeper exists.
        const verify::KeeperOptions fast{seconds(1), minutes(1), std::nullopt};
        CHECK(thrown([&] { client.keep_alive(token, verify::SessionKind::User,
                                             verify::KeeperOptions{milliseconds(999), minutes(1), std::nullopt}); }) ==
              err_invalid_argument);
        CHECK(thrown([&] { client.keep_alive(token, verify::SessionKind::User,
                                             verify::KeeperOptions{seconds(1), milliseconds(0), std::nullopt}); }) ==
              err_invalid_argument);
        CHECK(thrown([&] { client.keep_alive(token, static_cast<verify::SessionKind>(7), fast); }) ==
              err_invalid_argument);
        CHECK(thrown([&] { client.keep_alive(token + std::string(1, '\0'), verify::SessionKind::User, fast); }) ==
              err_invalid_argument);
        CHECK(thrown([&] { client.keep_alive("", verify::SessionKind::User, fast); }) == err_invalid_argument);
        CHECK(thrown([&] { client.keep_alive(token, verify::SessionKind::User,
                                             verify::KeeperOptions{seconds(1), minutes(1), std::string("1.2\0.3", 6)}); }) ==
              err_invalid_argument);

        // Events are copied by the callback (on the keeper's event thread) and printed here.
        std::mutex mutex;
        std::condition_variable arrived;
        std::deque<verify::Event> pending;
        bool on_main_thread = false;
        const std::thread::id main_thread = std::this_thread::get_id();
        verify::Keeper keeper = client.keep_alive(
            token, verify::SessionKind::User, verify::KeeperOptions{seconds(1), minutes(1), std::string("10.1.2.3")},
            [&](const verify::Event &event) {
                {
                    std::lock_guard<std::mutex> lock(mutex);
                    on_main_thread = on_main_thread || std::this_thread::get_id() == main_thread;
                    pending.push_back(event);
                }
                arrived.notify_all();
                if (event.kind == verify::EventKind::Alive) {
                    // Swallowed by verify.hpp: the later events still arrive.
                    throw std::runtime_error("thrown by on_event");
                }
            });
        CHECK(static_cast<bool>(keeper));
        CHECK(keeper.state() == verify::KeeperState::Alive);

        // Moving the Keeper keeps its callback alive at the same place.
        verify::Keeper moved = std::move(keeper);
        CHECK(!keeper); // NOLINT: testing the moved-from state on purpose
        CHECK(thrown([&] { (void)keeper.state(); }) == err_invalid_argument);
        CHECK(thrown([&] { keeper.stop(); }) == err_invalid_argument);
        CHECK(thrown([&] { (void)keeper.status(); }) == err_invalid_argument);
        CHECK(keeper.get() == nullptr);
        keeper = std::move(moved);
        CHECK(keeper.get() != nullptr);
        std::printf("keeper started\n");
        std::fflush(stdout);

        const auto deadline = std::chrono::steady_clock::now() + seconds(20);
        std::optional<verify::Event> ended;
        std::unique_lock<std::mutex> lock(mutex);
        while (!ended) {
            if (!arrived.wait_until(lock, deadline, [&] { return !pending.empty(); })) {
                std::printf("TIMEOUT: no ended event within 20 s\n");
                return 1;
            }
            verify::Event event = std::move(pending.front());
            pending.pop_front();
            lock.unlock();
            std::printf("event %s %d %s\n", kind_name(event.kind), event.code, detail_of(event).c_str());
            std::fflush(stdout);
            if (event.kind == verify::EventKind::Ended) {
                ended = std::move(event);
            }
            lock.lock();
        }
        CHECK(!on_main_thread);
        lock.unlock();

        // The keeper has stopped by itself; its status tells the same.
        CHECK(keeper.state() == verify::KeeperState::Ended);
        verify::KeeperStatus status = keeper.status();
        CHECK(status.state == verify::KeeperState::Ended);
        CHECK(status.last_code == verify::codes::disabled);
        CHECK(status.remark == ended->remark);
        CHECK(!status.last_message.empty());
        CHECK(status.last_success.has_value());
        CHECK(status.expire_at.has_value());
        CHECK(status.messages.empty()); // a keeper with on_event hands them to it instead
        std::printf("status ended %d %s\n", status.last_code, status.remark.value_or("(none)").c_str());
        keeper.stop();
        keeper.stop(); // idempotent
        CHECK(keeper.state() == verify::KeeperState::Ended);
    } catch (const verify::Error &e) {
        std::printf("verify::Error %d: %s\n", e.code(), e.what());
        return 1;
    }
    std::printf("keeper checks: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
"#;

/// Arguments: BASE_URL APP_ID APP_KEY USERNAME PASSWORD. A keeper without a callback,
/// polled with status() until the back-office message comes (prints `status message TEXT`);
/// then destroying its client ends it.
const KEEPER_STATUS: &str = r#"
int main(int argc, char **argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY USERNAME PASSWORD\n", argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3], user = argv[4], password = argv[5];
    using std::chrono::seconds;
    try {
        std::optional<verify::Client> client(std::in_place, base, app, key);
        verify::Reply login = client->user_login(user, password, std::nullopt, std::nullopt);
        if (!login.ok()) {
            std::printf("login failed: %d %s\n", login.code(), login.message().c_str());
            return 1;
        }
        verify::Keeper keeper = client->keep_alive(login.str("token").value_or(""), verify::SessionKind::User,
                                                   verify::KeeperOptions{seconds(1), seconds(60), std::string("10.1.2.3")});
        // Before the first heartbeat (one interval after the start).
        verify::KeeperStatus before = keeper.status();
        CHECK(before.state == verify::KeeperState::Alive);
        CHECK(before.last_code == 0);
        CHECK(!before.last_success.has_value());
        CHECK(!before.expire_at.has_value());
        CHECK(!before.remark.has_value());
        CHECK(before.messages.empty());

        const auto deadline = std::chrono::steady_clock::now() + seconds(20);
        verify::KeeperStatus status = keeper.status();
        while (status.messages.empty()) {
            if (std::chrono::steady_clock::now() >= deadline) {
                std::printf("TIMEOUT: no message within 20 s\n");
                return 1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            status = keeper.status();
        }
        for (const std::string &message : status.messages) {
            std::printf("status message %s\n", message.c_str());
        }
        std::fflush(stdout);
        CHECK(status.state == verify::KeeperState::Alive);
        CHECK(status.last_code == verify::codes::ok);
        CHECK(status.expire_at.has_value());
        CHECK(status.last_success.has_value());
        if (status.last_success) {
            auto age = std::chrono::system_clock::now() - *status.last_success;
            CHECK(age > -std::chrono::minutes(2) && age < std::chrono::minutes(2));
        }
        CHECK(keeper.status().messages.empty()); // each message once

        // The Keeper outlives its Client: destroying the client stops the keeper.
        client.reset();
        CHECK(keeper.state() == verify::KeeperState::Ended);
        CHECK(keeper.status().state == verify::KeeperState::Ended);
        keeper.stop();
    } catch (const verify::Error &e) {
        std::printf("verify::Error %d: %s\n", e.code(), e.what());
        return 1;
    }
    std::printf("keeper status checks: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
"#;

/// Arguments: BASE_URL APP_ID APP_KEY. Prints the machine code for "x"; cancels a social
/// wait from another thread and prints the cancel→return latency; then prints
/// `authorize STATE` and `authorize-unbound STATE` for the test to complete as the back
/// office, and the outcome of each wait (`social CODE ...`).
const SOCIAL: &str = r#"
int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY\n", argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3];
    using verify::codes::err_cancelled;
    using verify::codes::err_invalid_argument;
    using std::chrono::milliseconds;
    using std::chrono::seconds;
    using steady = std::chrono::steady_clock;
    try {
        // The machine code: stable, 32 uppercase hex characters, salted.
        const std::string code = verify::machine_code("x");
        CHECK(code.size() == VERIFY_MACHINE_CODE_LEN);
        CHECK(code.find_first_not_of("0123456789ABCDEF") == std::string::npos);
        CHECK(verify::machine_code(std::string("x")) == code);
        CHECK(verify::machine_code("y") != code);
        CHECK(verify::machine_code("").size() == VERIFY_MACHINE_CODE_LEN);
        CHECK(thrown([] { verify::machine_code(std::string("x\0y", 3)); }) == err_invalid_argument);
        std::printf("machine_code %s\n", code.c_str());
        std::fflush(stdout);

        verify::Client client(base, app, key);
        const std::string state = client.social_login_start().str("state").value_or("");
        CHECK(!state.empty());

        // Bad arguments throw before anything is sent.
        CHECK(thrown([&] { client.social_login_wait(state, std::nullopt, milliseconds(0), seconds(1)); }) ==
              err_invalid_argument);
        CHECK(thrown([&] { client.social_login_wait(state, std::nullopt, milliseconds(10), milliseconds(-1)); }) ==
              err_invalid_argument);
        CHECK(thrown([&] { client.social_login_wait(std::string("s\0t", 3), std::nullopt, milliseconds(10),
                                                    seconds(1)); }) == err_invalid_argument);
        {
            verify::CancelToken source;
            verify::CancelToken target = std::move(source);
            CHECK(!source && static_cast<bool>(target)); // NOLINT: moved-from on purpose
            CHECK(thrown([&] { source.cancel(); }) == err_invalid_argument);
            CHECK(thrown([&] { client.social_login_wait(state, std::nullopt, milliseconds(10), seconds(1),
                                                        &source); }) == err_invalid_argument);
        }

        // Cancelled from another thread, through a const reference, while the wait sleeps
        // between polls (or polls): the wait throws within milliseconds of the cancel.
        verify::CancelToken token;
        const verify::CancelToken &shared = token;
        std::atomic<steady::rep> cancelled_at{0};
        const steady::time_point started = steady::now();
        std::thread canceller([&shared, &cancelled_at] {
            std::this_thread::sleep_for(milliseconds(300));
            cancelled_at.store(steady::now().time_since_epoch().count());
            shared.cancel();
        });
        std::int32_t cancelled_code = 0;
        try {
            verify::Reply reply = client.social_login_wait(state, std::nullopt, seconds(60), seconds(60), &token);
            std::printf("the wait returned a reply: %d\n", reply.code());
            failures++;
        } catch (const verify::Error &e) {
            cancelled_code = e.code();
            if (cancelled_code != err_cancelled) {
                std::printf("unexpected error: %s\n", e.what());
            }
        }
        const steady::time_point returned = steady::now();
        canceller.join();
        const steady::time_point cancelled = steady::time_point(steady::duration(cancelled_at.load()));
        const long long latency_us = static_cast<long long>(
            std::chrono::duration_cast<std::chrono::microseconds>(returned - cancelled).count());
        std::printf("cancel code %d latency_us %lld waited_ms %lld\n", cancelled_code, latency_us,
                    millis(returned - started));
        std::fflush(stdout);
        CHECK(cancelled_code == err_cancelled);

        // A cancelled token stays cancelled: a later wait with it throws at once.
        const steady::time_point again = steady::now();
        const std::int32_t again_code = thrown(
            [&] { client.social_login_wait(state, std::nullopt, milliseconds(10), seconds(60), &token); });
        std::printf("cancelled again code %d elapsed_ms %lld\n", again_code, millis(steady::now() - again));

        // Nobody authorizes: the timeout throws.
        const std::int32_t timeout_code =
            thrown([&] { client.social_login_wait(state, std::nullopt, milliseconds(20), milliseconds(200)); });
        std::printf("timeout code %d\n", timeout_code);
        std::fflush(stdout);

        // The back office authorizes a bound identity while the wait runs: 200, a Reply.
        const std::string bound = client.social_login_start(std::string("CPP-SOCIAL-MACHINE")).str("state").value_or("");
        std::printf("authorize %s\n", bound.c_str());
        std::fflush(stdout);
        verify::Reply done = client.social_login_wait(bound, std::string("CPP-SOCIAL-MACHINE"), milliseconds(50),
                                                      seconds(20));
        CHECK(done.ok());
        CHECK(done.str("token").has_value());
        std::printf("social %d %s %s\n", done.code(), done.str("username").value_or("(none)").c_str(),
                    done.remark().value_or("(none)").c_str());
        std::fflush(stdout);

        // An identity bound to no account: the refusal is a Reply too, not an exception.
        const std::string unbound = client.social_login_start().str("state").value_or("");
        std::printf("authorize-unbound %s\n", unbound.c_str());
        std::fflush(stdout);
        verify::Reply refused = client.social_login_wait(unbound, std::nullopt, milliseconds(50), seconds(20));
        CHECK(refused.code() == verify::codes::user_not_registered);
        std::printf("social %d\n", refused.code());
    } catch (const verify::Error &e) {
        std::printf("verify::Error %d: %s\n", e.code(), e.what());
        return 1;
    }
    std::printf("social checks: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
"#;

fn source(body: &str) -> String {
    format!("{PRELUDE}{body}")
}

/// Runs the KEEPER_EVENTS program (through `wrapper` such as valgrind, when given) and plays
/// the back office: a message once the keeper is alive, then a ban.
fn drive_keeper_events(wrapper: &[&str]) {
    let binary = build("keeper_events", &source(KEEPER_EVENTS));
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

#[test]
fn keeper_status_is_polled_from_cpp() {
    let binary = build("keeper_status", &source(KEEPER_STATUS));
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
    let binary = build("social_wait", &source(SOCIAL));
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
        verify::machine_code("x").expect("machine code in Rust")
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
