/*
 * demo.cpp: the tour of demo.c, through the C++ binding verify.hpp.
 *
 *   demo_cpp BASE_URL [APP_ID APP_KEY]
 *
 * APP_ID and APP_KEY default to the program of sandbox/fixtures/demo.json (10001). The demo
 * walks both authorization modes of the service, step by step:
 *
 *   card mode     verify::Client, init, single_login, heartbeat(SessionKind::Card), and
 *                 single_login of the same card on another machine, which the server
 *                 refuses with 1022: a refusal is a Reply, not an exception
 *   account mode  user_register (with a card), user_login, heartbeat(SessionKind::User),
 *                 user_recharge, change_bind, user_login on the new machine
 *   extras        get_bulletin, get_latest_version, get_variables
 *
 * For each step it prints the call, the result code, verify::describe(code) (for the
 * developer), verify::user_message(code) (for the user, in the machine's language), the server's
 * message and the reply's fields, read by JSON Pointer (verify::field("token") is
 * "/data/token"); a field the server left out prints as (absent), never as an error. Every step expects 200, except the refused login (1022).
 * A local failure (verify::Error: network, timeout, ...) is reported with its code and
 * message. The demo spends the cards DEMO-REGN-0000-0001 and DEMO-RECH-0000-0001, so run it
 * against a freshly started sandbox. Exit status: 0 when every step got its expected code,
 * 1 otherwise, 2 for a usage error.
 *
 * Build (from the repository root, after `cargo build`):
 *   c++ -std=c++17 -Wall -Wextra -Werror -pedantic -I include examples-c/demo.cpp \
 *       -L target/debug -lverify -Wl,-rpath,target/debug -o demo_cpp
 */

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <exception>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "verify.hpp"

namespace
{

const char *const default_app_id = "10001";
const char *const default_app_key = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345";

const char *const card_login = "DEMO-CARD-0000-0001";
const char *const card_register = "DEMO-REGN-0000-0001";
const char *const card_recharge = "DEMO-RECH-0000-0001";
const char *const machine_card = "DEMO-MACHINE-CARD-0001";
const char *const machine_other = "DEMO-MACHINE-OTHER-0003";
const char *const machine_a = "DEMO-MACHINE-A-0001";
const char *const machine_b = "DEMO-MACHINE-B-0002";
const char *const password = "demo-Passw0rd";

/* Which fields a step prints, and how. */
enum class Kind {
    Text, // Reply::str, as it is
    Secret, // Reply::str, shortened (tokens)
    Integer, // Reply::integer
    Boolean, // Reply::boolean
    Json, // Reply::json, the whole reply (the name is only a label)
};

/* A field of the reply's data: `name` is its key in /data. */
struct Field {
    const char *name;
    Kind kind;
};

void print_line(const std::string &label, const std::string &value)
{
    std::printf("      %-14s %s\n", label.c_str(), value.c_str());
}

void print_field(const verify::Reply &reply, const Field &field)
{
    switch (field.kind) {
        case Kind::Integer: {
            std::optional<std::int64_t> value = reply.integer(verify::field(field.name));
            print_line(field.name, value ? std::to_string(*value) : "(absent)");
            return;
        }
        case Kind::Boolean: {
            std::optional<bool> value = reply.boolean(verify::field(field.name));
            print_line(field.name, value ? (*value ? "true" : "false") : "(absent)");
            return;
        }
        case Kind::Json:
            print_line(field.name, reply.json());
            return;
        case Kind::Text:
        case Kind::Secret:
            break;
    }
    std::optional<std::string> text = reply.str(verify::field(field.name));
    if (!text) {
        print_line(field.name, "(absent)");
    } else if (field.kind == Kind::Secret && text->size() > 8) {
        // Never print a whole token: its first characters are enough to tell them apart.
        print_line(field.name,
                   text->substr(0, 4) + "\xe2\x80\xa6(" + std::to_string(text->size()) + " chars)");
    } else {
        print_line(field.name, "\"" + *text + "\"");
    }
}

class Demo
{
  public:
    /*
     * Runs one step: `call` makes one call of the binding. Prints the code, description,
     * message and (on success) `fields`; on a refusal the remark. Returns the Reply when
     * its code is `expected`, otherwise records the failure and returns std::nullopt.
     */
    std::optional<verify::Reply> step(const std::string &name,
                                      const std::function<verify::Reply()> &call,
                                      std::initializer_list<Field> fields,
                                      std::int32_t expected = verify::codes::ok)
    {
        steps_++;
        std::optional<verify::Reply> reply;
        std::int32_t code = 0;
        std::string error;
        try {
            reply.emplace(call());
            code = verify::to_int(reply->code());
        } catch (const verify::Error &e) {
            // No answer from the server: there is no Reply, only the local failure.
            code = verify::to_int(e.code());
            error = e.what();
        }

        std::printf("\n[%s] code %d (%s)\n", name.c_str(), static_cast<int>(code),
                    std::string(verify::describe(code)).c_str());
        print_line("for the user", "\"" + std::string(verify::user_message(code)) + "\"");
        if (reply) {
            print_line("message", "\"" + reply->message() + "\"");
            if (reply->ok()) {
                for (const Field &field : fields) {
                    print_field(*reply, field);
                }
            } else if (std::optional<std::string> remark = reply->remark()) {
                // Refusals may carry data.remark (1006: the reason, 1022: the bound machine).
                print_line("remark", "\"" + *remark + "\"");
            }
        } else {
            print_line("message", "(no reply from the server)");
            print_line("error", error);
        }

        if (code == expected) {
            std::printf("      -> ok (expected %d)\n", static_cast<int>(expected));
            return reply;
        }
        std::printf("      -> FAILED: expected %d (%s), got %d\n", static_cast<int>(expected),
                    std::string(verify::describe(expected)).c_str(), static_cast<int>(code));
        failed_.push_back(name);
        return std::nullopt;
    }

    /* A field of a successful step's reply that later steps need; a failure when absent. */
    std::optional<std::string> keep(const std::string &name, const verify::Reply &reply,
                                    const char *field)
    {
        std::optional<std::string> value = reply.str(verify::field(field));
        if (!value) {
            std::printf("      -> FAILED: the reply has no `%s`\n", field);
            failed_.push_back(name);
        }
        return value;
    }

    /* An extra check of a step, recorded like a wrong code. */
    bool expect(const std::string &name, bool holds, const std::string &what)
    {
        if (!holds) {
            std::printf("      -> FAILED: %s\n", what.c_str());
            failed_.push_back(name);
        }
        return holds;
    }

    int finish() const
    {
        if (failed_.empty()) {
            std::printf("\nPASSED: all %d steps got their expected code\n", steps_);
            return 0;
        }
        std::printf("\nFAILED: %d of %d steps did not get their expected code:",
                    static_cast<int>(failed_.size()), steps_);
        for (const std::string &name : failed_) {
            std::printf(" %s", name.c_str());
        }
        std::printf("\n");
        return 1;
    }

  private:
    int steps_ = 0;
    std::vector<std::string> failed_;
};

void card_mode(Demo &demo, const verify::Client &client)
{
    std::printf("\n=== card mode: card %s on machine %s ===\n", card_login, machine_card);

    // Optional: the first action would run Init itself. Its reply's data is the session
    // secret, which the library keeps and the demo does not print.
    if (!demo.step("client.init", [&] { return client.init(); }, {})) {
        return;
    }

    std::optional<verify::Reply> login =
        demo.step("client.single_login",
                  [&] { return client.single_login(card_login, machine_card, "demo machine"); },
                  {{"token", Kind::Secret},
                   {"status", Kind::Text},
                   {"is_times", Kind::Boolean},
                   {"card_type", Kind::Text},
                   {"expire_at", Kind::Text}});
    if (!login) {
        return;
    }
    std::optional<std::string> token = demo.keep("client.single_login", *login, "token");
    if (!token) {
        return;
    }

    demo.step("client.heartbeat(SessionKind::Card)",
              [&] { return client.heartbeat(*token, verify::SessionKind::Card); },
              {{"expire_at", Kind::Text}, {"status", Kind::Text}, {"msg", Kind::Text}});

    // The card is now bound to machine_card: on another machine the server refuses with
    // 1022 and names the bound machine in remark. A refusal is an answer, not an exception.
    std::optional<verify::Reply> refused = demo.step(
        "client.single_login(other machine)",
        [&] { return client.single_login(card_login, machine_other); }, {},
        verify::codes::machine_changed);
    if (refused) {
        demo.expect("client.single_login(other machine)",
                    refused->remark() == std::optional<std::string>(machine_card),
                    std::string("remark is not the bound machine ") + machine_card);
    }
}

void account_mode(Demo &demo, const verify::Client &client)
{
    const std::initializer_list<Field> login_fields = {
        {"username", Kind::Text}, {"device_id", Kind::Text}, {"token", Kind::Secret},
        {"status", Kind::Text},   {"expire_at", Kind::Text}, {"remark", Kind::Text}};

    // A username unique per run, so the demo can run again against the same program.
    std::random_device entropy;
    const std::string username = "demo_cpp_" + std::to_string(std::time(nullptr)) + "_" +
                                 std::to_string(entropy() % 1000000U);
    std::printf("\n=== account mode: user %s, card %s, machine %s then %s ===\n", username.c_str(),
                card_register, machine_a, machine_b);

    if (!demo.step("client.user_register",
                   [&] {
                       return client.user_register(username, password, card_register, machine_a,
                                                   "demo machine A");
                   },
                   {{"username", Kind::Text},
                    {"user_id", Kind::Integer},
                    {"token", Kind::Secret},
                    {"status", Kind::Text},
                    {"expire_at", Kind::Text}})) {
        return;
    }

    std::optional<verify::Reply> login = demo.step(
        "client.user_login(machine A)",
        [&] { return client.user_login(username, password, machine_a); }, login_fields);
    if (!login) {
        return;
    }
    std::optional<std::string> token = demo.keep("client.user_login(machine A)", *login, "token");
    if (!token) {
        return;
    }

    if (!demo.step("client.heartbeat(SessionKind::User)",
                   [&] { return client.heartbeat(*token, verify::SessionKind::User); },
                   {{"expire_at", Kind::Text}, {"status", Kind::Text}, {"msg", Kind::Text}})) {
        return;
    }

    if (!demo.step("client.user_recharge",
                   [&] { return client.user_recharge(username, card_recharge); },
                   {{"username", Kind::Text},
                    {"added_days", Kind::Text},
                    {"expire_at", Kind::Text},
                    {"status", Kind::Text}})) {
        return;
    }

    if (!demo.step("client.change_bind",
                   [&] { return client.change_bind(username, password, machine_b); },
                   {{"username", Kind::Text},
                    {"device_id", Kind::Text},
                    {"bind_count", Kind::Integer},
                    {"bind_limit", Kind::Integer}})) {
        return;
    }

    demo.step(
        "client.user_login(machine B)",
        [&] { return client.user_login(username, password, machine_b); }, login_fields);
}

void extras(Demo &demo, const verify::Client &client)
{
    std::printf("\n=== extras ===\n");

    demo.step("client.get_bulletin", [&] { return client.get_bulletin(); },
              {{"bulletin", Kind::Text}, {"updated_at", Kind::Text}});

    demo.step("client.get_latest_version", [&] { return client.get_latest_version("1.0.0"); },
              {{"version", Kind::Text},
               {"changelog", Kind::Text},
               {"download_url", Kind::Text},
               {"force_update", Kind::Boolean},
               {"has_update", Kind::Boolean}});

    // All variables: show the whole reply as JSON (reply.json("/data/variables") is the
    // object alone; one variable NAME is reply.str(verify::pointer({"data", "variables",
    // NAME})), or client.get_variable(NAME) asks for it alone).
    demo.step("client.get_variables", [&] { return client.get_variables(); },
              {{"(json)", Kind::Json}});
}

int run(int argc, char **argv)
{
    if (argc != 2 && argc != 4) {
        std::fprintf(stderr, "usage: %s BASE_URL [APP_ID APP_KEY]\n", argv[0]);
        return 2;
    }
    const std::string base_url = argv[1];
    const std::string app_id = argc == 4 ? argv[2] : default_app_id;
    const std::string app_key = argc == 4 ? argv[3] : default_app_key;

    std::printf(
        "verify C++ demo: library %s (ABI %u, header ABI %u), server %s, program %s\n",
        std::string(verify::version()).c_str(), static_cast<unsigned>(verify::abi_version()),
        static_cast<unsigned>(verify::header_abi_version), base_url.c_str(), app_id.c_str());
    if (verify::abi_version() != verify::header_abi_version) {
        std::fprintf(stderr, "demo_cpp: the library's ABI version differs from the header's\n");
        return 1;
    }

    Demo demo;
    // The AppKey goes to the library only; it is never printed.
    std::optional<verify::Client> client;
    try {
        client.emplace(base_url, app_id, app_key);
        client->set_timeouts(std::chrono::seconds(10), std::chrono::seconds(30));
        std::printf("\n[verify::Client] code %d (%s)\n", verify::codes::ok,
                    std::string(verify::describe(verify::codes::ok)).c_str());
    } catch (const verify::Error &e) {
        std::printf("\n[verify::Client] code %d (%s)\n      %-14s %s\n", static_cast<int>(e.code()),
                    std::string(e.description()).c_str(), "error", e.what());
        std::printf("\nFAILED: verify::Client; nothing else can run\n");
        return 1;
    }

    card_mode(demo, *client);
    account_mode(demo, *client);
    extras(demo, *client);

    client.reset(); // frees the client (its secrets are wiped) before the summary
    return demo.finish();
}

} // namespace

int main(int argc, char **argv)
{
    try {
        return run(argc, argv);
    } catch (const std::exception &e) {
        // Only an unexpected failure gets here (out of memory, an Error outside a step).
        std::fprintf(stderr, "demo_cpp: %s\n", e.what());
        return 1;
    }
}
