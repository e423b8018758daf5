//! The C++ binding, `include/verify.hpp`, compiled with `-std=c++17 -Wall -Wextra -Werror
//! -pedantic` and run against this binary's sandbox:
//!
//! - `examples-c/demo.cpp` walks card mode and account mode (the flows of demo.c) on a copy
//!   of `sandbox/fixtures/demo.json` under a fresh app_id, and exits 0;
//! - a small translation unit includes the header twice, asserts at compile time that
//!   `Client` and `Reply` are move-only, and checks at run time that refusals come back as
//!   replies while local failures throw `verify::Error`;
//! - the demo runs clean under valgrind when valgrind is installed.
//!
//! The compiler is `c++`, or `$CXX` when set.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::host::{
    compile_cxx, demo_fixtures, host_command, require_tool, root, CXX_STRICT_FLAGS,
};
use serde_json::Value;
use verify_sandbox::Fixtures;

/// A fresh scratch directory under Cargo's per-target temporary directory.
fn scratch(prefix: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(common::unique(prefix));
    fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn show(output: &Output) -> String {
    format!(
        "status: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Removes the scratch directory of `file` (called once a test has passed; a failing test
/// leaves its sources and binaries for inspection).
fn clean(file: &Path) {
    if let Some(dir) = file.parent() {
        let _ = fs::remove_dir_all(dir);
    }
}

/// Builds examples-c/demo.cpp into a scratch directory.
fn build_demo() -> PathBuf {
    let binary = scratch("demo_cpp").join("demo_cpp");
    compile_cxx(&root().join("examples-c/demo.cpp"), &binary, &[]);
    binary
}

/// Loads `sandbox/fixtures/demo.json` into the sandbox under a fresh app_id (its program,
/// cards and accounts), so that every run spends its own cards. Returns (app_id, app_key).
fn demo_program() -> (String, String) {
    let app_id = common::unique("cppdemo");
    let (fixtures, app_key) = demo_fixtures(&app_id);
    common::sandbox()
        .load(Fixtures::from_value(fixtures).expect("fixtures"))
        .expect("demo fixtures load");
    (app_id, app_key)
}

fn card_state(app_id: &str, card: &str) -> Option<String> {
    let record = common::sandbox().card(app_id, card)?;
    ["state", "status"]
        .iter()
        .find_map(|key| record.get(*key).and_then(Value::as_str).map(str::to_owned))
}

#[test]
fn demo_cpp_walks_card_and_account_mode() {
    let binary = build_demo();
    let (app_id, app_key) = demo_program();
    let output = host_command(&binary)
        .arg(common::sandbox().base_url())
        .arg(&app_id)
        .arg(&app_key)
        .output()
        .expect("demo_cpp runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "demo_cpp failed\n{}",
        show(&output)
    );

    for line in [
        "[verify::Client] code 200",
        "[client.init] code 200",
        "[client.single_login] code 200",
        "[client.heartbeat(SessionKind::Card)] code 200",
        "[client.single_login(other machine)] code 1022",
        "remark         \"DEMO-MACHINE-CARD-0001\"",
        "[client.user_register] code 200",
        "[client.user_login(machine A)] code 200",
        "[client.heartbeat(SessionKind::User)] code 200",
        "[client.user_recharge] code 200",
        "[client.change_bind] code 200",
        "device_id      \"DEMO-MACHINE-B-0002\"",
        "[client.user_login(machine B)] code 200",
        "[client.get_bulletin] code 200",
        "[client.get_latest_version] code 200",
        "[client.get_variable()] code 200",
        "PASSED: all 13 steps got their expected code",
    ] {
        assert!(stdout.contains(line), "missing `{line}`\n{}", show(&output));
    }
    assert!(!stdout.contains("FAILED"), "{}", show(&output));
    assert!(!stdout.contains(&app_key), "the AppKey is never printed");

    // The server saw what the demo says: both cards spent, the card bound to its machine.
    assert_eq!(
        card_state(&app_id, "DEMO-REGN-0000-0001").as_deref(),
        Some("used")
    );
    assert_eq!(
        card_state(&app_id, "DEMO-RECH-0000-0001").as_deref(),
        Some("used")
    );
    assert_eq!(
        card_state(&app_id, "DEMO-CARD-0000-0001").as_deref(),
        Some("active")
    );
    let card = common::sandbox()
        .card(&app_id, "DEMO-CARD-0000-0001")
        .expect("the login card");
    assert_eq!(card["device_id"], "DEMO-MACHINE-CARD-0001", "{card}");

    // The account the demo registered ends up bound to machine B after one rebind.
    let username = stdout
        .lines()
        .find_map(|line| line.strip_prefix("=== account mode: user "))
        .and_then(|rest| rest.split(',').next())
        .expect("the demo prints its username");
    let account = common::sandbox()
        .account(&app_id, username)
        .unwrap_or_else(|| panic!("account {username} exists"));
    assert_eq!(account["device_id"], "DEMO-MACHINE-B-0002", "{account}");
    assert_eq!(account["bind_count"], 1, "{account}");
    clean(&binary);
}

#[test]
fn demo_cpp_usage_and_unreachable_server() {
    let binary = build_demo();

    let usage = host_command(&binary).output().expect("demo_cpp runs");
    assert_eq!(usage.status.code(), Some(2), "{}", show(&usage));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("usage:"));

    // Nothing listens on port 1: every step is a local failure (an exception inside the
    // demo), reported with its negative code, and the exit status is 1.
    let down = host_command(&binary)
        .arg("http://127.0.0.1:1")
        .output()
        .expect("demo_cpp runs");
    let stdout = String::from_utf8_lossy(&down.stdout);
    assert_eq!(down.status.code(), Some(1), "{}", show(&down));
    assert!(stdout.contains("[client.init] code -3"), "{}", show(&down));
    assert!(
        stdout.contains("(no reply from the server)"),
        "{}",
        show(&down)
    );
    assert!(stdout.contains("FAILED:"), "{}", show(&down));
    clean(&binary);
}

/// A translation unit that includes verify.hpp twice and checks the binding's contract.
/// Arguments: BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD.
const WRAPPER_CHECK: &str = r#"
#include "verify.hpp"
#include "verify.hpp" // the include guard makes the second inclusion harmless

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

// Owners are move-only, moves never throw, destructors never throw.
static_assert(!std::is_copy_constructible_v<verify::Client>, "Client is not copyable");
static_assert(!std::is_copy_assignable_v<verify::Client>, "Client is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::Client>, "Client moves");
static_assert(std::is_nothrow_move_assignable_v<verify::Client>, "Client move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::Client>, "~Client does not throw");
static_assert(!std::is_default_constructible_v<verify::Client>, "a Client needs a program");
static_assert(!std::is_copy_constructible_v<verify::Reply>, "Reply is not copyable");
static_assert(!std::is_copy_assignable_v<verify::Reply>, "Reply is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::Reply>, "Reply moves");
static_assert(std::is_nothrow_move_assignable_v<verify::Reply>, "Reply move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::Reply>, "~Reply does not throw");
// Error is a std::runtime_error that can be copied without throwing.
static_assert(std::is_base_of_v<std::runtime_error, verify::Error>, "Error is a runtime_error");
static_assert(std::is_nothrow_copy_constructible_v<verify::Error>, "Error copies");
// The codes are the C API's integers.
static_assert(verify::codes::ok == VERIFY_OK && verify::codes::card_invalid == 1004, "codes");
static_assert(verify::codes::err_network == VERIFY_ERR_NETWORK, "local codes");
static_assert(static_cast<std::int32_t>(verify::SessionKind::User) == VERIFY_SESSION_USER, "kind");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().code()), std::int32_t>,
              "Reply::code() is the C code");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().integer("x")),
                             std::optional<std::int64_t>>, "integer() is optional");

namespace {

int failures = 0;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            std::printf("CHECK FAILED (line %d): %s\n", __LINE__, #cond);              \
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
        CHECK(!e.description().empty());
        return e.code();
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 7) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD\n", argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3], card = argv[4],
                      user = argv[5], password = argv[6];
    using verify::codes::err_invalid_argument;

    CHECK(!verify::version().empty());
    CHECK(verify::abi_version() == verify::header_abi_version);
    CHECK(!verify::describe(verify::codes::machine_changed).empty());

    // Constructor failures throw (an embedded NUL would be cut by C: refused here).
    CHECK(thrown([&] { verify::Client bad("ftp://nowhere", app, key); }) == err_invalid_argument);
    CHECK(thrown([&] { verify::Client bad(base, "", key); }) == err_invalid_argument);
    CHECK(thrown([&] { verify::Client bad(base, std::string("1\0" "2", 3), key); }) ==
          err_invalid_argument);

    verify::Client client(base, app, key);
    CHECK(static_cast<bool>(client));
    CHECK(thrown([&] { client.set_timeouts(std::chrono::milliseconds(0), std::chrono::seconds(1)); }) ==
          err_invalid_argument);
    CHECK(thrown([&] { client.set_timeouts(std::chrono::seconds(1), std::chrono::hours(2000)); }) ==
          err_invalid_argument);
    CHECK(thrown([&] { client.set_timeouts(std::chrono::seconds(5), std::chrono::seconds(20)); }) == 0);

    // A refusal is a Reply, not an exception.
    {
        verify::Reply refused = client.get_card_info("NO-SUCH-CARD-0000");
        CHECK(refused.code() == verify::codes::card_invalid);
        CHECK(!refused.ok() && !refused.pending());
        CHECK(!refused.message().empty());
        CHECK(refused.json().find("1004") != std::string::npos);
        CHECK(!refused.str("card").has_value());
    }
    {
        verify::Reply wrong = client.user_login(user, "not-the-password", std::nullopt, "MACHINE-W");
        CHECK(wrong.code() == verify::codes::wrong_password);
    }

    // A successful login, its fields, and moving the reply around.
    verify::Reply login = client.single_login(card, "CPP-CHECK-MACHINE", "check machine");
    CHECK(login.ok());
    std::optional<std::string> token = login.str("token");
    CHECK(token && token->size() == 40);
    CHECK(login.boolean("is_times") == std::optional<bool>(false));
    CHECK(!login.boolean("no_such_field").has_value());
    CHECK(!login.integer("no_such_field").has_value());
    CHECK(!login.str("no_such_field").has_value());
    CHECK(thrown([&] { login.str(std::string("tok\0en", 6)); }) == err_invalid_argument);

    verify::Reply moved = std::move(login);
    CHECK(!login); // NOLINT: testing the moved-from state on purpose
    CHECK(static_cast<bool>(moved) && moved.ok());
    CHECK(thrown([&] { (void)login.code(); }) == err_invalid_argument);
    CHECK(thrown([&] { (void)login.message(); }) == err_invalid_argument);
    verify::Reply other = client.get_bulletin();
    other = std::move(moved);
    CHECK(other.str("token") == token);

    const std::string session = token.value_or("");
    CHECK(client.heartbeat(session, verify::SessionKind::Card).ok());
    CHECK(thrown([&] { client.heartbeat(session + std::string(1, '\0'), verify::SessionKind::Card); }) ==
          err_invalid_argument);
    CHECK(thrown([&] { client.heartbeat(session, static_cast<verify::SessionKind>(7)); }) ==
          err_invalid_argument);

    // integer() tells a present 0 from an absent field.
    {
        verify::Reply info = client.get_user_info(user, password);
        CHECK(info.ok());
        CHECK(info.integer("bind_count") == std::optional<std::int64_t>(0));
        CHECK(info.str("bind_count") == std::optional<std::string>("0"));
        CHECK(info.integer("user_id").value_or(0) > 0);
        CHECK(info.str("username") == std::optional<std::string>(user));
    }

    // Optional parameters, dotted fields, and a string_view that is not NUL-terminated.
    {
        verify::Reply one = client.get_variable("greeting");
        CHECK(one.ok() && one.str("value") == std::optional<std::string>("你好 & welcome"));
        verify::Reply all = client.get_variable();
        CHECK(all.str("variables.limit") == std::optional<std::string>("5"));
        CHECK(!all.integer("variables.limit").has_value()); // a string, not an integer
        verify::Reply bulletin = client.call(std::string_view("GetBulletin-not-this-part", 11));
        CHECK(bulletin.ok() && bulletin.str("bulletin").has_value());
        verify::Reply unknown = client.call("NoSuchAction", {{"Key", "value"}});
        CHECK(unknown.code() == verify::codes::unknown_action);
        CHECK(thrown([&] { client.call("GetBulletin", {{std::string("K\0", 2), "v"}}); }) ==
              err_invalid_argument);
        CHECK(client.get_latest_version(std::nullopt).boolean("has_update") == std::optional<bool>(true));
    }

    // Social login: step 2 answers 201 until the user authorizes: pending(), not an error.
    {
        verify::Reply start = client.social_login_start(std::string("CPP-CHECK-MACHINE"));
        CHECK(start.ok());
        std::optional<std::string> state = start.str("state");
        CHECK(state.has_value());
        verify::Reply poll = client.social_login_poll(state.value_or("x"));
        CHECK(poll.pending() && poll.code() == verify::codes::pending);
    }

    // A moved-from client refuses calls (the library sees NULL); the target works.
    verify::Client second = std::move(client);
    CHECK(!client); // NOLINT: testing the moved-from state on purpose
    CHECK(thrown([&] { client.get_bulletin(); }) == err_invalid_argument);
    CHECK(second.get_bulletin().ok());
    client = std::move(second);
    CHECK(client.get_bulletin().ok());

    // No server: a local failure throws; there is no reply, so no reply JSON either.
    {
        verify::Client dead("http://127.0.0.1:1", app, key);
        dead.set_timeouts(std::chrono::milliseconds(500), std::chrono::milliseconds(1000));
        bool threw = false;
        try {
            dead.init();
        } catch (const verify::Error &e) {
            threw = true;
            verify::Error copy = e;
            CHECK(copy.code() == verify::codes::err_network || copy.code() == verify::codes::err_timeout);
            CHECK(std::string(copy.what()).find(std::to_string(copy.code())) != std::string::npos);
            CHECK(!copy.reply_json().has_value());
        }
        CHECK(threw);
    }

    std::printf("wrapper checks: %d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
"#;

#[test]
fn wrapper_is_move_only_and_throws_only_local_failures() {
    let dir = scratch("wrapper_check");
    let source = dir.join("wrapper_check.cpp");
    fs::write(&source, WRAPPER_CHECK).expect("write wrapper_check.cpp");
    let binary = dir.join("wrapper_check");
    compile_cxx(&source, &binary, CXX_STRICT_FLAGS);

    let program = common::Program::fresh();
    let card = program.day_card(&common::unique("CPPCARD-"), 30);
    let user = common::unique("cppuser");
    program.account(&user, "cpp-pass");

    let output = host_command(&binary)
        .arg(program.sandbox.base_url())
        .arg(&program.app_id)
        .arg(common::APP_KEY)
        .arg(&card)
        .arg(&user)
        .arg("cpp-pass")
        .output()
        .expect("wrapper_check runs");
    assert!(
        output.status.success(),
        "wrapper_check failed\n{}",
        show(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("wrapper checks: 0 failed"),
        "{}",
        show(&output)
    );
    clean(&binary);
}

#[test]
fn demo_cpp_is_clean_under_valgrind() {
    require_tool("valgrind", "valgrind");
    let binary = build_demo();
    let (app_id, app_key) = demo_program();
    let output = host_command("valgrind")
        .args([
            "--quiet",
            "--leak-check=full",
            "--show-leak-kinds=definite,indirect",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=99",
        ])
        .arg(&binary)
        .arg(common::sandbox().base_url())
        .arg(&app_id)
        .arg(&app_key)
        .output()
        .expect("valgrind runs");
    assert!(
        output.status.success(),
        "demo_cpp under valgrind\n{}",
        show(&output)
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("PASSED"),
        "{}",
        show(&output)
    );
    clean(&binary);
}
