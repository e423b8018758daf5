/*
 * win_host.h: what the Windows test hosts share (tests/platforms/windows/win_*.c), for tests/platforms/windows/,
 * which cross-compiles them with mingw-w64 and runs them under Wine.
 *
 * Each check that fails prints a line starting with "FAIL file:line:" and is counted; a host
 * ends with "RESULT: N checks, M failed" and exits 0 only when none failed.
 */

#ifndef VERIFY_WIN_HOST_H
#define VERIFY_WIN_HOST_H

#include <stdio.h>
#include <string.h>

#include "verify.h"

static long host_checks;
static long host_failed;

static int host_check(int ok, const char *what, const char *file, int line)
{
    host_checks++;
    if (!ok) {
        host_failed++;
        printf("FAIL %s:%d: %s (last error %d)\n", file, line, what, (int)verify_last_error_code());
        fflush(stdout);
    }
    return ok;
}

static int host_check_int(long long actual, long long expected, const char *what, const char *file,
                          int line)
{
    host_checks++;
    if (actual != expected) {
        host_failed++;
        printf("FAIL %s:%d: %s is %lld, expected %lld (last error %d)\n", file, line, what, actual,
               expected, (int)verify_last_error_code());
        fflush(stdout);
        return 0;
    }
    return 1;
}

#define CHECK(cond) host_check((cond) ? 1 : 0, #cond, __FILE__, __LINE__)
#define CHECK_INT(actual, expected)                                                                \
    host_check_int((long long)(actual), (long long)(expected), #actual, __FILE__, __LINE__)

/* Prints the result line; the exit status of the host. */
static int host_result(void)
{
    printf("RESULT: %ld checks, %ld failed\n", host_checks, host_failed);
    fflush(stdout);
    return host_failed == 0 ? 0 : 1;
}

#endif
