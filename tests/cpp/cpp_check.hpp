/*
 * cpp_check.hpp: what the C++ test programs of tests/cpp/ share: a CHECK macro that counts
 * failures (the program prints the count and exits non-zero when it is not 0) and thrown(),
 * the code of the verify::Error a body throws.
 *
 * Included after verify.hpp by cpp_wrapper.cpp, cpp_keeper_events.cpp,
 * cpp_keeper_status.cpp, cpp_social_wait.cpp, cpp_cancel.cpp and cpp_format.cpp; driven by
 * tests/cpp/demo.rs, tests/cpp/keeper.rs, tests/cpp/cancel.rs and tests/cpp/format.rs.
 */

#ifndef VERIFY_TESTS_CPP_CHECK_HPP
#define VERIFY_TESTS_CPP_CHECK_HPP

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "verify.hpp"

namespace check
{

/* How many CHECKs failed so far. Written by the thread running the checks only. */
inline int failures = 0;

/* The code of the verify::Error that `body` throws, or 0 when it throws none. Every Error
 * must carry a message and a description. */
template <typename Body> std::int32_t thrown(Body &&body);

/* Milliseconds of a steady_clock duration. */
inline long long millis(std::chrono::steady_clock::duration d)
{
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

/* Prints `checks: N failed` with `what` as its label; the exit status of the program. */
inline int summary(const char *what)
{
    std::printf("%s checks: %d failed\n", what, failures);
    std::fflush(stdout);
    return failures == 0 ? 0 : 1;
}

} // namespace check

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("CHECK FAILED (%s:%d): %s\n", __FILE__, __LINE__, #cond);                  \
            std::fflush(stdout);                                                                   \
            ++check::failures;                                                                     \
        }                                                                                          \
    } while (0)

template <typename Body> std::int32_t check::thrown(Body &&body)
{
    try {
        body();
    } catch (const verify::Error &e) {
        CHECK(e.what()[0] != '\0');
        CHECK(!e.description().empty());
        return verify::to_int(e.code());
    }
    return 0;
}

#endif /* VERIFY_TESTS_CPP_CHECK_HPP */
