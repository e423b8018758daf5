/*
 * cpp_keeper_status.cpp: a verify::Keeper without a callback, polled with status() (driven
 * by tests/cpp/keeper.rs, which leaves a back-office message before the start).
 *
 *   cpp_keeper_status BASE_URL APP_ID APP_KEY USERNAME PASSWORD
 *
 * Polls the typed status (with a deadline of 20 s) until the message comes, prints it as
 * `status message TEXT`, checks the snapshot, then destroys the client, which ends the
 * keeper. Prints `keeper status checks: N failed`; exit 0 when N is 0.
 */

#include "verify.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "cpp_check.hpp"

int main(int argc, char **argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY USERNAME PASSWORD\n", argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3], user = argv[4],
                      password = argv[5];
    using std::chrono::seconds;
    try {
        std::optional<verify::Client> client(std::in_place, base, app, key);
        verify::Reply login = client->user_login(user, password);
        if (!login.ok()) {
            std::printf("login failed: %d %s\n", verify::to_int(login.code()),
                        login.message().c_str());
            return 1;
        }
        verify::Keeper keeper = client->keep_alive(
            login.str("/data/token").value_or(""), verify::SessionKind::User,
            verify::KeeperOptions{seconds(4), seconds(60), std::string("10.1.2.3")});
        // Before the first heartbeat (one interval after the start: long enough that a
        // loaded machine still reads the status before it).
        verify::KeeperStatus before = keeper.status();
        CHECK(before.state == verify::KeeperState::Alive);
        CHECK(before.last_code == 0);
        CHECK(before.last_message.empty());
        CHECK(!before.last_success.has_value());
        CHECK(!before.expire_at.has_value());
        CHECK(!before.remark.has_value());
        CHECK(before.heartbeats_ok == 0 && before.heartbeats_failed == 0);
        CHECK(before.messages.empty());

        // Poll until the first heartbeat brought the message, within a deadline.
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
        CHECK(verify::session_usable(status.state));
        CHECK(status.last_code == verify::codes::ok);
        CHECK(status.expire_at.has_value());
        CHECK(status.last_success.has_value());
        CHECK(status.heartbeats_ok >= 1);
        CHECK(status.heartbeats_failed == 0);
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
        std::printf("verify::Error %d: %s\n", verify::to_int(e.code()), e.what());
        return 1;
    }
    return check::summary("keeper status");
}
