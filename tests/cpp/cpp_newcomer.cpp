/*
 * cpp_newcomer.cpp: the program of issue 45's trial, as a C++ developer writes it from the
 * README: a card login, typed; an account login off the calling thread; a wrong password as
 * an exception; an offline start; the keeper seeing a ban; a Chinese message; the doctor; a
 * cancelled call. No cast, no std::string(...).c_str(), no #pragma: codes are verify::Code
 * (a switch needs no cast) and everything prints with operator<<. Built with -std=c++20 and
 * every warning an error by tests/cpp/newcomer.rs, which checks the source for those too.
 *
 *   cpp_newcomer BASE_URL APP_ID APP_KEY CARD OTHER_CARD USER PASSWORD STATE_FOLDER DEAD_URL
 *
 * "@@ ban" asks the test to disable CARD; the program then waits for the keeper's Ended.
 */

#include <chrono>
#include <future>
#include <iostream>
#include <optional>
#include <stop_token>
#include <string>

#include "verify.hpp"

namespace
{

/* What the program says about a local failure, by its code. */
const char *advice(verify::Code code)
{
    switch (code) {
        case verify::Code::err_network:
        case verify::Code::err_timeout:
            return "check the network";
        case verify::Code::err_cancelled:
            return "cancelled";
        default:
            return "see the message";
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 10) {
        std::cerr << "usage: cpp_newcomer BASE_URL APP_ID APP_KEY CARD OTHER_CARD USER PASSWORD "
                     "STATE_FOLDER DEAD_URL\n";
        return 2;
    }
    const std::string url = argv[1], app_id = argv[2], app_key = argv[3], card = argv[4];
    const std::string other_card = argv[5], user = argv[6], password = argv[7];
    const std::string folder = argv[8], dead_url = argv[9];
    const std::string mac = verify::machine_code(app_id);
    try {
        verify::Client client(url, app_id, app_key);

        // A card login, typed.
        verify::CardLogin login = client.single_login(card, mac).value();
        std::cout << "card-login " << verify::format_service_time(login.expire_at.value()) << '\n';

        // An account login off the calling thread.
        std::future<verify::UserSession> account = std::async(
            std::launch::async, [&] { return client.user_login(user, password, mac).value(); });
        std::cout << "account " << account.get().username.value_or("?") << '\n';

        // A wrong password is an exception with the server's code.
        try {
            client.user_login(user, "not the password", mac).ensure_ok();
        } catch (const verify::Refused &refused) {
            switch (refused.code()) {
                case verify::Code::wrong_password:
                    std::cout << "wrong-password " << refused.code() << '\n';
                    break;
                default:
                    std::cout << "refused " << refused << '\n';
            }
        }

        // An offline start: the verdict stored online answers when the server cannot be reached.
        verify::ClientOptions offline_options;
        offline_options.state_folder = folder;
        offline_options.offline_grace = std::chrono::hours(24 * 7);
        {
            verify::Client online(url, app_id, app_key, offline_options);
            online.single_login(other_card, mac).ensure_ok();
        }
        verify::Client unreachable(dead_url, app_id, app_key, offline_options);
        auto offline = unreachable.single_login(other_card, mac);
        if (std::optional<verify::OfflineInfo> info = offline.offline_info()) {
            std::cout << "offline " << offline.code() << " because " << info->reason << '\n';
        }

        // The keeper sees a ban.
        std::promise<verify::Event> ended;
        verify::KeeperOptions keeper_options;
        keeper_options.interval = std::chrono::seconds(1);
        verify::Keeper keeper =
            client.keep_alive(login, keeper_options, [&ended](const verify::Event &event) {
                if (event.kind == verify::EventKind::Ended) {
                    ended.set_value(event);
                }
            });
        std::cout << "keeper " << keeper.state() << '\n';
        std::cout << "@@ ban" << std::endl;
        std::string answer;
        std::getline(std::cin, answer);
        std::future<verify::Event> end = ended.get_future();
        if (end.wait_for(std::chrono::seconds(20)) == std::future_status::ready) {
            verify::Event event = end.get();
            switch (event.code) {
                case verify::Code::disabled:
                    std::cout << "banned " << event << '\n';
                    break;
                default:
                    std::cout << "ended " << event << '\n';
            }
        }

        // A message for the end user, in Chinese.
        std::cout << "chinese " << verify::user_message(verify::Code::expired, "zh-CN") << '\n';

        // The doctor.
        verify::Diagnosis report =
            verify::diagnose(url, app_id, app_key, {}, std::chrono::seconds(5));
        std::cout << "doctor " << verify::to_string(report.verdict) << '\n';

        // A call cancelled through a std::stop_token.
        std::stop_source stop;
        stop.request_stop();
        try {
            (void)client.get_bulletin(stop.get_token());
        } catch (const verify::Error &error) {
            std::cout << "cancelled " << error.code() << ": " << advice(error.code()) << '\n';
        }
        return 0;
    } catch (const verify::Error &error) {
        std::cout << "failed " << error << " (" << advice(error.code()) << ")\n";
        return 1;
    }
}
