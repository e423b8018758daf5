/*
 * verify/time.hpp: verify::Time, an instant, and the service's times ("YYYY-MM-DD HH:mm:ss"
 * in UTC+08:00) read and written.
 */

#ifndef VERIFY_TIME_HPP
#define VERIFY_TIME_HPP

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace verify {

/*
 * A point in time. The service writes its times ("expire_at", "updated_at", ...) as
 * "YYYY-MM-DD HH:mm:ss" in Beijing time, UTC+08:00, without an offset; the typed results
 * give them as this type, already converted: a Time is an instant (system_clock counts from
 * the Unix epoch, UTC, on every supported platform), and format_service_time() writes it back
 * in the service's form. Every time the binding gives is a Time, with no offset to mix up:
 * the service's "*_at" fields, OfflineInfo's, an Event's and a KeeperStatus's alike.
 */
using Time = std::chrono::system_clock::time_point;

/* The offset of every time the service writes: UTC+08:00 (Beijing time, no daylight saving). */
inline constexpr std::chrono::hours service_utc_offset{8};

namespace detail {

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/* The date of a day count since 1970-01-01 (H. Hinnant's civil_from_days). */
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

/* The number of `count` decimal digits at `at` of `text`, or -1 when one is not a digit. */
constexpr int digits(std::string_view text, std::size_t at, std::size_t count) noexcept {
    int value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return -1;
        }
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

}  // namespace detail

/*
 * A time of the service, "YYYY-MM-DD HH:mm:ss" in UTC+08:00, as an instant; std::nullopt for
 * anything else (an empty string, another format, a date that does not exist). The typed
 * results read every "*_at" field with it.
 */
[[nodiscard]] inline std::optional<Time> service_time(std::string_view text) noexcept {
    if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' ||
        text[16] != ':') {
        return std::nullopt;
    }
    const int year = detail::digits(text, 0, 4);
    const int month = detail::digits(text, 5, 2);
    const int day = detail::digits(text, 8, 2);
    const int hour = detail::digits(text, 11, 2);
    const int minute = detail::digits(text, 14, 2);
    const int second = detail::digits(text, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
        second < 0 || second > 59) {
        return std::nullopt;
    }
    static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > month_days[month - 1] || (month == 2 && day == 29 && !leap)) {
        return std::nullopt;
    }
    const std::int64_t days =
        detail::days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second -
                                 std::chrono::seconds(service_utc_offset).count();
    return Time(std::chrono::duration_cast<Time::duration>(std::chrono::seconds(seconds)));
}

/* `time` as the service writes it: "YYYY-MM-DD HH:mm:ss" in UTC+08:00 (whole seconds, rounded
 * down). service_time(format_service_time(t)) is t rounded down to the second. */
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
