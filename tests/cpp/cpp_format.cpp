/*
 * cpp_format.cpp: verify/format.hpp prints codes, states, kinds, events, refusals and errors
 * with operator<< and with fmt::format (the {fmt} library included first, header-only), the
 * same text both ways (run by tests/cpp/format.rs). No library call is made: the values are
 * built by hand.
 */

#include <fmt/format.h>

#include <sstream>
#include <string>

#include "verify.hpp"

#include "cpp_check.hpp"

namespace
{

template <typename T> std::string streamed(const T &value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

template <typename T> void same(const T &value, const std::string &expected)
{
    std::string by_stream = streamed(value);
    std::string by_fmt = fmt::format("{}", value);
    if (by_stream != expected || by_fmt != expected) {
        std::printf("FAIL: expected \"%s\", operator<< gave \"%s\", fmt \"%s\"\n", expected.c_str(),
                    by_stream.c_str(), by_fmt.c_str());
        ++check::failures;
    }
}

} // namespace

int main()
{
    same(verify::Code::card_invalid, "card_invalid (1004)");
    same(verify::Code::err_cancelled, "err_cancelled (-7)");
    verify::Code unnamed{1099};
    same(unnamed, "unknown (1099)");
    same(verify::KeeperState::Grace, "Grace");
    same(verify::EventKind::Ended, "Ended");
    same(verify::SessionKind::User, "User");

    verify::Event event;
    event.kind = verify::EventKind::Ended;
    event.code = verify::Code::disabled;
    event.message = "banned";
    event.remark = "shared key";
    same(event, "Ended: disabled (1006): banned [remark: shared key]");

    verify::Refusal refusal;
    refusal.code = verify::Code::wrong_password;
    refusal.message = "wrong password";
    same(refusal, "wrong_password (1003): wrong password");

    verify::Error error(verify::Code::err_timeout, "the call timed out");
    same(error, "the call timed out");
    verify::Refused refused(refusal);
    same(refused, std::string(refused.what()));

    // A format spec applies as to a string.
    std::string padded = fmt::format("[{:>20}]", verify::Code::ok);
    CHECK(padded == "[" + std::string(12, ' ') + "ok (200)]");
    return check::summary("format");
}
