/*
 * cpp_client_options.cpp: verify::ClientOptions and the code page through verify.hpp
 * (driven by tests/cpp/demo.rs, with a sandbox serving http and https).
 *
 *   cpp_client_options HTTP_BASE HTTPS_BASE CA_PEM_FILE APP_ID APP_KEY
 *
 * CA_PEM_FILE holds the CA of the sandbox's https certificate, which no default store
 * trusts. HTTPS_BASE "-" skips the calls over https (under valgrind, whose model of ring's
 * assembly reports false positives); the settings are still checked. Prints `log LEVEL TEXT` for each log message of the failover client, and
 * `options checks: N failed`; exit 0 when N is 0.
 */

#include "verify.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpp_check.hpp"

static_assert(std::is_copy_constructible_v<verify::ClientOptions>, "ClientOptions is a value");
static_assert(std::is_same_v<std::underlying_type_t<verify::LogLevel>, std::int32_t>, "LogLevel");
static_assert(static_cast<std::int32_t>(verify::LogLevel::Warn) == VERIFY_LOG_WARN, "levels");
static_assert(static_cast<std::uint32_t>(verify::Trust::Mozilla | verify::Trust::System) ==
                  (VERIFY_TRUST_MOZILLA | VERIFY_TRUST_SYSTEM),
              "trust flags");
static_assert(std::is_nothrow_move_assignable_v<verify::Client>, "Client move-assigns");

using check::thrown;

namespace
{

// Log messages, from whichever thread the library calls on.
struct Collected {
    std::mutex mutex;
    std::vector<std::pair<verify::LogLevel, std::string>> lines;
};

} // namespace

int main(int argc, char **argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s HTTP_BASE HTTPS_BASE CA_PEM_FILE APP_ID APP_KEY\n",
                     argv[0]);
        return 2;
    }
    const std::string http = argv[1], https = argv[2], ca_file = argv[3], app = argv[4],
                      key = argv[5];
    using std::chrono::hours;
    using std::chrono::milliseconds;
    using std::chrono::seconds;
    using verify::codes::err_invalid_argument;

    const bool with_tls = argv[2] != std::string("-");
    const std::string tls_base = with_tls ? https : std::string("https://127.0.0.1:9");
    std::ifstream in(ca_file);
    const std::string ca_pem((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
    CHECK(ca_pem.find("-----BEGIN CERTIFICATE-----") != std::string::npos);

    // The code page: UTF-8 unless changed; an unknown one is refused.
    CHECK(verify::code_page() == VERIFY_CODE_PAGE_UTF8);
    CHECK(thrown([] { verify::set_code_page(-12345); }) == err_invalid_argument);
    CHECK(thrown([] { verify::set_code_page(VERIFY_CODE_PAGE_UTF8); }) == 0);

    try {
        // No settings: the defaults, as the first constructor.
        {
            verify::Client plain(http, app, key, verify::ClientOptions{});
            CHECK(plain.get_bulletin().ok());
        }

        // A dead first server and a mirror: the call fails over; the log says so, never
        // with a secret; a log function's exception is swallowed.
        Collected collected;
        {
            verify::ClientOptions options;
            options.mirrors = {http};
            options.proxy = verify::Proxy::none();
            options.connect_timeout = seconds(2);
            options.on_log = [&collected](verify::LogLevel level, std::string_view text) {
                {
                    std::lock_guard<std::mutex> lock(collected.mutex);
                    collected.lines.emplace_back(level, std::string(text));
                }
                throw std::runtime_error("thrown by on_log");
            };
            verify::Client failover("http://127.0.0.1:1", app, key, options);
            options.on_log = nullptr; // the client keeps its own copy
            verify::Reply bulletin = failover.get_bulletin();
            CHECK(bulletin.ok());
            verify::Client moved = std::move(failover);
            CHECK(moved.get_bulletin().ok());
            // Move-assigning frees the client held before (and its log function) first.
            moved = verify::Client(http, app, key, verify::ClientOptions{});
            CHECK(moved.get_bulletin().ok());
        }
        {
            std::lock_guard<std::mutex> lock(collected.mutex);
            CHECK(!collected.lines.empty());
            bool warned = false;
            for (const auto &line : collected.lines) {
                std::printf("log %d %s\n", static_cast<int>(line.first), line.second.c_str());
                warned = warned || line.first == verify::LogLevel::Warn ||
                         line.first == verify::LogLevel::Error;
                CHECK(line.second.find(key) == std::string::npos); // never the AppKey
            }
            CHECK(warned);
            std::fflush(stdout);
        }

        // Racing settings: a name DNS does not know, given its address; an attempt delay of 0
        // (every attempt at once); a state folder (the per-user default when empty).
        {
            verify::ClientOptions fixed;
            const std::string port = http.substr(http.rfind(':') + 1);
            fixed.addresses = {{"fixed.verify.test", "127.0.0.1"}};
            fixed.allow_insecure_http = true;
            fixed.attempt_delay = milliseconds(0);
            fixed.state_folder = std::string();
            fixed.remembered_addresses_max_age = hours(1);
            verify::Client named("http://fixed.verify.test:" + port, app, key, fixed);
            CHECK(named.get_bulletin().ok());
        }

        // https: the sandbox's CA is trusted only when given, as a file or as text.
        if (with_tls) {
            verify::ClientOptions by_file;
            by_file.trust = verify::Trust::None;
            by_file.root_files = {ca_file};
            verify::Client client(https, app, key, by_file);
            CHECK(client.get_bulletin().ok());

            verify::ClientOptions by_text;
            by_text.root_pems = {ca_pem}; // with Mozilla's roots, the default
            CHECK(verify::Client(https, app, key, by_text).get_bulletin().ok());

            verify::ClientOptions untrusted;
            untrusted.connect_timeout = seconds(5);
            verify::Client stranger(https, app, key, untrusted);
            CHECK(thrown([&] { (void)stranger.get_bulletin(); }) == verify::codes::err_tls);
        }

        // Settings the library refuses throw before any request.
        auto refused = [&](const std::string &base, const verify::ClientOptions &options) {
            return thrown([&] { verify::Client bad(base, app, key, options); });
        };
        verify::ClientOptions nothing;
        nothing.trust = verify::Trust::None;
        CHECK(refused(tls_base, nothing) == err_invalid_argument); // trusts nothing
        verify::ClientOptions bad_pem;
        bad_pem.root_pems = {"not a certificate"};
        CHECK(refused(tls_base, bad_pem) == err_invalid_argument);
        verify::ClientOptions bad_pin;
        bad_pin.pins = {"not base64 of a hash"};
        CHECK(refused(tls_base, bad_pin) == err_invalid_argument);
        verify::ClientOptions bad_mirror;
        bad_mirror.mirrors = {"ftp://mirror.example"};
        CHECK(refused(http, bad_mirror) == err_invalid_argument);
        verify::ClientOptions nul_mirror;
        nul_mirror.mirrors = {std::string("http://a\0b", 10)};
        CHECK(refused(http, nul_mirror) == err_invalid_argument);
        verify::ClientOptions bad_proxy;
        bad_proxy.proxy = verify::Proxy::with_url("");
        CHECK(refused(http, bad_proxy) == err_invalid_argument);
        verify::ClientOptions zero_timeout;
        zero_timeout.connect_timeout = milliseconds(0);
        CHECK(refused(http, zero_timeout) == err_invalid_argument);
        verify::ClientOptions huge_timeout;
        huge_timeout.call_timeout = hours(2000);
        CHECK(refused(http, huge_timeout) == err_invalid_argument);
        verify::ClientOptions slow_attempts;
        slow_attempts.attempt_delay = seconds(11);
        CHECK(refused(http, slow_attempts) == err_invalid_argument);
        verify::ClientOptions negative_delay;
        negative_delay.attempt_delay = milliseconds(-1);
        CHECK(refused(http, negative_delay) == err_invalid_argument);
        verify::ClientOptions negative_age;
        negative_age.remembered_addresses_max_age = seconds(-1);
        CHECK(refused(http, negative_age) == err_invalid_argument);
        verify::ClientOptions bad_address;
        bad_address.addresses = {{"fixed.verify.test", "not an address"}};
        CHECK(refused(http, bad_address) == err_invalid_argument);

        // Plain http:// to a host that is not loopback only when allowed (nothing is sent).
        CHECK(refused("http://verify.example", verify::ClientOptions{}) == err_invalid_argument);
        verify::ClientOptions insecure;
        insecure.allow_insecure_http = true;
        CHECK(refused("http://verify.example", insecure) == 0);

        // The doctor with the same options as a client: a healthy program passes, its
        // report holds no AppKey; a wrong AppKey fails with its key.
        {
            verify::ClientOptions options;
            options.proxy = verify::Proxy::none();
            verify::Diagnosis report = verify::diagnose(http, app, key, options);
            CHECK(report.verdict == verify::Verdict::Pass);
            CHECK(!report.failed());
            CHECK(report.steps.size() >= 5);
            CHECK(report.json.find("\"version\":2") != std::string::npos);
            CHECK(report.causes.empty());
            CHECK(report.first_line_in("en").rfind("PASS: the connection is fine", 0) == 0);
            CHECK(report.json.find(key) == std::string::npos);
            CHECK(report.text.find("PASS init") != std::string::npos);
            // The text in a language asked for: Chinese and English differ, neither holds the
            // AppKey, and a tag that is not well formed is refused.
            std::string chinese = report.text_in("zh-CN");
            std::string english = report.text_in("en");
            CHECK(!chinese.empty() && chinese != english);
            CHECK(english.find("PASS init") != std::string::npos);
            CHECK(chinese.find(key) == std::string::npos);
            try {
                (void)report.text_in("zh CN");
                CHECK(false);
            } catch (const verify::Error &e) {
                CHECK(e.code() == err_invalid_argument);
            }
            verify::Diagnosis copy = report;
            CHECK(copy.text_in("en") == english);
            try {
                (void)verify::Diagnosis{}.text_in("en");
                CHECK(false);
            } catch (const verify::Error &e) {
                CHECK(e.code() == err_invalid_argument);
            }
            verify::Diagnosis wrong =
                verify::diagnose(http, app, "WRONGKEY0123456789ABCDEFGHIJKLMN", options);
            CHECK(wrong.failed());
            bool named = false;
            for (const verify::DiagnosisStep &step : wrong.steps) {
                named = named || (step.kind == verify::DiagnosisStepKind::Init &&
                                  step.verdict == verify::Verdict::Fail && step.key == "init.1011");
            }
            CHECK(named);
            // The first line names the cause and who acts; the cause points at its step.
            CHECK(wrong.first_line_in("en").rfind("FAIL: Refused with 1011", 0) == 0);
            CHECK(wrong.first_line_in("zh-CN").find("\xE8\xAF\xB7\xE8\x81\x94\xE7\xB3\xBB") !=
                  std::string::npos);
            CHECK(wrong.causes.size() == 1 && wrong.causes[0].key == "init.1011" &&
                  wrong.causes[0].actor == verify::DiagnosisActor::Vendor &&
                  wrong.causes[0].step < wrong.steps.size() &&
                  wrong.steps[wrong.causes[0].step].key == "init.1011");
            CHECK(wrong.support_file("en").find("WRONGKEY") == std::string::npos);
            // From a client: its own settings, each step heard on the calling thread.
            {
                verify::Client client(http, app, "WRONGKEY0123456789ABCDEFGHIJKLMN", options);
                std::size_t heard = 0;
                verify::Diagnosis own =
                    verify::diagnose(client, [&heard](const verify::DiagnosisStep &step) {
                        heard += step.text.empty() ? std::size_t{0} : std::size_t{1};
                    });
                CHECK(heard == own.steps.size());
                CHECK(!own.causes.empty() && own.causes[0].key == "init.1011");
                verify::CancelToken cancel;
                cancel.cancel();
                try {
                    (void)verify::diagnose(client, {}, &cancel);
                    CHECK(false);
                } catch (const verify::Error &e) {
                    CHECK(e.code() == verify::codes::err_cancelled);
                }
                // An exception of the step function comes back once the doctor finished.
                try {
                    (void)verify::diagnose(client, [](const verify::DiagnosisStep &) {
                        throw std::runtime_error("from the step function");
                    });
                    CHECK(false);
                } catch (const std::runtime_error &e) {
                    CHECK(std::string(e.what()) == "from the step function");
                }
            }
            if (with_tls) {
                options.trust = verify::Trust::None;
                options.root_pems = {ca_pem};
                verify::Diagnosis tls = verify::diagnose(tls_base, app, key, options);
                bool shown = false;
                for (const verify::DiagnosisStep &step : tls.steps) {
                    shown = shown ||
                            (step.kind == verify::DiagnosisStepKind::Tls && step.key == "tls.ok");
                }
                CHECK(shown);
            }
        }
    } catch (const verify::Error &e) {
        std::printf("verify::Error %d: %s\n", verify::to_int(e.code()), e.what());
        return 1;
    }
    return check::summary("options");
}
