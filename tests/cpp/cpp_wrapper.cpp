/*
 * cpp_wrapper.cpp: the contract of verify.hpp, checked at compile time and against the
 * sandbox (driven by tests/cpp/demo.rs).
 *
 *   cpp_wrapper BASE_URL APP_ID APP_KEY CARD RECHARGE_CARD USERNAME PASSWORD ALTERNATE_APP_ID
 *
 * APP_ID is a program with the variables greeting, limit, "a.b" and "x/y~z", CARD a fresh
 * 30-day card, RECHARGE_CARD another one, USERNAME/PASSWORD an active account;
 * ALTERNATE_APP_ID a program whose replies use the sandbox's `alternate` dialect (other
 * field names, extra fields, missing fields). Prints `wrapper checks: N failed`; exit 0
 * when N is 0.
 *
 * Checked: owners are move-only and never throw from moves or destructors; refusals come
 * back as Replies while local failures throw verify::Error; fields are read by JSON Pointer
 * and say "absent" with std::nullopt (never an error, even in another dialect); pointer()
 * and field() escape names; a malformed pointer, an argument with a NUL and a moved-from
 * owner throw codes::err_invalid_argument.
 */

#include "verify.hpp"
#include "verify.hpp" // the include guard makes the second inclusion harmless

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpp_check.hpp"

// Owners are move-only, moves never throw, destructors never throw.
static_assert(!std::is_copy_constructible_v<verify::Client>, "Client is not copyable");
static_assert(!std::is_copy_assignable_v<verify::Client>, "Client is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::Client>, "Client moves");
static_assert(std::is_nothrow_move_assignable_v<verify::Client>, "Client move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::Client>, "~Client does not throw");
static_assert(!std::is_default_constructible_v<verify::Client>, "a Client needs a program");
static_assert(!std::is_copy_constructible_v<verify::Reply>, "Reply is not copyable");
static_assert(!std::is_copy_assignable_v<verify::Reply>, "Reply is not copy-assignable");
static_assert(std::is_nothrow_move_constructible_v<verify::Reply>, "Reply moves");
static_assert(std::is_nothrow_move_assignable_v<verify::Reply>, "Reply move-assigns");
static_assert(std::is_nothrow_destructible_v<verify::Reply>, "~Reply does not throw");
// Error is a std::runtime_error that can be copied without throwing.
static_assert(std::is_base_of_v<std::runtime_error, verify::Error>, "Error is a runtime_error");
static_assert(std::is_nothrow_copy_constructible_v<verify::Error>, "Error copies");
// The codes are the C API's integers.
static_assert(verify::codes::ok == VERIFY_OK && verify::codes::card_invalid == 1004, "codes");
static_assert(verify::codes::err_network == VERIFY_ERR_NETWORK, "local codes");
static_assert(verify::codes::err_system == VERIFY_ERR_SYSTEM && verify::codes::err_system == -10,
              "ABI 2 code");
static_assert(verify::codes::err_no_such_field == VERIFY_ERR_NO_SUCH_FIELD, "ABI 2 code");
static_assert(static_cast<std::int32_t>(verify::SessionKind::User) == VERIFY_SESSION_USER, "kind");
static_assert(verify::header_abi_version == 2, "the ABI 2 header");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().code()), verify::Code>,
              "Reply::code() is a verify::Code");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().integer("/x")),
                             std::optional<std::int64_t>>,
              "integer() is optional");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().boolean("/x")),
                             std::optional<bool>>,
              "boolean() is optional");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().json("/x")),
                             std::optional<std::string>>,
              "json(pointer) is optional");
static_assert(std::is_same_v<decltype(std::declval<const verify::Reply &>().json()), std::string>,
              "json() is the whole reply");

using check::thrown;

int main(int argc, char **argv)
{
    if (argc != 9) {
        std::fprintf(stderr,
                     "usage: %s BASE_URL APP_ID APP_KEY CARD RECHARGE_CARD USERNAME PASSWORD "
                     "ALTERNATE_APP_ID\n",
                     argv[0]);
        return 2;
    }
    const std::string base = argv[1], app = argv[2], key = argv[3], card = argv[4],
                      recharge = argv[5], user = argv[6], password = argv[7], alternate = argv[8];
    using verify::codes::err_invalid_argument;

    CHECK(!verify::version().empty());
    CHECK(verify::abi_version() == verify::header_abi_version);
    CHECK(!verify::describe(verify::codes::machine_changed).empty());
    CHECK(!verify::describe(verify::codes::err_system).empty());

    // The end user's messages: in the language asked, or the process's; describe() stays
    // the developer's English.
    CHECK(verify::user_message(verify::codes::err_network, "zh-CN") ==
          "\u65e0\u6cd5\u8fde\u63a5\u9a8c\u8bc1\u670d\u52a1\u5668\uff0c\u8bf7\u68c0\u67e5"
          "\u7f51\u7edc\u540e\u91cd\u8bd5\u3002"); // 无法连接验证服务器，请检查网络后重试。
    verify::set_language("en");
    CHECK(verify::language() == "en");
    CHECK(verify::user_message(verify::codes::wrong_password) ==
          "Wrong password. Please check it and try again.");
    try {
        verify::set_language("zh CN");
        CHECK(false);
    } catch (const verify::Error &e) {
        CHECK(e.code() == err_invalid_argument);
    }
    verify::set_language("");
    CHECK(verify::describe(verify::codes::err_network) ==
          "network error: server unreachable or connection broken");

    // JSON Pointers: field() and pointer() escape "~" and "/" (RFC 6901), nothing else.
    CHECK(verify::field("token") == "/data/token");
    CHECK(verify::field("a.b") == "/data/a.b");
    CHECK(verify::field("x/y~z") == "/data/x~1y~0z");
    CHECK(verify::field("") == "/data/");
    CHECK(verify::pointer({}).empty());
    CHECK(verify::pointer({"data", "variables", "a/b"}) == "/data/variables/a~1b");
    CHECK(verify::pointer({"data", "list", "0"}) == "/data/list/0");
    CHECK(verify::pointer({"~1"}) == "/~01");

    // Constructor failures throw (an embedded NUL would be cut by C: refused here).
    CHECK(thrown([&] { verify::Client bad("ftp://nowhere", app, key); }) == err_invalid_argument);
    CHECK(thrown([&] { verify::Client bad(base, "", key); }) == err_invalid_argument);
    CHECK(thrown([&] {
              verify::Client bad(base,
                                 std::string("1\0"
                                             "2",
                                             3),
                                 key);
          }) == err_invalid_argument);
    // ABI 2 parses the base URL in full: no /api/verify, no query, no non-ASCII host.
    CHECK(thrown([&] { verify::Client bad(base + "/api/verify", app, key); }) ==
          err_invalid_argument);
    CHECK(thrown([&] { verify::Client bad(base + "?x=1", app, key); }) == err_invalid_argument);
    CHECK(thrown([&] {
              verify::Client bad("http://b\xc3\xbc"
                                 "cher.example",
                                 app, key);
          }) == err_invalid_argument);

    verify::Client client(base, app, key);
    CHECK(static_cast<bool>(client));
    CHECK(thrown([&] {
              client.set_timeouts(std::chrono::milliseconds(0), std::chrono::seconds(1));
          }) == err_invalid_argument);
    CHECK(thrown([&] { client.set_timeouts(std::chrono::seconds(1), std::chrono::hours(2000)); }) ==
          err_invalid_argument);
    CHECK(thrown([&] { client.set_timeouts(std::chrono::seconds(5), std::chrono::seconds(20)); }) ==
          0);

    // A refusal is a Reply, not an exception.
    {
        verify::Reply refused = client.get_card_info("NO-SUCH-CARD-0000");
        CHECK(refused.code() == verify::codes::card_invalid);
        CHECK(!refused.ok() && !refused.pending());
        CHECK(!refused.message().empty());
        CHECK(refused.json().find("1004") != std::string::npos);
        CHECK(refused.integer("/code") == std::optional<std::int64_t>(verify::codes::card_invalid));
        CHECK(refused.str("/message") == std::optional<std::string>(refused.message()));
        CHECK(!refused.str("/data/card").has_value());
    }
    {
        verify::Reply wrong = client.user_login(user, "not-the-password", std::string("MACHINE-W"));
        CHECK(wrong.code() == verify::codes::wrong_password);
    }

    // A successful login, its fields, and moving the reply around.
    verify::Reply login =
        client.single_login(card, "CPP-CHECK-MACHINE", std::string("check machine"));
    CHECK(login.ok());
    std::optional<std::string> token = login.str("/data/token");
    CHECK(token && token->size() == 40);
    CHECK(login.str(verify::field("token")) == token);
    CHECK(login.boolean("/data/is_times") == std::optional<bool>(false));
    CHECK(login.integer("/code") == std::optional<std::int64_t>(200));
    // Absent, or of another type: std::nullopt, never an exception.
    CHECK(!login.boolean("/data/no_such_field").has_value());
    CHECK(!login.integer("/data/no_such_field").has_value());
    CHECK(!login.str("/data/no_such_field").has_value());
    CHECK(!login.json("/data/no_such_field").has_value());
    CHECK(!login.integer("/data/token").has_value()); // a string, not an integer
    CHECK(!login.boolean("/data/token").has_value());
    CHECK(!login.str("/data").has_value()); // an object is not text
    CHECK(login.json("/data").value_or("").find("\"token\"") != std::string::npos);
    CHECK(login.json("/data/is_times") == std::optional<std::string>("false"));
    CHECK(login.json("") == std::optional<std::string>(login.json()));
    // A malformed pointer is the caller's mistake: it throws (the dotted names of ABI 1 too).
    CHECK(thrown([&] { (void)login.str("token"); }) == err_invalid_argument);
    CHECK(thrown([&] { (void)login.integer("data/token"); }) == err_invalid_argument);
    CHECK(thrown([&] { (void)login.str(std::string("/data/tok\0en", 12)); }) ==
          err_invalid_argument);

    verify::Reply moved = std::move(login);
    CHECK(!login); // NOLINT: testing the moved-from state on purpose
    CHECK(static_cast<bool>(moved) && moved.ok());
    CHECK(thrown([&] { (void)login.code(); }) == err_invalid_argument);
    CHECK(thrown([&] { (void)login.message(); }) == err_invalid_argument);
    CHECK(thrown([&] { (void)login.str("/data/token"); }) == err_invalid_argument);
    CHECK(thrown([&] { (void)login.json(); }) == err_invalid_argument);
    verify::Reply other = client.get_bulletin();
    other = std::move(moved);
    CHECK(other.str("/data/token") == token);

    const std::string session = token.value_or("");
    CHECK(client.heartbeat(session, verify::SessionKind::Card).ok());
    CHECK(thrown([&] {
              (void)client.heartbeat(session + std::string(1, '\0'), verify::SessionKind::Card);
          }) == err_invalid_argument);
    CHECK(thrown([&] { (void)client.heartbeat(session, static_cast<verify::SessionKind>(7)); }) ==
          err_invalid_argument);

    // integer() tells a present 0 from an absent field.
    {
        verify::Reply info = client.get_user_info(user, password);
        CHECK(info.ok());
        CHECK(info.integer("/data/bind_count") == std::optional<std::int64_t>(0));
        CHECK(info.str("/data/bind_count") == std::optional<std::string>("0"));
        CHECK(info.integer("/data/user_id").value_or(0) > 0);
        CHECK(info.str("/data/username") == std::optional<std::string>(user));
    }

    // The renewal branch of UserLogin is its own call: it renews and gives no token.
    {
        verify::Reply renewed = client.user_login_with_card(user, password, recharge);
        CHECK(renewed.ok());
        CHECK(renewed.integer("/data/added_days") == std::optional<std::int64_t>(30));
        CHECK(renewed.str("/data/expire_at").has_value());
        CHECK(!renewed.str("/data/token").has_value());
        CHECK(thrown([&] { (void)client.user_login_with_card(user, password, ""); }) ==
              err_invalid_argument);
    }

    // Variables: one by name (required), all at once; keys with a dot, a slash and a tilde.
    {
        verify::Reply one = client.get_variable("greeting");
        CHECK(one.ok() && one.str("/data/value") == std::optional<std::string>("你好 & welcome"));
        CHECK(thrown([&] { (void)client.get_variable(""); }) == err_invalid_argument);
        verify::Reply all = client.get_variables();
        CHECK(all.ok());
        CHECK(all.str("/data/variables/limit") == std::optional<std::string>("5"));
        CHECK(!all.integer("/data/variables/limit").has_value()); // a string, not an integer
        CHECK(all.str("/data/variables/a.b") == std::optional<std::string>("dotted"));
        CHECK(all.str(verify::pointer({"data", "variables", "x/y~z"})) ==
              std::optional<std::string>("slashed"));
        CHECK(!all.str("/data/variables/x/y~0z").has_value()); // unescaped "/": another path
        std::optional<std::string> names = all.json("/data/variables");
        CHECK(names && names->find("\"greeting\"") != std::string::npos &&
              names->find("\"x/y~z\"") != std::string::npos);
        // The typed map: every name the library lists (a dot, a slash, a tilde), its value.
        verify::Result<verify::Variables> typed = client.get_variables();
        CHECK(typed && typed->variables.has_value());
        if (typed && typed->variables) {
            const std::map<std::string, std::string> expected{{"a.b", "dotted"},
                                                              {"greeting", "你好 & welcome"},
                                                              {"limit", "5"},
                                                              {"x/y~z", "slashed"}};
            CHECK(*typed->variables == expected);
        }
    }

    // The generic call, and a string_view that is not NUL-terminated.
    {
        verify::Reply bulletin = client.call(std::string_view("GetBulletin-not-this-part", 11));
        CHECK(bulletin.ok() && bulletin.str("/data/bulletin").has_value());
        verify::Reply unknown = client.call("NoSuchAction", {{"Key", "value"}});
        CHECK(unknown.code() == verify::codes::unknown_action);
        CHECK(thrown([&] {
                  (void)client.call("GetBulletin", {{std::string("K\0", 2), "v"}});
              }) == err_invalid_argument);
        // A request body over 1 MiB is refused before anything is sent (each string may have
        // 65536 bytes: twenty of 60000 make one).
        std::vector<std::pair<std::string, std::string>> large;
        for (int index = 0; index < 20; ++index) {
            large.emplace_back("K" + std::to_string(index), std::string(60000, 'x'));
        }
        CHECK(thrown([&] { (void)client.call("GetBulletin", large); }) ==
              verify::codes::err_too_large);
        CHECK(thrown([&] {
                  (void)client.call("GetBulletin", {{"Key", std::string(65537, 'x')}});
              }) == err_invalid_argument);
        CHECK(client.get_latest_version(std::nullopt).boolean("/data/has_update") ==
              std::optional<bool>(true));
    }

    // Social login: step 2 answers 201 until the user authorizes: pending(), not an error.
    {
        verify::Reply start = client.social_login_start(std::string("CPP-CHECK-MACHINE"));
        CHECK(start.ok());
        std::optional<std::string> state = start.str("/data/state");
        CHECK(state.has_value());
        verify::Reply poll = client.social_login_poll(state.value_or("x"));
        CHECK(poll.pending() && poll.code() == verify::codes::pending);
    }

    // Another dialect of the service: other names, extra fields, missing fields. Every call
    // still returns its Reply (200); the documented names are absent, the others readable.
    {
        verify::Client other_dialect(base, alternate, key);
        verify::Reply bulletin = other_dialect.get_bulletin();
        CHECK(bulletin.ok());
        CHECK(!bulletin.str("/data/bulletin").has_value());
        CHECK(bulletin.str("/data/notice").has_value());
        CHECK(bulletin.boolean("/data/pinned") == std::optional<bool>(false));
        verify::Reply latest = other_dialect.get_latest_version(std::string("1.0.0"));
        CHECK(latest.ok());
        CHECK(!latest.boolean("/data/has_update").has_value());
        CHECK(!latest.str("/data/version").has_value());
        CHECK(latest.str("/data/latest_version").has_value());
        CHECK(latest.integer("/data/build") == std::optional<std::int64_t>(1024));
        verify::Reply variables = other_dialect.get_variables();
        CHECK(variables.ok());
        CHECK(!variables.json("/data/variables").has_value());
        CHECK(variables.json("/data/vars").has_value());
    }

    // A moved-from client refuses calls (the library sees NULL); the target works.
    verify::Client second = std::move(client);
    CHECK(!client); // NOLINT: testing the moved-from state on purpose
    CHECK(thrown([&] { (void)client.get_bulletin(); }) == err_invalid_argument);
    CHECK(second.get_bulletin().ok());
    client = std::move(second);
    CHECK(client.get_bulletin().ok());

    // No server: a local failure throws; there is no reply, so no reply JSON either.
    {
        verify::Client dead("http://127.0.0.1:1", app, key);
        dead.set_timeouts(std::chrono::milliseconds(500), std::chrono::milliseconds(1000));
        bool threw = false;
        try {
            (void)dead.init();
        } catch (const verify::Error &e) {
            threw = true;
            verify::Error copy = e;
            CHECK(copy.code() == verify::codes::err_network ||
                  copy.code() == verify::codes::err_timeout);
            CHECK(std::string(copy.what()).find(std::to_string(verify::to_int(copy.code()))) !=
                  std::string::npos);
            CHECK(!copy.reply_json().has_value());
        }
        CHECK(threw);
    }

    return check::summary("wrapper");
}
