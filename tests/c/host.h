/*
 * host.h: what the C test hosts share (tests/c/c_*.c), for the Rust tests that run them
 * (tests/c/abi.rs, tests/c/keeper.rs, tests/c/threads.rs).
 *
 * A host runs one scenario, named on its command line, and prints what it checks. Each check
 * that fails prints a line starting with "FAIL file:line:" and is counted; the host ends with
 * "RESULT: N checks, M failed" and exits 0 only when none failed.
 *
 * Talking to the test: a line "@@ WORD [ARGS]" on stdout asks the Rust test to do something
 * the host cannot (change the sandbox: leave a message, ban an account, authorize a social
 * login...). The host then blocks until the test writes a line on stdin ("go" once done).
 *
 * Time limits are multiplied by $VERIFY_HOST_SLACK (default 1), which the tests raise when
 * the host runs under valgrind.
 */

#ifndef VERIFY_TEST_HOST_H
#define VERIFY_TEST_HOST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

/* The counts of one program's checks. A host of several files (c_abi.c and
 * c_abi_contracts.c, c_keeper.c and c_keeper_offline.c) defines them in the file that has
 * main(); its other files define VERIFY_HOST_PART before including this header. */
#ifdef VERIFY_HOST_PART
extern int host_checks;
extern int host_failed;
#else
int host_checks;
int host_failed;
#endif

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Counts a check; prints it when it fails. */
static inline int host_check(int ok, const char *what, const char *file, int line)
{
    host_checks++;
    if (!ok) {
        host_failed++;
        printf("FAIL %s:%d: %s (last error %d: %s)\n", file, line, what,
               (int)verify_last_error_code(), verify_last_error_message());
        fflush(stdout);
    }
    return ok;
}

/* Checks that `actual` equals `expected` (result codes and other integers). */
static inline int host_check_int(long long actual, long long expected, const char *what,
                                 const char *file, int line)
{
    host_checks++;
    if (actual != expected) {
        host_failed++;
        printf("FAIL %s:%d: %s is %lld, expected %lld (last error %d: %s)\n", file, line, what,
               actual, expected, (int)verify_last_error_code(), verify_last_error_message());
        fflush(stdout);
        return 0;
    }
    return 1;
}

/* Checks that `actual` is the string `expected` (NULL: absent). */
static inline int host_check_str(const char *actual, const char *expected, const char *what,
                                 const char *file, int line)
{
    int same =
        (actual == NULL || expected == NULL) ? actual == expected : strcmp(actual, expected) == 0;
    host_checks++;
    if (!same) {
        host_failed++;
        printf("FAIL %s:%d: %s is %s%s%s, expected %s%s%s\n", file, line, what, actual ? "\"" : "",
               actual ? actual : "NULL", actual ? "\"" : "", expected ? "\"" : "",
               expected ? expected : "NULL", expected ? "\"" : "");
        fflush(stdout);
        return 0;
    }
    return 1;
}

#define CHECK(cond) host_check((cond) ? 1 : 0, #cond, __FILE__, __LINE__)
#define CHECK_INT(actual, expected)                                                                \
    host_check_int((long long)(actual), (long long)(expected), #actual, __FILE__, __LINE__)
#define CHECK_STR(actual, expected)                                                                \
    host_check_str((actual), (expected), #actual, __FILE__, __LINE__)

/* Prints the summary line and returns the exit status. */
static inline int host_finish(const char *scenario)
{
    printf("RESULT: %s: %d checks, %d failed\n", scenario, host_checks, host_failed);
    fflush(stdout);
    return host_failed == 0 && host_checks > 0 ? 0 : 1;
}

/* Asks the test to do `what` and waits for its answer; returns it in `answer` (may be NULL). */
static inline void host_ask(const char *what, char *answer, size_t answer_len)
{
    char line[512];
    printf("@@ %s\n", what);
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL) {
        printf("FAIL: no answer from the test to \"%s\"\n", what);
        exit(3);
    }
    line[strcspn(line, "\r\n")] = '\0';
    if (answer != NULL && answer_len > 0) {
        strncpy(answer, line, answer_len - 1);
        answer[answer_len - 1] = '\0';
    }
}

#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
#include <time.h>

/* The monotonic clock in ms (hosts built with -D_POSIX_C_SOURCE=200809L). */
static inline long host_now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)now.tv_sec * 1000L + now.tv_nsec / 1000000L;
}
#endif

/* The factor on time limits ($VERIFY_HOST_SLACK, at least 1). */
static inline long host_slack(void)
{
    const char *text = getenv("VERIFY_HOST_SLACK");
    long slack = text != NULL ? strtol(text, NULL, 10) : 1;
    return slack >= 1 ? slack : 1;
}

/* A client of the program, or exits: every scenario with a server needs one. With
 * $VERIFY_HOST_CA set to a PEM file, the client trusts that CA too (an https sandbox's). */
static inline verify_client *host_client(const char *base_url, const char *app_id,
                                         const char *app_key)
{
    verify_client *client = NULL;
    const char *ca_file = getenv("VERIFY_HOST_CA");
    int32_t code;
    if (ca_file != NULL && ca_file[0] != '\0') {
        verify_client_options *options = NULL;
        code = verify_client_options_new(&options);
        if (code == VERIFY_OK) {
            code = verify_client_options_add_root_file(options, ca_file);
        }
        if (code == VERIFY_OK) {
            code = verify_client_new_with_options(base_url, app_id, app_key, options, &client);
        }
        verify_client_options_free(options);
    } else {
        code = verify_client_new(base_url, app_id, app_key, &client);
    }
    if (code != VERIFY_OK || client == NULL) {
        printf("FAIL: verify_client_new(%s, %s) gave %d: %s\n", base_url, app_id, (int)code,
               verify_last_error_message());
        exit(3);
    }
    return client;
}

/* A heap copy of the string at `pointer` in `reply`, or NULL when absent (caller frees). */
static inline char *host_reply_copy(const verify_reply *reply, const char *pointer)
{
    const char *value = NULL;
    char *copy;
    size_t length;
    if (reply == NULL || verify_reply_str(reply, pointer, &value) != 0 || value == NULL) {
        return NULL;
    }
    length = strlen(value) + 1;
    copy = (char *)malloc(length);
    if (copy != NULL) {
        memcpy(copy, value, length);
    }
    return copy;
}

/* A heap copy of the thread's last error message (caller frees). */
static inline char *host_last_error_copy(void)
{
    const char *message = verify_last_error_message();
    size_t length = strlen(message) + 1;
    char *copy = (char *)malloc(length);
    if (copy != NULL) {
        memcpy(copy, message, length);
    }
    return copy;
}

#endif /* VERIFY_TEST_HOST_H */
