/*
 * cpp_social_wait.cpp: the machine code, and the social wait with a verify::CancelToken
 * (driven by tests/cpp/keeper.rs, which plays the back office).
 *
 *   cpp_social_wait BASE_URL APP_ID APP_KEY
 *
 * Prints `machine_code CODE` for the salt "x"; cancels a wait from another thread and
 * prints `cancel code C latency_us N waited_ms M`; `cancelled again code C elapsed_ms M`
 * for a wait with the cancelled token; `timeout code C`; then `authorize STATE` and
 * `authorize-unbound STATE` for the test to complete as the back office, and the outcome of
 * each wait (`social CODE ...`). Prints `social checks: N failed`; exit 0 when N is 0.
 */

#include "verify.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "cpp_check.hpp"

static_assert(!std::is_copy_constructible_v<verify::CancelToken>, "CancelToken is not copyable");
static_assert(!std::is_copy_assignable_v<verify::CancelToken>,
              "CancelToken is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::CancelToken>, "CancelToken moves");
static_assert(std::is_nothrow_move_assignable_v<verify::CancelToken>, "CancelToken move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::CancelToken>, "~CancelToken does not throw");
// cancel() is callable through a const reference (shared with a canceller thread).
static_assert(std::is_same_v<decltype(std::declval<const verify::CancelToken &>().cancel()), void>,
              "const cancel()");
static_assert(std::is_same_v<decltype(verify::machine_code("x")), std::string>, "machine_code");

using check::millis;
using check::thrown;

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY\n", argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3];
    using std::chrono::milliseconds;
    using std::chrono::seconds;
    using verify::codes::err_cancelled;
    using verify::codes::err_invalid_argument;
    using steady = std::chrono::steady_clock;
    try {
        // The machine code: stable, 32 uppercase hex characters, salted.
        const std::string code = verify::machine_code("x");
        CHECK(code.size() == VERIFY_MACHINE_CODE_LEN);
        CHECK(code.find_first_not_of("0123456789ABCDEF") == std::string::npos);
        CHECK(verify::machine_code(std::string("x")) == code);
        CHECK(verify::machine_code("y") != code);
        CHECK(verify::machine_code("").size() == VERIFY_MACHINE_CODE_LEN);
        CHECK(thrown([] { (void)verify::machine_code(std::string("x\0y", 3)); }) ==
              err_invalid_argument);
        std::printf("machine_code %s\n", code.c_str());

        // Machine code v2, kept in a folder of this run: issued, then kept; every component
        // listed with its state, never its value; v1 unchanged through the versioned call.
        const std::string folder =
            (std::filesystem::temp_directory_path() / ("verify-cpp-machine-" + app)).string();
        std::filesystem::remove_all(folder);
        const verify::MachineCheck first = verify::machine_check("x", folder);
        CHECK(first.outcome == verify::MachineOutcome::Issued);
        CHECK(first.code.size() == VERIFY_MACHINE_CODE_LEN);
        CHECK(first.components.size() == 6);
        const verify::MachineCheck second = verify::machine_check("x", folder);
        CHECK(second.outcome == verify::MachineOutcome::Kept);
        CHECK(second.code == first.code);
        for (const verify::MachineComponent &c : second.components) {
            CHECK(c.state != verify::ComponentState::Differs);
            CHECK(c.name != "unknown" && c.state_name != "unknown" && c.weight > 0);
        }
        CHECK(second.components.front().name == "board_uuid");
        CHECK(verify::machine_code("x", verify::MachineVersion::V2, folder) == first.code);
        CHECK(verify::machine_code("x", verify::MachineVersion::V1) == code);
        CHECK(thrown([] {
                  (void)verify::machine_code("x", static_cast<verify::MachineVersion>(9));
              }) == err_invalid_argument);
        const verify::MachineVirtual seen = verify::machine_virtual();
        CHECK(seen.looks_virtual == !seen.signs.empty());
        std::printf("machine_v2 %s\nvirtual %d\n", first.code.c_str(), seen.looks_virtual ? 1 : 0);
        std::filesystem::remove_all(folder);
        std::fflush(stdout);

        verify::Client client(base, app, key);
        const std::string state = client.social_login_start().str("/data/state").value_or("");
        CHECK(!state.empty());

        // Bad arguments throw before anything is sent.
        CHECK(thrown([&] {
                  (void)client.social_login_wait(state, std::nullopt, milliseconds(0), seconds(1));
              }) == err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.social_login_wait(state, std::nullopt, milliseconds(10),
                                                 milliseconds(-1));
              }) == err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.social_login_wait(std::string("s\0t", 3), std::nullopt,
                                                 milliseconds(10), seconds(1));
              }) == err_invalid_argument);
        {
            verify::CancelToken source;
            verify::CancelToken target = std::move(source);
            CHECK(!source && static_cast<bool>(target)); // NOLINT: moved-from on purpose
            CHECK(thrown([&] { source.cancel(); }) == err_invalid_argument);
            CHECK(thrown([&] {
                      (void)client.social_login_wait(state, std::nullopt, milliseconds(10),
                                                     seconds(1), &source);
                  }) == err_invalid_argument);
        }

        // Cancelled from another thread, through a const reference, while the wait sleeps
        // between polls (or polls): the wait throws within milliseconds of the cancel.
        verify::CancelToken token;
        const verify::CancelToken &shared = token;
        std::atomic<steady::rep> cancelled_at{0};
        const steady::time_point started = steady::now();
        std::thread canceller([&shared, &cancelled_at] {
            // Not a wait for a state: the cancel is meant to come while the wait runs.
            std::this_thread::sleep_for(milliseconds(300));
            cancelled_at.store(steady::now().time_since_epoch().count());
            shared.cancel();
        });
        std::int32_t cancelled_code = 0;
        try {
            verify::Reply reply =
                client.social_login_wait(state, std::nullopt, seconds(60), seconds(60), &token);
            std::printf("the wait returned a reply: %d\n", verify::to_int(reply.code()));
            ++check::failures;
        } catch (const verify::Error &e) {
            cancelled_code = verify::to_int(e.code());
            if (cancelled_code != err_cancelled) {
                std::printf("unexpected error: %s\n", e.what());
            }
        }
        const steady::time_point returned = steady::now();
        canceller.join();
        const steady::time_point cancelled =
            steady::time_point(steady::duration(cancelled_at.load()));
        const long long latency_us = static_cast<long long>(
            std::chrono::duration_cast<std::chrono::microseconds>(returned - cancelled).count());
        std::printf("cancel code %d latency_us %lld waited_ms %lld\n", cancelled_code, latency_us,
                    millis(returned - started));
        std::fflush(stdout);
        CHECK(cancelled_code == err_cancelled);

        // A cancelled token stays cancelled: a later wait with it throws at once.
        const steady::time_point again = steady::now();
        const std::int32_t again_code = thrown([&] {
            (void)client.social_login_wait(state, std::nullopt, milliseconds(10), seconds(60),
                                           &token);
        });
        std::printf("cancelled again code %d elapsed_ms %lld\n", again_code,
                    millis(steady::now() - again));

        // Nobody authorizes: the timeout throws.
        const std::int32_t timeout_code = thrown([&] {
            (void)client.social_login_wait(state, std::nullopt, milliseconds(20),
                                           milliseconds(200));
        });
        std::printf("timeout code %d\n", timeout_code);
        std::fflush(stdout);

        // The back office authorizes a bound identity while the wait runs: 200, a Reply.
        const std::string bound = client.social_login_start(std::string("CPP-SOCIAL-MACHINE"))
                                      .str("/data/state")
                                      .value_or("");
        std::printf("authorize %s\n", bound.c_str());
        std::fflush(stdout);
        verify::Reply done = client.social_login_wait(bound, std::string("CPP-SOCIAL-MACHINE"),
                                                      milliseconds(50), seconds(20));
        CHECK(done.ok());
        CHECK(done.str("/data/token").has_value());
        std::printf("social %d %s %s\n", verify::to_int(done.code()),
                    done.str("/data/username").value_or("(none)").c_str(),
                    done.remark().value_or("(none)").c_str());
        std::fflush(stdout);

        // An identity bound to no account: the refusal is a Reply too, not an exception.
        const std::string unbound = client.social_login_start().str("/data/state").value_or("");
        std::printf("authorize-unbound %s\n", unbound.c_str());
        std::fflush(stdout);
        verify::Reply refused =
            client.social_login_wait(unbound, std::nullopt, milliseconds(50), seconds(20));
        CHECK(refused.code() == verify::codes::user_not_registered);
        std::printf("social %d\n", verify::to_int(refused.code()));
    } catch (const verify::Error &e) {
        std::printf("verify::Error %d: %s\n", verify::to_int(e.code()), e.what());
        return 1;
    }
    return check::summary("social");
}
