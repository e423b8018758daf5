/*
 * cpp_lifecycle.cpp: a C++ program whose client and keeper are static objects, destroyed by
 * the C++ runtime after main returns (run by tests/c/lifecycle.rs).
 *
 *   cpp_lifecycle BASE_URL APP_ID APP_KEY CARD
 *       Logs in, starts a keeper (heartbeat every second), prints "ending" and returns from
 *       main: the static destructors free the keeper (stopping and joining its threads) and
 *       then the client, while the runtime is ending the process. The test requires the
 *       process to end within seconds with status 0 and nothing on stderr.
 */

#include <chrono>
#include <cstdio>
#include <optional>

#include "verify.hpp"

// Destroyed in the reverse order of their construction: the keeper first, then the client.
static std::optional<verify::Client> client;
static std::optional<verify::Keeper> keeper;

int main(int argc, char **argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s BASE_URL APP_ID APP_KEY CARD\n", argv[0]);
        return 2;
    }
    client.emplace(argv[1], argv[2], argv[3]);
    auto login = client->single_login(argv[4], "CPP-LIFECYCLE-MAC");
    if (!login) {
        std::printf("FAIL: the login gave %d\n", static_cast<int>(login.code()));
        return 1;
    }
    verify::KeeperOptions options;
    options.interval = std::chrono::seconds(1);
    keeper.emplace(client->keep_alive(login.reply(), options));
    if (keeper->state() != verify::KeeperState::Alive) {
        std::printf("FAIL: the keeper is not alive\n");
        return 1;
    }
    std::printf("RESULT: exit: a keeper runs\nending\n");
    std::fflush(stdout);
    return 0;
}
