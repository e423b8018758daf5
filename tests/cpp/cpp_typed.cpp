/*
 * cpp_typed.cpp: the program a C++ newcomer writes (a card login, an account login, the keeper seeing a
 * ban, a wrong password and a bad card), written as a C++ developer writes it on the typed
 * API of verify.hpp: typed results (verify::CardLogin, verify::UserSession), times as
 * verify::Time, refusals as verify::Refused, keeper events; no JSON Pointer anywhere.
 *
 *   cpp_typed BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD
 *
 * Built as C++17 (the throwing form: Result::value()) and as C++23 (Result::expected(), an
 * std::expected), on Linux and with mingw-w64 for Windows (run under Wine). Driven by
 * tests/cpp/typed.rs and tests/platforms/windows/demos.rs, which answer its "@@ ban REASON" request by banning
 * CARD in the sandbox ("go"). Prints what it saw ("card expire_at TEXT SECONDS", ...), then
 * "RESULT: N checks, M failed"; exits 0 when every check held.
 */

#include "verify.hpp"

#include "cpp_result.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#if defined(_WIN32)
#include <windows.h>
#else
#include <time.h>
#endif

namespace
{

using result::ask;

/* Unix seconds of a time. */
long long unix_seconds(verify::Time time)
{
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count());
}

/* A pause while polling with a deadline (mingw's win32 thread model has no std::thread). */
void pause_briefly()
{
#if defined(_WIN32)
    Sleep(10);
#else
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, nullptr);
#endif
}

/* The end of a kept session, as the keeper's event thread reports it: the event is written
 * before `done` is set (release), and read after it is seen (acquire). */
struct End {
    std::atomic<bool> done{false};
    verify::Event event;

    void set(const verify::Event &ended)
    {
        event = ended;
        done.store(true, std::memory_order_release);
    }

    std::optional<verify::Event> wait(std::chrono::seconds limit)
    {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!done.load(std::memory_order_acquire) &&
               std::chrono::steady_clock::now() < deadline) {
            pause_briefly();
        }
        if (!done.load(std::memory_order_acquire)) {
            return std::nullopt;
        }
        return event;
    }
};

} // namespace

int main(int argc, char **argv)
{
    if (argc != 7) {
        std::fprintf(stderr, "usage: cpp_typed BASE_URL APP_ID APP_KEY CARD USERNAME PASSWORD\n");
        return 2;
    }
    const std::string url = argv[1], app_id = argv[2], app_key = argv[3];
    const std::string card = argv[4], username = argv[5], password = argv[6];

    try {
        verify::ClientOptions options;
        options.call_timeout = std::chrono::seconds(20);
        verify::Client client(url, app_id, app_key, options);
        const std::string mac = verify::machine_code(app_id);

        // A card login, the throwing form: value() gives the typed fields or throws.
        verify::Result<verify::CardLogin> login = client.single_login(card, mac);
        const verify::CardLogin &licence = login.value();
        CHECK(licence.ok() && !licence.offline());
        CHECK(licence.token && licence.token->size() == 40);
        CHECK(licence.expire_at.has_value());
        CHECK(licence.is_times == false);
        if (licence.expire_at) {
            std::printf("card expire_at %s %lld\n",
                        verify::format_service_time(*licence.expire_at).c_str(),
                        unix_seconds(*licence.expire_at));
        }
        std::printf("card type %s\n", licence.card_type.value_or("?").c_str());

        // An account login, as a plain value that outlives its Result.
        verify::UserSession session = client.user_login(username, password, mac).value();
        CHECK(session.username == username);
        CHECK(session.token && session.token->size() == 40);
        if (session.expire_at) {
            std::printf("account expire_at %s %lld\n",
                        verify::format_service_time(*session.expire_at).c_str(),
                        unix_seconds(*session.expire_at));
        }

        // A wrong password: verify::Refused, a verify::Error with the server's code.
        try {
            client.user_login(username, "wrong-password", mac).ensure_ok();
            CHECK(false && "a wrong password throws");
        } catch (const verify::Refused &refused) {
            CHECK(refused.code() == verify::codes::wrong_password);
            CHECK(!refused.configuration());
            std::printf("wrong password %d %s\n", static_cast<int>(refused.code()), refused.what());
        }

        // A bad card, the non-throwing form: the Result says so and carries the refusal.
        auto bad = client.single_login("BAD0-CARD-0000-0000", mac);
        CHECK(!bad.has_value() && !bad);
        CHECK(bad.error().code == verify::codes::card_invalid);
        std::printf("bad card %d\n", static_cast<int>(bad.error().code));

#if VERIFY_HAS_EXPECTED
        // C++23: the same as an std::expected.
        std::expected<verify::CardLogin, verify::Refusal> expected =
            client.single_login("BAD0-CARD-0000-0001", mac).expected();
        CHECK(!expected.has_value());
        CHECK(!expected && expected.error().code == verify::codes::card_invalid);
        std::expected<verify::Bulletin, verify::Refusal> bulletin =
            client.get_bulletin().expected();
        CHECK(bulletin.has_value() && bulletin->bulletin.has_value());
        std::printf("expected: yes\n");
#else
        std::printf("expected: no\n");
#endif

        // A wrong AppKey is a refusal of the configuration, easy to tell from a licence's.
        {
            verify::Client wrong(url, app_id, "WRONGKEY0123456789ABCDEFGHIJKLMN");
            auto reply = wrong.get_bulletin();
            CHECK(!reply && reply.error().code == verify::codes::app_key_wrong);
            CHECK(reply.error().configuration());
            try {
                (void)reply.value(); // [[nodiscard]]: only to see it throw
                CHECK(false && "value() of a refusal throws");
            } catch (const verify::Refused &refused) {
                CHECK(refused.configuration());
                std::printf("wrong key %d configuration\n", static_cast<int>(refused.code()));
            }
        }

        // Codes as an enum class with a std::error_category, and the enums' names.
        CHECK(bad.error().code == verify::Code::card_invalid);
        const std::error_code card_invalid = verify::Code::card_invalid;
        CHECK(card_invalid.category() == verify::category());
        CHECK(card_invalid.value() == verify::codes::card_invalid);
        CHECK(card_invalid.message() == std::string(verify::describe(verify::codes::card_invalid)));
        CHECK(verify::to_string(verify::Code::card_invalid) == "card_invalid");
        CHECK(verify::to_string(verify::EventKind::Ended) == "Ended");
        CHECK(verify::to_string(verify::KeeperState::Grace) == "Grace");
        CHECK(verify::to_string(static_cast<verify::EventKind>(99)) == "unknown");
        try {
            (void)client.heartbeat(std::string("t\0k", 3), verify::SessionKind::Card);
            CHECK(false && "a NUL in an argument throws");
        } catch (const verify::Error &error) {
            CHECK(error.error_code() == verify::Code::err_invalid_argument);
            CHECK(error.error_code() ==
                  std::error_code(verify::codes::err_invalid_argument, verify::category()));
            std::printf("error_code %s %s\n", error.error_code().category().name(),
                        std::string(verify::to_string(verify::Code::err_invalid_argument)).c_str());
        }

        // The typed account login keeps its session (its token, SessionKind::User); a typed
        // login without a token (an offline verdict's) is refused with a message saying what
        // to pass instead.
        {
            verify::Keeper account = client.keep_alive(session);
            CHECK(verify::session_usable(account.state()));
            try {
                verify::Keeper none = client.keep_alive(verify::CardLogin{});
                CHECK(false && "a login without a token throws");
            } catch (const verify::Error &error) {
                CHECK(error.code() == verify::codes::err_invalid_argument);
                CHECK(std::string(error.what()).find("keep_alive") != std::string::npos);
            }
        }

        // The keeper sees a ban: Ended with 1006 and the reason.
        End end;
        verify::KeeperOptions keeper_options;
        keeper_options.interval = std::chrono::seconds(1);
        verify::Keeper keeper =
            client.keep_alive(login, keeper_options, [&](const verify::Event &event) {
                if (event.kind == verify::EventKind::Ended) {
                    end.set(event);
                }
            });
        ask("ban cheating detected");
        std::optional<verify::Event> ended = end.wait(std::chrono::seconds(60));
        CHECK(ended.has_value());
        if (ended) {
            CHECK(ended->code == verify::codes::disabled);
            CHECK(ended->remark == std::string("cheating detected"));
            std::printf("keeper ended %d %s\n", static_cast<int>(ended->code),
                        ended->remark.value_or("").c_str());
        }
        CHECK(keeper.state() == verify::KeeperState::Ended);
    } catch (const verify::Error &error) {
        // One catch for refusals (verify::Refused) and local failures alike.
        std::printf("FAIL unexpected verify::Error %d: %s\n", static_cast<int>(error.code()),
                    error.what());
        ++result::failed;
    }

    return result::summary();
}
