/*
 * cpp_offline.cpp: offline-first through verify.hpp (driven by tests/c/offline.rs, which
 * plays the back office and the outage with "@@" lines, as tests/c/host.h describes).
 *
 *   cpp_offline BASE_URL APP_ID APP_KEY CARD STATE_DIR
 *
 * Logs in online with offline verdicts on, asks for a server outage ("@@ pause"), starts
 * licensed offline (Reply::offline(), offline_info()), keeps the session from that reply
 * (EventKind::Offline at once, then Trouble), asks for a ban and the server back ("@@ ban
 * REASON", "@@ resume") and sees EventKind::Ended with 1006 and the reason. Prints
 * "RESULT: N checks, M failed".
 */

#include "verify.hpp"

#include "cpp_result.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace
{

using result::ask;

struct Recorded {
    std::mutex mutex;
    std::vector<verify::Event> events;

    bool has(verify::EventKind kind, verify::Event *out = nullptr)
    {
        std::lock_guard<std::mutex> lock(mutex);
        for (const verify::Event &event : events) {
            if (event.kind == kind) {
                if (out != nullptr) {
                    *out = event;
                }
                return true;
            }
        }
        return false;
    }

    bool wait(verify::EventKind kind, verify::Event *out = nullptr)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < deadline) {
            if (has(kind, out)) {
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }
};

} // namespace

int main(int argc, char **argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY CARD STATE_DIR\n", argv[0]);
        return 2;
    }
    const std::string url = argv[1], app = argv[2], key = argv[3], card = argv[4], state = argv[5];
    verify::ClientOptions options;
    options.state_folder = state;
    options.offline_grace = std::chrono::hours(24 * 7);
    options.clock_tolerance = std::chrono::minutes(10);
    options.connect_timeout = std::chrono::seconds(2);
    options.call_timeout = std::chrono::seconds(5);
    try {
        {
            verify::Client online(url, app, key, options);
            verify::Reply login = online.single_login(card, "CPP-OFFLINE-MAC");
            CHECK(login.ok() && login.licensed() && !login.offline());
            CHECK(!login.offline_info());
        }
        ask("pause");
        verify::Client client(url, app, key, options);
        verify::Reply offline = client.single_login(card, "CPP-OFFLINE-MAC");
        CHECK(offline.offline() && offline.licensed() && !offline.ok());
        const auto info = offline.offline_info();
        CHECK(info.has_value());
        if (info) {
            CHECK(info->reason == verify::codes::err_network);
            CHECK(info->grace_end - info->confirmed_at == std::chrono::hours(24 * 7));
        }
        CHECK(offline.str("/data/expire_at").has_value());
        CHECK(!offline.str("/data/token").has_value());

        Recorded recorded;
        verify::KeeperOptions keeper_options;
        keeper_options.interval = std::chrono::seconds(1);
        verify::Keeper keeper =
            client.keep_alive(offline, keeper_options, [&recorded](const verify::Event &event) {
                std::lock_guard<std::mutex> lock(recorded.mutex);
                recorded.events.push_back(event);
            });
        verify::Event event;
        CHECK(recorded.wait(verify::EventKind::Offline, &event));
        CHECK(event.grace_end.has_value() && info && *event.grace_end == info->grace_end);
        const verify::KeeperStatus status = keeper.status();
        CHECK(status.state == verify::KeeperState::Grace);
        CHECK(status.last_confirmed.has_value() && status.grace_end.has_value());
        CHECK(recorded.wait(verify::EventKind::Trouble));
        ask("ban banned while offline");
        ask("resume");
        CHECK(recorded.wait(verify::EventKind::Ended, &event));
        CHECK(event.code == verify::codes::disabled);
        CHECK(event.remark == std::optional<std::string>("banned while offline"));
        CHECK(!recorded.has(verify::EventKind::Online));
        // A reply that is neither a login with a token nor an offline verdict is refused.
        verify::Reply bulletin = client.get_bulletin();
        bool refused = false;
        try {
            (void)client.keep_alive(bulletin);
        } catch (const verify::Error &e) {
            refused = e.code() == verify::codes::err_invalid_argument;
        }
        CHECK(refused);
    } catch (const verify::Error &e) {
        std::printf("FAIL: verify::Error %d: %s\n", verify::to_int(e.code()), e.what());
        ++result::failed;
    }
    return result::summary();
}
