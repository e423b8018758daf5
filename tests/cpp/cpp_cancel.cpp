/*
 * cpp_cancel.cpp: a call cancelled in flight as a C++ program cancels it (run by
 * tests/cpp/cancel.rs on loopback, and by the network lab's tests/lab/cancel.rs), built with
 * -std=c++20 for std::stop_token (and -std=c++17 for the library's token alone).
 *
 *   cpp_cancel inflight stop|token BASE_URL APP_ID APP_KEY AFTER_MS bulletin|login|doctor
 *              [CARD MAC]
 *       the action's overload taking a std::stop_token (stop) or a verify::CancelToken
 *       (token), or the doctor of the client (verify::diagnose) with either, cancelled from
 *       another thread AFTER_MS after the call started; prints
 *       "cancelled code=C after_cancel_ms=T message=M" (T: from the cancel to the throw)
 *   cpp_cancel scope BASE_URL APP_ID APP_KEY
 *       a CancelScope around calls without an overload (init, call); a stopped token cancels
 *       at once; out of the scope, calls run again
 *
 * With $VERIFY_HOST_CA the client trusts that CA too (the lab's https sandbox).
 */

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "verify.hpp"

#include "cpp_check.hpp"

namespace
{

using Clock = std::chrono::steady_clock;

verify::Client client_of(const char *base_url, const char *app_id, const char *app_key)
{
    verify::ClientOptions options;
    const char *ca = std::getenv("VERIFY_HOST_CA");
    if (ca != nullptr && ca[0] != '\0') {
        options.root_files.emplace_back(ca);
    }
    return verify::Client(base_url, app_id, app_key, options);
}

/* The doctor of `client` under `cancel`. */
[[maybe_unused]] verify::Diagnosis doctor(const verify::Client &client,
                                          const verify::CancelToken &cancel)
{
    return verify::diagnose(client, {}, &cancel);
}

#if VERIFY_HAS_STOP_TOKEN
[[maybe_unused]] verify::Diagnosis doctor(const verify::Client &client, std::stop_token cancel)
{
    return verify::diagnose(std::move(cancel), client);
}
#endif

/* The call of `what` under `cancel` (a std::stop_token or a verify::CancelToken). */
template <typename Token>
void call(const verify::Client &client, const Token &cancel, const std::string &what,
          const char *card, const char *mac)
{
    if (what == "doctor") {
        (void)doctor(client, cancel);
    } else if (what == "login") {
        (void)client.single_login(cancel, card, mac).value();
    } else {
        (void)client.get_bulletin(cancel).value();
    }
}

template <typename Token, typename Cancel>
int inflight(const verify::Client &client, const Token &token, Cancel cancel, long after_ms,
             const std::string &what, const char *card, const char *mac)
{
    Clock::time_point cancelled_at;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
        cancelled_at = Clock::now();
        cancel();
    });
    verify::Code code = verify::Code::ok;
    std::string message;
    try {
        call(client, token, what, card, mac);
    } catch (const verify::Error &error) {
        code = error.code();
        message = error.what();
    }
    Clock::time_point returned = Clock::now();
    canceller.join();
    CHECK(code == verify::Code::err_cancelled);
    auto late = std::chrono::duration<double, std::milli>(returned - cancelled_at).count();
    std::printf("cancelled code=%d after_cancel_ms=%.1f message=%s\n", static_cast<int>(code), late,
                message.c_str());
    return check::summary("inflight");
}

int scope(const char *base_url, const char *app_id, const char *app_key)
{
    verify::Client client = client_of(base_url, app_id, app_key);
    verify::CancelToken token;
    CHECK(!token.cancelled());
    {
        verify::CancelScope watching(token);
        CHECK(check::thrown([&] { (void)client.init(); }) == 0);
        token.cancel();
        CHECK(token.cancelled());
        CHECK(check::thrown([&] { (void)client.call("GetBulletin", {}); }) ==
              verify::codes::err_cancelled);
        CHECK(check::thrown([&] { (void)client.get_bulletin(); }) == verify::codes::err_cancelled);
    }
    CHECK(check::thrown([&] { (void)client.get_bulletin().value(); }) == 0);
#if VERIFY_HAS_STOP_TOKEN
    std::stop_source stopped;
    stopped.request_stop();
    CHECK(check::thrown([&] { (void)client.get_bulletin(stopped.get_token()); }) ==
          verify::codes::err_cancelled);
    std::stop_source fresh;
    CHECK(check::thrown([&] { (void)client.get_bulletin(fresh.get_token()).value(); }) == 0);
#endif
    return check::summary("scope");
}

} // namespace

int main(int argc, char **argv)
{
    if (argc >= 5 && std::strcmp(argv[1], "scope") == 0) {
        return scope(argv[2], argv[3], argv[4]);
    }
    if (argc >= 8 && std::strcmp(argv[1], "inflight") == 0) {
        verify::Client client = client_of(argv[3], argv[4], argv[5]);
        long after_ms = std::strtol(argv[6], nullptr, 10);
        std::string what = argv[7];
        const char *card = argc >= 10 ? argv[8] : "";
        const char *mac = argc >= 10 ? argv[9] : "";
        if (std::strcmp(argv[2], "token") == 0) {
            verify::CancelToken token;
            return inflight(
                client, token, [&token] { token.cancel(); }, after_ms, what, card, mac);
        }
#if VERIFY_HAS_STOP_TOKEN
        std::stop_source source;
        return inflight(
            client, source.get_token(), [&source] { source.request_stop(); }, after_ms, what, card,
            mac);
#else
        std::fprintf(stderr, "cpp_cancel: built without std::stop_token (C++17): use `token`\n");
        return 2;
#endif
    }
    std::fprintf(
        stderr,
        "usage: cpp_cancel inflight stop|token BASE_URL APP_ID APP_KEY AFTER_MS "
        "bulletin|login|doctor [CARD MAC]\n       cpp_cancel scope BASE_URL APP_ID APP_KEY\n");
    return 2;
}
