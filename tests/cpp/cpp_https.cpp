/*
 * cpp_https.cpp: https through verify.hpp (verify::ClientOptions) against the sandbox, the
 * six https cases. Driven by tests/cpp/https.rs (see HttpsCases in
 * tests/common/host/https.rs), with three https sandboxes: a chain for 127.0.0.1 signed by a CA
 * of its own, a chain for another name, an expired chain.
 *
 *   cpp_https GOOD_URL WRONG_NAME_URL EXPIRED_URL APP_ID APP_KEY CA_FILE WRONG_NAME_CA_FILE
 *             EXPIRED_CA_FILE PIN WRONG_PIN CARD
 *
 * Prints `case NAME CODE TEXT` per case: the code of the Reply (200) or of the verify::Error
 * thrown, and TEXT the token's length (`token N`, the login) or the error's what(). The
 * Rust test checks the codes; exit 0 unless the command line is wrong.
 */

#include "verify.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace
{

/* A client's options with short timeouts (a hang fails the test rather than stalling it). */
verify::ClientOptions with_timeouts()
{
    verify::ClientOptions options;
    options.connect_timeout = std::chrono::seconds(5);
    options.call_timeout = std::chrono::seconds(15);
    return options;
}

/* `what` without line breaks, to stay on its line. */
std::string one_line(std::string text)
{
    for (char &c : text) {
        if (c == '\n' || c == '\r') {
            c = ' ';
        }
    }
    return text;
}

/* Runs `call` and prints `case NAME CODE TEXT`: the reply's code (and `text(reply)`), or
 * the code and message of the verify::Error thrown. */
void run_case(const char *name, const std::function<verify::Reply()> &call,
              const std::function<std::string(const verify::Reply &)> &text)
{
    try {
        verify::Reply reply = call();
        std::printf("case %s %d %s\n", name, static_cast<int>(reply.code()), text(reply).c_str());
    } catch (const verify::Error &e) {
        std::printf("case %s %d %s\n", name, static_cast<int>(e.code()),
                    one_line(e.what()).c_str());
    }
    std::fflush(stdout);
}

std::string nothing(const verify::Reply &)
{
    return std::string();
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 12) {
        std::fprintf(stderr,
                     "usage: %s GOOD_URL WRONG_NAME_URL EXPIRED_URL APP_ID APP_KEY CA_FILE "
                     "WRONG_NAME_CA_FILE EXPIRED_CA_FILE PIN WRONG_PIN CARD\n",
                     argv[0]);
        return 2;
    }
    const std::string good = argv[1], wrong_name = argv[2], expired = argv[3];
    const std::string app = argv[4], key = argv[5];
    const std::string ca_file = argv[6], wrong_name_ca = argv[7], expired_ca = argv[8];
    const std::string pin = argv[9], wrong_pin = argv[10], card = argv[11];

    // The custom CA alone: a login, with its token.
    run_case(
        "custom_ca",
        [&] {
            verify::ClientOptions options = with_timeouts();
            options.trust = verify::Trust::None;
            options.root_files = {ca_file};
            return verify::Client(good, app, key, options).single_login(card, "MAC-CPP-HTTPS");
        },
        [](const verify::Reply &reply) {
            return "token " + std::to_string(reply.str("/data/token").value_or("").size());
        });

    // Mozilla's roots alone: the sandbox's CA is unknown to them.
    run_case(
        "mozilla_only",
        [&] {
            verify::ClientOptions options = with_timeouts();
            options.trust = verify::Trust::Mozilla;
            return verify::Client(good, app, key, options).get_bulletin();
        },
        nothing);

    // The leaf's pin and no CA at all.
    run_case(
        "pin",
        [&] {
            verify::ClientOptions options = with_timeouts();
            options.trust = verify::Trust::None;
            options.pins = {pin};
            return verify::Client(good, app, key, options).get_bulletin();
        },
        nothing);

    // A chain the CA vouches for, but the pin of another key: the pin's own code.
    run_case(
        "wrong_pin",
        [&] {
            verify::ClientOptions options = with_timeouts();
            options.root_files = {ca_file};
            options.pins = {wrong_pin};
            return verify::Client(good, app, key, options).get_bulletin();
        },
        nothing);

    // A trusted chain for another name.
    run_case(
        "wrong_name",
        [&] {
            verify::ClientOptions options = with_timeouts();
            options.trust = verify::Trust::None;
            options.root_files = {wrong_name_ca};
            return verify::Client(wrong_name, app, key, options).get_bulletin();
        },
        nothing);

    // A trusted chain whose leaf expired.
    run_case(
        "expired",
        [&] {
            verify::ClientOptions options = with_timeouts();
            options.trust = verify::Trust::None;
            options.root_files = {expired_ca};
            return verify::Client(expired, app, key, options).get_bulletin();
        },
        nothing);
    return 0;
}
