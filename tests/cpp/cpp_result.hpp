/*
 * cpp_result.hpp: what the C++ test programs driven by common::host::run_host share: CHECK,
 * which counts checks and failures (a failure prints "FAIL file:line: condition"), ask(),
 * which sends a "@@ REQUEST" line to the test and waits for its answer, and result(), which
 * prints "RESULT: N checks, M failed" (tests/c/host.h's protocol, for C++).
 *
 * Included by cpp_offline.cpp and cpp_typed.cpp.
 */

#ifndef VERIFY_TESTS_CPP_RESULT_HPP
#define VERIFY_TESTS_CPP_RESULT_HPP

#include <cstdio>
#include <iostream>
#include <string>

namespace result
{

/* Checks made and failed so far; written by the thread running the checks only. */
inline int checks = 0;
inline int failed = 0;

inline void check(bool ok, const char *what, const char *file, int line)
{
    ++checks;
    if (!ok) {
        ++failed;
        std::printf("FAIL %s:%d: %s\n", file, line, what);
        std::fflush(stdout);
    }
}

/* Asks the test for something only it can do, and waits for its answer. */
inline void ask(const std::string &what)
{
    std::printf("@@ %s\n", what.c_str());
    std::fflush(stdout);
    std::string answer;
    std::getline(std::cin, answer);
}

/* Prints "RESULT: N checks, M failed"; the program's exit status. */
inline int summary()
{
    std::printf("RESULT: %d checks, %d failed\n", checks, failed);
    std::fflush(stdout);
    return failed == 0 ? 0 : 1;
}

} // namespace result

#define CHECK(cond) result::check((cond), #cond, __FILE__, __LINE__)

#endif /* VERIFY_TESTS_CPP_RESULT_HPP */
