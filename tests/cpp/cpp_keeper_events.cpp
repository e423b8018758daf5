/*
 * cpp_keeper_events.cpp: a verify::Keeper with an on_event lambda (driven by
 * tests/cpp/keeper.rs, which plays the back office).
 *
 *   cpp_keeper_events BASE_URL APP_ID APP_KEY USERNAME PASSWORD [END_CODE]
 *
 * Logs in, checks that bad keeper options throw, keeps the session with a 1 s interval and
 * prints every event as `event KIND CODE DETAIL` from the main thread as it arrives (the
 * lambda copies them on the keeper's event thread, and throws on every alive event: the
 * binding swallows that). Once the ended event came it prints the typed status as
 * `status ended CODE REMARK` and `keeper checks: N failed`; exit 0 when N is 0. Deadline
 * 20 s for the ended event, then exit 1. END_CODE is the code the session is expected to
 * end with: 1006 (a ban, the default) or 1005 (expired).
 */

#include "verify.hpp"
#include "verify.hpp" // the include guard makes the second inclusion harmless

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

#include "cpp_check.hpp"

// The keeper is a move-only owner like Client and Reply; moves and destructors never throw.
static_assert(!std::is_copy_constructible_v<verify::Keeper>, "Keeper is not copyable");
static_assert(!std::is_copy_assignable_v<verify::Keeper>, "Keeper is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::Keeper>, "Keeper moves");
static_assert(std::is_nothrow_move_assignable_v<verify::Keeper>, "Keeper move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::Keeper>, "~Keeper does not throw");
static_assert(!std::is_default_constructible_v<verify::Keeper>, "a Keeper comes from keep_alive");
// The enums are the C API's integers, on int32_t, so any value of a later library fits.
static_assert(std::is_same_v<std::underlying_type_t<verify::EventKind>, std::int32_t>, "EventKind");
static_assert(std::is_same_v<std::underlying_type_t<verify::KeeperState>, std::int32_t>,
              "KeeperState");
static_assert(static_cast<std::int32_t>(verify::EventKind::Ended) == VERIFY_EVENT_ENDED, "kinds");
static_assert(static_cast<std::int32_t>(verify::EventKind::Message) == VERIFY_EVENT_MESSAGE,
              "kinds");
static_assert(static_cast<std::int32_t>(verify::KeeperState::Grace) == VERIFY_KEEPER_GRACE,
              "states");
// Alive and Grace are usable; Ended and any unknown state are not.
static_assert(verify::session_usable(verify::KeeperState::Alive), "alive is usable");
static_assert(verify::session_usable(verify::KeeperState::Grace), "grace is usable");
static_assert(!verify::session_usable(verify::KeeperState::Ended), "ended is not");
static_assert(!verify::session_usable(static_cast<verify::KeeperState>(42)), "unknown is not");
// Options are a plain value: unset fields keep the library's defaults.
static_assert(std::is_copy_constructible_v<verify::KeeperOptions>, "KeeperOptions is a value");
static_assert(std::is_same_v<decltype(verify::KeeperOptions{}.interval),
                             std::optional<std::chrono::milliseconds>>,
              "interval may be left unset");

using check::thrown;

namespace
{

const char *kind_name(verify::EventKind kind)
{
    switch (kind) {
        case verify::EventKind::Alive:
            return "alive";
        case verify::EventKind::Message:
            return "message";
        case verify::EventKind::Trouble:
            return "trouble";
        case verify::EventKind::Ended:
            return "ended";
        case verify::EventKind::Offline:
            return "offline";
        case verify::EventKind::Online:
            return "online";
    }
    return "unknown"; // a kind of a later library: representable, never an exception
}

// What a line shows of an event: the text of a message, the remark of an end (the reason of
// a 1006), the expiry of an alive, else the message.
std::string detail_of(const verify::Event &event)
{
    switch (event.kind) {
        case verify::EventKind::Message:
            return event.text.value_or("(no text)");
        case verify::EventKind::Alive:
        case verify::EventKind::Online:
            return event.expire_at_text.value_or("(no expiry)");
        case verify::EventKind::Trouble:
        case verify::EventKind::Ended:
        case verify::EventKind::Offline:
            break;
    }
    return event.remark.value_or(event.message);
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY USERNAME PASSWORD [END_CODE]\n",
                     argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3], user = argv[4],
                      password = argv[5];
    const std::int32_t end_code =
        argc == 7 ? static_cast<std::int32_t>(std::stol(argv[6])) : verify::codes::disabled;
    using std::chrono::milliseconds;
    using std::chrono::minutes;
    using std::chrono::seconds;
    using verify::codes::err_invalid_argument;

    // An unknown kind or state is kept as its integer and named nowhere.
    CHECK(std::string(kind_name(static_cast<verify::EventKind>(99))) == "unknown");
    CHECK(static_cast<std::int32_t>(static_cast<verify::KeeperState>(42)) == 42);

    try {
        verify::Client client(base, app, key);
        verify::Reply login = client.user_login(user, password, std::string("CPP-KEEPER-MACHINE"));
        if (!login.ok()) {
            std::printf("login failed: %d %s\n", verify::to_int(login.code()),
                        login.message().c_str());
            return 1;
        }
        const std::string token = login.str("/data/token").value_or("");

        // Bad arguments throw before a keeper exists (the interval's minimum of 1 s is the
        // library's check; a grace of 0 and a NUL are refused by the binding).
        const verify::KeeperOptions fast{seconds(1), minutes(1), std::nullopt};
        CHECK(thrown([&] {
                  (void)client.keep_alive(
                      token, verify::SessionKind::User,
                      verify::KeeperOptions{milliseconds(999), minutes(1), std::nullopt});
              }) == err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.keep_alive(
                      token, verify::SessionKind::User,
                      verify::KeeperOptions{seconds(1), milliseconds(0), std::nullopt});
              }) == err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.keep_alive(
                      token, verify::SessionKind::User,
                      verify::KeeperOptions{milliseconds(-1), std::nullopt, std::nullopt});
              }) == err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.keep_alive(token, static_cast<verify::SessionKind>(7), fast);
              }) == err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.keep_alive(token + std::string(1, '\0'), verify::SessionKind::User,
                                          fast);
              }) == err_invalid_argument);
        CHECK(thrown([&] { (void)client.keep_alive("", verify::SessionKind::User, fast); }) ==
              err_invalid_argument);
        CHECK(thrown([&] {
                  (void)client.keep_alive(
                      token, verify::SessionKind::User,
                      verify::KeeperOptions{seconds(1), minutes(1), std::string("1.2\0.3", 6)});
              }) == err_invalid_argument);
        {
            // All defaults (a heartbeat in 5 minutes): it starts, is alive, and stops.
            verify::Keeper idle = client.keep_alive(token, verify::SessionKind::User);
            CHECK(idle.state() == verify::KeeperState::Alive);
            idle.stop();
            CHECK(idle.state() == verify::KeeperState::Ended);
        }

        // Events are copied by the callback (on the keeper's event thread) and printed here.
        std::mutex mutex;
        std::condition_variable arrived;
        std::deque<verify::Event> pending;
        bool on_main_thread = false;
        const std::thread::id main_thread = std::this_thread::get_id();
        verify::KeeperOptions options;
        options.interval = seconds(1);
        options.grace = minutes(1);
        options.ip = "10.1.2.3";
        verify::Keeper keeper = client.keep_alive(
            token, verify::SessionKind::User, options, [&](const verify::Event &event) {
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
            std::printf("event %s %d %s\n", kind_name(event.kind), verify::to_int(event.code),
                        detail_of(event).c_str());
            std::fflush(stdout);
            if (event.kind == verify::EventKind::Ended) {
                ended = std::move(event);
            }
            lock.lock();
        }
        CHECK(!on_main_thread);
        lock.unlock();

        // The keeper has stopped by itself; its typed status tells the same.
        CHECK(keeper.state() == verify::KeeperState::Ended);
        CHECK(!verify::session_usable(keeper.state()));
        verify::KeeperStatus status = keeper.status();
        CHECK(status.state == verify::KeeperState::Ended);
        CHECK(ended->code == end_code);
        CHECK(status.last_code == end_code);
        CHECK(status.remark == ended->remark);
        CHECK(status.remark.has_value() == (end_code == verify::codes::disabled)); // a ban's reason
        CHECK(!status.last_message.empty());
        CHECK(status.last_success.has_value());
        CHECK(status.expire_at.has_value());
        CHECK(status.heartbeats_ok >= 1); // the alive events
        CHECK(status.heartbeats_failed >= 1); // the refused one
        CHECK(status.messages.empty()); // a keeper with on_event hands them to it instead
        std::printf("status ended %d %s\n", verify::to_int(status.last_code),
                    status.remark.value_or("(none)").c_str());
        keeper.stop();
        keeper.stop(); // idempotent
        CHECK(keeper.state() == verify::KeeperState::Ended);
    } catch (const verify::Error &e) {
        std::printf("verify::Error %d: %s\n", verify::to_int(e.code()), e.what());
        return 1;
    }
    return check::summary("keeper");
}
