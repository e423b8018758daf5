/// @file
/// verify/time.hpp: verify::Time, an instant, and the service's times ("YYYY-MM-DD HH:mm:ss"
/// in UTC+08:00): read by the library (verify_service_time, verify_reply_time), written here.

#ifndef VERIFY_TIME_HPP
#define VERIFY_TIME_HPP

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include "../verify.h"

namespace verify {

/// A point in time. The service writes its times ("expire_at", "updated_at", ...) as
/// "YYYY-MM-DD HH:mm:ss" in Beijing time, UTC+08:00, without an offset; the typed results
/// give them as this type, converted by the library: a Time is an instant (system_clock counts from
/// the Unix epoch, UTC, on every supported platform), and format_service_time() writes it back
/// in the service's form. Every time the binding gives is a Time, with no offset to mix up:
/// the service's "*_at" fields, OfflineInfo's, an Event's and a KeeperStatus's alike.
using Time = std::chrono::system_clock::time_point;

/// The offset of every time the service writes: UTC+08:00 (Beijing time, no daylight saving).
inline constexpr std::chrono::hours service_utc_offset{8};

/// A time of the service, "YYYY-MM-DD HH:mm:ss" in UTC+08:00, as an instant; std::nullopt for
/// anything else (an empty string, another form, a date that does not exist). The library
/// reads it (verify_service_time): the binding never parses the service's format itself.
[[nodiscard]] inline std::optional<Time> service_time(std::string_view text) noexcept {
    std::int64_t seconds = 0;
    if (text.find('\0') != std::string_view::npos ||
        verify_service_time(std::string(text).c_str(), &seconds, nullptr) != 0) {
        return std::nullopt;
    }
    return Time(std::chrono::duration_cast<Time::duration>(std::chrono::seconds(seconds)));
}

namespace detail {

/// The date of a day count since 1970-01-01 (H. Hinnant's civil_from_days).
constexpr void civil_from_days(std::int64_t z, std::int64_t &y, unsigned &m, unsigned &d) noexcept {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
}

}  // namespace detail

/// `time` as the service writes it: "YYYY-MM-DD HH:mm:ss" in UTC+08:00 (whole seconds, rounded
/// down). service_time(format_service_time(t)) is t rounded down to the second.
[[nodiscard]] inline std::string format_service_time(Time time) {
    const std::int64_t seconds =
        std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count() +
        std::chrono::seconds(service_utc_offset).count();
    std::int64_t days = seconds / 86400;
    std::int64_t rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days -= 1;
    }
    std::int64_t year = 0;
    unsigned month = 0;
    unsigned day = 0;
    detail::civil_from_days(days, year, month, day);
    char out[32] = {};
    std::snprintf(out, sizeof out, "%04lld-%02u-%02u %02lld:%02lld:%02lld", static_cast<long long>(year), month, day,
                  static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                  static_cast<long long>(rest % 60));
    return std::string(out);
}

}  // namespace verify

#endif /* VERIFY_TIME_HPP */
